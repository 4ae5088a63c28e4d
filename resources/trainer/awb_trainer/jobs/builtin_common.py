"""Shared by builtin-sft and builtin-grpo: the init checkpoint from the bundle, the steps as one feature matrix,
log π of a set of steps through the (possibly DDP-wrapped) scorer, and the artifacts policy.json + policy.onnx."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch

from .. import policy
from ..bundle import Bundle, PolicyStep
from ..errors import BundleError
from .context import JobContext
from .torch_util import Distributed, entropy, step_log_probs

# The scorer is tiny, so training runs in float64: sums agree with core/policy/network.ts (float64 sums), and
# the checkpoint is written back as float32, the format's dtype.
DTYPE = torch.float64


def load_init_policy(ctx: JobContext, bundle: Bundle, member: str) -> tuple[policy.BuiltinScorer, dict]:
    path = bundle.extract(member, f"{ctx.work}/init")
    try:
        return policy.load_checkpoint(path)
    except policy.CheckpointError as e:
        raise BundleError(member, "; ".join(e.problems)) from e


@dataclass
class StepData:
    """Every step of the bundle as tensors: candidate rows of all steps in one [Σn, F] matrix."""
    features: torch.Tensor      # [Σn, F]
    offsets: list[int]          # first row of step k
    counts: list[int]           # n of step k
    chosen: torch.Tensor        # [K] int64
    temperature: torch.Tensor   # [K]
    log_prob_old: torch.Tensor  # [K]

    @staticmethod
    def build(steps: list[PolicyStep], device: torch.device) -> "StepData":
        counts = [s.n for s in steps]
        offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64).tolist()
        feats = torch.from_numpy(np.concatenate([s.features for s in steps])).to(DTYPE)
        f = feats.numel() // sum(counts)
        return StepData(
            features=feats.reshape(-1, f).to(device), offsets=offsets, counts=counts,
            chosen=torch.tensor([s.chosen for s in steps], dtype=torch.int64, device=device),
            temperature=torch.tensor([s.temperature for s in steps], dtype=DTYPE, device=device),
            log_prob_old=torch.tensor([s.log_prob for s in steps], dtype=DTYPE, device=device),
        )

    def rows(self, idx: list[int]) -> torch.Tensor:
        return torch.cat([torch.arange(self.offsets[k], self.offsets[k] + self.counts[k]) for k in idx]).to(self.features.device)


def log_probs(model: torch.nn.Module, data: StepData, idx: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """(log π(chosen) [len(idx)], padded log-probs) of steps idx; the call goes through model(...) so DDP syncs.
    An empty idx (a rank whose shard is empty) runs one zero row and returns empty tensors scaled to 0."""
    if not idx:
        dummy = torch.zeros(1, data.features.shape[1], dtype=DTYPE, device=data.features.device)
        scores = model(dummy, 1.0)[0]
        return scores[:0] * 0, scores[:0].reshape(0, 1)
    scores = model(data.features[data.rows(idx)], 1.0)[0]
    sel = torch.tensor(idx, device=data.features.device)
    return step_log_probs(scores, [data.counts[k] for k in idx], data.chosen[sel], data.temperature[sel])


def mean_entropy(model: torch.nn.Module, data: StepData, batch: int = 4096) -> float:
    with torch.no_grad():
        total = 0.0
        k = len(data.counts)
        for b in range(0, k, batch):
            idx = list(range(b, min(k, b + batch)))
            _, lp = log_probs(model, data, idx)
            total += float(entropy(lp).sum())
        return total / k


def prepare_model(model: policy.BuiltinScorer, dist: Distributed) -> tuple[policy.BuiltinScorer, torch.nn.Module]:
    """(the scorer in float64 on this rank's device, what to call: DDP over it under torchrun, else itself)."""
    model = model.to(device=dist.device, dtype=DTYPE)
    if not dist.enabled:
        return model, model
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dist.device.index] if dist.device.type == "cuda" else None)
    return model, ddp


def save_policy_artifacts(ctx: JobContext, model: policy.BuiltinScorer, meta: dict) -> None:
    """policy.json (awb-builtin-policy v1, float32) and policy.onnx; rank 0 only."""
    if not ctx.is_main:
        return
    out = policy.BuiltinScorer(model.input_dim, model.hidden, encoder_config=model.encoder_config)
    out.load_flat_params(model.flat_params().cpu())
    policy.save_checkpoint(out, ctx.artifact("policy.json"), meta)
    policy.export_onnx(out, ctx.artifact("policy.onnx"), meta={"job": meta.get("job"), "kind": meta.get("kind")})


def check_finite(what: str, value: float, epoch: int) -> None:
    if not np.isfinite(value):
        raise FloatingPointError(f"{what} became {value} in epoch {epoch}; no checkpoint was written")


def training_meta(ctx: JobContext, init_meta: dict, extra: Optional[dict] = None) -> dict:
    return {"trainer": "awb-trainer", "job": ctx.record["id"], "kind": ctx.kind, "config": ctx.config,
            "init": {k: init_meta[k] for k in sorted(init_meta) if k in ("step", "kind", "job")}, **(extra or {})}
