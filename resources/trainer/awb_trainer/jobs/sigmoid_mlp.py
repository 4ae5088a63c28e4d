"""core/rewards/mlp.ts's SigmoidMlp in torch, its two JSON checkpoint formats (awb-progrm, awb-shepherd-judge:
the policy's layout with a format marker), and the BCE training loop both reward-model jobs share.

    hidden > 0:  z(x) = w2 · tanh(W1 x + b1) + b2        hidden = 0:  z(x) = w · x + b
    p(x) = σ(z);  L = softplus(z) − y z  (BCE with a possibly soft target y; ProgRM Eq. 5, GUI-Shepherd Eq. 2)

Flat parameter layout (what the checkpoints store): W1 (H×F row-major), b1 (H), w2 (H), b2 (1); or w (F), b (1).
"""

from __future__ import annotations

import json
import os
import time
from typing import Callable, Optional

import numpy as np
import torch
from torch import nn

from .. import policy
from ..bundle import Bundle
from ..errors import BundleError, CheckpointFormatError
from .context import JobContext
from .torch_util import Distributed, clip_grad_norm, make_optimizer

DTYPE = torch.float64


def mlp_param_count(input_dim: int, hidden: int) -> int:
    return input_dim + 1 if hidden == 0 else hidden * input_dim + 2 * hidden + 1


class SigmoidMlp(nn.Module):
    def __init__(self, input_dim: int, hidden: int):
        super().__init__()
        self.input_dim, self.hidden = input_dim, hidden
        if hidden == 0:
            self.w = nn.Parameter(torch.zeros(input_dim, dtype=DTYPE))
        else:
            self.W1 = nn.Parameter(torch.zeros(hidden, input_dim, dtype=DTYPE))
            self.b1 = nn.Parameter(torch.zeros(hidden, dtype=DTYPE))
            self.w2 = nn.Parameter(torch.zeros(hidden, dtype=DTYPE))
        self.b2 = nn.Parameter(torch.zeros(1, dtype=DTYPE))

    def _ordered(self) -> list[nn.Parameter]:
        return [self.w, self.b2] if self.hidden == 0 else [self.W1, self.b1, self.w2, self.b2]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits [N] of the rows of x [N, F]."""
        if self.hidden == 0:
            return x @ self.w + self.b2
        return torch.tanh(x @ self.W1.t() + self.b1) @ self.w2 + self.b2

    def flat(self) -> torch.Tensor:
        return torch.cat([p.detach().reshape(-1) for p in self._ordered()]).to(torch.float32).cpu()

    def load_flat(self, flat: torch.Tensor) -> None:
        o = 0
        with torch.no_grad():
            for p in self._ordered():
                p.copy_(flat[o:o + p.numel()].reshape(p.shape))
                o += p.numel()


def load_mlp_checkpoint(path: str, fmt: str, allow_logistic: bool) -> tuple[SigmoidMlp, dict]:
    """(model, the file's JSON) of an `fmt` v1 checkpoint; CheckpointFormatError names the problem."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise CheckpointFormatError(path, f"cannot read JSON ({e})") from e
    if not isinstance(doc, dict) or doc.get("format") != fmt or doc.get("version") != 1:
        raise CheckpointFormatError(path, f"expected format {fmt!r} version 1, got {doc.get('format') if isinstance(doc, dict) else doc!r}")
    net = doc.get("network") or {}
    f_in, hidden = net.get("input"), net.get("hidden")
    min_hidden = 0 if allow_logistic else 1
    if not (isinstance(f_in, int) and f_in > 0 and isinstance(hidden, int) and hidden >= min_hidden):
        raise CheckpointFormatError(path, f"network must have input ≥ 1 and hidden ≥ {min_hidden}, got {net!r}")
    want = mlp_param_count(f_in, hidden)
    params = doc.get("params") or {}
    if params.get("dtype") != "float32-le" or params.get("count") != want:
        raise CheckpointFormatError(path, f"params must be float32-le with count {want}, got {params.get('dtype')!r} × {params.get('count')!r}")
    try:
        flat = policy.decode_float32(params.get("base64", ""), want)
    except ValueError as e:
        raise CheckpointFormatError(path, str(e)) from e
    if not bool(torch.isfinite(flat).all()):
        raise CheckpointFormatError(path, "a parameter is NaN or infinite")
    model = SigmoidMlp(f_in, hidden)
    model.load_flat(flat.to(DTYPE))
    return model, doc


def save_mlp_checkpoint(path: str, model: SigmoidMlp, template: dict, meta: dict) -> None:
    """The init file's document (format, encoder, network) with the trained parameters and new meta; atomic."""
    flat = model.flat()
    if not bool(torch.isfinite(flat).all()):
        raise FloatingPointError("refusing to save a model with a NaN or infinite parameter")
    doc = {**template, "params": policy.encode_float32(flat), "meta": meta}
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))
    os.replace(tmp, path)


def bce(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """softplus(z) − y z per row (mlp.ts bceWithLogit, overflow-free)."""
    return torch.nn.functional.softplus(logits) - y * logits


EpochExtra = Callable[[SigmoidMlp, torch.Tensor, torch.Tensor], dict]


def train_bce(ctx: JobContext, bundle: Bundle, dist: Distributed, fmt: str, allow_logistic: bool, betas: tuple[float, float],
              weights: Optional[np.ndarray], epoch_extra: EpochExtra) -> None:
    """Minimises Σ_i w_i·BCE_i / |B| over shuffled minibatches with Adam and grad-norm clipping at 1 (as the TS fits);
    writes model.json (the init file's format) and metrics.jsonl."""
    c = ctx.config
    init_path = bundle.extract("init/model.json", f"{ctx.work}/init")
    try:
        model, template = load_mlp_checkpoint(init_path, fmt, allow_logistic)
    except CheckpointFormatError as e:
        raise BundleError("init/model.json", str(e)) from e
    xs, ys = bundle.samples(model.input_dim)
    x = torch.from_numpy(xs).to(DTYPE).to(dist.device)
    y = torch.from_numpy(ys).to(DTYPE).to(dist.device)
    w = torch.ones_like(y) if weights is None else torch.from_numpy(weights).to(DTYPE).to(dist.device)
    model = model.to(dist.device)
    net: nn.Module = torch.nn.parallel.DistributedDataParallel(model) if dist.enabled else model
    params = list(model.parameters())
    opt = make_optimizer(params, c["learningRate"], c["weightDecay"], betas)
    gen = torch.Generator().manual_seed(c["seed"])
    n = len(ys)
    ctx.log(f"{ctx.kind}: {n} samples, F={model.input_dim}, H={model.hidden}, world size {dist.world_size}")
    history: dict = {}
    for epoch in range(1, c["epochs"] + 1):
        t0 = time.monotonic()
        order = torch.randperm(n, generator=gen)
        loss_sum = norm_sum = 0.0
        batches = 0
        for b in range(0, n, c["batchSize"]):
            ctx.check_cancel()
            mb = order[b:b + c["batchSize"]]
            shard = torch.tensor(dist.shard(mb.tolist()), dtype=torch.int64)
            rows = shard if len(shard) else torch.zeros(1, dtype=torch.int64)
            z = net(x[rows])
            per = w[rows] * bce(z, y[rows]) * (1.0 if len(shard) else 0.0)
            loss = per.sum() / len(mb)
            opt.zero_grad(set_to_none=True)
            (loss * dist.world_size).backward()
            norm = clip_grad_norm(params, 1.0)
            if not np.isfinite(norm):
                raise FloatingPointError(f"the gradient norm became {norm} in epoch {epoch}; no checkpoint was written")
            opt.step()
            loss_sum += dist.all_reduce_sum([float(per.detach().sum())])[0]
            norm_sum += norm
            batches += 1
        with torch.no_grad():
            extra = epoch_extra(model, x, y)
        history = {"loss/bce": loss_sum / n, **extra, "optim/grad_norm": norm_sum / batches, "perf/epoch_s": time.monotonic() - t0}
        ctx.metric(epoch, history)
        ctx.log(f"epoch {epoch}/{c['epochs']}: loss/bce {history['loss/bce']:.4f}")
    if ctx.is_main:
        meta = {**(template.get("meta") or {}), "trainer": "awb-trainer", "job": ctx.record["id"], "config": ctx.config, "metrics": history}
        save_mlp_checkpoint(ctx.artifact("model.json"), model, template, meta)
