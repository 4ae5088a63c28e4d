"""GRPO maths against core/rl/grpo.ts: the fixture (written by test/trainer/grpo-fixture.ts, path in
AWB_TS_FIXTURE) holds a TS checkpoint, policy steps, and for three loss settings batchLoss's loss and dLogp plus
the network gradient TS accumulates from them. One update here must give the same numbers."""

from __future__ import annotations

import json
import os
import shutil
import unittest

import numpy as np
import torch

from tests import helpers

FIXTURE = os.environ.get("AWB_TS_FIXTURE")
SKIP = "AWB_TS_FIXTURE not set: run through test/trainer/python.test.ts, which exports the fixture from TypeScript"


@unittest.skipIf(FIXTURE is None, SKIP)
class GrpoParity(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        with open(FIXTURE) as f:
            cls.fx = json.load(f)
        cls.dir = os.path.dirname(FIXTURE)

    def _steps(self):
        from awb_trainer.bundle import PolicyStep, decode_floats

        return [PolicyStep(episode=s["episode"], step=s["step"], n=s["n"], features=decode_floats(s["features"], "fixture"), chosen=s["chosen"],
                           log_prob=s["logProb"], temperature=s["temperature"], advantage=s["advantage"], log_prob_ref=s["logProbRef"])
                for s in self.fx["steps"]]

    def test_one_update_matches_the_typescript_loss_and_gradient(self) -> None:
        from awb_trainer import policy
        from awb_trainer.jobs.builtin_common import DTYPE, StepData, log_probs
        from awb_trainer.jobs.grpo_loss import LossOptions, batch_loss

        steps = self._steps()
        data = StepData.build(steps, torch.device("cpu"))
        lengths: list[int] = []
        for s in steps:
            if s.step == 0:
                lengths.append(0)
            lengths[-1] += 1
        for case in self.fx["cases"]:
            with self.subTest(case=case["name"]):
                model, _ = policy.load_checkpoint(os.path.join(self.dir, "policy.json"))
                model = model.to(DTYPE)
                logp, _ = log_probs(model, data, list(range(len(steps))))
                np.testing.assert_allclose(logp.detach().numpy(), [s["logpNewTs"] for s in self.fx["steps"]], rtol=0, atol=1e-9)
                logp.retain_grad()
                o = case["options"]
                opts = LossOptions(clip_eps=o["clipEps"], clip_eps_high=o["clipEpsHigh"], kl_beta=o["klBeta"], max_log_ratio=o["maxLogRatio"],
                                   aggregation=o["aggregation"], max_steps=o["maxSteps"])
                loss, stats = batch_loss(logp, data.log_prob_old, torch.tensor([s.log_prob_ref for s in steps], dtype=DTYPE),
                                         torch.tensor([s.advantage for s in steps], dtype=DTYPE), lengths, opts)
                loss.backward()
                self.assertAlmostEqual(float(loss.detach()), case["loss"], delta=1e-9)
                self.assertAlmostEqual(stats.clipped / stats.steps, case["clipFraction"], delta=1e-12)
                np.testing.assert_allclose(logp.grad.numpy(), [d for e in case["dLogp"] for d in e], rtol=0, atol=1e-12)
                grads = torch.cat([model.W1.grad.reshape(-1), model.b1.grad, model.w2.grad, model.wl.grad]).numpy()
                # TS accumulates in a Float32Array: compare at float32 precision
                np.testing.assert_allclose(grads, np.asarray(case["grads"]), rtol=2e-5, atol=1e-6)
        self.assertGreater(max(c["clipFraction"] for c in self.fx["cases"]), 0)  # the fixture exercises the clip

    def test_a_builtin_grpo_job_trains_from_the_typescript_checkpoint(self) -> None:
        from awb_trainer import jobdir
        from awb_trainer.run import run_job

        rows = [{k: v for k, v in s.items() if k != "logpNewTs"} for s in self.fx["steps"]]
        with open(os.path.join(self.dir, "policy.json"), "rb") as f:
            init = f.read()
        bundle = helpers.make_tar({
            "manifest.json": json.dumps({"format": "awb-bundle", "version": 1, "kind": "builtin-grpo", "createdAt": 0, "counts": {}}).encode(),
            "steps.jsonl": "".join(json.dumps(r) + "\n" for r in rows).encode(), "init/policy.json": init})
        d = helpers.make_job_dir(helpers.scratch_dir(), "builtin-grpo", {"epochs": 2, "minibatchSize": 4, "klBeta": 0.1, "learningRate": 0.01}, bundle)
        run_job(d, "file")
        job = jobdir.read_job(d)
        self.assertEqual(job["status"], "succeeded", job["error"])
        out = os.environ.get("AWB_TS_OUT")
        if out:  # test/trainer/python.test.ts loads it with core/policy/checkpoint.ts
            os.makedirs(out, exist_ok=True)
            shutil.copy(os.path.join(d, "artifacts", "policy.json"), os.path.join(out, "policy.json"))


if __name__ == "__main__":
    unittest.main()
