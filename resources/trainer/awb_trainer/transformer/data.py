"""Training steps of the transformer policy, as the workbench writes them (core/policy/transformer/records.ts: one JSON
object per line), batched into the network's inputs; and log π of each step's choice from the network's outputs."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Iterable, Optional

import numpy as np
import torch

from ..errors import BundleError


@dataclass
class Step:
    episode: int
    step: int
    items: int
    goal: np.ndarray        # [Tg] int32
    goal_copy: np.ndarray   # [Tg] uint8 bits
    item_ids: np.ndarray    # [S, T] int32
    item_copy: np.ndarray   # [S, T] uint8 bits
    features: np.ndarray    # [S, F] float32
    pointer_mask: np.ndarray  # [P, S] uint8
    type_mask: np.ndarray   # [K] uint8
    choice: dict
    log_prob: Optional[float]
    temperature: float
    advantage: Optional[float]
    replayed: bool = False


def _arr(b64: str, dtype, what: str, line: int) -> np.ndarray:
    try:
        return np.frombuffer(base64.b64decode(b64), dtype=dtype)
    except Exception as e:
        raise BundleError("steps.jsonl", f"line {line}: {what} is not base64 {np.dtype(dtype).name} ({e})") from e


def parse_steps(lines: Iterable[str], layout: dict) -> list[Step]:
    """Every line checked against the layout's sizes; a bad line names itself (BundleError)."""
    tg, t = layout["goalTokens"], layout["itemTokens"]
    f, p, k = len(layout["itemFeatures"]), len(layout["pointerTypes"]), len(layout["actionTypes"])
    out: list[Step] = []
    for n, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            r = json.loads(text)
        except json.JSONDecodeError as e:
            raise BundleError("steps.jsonl", f"line {n} is not JSON ({e})") from e
        s = int(r["items"])
        step = Step(
            episode=int(r["episode"]), step=int(r["step"]), items=s,
            goal=_arr(r["goal"], "<u2", "goal", n).astype(np.int32), goal_copy=_arr(r["goalCopy"], np.uint8, "goalCopy", n),
            item_ids=_arr(r["itemIds"], "<u2", "itemIds", n).astype(np.int32).reshape(-1),
            item_copy=_arr(r["itemCopy"], np.uint8, "itemCopy", n), features=_arr(r["features"], "<f4", "features", n),
            pointer_mask=_arr(r["pointerMask"], np.uint8, "pointerMask", n), type_mask=_arr(r["typeMask"], np.uint8, "typeMask", n),
            choice=r["choice"], log_prob=r.get("logProb"), temperature=float(r.get("temperature", 1.0)), advantage=r.get("advantage"),
            replayed=bool(r.get("replayed", False)),
        )
        sizes = {"goal": (step.goal.size, tg), "goalCopy": (step.goal_copy.size, tg), "itemIds": (step.item_ids.size, s * t),
                 "itemCopy": (step.item_copy.size, s * t), "features": (step.features.size, s * f),
                 "pointerMask": (step.pointer_mask.size, p * s), "typeMask": (step.type_mask.size, k)}
        bad = [f"{name} has {got} values, expected {want}" for name, (got, want) in sizes.items() if got != want]
        if bad:
            raise BundleError("steps.jsonl", f"line {n}: " + "; ".join(bad))
        step.item_ids = step.item_ids.reshape(s, t)
        step.item_copy = step.item_copy.reshape(s, t)
        step.features = step.features.reshape(s, f)
        step.pointer_mask = step.pointer_mask.reshape(p, s)
        out.append(step)
    return out


def read_steps(path: str, layout: dict) -> list[Step]:
    with open(path, "r", encoding="utf-8") as f:
        return parse_steps(f, layout)


@dataclass
class Batch:
    inputs: tuple[torch.Tensor, ...]   # the network's forward() arguments
    items: int                          # S after padding


def collate(steps: list[Step], layout: dict, dtype: torch.dtype = torch.float32) -> Batch:
    b = len(steps)
    s_max = max(st.items for st in steps)
    t = layout["itemTokens"]
    # Goals are padded to the layout's length; a batch reads only up to its longest goal (the network pads its goal-span
    # scores back to the full length, so log π is the same). Goal tokens are contiguous from position 0.
    tg = max(1, max(int(np.count_nonzero(st.goal)) for st in steps))
    f, p, k = len(layout["itemFeatures"]), len(layout["pointerTypes"]), len(layout["actionTypes"])
    goal_ids = np.zeros((b, tg), np.int32)
    goal_copy = np.zeros((b, tg, 2), np.float32)
    item_ids = np.zeros((b, s_max, t), np.int32)
    item_copy = np.zeros((b, s_max, t, 2), np.float32)
    feats = np.zeros((b, s_max, f), np.float32)
    pmask = np.zeros((b, p, s_max), np.float32)
    tmask = np.zeros((b, k), np.float32)
    valid = np.zeros((b, s_max), np.float32)
    temp = np.zeros((b,), np.float32)
    for i, st in enumerate(steps):
        n = st.items
        goal_ids[i] = st.goal[:tg]
        goal_copy[i, :, 0] = st.goal_copy[:tg] & 1
        goal_copy[i, :, 1] = (st.goal_copy[:tg] >> 1) & 1
        item_ids[i, :n] = st.item_ids
        item_copy[i, :n, :, 0] = st.item_copy & 1
        item_copy[i, :n, :, 1] = (st.item_copy >> 1) & 1
        feats[i, :n] = st.features
        pmask[i, :, :n] = st.pointer_mask
        tmask[i] = st.type_mask
        valid[i, :n] = 1
        temp[i] = st.temperature
    fl = lambda a: torch.from_numpy(a).to(dtype)  # noqa: E731
    return Batch((torch.from_numpy(goal_ids), fl(goal_copy), torch.from_numpy(item_ids), fl(item_copy), fl(feats), fl(pmask),
                  fl(tmask), fl(valid), fl(temp)), s_max)


def choice_log_probs(outputs: tuple[torch.Tensor, ...], steps: list[Step], layout: dict) -> torch.Tensor:
    """log π(choice_i | s_i) = type + pointer + text head terms (core/policy/transformer/actions.ts choiceLogProb)."""
    type_lp, ptr_lp, goal_lp, item_lp, gen_lp = outputs
    types = layout["actionTypes"]
    pointer_types, text_types = layout["pointerTypes"], layout["textTypes"]
    terms = []
    for i, st in enumerate(steps):
        c = st.choice
        name = types[c["type"]]
        lp = type_lp[i, c["type"]]
        if name in pointer_types:
            lp = lp + ptr_lp[i, pointer_types.index(name), c["pointer"]]
        if name in text_types:
            x = text_types.index(name)
            t = c["text"]
            if t["source"] == "goal":
                lp = lp + goal_lp[i, x, t["start"], t["length"] - 1]
            elif t["source"] == "item":
                lp = lp + item_lp[i, x, t["item"], t["start"], t["length"] - 1]
            else:
                lp = lp + gen_lp[i, x, t["index"]]
        terms.append(lp)
    return torch.stack(terms)


def greedy_matches(outputs: tuple[torch.Tensor, ...], steps: list[Step], layout: dict) -> int:
    """How many steps' choice is the heads' greedy pick (type, then its pointer and its text)."""
    type_lp, ptr_lp, goal_lp, item_lp, gen_lp = outputs
    types, pointer_types, text_types = layout["actionTypes"], layout["pointerTypes"], layout["textTypes"]
    hits = 0
    for i, st in enumerate(steps):
        c = st.choice
        if int(type_lp[i].argmax()) != c["type"]:
            continue
        name = types[c["type"]]
        if name in pointer_types and int(ptr_lp[i, pointer_types.index(name)].argmax()) != c["pointer"]:
            continue
        if name in text_types:
            x = text_types.index(name)
            g, it, v = goal_lp[i, x].reshape(-1), item_lp[i, x].reshape(-1), gen_lp[i, x]
            best = int(torch.cat([g, it, v]).argmax())
            t = c["text"]
            L = goal_lp.shape[-1]
            T, Lt = item_lp.shape[-2], item_lp.shape[-1]
            if t["source"] == "goal":
                want = t["start"] * L + t["length"] - 1
            elif t["source"] == "item":
                want = g.numel() + (t["item"] * T + t["start"]) * Lt + t["length"] - 1
            else:
                want = g.numel() + it.numel() + t["index"]
            if best != want:
                continue
        hits += 1
    return hits


def _entropy(lp: torch.Tensor) -> torch.Tensor:
    """−Σ π log π over the last axis (masked entries, at exp(lp) = 0, add nothing)."""
    p = lp.exp()
    return -(p * torch.where(p > 0, lp, torch.zeros_like(lp))).sum(-1)


def mean_entropy(outputs: tuple[torch.Tensor, ...], layout: dict) -> float:
    """The factored policy's entropy per step, H = H(type) + Σ_k π(k) [H(pointer | k) + H(text | k)], averaged."""
    type_lp, ptr_lp, goal_lp, item_lp, gen_lp = outputs
    b, x = type_lp.shape[0], goal_lp.shape[1]
    types = layout["actionTypes"]
    h = _entropy(type_lp)
    h_ptr = _entropy(ptr_lp)                                     # [B, P]
    text = torch.cat([goal_lp.reshape(b, x, -1), item_lp.reshape(b, x, -1), gen_lp], dim=-1)
    h_text = _entropy(text)                                      # [B, X]
    p_type = type_lp.exp()
    for k, name in enumerate(types):
        extra = torch.zeros(b, dtype=h.dtype)
        if name in layout["pointerTypes"]:
            extra = extra + h_ptr[:, layout["pointerTypes"].index(name)]
        if name in layout["textTypes"]:
            extra = extra + h_text[:, layout["textTypes"].index(name)]
        h = h + p_type[:, k] * extra
    return float(h.mean())
