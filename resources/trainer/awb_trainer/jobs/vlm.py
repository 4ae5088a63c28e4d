"""vlm-sft / vlm-grpo: LoRA fine-tuning of a policy model on the store's export (episodes.jsonl + screenshots/).

Two backends share this loop and differ only in "load the model (fresh LoRA or a saved adapter), encode a sample,
score its answer tokens, disable the adapter for the reference, save the adapter":
- `model: "awb-tiny-lm"`: tiny_lm.py, a torch-only byte-level LM that ignores the image (a plumbing model, no agent);
- any other model id or path: vlm_hf.py, a Hugging Face VLM with a peft LoRA (needs transformers + peft + Pillow).

One sample per recorded step with an answer (vlm_samples.py). The prompt is the step's `messages` — the chat the
policy was sent, its screenshot as an image part — when the workbench recorded it, else a chat built from the
instruction and the last actions; GRPO's ratio is only right under the prompt that produced the answer. The target is
what the policy answered (`raw`, else the parsed action as JSON) and the end-of-turn token that stopped it.
- vlm-sft: per sample the mean token cross-entropy of the answer, averaged over the minibatch (LoRA dropout on).
- vlm-grpo: the clipped surrogate + k3 KL of grpo_loss.py per answer token, aggregated token-mean over the
  minibatch (DAPO, Yu et al. 2025, §3.3). log π_old is scored once, before the first update, with the adapter the job
  starts from — the policy that produced the rollouts when config.resumeFrom names the adapter vLLM served; log π_ref
  is the base model (adapter disabled). Dropout is off throughout, so π_θ = π_old at the start. The advantage is the
  episode's `advantage` (written by the workbench) when present, else the group advantage of vlm_samples.py.
Under torch.distributed every rank makes the same number of forward/backward passes per minibatch (its share padded
with zero-weight repeats), syncs gradients once (no_sync() before the last pass) and normalises by the whole
minibatch, so N ranks train the weights one process trains.
The adapter is written in peft's layout (adapter/adapter_config.json + adapter/adapter_model.safetensors); with
config.publish it is loaded into vLLM and published.json records the new version (vlm_publish.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from typing import Any, ContextManager, Optional, Protocol

import torch

from ..bundle import Bundle
from ..errors import BundleError
from .context import JobContext
from .grpo_loss import LossOptions, batch_loss
from .torch_util import Distributed, clip_grad_norm, lr_scheduler
from .vlm_publish import publish_adapter
from .vlm_resume import resume_adapter_dir
from .vlm_samples import fill_advantages, samples as read_samples

TINY_MODEL = "awb-tiny-lm"  # tiny_lm.MODEL_ID, repeated so that choosing a backend does not import it


class Backend(Protocol):
    module: torch.nn.Module  # the model with its LoRA layers (wrapped in DDP by the loop when distributed)

    def trainable(self) -> list[torch.nn.Parameter]: ...

    def encode(self, sample: dict) -> Any: ...

    def token_log_probs(self, net: Any, enc: Any) -> torch.Tensor:
        """1-D log π(answer token | prompt, earlier answer tokens) over the answer's tokens, through `net`."""
        ...

    def reference(self) -> ContextManager: ...

    def save_adapter(self, out_dir: str) -> None: ...


def load_backend(config: dict, device: torch.device, resume_dir: Optional[str] = None) -> Backend:
    if config["model"] == TINY_MODEL:
        from .tiny_lm import TinyBackend

        return TinyBackend(config["lora"], config["seed"], device, resume_dir)
    from .vlm_hf import HfBackend

    return HfBackend(config, device, resume_dir)


def train(ctx: JobContext, bundle: Bundle, dist: Distributed) -> None:
    c = ctx.config
    rows = read_samples(bundle)
    resume_dir = resume_adapter_dir(os.path.dirname(os.path.abspath(ctx.dir)), c) if c.get("resumeFrom") else None
    torch.manual_seed(c["seed"])  # LoRA initialisation and dropout masks
    backend = load_backend(c, dist.device, resume_dir)
    module = backend.module
    net = torch.nn.parallel.DistributedDataParallel(module, device_ids=[dist.device.index] if dist.device.type == "cuda" else None) if dist.enabled else module
    params = backend.trainable()
    opt = torch.optim.AdamW(params, lr=c["learningRate"], weight_decay=c["weightDecay"])
    gen = torch.Generator().manual_seed(c["seed"])
    grpo = ctx.kind == "vlm-grpo"
    pixels = getattr(backend, "pixels", None)
    ctx.log(f"{ctx.kind}: {len(rows)} steps, model {c['model']}, LoRA r={c['lora']['r']}, trainable {sum(p.numel() for p in params)}, "
            f"world size {dist.world_size}" + (f", image pixels {pixels()}" if pixels else ""))
    if resume_dir is not None:
        ctx.log(f"starting from job {c['resumeFrom']}'s adapter (adapter_model.safetensors sha256 {_sha256(os.path.join(resume_dir, 'adapter_model.safetensors'))})")
    # Train mode (gradient checkpointing only runs there); GRPO turns dropout off so π_θ = π_old at the start.
    _train_mode(module, dropout=not grpo)
    if grpo:
        fill_advantages(rows)
        opts = LossOptions(clip_eps=c["clipEps"], clip_eps_high=c["clipEpsHigh"] or c["clipEps"], kl_beta=c["klBeta"],
                           max_log_ratio=c["maxLogRatio"], aggregation="step-mean", max_steps=None)
        _score_old_and_ref(ctx, backend, rows, opts.kl_beta > 0, dist)
    per_epoch = -(-len(rows) // c["batchSize"])
    sched = lr_scheduler(opt, c["lrSchedule"], c["epochs"] * per_epoch, c["warmupRatio"])
    step = 0
    for epoch in range(1, c["epochs"] + 1):
        order = torch.randperm(len(rows), generator=gen).tolist()
        for b in range(0, len(order), c["batchSize"]):
            ctx.check_cancel()
            whole = [rows[i] for i in order[b:b + c["batchSize"]]]
            opt.zero_grad(set_to_none=True)
            metrics = _grpo_minibatch(backend, net, whole, opts, dist) if grpo else _sft_minibatch(backend, net, whole, dist)
            metrics["optim/grad_norm"] = clip_grad_norm(params, c["maxGradNorm"] or None)
            metrics["optim/lr"] = opt.param_groups[0]["lr"]
            opt.step()
            sched.step()
            step += 1
            ctx.metric(step, {**metrics, "epoch": float(epoch)})
    if ctx.is_main:
        adapter_dir = os.path.dirname(ctx.artifact("adapter/adapter_config.json"))
        backend.save_adapter(adapter_dir)
        if c["publish"]:
            publish_adapter(ctx, c["publish"], adapter_dir, backend)


def _train_mode(module: torch.nn.Module, dropout: bool) -> None:
    module.train()
    if not dropout:
        for m in module.modules():
            if isinstance(m, torch.nn.Dropout):
                m.eval()


def _score_old_and_ref(ctx: JobContext, backend: Backend, rows: list[dict], with_ref: bool, dist: Distributed) -> None:
    """log π_old (the starting adapter) and, with a KL term, log π_ref (no adapter) of every sample's answer tokens.
    Each rank scores its share and the shares are gathered, so every rank holds every sample's values."""
    scored: dict[int, tuple] = {}
    with torch.no_grad():
        for i, real in dist.even_shard(list(range(len(rows)))):
            ctx.check_cancel()  # a pass over the whole bundle: as long as an epoch (a collective: same count on every rank)
            if not real:
                continue
            s = rows[i]
            enc = backend.encode(s)
            old = _answer_log_probs(backend, backend.module, enc, s)
            ref = None
            if with_ref:
                with backend.reference():
                    ref = backend.token_log_probs(backend.module, enc).detach()
            scored[i] = (old.cpu(), None if ref is None else ref.cpu())
    for part in dist.all_gather(scored):
        for i, (old, ref) in part.items():
            rows[i]["old"] = old.to(dist.device)
            if ref is not None:
                rows[i]["ref"] = ref.to(dist.device)


def _sft_minibatch(backend: Backend, net: Any, whole: list[dict], dist: Distributed) -> dict[str, float]:
    """Σ over the minibatch's samples of (mean token NLL of the answer) / n; each rank adds its samples' terms and the
    loss is scaled by the world size because DDP averages the ranks' gradients."""
    total = 0.0
    mine = dist.even_shard(whole)
    for k, (s, real) in enumerate(mine):
        with _sync(net, dist, k == len(mine) - 1):
            lp = _answer_log_probs(backend, net, backend.encode(s), s)
            loss = -lp.mean() / len(whole)
            (loss * (dist.world_size if real else 0.0)).backward()
        total += float(loss.detach()) if real else 0.0
    return {"loss/sft": dist.all_reduce_sum([total])[0]}


def _grpo_minibatch(backend: Backend, net: Any, whole: list[dict], opts: LossOptions, dist: Distributed) -> dict[str, float]:
    """Token-mean over ALL the minibatch's answer tokens (not a rank's), so N ranks compute the gradient of one process."""
    tokens = sum(len(s["old"]) for s in whole)
    sums = [0.0, 0.0, 0.0, 0.0]  # loss, clipped, kl, ratio
    mine = dist.even_shard(whole)
    for k, (s, real) in enumerate(mine):
        with _sync(net, dist, k == len(mine) - 1):
            new = backend.token_log_probs(net, backend.encode(s))
            if len(new) != len(s["old"]):
                raise RuntimeError(f"episode {s['episode']}: {len(new)} answer tokens now, {len(s['old'])} when π_old was scored")
            adv = torch.full_like(new, float(s["advantage"]))
            loss, stats = batch_loss(new, s["old"], s.get("ref"), adv, [len(new)], opts, totals=(tokens, len(whole)))
            (loss * (dist.world_size if real else 0.0)).backward()
        if real:
            for j, v in enumerate((float(loss.detach()), stats.clipped, stats.kl_sum, stats.ratio_sum)):
                sums[j] += v
    total, clipped, kl, ratio = dist.all_reduce_sum(sums)
    return {"loss/grpo": total, "grpo/clip_frac": clipped / tokens, "grpo/kl": kl / tokens, "grpo/ratio": ratio / tokens}


def _sync(net: Any, dist: Distributed, last: bool) -> ContextManager:
    """DDP all-reduces on every backward outside no_sync(): only the minibatch's last pass syncs, the earlier ones
    accumulate locally (every rank makes the same number of passes: dist.even_shard)."""
    return net.no_sync() if dist.enabled and not last else contextlib.nullcontext()


def _answer_log_probs(backend: Backend, net: Any, enc: Any, s: dict) -> torch.Tensor:
    lp = backend.token_log_probs(net, enc)
    if lp.numel() == 0:
        raise BundleError(f"episodes.jsonl episode {s['episode']}", f"the answer {s['target']!r:.100} encodes to no tokens after the prompt")
    return lp


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
