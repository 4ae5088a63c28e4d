"""The transformer policy's two losses: behaviour cloning (−log π of the demonstrated choice, as core/rl/sft.ts for the
builtin policy) and the GRPO update (the clipped surrogate + k3 KL of core/rl/grpo.ts, jobs/grpo_loss.py's batch_loss,
over whole episodes packed into minibatches as core/rl/grpo-update.ts packs them)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
import torch

from ..jobs.grpo_loss import LossOptions, batch_loss
from ..jobs.torch_util import clip_grad_norm, make_optimizer
from .data import Step, choice_log_probs, collate, greedy_matches, mean_entropy
from .renaming import GoalRenaming
from .trainee import Trainee, bucketed_minibatches

Log = Callable[[dict], None]


class NonFiniteError(FloatingPointError):
    def __init__(self, what: str, value: float, where: str):
        super().__init__(f"{what} became {value} ({where}); the weights before this minibatch are kept")


def _forward(trainee: Trainee, steps: list[Step], net: Optional[torch.nn.Module] = None) -> tuple[torch.Tensor, ...]:
    batch = collate(steps, trainee.layout)
    return (net or trainee.net)(*batch.inputs)


def evaluate(trainee: Trainee, steps: list[Step], batch_size: int = 64) -> dict:
    """Mean −log π and the share of steps whose greedy choice is the given one."""
    trainee.net.eval()
    nll = hits = 0.0
    with torch.no_grad():
        for b in range(0, len(steps), batch_size):
            mb = steps[b:b + batch_size]
            out = _forward(trainee, mb)
            nll += float(-choice_log_probs(out, mb, trainee.layout).sum())
            hits += greedy_matches(out, mb, trainee.layout)
    n = max(1, len(steps))
    return {"loss/nll": nll / n, "acc/top1": hits / n}


@dataclass
class SftOptions:
    epochs: int = 10
    batch_size: int = 32
    lr: float = 1e-3
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    seed: int = 0
    warmup_fraction: float = 0.05
    rename: float = 0.0     # chance per goal word piece of a consistent swap in each minibatch (renaming.py); 0 = off


def sft(trainee: Trainee, steps: list[Step], o: SftOptions, log: Log, stop: Callable[[], bool] = lambda: False) -> dict:
    """L = −(1/|B|) Σ_{k∈B} log π(a*_k | s_k) over shuffled minibatches of steps of similar length; AdamW, linear warm-up then cosine decay to 0
    (the usual schedule for a transformer trained from scratch), global grad-norm clipping."""
    params = trainee.trainable()
    opt = make_optimizer(params, o.lr, o.weight_decay)
    gen = torch.Generator().manual_seed(o.seed)
    per_epoch = math.ceil(len(steps) / o.batch_size)
    total = per_epoch * o.epochs
    warm = max(1, int(o.warmup_fraction * total))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * (0.5 * (1 + math.cos(math.pi * min(1.0, s / total)))))
    history: dict = {}
    # acc/top1 on a fixed sample of the steps: a full extra pass each epoch would cost a third of the epoch.
    probe = [steps[i] for i in sorted(torch.randperm(len(steps), generator=torch.Generator().manual_seed(o.seed))[:1024].tolist())]
    lengths = [s.items + int(np.count_nonzero(s.goal)) for s in steps]
    renaming = GoalRenaming(trainee.tokenizer_path, steps, o.rename)
    rename_rng = np.random.default_rng(o.seed)
    for epoch in range(1, o.epochs + 1):
        t0 = time.monotonic()
        trainee.net.train()
        nll = norm_sum = 0.0
        batches = 0
        for mb_idx in bucketed_minibatches(lengths, o.batch_size, gen):
            if stop():
                return {**history, "stopped": True}
            mb = renaming.apply([steps[i] for i in mb_idx], rename_rng)
            lp = choice_log_probs(_forward(trainee, mb), mb, trainee.layout)
            loss = -lp.mean()
            if not torch.isfinite(loss):
                raise NonFiniteError("loss/nll", float(loss), f"epoch {epoch}")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = clip_grad_norm(params, o.max_grad_norm or None)
            if not math.isfinite(norm):
                raise NonFiniteError("optim/grad_norm", norm, f"epoch {epoch}")
            opt.step()
            sched.step()
            nll += float(loss.detach()) * len(mb)
            norm_sum += norm
            batches += 1
        ev = evaluate(trainee, probe)
        history = {"epoch": epoch, "loss/nll": nll / len(steps), "acc/top1": ev["acc/top1"], "optim/grad_norm": norm_sum / max(1, batches),
                   "optim/lr": sched.get_last_lr()[0], "perf/epoch_s": time.monotonic() - t0, "steps": len(steps)}
        log({"event": "epoch", **history})
    return history


@dataclass
class GrpoOptions:
    lr: float = 1e-4
    epochs: int = 1
    minibatch_size: int = 128
    max_grad_norm: float = 1.0
    weight_decay: float = 0.0
    seed: int = 0
    loss: LossOptions = None  # type: ignore[assignment]


def _episodes(steps: list[Step]) -> list[list[Step]]:
    by: dict[int, list[Step]] = {}
    for s in steps:
        by.setdefault(s.episode, []).append(s)
    return [sorted(v, key=lambda s: s.step) for _, v in sorted(by.items())]


def _pack(order: list[int], lengths: list[int], size: int) -> list[list[int]]:
    """Consecutive episodes of `order` until ≥ size steps (core/rl/grpo-update.ts packMinibatches)."""
    out, start = [], 0
    while start < len(order):
        mb, n = [], 0
        while start < len(order) and (n < size or not mb):
            mb.append(order[start])
            n += lengths[order[start]]
            start += 1
        out.append(mb)
    return out


def grpo_update(trainee: Trainee, steps: list[Step], o: GrpoOptions) -> dict:
    """One GRPO update on the iteration's advantaged steps (each with logProb = log π_old, temperature, advantage)."""
    bad = next((s for s in steps if s.advantage is None or s.log_prob is None), None)
    if bad is not None:
        raise ValueError(f"GRPO step {bad.episode}/{bad.step} has no advantage or logProb")
    if trainee.optimizer is None:
        trainee.optimizer = make_optimizer(trainee.trainable(), o.lr, o.weight_decay)
    opt = trainee.optimizer
    for g in opt.param_groups:
        g["lr"] = o.lr
    episodes = _episodes(steps)
    lengths = [len(e) for e in episodes]
    gen = torch.Generator().manual_seed(o.seed)
    # The entropy of the policy the rollouts sampled (before the update), over the fresh steps.
    trainee.net.eval()
    fresh = [s for s in steps if not s.replayed] if any(s.replayed for s in steps) else steps
    with torch.no_grad():
        ent = [mean_entropy(_forward(trainee, fresh[b:b + 64]), trainee.layout) * len(fresh[b:b + 64]) for b in range(0, len(fresh), 64)]
    entropy = sum(ent) / max(1, len(fresh))
    sums = {"loss/policy": 0.0, "loss/kl": 0.0, "policy/clip_frac": 0.0, "policy/ratio_mean": 0.0, "optim/grad_norm": 0.0}
    n_mb = 0
    params = trainee.trainable()
    for _epoch in range(o.epochs):
        order = torch.randperm(len(episodes), generator=gen).tolist()
        for mb in _pack(order, lengths, o.minibatch_size):
            mb_steps = [s for i in mb for s in episodes[i]]
            logp = choice_log_probs(_forward(trainee, mb_steps), mb_steps, trainee.layout).double()
            ref = None
            if o.loss.kl_beta > 0:
                if trainee.reference is None:
                    raise ValueError("GRPO with a KL term needs the reference (freeze_reference) first")
                with torch.no_grad():
                    ref = choice_log_probs(_forward(trainee, mb_steps, trainee.reference), mb_steps, trainee.layout).double()
            old = torch.tensor([s.log_prob for s in mb_steps], dtype=torch.float64)
            adv = torch.tensor([s.advantage for s in mb_steps], dtype=torch.float64)
            loss, stats = batch_loss(logp, old, ref, adv, [lengths[i] for i in mb], o.loss)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = clip_grad_norm(params, o.max_grad_norm or None)
            if not math.isfinite(norm):
                raise NonFiniteError("optim/grad_norm", norm, "GRPO update")
            opt.step()
            n = max(1, stats.steps)
            sums["loss/policy"] += stats.policy_loss_sum / n
            sums["loss/kl"] += stats.kl_sum / n
            sums["policy/clip_frac"] += stats.clipped / n
            sums["policy/ratio_mean"] += stats.ratio_sum / n
            sums["optim/grad_norm"] += norm
            n_mb += 1
    return {**{k: v / max(1, n_mb) for k, v in sums.items()}, "policy/entropy": entropy}
