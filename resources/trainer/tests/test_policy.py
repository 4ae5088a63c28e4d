"""Unit tests of awb_trainer.policy (the builtin policy's scorer in PyTorch).

Run: PYTHONPATH=resources/trainer .venv/bin/python -m unittest discover -s resources/trainer/tests -p test_policy.py
(test/policy/onnx-python.test.ts does this from vitest). The cross-runtime parity with TypeScript and ONNX Runtime is
test/policy/onnx-parity.test.ts.
"""
import base64
import contextlib
import io
import json
import math
import os
import struct
import tempfile
import unittest

import torch

from awb_trainer.policy import (
    BuiltinScorer,
    CheckpointError,
    decode_float32,
    export_onnx,
    load_checkpoint,
    main,
    metadata_props_bytes,
    parameter_count,
    save_checkpoint,
)


def read_varint(buf, o):
    v, shift = 0, 0
    while True:
        b = buf[o]
        o += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, o
        shift += 7


def top_level_fields(buf):
    """(field, wire, payload) of one protobuf message; enough of the format to read ModelProto back."""
    out, o = [], 0
    while o < len(buf):
        key, o = read_varint(buf, o)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, o = read_varint(buf, o)
            out.append((field, wire, v))
        elif wire == 2:
            n, o = read_varint(buf, o)
            out.append((field, wire, buf[o:o + n]))
            o += n
        elif wire == 5:
            out.append((field, wire, buf[o:o + 4]))
            o += 4
        elif wire == 1:
            out.append((field, wire, buf[o:o + 8]))
            o += 8
        else:
            raise ValueError(f"wire type {wire}")
    return out


def metadata_of(model_bytes):
    props = {}
    for field, _, payload in top_level_fields(model_bytes):
        if field == 14:
            kv = {f: p.decode() for f, _, p in top_level_fields(payload)}
            props[kv[1]] = kv[2]
    return props


def checkpoint_doc(F, H, flat, encoder=None, **over):
    raw = struct.pack(f"<{len(flat)}f", *flat)
    doc = {
        "format": "awb-builtin-policy",
        "version": 1,
        "encoder": encoder or {"kind": "hashed-ngram", "dim": 4, "charN": 3},
        "network": {"input": F, "hidden": H},
        "params": {"dtype": "float32-le", "count": len(flat), "base64": base64.b64encode(raw).decode()},
        "meta": {"step": 7},
    }
    doc.update(over)
    return doc


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path


class ForwardTest(TempDirTest):
    def test_a_hand_computed_network_gives_the_formula_value(self):
        # F = 2, H = 1: W1 = [0.5, -1], b1 = 0.25, w2 = 2, wl = [1, 0.5]; flat order W1, b1, w2, wl.
        path = self.write("c.json", checkpoint_doc(2, 1, [0.5, -1.0, 0.25, 2.0, 1.0, 0.5]))
        model, meta = load_checkpoint(path)
        self.assertEqual(meta, {"step": 7})
        x = torch.tensor([[1.0, 2.0], [0.0, -1.0]])
        s, lp = model(x, 0.5)
        want = [2 * math.tanh(0.5 - 2 + 0.25) + 1 + 1.0, 2 * math.tanh(1 + 0.25) - 0.5]
        for got, w in zip(s.tolist(), want):
            self.assertAlmostEqual(got, w, places=5)
        z = math.log(sum(math.exp(v / 0.5) for v in want))
        for got, w in zip(lp.tolist(), want):
            self.assertAlmostEqual(got, w / 0.5 - z, places=5)

    def test_log_probs_normalise_and_sharpen_with_lower_temperature(self):
        model = BuiltinScorer(6, 4, seed=1)
        x = torch.randn(5, 6, generator=torch.Generator().manual_seed(2))
        hot, cold = model.log_probs(x, 2.0), model.log_probs(x, 0.25)
        self.assertAlmostEqual(float(hot.exp().sum()), 1.0, places=5)
        self.assertAlmostEqual(float(cold.exp().sum()), 1.0, places=5)
        self.assertGreater(float(cold.max()), float(hot.max()))
        self.assertEqual(int(cold.argmax()), int(model.scores(x).argmax()))

    def test_a_tensor_temperature_scalar_or_1_gives_the_float_result(self):
        model = BuiltinScorer(3, 2, seed=4)
        x = torch.randn(4, 3, generator=torch.Generator().manual_seed(5))
        a = model.log_probs(x, 0.7)
        self.assertTrue(torch.allclose(a, model.log_probs(x, torch.tensor(0.7))))
        self.assertTrue(torch.allclose(a, model.log_probs(x, torch.tensor([0.7]))))

    def test_bad_shapes_and_temperatures_are_refused_with_the_value(self):
        model = BuiltinScorer(3, 2)
        with self.assertRaisesRegex(ValueError, r"n × 3 .*\(2, 4\)"):
            model.scores(torch.zeros(2, 4))
        with self.assertRaisesRegex(ValueError, r"n × 3 .*\(0, 3\)"):
            model.scores(torch.zeros(0, 3))
        for t in (0, -1.0, float("nan"), float("inf")):
            with self.assertRaisesRegex(ValueError, "temperature"):
                model.log_probs(torch.zeros(2, 3), t)

    def test_every_parameter_gets_a_gradient_from_a_chosen_log_prob(self):
        model = BuiltinScorer(5, 3, seed=2)
        with torch.no_grad():
            model.b1.fill_(0.1)
            model.wl.fill_(0.1)
        x = torch.randn(4, 5, generator=torch.Generator().manual_seed(3))
        model.log_probs(x, 1.0)[2].backward()
        for name, p in model.named_parameters():
            self.assertIsNotNone(p.grad, name)
            self.assertGreater(float(p.grad.abs().sum()), 0.0, name)

    def test_seeded_construction_is_reproducible_and_follows_the_ts_init_ranges(self):
        a, b, c = BuiltinScorer(8, 4, seed=9), BuiltinScorer(8, 4, seed=9), BuiltinScorer(8, 4, seed=10)
        self.assertTrue(torch.equal(a.flat_params(), b.flat_params()))
        self.assertFalse(torch.equal(a.flat_params(), c.flat_params()))
        self.assertLessEqual(float(a.W1.abs().max()), math.sqrt(3 / 8))
        self.assertLessEqual(float(a.w2.abs().max()), 0.1 / math.sqrt(4))
        self.assertEqual(float(a.b1.abs().sum()) + float(a.wl.abs().sum()), 0.0)


class CheckpointTest(TempDirTest):
    def test_save_then_load_is_bit_exact_and_keeps_encoder_and_meta(self):
        model = BuiltinScorer(7, 3, encoder_config={"kind": "hashed-ngram", "dim": 5, "charN": 2}, seed=3)
        with torch.no_grad():
            model.b1.copy_(torch.tensor([1e-30, -3.4e38, 0.1]))  # a subnormal-ish and a huge float32 survive
        path = os.path.join(self.dir, "p.json")
        save_checkpoint(model, path, {"step": 12, "note": "x"})
        back, meta = load_checkpoint(path)
        self.assertTrue(torch.equal(back.flat_params(), model.flat_params()))
        self.assertEqual(back.encoder_config, {"kind": "hashed-ngram", "dim": 5, "charN": 2})
        self.assertEqual(meta, {"step": 12, "note": "x"})
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(list(doc), ["format", "version", "encoder", "network", "params", "meta"])
        self.assertEqual(doc["params"]["count"], parameter_count(7, 3))
        self.assertFalse(os.path.exists(path + ".tmp"))

    def test_bad_checkpoints_name_the_file_and_the_problem(self):
        flat = [0.0] * parameter_count(2, 1)
        cases = {
            "not-json": ("{", "not JSON"),
            "format": (checkpoint_doc(2, 1, flat, format="other"), "format: expected 'awb-builtin-policy', got 'other'"),
            "version": (checkpoint_doc(2, 1, flat, version=2), "version: expected 1, got 2"),
            "network": (checkpoint_doc(2, 1, flat, network={"input": 0, "hidden": 1}), "network: expected positive integers"),
            "count": (checkpoint_doc(2, 1, flat + [0.0]), "params.count 7, the network needs 6"),
            "nan": (checkpoint_doc(2, 1, [0.0, float("nan"), 0, 0, 0, 0]), "parameter 1 is nan"),
        }
        for name, (doc, message) in cases.items():
            path = self.write(f"{name}.json", doc)
            with self.assertRaises(CheckpointError, msg=name) as ctx:
                load_checkpoint(path)
            self.assertIn(path, str(ctx.exception))
            self.assertIn(message, str(ctx.exception), name)
        bad_bytes = checkpoint_doc(2, 1, flat)
        bad_bytes["params"]["base64"] = base64.b64encode(b"\0" * 20).decode()
        with self.assertRaisesRegex(CheckpointError, "holds 20 bytes, expected 24"):
            load_checkpoint(self.write("bytes.json", bad_bytes))
        with self.assertRaisesRegex(CheckpointError, "cannot read"):
            load_checkpoint(os.path.join(self.dir, "missing.json"))

    def test_a_nan_parameter_is_never_saved(self):
        model = BuiltinScorer(2, 1)
        with torch.no_grad():
            model.wl[0] = float("inf")
        with self.assertRaisesRegex(CheckpointError, "NaN or infinite"):
            save_checkpoint(model, os.path.join(self.dir, "x.json"))

    def test_decode_float32_reads_little_endian_and_checks_the_count(self):
        b64 = base64.b64encode(struct.pack("<2f", 1.5, -2.0)).decode()
        self.assertEqual(decode_float32(b64).tolist(), [1.5, -2.0])
        with self.assertRaisesRegex(ValueError, "holds 8 bytes, expected 12"):
            decode_float32(b64, 3)

    def test_the_cli_roundtrip_writes_the_same_parameters_and_refuses_a_bad_file(self):
        src = self.write("c.json", checkpoint_doc(2, 1, [0.5, -1.0, 0.25, 2.0, 1.0, 0.5]))
        out = os.path.join(self.dir, "d.json")
        self.assertEqual(main(["roundtrip", "--checkpoint", src, "--out", out]), 0)
        with open(src) as a, open(out) as b:
            self.assertEqual(json.load(a)["params"], json.load(b)["params"])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(main(["roundtrip", "--checkpoint", self.write("bad.json", "[]"), "--out", out]), 2)
        self.assertIn("CheckpointError", err.getvalue())


class OnnxExportTest(TempDirTest):
    def test_metadata_props_encode_long_values_with_multibyte_lengths(self):
        props = {"k": "v" * 300, "awb.x": "é"}
        self.assertEqual(metadata_of(metadata_props_bytes(props)), props)

    def test_the_export_declares_the_protocol_names_opset_13_and_the_awb_metadata(self):
        model = BuiltinScorer(6, 3, encoder_config={"kind": "hashed-ngram", "dim": 4, "charN": 0}, seed=1)
        path = os.path.join(self.dir, "m.onnx")
        export_onnx(model, path, meta={"step": 3})
        with open(path, "rb") as f:
            data = f.read()
        fields = top_level_fields(data)
        opsets = [dict((f, v) for f, _, v in top_level_fields(p)) for f, _, p in fields if f == 8]
        self.assertIn(13, [o.get(2) for o in opsets if o.get(1, b"") in (b"", b"ai.onnx")])
        meta = metadata_of(data)
        self.assertEqual(meta["awb.format"], "awb-builtin-policy-onnx")
        self.assertEqual(meta["awb.version"], "1")
        self.assertEqual(json.loads(meta["awb.encoder"]), {"kind": "hashed-ngram", "dim": 4, "charN": 0})
        self.assertEqual(json.loads(meta["awb.network"]), {"input": 6, "hidden": 3})
        self.assertEqual(json.loads(meta["awb.meta"]), {"step": 3})
        graph = next(p for f, _, p in fields if f == 7)
        names = lambda field: [next(v.decode() for g, _, v in top_level_fields(p) if g == 1) for f, _, p in top_level_fields(graph) if f == field]
        self.assertEqual(names(11)[:2], ["features", "temperature"])
        self.assertEqual(names(12), ["scores", "log_probs"])
        self.assertTrue(model.training)  # export restores the mode it found


if __name__ == "__main__":
    unittest.main()
