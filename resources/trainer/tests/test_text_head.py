"""The transformer policy's text head options: the field typed into (text_field) and the span ends' neighbours
(span_context), awb_trainer.transformer.model."""

import unittest

import numpy as np
import torch

from awb_trainer.transformer.data import collate, parse_steps
from tests.test_transformer import LAYOUT, step_line, tiny

INPUT_TEXT = LAYOUT["pointerTypes"].index("input_text")
TEXT_ROWS = {name: LAYOUT["textTypes"].index(name) for name in ("input_text", "answer")}


def batch(seed: int):
    rng = np.random.default_rng(seed)
    steps = parse_steps([step_line(rng, 0, 0, {"type": 2, "pointer": 1, "text": {"source": "goal", "start": 0, "length": 1}}, items=5)], LAYOUT)
    return collate(steps, LAYOUT)


def spans(net, inputs):
    with torch.no_grad():
        out = net.eval()(*inputs)
    return out[2][0], out[3][0]  # goal spans [X, Tg, L], item spans [X, S, T, Lt]


class TextFieldTest(unittest.TestCase):
    def test_what_input_text_copies_follows_the_field_the_pointer_picks_and_answer_is_unmoved(self):
        b = batch(1)
        one, two = [t.clone() for t in b.inputs], [t.clone() for t in b.inputs]
        for inputs, field in ((one, 1), (two, 3)):  # input_text may point only at this item
            inputs[5][0, INPUT_TEXT] = 0
            inputs[5][0, INPUT_TEXT, field] = 1
        for on in (True, False):
            net = tiny(text_field=on)
            (g1, i1), (g2, i2) = spans(net, one), spans(net, two)
            x, a = TEXT_ROWS["input_text"], TEXT_ROWS["answer"]
            moved = float((g1[x] - g2[x]).abs().amax())
            self.assertEqual(moved > 1e-4, on, f"text_field={on}: input_text's spans moved by {moved}")
            self.assertTrue(torch.allclose(g1[a], g2[a], atol=1e-5) and torch.allclose(i1[a], i2[a], atol=1e-5))

    def test_text_field_needs_input_text_to_point_and_to_type(self):
        with self.assertRaisesRegex(ValueError, "text_field needs input_text"):
            tiny(text_field=True, layout=dict(LAYOUT, textTypes=["answer"]))


class SpanContextTest(unittest.TestCase):
    def test_the_neighbours_term_adds_to_the_span_scores_only(self):
        b = batch(2)
        net = tiny(span_context=True)
        plain = tiny(span_context=False)
        plain.load_state_dict({k: v for k, v in net.state_dict().items() if "context" not in k})
        with torch.no_grad():
            on = net.eval()(*b.inputs)
            off = plain.eval()(*b.inputs)
            for conv in (net.goal_context, net.item_context):
                conv.weight.zero_()
                conv.bias.zero_()
            zeroed = net(*b.inputs)
        # The type and pointer heads do not read it; with its weights at zero the network is the plain one.
        self.assertTrue(torch.equal(on[0], off[0]) and torch.equal(on[1], off[1]))
        self.assertGreater(float((on[2] - off[2]).abs().amax()), 1e-4)
        for z, o in zip(zeroed, off):
            self.assertTrue(torch.allclose(z, o, atol=1e-5))


if __name__ == "__main__":
    unittest.main()
