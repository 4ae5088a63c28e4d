"""Goal-word renaming (awb_trainer.transformer.renaming), the transformer policy's SFT augmentation."""

import json
import os
import tempfile
import unittest

import numpy as np

from awb_trainer.transformer.data import parse_steps
from awb_trainer.transformer.renaming import GoalRenaming
from awb_trainer.transformer.train import SftOptions, sft
from tests.test_transformer import CHOICES, LAYOUT, step_line, tiny_trainee

# ids 0–4 specials, 5–9 punctuation, 10–39 words, 40–49 "##" continuations
PIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", '"', ",", ".", "(", ")"] + [f"w{i}" for i in range(10, 40)] + [f"##c{i}" for i in range(40, 50)]


def tokenizer(d: str) -> str:
    path = os.path.join(d, "tok.json")
    with open(path, "w") as f:
        json.dump({"model": {"type": "WordPiece", "vocab": {p: i for i, p in enumerate(PIECES)}}}, f)
    return path


def steps_with(goals: list[list[int]], items: list[list[list[int]]]):
    """Steps whose goal and item tokens are given (the rest as step_line makes them)."""
    rng = np.random.default_rng(0)
    out = parse_steps([step_line(rng, k, 0, CHOICES[1], items=len(items[k])) for k in range(len(goals))], LAYOUT)
    for s, g, its in zip(out, goals, items):
        s.goal[:] = 0
        s.goal[:len(g)] = g
        s.item_ids[:] = 0
        for i, row in enumerate(its):
            s.item_ids[i, :len(row)] = row
    return out


class RenamingTest(unittest.TestCase):
    def test_every_goal_word_is_swapped_the_same_way_in_the_goal_and_on_the_screen(self):
        pool_goals = [[12, 13, 14, 15, 16, 17, 18, 19], [20, 21, 22, 23, 24, 25, 26, 27], [28, 29, 41, 42, 43, 44, 45, 46]]
        goal = [5, 10, 40, 11, 5, 6, 10, 3]             # "w10 ##c40 w11" , w10 [SEP]
        items = [[10, 40, 30], [11, 6], [31, 32]]        # w30, w31, w32 are not in the goal
        steps = steps_with([goal] + pool_goals, [items, [[10]], [[11]], [[12]]])
        with tempfile.TemporaryDirectory() as d:
            renaming = GoalRenaming(tokenizer(d), steps, 1.0)
        before = steps[0]
        after = renaming.apply([before], np.random.default_rng(3))[0]
        g0, g1 = before.goal, after.goal
        swap = {int(a): int(b) for a, b in zip(g0, g1)}
        # Specials and punctuation stay; every word piece changes, to one new piece each, of its own kind.
        for old in (3, 5, 6):
            self.assertEqual(swap[old], old)
        for old in (10, 11, 40):
            self.assertNotEqual(swap[old], old)
            self.assertNotIn(swap[old], set(g0.tolist()) | set(before.item_ids.ravel().tolist()))
        self.assertGreaterEqual(swap[40], 40)
        self.assertLess(swap[10], 40)
        self.assertNotEqual(swap[10], swap[11])
        self.assertTrue(all((g1[g0 == old] == new).all() for old, new in swap.items()))
        # The same swap on the screen; tokens the goal does not have are left alone.
        want = np.vectorize(lambda t: swap.get(int(t), int(t)))(before.item_ids)
        np.testing.assert_array_equal(after.item_ids, want)
        np.testing.assert_array_equal(after.item_ids[2], before.item_ids[2])
        # Where a word sits, and what may be copied, does not change; the step it came from is not touched.
        np.testing.assert_array_equal(after.goal_copy, before.goal_copy)
        self.assertEqual(after.choice, before.choice)
        self.assertEqual(int(before.goal[1]), 10)

    def test_at_chance_zero_the_steps_are_the_same_objects_and_a_bad_chance_is_refused(self):
        steps = steps_with([[10, 11]], [[[10]]])
        with tempfile.TemporaryDirectory() as d:
            self.assertIs(GoalRenaming(tokenizer(d), steps, 0.0).apply(steps, np.random.default_rng(0))[0], steps[0])
            with self.assertRaisesRegex(ValueError, "rename must be a chance"):
                GoalRenaming(tokenizer(d), steps, 1.5)

    def test_about_the_chance_of_the_words_are_swapped(self):
        goals = [list(range(10 + 8 * (k % 3), 18 + 8 * (k % 3))) for k in range(150)]
        steps = steps_with(goals, [[[10]]] * 150)
        with tempfile.TemporaryDirectory() as d:
            renaming = GoalRenaming(tokenizer(d), steps, 0.25)
        out = renaming.apply(steps, np.random.default_rng(1))
        share = np.mean([np.mean(o.goal != s.goal) for o, s in zip(out, steps)])
        self.assertGreater(share, 0.18)
        self.assertLess(share, 0.32)

    def test_sft_with_renaming_still_fits_the_demonstrations(self):
        rng = np.random.default_rng(4)
        steps = parse_steps([step_line(rng, e, k, CHOICES[(e + k) % len(CHOICES)]) for e in range(4) for k in range(3)], LAYOUT)
        with tempfile.TemporaryDirectory() as d:
            t = tiny_trainee(d)
            events = []
            hist = sft(t, steps, SftOptions(epochs=30, batch_size=4, lr=1e-2, rename=0.3), events.append)
            self.assertGreater(events[0]["loss/nll"], 2 * hist["loss/nll"])


if __name__ == "__main__":
    unittest.main()
