"""Goal-word renaming, an SFT augmentation: in each training step, every distinct word piece of the goal is, with
chance p, swapped for another word piece of the same kind (a word start for a word start, a "##" continuation for a
continuation), everywhere it occurs in that step: in the goal and in every item (elements, the last steps, the apps).

Why: on new instances of the tasks it trained on, the policy copied the wrong span of the goal far more often than on
its training instances (EXPERIMENTS.md §7: text head 91% → 57%); it keys on the words it saw (a name, a number) rather
than on where they sit. The swap keeps what the policy should learn (which goal span is typed, which element the
goal names, since the same swap is made on the screen) and takes away the words themselves. The replacements come
from the demonstrations' own goals, so the text encoder sees pieces it trains on; a replacement never collides with a
piece already in the step, which would make a goal word match an element it does not name.

Measured (EXPERIMENTS.md §7): at p = 0.3 the policy got worse, on new and on training instances alike; the head had no
way to find a span by position, which the span_context shape gives it. Kept as an option, off by default.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np

from .data import Step


def _word_kinds(tokenizer_path: str) -> tuple[np.ndarray, np.ndarray]:
    """Per vocabulary id: may it be renamed (a piece with a letter or digit, not a [special] one), and is it a "##"
    continuation."""
    with open(tokenizer_path, "r", encoding="utf-8") as f:
        vocab: dict[str, int] = json.load(f)["model"]["vocab"]
    n = max(vocab.values()) + 1
    word = np.zeros(n, bool)
    cont = np.zeros(n, bool)
    for piece, i in vocab.items():
        body = piece[2:] if piece.startswith("##") else piece
        word[i] = not (piece.startswith("[") and piece.endswith("]")) and any(ch.isalnum() for ch in body)
        cont[i] = piece.startswith("##")
    return word, cont


class GoalRenaming:
    def __init__(self, tokenizer_path: str, steps: list[Step], p: float):
        if not 0 <= p <= 1:
            raise ValueError(f"rename must be a chance in [0, 1], got {p}")
        self.p = p
        if p == 0:  # off: no tokenizer to read on every SFT pass
            return
        self.word, self.cont = _word_kinds(tokenizer_path)
        seen = np.unique(np.concatenate([s.goal for s in steps])) if steps else np.zeros(0, np.int32)
        seen = seen[(seen > 0) & (seen < self.word.size)]
        seen = seen[self.word[seen]]
        self.pools = (seen[~self.cont[seen]], seen[self.cont[seen]])

    def apply(self, steps: list[Step], rng: np.random.Generator) -> list[Step]:
        return [self._step(s, rng) for s in steps] if self.p > 0 else steps

    def _step(self, s: Step, rng: np.random.Generator) -> Step:
        present = np.unique(s.goal)
        ids = present[(present > 0) & (present < self.word.size)]
        ids = ids[self.word[ids]]
        chosen = ids[rng.random(ids.size) < self.p]
        if chosen.size == 0:
            return s
        taken = set(present.tolist()) | set(np.unique(s.item_ids).tolist())
        goal, items = s.goal.copy(), s.item_ids.copy()
        for old in chosen.tolist():
            pool = self.pools[int(self.cont[old])]
            new = self._fresh(pool, taken, rng)
            if new is None:
                continue
            taken.add(new)
            goal[s.goal == old] = new
            items[s.item_ids == old] = new
        return dataclasses.replace(s, goal=goal, item_ids=items)

    @staticmethod
    def _fresh(pool: np.ndarray, taken: set[int], rng: np.random.Generator) -> int | None:
        """A piece of the pool not in the step; None when a few draws find none (a tiny pool)."""
        for _ in range(8):
            if pool.size == 0:
                return None
            new = int(pool[rng.integers(pool.size)])
            if new not in taken:
                return new
        return None
