"""vlm-sft / vlm-grpo with the torch-only awb-tiny-lm backend: learning, the peft adapter files, resumeFrom, publishing
to a fake vLLM server (FakeVllm, an http.server in this process), and the whole path through the real service."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Optional
from unittest import mock

from tests import helpers

TINY = "awb-tiny-lm"
LORA = {"r": 4, "alpha": 8.0, "dropout": 0.0, "targetModules": ["q_proj", "k_proj", "v_proj", "o_proj"]}
API_KEY = "sk-test-not-to-be-logged-5f3a"


class FakeVllm:
    """A stand-in for vLLM's POST /v1/load_lora_adapter: records each request (and whether the adapter directory held
    both files at that moment) and answers with `status` and `body`."""

    def __init__(self, status: int = 200, body: str = "Success: LoRA adapter loaded"):
        self.status, self.body = status, body
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                files = sorted(os.listdir(body["lora_path"])) if os.path.isdir(body.get("lora_path", "")) else []
                fake.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization"), "files": files})
                data = fake.body.encode()
                self.send_response(fake.status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)  # close() waits ≤ 0.02 s
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _answers_bundle(kind: str, advantages: Optional[tuple[float, float]] = None) -> bytes:
    eps = [helpers.vlm_episode("good", ["click(index=3)"], advantage=advantages[0] if advantages else None),
           helpers.vlm_episode("bad", ["navigate_back()"], advantage=advantages[1] if advantages else None)]
    if kind == "vlm-sft":
        eps.append(helpers.vlm_episode("more", ["type(text=\"ok\")", "click(index=1)"], instruction="Type ok"))
    return helpers.vlm_bundle(kind, eps)


def _run(root: str, kind: str, config: dict, bundle: bytes, job_id: str) -> dict:
    from awb_trainer import jobdir
    from awb_trainer.run import run_job

    d = helpers.make_job_dir(root, kind, {"model": TINY, "lora": LORA, **config}, bundle, job_id=job_id)
    run_job(d, "file")
    return jobdir.read_job(d)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _log_probs(adapter_dir: Optional[str], instruction: str, answers: list[str]) -> list[float]:
    """Σ log π(answer | the built prompt) under the base model (adapter_dir None) or base + the saved adapter."""
    import torch

    from awb_trainer.jobs.tiny_lm import TinyBackend
    from awb_trainer.jobs.vlm_samples import default_messages

    backend = TinyBackend(LORA, 0, torch.device("cpu"), adapter_dir)
    backend.module.eval()
    with torch.no_grad():
        return [float(backend.token_log_probs(backend.module, backend.encode({"messages": default_messages(instruction, []), "target": a})).sum())
                for a in answers]


class TinyVlm(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def adapter(self, job: dict) -> str:
        return os.path.join(self.root, job["id"], "artifacts", "adapter")

    def test_sft_lowers_the_answers_nll_and_writes_peft_files(self) -> None:
        from awb_trainer.jobs.safetensors_io import load_file

        job = _run(self.root, "vlm-sft", {"learningRate": 0.01, "epochs": 4, "batchSize": 2}, _answers_bundle("vlm-sft"), "000001-sft")
        self.assertEqual(job["status"], "succeeded", job["error"])
        self.assertEqual({a["name"] for a in job["artifacts"]}, {"adapter/adapter_config.json", "adapter/adapter_model.safetensors", "metrics.jsonl"})
        before = _log_probs(None, "Press OK", ["click(index=3)", "navigate_back()"])
        after = _log_probs(self.adapter(job), "Press OK", ["click(index=3)", "navigate_back()"])
        for b, a in zip(before, after):
            self.assertGreater(a, b + 1.0)  # NLL down by more than a nat per answer
        with open(os.path.join(self.adapter(job), "adapter_config.json")) as f:
            cfg = json.load(f)
        self.assertEqual({k: cfg[k] for k in ("peft_type", "r", "lora_alpha", "lora_dropout", "task_type", "bias", "base_model_name_or_path")},
                         {"peft_type": "LORA", "r": 4, "lora_alpha": 8.0, "lora_dropout": 0.0, "task_type": "CAUSAL_LM", "bias": "none",
                          "base_model_name_or_path": TINY})
        self.assertEqual(sorted(cfg["target_modules"]), sorted(LORA["targetModules"]))
        tensors, _ = load_file(os.path.join(self.adapter(job), "adapter_model.safetensors"))
        self.assertEqual(tuple(tensors["base_model.model.layers.0.self_attn.q_proj.lora_A.weight"].shape), (4, 64))
        self.assertEqual(tuple(tensors["base_model.model.layers.1.self_attn.o_proj.lora_B.weight"].shape), (64, 4))
        self.assertEqual(len(tensors), 2 * 2 * 4)  # 2 layers × 4 projections × (A, B)

    def test_learning_rate_schedules_sft_decays_linearly_grpo_stays_constant_as_configured(self) -> None:
        from awb_trainer.errors import ConfigError
        from awb_trainer.jobs.config import parse_config

        def lrs(kind: str, config: dict, job_id: str) -> list[float]:
            job = _run(self.root, kind, {"learningRate": 0.01, "epochs": 2, "batchSize": 2, **config}, _answers_bundle(kind), job_id)
            self.assertEqual(job["status"], "succeeded", job["error"])
            return [json.loads(line)["optim/lr"] for line in _read(os.path.join(self.root, job_id, "artifacts", "metrics.jsonl")).splitlines()]

        # 4 SFT samples at batch 2: 2 steps an epoch, 4 in all; the rate of each step is the one it was taken with.
        self.assertEqual([round(x, 6) for x in lrs("vlm-sft", {}, "000001-linear")], [0.01, 0.0075, 0.005, 0.0025])
        self.assertEqual([round(x, 6) for x in lrs("vlm-sft", {"lrSchedule": "cosine", "warmupRatio": 0.25}, "000002-cosine")], [0.0, 0.01, 0.0075, 0.0025])
        self.assertEqual(parse_config("vlm-grpo", {"model": TINY})["lrSchedule"], "constant")  # the same loop, another default
        with self.assertRaises(ConfigError) as e:
            parse_config("vlm-sft", {"model": TINY, "lrSchedule": "step"})
        self.assertIn("config.lrSchedule", str(e.exception))

    def test_grpo_raises_the_positive_answer_and_lowers_the_negative_one(self) -> None:
        job = _run(self.root, "vlm-grpo", {"learningRate": 0.01, "epochs": 3, "batchSize": 2}, _answers_bundle("vlm-grpo", (1.0, -1.0)), "000001-grpo")
        self.assertEqual(job["status"], "succeeded", job["error"])
        (good0, bad0), (good1, bad1) = (_log_probs(a, "Press OK", ["click(index=3)", "navigate_back()"]) for a in (None, self.adapter(job)))
        self.assertGreater(good1, good0 + 0.5)
        self.assertLess(bad1, bad0 - 0.5)
        with open(os.path.join(self.root, job["id"], "artifacts", "metrics.jsonl")) as f:
            first = json.loads(f.readline())
        self.assertEqual(first["grpo/ratio"], 1.0)  # π_old is the starting adapter: the first update starts on-policy
        self.assertIn("grpo/clip_frac", first)
        # with a KL term the reference is the base model (LoRA off): 0 while B = 0, then > 0 once the adapter moved
        job = _run(self.root, "vlm-grpo", {"learningRate": 0.01, "epochs": 3, "batchSize": 2, "klBeta": 0.5},
                   _answers_bundle("vlm-grpo", (1.0, -1.0)), "000002-kl")
        self.assertEqual(job["status"], "succeeded", job["error"])
        kl = [json.loads(line)["grpo/kl"] for line in _read(os.path.join(self.root, job["id"], "artifacts", "metrics.jsonl")).splitlines()]
        self.assertEqual(kl[0], 0.0)
        self.assertGreater(kl[-1], 0.0)

    def test_a_batch_of_zero_advantages_leaves_the_adapter_as_it_started_unless_weight_decay_is_asked_for(self) -> None:
        from awb_trainer.jobs.safetensors_io import load_file

        def weights(job: dict) -> dict:
            self.assertEqual(job["status"], "succeeded", job["error"])
            return load_file(os.path.join(self.adapter(job), "adapter_model.safetensors"))[0]

        flat = weights(_run(self.root, "vlm-grpo", {"learningRate": 0.01, "epochs": 2, "batchSize": 2}, _answers_bundle("vlm-grpo", (0.0, 0.0)), "000001-flat"))
        decayed = weights(_run(self.root, "vlm-grpo", {"learningRate": 0.01, "epochs": 2, "batchSize": 2, "weightDecay": 0.5},
                               _answers_bundle("vlm-grpo", (0.0, 0.0)), "000002-decay"))
        import torch

        from awb_trainer.jobs.tiny_lm import TinyBackend

        start = TinyBackend(LORA, 0, torch.device("cpu")).adapter_tensors()  # the job's seed 0: its initial A, B = 0
        key = "base_model.model.layers.0.self_attn.q_proj.lora_A.weight"
        self.assertTrue(torch.equal(flat[key], start[key]))  # no gradient, no decay: A as it started
        self.assertLess(float(decayed[key].norm()), float(start[key].norm()) * 0.9999)  # decay alone shrinks it
        for name, t in flat.items():
            if name.endswith("lora_B.weight"):
                self.assertEqual(float(t.abs().max()), 0.0, name)

    def test_resume_from_starts_from_the_previous_jobs_adapter(self) -> None:
        from awb_trainer.jobs import vlm
        from awb_trainer.jobs.safetensors_io import load_file

        first = _run(self.root, "vlm-sft", {"learningRate": 0.01, "epochs": 2}, _answers_bundle("vlm-sft"), "000001-first")
        self.assertEqual(first["status"], "succeeded", first["error"])
        saved, _ = load_file(os.path.join(self.adapter(first), "adapter_model.safetensors"))
        started: list = []
        original = vlm.load_backend

        def spy(config, device, resume_dir=None):
            backend = original(config, device, resume_dir)
            started.append({k: v.clone() for k, v in backend.adapter_tensors().items()})
            return backend

        with mock.patch.object(vlm, "load_backend", spy):
            second = _run(self.root, "vlm-grpo", {"resumeFrom": first["id"], "learningRate": 0.01}, _answers_bundle("vlm-grpo", (1.0, -1.0)), "000002-second")
        self.assertEqual(second["status"], "succeeded", second["error"])
        self.assertEqual(set(started[0]), set(saved))
        for k, v in saved.items():
            self.assertTrue(bool((started[0][k] == v).all()), k)
        self.assertTrue(any(float(v.abs().sum()) > 0 for k, v in saved.items() if "lora_B" in k))  # job 1 moved B off zero
        events = _read(os.path.join(self.root, second["id"], "events.jsonl"))
        self.assertIn(f"starting from job {first['id']}'s adapter", events)

    def test_resume_from_refuses_unusable_jobs_at_run_time(self) -> None:
        from awb_trainer.errors import ConfigError
        from awb_trainer.jobs.config import parse_config
        from awb_trainer.jobs.vlm_resume import resume_adapter_dir

        ok = _run(self.root, "vlm-sft", {"learningRate": 0.01}, _answers_bundle("vlm-sft"), "000001-ok")
        self.assertEqual(ok["status"], "succeeded", ok["error"])
        failed = _run(self.root, "vlm-sft", {}, helpers.vlm_bundle("vlm-sft", [helpers.vlm_episode("x", [])]), "000002-failed")
        self.assertEqual(failed["status"], "failed")
        cases = [({"resumeFrom": "000009-none"}, "names no job"), ({"resumeFrom": "../000001-ok"}, "must be a job id"),
                 ({"resumeFrom": failed["id"]}, "failed, not succeeded"), ({"resumeFrom": ok["id"], "lora": {**LORA, "r": 8}}, "LoRA r 4"),
                 ({"resumeFrom": ok["id"], "model": "Qwen/Qwen2.5-VL-3B-Instruct"}, "of model 'awb-tiny-lm'")]
        for raw, problem in cases:
            with self.subTest(problem), self.assertRaises(ConfigError) as e:
                resume_adapter_dir(self.root, parse_config("vlm-grpo", {"model": TINY, "lora": LORA, **raw}))
            self.assertEqual(e.exception.field, "config.resumeFrom")
            self.assertIn(problem, str(e.exception))
        job = _run(self.root, "vlm-grpo", {"resumeFrom": "000009-none"}, _answers_bundle("vlm-grpo", (1.0, -1.0)), "000003-late")
        self.assertEqual((job["status"], job["error"]["code"]), ("failed", "bad_request"))
        self.assertIn("config.resumeFrom", job["error"]["message"])

    def test_publish_loads_the_adapter_into_fake_vllm_and_writes_published_json(self) -> None:
        fake = FakeVllm()
        try:
            with mock.patch.dict(os.environ, {"AWB_TEST_VLLM_KEY": API_KEY, "AWB_PUBLISH_KEYS": json.dumps({"AWB_TEST_VLLM_KEY": None})}):
                job = _run(self.root, "vlm-grpo", {"publish": {"baseUrl": fake.url + "/", "name": "phone", "apiKeyEnv": "AWB_TEST_VLLM_KEY"}},
                           _answers_bundle("vlm-grpo", (1.0, -1.0)), "000001-pub")
        finally:
            fake.close()
        self.assertEqual(job["status"], "succeeded", job["error"])
        adapter = os.path.abspath(self.adapter(job))
        self.assertEqual(fake.requests, [{"path": "/v1/load_lora_adapter", "body": {"lora_name": f"phone-{job['id']}", "lora_path": adapter},
                                          "auth": f"Bearer {API_KEY}", "files": ["adapter_config.json", "adapter_model.safetensors"]}])
        with open(os.path.join(self.root, job["id"], "artifacts", "published.json")) as f:
            self.assertEqual(json.load(f), {"name": f"phone-{job['id']}", "baseUrl": fake.url + "/", "adapterPath": adapter, "job": job["id"], "model": TINY, "server": "vllm"})
        self.assertIn("published.json", {a["name"] for a in job["artifacts"]})
        for name in ("events.jsonl", "job.json"):
            self.assertNotIn(API_KEY, _read(os.path.join(self.root, job["id"], name)))

    def test_publish_failures_fail_the_job_with_publish_failed_and_keep_the_adapter(self) -> None:
        fake = FakeVllm(status=400, body='{"object":"error","message":"The lora adapter phone is already loaded"}')
        try:
            with mock.patch.dict(os.environ, {"AWB_TEST_VLLM_KEY": API_KEY, "AWB_PUBLISH_KEYS": json.dumps({"AWB_TEST_VLLM_KEY": fake.url})}):
                job = _run(self.root, "vlm-sft", {"publish": {"baseUrl": fake.url, "name": "phone", "apiKeyEnv": "AWB_TEST_VLLM_KEY"}},
                           _answers_bundle("vlm-sft"), "000001-refused")
        finally:
            fake.close()
        self.assertEqual((job["status"], job["error"]["code"]), ("failed", "publish_failed"))
        for part in (fake.url + "/v1/load_lora_adapter", "HTTP 400", "already loaded"):
            self.assertIn(part, job["error"]["message"])
        self.assertEqual({a["name"] for a in job["artifacts"]}, {"adapter/adapter_config.json", "adapter/adapter_model.safetensors", "metrics.jsonl"})
        for name in ("events.jsonl", "job.json"):
            self.assertNotIn(API_KEY, _read(os.path.join(self.root, job["id"], name)))
        import socket

        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        job = _run(self.root, "vlm-sft", {"publish": {"baseUrl": f"http://127.0.0.1:{port}", "name": "phone"}}, _answers_bundle("vlm-sft"), "000002-down")
        self.assertEqual((job["status"], job["error"]["code"]), ("failed", "publish_failed"))
        self.assertIn(f"POST http://127.0.0.1:{port}/v1/load_lora_adapter: no HTTP answer", job["error"]["message"])

    def test_a_job_sends_no_key_its_operator_did_not_list(self) -> None:
        # A job directory run on its own (a Ray cluster): the list comes from AWB_PUBLISH_KEYS; without it, no key leaves.
        fake = FakeVllm()
        try:
            env = {k: v for k, v in os.environ.items() if k != "AWB_PUBLISH_KEYS"}
            with mock.patch.dict(os.environ, {**env, "AWB_TEST_VLLM_KEY": API_KEY}, clear=True):
                job = _run(self.root, "vlm-sft", {"publish": {"baseUrl": fake.url, "name": "phone", "apiKeyEnv": "AWB_TEST_VLLM_KEY"}},
                           _answers_bundle("vlm-sft"), "000001-unlisted")
        finally:
            fake.close()
        self.assertEqual((job["status"], job["error"]["code"]), ("failed", "publish_failed"))
        self.assertIn("config.publish.apiKeyEnv: names a variable this trainer was not started with --publish-key for", job["error"]["message"])
        self.assertEqual(fake.requests, [])

    def test_through_the_service_upload_submit_events_artifacts_and_resume_refusals(self) -> None:
        fake = FakeVllm()
        svc = helpers.start_service(self.root)
        try:
            c = helpers.Client(svc.url)
            sha = c.upload(_answers_bundle("vlm-grpo", (1.0, -1.0)))
            config = {"model": TINY, "lora": LORA, "learningRate": 0.01, "publish": {"baseUrl": fake.url, "name": "phone"}}
            status, job = c.submit("vlm-grpo", sha, config)
            self.assertEqual(status, 201, job)
            done = c.wait(job["id"])
            self.assertEqual(done["status"], "succeeded", done["error"])
            events = c.events(job["id"])
            self.assertEqual([e["status"] for e in events if e["type"] == "status"], ["queued", "running", "succeeded"])
            self.assertTrue(any(e["type"] == "metric" and "loss/grpo" in e["metrics"] for e in events))
            _, published = c.json("GET", f"/v1/jobs/{job['id']}/artifacts/published.json")
            self.assertEqual((published["name"], published["job"]), (f"phone-{job['id']}", job["id"]))
            self.assertEqual(fake.requests[0]["body"]["lora_name"], f"phone-{job['id']}")
            for raw, problem in (({"resumeFrom": "000042-gone"}, "names no job"), ({"resumeFrom": job["id"], "lora": {**LORA, "r": 2}}, "LoRA r 4")):
                status, body = c.submit("vlm-grpo", sha, {**config, **raw})
                self.assertEqual((status, body["error"]["code"], body["error"]["field"]), (422, "unprocessable", "config.resumeFrom"))
                self.assertIn(problem, body["error"]["message"])
            status, again = c.submit("vlm-grpo", sha, {**config, "resumeFrom": job["id"]})
            self.assertEqual(status, 201, again)
            self.assertEqual(c.wait(again["id"])["status"], "succeeded")
        finally:
            svc.stop()
            fake.close()


if __name__ == "__main__":
    unittest.main()
