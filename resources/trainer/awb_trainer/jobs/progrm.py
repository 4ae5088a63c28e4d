"""progrm: ProgRM's progress model (core/rewards/progrm/train.ts) on samples.jsonl — mean BCE against the
progress label p* ∈ [0, 1] (ProgRM Eq. 5), Adam with (β1, β2) = (0.9, 0.95) as the paper's Table 5."""

from __future__ import annotations

import torch

from ..bundle import Bundle
from .context import JobContext
from .sigmoid_mlp import SigmoidMlp, train_bce
from .torch_util import Distributed


def _mae(model: SigmoidMlp, x: torch.Tensor, y: torch.Tensor) -> dict:
    """Mean |p̂ − p*| over the samples with the epoch's final parameters."""
    return {"err/mae": float((torch.sigmoid(model(x)) - y).abs().mean())}


def train(ctx: JobContext, bundle: Bundle, dist: Distributed) -> None:
    train_bce(ctx, bundle, dist, "awb-progrm", allow_logistic=False, betas=(0.9, 0.95), weights=None, epoch_extra=_mae)
