"""Jobs on tiny bundles, run standalone (`run --job DIR`, events to the directory): builtin SFT/GRPO, progrm, prm."""

from __future__ import annotations

import json
import os
import unittest

import numpy as np

from tests import helpers


def run(kind: str, config: dict, bundle: bytes) -> tuple[dict, list[dict], str]:
    from awb_trainer import jobdir
    from awb_trainer.run import run_job

    tmp = helpers.scratch_dir()
    d = helpers.make_job_dir(tmp, kind, config, bundle)
    run_job(d, "file")
    return jobdir.read_job(d), jobdir.read_events(d), d


def metrics(events: list[dict]) -> list[dict]:
    return [e["metrics"] for e in events if e["type"] == "metric"]


class BuiltinJobs(unittest.TestCase):
    def test_sft_learns_the_rule_and_writes_a_loadable_checkpoint_onnx_and_metrics(self) -> None:
        from awb_trainer import policy

        job, events, d = run("builtin-sft", {"epochs": 40, "batchSize": 8, "learningRate": 0.05}, helpers.builtin_bundle("builtin-sft"))
        self.assertEqual(job["status"], "succeeded", job["error"])
        self.assertEqual([e["status"] for e in events if e["type"] == "status"], ["running", "succeeded"])
        self.assertEqual([e["seq"] for e in events], list(range(1, len(events) + 1)))
        m = metrics(events)
        self.assertEqual(len(m), 40)
        self.assertLess(m[-1]["loss/nll"], 0.7 * m[0]["loss/nll"])
        model, meta = policy.load_checkpoint(os.path.join(d, "artifacts", "policy.json"))
        self.assertEqual((model.input_dim, model.hidden, meta["kind"], meta["job"]), (helpers.F, helpers.H, "builtin-sft", job["id"]))
        with open(os.path.join(d, "artifacts", "metrics.jsonl")) as f:
            self.assertEqual(len(f.readlines()), 40)
        with open(os.path.join(d, "artifacts", "policy.onnx"), "rb") as f:
            self.assertIn(b"awb-builtin-policy-onnx", f.read())
        self.assertEqual({a["name"] for a in job["artifacts"]}, {"metrics.jsonl", "policy.json", "policy.onnx"})

    def test_grpo_kl_is_zero_while_the_policy_equals_its_init_reference(self) -> None:
        job, events, _ = run("builtin-grpo", {"epochs": 2, "minibatchSize": 10_000, "klBeta": 0.1}, helpers.builtin_bundle("builtin-grpo"))
        self.assertEqual(job["status"], "succeeded", job["error"])
        m = metrics(events)
        self.assertEqual(m[0]["loss/kl"], 0.0)  # one minibatch: the update happens after the loss is taken
        self.assertGreater(m[1]["loss/kl"], 0.0)
        self.assertTrue(all(np.isfinite(v) for row in m for v in row.values()))

    def test_grpo_uses_init_reference_json_when_the_bundle_has_one(self) -> None:
        import io
        import tarfile

        raw = helpers.builtin_bundle("builtin-grpo")
        members = {}
        with tarfile.open(fileobj=io.BytesIO(raw)) as t:
            for m in t.getmembers():
                members[m.name] = t.extractfile(m).read()
        members["init/reference.json"] = helpers.policy_json(seed=99)
        job, events, _ = run("builtin-grpo", {"epochs": 1, "minibatchSize": 10_000, "klBeta": 0.1}, helpers.make_tar(members))
        self.assertEqual(job["status"], "succeeded", job["error"])
        self.assertGreater(metrics(events)[0]["loss/kl"], 0.0)
        self.assertTrue(any("init/reference.json" in e.get("message", "") for e in events))

    def test_constant_aggregation_without_a_step_budget_fails_naming_it(self) -> None:
        job, _, _ = run("builtin-grpo", {"aggregation": "constant"}, helpers.builtin_bundle("builtin-grpo"))
        self.assertEqual((job["status"], job["error"]["code"]), ("failed", "bad_request"))
        self.assertIn("maxSteps", job["error"]["message"])
        job, events, _ = run("builtin-grpo", {"aggregation": "constant", "maxSteps": 10}, helpers.builtin_bundle("builtin-grpo"))
        self.assertEqual(job["status"], "succeeded", job["error"])

    def test_a_bad_feature_row_fails_the_job_with_line_and_counts(self) -> None:
        steps = helpers.policy_steps(1, 1)
        steps[0]["features"] = helpers.b64f32(np.zeros(5))
        bundle = helpers.make_tar({
            "manifest.json": json.dumps({"format": "awb-bundle", "version": 1, "kind": "builtin-sft", "createdAt": 0, "counts": {}}).encode(),
            "steps.jsonl": (json.dumps(steps[0]) + "\n").encode(), "init/policy.json": helpers.policy_json()})
        job, _, _ = run("builtin-sft", {}, bundle)
        self.assertEqual(job["status"], "failed")
        self.assertIn("steps.jsonl:1", job["error"]["message"])
        self.assertIn("5 values", job["error"]["message"])

    def test_a_cancel_marker_stops_the_job_at_the_first_step_boundary(self) -> None:
        from awb_trainer import jobdir
        from awb_trainer.run import run_job

        d = helpers.make_job_dir(helpers.scratch_dir(), "builtin-sft", {"epochs": 5}, helpers.builtin_bundle("builtin-sft"))
        open(os.path.join(d, "cancel"), "w").close()
        self.assertEqual(run_job(d, "file"), 0)
        job = jobdir.read_job(d)
        self.assertEqual((job["status"], job["artifacts"]), ("cancelled", []))
        self.assertEqual(metrics(jobdir.read_events(d)), [])


class RewardModelJobs(unittest.TestCase):
    def test_progrm_fits_soft_progress_labels_and_keeps_the_checkpoint_format(self) -> None:
        job, events, d = run("progrm", {"epochs": 60, "learningRate": 0.02}, helpers.mlp_bundle("progrm"))
        self.assertEqual(job["status"], "succeeded", job["error"])
        m = metrics(events)
        self.assertLess(m[-1]["err/mae"], 0.6 * m[0]["err/mae"])
        with open(os.path.join(d, "artifacts", "model.json")) as f:
            doc = json.load(f)
        self.assertEqual((doc["format"], doc["network"], doc["encoder"]["dim"]), ("awb-progrm", {"input": helpers.F, "hidden": 4}, 8))
        self.assertEqual((doc["params"]["count"], doc["meta"]["labels"], doc["meta"]["job"]), (4 * helpers.F + 9, "test", job["id"]))

    def test_prm_trains_a_logistic_judge_with_balanced_classes(self) -> None:
        from awb_trainer.jobs.prm import class_weights

        np.testing.assert_allclose(class_weights(np.array([1.0, 0.0, 0.0, 0.0]), True), [2.0, 2 / 3, 2 / 3, 2 / 3])
        np.testing.assert_allclose(class_weights(np.array([1.0, 0.0]), False), [1.0, 1.0])
        job, events, d = run("prm", {"epochs": 40, "learningRate": 0.05}, helpers.mlp_bundle("prm", hidden=0))
        self.assertEqual(job["status"], "succeeded", job["error"])
        self.assertGreaterEqual(metrics(events)[-1]["acc/train"], 0.9)
        with open(os.path.join(d, "artifacts", "model.json")) as f:
            doc = json.load(f)
        self.assertEqual((doc["format"], doc["network"]["hidden"], doc["params"]["count"]), ("awb-shepherd-judge", 0, helpers.F + 1))

    def test_a_progrm_init_in_the_judge_format_is_refused(self) -> None:
        raw = helpers.mlp_bundle("prm")
        manifest = json.dumps({"format": "awb-bundle", "version": 1, "kind": "progrm", "createdAt": 0, "counts": {}}).encode()
        import io
        import tarfile

        members = {}
        with tarfile.open(fileobj=io.BytesIO(raw)) as t:
            for m in t.getmembers():
                members[m.name] = t.extractfile(m).read()
        members["manifest.json"] = manifest
        job, _, _ = run("progrm", {}, helpers.make_tar(members))
        self.assertEqual(job["status"], "failed")
        self.assertIn("awb-progrm", job["error"]["message"])


if __name__ == "__main__":
    unittest.main()
