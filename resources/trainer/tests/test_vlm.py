"""VLM kinds: where transformers/peft are missing the service refuses them (unsupported_kind) and health omits
them; the LoRA training itself runs only where the packages import (skipped here with the reason)."""

from __future__ import annotations

import os
import sys
import tempfile
import unittest

from tests import helpers


def _missing() -> "str | None":
    from awb_trainer.jobs import missing_for

    return missing_for("vlm-sft")


MISSING = _missing()
if MISSING:
    print(f"skipping VLM LoRA training tests: {MISSING}", file=sys.stderr)


class VlmKinds(unittest.TestCase):
    def test_vlm_config_requires_a_model_and_fills_lora_defaults(self) -> None:
        from awb_trainer.errors import ConfigError
        from awb_trainer.jobs.config import parse_config

        with self.assertRaises(ConfigError) as e:
            parse_config("vlm-sft", {})
        self.assertEqual(e.exception.field, "config.model")
        c = parse_config("vlm-grpo", {"model": "Qwen/Qwen2.5-VL-3B-Instruct", "lora": {"r": 8}})
        self.assertEqual((c["lora"]["r"], c["lora"]["alpha"], c["clipEps"]), (8, 32.0, 0.2))
        with self.assertRaises(ConfigError) as e:
            parse_config("vlm-sft", {"model": "m", "lora": {"rank": 8}})
        self.assertEqual(e.exception.field, "config.lora.rank")

    def test_advantages_fall_back_to_group_normalised_outcomes(self) -> None:
        from awb_trainer.jobs.vlm import _advantages

        rows = [{"episode": e, "group": ("T", 1), "reward": r, "advantage": None} for e, r in (("a", 1.0), ("b", 0.0), ("c", 0.0))]
        rows.append({"episode": "d", "group": ("T", 2), "reward": 1.0, "advantage": None})
        rows.append({"episode": "e", "group": ("T", 2), "reward": float("nan"), "advantage": 0.25})
        _advantages(rows)
        std = (((1 - 1 / 3) ** 2 + 2 * (1 / 3) ** 2) / 2) ** 0.5
        self.assertAlmostEqual(rows[0]["advantage"], (2 / 3) / (std + 1e-4))
        self.assertAlmostEqual(rows[1]["advantage"], (-1 / 3) / (std + 1e-4))
        self.assertEqual((rows[3]["advantage"], rows[4]["advantage"]), (0.0, 0.25))  # one valid reward in the group; given value kept

    @unittest.skipIf(MISSING is None, "transformers and peft import here: the refusal path does not apply")
    def test_the_service_refuses_vlm_jobs_and_health_omits_them_without_transformers_and_peft(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            svc = helpers.start_service(tmp)
            try:
                c = helpers.Client(svc.url)
                _, health = c.json("GET", "/v1/health")
                self.assertNotIn("vlm-sft", health["kinds"])
                sha = c.upload(helpers.builtin_bundle("builtin-sft"))
                status, body = c.submit("vlm-sft", sha, {"model": "Qwen/Qwen2.5-VL-3B-Instruct"})
                self.assertEqual((status, body["error"]["code"], body["error"]["field"]), (422, "unsupported_kind", "kind"))
                self.assertIn("transformers", body["error"]["message"])
            finally:
                svc.stop()

    @unittest.skipIf(MISSING is not None or not os.environ.get("AWB_TINY_VLM"),
                     f"VLM LoRA training needs transformers and peft ({MISSING or 'present'}) and a small local model in AWB_TINY_VLM")
    def test_lora_sft_writes_a_peft_adapter(self) -> None:
        import io
        import json

        from PIL import Image

        from awb_trainer import jobdir
        from awb_trainer.run import run_job

        png = io.BytesIO()
        Image.new("RGB", (32, 48), (200, 30, 30)).save(png, format="PNG")
        step = {"index": 0, "screenshot": "screenshots/a.png", "action": {"action_type": "click", "index": 3}, "raw": None, "description": "Tap OK"}
        ep = {"uid": "e1", "template": "T", "seed": 1, "instruction": "Press OK", "steps": [step]}
        bundle = helpers.make_tar({
            "manifest.json": json.dumps({"format": "awb-bundle", "version": 1, "kind": "vlm-sft", "createdAt": 0, "counts": {}}).encode(),
            "episodes.jsonl": (json.dumps(ep) + "\n").encode(), "screenshots/a.png": png.getvalue()})
        d = helpers.make_job_dir(tempfile.mkdtemp(), "vlm-sft", {"model": os.environ["AWB_TINY_VLM"], "lora": {"r": 2}, "batchSize": 1}, bundle)
        run_job(d, "file")
        job = jobdir.read_job(d)
        self.assertEqual(job["status"], "succeeded", job["error"])
        self.assertTrue({"adapter/adapter_model.safetensors", "adapter/adapter_config.json"} <= {a["name"] for a in job["artifacts"]})

if __name__ == "__main__":
    unittest.main()
