"""VLM kinds: configs, samples, advantages and resumeFrom's checks; where transformers/peft are missing only awb-tiny-lm
is accepted (test_vlm_tiny.py trains it; test_vlm_hf.py trains the Hugging Face path on a tiny Qwen2.5-VL)."""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import unittest

from tests import helpers


def _missing() -> "str | None":
    from awb_trainer.jobs import missing_for

    return missing_for("vlm-sft", {"model": "Qwen/Qwen2.5-VL-3B-Instruct"})


MISSING = _missing()
if MISSING:
    print(f"skipping Hugging Face VLM LoRA training tests: {MISSING}", file=sys.stderr)


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

    def test_config_publish_server_defaults_to_vllm_and_transformers_needs_a_hugging_face_model(self) -> None:
        from awb_trainer.errors import ConfigError
        from awb_trainer.jobs.config import parse_config

        publish = {"baseUrl": "http://gpu:8000", "name": "phone"}
        self.assertEqual(parse_config("vlm-grpo", {"model": "m", "publish": publish})["publish"]["server"], "vllm")
        self.assertEqual(parse_config("vlm-grpo", {"model": "m", "publish": {**publish, "server": "transformers"}})["publish"]["server"], "transformers")
        with self.assertRaises(ConfigError) as e:
            parse_config("vlm-grpo", {"model": "m", "publish": {**publish, "server": "sglang"}})
        self.assertEqual((e.exception.field, e.exception.value), ("config.publish.server", "sglang"))
        with self.assertRaises(ConfigError) as e:
            parse_config("vlm-grpo", {"model": "awb-tiny-lm", "publish": {**publish, "server": "transformers"}})
        self.assertEqual(e.exception.field, "config.publish.server")
        self.assertIn("awb-tiny-lm cannot be served", str(e.exception))

    def test_advantages_fall_back_to_group_normalised_outcomes(self) -> None:
        from awb_trainer.jobs.vlm_samples import fill_advantages

        rows = [{"episode": e, "group": ("T", 1), "reward": r, "advantage": None} for e, r in (("a", 1.0), ("b", 0.0), ("c", 0.0))]
        rows.append({"episode": "d", "group": ("T", 2), "reward": 1.0, "advantage": None})
        rows.append({"episode": "e", "group": ("T", 2), "reward": float("nan"), "advantage": 0.25})
        fill_advantages(rows)
        std = (((1 - 1 / 3) ** 2 + 2 * (1 / 3) ** 2) / 2) ** 0.5
        self.assertAlmostEqual(rows[0]["advantage"], (2 / 3) / (std + 1e-4))
        self.assertAlmostEqual(rows[1]["advantage"], (-1 / 3) / (std + 1e-4))
        self.assertEqual((rows[3]["advantage"], rows[4]["advantage"]), (0.0, 0.25))  # one valid reward in the group; given value kept

    def test_config_takes_resume_from_and_health_lists_the_vlm_models(self) -> None:
        from awb_trainer.jobs import vlm_models
        from awb_trainer.jobs.config import parse_config

        self.assertIsNone(parse_config("vlm-sft", {"model": "awb-tiny-lm"})["resumeFrom"])
        self.assertEqual(parse_config("vlm-grpo", {"model": "awb-tiny-lm", "resumeFrom": "000001-ab"})["resumeFrom"], "000001-ab")
        self.assertEqual(vlm_models(), "any" if MISSING is None else ["awb-tiny-lm"])

    def test_samples_take_the_recorded_chat_when_a_step_has_one_else_build_it(self) -> None:
        from awb_trainer.bundle import Bundle
        from awb_trainer.errors import BundleError
        from awb_trainer.jobs.vlm_samples import samples

        chat = [{"role": "system", "content": "You are a phone agent."},
                {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Task: Press OK"}]}]
        eps = [helpers.vlm_episode("a", ["tap(3)"], advantage=0.5, messages=chat), helpers.vlm_episode("b", ["back()", "home()"])]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "b.tar")
            with open(path, "wb") as f:
                f.write(helpers.vlm_bundle("vlm-grpo", eps))
            with Bundle(path) as b:
                rows = samples(b)
            self.assertEqual([r["target"] for r in rows], ["tap(3)", "back()", "home()"])
            self.assertEqual(rows[0]["messages"], chat)
            self.assertEqual((rows[0]["advantage"], rows[1]["advantage"]), (0.5, None))
            self.assertIn("Previous actions:\n- step 0", rows[2]["messages"][0]["content"][1]["text"])
            for bad, where in (([{"role": "tool", "content": "x"}], "messages[0]"),
                               ([{"role": "user", "content": [{"type": "image_url", "image_url": "u"}]}], "messages[0].content[0]"),
                               ([{"role": "user", "content": [{"type": "image", "step": 7}]}], "step 0"),
                               # androidworld-m3a's set-of-marks: drawn by the agent, not the stored screenshot
                               ([{"role": "user", "content": [{"type": "image", "step": 0, "marks": "set-of-marks"}]}], "messages[0].content[0]")):
                with open(path, "wb") as f:
                    f.write(helpers.vlm_bundle("vlm-grpo", [helpers.vlm_episode("a", ["tap(3)"], messages=bad)]))
                with Bundle(path) as b, self.assertRaises(BundleError) as e:
                    samples(b)
                self.assertIn(where, e.exception.member)

    def test_samples_read_each_image_from_the_step_it_names_at_the_size_sent_and_the_servers_prompt_tokens(self) -> None:
        from awb_trainer.bundle import Bundle
        from awb_trainer.jobs.vlm_samples import samples
        from PIL import Image

        first, second = helpers.png(40, 80, (10, 20, 30)), helpers.png(40, 80, (200, 200, 0))
        chat = [{"role": "user", "content": [{"type": "text", "text": "Task"}, {"type": "image", "step": 0, "width": 20, "height": 40}]},
                {"role": "assistant", "content": "A0"}, {"role": "user", "content": [{"type": "image", "step": 1}]}]
        ep = {"uid": "e", "template": "T", "seed": 1, "instruction": "Task", "steps": [
            {"index": 0, "screenshot": "screenshots/a.png", "action": {"action_type": "wait"}, "train": False},
            {"index": 1, "screenshot": "screenshots/b.png", "action": None, "raw": "A1", "messages": chat,
             "usage": {"prompt_tokens": 42, "completion_tokens": 3}}]}
        manifest = {"format": "awb-bundle", "version": 1, "kind": "vlm-sft", "createdAt": 0, "counts": {"episodes": 1}}
        tar = helpers.make_tar({"manifest.json": json.dumps(manifest).encode(), "episodes.jsonl": (json.dumps(ep) + "\n").encode(),
                                "screenshots/a.png": first, "screenshots/b.png": second})
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "b.tar")
            with open(path, "wb") as f:
                f.write(tar)
            with Bundle(path) as b:
                rows = samples(b)
        self.assertEqual(len(rows), 1)  # step 0 is train: false (its screenshot is still shown by step 1)
        row = rows[0]
        self.assertEqual((row["target"], row["promptTokens"]), ("A1", 42))  # usage.prompt_tokens, as the export writes it
        self.assertEqual(len(row["images"]), 2)
        self.assertEqual(Image.open(io.BytesIO(row["images"][0])).size, (20, 40))  # resized to the size it was sent at
        self.assertEqual(Image.open(io.BytesIO(row["images"][0])).getpixel((5, 5)), (10, 20, 30))
        self.assertEqual(row["images"][1], second)
        self.assertEqual(row["messages"][0]["content"][1], {"type": "image"})

    @unittest.skipIf(MISSING is None, "transformers and peft import here: every model is accepted")
    def test_the_service_refuses_other_models_than_awb_tiny_lm_without_transformers_and_peft(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            svc = helpers.start_service(tmp)
            try:
                c = helpers.Client(svc.url)
                _, health = c.json("GET", "/v1/health")
                self.assertIn("vlm-sft", health["kinds"])
                self.assertEqual(health["vlmModels"], ["awb-tiny-lm"])
                sha = c.upload(helpers.vlm_bundle("vlm-sft", [helpers.vlm_episode("e1", ["tap"])]))
                status, body = c.submit("vlm-sft", sha, {"model": "Qwen/Qwen2.5-VL-3B-Instruct"})
                self.assertEqual((status, body["error"]["code"], body["error"]["field"]), (422, "unsupported_kind", "config.model"))
                self.assertIn("transformers", body["error"]["message"])
                self.assertIn("awb-tiny-lm", body["error"]["message"])
            finally:
                svc.stop()

    def test_resume_from_compares_the_earlier_jobs_config_with_its_defaults_filled(self) -> None:
        from awb_trainer import jobdir
        from awb_trainer.errors import ConfigError
        from awb_trainer.jobs.config import parse_config
        from awb_trainer.jobs.vlm_resume import resume_adapter_dir

        root = helpers.scratch_dir()
        # a hand-written earlier job: {"r": 2} only, as it ran with alpha 32 and the default targets
        d = helpers.make_job_dir(root, "vlm-sft", {"model": "awb-tiny-lm", "lora": {"r": 2}}, b"", job_id="000001-hand")
        rec = jobdir.read_job(d)
        jobdir.write_job(d, {**rec, "status": "succeeded"})
        os.makedirs(os.path.join(d, "artifacts", "adapter"))
        for name in ("adapter_config.json", "adapter_model.safetensors"):
            open(os.path.join(d, "artifacts", "adapter", name), "wb").close()
        same = parse_config("vlm-grpo", {"model": "awb-tiny-lm", "lora": {"r": 2, "alpha": 32}, "resumeFrom": "000001-hand"})
        self.assertEqual(resume_adapter_dir(root, same), os.path.join(d, "artifacts", "adapter"))
        with self.assertRaises(ConfigError) as e:
            resume_adapter_dir(root, parse_config("vlm-grpo", {"model": "awb-tiny-lm", "lora": {"r": 2, "alpha": 4}, "resumeFrom": "000001-hand"}))
        self.assertIn("LoRA alpha 32.0, this job has 4.0", str(e.exception))


if __name__ == "__main__":
    unittest.main()
