"""The transformer policy's row match (model.row_overlap, ModelConfig.row_match): an element's row's goal overlap."""

import unittest

import numpy as np
import torch

from awb_trainer.transformer.data import collate, parse_steps
from awb_trainer.transformer.model import row_overlap
from tests.test_transformer import LAYOUT, step_line, tiny

ROW_LAYOUT = dict(LAYOUT, itemFeatures=["kind_element", "cy", "h"])


def features(rows: list[tuple[float, float, float]]) -> torch.Tensor:
    """[1, S, 3] item features (kind_element, cy, h)."""
    return torch.tensor([rows], dtype=torch.float32)


class RowMatchTest(unittest.TestCase):
    def test_an_element_gets_the_largest_overlap_of_the_other_elements_on_its_row(self):
        # A list of two rows, each a title and a "More options" button; a status bar element; an app item (not an
        # element) at the first row's height. The goal names the first row's title only.
        feats = features([
            (1, 0.492, 0.052),   # 0 "Lecture recap", the goal's words
            (1, 0.502, 0.073),   # 1 its row's "More options"
            (1, 0.583, 0.052),   # 2 the next row's title
            (1, 0.593, 0.073),   # 3 its "More options"
            (1, 0.013, 0.026),   # 4 the status bar
            (0, 0.495, 0.050),   # 5 an app item
        ])
        share = torch.tensor([[1.0, 0.0, 0.25, 0.0, 0.0, 1.0]])
        got = row_overlap(share, feats, [0, 1, 2])
        want = torch.tensor([[[0.0, 0], [1.0, 1], [0.0, 0], [0.25, 1], [0.0, 0], [0.0, 0]]])
        self.assertTrue(torch.allclose(got, want), got)

    def test_the_row_bias_raises_the_button_on_the_named_row_over_the_same_button_elsewhere(self):
        rng = np.random.default_rng(5)
        steps = parse_steps([step_line(rng, 0, 0, {"type": 0, "pointer": 1}, items=4)], ROW_LAYOUT)
        batch = collate(steps, ROW_LAYOUT)
        goal, item_ids, feats = batch.inputs[0], batch.inputs[2], batch.inputs[4]
        item_ids[0, :, :2] = 3                      # no item reads a goal token ...
        item_ids[0, 0, :2] = goal[0, :2]            # ... but item 0, the first row's title
        item_ids[0, 2, :2] = 4                      # items 1 and 3 read the same label on two rows
        item_ids[0, 1, :2] = item_ids[0, 3, :2] = 6
        feats[0] = torch.tensor([[1, 0.49, 0.05], [1, 0.50, 0.07], [1, 0.58, 0.05], [1, 0.59, 0.07]])
        net = tiny(goal_match=True, row_match=True, layout=ROW_LAYOUT).eval()
        with torch.no_grad():
            net.row_pointer.fill_(3.0)
            on = net(*batch.inputs)[1][0, 0]
            net.row_pointer.zero_()
            off = net(*batch.inputs)[1][0, 0]
        self.assertAlmostEqual(float((on[1] - on[3]) - (off[1] - off[3])), 3.0, places=4)

    def test_row_match_needs_goal_match_and_the_row_features(self):
        with self.assertRaisesRegex(ValueError, "row_match needs goal_match"):
            tiny(row_match=True, layout=ROW_LAYOUT)
        with self.assertRaisesRegex(ValueError, "row_match needs the item features kind_element, cy, h"):
            tiny(goal_match=True, row_match=True)


if __name__ == "__main__":
    unittest.main()
