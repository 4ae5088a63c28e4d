"""builtin-sft: behaviour cloning of the builtin policy at large batch (core/rl/sft.ts's loss):
L = −(1/|B|) Σ_{k∈B} log π(a*_k | s_k) over shuffled minibatches, Adam, global grad-norm clipping."""

from __future__ import annotations

import time

import torch

from ..bundle import Bundle
from .builtin_common import StepData, check_finite, load_init_policy, log_probs, prepare_model, save_policy_artifacts, training_meta
from .context import JobContext
from .torch_util import Distributed, clip_grad_norm, make_optimizer


def train(ctx: JobContext, bundle: Bundle, dist: Distributed) -> None:
    c = ctx.config
    model, init_meta = load_init_policy(ctx, bundle, "init/policy.json")
    steps = bundle.policy_steps(model.input_dim)
    data = StepData.build(steps, dist.device)
    model, net = prepare_model(model, dist)
    params = list(model.parameters())
    opt = make_optimizer(params, c["learningRate"], c["weightDecay"])
    gen = torch.Generator().manual_seed(c["seed"])
    k = len(steps)
    ctx.log(f"builtin-sft: {k} steps, {len(set(s.episode for s in steps))} episodes, F={model.input_dim}, H={model.hidden}, "
            f"world size {dist.world_size}, device {dist.device}")
    history = {}
    for epoch in range(1, c["epochs"] + 1):
        t0 = time.monotonic()
        order = torch.randperm(k, generator=gen).tolist()
        nll = correct = norm_sum = 0.0
        batches = 0
        for b in range(0, k, c["batchSize"]):
            ctx.check_cancel()
            mb = order[b:b + c["batchSize"]]
            shard = dist.shard(mb)
            logp, padded = log_probs(net, data, shard)
            # Each rank's share of the minibatch mean; DDP averages over ranks, so scale by the world size.
            loss = -logp.sum() / len(mb) * dist.world_size
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = clip_grad_norm(params, c["maxGradNorm"] or None)
            check_finite("the gradient norm", norm, epoch)
            opt.step()
            hits = float((padded.argmax(dim=1) == data.chosen[torch.tensor(shard, dtype=torch.int64)]).sum()) if shard else 0.0
            s_nll, s_hits = dist.all_reduce_sum([float(-logp.detach().sum()), hits])
            nll += s_nll
            correct += s_hits
            norm_sum += norm
            batches += 1
        check_finite("loss/nll", nll, epoch)
        history = {"loss/nll": nll / k, "acc/top1": correct / k, "optim/grad_norm": norm_sum / batches,
                   "optim/lr": c["learningRate"], "perf/epoch_s": time.monotonic() - t0}
        ctx.metric(epoch, history)
        ctx.log(f"epoch {epoch}/{c['epochs']}: loss/nll {history['loss/nll']:.4f} acc/top1 {history['acc/top1']:.3f}")
    save_policy_artifacts(ctx, model, training_meta(ctx, init_meta, {"epochs": c["epochs"], "metrics": history}))
