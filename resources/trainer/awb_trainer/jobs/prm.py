"""prm: GUI-Shepherd's step judge (core/rewards/shepherd/builtin.ts trainJudge) on samples.jsonl — BCE with class
weights N / (2 N_c) when `balance` (both classes carry half the loss, as the paper balances its data 1:1),
Adam (0.9, 0.999) with decoupled weight decay. A label ≥ 0.5 counts as "correct step" for balance and accuracy."""

from __future__ import annotations

import numpy as np
import torch

from ..bundle import Bundle
from .context import JobContext
from .sigmoid_mlp import SigmoidMlp, train_bce
from .torch_util import Distributed


def class_weights(labels: np.ndarray, balance: bool) -> np.ndarray:
    pos = labels >= 0.5
    n_pos = int(pos.sum())
    n_neg = len(labels) - n_pos
    if not balance or n_pos == 0 or n_neg == 0:
        return np.ones(len(labels))
    return np.where(pos, len(labels) / (2 * n_pos), len(labels) / (2 * n_neg))


def _accuracy(model: SigmoidMlp, x: torch.Tensor, y: torch.Tensor) -> dict:
    return {"acc/train": float(((model(x) >= 0) == (y >= 0.5)).double().mean())}


def train(ctx: JobContext, bundle: Bundle, dist: Distributed) -> None:
    _, labels = bundle.samples(_feature_dim(ctx, bundle))
    train_bce(ctx, bundle, dist, "awb-shepherd-judge", allow_logistic=True, betas=(0.9, 0.999),
              weights=class_weights(labels, ctx.config["balance"]), epoch_extra=_accuracy)


def _feature_dim(ctx: JobContext, bundle: Bundle) -> int:
    net = bundle.json("init/model.json").get("network") or {}
    return int(net.get("input") or 0)
