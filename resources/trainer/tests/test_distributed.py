"""torch.distributed: `run --job DIR` under torchrun with 2 CPU processes (gloo) trains exactly what one process
trains — each rank takes its share of every minibatch and DDP averages the gradients."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

from tests import helpers


def _torchrun_missing() -> "str | None":
    try:
        import torch.distributed as dist
        import torch.distributed.run  # noqa: F401  (torchrun's module)
    except ImportError as e:
        return f"torch.distributed.run does not import ({e})"
    if not dist.is_available() or not dist.is_gloo_available():
        return "torch.distributed with gloo is not available in this torch build"
    return None


MISSING = _torchrun_missing()
if MISSING:
    print(f"skipping torchrun tests: {MISSING}", file=sys.stderr)


@unittest.skipIf(MISSING is not None, MISSING or "")
class Torchrun(unittest.TestCase):
    def _tmp(self) -> str:
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        return d.name

    def _params(self, d: str) -> np.ndarray:
        from awb_trainer import policy

        model, _ = policy.load_checkpoint(os.path.join(d, "artifacts", "policy.json"))
        return model.flat_params().numpy()

    def test_two_gloo_ranks_train_the_same_policy_as_one_process(self) -> None:
        from awb_trainer import jobdir
        from awb_trainer.run import run_job
        from awb_trainer.runner import job_command, job_env

        # 7 episodes in minibatches of 2: the last minibatch leaves rank 1 without an episode
        config = {"epochs": 2, "minibatchSize": 8, "klBeta": 0.1, "aggregation": "episode-mean", "learningRate": 0.01}
        bundle = helpers.builtin_bundle("builtin-grpo", episodes=7)
        one = helpers.make_job_dir(self._tmp(), "builtin-grpo", config, bundle)
        run_job(one, "file")
        self.assertEqual(jobdir.read_job(one)["status"], "succeeded")
        env = {**job_env(), "OMP_NUM_THREADS": "1", "TMPDIR": self._tmp()}  # torchrun's torchelastic_* logs go there, not /tmp
        two = helpers.make_job_dir(self._tmp(), "builtin-grpo", config, bundle)
        cmd = [c if c != "stdout" else "file" for c in job_command(two, 2)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
        job = jobdir.read_job(two)
        self.assertEqual(job["status"], "succeeded", f"{job['error']}\n{proc.stderr[-8000:]}")  # 8000: a rank's own abort message comes before torchrun's summary
        self.assertTrue(any("world size 2" in e.get("message", "") for e in jobdir.read_events(two)))
        np.testing.assert_allclose(self._params(two), self._params(one), rtol=0, atol=1e-6)
        m1 = [e["metrics"]["loss/total"] for e in jobdir.read_events(one) if e["type"] == "metric"]
        m2 = [e["metrics"]["loss/total"] for e in jobdir.read_events(two) if e["type"] == "metric"]
        np.testing.assert_allclose(m2, m1, rtol=1e-9, atol=1e-12)


class GpuCount(unittest.TestCase):
    def test_more_ranks_than_cuda_devices_is_a_named_error_before_any_device_is_used(self) -> None:
        from unittest import mock

        import torch

        from awb_trainer.jobs.torch_util import Distributed, GpuCountError

        env = {"WORLD_SIZE": "2", "RANK": "1", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2"}
        with mock.patch.dict(os.environ, env), mock.patch.object(torch.cuda, "is_available", return_value=True), \
                mock.patch.object(torch.cuda, "device_count", return_value=1), mock.patch.object(torch.cuda, "set_device") as set_device:
            with self.assertRaises(GpuCountError) as e:
                Distributed()
        set_device.assert_not_called()
        self.assertEqual((e.exception.local_world_size, e.exception.devices), (2, 1))
        self.assertIn("--gpus 2: this machine has 1 CUDA device", str(e.exception))


if __name__ == "__main__":
    unittest.main()
