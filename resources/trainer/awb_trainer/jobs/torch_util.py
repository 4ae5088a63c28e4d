"""Torch helpers the builtin jobs share: segment log-softmax over each step's candidates, grad-norm clipping as
core/policy/network.ts's Adam does it, and torch.distributed set-up from torchrun's environment."""

from __future__ import annotations

import math
import os
from typing import Any, Optional

import torch

from .config import LR_SCHEDULES


def step_log_probs(scores: torch.Tensor, counts: list[int], chosen: torch.Tensor, temperature: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """log π(chosen_k | s_k) for every step k, and the padded [K, maxN] log-probs (for entropy).

    scores are the concatenated candidate scores of K steps (counts[k] rows each);
    log π(a) = s_a / T − log Σ_j exp(s_j / T) per step (network.ts logSoftmax), padding at −inf.
    """
    k = len(counts)
    max_n = max(counts)
    idx = torch.tensor(counts, device=scores.device)
    rows = torch.repeat_interleave(torch.arange(k, device=scores.device), idx)
    starts = torch.cumsum(idx, 0) - idx
    cols = torch.arange(scores.shape[0], device=scores.device) - starts[rows]
    padded = torch.full((k, max_n), float("-inf"), dtype=scores.dtype, device=scores.device)
    padded = padded.index_put((rows, cols), scores / temperature[rows])
    lp = torch.log_softmax(padded, dim=1)
    return lp.gather(1, chosen.reshape(-1, 1)).reshape(-1), lp


def entropy(padded_log_probs: torch.Tensor) -> torch.Tensor:
    """−Σ π log π per step (padding contributes 0)."""
    p = torch.exp(padded_log_probs)
    return -(torch.where(p > 0, p * padded_log_probs, torch.zeros_like(p))).sum(dim=1)


def clip_grad_norm(params: list[torch.nn.Parameter], max_norm: Optional[float]) -> float:
    """Global L2 norm before clipping; grads scaled by max/norm when norm > max (network.ts Adam.step: no ε,
    unlike torch.nn.utils.clip_grad_norm_'s max/(norm + 1e-6))."""
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return 0.0
    norm = float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads)))
    if max_norm is not None and max_norm > 0 and norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
    return norm


def make_optimizer(params: list[torch.nn.Parameter], lr: float, weight_decay: float, betas: tuple[float, float] = (0.9, 0.999)) -> torch.optim.Optimizer:
    """Adam (Kingma & Ba 2015) with ε = 1e-8; with weight decay, AdamW's decoupled θ ← θ − lr·wd·θ, which is what
    network.ts's Adam applies (it subtracts lr·wd·θ_old alongside the Adam step)."""
    if weight_decay > 0:
        return torch.optim.AdamW(params, lr=lr, betas=betas, eps=1e-8, weight_decay=weight_decay)
    return torch.optim.Adam(params, lr=lr, betas=betas, eps=1e-8)


# The learning-rate multiplier of Hugging Face's schedulers (transformers.get_scheduler, what Trainer/TRL users get):
# linear warmup from 0 over the first W steps, then
#   linear:   max(0, (T − t) / (T − W))
#   cosine:   ½ (1 + cos(π · (t − W) / (T − W)))
#   constant: 1 (with W > 0, get_scheduler's "constant_with_warmup")
# with t the optimizer steps taken so far and T the job's total.
def lr_factor(schedule: str, step: int, total: int, warmup: int) -> float:
    if warmup > 0 and step < warmup:
        return step / warmup
    if schedule == "constant":
        return 1.0
    if schedule == "linear":  # as written above, not 1 − progress: that is 1–2 ulp off transformers' rate at some steps
        return max(0.0, (total - step) / max(1, total - warmup))
    progress = (step - warmup) / max(1, total - warmup)
    if schedule == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))
    raise ValueError(f"unknown learning-rate schedule {schedule!r} (one of {', '.join(LR_SCHEDULES)})")


def lr_scheduler(opt: torch.optim.Optimizer, schedule: str, total: int, warmup_ratio: float) -> torch.optim.lr_scheduler.LambdaLR:
    """One scheduler.step() after each optimizer step; warmup is ceil(ratio · total) steps, as transformers does."""
    warmup = math.ceil(warmup_ratio * total)
    return torch.optim.lr_scheduler.LambdaLR(opt, lambda t: lr_factor(schedule, t, total, warmup))


class GpuCountError(Exception):
    """More ranks on this machine than CUDA devices: rank k would ask for cuda:k and die with "invalid device ordinal"."""

    def __init__(self, local_world_size: int, devices: int):
        super().__init__(f"--gpus {local_world_size}: this machine has {devices} CUDA device{'s' if devices != 1 else ''}; "
                         f"run with --gpus {devices} or fewer (or make more devices visible in CUDA_VISIBLE_DEVICES)")
        self.local_world_size = local_world_size
        self.devices = devices


class Distributed:
    """torch.distributed from torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR/PORT):
    gloo on CPU, nccl on CUDA. Rank k of a machine uses cuda:LOCAL_RANK; more ranks per machine than CUDA devices is a
    GpuCountError before any device is touched.

    Without torchrun: on CPU a world of one without a process group (no DDP, the plain loop); on CUDA a one-rank NCCL
    group (an in-process store), so one GPU runs the same code — DDP, no_sync, collectives — as N GPUs."""

    def __init__(self) -> None:
        self.world_size = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(self.world_size)))
        if torch.cuda.is_available():
            devices = torch.cuda.device_count()
            if local_world > devices or self.local_rank >= devices:
                raise GpuCountError(local_world, devices)
            self.device = torch.device("cuda", self.local_rank)
            torch.cuda.set_device(self.device)
        else:
            self.device = torch.device("cpu")
        self.enabled = self.world_size > 1 or self.device.type == "cuda"
        if self.enabled and not torch.distributed.is_initialized():
            if self.world_size == 1 and "MASTER_ADDR" not in os.environ:
                torch.distributed.init_process_group(backend="nccl", store=torch.distributed.HashStore(), rank=0, world_size=1)
            else:
                torch.distributed.init_process_group(backend="nccl" if self.device.type == "cuda" else "gloo")

    def cancel_flag(self, requested: bool) -> bool:
        """Rank 0's answer to "cancel?" broadcast to every rank, so all stop at the same step boundary."""
        if not self.enabled:
            return requested
        t = torch.tensor([1 if requested else 0], dtype=torch.int64, device=self.device)
        torch.distributed.broadcast(t, src=0)
        return bool(t.item())

    def shard(self, items: list) -> list:
        """This rank's share of a minibatch (round-robin), so the ranks' gradients average to the full batch's."""
        return items[self.rank::self.world_size] if self.enabled else items

    def even_shard(self, items: list) -> list[tuple[Any, bool]]:
        """This rank's share of a minibatch as (item, real) pairs, padded to ⌈n / world⌉ entries with (items[0], False)
        so that every rank runs the same number of forward/backward passes — DDP all-reduces once per synced backward,
        and ranks that disagree on the count hang or mix gradients of different steps. Padding carries weight 0."""
        if not self.enabled:
            return [(x, True) for x in items]
        mine = [(x, True) for x in items[self.rank::self.world_size]]
        per_rank = -(-len(items) // self.world_size)
        return mine + [(items[0], False)] * (per_rank - len(mine))

    def all_reduce_sum(self, values: list[float]) -> list[float]:
        if not self.enabled:
            return values
        t = torch.tensor(values, dtype=torch.float64, device=self.device)
        torch.distributed.all_reduce(t)
        return t.tolist()

    def all_gather(self, obj: Any) -> list[Any]:
        """Every rank's `obj` (picklable), in rank order."""
        if not self.enabled:
            return [obj]
        out: list[Any] = [None] * self.world_size
        torch.distributed.all_gather_object(out, obj)
        return out

    def close(self) -> None:
        if self.enabled and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()
