"""How the transformer SFT's minibatches are formed, timed (bench/transformer-sft.ts drives it): random minibatches
padded to the layout's full goal length (before) against length-bucketed minibatches read up to their longest goal
(awb_trainer.transformer.trainee.bucketed_minibatches, data.collate), on the same real demonstration steps, one torch
thread. The two alternate, a fresh network of the default shape each round, so the machine's load falls on both.
    python bench/transformer_sft_batches.py STEPS.jsonl CONFIG.json ROUNDS BATCHES  → one JSON line"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import torch

sys.path.insert(0, "resources/trainer")
from awb_trainer.transformer.data import choice_log_probs, collate, read_steps  # noqa: E402
from awb_trainer.transformer.model import ModelConfig, ScreenPolicyNet  # noqa: E402
from awb_trainer.transformer.trainee import bucketed_minibatches  # noqa: E402


def full_goal(batch_inputs: tuple, tg: int) -> tuple:
    """The batch as it was collated before: goals padded to the layout's length."""
    goal, goal_copy, *rest = batch_inputs
    b, n = goal.shape
    g = torch.zeros(b, tg, dtype=goal.dtype)
    g[:, :n] = goal
    gc = torch.zeros(b, tg, 2, dtype=goal_copy.dtype)
    gc[:, :n] = goal_copy
    return (g, gc, *rest)


def random_minibatches(n: int, size: int, gen: torch.Generator) -> list[list[int]]:
    """How the trainer formed minibatches before: a random permutation cut in order."""
    order = torch.randperm(n, generator=gen).tolist()
    return [order[i:i + size] for i in range(0, n, size)]


def run(steps, layout: dict, model: dict, batches: list[list[int]], pad_goal: bool, seed: int) -> float:
    torch.manual_seed(seed)
    net = ScreenPolicyNet(ModelConfig(layout=layout, **model)).train()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    t0 = time.perf_counter()
    for idx in batches:
        mb = [steps[i] for i in idx]
        inputs = collate(mb, layout).inputs
        if pad_goal:
            inputs = full_goal(inputs, layout["goalTokens"])
        loss = -choice_log_probs(net(*inputs), mb, layout).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return (time.perf_counter() - t0) / len(batches)


def main() -> None:
    steps_path, config_path, rounds, n_batches = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(1)
    cfg = json.load(open(config_path))
    layout, model = cfg["layout"], {k: v for k, v in cfg.items() if k != "layout"}
    steps = read_steps(steps_path, layout)
    lengths = [s.items + int(np.count_nonzero(s.goal)) for s in steps]
    before, after = [], []
    for r in range(rounds):
        gen = torch.Generator().manual_seed(r)
        before.append(run(steps, layout, model, random_minibatches(len(steps), 32, gen)[:n_batches], True, r))
        gen = torch.Generator().manual_seed(r)
        after.append(run(steps, layout, model, bucketed_minibatches(lengths, 32, gen)[:n_batches], False, r))
    print(json.dumps({"steps": len(steps), "batch": 32, "batchesPerRound": n_batches, "rounds": rounds,
                      "beforeSPerBatch": before, "afterSPerBatch": after,
                      "speedup": float(np.median(before) / np.median(after)),
                      "meanItems": float(np.mean([s.items for s in steps])), "meanGoalTokens": float(np.mean([np.count_nonzero(s.goal) for s in steps]))}))


if __name__ == "__main__":
    main()
