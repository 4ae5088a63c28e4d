"""The GRPO loss of core/rl/grpo.ts in torch, vectorised over a minibatch's steps; autograd gives the same
∂L/∂log π_θ that grpo.ts's batchLoss returns as dLogp (checked against a TypeScript fixture in the tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from .config import Aggregation


class LossInputError(Exception):
    """A non-finite log-probability or advantage (grpo.ts LossInputError): a NaN must stop training."""

    def __init__(self, field: str, value: float):
        super().__init__(f"grpo loss: {field} must be a finite number, got {value}")
        self.field = field
        self.value = value


@dataclass
class LossOptions:
    clip_eps: float
    clip_eps_high: float
    kl_beta: float
    max_log_ratio: float
    aggregation: Aggregation
    max_steps: Optional[int]


@dataclass
class LossStats:
    """Sums over the steps (so shards can be added up); the means are sum / steps."""
    steps: int
    clipped: float
    kl_sum: float
    ratio_sum: float
    policy_loss_sum: float

    def as_list(self) -> list[float]:
        return [self.steps, self.clipped, self.kl_sum, self.ratio_sum, self.policy_loss_sum]


def aggregation_weights(episode_lengths: list[int], aggregation: Aggregation, max_steps: Optional[int],
                        totals: Optional[tuple[int, int]] = None) -> torch.Tensor:
    """w_{i,t} for every step of the minibatch, in episode order (grpo.ts aggregationWeight):

    step-mean:     w = 1 / Σ_i T_i                 (AW-Gen Eq. 1, ADMIRE Eq. 12)
    episode-mean:  w = 1 / (N · T_i)               (MobileRL's reconstructed objective)
    constant:      w = 1 / (N · maxSteps)          (Dr. GRPO)
    N counts the episodes with at least one step. `totals` = (Σ T, N) of the whole minibatch when these episodes
    are one rank's shard of it (torch.distributed), so the ranks' losses add up to the minibatch's.
    """
    steps, n = totals if totals is not None else (sum(episode_lengths), sum(1 for t in episode_lengths if t > 0))
    out: list[float] = []
    for t in episode_lengths:
        if aggregation == "step-mean":
            w = 1.0 / steps
        elif aggregation == "episode-mean":
            w = 1.0 / (n * t) if t else 0.0
        elif aggregation == "constant":
            if max_steps is None or max_steps < 1:
                raise LossInputError("maxSteps", float("nan") if max_steps is None else max_steps)
            w = 1.0 / (n * max_steps)
        else:  # the config parser admits only the three values above
            raise AssertionError(f"unhandled loss aggregation {aggregation!r}")
        out.extend([w] * t)
    return torch.tensor(out, dtype=torch.float64)


def _check_finite(field: str, t: torch.Tensor) -> None:
    bad = torch.nonzero(~torch.isfinite(t))
    if bad.numel():
        raise LossInputError(field, float(t.reshape(-1)[int(bad[0][0])]))


def batch_loss(logp_new: torch.Tensor, logp_old: torch.Tensor, logp_ref: Optional[torch.Tensor], advantage: torch.Tensor,
               episode_lengths: list[int], opts: LossOptions, totals: Optional[tuple[int, int]] = None) -> tuple[torch.Tensor, LossStats]:
    """L = Σ_{i,t} w_{i,t} ℓ_{i,t} over the flattened steps (episode after episode), with

        ρ  = exp(clamp(log π_θ − log π_old, ±maxLogRatio))
        ℓ  = −min(ρÂ, clip(ρ, 1 − ε, 1 + ε_high)·Â) + β·k3
        k3 = exp(x) − x − 1,  x = clamp(log π_ref − log π_θ, ±maxLogRatio)      (Schulman's k3; GRPO Eq. 4)

    (AW-Gen Eq. 1–2, ADMIRE Eq. 12, MobileRL §2.2; docs/rl.md §2). Where a clamp bites, torch.clamp's gradient
    is 0 — the same as grpo.ts, which zeroes dLogp there; where the clipped term is active its gradient is 0 too
    (ρ lies outside the clip interval), and a tie takes the unclipped term, as grpo.ts does.
    """
    _check_finite("logpNew", logp_new.detach())
    _check_finite("logpOld", logp_old)
    _check_finite("advantage", advantage)
    m = opts.max_log_ratio
    log_ratio = torch.clamp(logp_new - logp_old, -m, m)
    ratio = torch.exp(log_ratio)
    unclipped = ratio * advantage
    clipped_term = torch.clamp(ratio, 1 - opts.clip_eps, 1 + opts.clip_eps_high) * advantage
    clipped = clipped_term < unclipped
    objective = torch.where(clipped, clipped_term, unclipped)
    if opts.kl_beta > 0:
        if logp_ref is None:
            raise LossInputError("logpRef", float("nan"))
        _check_finite("logpRef", logp_ref)
        x = torch.clamp(logp_ref - logp_new, -m, m)
        kl = torch.exp(x) - x - 1
    else:
        kl = torch.zeros_like(objective)
    per_step = -objective + opts.kl_beta * kl
    w = aggregation_weights(episode_lengths, opts.aggregation, opts.max_steps, totals).to(per_step.dtype).to(per_step.device)
    loss = (w * per_step).sum()
    stats = LossStats(
        steps=len(per_step), clipped=float(clipped.double().sum()), kl_sum=float(kl.detach().sum()),
        ratio_sum=float(ratio.detach().sum()), policy_loss_sum=float((-objective).detach().sum()),
    )
    return loss, stats
