"""Ray jobs: the same `run --job DIR` entrypoint as a Ray job, through the Ray Jobs REST API (no scheduler of our own).
The workbench (core/remote-jobs/ray.ts) and `python3 -m awb_trainer ray-submit` follow the same rules:

- Package: one zip, the job's runtime_env.working_dir, entries sorted with fixed times:
    awb_trainer/**        this package (no __pycache__, no .pyc)
    job/job.json          the job record (id, kind, name, config, ...; as the service's JobStore writes it)
    job/dataset.tar       the dataset bundle
  uploaded content-addressed as `gcs://_ray_pkg_<first 32 hex of its sha256>.zip`: `GET /api/packages/gcs/<name>`
  (200: Ray has it) else `PUT` the bytes, as Ray's JobSubmissionClient does.
- Submission: `POST /api/jobs/` with submission_id `awb-<job id>`, entrypoint
  `python3 -m awb_trainer run --job job --events stdout --results RESULTS`, metadata awb.job / awb.kind / awb.name.
  Events are `@awb-event {json}` lines in the job's Ray log (`GET /api/jobs/<id>/logs`).
- Results: Ray has no artifact download, so the finished job is published to RESULTS/<job id>/ (shared storage the
  workbench mounts at the same path): job.json with the final status, error and artifacts [{name, size, sha256}],
  and artifacts/. Written to RESULTS/<job id>.partial and renamed, so a reader sees all of it or nothing.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shlex
import shutil
import urllib.error
import urllib.request
import zipfile
from typing import Optional

from . import jobdir

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class RaySubmitError(Exception):
    def __init__(self, url: str, status: Optional[int], detail: str):
        super().__init__(f"Ray Jobs API {url}: {status or 'no response'} {detail}")
        self.url = url
        self.status = status


def _ray_text(body: bytes) -> str:
    """Ray's error text: its tracebacks end with the exception, so the last lines (as core/remote-jobs/ray.ts keeps)."""
    return " | ".join(body.decode("utf-8", "replace").strip().splitlines()[-3:])[:500]


def build_package(job_dir: str) -> bytes:
    """A zip with awb_trainer/ and job/ (job.json, dataset.tar); entries sorted, stored, with fixed times and modes, so the
    same inputs give the same bytes and the same package URI (Ray reuses an uploaded package), here and in the workbench
    (core/remote-jobs/ray-package.ts writes the same bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        files: list[tuple[str, str]] = []
        for base, dirs, names in os.walk(PACKAGE_DIR):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [(os.path.join(base, n), os.path.join("awb_trainer", os.path.relpath(os.path.join(base, n), PACKAGE_DIR))) for n in names if not n.endswith(".pyc")]
        for name in (jobdir.JOB_FILE, jobdir.DATASET_FILE):
            files.append((os.path.join(job_dir, name), f"job/{name}"))
        for src, arc in sorted(files, key=lambda f: f[1]):
            info = zipfile.ZipInfo(arc.replace(os.sep, "/"), date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED  # the bundle is mostly PNG and float32: deflate buys little
            info.create_system, info.external_attr = 3, 0o100644 << 16  # unix, rw-r--r--: as core/remote-jobs/zip.ts
            with open(src, "rb") as f:
                z.writestr(info, f.read())
    return buf.getvalue()


SUBMISSION_PREFIX = "awb-"


def submission_id(job_id: str) -> str:
    return SUBMISSION_PREFIX + job_id


def package_name(package: bytes) -> str:
    return f"_ray_pkg_{hashlib.sha256(package).hexdigest()[:32]}.zip"


def entrypoint(gpus: int, results: Optional[str]) -> str:
    run = ["-m", "awb_trainer", "run", "--job", "job", "--events", "stdout"] + (["--results", results] if results else [])
    if gpus > 1:
        return shlex.join(["python3", "-m", "awb_trainer.torchrun", "--standalone", "--nnodes", "1", "--nproc_per_node", str(gpus), *run])
    return shlex.join(["python3", *run])


def publish_results(job_dir: str, results: str, status: str, error: Optional[dict]) -> str:
    """Copies the finished job (record + artifacts; not the dataset or scratch) to RESULTS/<job id>, atomically."""
    record = jobdir.read_job(job_dir)
    dest = os.path.join(results, record["id"])
    tmp = dest + ".partial"
    os.makedirs(results, exist_ok=True)
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(job_dir, tmp, ignore=shutil.ignore_patterns(jobdir.DATASET_FILE, "work", jobdir.CANCEL_FILE))
    record.update(status=status, error=error, finishedAt=jobdir.now_ms(),
                  artifacts=jobdir.scan_artifacts(tmp) if jobdir.keeps_artifacts(status, error) else [])
    jobdir.write_job(tmp, record)
    shutil.rmtree(dest, ignore_errors=True)  # a job run again under the same id replaces its results
    os.rename(tmp, dest)
    return dest


def _request(method: str, url: str, body: Optional[bytes], headers: dict[str, str], timeout: float) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        raise RaySubmitError(url, None, str(e)) from e


def submit(address: str, job_dir: str, gpus: int = 1, results: Optional[str] = None, headers: Optional[dict[str, str]] = None,
           timeout: float = 60.0) -> dict:
    """Uploads the package if needed and submits; returns Ray's answer ({"job_id", "submission_id"})."""
    base = address.rstrip("/")
    hdrs = dict(headers or {})
    record = jobdir.read_job(job_dir)
    package = build_package(job_dir)
    name = package_name(package)
    pkg_url = f"{base}/api/packages/gcs/{name}"
    status, body = _request("GET", pkg_url, None, hdrs, timeout)
    if status == 404:
        status, body = _request("PUT", pkg_url, package, {**hdrs, "Content-Type": "application/octet-stream"}, timeout)
        if status != 200:
            raise RaySubmitError(pkg_url, status, _ray_text(body))
    elif status != 200:
        raise RaySubmitError(pkg_url, status, _ray_text(body))
    payload = {
        "entrypoint": entrypoint(gpus, results),
        "submission_id": submission_id(record["id"]),
        "runtime_env": {"working_dir": f"gcs://{name}", "env_vars": {"PYTHONUNBUFFERED": "1"}},
        "metadata": {"awb.job": record["id"], "awb.kind": record["kind"], "awb.name": record.get("name") or record["kind"]},
    }
    if gpus > 0:
        payload["entrypoint_num_gpus"] = gpus
    jobs_url = f"{base}/api/jobs/"
    status, body = _request("POST", jobs_url, json.dumps(payload).encode("utf-8"), {**hdrs, "Content-Type": "application/json"}, timeout)
    if status != 200:
        raise RaySubmitError(jobs_url, status, _ray_text(body))
    return json.loads(body)
