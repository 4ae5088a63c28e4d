"""ray-submit against a small local stand-in for the Ray dashboard's Jobs REST API (packages + /api/jobs/)."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
import threading
import unittest
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests import helpers


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
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
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
        self.assertEqual(argv[-6:], ["awb_trainer", "run", "--job", "job", "--results", "/shared/awb"])
        self.assertEqual((job["entrypoint_num_gpus"], job["metadata"]["awb.kind"], job["authorization"]), (2, "builtin-sft", "Bearer ray"))
        with zipfile.ZipFile(io.BytesIO(FakeRay.packages[name])) as z:
            names = set(z.namelist())
        self.assertTrue({"awb_trainer/__main__.py", "awb_trainer/run.py", "awb_trainer/jobs/builtin_sft.py", "job/job.json", "job/dataset.tar"} <= names)
        # The same job again: the package is already there (content-addressed), so it is not uploaded twice.
        submit(self.address, self.job)
        self.assertEqual([c[0] for c in FakeRay.calls[3:]], ["GET", "POST"])
        self.assertEqual(shlex.split(FakeRay.jobs[1]["entrypoint"]), ["python3", "-m", "awb_trainer", "run", "--job", "job"])

    def test_the_cli_reports_ray_refusals_with_exit_code_1(self) -> None:
        env = helpers.ROOT
        ok = subprocess.run([sys.executable, "-m", "awb_trainer", "ray-submit", "--address", self.address, "--job", self.job],
                            cwd=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("submitted Ray job awb-000001-test", ok.stdout)
        bad = subprocess.run([sys.executable, "-m", "awb_trainer", "ray-submit", "--address", self.address + "/nope", "--job", self.job],
                             cwd=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 1)
        self.assertIn("Ray Jobs API", bad.stderr)


if __name__ == "__main__":
    unittest.main()
