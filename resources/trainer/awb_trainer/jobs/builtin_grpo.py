"""builtin-grpo: the update half of core/rl/train-grpo.ts on the workbench's rollouts — epochs × minibatches of
whole episodes (≈ minibatchSize steps each), log π recomputed at the recorded temperature, the clipped surrogate
+ k3 KL loss of grpo_loss.py aggregated per config, global grad-norm clipping, Adam. Rewards and advantages come
in steps.jsonl, computed by the workbench."""

from __future__ import annotations

import time
from typing import Optional

import torch

from ..bundle import Bundle, PolicyStep, group_episodes
from ..errors import BundleError
from .builtin_common import (DTYPE, StepData, check_finite, load_init_policy, log_probs, mean_entropy, prepare_model,
                             save_policy_artifacts, training_meta)
from .context import JobContext
from .grpo_loss import LossOptions, batch_loss
from .torch_util import Distributed, clip_grad_norm, make_optimizer


def _max_steps(bundle: Bundle, config: dict) -> Optional[int]:
    """The 'constant' normaliser: config.maxSteps, else the largest max_steps of episodes.jsonl."""
    if config["maxSteps"] is not None:
        return config["maxSteps"]
    if config["aggregation"] != "constant":
        return None
    budgets = [row.get("max_steps") for _, row in bundle.jsonl("episodes.jsonl")] if bundle.has("episodes.jsonl") else []
    budgets = [b for b in budgets if isinstance(b, int) and b > 0]
    if not budgets:
        raise BundleError("episodes.jsonl", "aggregation 'constant' needs config.maxSteps or episodes with max_steps")
    return max(budgets)


def _reference_log_probs(ctx: JobContext, bundle: Bundle, steps: list[PolicyStep], data: StepData, dist: Distributed) -> torch.Tensor:
    """log π_ref(a_k|s_k): steps.jsonl's logProbRef where given, else from init/reference.json (or the frozen init)."""
    given = [s.log_prob_ref for s in steps]
    out = torch.tensor([0.0 if g is None else g for g in given], dtype=DTYPE, device=dist.device)
    missing = [k for k, g in enumerate(given) if g is None]
    if missing:
        member = "init/reference.json" if bundle.has("init/reference.json") else "init/policy.json"
        ref, _ = load_init_policy(ctx, bundle, member)
        ref = ref.to(device=dist.device, dtype=DTYPE).eval()
        with torch.no_grad():
            for b in range(0, len(missing), 4096):
                idx = missing[b:b + 4096]
                lp, _ = log_probs(ref, data, idx)
                out[torch.tensor(idx, device=dist.device)] = lp
        ctx.log(f"reference log-probs of {len(missing)} steps computed from {member}")
    return out


def _minibatches(order: list[int], lengths: list[int], size: int) -> list[list[int]]:
    """Consecutive episodes of `order` until ≥ size steps (at least one episode each), as train-grpo.ts forms them."""
    out: list[list[int]] = []
    start = 0
    while start < len(order):
        mb: list[int] = []
        steps = 0
        while start < len(order) and (steps < size or not mb):
            mb.append(order[start])
            steps += lengths[order[start]]
            start += 1
        out.append(mb)
    return out


def train(ctx: JobContext, bundle: Bundle, dist: Distributed) -> None:
    c = ctx.config
    model, init_meta = load_init_policy(ctx, bundle, "init/policy.json")
    steps = bundle.policy_steps(model.input_dim)
    missing_adv = next((s for s in steps if s.advantage is None), None)
    if missing_adv is not None:
        raise BundleError("steps.jsonl", f"builtin-grpo needs an advantage on every step; episode {missing_adv.episode} step {missing_adv.step} has null")
    episodes = group_episodes(steps)
    steps = [s for e in episodes for s in e]  # episode-major order: step k's episode is contiguous
    ep_steps: list[list[int]] = []
    k = 0
    for e in episodes:
        ep_steps.append(list(range(k, k + len(e))))
        k += len(e)
    data = StepData.build(steps, dist.device)
    advantage = torch.tensor([s.advantage for s in steps], dtype=DTYPE, device=dist.device)
    ref = _reference_log_probs(ctx, bundle, steps, data, dist) if c["klBeta"] > 0 else None
    opts = LossOptions(clip_eps=c["clipEps"], clip_eps_high=c["clipEpsHigh"] if c["clipEpsHigh"] is not None else c["clipEps"],
                       kl_beta=c["klBeta"], max_log_ratio=c["maxLogRatio"], aggregation=c["aggregation"], max_steps=_max_steps(bundle, c))
    model, net = prepare_model(model, dist)
    params = list(model.parameters())
    opt = make_optimizer(params, c["learningRate"], c["weightDecay"])
    gen = torch.Generator().manual_seed(c["seed"])
    lengths = [len(e) for e in episodes]
    ctx.log(f"builtin-grpo: {len(steps)} steps in {len(episodes)} episodes, aggregation {opts.aggregation}, "
            f"world size {dist.world_size}, device {dist.device}")
    ent = mean_entropy(model, data)
    history: dict = {}
    for epoch in range(1, c["epochs"] + 1):
        t0 = time.monotonic()
        order = torch.randperm(len(episodes), generator=gen).tolist()
        sums = {"loss/policy": 0.0, "loss/kl": 0.0, "policy/clip_frac": 0.0, "policy/ratio_mean": 0.0, "loss/total": 0.0, "optim/grad_norm": 0.0}
        mbs = _minibatches(order, lengths, c["minibatchSize"])
        for mb in mbs:
            ctx.check_cancel()
            shard = dist.shard(mb)
            idx = [k for i in shard for k in ep_steps[i]]
            logp, _ = log_probs(net, data, idx)
            sel = torch.tensor(idx, dtype=torch.int64, device=dist.device)
            totals = (sum(lengths[i] for i in mb), len(mb))
            loss, stats = batch_loss(logp, data.log_prob_old[sel], None if ref is None else ref[sel], advantage[sel],
                                     [lengths[i] for i in shard], opts, totals)
            opt.zero_grad(set_to_none=True)
            (loss * dist.world_size).backward()  # DDP averages the ranks' gradients; the shard losses add up to L
            norm = clip_grad_norm(params, c["maxGradNorm"])
            check_finite("the gradient norm", norm, epoch)
            opt.step()
            n, clipped, kl, ratio, pg, total = dist.all_reduce_sum(stats.as_list() + [float(loss.detach())])
            check_finite("loss/total", total, epoch)
            sums["loss/policy"] += pg / n
            sums["loss/kl"] += kl / n
            sums["policy/clip_frac"] += clipped / n
            sums["policy/ratio_mean"] += ratio / n
            sums["loss/total"] += total
            sums["optim/grad_norm"] += norm
        history = {name: v / len(mbs) for name, v in sums.items()}
        history.update({"policy/entropy": ent, "batch/steps": float(len(steps)), "optim/lr": c["learningRate"], "perf/epoch_s": time.monotonic() - t0})
        ctx.metric(epoch, history)
        ctx.log(f"epoch {epoch}/{c['epochs']}: loss/policy {history['loss/policy']:.4f} loss/kl {history['loss/kl']:.4f} "
                f"clip {history['policy/clip_frac']:.3f}")
        ent = mean_entropy(model, data)
    save_policy_artifacts(ctx, model, training_meta(ctx, init_meta, {"epochs": c["epochs"], "metrics": history}))
