"""ray-submit against a REAL Ray head (tests/ray_head.py: loopback, free ports, its own temp dir, 1 CPU; one for the
file): a job directory (a failing one: test/jobs/ray-jobs.test.ts runs succeeding ones on the same head) runs as a Ray
job and publishes its result, and the CLI's refusal. FakeRay, a stand-in for the Jobs REST API, stays only for what a
real head cannot show on demand: the exact request sequence (a content-addressed package is not uploaded twice), a
multi-GPU torchrun entrypoint (this head has no GPU: such a job would stay PENDING) and the Authorization header (the
head runs without token auth)."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
import threading
import time
import unittest
import urllib.request
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests import helpers
from tests.ray_head import RayHead


class FakeRay(BaseHTTPRequestHandler):
    """Records requests; packages live in memory as Ray's GCS would keep them."""
    packages: dict[str, bytes] = {}
    jobs: list[dict] = []
    calls: list[tuple[str, str]] = []

    def log_message(self, *args) -> None:
        pass

    def _reply(self, status: int, body: bytes = b"") -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.calls.append(("GET", self.path))
        name = self.path.rsplit("/", 1)[-1]
        self._reply(200 if name in self.packages else 404)

    def do_PUT(self) -> None:
        self.calls.append(("PUT", self.path))
        self.packages[self.path.rsplit("/", 1)[-1]] = self.rfile.read(int(self.headers["Content-Length"]))
        self._reply(200)

    def do_POST(self) -> None:
        self.calls.append(("POST", self.path))
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/api/jobs/" or "entrypoint" not in body:
            return self._reply(400, b"bad request")
        self.jobs.append({**body, "authorization": self.headers.get("Authorization")})
        self._reply(200, json.dumps({"job_id": "raysubmit_1", "submission_id": body["submission_id"]}).encode())


class RaySubmit(unittest.TestCase):
    def setUp(self) -> None:
        FakeRay.packages, FakeRay.jobs, FakeRay.calls = {}, [], []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeRay)
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()  # shutdown() waits ≤ 0.02 s
        self.address = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.job = helpers.make_job_dir(helpers.scratch_dir(), "builtin-sft", {"epochs": 1}, helpers.builtin_bundle("builtin-sft"))

    def tearDown(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def test_submits_the_run_entrypoint_with_an_uploaded_working_dir_package(self) -> None:
        from awb_trainer.ray_submit import submit

        answer = submit(self.address, self.job, gpus=2, results="/shared/awb", headers={"Authorization": "Bearer ray"})
        self.assertEqual(answer["submission_id"], "awb-000001-test")
        self.assertEqual([c[0] for c in FakeRay.calls], ["GET", "PUT", "POST"])
        (job,) = FakeRay.jobs
        uri = job["runtime_env"]["working_dir"]
        name = uri.removeprefix("gcs://")
        self.assertTrue(uri.startswith("gcs://_ray_pkg_") and name in FakeRay.packages)
        argv = shlex.split(job["entrypoint"])
        self.assertEqual(argv[:3], ["python3", "-m", "awb_trainer.torchrun"])
        self.assertIn("--nproc_per_node", argv)
        self.assertEqual(argv[argv.index("--nproc_per_node") + 1], "2")
        self.assertEqual(argv[-8:], ["awb_trainer", "run", "--job", "job", "--events", "stdout", "--results", "/shared/awb"])
        self.assertEqual((job["entrypoint_num_gpus"], job["metadata"]["awb.kind"], job["authorization"]), (2, "builtin-sft", "Bearer ray"))
        with zipfile.ZipFile(io.BytesIO(FakeRay.packages[name])) as z:
            names = set(z.namelist())
        self.assertTrue({"awb_trainer/__main__.py", "awb_trainer/run.py", "awb_trainer/jobs/builtin_sft.py", "job/job.json", "job/dataset.tar"} <= names)
        # The same job again: the package is already there (content-addressed), so it is not uploaded twice.
        submit(self.address, self.job)
        self.assertEqual([c[0] for c in FakeRay.calls[3:]], ["GET", "POST"])
        self.assertEqual(shlex.split(FakeRay.jobs[1]["entrypoint"]), ["python3", "-m", "awb_trainer", "run", "--job", "job", "--events", "stdout"])



def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


class RaySubmitOnARealHead(unittest.TestCase):
    head: RayHead

    @classmethod
    def setUpClass(cls) -> None:
        # test/jobs/ray-jobs.test.ts runs this module on the head it already has (AWB_RAY_DASHBOARD): a second head
        # would cost the 2-core CI machine ~18 s of start-up for nothing. By hand, the module starts its own.
        attached = os.environ.get("AWB_RAY_DASHBOARD")
        cls.head = RayHead.attached(attached) if attached else RayHead(num_cpus=1).start()
        print(f"Ray head up in {cls.head.startup_s:.1f} s", file=sys.stderr)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.head.stop()

    def _wait(self, submission: str, timeout: float = 180.0) -> dict:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            job = _get(f"{self.head.dashboard}/api/jobs/{submission}")
            if job["status"] in ("SUCCEEDED", "FAILED", "STOPPED"):
                return job
            time.sleep(0.5)
        self.fail(f"Ray job {submission} still {job['status']} after {timeout} s")

    def test_a_failing_job_directory_runs_as_a_ray_job_publishes_its_result_and_the_cli_reports_refusals(self) -> None:
        # One Ray job, a failing one (its config is refused before torch is imported): the succeeding jobs run in
        # test/jobs/ray-jobs.test.ts on this same head, submitted with the same package bytes and entrypoint as here
        # (its package test and FakeRay's request test above), their published artifacts downloaded sha256-verified.
        from awb_trainer.ray_submit import RaySubmitError, build_package, package_name, submit

        results = helpers.scratch_dir()
        job = helpers.make_job_dir(helpers.scratch_dir(), "builtin-sft", {"epochs": 0}, helpers.builtin_bundle("builtin-sft", episodes=1),
                                   job_id="000002-bad")
        ok = subprocess.run([sys.executable, "-m", "awb_trainer", "ray-submit", "--address", self.head.dashboard, "--job", job, "--gpus", "0",
                             "--results", results], cwd=helpers.ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("submitted Ray job awb-000002-bad", ok.stdout)
        ray_job = self._wait("awb-000002-bad")
        logs = _get(f"{self.head.dashboard}/api/jobs/awb-000002-bad/logs")["logs"]
        self.assertEqual(ray_job["status"], "FAILED", logs[-2000:])
        self.assertEqual(ray_job["runtime_env"]["working_dir"], f"gcs://{package_name(build_package(job))}")
        events = [json.loads(line[len("@awb-event "):]) for line in logs.splitlines() if line.startswith("@awb-event ")]
        self.assertEqual((events[-1]["type"], events[-1]["status"], events[-1]["error"]["code"]), ("result", "failed", "bad_request"))
        published = os.path.join(results, "000002-bad")
        with open(os.path.join(published, "job.json"), encoding="utf-8") as f:
            record = json.load(f)
        self.assertEqual((record["status"], record["error"], record["artifacts"]), ("failed", events[-1]["error"], []))
        self.assertIn("config.epochs", record["error"]["message"])
        self.assertFalse(os.path.exists(published + ".partial") or os.path.exists(os.path.join(published, "dataset.tar")))
        # The same job again: the package is there, and Ray refuses a second job under the same submission id (with a
        # 500 that says so: the workbench checks whether the job exists rather than trusting the status).
        with self.assertRaises(RaySubmitError) as refused:
            submit(self.head.dashboard, job, gpus=0, results=results)
        self.assertIn("Job with submission_id awb-000002-bad already exists", str(refused.exception))
        bad = subprocess.run([sys.executable, "-m", "awb_trainer", "ray-submit", "--address", self.head.dashboard + "/nope", "--job", job],
                             cwd=helpers.ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("Ray Jobs API", bad.stderr)


if __name__ == "__main__":
    unittest.main()
