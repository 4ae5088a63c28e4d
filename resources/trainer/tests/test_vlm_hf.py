"""vlm-sft / vlm-grpo on a real Hugging Face VLM with a real peft LoRA: the tiny random Qwen2.5-VL of
tools/make_tiny_vlm.py (AWB_TINY_VLM, else its cached build). No skips: these run wherever transformers and peft
import (the trainer's .venv). One backend for the unit tests, one chain of jobs for the job tests."""

from __future__ import annotations

import json
import math
import os
import shutil
import unittest
from unittest import mock

import torch

from tests import helpers

LORA = {"r": 2, "alpha": 4.0, "dropout": 0.0, "targetModules": ["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"]}
CHAT = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Task: Press OK"}]}]
CPU = torch.device("cpu")


def _config(model: str, **extra) -> dict:
    from awb_trainer.jobs.config import parse_config

    return parse_config("vlm-sft", {"model": model, "lora": LORA, **extra})


def _backend(model: str, **extra):
    from awb_trainer.jobs import vlm

    torch.manual_seed(0)
    return vlm.load_backend(_config(model, **extra), CPU)


def _sample(target: str, image: bytes, prompt_tokens: "int | None" = None) -> dict:
    return {"messages": CHAT, "target": target, "images": [image], "episode": "e1", "promptTokens": prompt_tokens,
            "where": "episodes.jsonl:1 step 0"}


class HfBackendUnits(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.model = helpers.tiny_vlm()
        cls.png = helpers.png(56, 56)
        cls.backend = _backend(cls.model)
        cls.backend.module.eval()
        cls.tok = cls.backend.processor.tokenizer
        cls.eot = cls.tok.convert_tokens_to_ids("<|im_end|>")

    def score(self, target: str):
        enc = self.backend.encode(_sample(target, self.png))
        with torch.no_grad():
            return enc, self.backend.token_log_probs(self.backend.module, enc)

    def prompt_ids(self, image: bytes) -> list[int]:
        from PIL import Image
        import io

        p = self.backend.processor
        text = p.apply_chat_template(CHAT, add_generation_prompt=True, tokenize=False)
        return p(text=[text], images=[Image.open(io.BytesIO(image)).convert("RGB")], return_tensors="pt")["input_ids"][0].tolist()

    def test_the_answer_ends_with_one_end_of_turn_token_also_when_the_reply_has_it(self) -> None:
        expected = self.tok("tap(3)", add_special_tokens=False)["input_ids"] + [self.eot]
        for target in ("tap(3)", "tap(3)<|im_end|>"):
            with self.subTest(target):
                enc, lp = self.score(target)
                self.assertEqual(len(lp), len(expected))  # the stop token is scored: SFT teaches stopping
                self.assertEqual(enc.inputs["input_ids"][0, enc.prompt_len:].tolist(), expected)

    def test_an_answer_starting_with_a_newline_keeps_the_prompts_tokens(self) -> None:
        # "…assistant\n" + "\ntap(3)" as one string tokenises to "ĊĊ" across the boundary (Qwen2's pre-tokenizer)
        merged = self.tok(self.backend.processor.apply_chat_template(CHAT, add_generation_prompt=True, tokenize=False) + "\ntap(3)",
                          add_special_tokens=False)["input_ids"]
        self.assertIn(self.tok.convert_tokens_to_ids("ĊĊ"), merged)
        expected = self.tok("\ntap(3)", add_special_tokens=False)["input_ids"] + [self.eot]
        enc, lp = self.score("\ntap(3)")
        self.assertEqual(len(lp), len(expected))
        ids = enc.inputs["input_ids"][0].tolist()
        self.assertEqual(ids[:enc.prompt_len], self.prompt_ids(self.png))
        self.assertEqual(ids[enc.prompt_len:], expected)

    def test_the_image_is_processed_once_per_sample(self) -> None:
        image_processor = type(self.backend.processor.image_processor)
        original, calls = image_processor.__call__, []

        def spy(this, *a, **k):
            calls.append(1)
            return original(this, *a, **k)

        with mock.patch.object(image_processor, "__call__", spy):
            self.backend.encode(_sample("tap(3)", self.png))
        self.assertEqual(len(calls), 1)

    def test_only_answer_positions_reach_lm_head_and_the_log_probs_equal_the_full_computation(self) -> None:
        lm_head = self.backend.module.get_base_model().lm_head
        shapes: list = []
        hook = lm_head.register_forward_hook(lambda m, i, o: shapes.append(tuple(o.shape)))
        try:
            enc, lp = self.score("Thought: open Camera\n\nAction: tap(3)")
        finally:
            hook.remove()
        self.assertEqual(shapes, [(1, len(lp), lm_head.out_features)])  # answer × vocab, not (prompt + answer) × vocab
        with torch.no_grad():
            full = self.backend.module(**enc.inputs).logits[0, :-1].float()
        ids = enc.inputs["input_ids"][0, 1:]
        old = torch.log_softmax(full, dim=-1).gather(-1, ids.unsqueeze(-1)).squeeze(-1)[enc.prompt_len - 1:]
        torch.testing.assert_close(lp, old, rtol=0, atol=1e-5)  # float32: the same sums over a different row count

    def test_pixel_bounds_are_pinned_and_a_servers_other_prompt_count_is_a_named_error(self) -> None:
        from awb_trainer.jobs.vlm_hf import PixelSettingsMismatch

        big = helpers.png(112, 112)
        pinned = _backend(self.model, minPixels=56 * 56, maxPixels=56 * 56)
        image_token = pinned.module.config.image_token_id
        count = lambda b: int((b.encode(_sample("tap(3)", big)).inputs["input_ids"] == image_token).sum())  # noqa: E731
        self.assertEqual(count(self.backend), 16)  # the folder's bounds: 112×112 → 8×8 patches → 16 merged tokens
        self.assertEqual(count(pinned), 4)  # maxPixels 56·56: 56×56 → 4 tokens
        n = pinned.encode(_sample("tap(3)", big)).prompt_len
        pinned.encode(_sample("tap(3)", big, prompt_tokens=n))  # the server counted the same: fine
        with self.assertRaises(PixelSettingsMismatch) as e:
            pinned.encode(_sample("tap(3)", big, prompt_tokens=n + 12))
        self.assertIn("pixel settings differ between server and trainer", str(e.exception))
        self.assertIn(f"server counted {n + 12} prompt tokens, the trainer's processor {n}", str(e.exception))
        self.assertEqual(e.exception.member, "episodes.jsonl:1 step 0")

    def test_a_bundle_whose_step_recorded_another_prompt_count_fails_with_pixel_settings_mismatch(self) -> None:
        # Through samples(), from an episodes.jsonl line as the store's export writes it (usage.prompt_tokens): the
        # guard reads the field the workbench writes.
        import tempfile
        from awb_trainer.bundle import Bundle
        from awb_trainer.jobs.vlm_hf import PixelSettingsMismatch
        from awb_trainer.jobs.vlm_samples import samples

        big = helpers.png(112, 112)
        pinned = _backend(self.model, minPixels=56 * 56, maxPixels=56 * 56)
        n = pinned.encode(_sample("tap(3)", big)).prompt_len
        chat = [{"role": "user", "content": [{"type": "image", "step": 0}, {"type": "text", "text": "Task: Press OK"}]}]
        for counted, fails in ((n, False), (n + 12, True)):
            ep = helpers.vlm_episode("a", ["tap(3)"], messages=chat)
            ep["steps"][0]["usage"] = {"prompt_tokens": counted, "completion_tokens": 2}
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "b.tar")
                with open(path, "wb") as f:
                    f.write(helpers.vlm_bundle("vlm-sft", [ep], screenshot=big))
                with Bundle(path) as b:
                    (row,) = samples(b)
            self.assertEqual(row["promptTokens"], counted)
            if fails:
                with self.assertRaises(PixelSettingsMismatch):
                    pinned.encode(row)
            else:
                pinned.encode(row)

    def test_lora_sits_on_the_language_model_only_under_the_names_vllm_maps(self) -> None:
        import peft

        keys = sorted(peft.get_peft_model_state_dict(self.backend.module))
        self.assertEqual([k for k in keys if "visual" in k], [])
        prefix = "base_model.model.model.language_model.layers."  # vLLM: → language_model.model.layers.
        self.assertEqual([k for k in keys if not k.startswith(prefix)], [])
        self.assertEqual(len(keys), 2 * 6 * 2)  # 2 layers × 6 projections × (A, B)

    def test_gradient_checkpointing_recomputes_and_gives_the_same_gradients(self) -> None:
        grads = []
        for on in (False, True):
            b = _backend(self.model, gradientCheckpointing=on)
            b.module.train()
            layer = b.module.get_base_model().model.language_model.layers[0]
            calls: list = []
            # a pre-hook: non-reentrant checkpointing stops recomputing once it has the tensors backward needs
            hook = layer.register_forward_pre_hook(lambda *a: calls.append(1))
            b.token_log_probs(b.module, b.encode(_sample("tap(3)", self.png))).sum().backward()
            hook.remove()
            self.assertEqual(len(calls), 2 if on else 1)  # checkpointing runs the layer again in backward
            grads.append([p.grad.clone() for p in b.trainable()])
        for g0, g1 in zip(*grads):
            torch.testing.assert_close(g1, g0, rtol=0, atol=1e-6)


class LrSchedules(unittest.TestCase):
    def test_each_steps_rate_is_transformers_get_schedulers_to_the_bit(self) -> None:
        # Seen on a GPU check: 1 − (t − W)/(T − W) for linear was 1–2 ulp off HF's (T − t)/(T − W) (3.0000000000000003e-4).
        from transformers import get_scheduler

        from awb_trainer.jobs.torch_util import lr_scheduler

        def rates(make, total: int) -> list[float]:
            opt = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))], lr=1e-3)
            sched, out = make(opt), []
            for _ in range(total):
                out.append(opt.param_groups[0]["lr"])
                opt.step()
                sched.step()
            return out

        for schedule in ("linear", "cosine", "constant"):
            for total in (1, 7, 12, 30):
                for ratio in (0.0, 0.1, 0.25):
                    warmup = math.ceil(ratio * total)  # TrainingArguments.get_warmup_steps
                    hf = "constant_with_warmup" if schedule == "constant" and warmup else schedule
                    with self.subTest(schedule=schedule, total=total, ratio=ratio):
                        self.assertEqual(rates(lambda o: lr_scheduler(o, schedule, total, ratio), total),
                                         rates(lambda o: get_scheduler(hf, o, num_warmup_steps=warmup, num_training_steps=total), total))


def _run(root: str, kind: str, config: dict, bundle: bytes, job_id: str) -> dict:
    from awb_trainer import jobdir
    from awb_trainer.run import run_job

    d = helpers.make_job_dir(root, kind, config, bundle, job_id=job_id)
    run_job(d, "file")
    return jobdir.read_job(d)


def _tensors(root: str, job_id: str) -> dict:
    from safetensors.torch import load_file

    return load_file(os.path.join(root, job_id, "artifacts", "adapter", "adapter_model.safetensors"))


class HfJobs(unittest.TestCase):
    """3 one-step episodes in one minibatch of 3 (not divisible by 2 ranks): vlm-sft, then vlm-grpo from its adapter."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.model = helpers.tiny_vlm()
        eps = [helpers.vlm_episode("a", ["tap(3)"], advantage=1.0, messages=CHAT),
               helpers.vlm_episode("b", ["\ntap(4)"], advantage=-1.0, messages=CHAT),
               helpers.vlm_episode("c", ["back()<|im_end|>"], advantage=0.5)]
        cls.bundles = {k: helpers.vlm_bundle(k, eps, helpers.png(56, 56)) for k in ("vlm-sft", "vlm-grpo")}
        cls.configs = {"vlm-sft": {"model": cls.model, "lora": LORA, "epochs": 2, "batchSize": 3, "learningRate": 0.01,
                                   "minPixels": 3136, "maxPixels": 6272},
                       "vlm-grpo": {"model": cls.model, "lora": LORA, "epochs": 1, "batchSize": 3, "learningRate": 0.01, "klBeta": 0.1,
                                    "minPixels": 3136, "maxPixels": 6272}}
        cls.root = helpers.scratch_dir()
        cls.sft = _run(cls.root, "vlm-sft", cls.configs["vlm-sft"], cls.bundles["vlm-sft"], "000001-sft")
        cls.grpo = _run(cls.root, "vlm-grpo", {**cls.configs["vlm-grpo"], "resumeFrom": "000001-sft"}, cls.bundles["vlm-grpo"], "000002-grpo")

    def adapter(self, job_id: str) -> str:
        return os.path.join(self.root, job_id, "artifacts", "adapter")

    def test_jobs_succeed_and_write_a_served_adapter_with_its_pixel_bounds(self) -> None:
        for job in (self.sft, self.grpo):
            self.assertEqual(job["status"], "succeeded", job["error"])
            names = {a["name"] for a in job["artifacts"]}
            self.assertTrue({"adapter/adapter_config.json", "adapter/adapter_model.safetensors", "adapter/awb_adapter.json"} <= names)
            with open(os.path.join(self.adapter(job["id"]), "awb_adapter.json")) as f:
                meta = json.load(f)
            self.assertEqual((meta["baseModel"], meta["minPixels"], meta["maxPixels"], meta["endOfTurnToken"]), (self.model, 3136, 6272, "<|im_end|>"))
            keys = _tensors(self.root, job["id"]).keys()
            self.assertEqual([k for k in keys if "visual" in k or not k.startswith("base_model.model.model.language_model.layers.")], [])

    def test_the_adapter_loads_with_peft_and_merging_gives_the_same_logits(self) -> None:
        import peft
        import transformers

        inputs = {"input_ids": torch.tensor([[5, 17, 40, 2, 99, 7]]), "attention_mask": torch.ones(1, 6, dtype=torch.long)}
        base = transformers.AutoModelForImageTextToText.from_pretrained(self.model, dtype=torch.float32)
        with torch.no_grad():
            plain = base(**inputs).logits
            model = peft.PeftModel.from_pretrained(base, self.adapter("000002-grpo")).eval()
            adapted = model(**inputs).logits
            merged = model.merge_and_unload()(**inputs).logits
        self.assertGreater(float((adapted - plain).abs().max()), 1e-4)  # the adapter changes the model
        torch.testing.assert_close(merged, adapted, rtol=0, atol=1e-5)  # float32 W + (α/r)·B·A folded once

    def test_resume_starts_from_the_saved_adapter_bit_exactly(self) -> None:
        import peft

        from awb_trainer.jobs.vlm_hf import HfBackend

        backend = HfBackend(_config(self.model, resumeFrom="000001-sft"), CPU, self.adapter("000001-sft"))
        started = peft.get_peft_model_state_dict(backend.module)
        saved = _tensors(self.root, "000001-sft")
        self.assertEqual(set(started), set(saved))
        for k, v in saved.items():
            self.assertTrue(torch.equal(started[k], v), k)
        self.assertTrue(all(p.requires_grad for p in backend.trainable()) and len(backend.trainable()) == len(saved))

    def test_two_gloo_ranks_through_the_service_train_what_one_process_trains(self) -> None:
        # One minibatch of 3 on 2 ranks: rank 0 takes 2 samples, rank 1 one plus a zero-weight pad, each one all-reduce.
        root = helpers.scratch_dir()
        svc = helpers.start_service(root, gpus=2)
        try:
            c = helpers.Client(svc.url)
            ids = {}
            for kind in ("vlm-sft", "vlm-grpo"):
                resume = {"resumeFrom": ids["vlm-sft"]} if kind == "vlm-grpo" else {}
                status, job = c.submit(kind, c.upload(self.bundles[kind]), {**self.configs[kind], **resume})
                self.assertEqual(status, 201, job)
                done = c.wait(job["id"], timeout=240)  # the old per-sample all-reduce hung here
                self.assertEqual(done["status"], "succeeded", done["error"])
                ids[kind] = job["id"]
                self.assertTrue(any("world size 2" in e.get("message", "") for e in c.events(job["id"])))
        finally:
            svc.stop()
        for kind, one in (("vlm-sft", "000001-sft"), ("vlm-grpo", "000002-grpo")):
            two, ref = _tensors(os.path.join(root, "jobs"), ids[kind]), _tensors(self.root, one)
            self.assertEqual(set(two), set(ref))
            for k in ref:
                # float32, gradients summed in another order (2 ranks × 1 thread vs 1 process): Adam's first steps
                # move each weight by ≈ lr, so a mismatch in any sample's weighting shows as ≥ 1e-3
                torch.testing.assert_close(two[k], ref[k], rtol=0, atol=2e-5, msg=f"{kind} {k}")

    def test_bad_models_and_adapters_fail_the_job_with_one_clear_line(self) -> None:
        import transformers

        root = helpers.scratch_dir()
        empty = os.path.join(root, "empty-model")
        os.makedirs(empty)
        text_only = os.path.join(root, "text-model")
        cfg = transformers.Qwen2Config(vocab_size=576, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                       num_key_value_heads=1)
        transformers.Qwen2ForCausalLM(cfg).save_pretrained(text_only)
        no_processor = os.path.join(root, "no-processor")
        os.makedirs(no_processor)
        for name in os.listdir(self.model):
            if name in ("config.json", "model.safetensors", "generation_config.json"):
                shutil.copy(os.path.join(self.model, name), no_processor)
            if name.startswith("tokenizer") or name == "chat_template.jinja":
                shutil.copy(os.path.join(self.model, name), text_only)
        # an adapter of a wider base model: same keys, other shapes
        other = os.path.join(root, "000009-other")
        shutil.copytree(os.path.join(self.root, "000001-sft"), other)
        from safetensors.torch import load_file, save_file

        path = os.path.join(other, "artifacts", "adapter", "adapter_model.safetensors")
        save_file({k: torch.zeros(v.shape[0], v.shape[1] * 2) for k, v in load_file(path).items()}, path)
        cases = [(empty, {}, "config.model"), (text_only, {}, "is not a vision-language model"),
                 (no_processor, {}, "config.model"), (self.model, {"resumeFrom": "000009-other"}, "config.resumeFrom")]
        for n, (model, extra, problem) in enumerate(cases):
            with self.subTest(problem=problem, model=os.path.basename(model)):
                job = _run(root, "vlm-grpo", {**self.configs["vlm-grpo"], "model": model, **extra}, self.bundles["vlm-grpo"], f"00002{n}-bad")
                self.assertEqual((job["status"], job["error"]["code"]), ("failed", "bad_request"), job["error"])
                self.assertIn(problem, job["error"]["message"])
                self.assertNotIn("\n", job["error"]["message"])
                self.assertEqual(job["artifacts"], [])


if __name__ == "__main__":
    unittest.main()
