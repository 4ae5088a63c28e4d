"""jobs/safetensors_io.py: round trips, the header's exact shape, and refusals."""

from __future__ import annotations

import json
import os
import struct
import tempfile
import unittest

from tests import helpers  # noqa: F401  (puts resources/trainer on sys.path)


class Safetensors(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "t.safetensors")

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_round_trip_keeps_names_shapes_values_and_metadata(self) -> None:
        import torch

        from awb_trainer.jobs.safetensors_io import load_file, save_file

        g = torch.Generator().manual_seed(3)
        tensors = {"b.lora_B.weight": torch.randn(5, 2, generator=g), "a.lora_A.weight": torch.randn(2, 7, generator=g),
                   "scalar": torch.tensor(1.5), "empty": torch.zeros(0, 3)}
        save_file(tensors, self.path, {"format": "pt"})
        back, meta = load_file(self.path)
        self.assertEqual(meta, {"format": "pt"})
        self.assertEqual(set(back), set(tensors))
        for k, t in tensors.items():
            self.assertEqual(back[k].dtype, torch.float32)
            self.assertEqual(tuple(back[k].shape), tuple(t.shape))
            self.assertTrue(torch.equal(back[k], t), k)

    def test_header_is_the_specs_shape(self) -> None:
        import torch

        from awb_trainer.jobs.safetensors_io import save_file

        save_file({"x": torch.arange(6, dtype=torch.float32).reshape(2, 3), "w": torch.ones(1)}, self.path, {"k": "v"})
        with open(self.path, "rb") as f:
            raw = f.read()
        (n,) = struct.unpack("<Q", raw[:8])
        self.assertEqual((8 + n) % 8, 0)  # the buffer starts 8-byte aligned
        text = raw[8:8 + n].decode("utf-8")
        self.assertTrue(text.rstrip(" ").endswith("}"), repr(text))  # the JSON, then spaces only as padding
        header = json.loads(text)
        self.assertEqual(header["__metadata__"], {"k": "v"})
        self.assertEqual(header["w"], {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]})
        self.assertEqual(header["x"], {"dtype": "F32", "shape": [2, 3], "data_offsets": [4, 28]})
        self.assertEqual(len(raw), 8 + n + 28)  # contiguous, nothing after the last tensor
        self.assertEqual(struct.unpack("<6f", raw[8 + n + 4:]), (0.0, 1.0, 2.0, 3.0, 4.0, 5.0))  # little-endian row-major

    def test_refuses_other_dtypes_and_malformed_files(self) -> None:
        import torch

        from awb_trainer.jobs.safetensors_io import SafetensorsError, load_file, save_file

        with self.assertRaisesRegex(SafetensorsError, "'h'.*float16"):
            save_file({"h": torch.ones(2, dtype=torch.float16)}, self.path)

        def write(header: dict, data: bytes) -> None:
            raw = json.dumps(header).encode()
            with open(self.path, "wb") as f:
                f.write(struct.pack("<Q", len(raw)) + raw + data)

        write({"b": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4)
        with self.assertRaisesRegex(SafetensorsError, "'b' has dtype 'BF16'"):
            load_file(self.path)
        write({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8)
        with self.assertRaisesRegex(SafetensorsError, "needs 12 bytes"):
            load_file(self.path)
        write({"x": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 8)
        with self.assertRaisesRegex(SafetensorsError, "starts at 4, expected 0"):
            load_file(self.path)
        with open(self.path, "wb") as f:
            f.write(struct.pack("<Q", 50) + b"{}")
        with self.assertRaisesRegex(SafetensorsError, "header says 50 bytes"):
            load_file(self.path)


if __name__ == "__main__":
    unittest.main()
