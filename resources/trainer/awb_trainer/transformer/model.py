"""The screen transformer policy (docs/policy-transformer.md): a text encoder reads the goal and every item (the
screen, the last steps, the apps, the elements) token by token; a screen transformer attends over [CLS; goal tokens;
items]; three heads read its output:

    type     softmax over the action types (masked to those the screen allows)
    pointer  for each pointing type, q_k = W_k o_CLS against K o_item: softmax over the items it may pick
    text     for input_text and answer, one softmax over copied spans and generated texts: a span (c, l) of the goal
             or of an element's label scores start(c) + end(c + l − 1) + len(l) (a pointer network's start/end, Vinyals
             et al. 2015; Seo et al. 2017), a generated text g scores W_g o_CLS (See et al. 2017's copy/generate split);
             with text_field, input_text's queries also read the field the pointer would type into, and with
             span_context each token's score also reads its neighbours (docs/policy-transformer.md)

All logits are divided by the temperature before their log-softmax. The inputs are the workbench's (core/policy/
transformer/inputs.ts) with a batch dimension; the outputs are the log-probs core/policy/transformer/actions.ts reads.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from torch import nn

from .layers import Encoder, TextEncoder

NEG = -1e9  # a masked logit: exp() is 0 in float32, and a row with nothing allowed stays finite


@dataclass
class ModelConfig:
    layout: dict
    vocab: int
    width: int = 128              # the screen transformer's width d
    heads: int = 4
    screen_layers: int = 3
    text_width: int = 128         # the text encoder's width (384 for all-MiniLM-L6-v2)
    text_heads: int = 4
    text_layers: int = 1
    text_ffn: int = 512
    text_init: str = "scratch"    # scratch | minilm
    text_train: str = "full"      # full | frozen | lora: how the text encoder trains
    text_lora_rank: int = 8
    goal_match: bool = False      # each item's token overlap with the goal, as features and a pointer bias (goal_overlap)
    app_identity: bool = True     # False: an app item's name does not feed its vector, only its goal overlap (needs goal_match)
    row_match: bool = False       # each element gets the goal overlap of the elements on its row (row_overlap; needs goal_match)
    text_field: bool = False      # input_text's span queries also read the field the pointer would type into
    span_context: bool = False    # each copyable token's span score also reads its neighbours (a width-3 convolution)
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)

    @staticmethod
    def from_json(d: dict) -> "ModelConfig":
        return ModelConfig(**d)


class ScreenPolicyNet(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        lay = cfg.layout
        self.cfg = cfg
        self.K = len(lay["actionTypes"])
        self.P = len(lay["pointerTypes"])
        self.X = len(lay["textTypes"])
        self.V = len(lay["generated"])
        self.F = len(lay["itemFeatures"])
        self.Tg = lay["goalTokens"]
        self.T = lay["itemTokens"]
        self.L = lay["maxSpan"]
        self.Lt = min(self.L, self.T)
        if not cfg.app_identity and not cfg.goal_match:
            raise ValueError("app_identity false needs goal_match: otherwise nothing tells the app items apart")
        self.kind_app = -1 if cfg.app_identity else lay["itemFeatures"].index("kind_app")
        if cfg.row_match and not cfg.goal_match:
            raise ValueError("row_match needs goal_match: a row's overlap is its elements' goal overlap")
        missing = [f for f in ("kind_element", "cy", "h") if f not in lay["itemFeatures"]] if cfg.row_match else []
        if missing:
            raise ValueError(f"row_match needs the item features {', '.join(missing)}")
        self.row_at = [lay["itemFeatures"].index(f) for f in ("kind_element", "cy", "h")] if cfg.row_match else []
        d = cfg.width
        self.text = TextEncoder(cfg.vocab, cfg.text_width, cfg.text_heads, cfg.text_ffn, cfg.text_layers, max(512, self.Tg, self.T))
        self.proj = nn.Linear(cfg.text_width, d)
        self.features = nn.Linear(self.F, d)
        self.cls = nn.Parameter(torch.randn(d) * 0.02)
        self.segment = nn.Parameter(torch.randn(2, d) * 0.02)  # goal tokens, items
        self.goal_pos = nn.Parameter(torch.randn(self.Tg, d) * 0.02)
        self.norm = nn.LayerNorm(d, eps=1e-12)
        self.screen = Encoder(d, cfg.heads, 4 * d, cfg.screen_layers)
        self.type_head = nn.Linear(d, self.K)
        self.pointer_query = nn.Linear(d, self.P * d)
        self.pointer_key = nn.Linear(d, d)
        self.span_start = nn.Linear(d, self.X * d)
        self.span_end = nn.Linear(d, self.X * d)
        self.span_token = nn.Linear(d, d)
        self.span_length = nn.Parameter(torch.zeros(self.X, self.L))
        self.generate = nn.Linear(d, self.X * self.V)
        if cfg.goal_match:
            self.match_features = nn.Linear(2, d)
            # Starts at a prior for pointing at what the goal names (the app in "… in Tasks"); it trains like the rest.
            self.match_pointer = nn.Parameter(torch.full((self.P,), 2.0))
        if cfg.text_field:
            if "input_text" not in lay["textTypes"] or "input_text" not in lay["pointerTypes"]:
                raise ValueError("text_field needs input_text among the layout's text and pointer types")
            self.field_at = (lay["pointerTypes"].index("input_text"), lay["textTypes"].index("input_text"))
            self.field_start = nn.Linear(d, d)
            self.field_end = nn.Linear(d, d)
            field_row = torch.zeros(self.X, 1)
            field_row[self.field_at[1]] = 1
            self.register_buffer("field_row", field_row, persistent=False)
        if cfg.span_context:
            self.goal_context = nn.Conv1d(cfg.text_width, d, 3, padding=1)
            self.item_context = nn.Conv1d(cfg.text_width, d, 3, padding=1)
        if cfg.row_match:
            self.row_features = nn.Linear(2, d)
            # Starts at no preference; SFT learns, per pointing type, how much the row that names the goal's words counts.
            self.row_pointer = nn.Parameter(torch.zeros(self.P))

    def forward(self, goal_ids: torch.Tensor, goal_copy: torch.Tensor, item_ids: torch.Tensor, item_copy: torch.Tensor,
                item_features: torch.Tensor, pointer_mask: torch.Tensor, type_mask: torch.Tensor, item_valid: torch.Tensor,
                temperature: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """Shapes: goal_ids [B, Tg] int, goal_copy [B, Tg, 2], item_ids [B, S, T] int, item_copy [B, S, T, 2],
        item_features [B, S, F], pointer_mask [B, P, S], type_mask [B, K], item_valid [B, S] (0 on padding items),
        temperature [B]. Returns the log-probs (type [B, K], pointer [B, P, S], goal_span [B, X, Tg, L],
        item_span [B, X, S, T, Lt], generated [B, X, V])."""
        B, S, T = item_ids.shape
        Tg = goal_ids.shape[1]  # ≤ self.Tg: a training batch may stop at its longest goal (data.collate)
        d = self.cfg.width
        tg = self.text(goal_ids)                                          # [B, Tg, dt]
        ti = self.text(item_ids.reshape(B * S, T)).reshape(B, S, T, -1)   # [B, S, T, dt]
        goal_tok = self.proj(tg) + self.segment[0] + self.goal_pos[:Tg]
        imask = (item_ids != 0).to(ti.dtype)
        pooled = (ti * imask[..., None]).sum(2) / imask.sum(2).clamp(min=1.0)[..., None]
        named = self.proj(pooled)
        if not self.cfg.app_identity:
            # An app the policy never saw as the answer keeps a key trained down by SFT; without its name in its vector,
            # an app item differs from the others only by its goal overlap, so held-out apps are not ranked by identity.
            named = named * (item_features[..., self.kind_app] == 0).to(named.dtype)[..., None]
        items = named + self.features(item_features) + self.segment[1]
        if self.cfg.goal_match:
            overlap = goal_overlap(goal_ids, item_ids)                      # [B, S, 2]
            items = items + self.match_features(overlap)
        if self.cfg.row_match:
            row = row_overlap(overlap[..., 0], item_features, self.row_at)   # [B, S, 2]
            items = items + self.row_features(row)
        x = torch.cat([self.cls.expand(B, 1, d), goal_tok, items], dim=1)
        x = self.norm(x)
        valid = torch.cat([torch.ones(B, 1, dtype=torch.bool, device=x.device), goal_ids != 0, item_valid > 0], dim=1)
        # The CLS position is always valid, so no row is all masked.
        o = self.screen(x, valid)
        o_cls, o_goal, o_items = o[:, 0], o[:, 1:1 + Tg], o[:, 1 + Tg:]
        t = temperature.reshape(B, 1)

        # type
        type_logits = self.type_head(o_cls) + (1 - type_mask) * NEG
        type_lp = torch.log_softmax(type_logits / t, dim=-1)

        # pointer
        q = self.pointer_query(o_cls).reshape(B, self.P, d)
        k = self.pointer_key(o_items)                                      # [B, S, d]
        ptr_logits = (q @ k.transpose(1, 2)) / math.sqrt(d) + (1 - pointer_mask) * NEG
        if self.cfg.goal_match:
            ptr_logits = ptr_logits + self.match_pointer[None, :, None] * overlap[:, None, :, 0]
        if self.cfg.row_match:
            ptr_logits = ptr_logits + self.row_pointer[None, :, None] * row[:, None, :, 0]
        ptr_lp = torch.log_softmax(ptr_logits / t[:, :, None], dim=-1)

        # text: copy spans of the goal and of item labels, or a generated text, one softmax per text type
        item_in = self.proj(ti) + o_items[:, :, None, :]
        goal_in = o_goal
        if self.cfg.span_context:
            # A span's ends are where its words stop (a closing quote, "with", the end of the goal): each token also
            # sees its two neighbours' embeddings, which attention over ~150 positions gives it only indirectly.
            gm = (goal_ids != 0).to(tg.dtype)[..., None]
            goal_in = goal_in + self.goal_context((tg * gm).transpose(1, 2)).transpose(1, 2)
            near = self.item_context((ti * imask[..., None]).reshape(B * S, T, -1).transpose(1, 2)).transpose(1, 2)
            item_in = item_in + near.reshape(B, S, T, d)
        item_tok = self.span_token(item_in)                                  # [B, S, T, d]
        goal_rep = self.span_token(goal_in)                                  # [B, Tg, d]
        qs = self.span_start(o_cls).reshape(B, self.X, d)
        qe = self.span_end(o_cls).reshape(B, self.X, d)
        if self.cfg.text_field:
            # What to type depends on the field typed into ("Location" takes the place, "Title" the name); the field is
            # the pointer's, so its expected item (under the untempered pointer, without gradient to it) joins the query.
            w = torch.softmax(ptr_logits[:, self.field_at[0]].detach(), dim=-1)                 # [B, S]
            field = torch.einsum("bs,bsd->bd", w, o_items)
            qs = qs + self.field_row[None] * self.field_start(field)[:, None, :]
            qe = qe + self.field_row[None] * self.field_end(field)[:, None, :]
        scale = 1 / math.sqrt(d)
        g_start = torch.einsum("bxd,btd->bxt", qs, goal_rep) * scale + (1 - goal_copy[..., 0][:, None]) * NEG
        g_end = torch.einsum("bxd,btd->bxt", qe, goal_rep) * scale + (1 - goal_copy[..., 1][:, None]) * NEG
        i_start = torch.einsum("bxd,bstd->bxst", qs, item_tok) * scale + (1 - item_copy[..., 0][:, None]) * NEG
        i_end = torch.einsum("bxd,bstd->bxst", qe, item_tok) * scale + (1 - item_copy[..., 1][:, None]) * NEG
        goal_span = _spans(g_start, g_end, self.span_length, self.L)                   # [B, X, Tg, L]
        if Tg < self.Tg:  # a trimmed batch: the missing positions are spans nobody may pick
            goal_span = torch.cat([goal_span, goal_span.new_full((B, self.X, self.Tg - Tg, self.L), NEG)], dim=2)
        item_span = _spans(i_start, i_end, self.span_length[:, :self.Lt], self.Lt)      # [B, X, S, T, Lt]
        gen = self.generate(o_cls).reshape(B, self.X, self.V)
        flat = torch.cat([goal_span.reshape(B, self.X, -1), item_span.reshape(B, self.X, -1), gen], dim=-1)
        flat_lp = torch.log_softmax(flat / t[:, :, None], dim=-1)
        ng = self.Tg * self.L
        ni = S * T * self.Lt
        goal_lp = flat_lp[..., :ng].reshape(B, self.X, self.Tg, self.L)
        item_lp = flat_lp[..., ng:ng + ni].reshape(B, self.X, S, T, self.Lt)
        gen_lp = flat_lp[..., ng + ni:]
        return type_lp, ptr_lp, goal_lp, item_lp, gen_lp


def goal_overlap(goal_ids: torch.Tensor, item_ids: torch.Tensor) -> torch.Tensor:
    """Per item, [share of its tokens that occur in the goal, 1 if any does]: [B, Tg], [B, S, T] → [B, S, 2].
    Token identity, not a learned embedding, so it holds for names never seen in training (an unseen app's label
    against the goal that names it); without it the pointer must learn to match names it has only seen as ids."""
    real = item_ids != 0
    same = (item_ids[..., None] == goal_ids[:, None, None, :]) & (goal_ids != 0)[:, None, None, :]
    hit = same.to(torch.float32).amax(-1) * real.to(torch.float32)         # [B, S, T]
    share = hit.sum(-1) / real.to(torch.float32).sum(-1).clamp(min=1.0)
    return torch.stack([share, hit.amax(-1)], dim=-1)


def row_overlap(share: torch.Tensor, item_features: torch.Tensor, at: list[int]) -> torch.Tensor:
    """Per element, [the largest goal overlap among the other elements on its row, 1 if it is above 0]: [B, S] shares →
    [B, S, 2]. Two elements share a row when their vertical extents overlap, |cy_i − cy_j| < (h_i + h_j) / 2 (from the
    item features kind_element, cy, h at `at`). Why: a list row's buttons ("More options", "Add bookmark") carry the same
    label on every row; only the row's title says which one the goal means, and the pointer otherwise has to find that
    by attention alone."""
    element, cy, h = item_features[..., at[0]], item_features[..., at[1]], item_features[..., at[2]]
    both = (element[:, :, None] > 0) & (element[:, None, :] > 0)
    near = (cy[:, :, None] - cy[:, None, :]).abs() < (h[:, :, None] + h[:, None, :]) / 2
    idx = torch.arange(share.shape[1], device=share.device)  # not torch.eye: ONNX Runtime has no boolean EyeLike
    other = (idx[:, None] != idx[None, :])[None]
    same_row = (both & near & other).to(share.dtype)
    best = (same_row * share[:, None, :]).amax(-1)
    return torch.stack([best, (best > 0).to(share.dtype)], dim=-1)


def _spans(start: torch.Tensor, end: torch.Tensor, length_bias: torch.Tensor, lmax: int) -> torch.Tensor:
    """span[..., c, l] = start[..., c] + end[..., c + l] + length_bias[:, l] over the last axis (positions), with
    positions past the end at NEG: [..., N] → [..., N, lmax]. length_bias is [X, lmax] and the second axis is X."""
    n = end.shape[-1]
    pad = torch.full(end.shape[:-1] + (lmax,), NEG, dtype=end.dtype, device=end.device)
    padded = torch.cat([end, pad], dim=-1)
    ends = torch.stack([padded[..., l:l + n] for l in range(lmax)], dim=-1)  # [..., N, lmax]
    bias_shape = [1, length_bias.shape[0]] + [1] * (start.dim() - 2) + [lmax]
    return start[..., None] + ends + length_bias.reshape(bias_shape)


def count_parameters(model: nn.Module) -> dict[str, Any]:
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    text = sum(p.numel() for p in model.text.parameters()) if hasattr(model, "text") else 0
    return {"total": total, "trainable": trainable, "text": text}
