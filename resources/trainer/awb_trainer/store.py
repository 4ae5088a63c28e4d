"""The service's job state under --workdir/jobs/<id>/ (see jobdir.py for one directory's files).

The service process is the only writer of job.json and events.jsonl while it runs a job: the job's process
sends its events over a pipe (runner.py) and the store numbers and appends them. A restart reloads every job;
a job left `running` by a dead service is marked `failed` with code `interrupted`; queued jobs stay queued.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import threading
from typing import Any, Optional

from . import jobdir
from .errors import ApiError


def request_hash(body: dict) -> str:
    """Identity of a submission apart from its idempotency key: a retry must send the same kind/dataset/config/name."""
    canon = {k: body.get(k) for k in ("kind", "dataset", "config", "name")}
    return hashlib.sha256(json.dumps(canon, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class JobStore:
    def __init__(self, workdir: str):
        self.root = os.path.join(workdir, "jobs")
        os.makedirs(self.root, exist_ok=True)
        self._lock = threading.RLock()
        self.changed = threading.Condition(self._lock)
        self._jobs: dict[str, dict] = {}
        self._by_key: dict[str, str] = {}
        self._order = 0
        self._load()

    # -- loading ---------------------------------------------------------------------------------------------

    def _load(self) -> None:
        for entry in sorted(os.listdir(self.root)):
            d = os.path.join(self.root, entry)
            if not os.path.isfile(os.path.join(d, jobdir.JOB_FILE)):
                continue
            rec = jobdir.read_job(d)
            rec["lastSeq"] = jobdir.last_seq(d)
            self._jobs[rec["id"]] = rec
            self._by_key[rec["idempotencyKey"]] = rec["id"]
            self._order = max(self._order, rec["order"])
        for rec in self._jobs.values():
            if rec["status"] == "running":
                # Its dataset is still here: the client submits it again as a new job (awb jobs submit --retry JOB).
                self.finish(rec["id"], "failed", {"code": "interrupted", "message": "the trainer service stopped while the job was running; "
                                                  "submit it again (awb jobs submit --retry JOB): its dataset is kept"})

    # -- queries ---------------------------------------------------------------------------------------------

    def dir(self, job_id: str) -> str:
        return os.path.join(self.root, job_id)

    def get(self, job_id: str) -> dict:
        with self._lock:
            rec = self._jobs.get(job_id)
            if rec is None:
                raise ApiError("not_found", f"no job {job_id!r}")
            return dict(rec)

    def list(self) -> list[dict]:
        with self._lock:
            return [dict(r) for r in sorted(self._jobs.values(), key=lambda r: r["order"], reverse=True)]

    def next_queued(self) -> Optional[dict]:
        with self._lock:
            queued = [r for r in self._jobs.values() if r["status"] == "queued"]
            return dict(min(queued, key=lambda r: r["order"])) if queued else None

    # -- writes ----------------------------------------------------------------------------------------------

    def create(self, body: dict, config: dict, dataset_file: str, gpus: int) -> tuple[dict, bool]:
        """(job, created). A known idempotency key returns its job (created False) or raises conflict on a different body."""
        key = body["idempotencyKey"]
        digest = request_hash(body)
        with self._lock:
            existing = self._by_key.get(key)
            if existing is not None:
                rec = self._jobs[existing]
                if rec["requestHash"] != digest:
                    raise ApiError("conflict", f"idempotency key {key!r} was used for a different submission (job {existing})", field="idempotencyKey")
                return dict(rec), False
            self._order += 1
            job_id = f"{self._order:06d}-{secrets.token_hex(4)}"
            d = self.dir(job_id)
            os.makedirs(os.path.join(d, jobdir.ARTIFACTS_DIR))
            _link_or_copy(dataset_file, os.path.join(d, jobdir.DATASET_FILE))
            rec: dict[str, Any] = {
                "id": job_id, "kind": body["kind"], "name": body.get("name") or f"{body['kind']} {job_id}", "status": "queued",
                "createdAt": jobdir.now_ms(), "startedAt": None, "finishedAt": None, "error": None, "artifacts": [], "lastSeq": 0,
                "order": self._order, "idempotencyKey": key, "requestHash": digest, "dataset": body["dataset"],
                "config": config, "gpus": gpus,
            }
            self._jobs[job_id] = rec
            self._by_key[key] = job_id
            self._append(job_id, jobdir.status_event("queued"))
            jobdir.write_job(d, rec)
            return dict(rec), True

    def _append(self, job_id: str, event: dict) -> dict:
        rec = self._jobs[job_id]
        ev = {"seq": rec["lastSeq"] + 1, "time": jobdir.now_ms(), **event}
        jobdir.append_event(self.dir(job_id), ev)
        rec["lastSeq"] = ev["seq"]
        self.changed.notify_all()
        return ev

    def event(self, job_id: str, event: dict) -> dict:
        """Appends a log or metric event from the running job (seq and time assigned here)."""
        with self._lock:
            return self._append(job_id, event)

    def start(self, job_id: str) -> dict:
        with self._lock:
            rec = self._jobs[job_id]
            rec["status"] = "running"
            rec["startedAt"] = jobdir.now_ms()
            self._append(job_id, jobdir.status_event("running"))
            jobdir.write_job(self.dir(job_id), rec)
            return dict(rec)

    def finish(self, job_id: str, status: str, error: Optional[dict] = None) -> dict:
        """Final status: artifacts scanned, job.json written, the final status event appended last (it ends streams)."""
        with self._lock:
            rec = self._jobs[job_id]
            if rec["status"] in jobdir.FINAL_STATUSES:
                return dict(rec)
            rec["status"] = status
            rec["error"] = error
            rec["finishedAt"] = jobdir.now_ms()
            rec["artifacts"] = jobdir.scan_artifacts(self.dir(job_id)) if jobdir.keeps_artifacts(status, error) else []
            self._append(job_id, jobdir.status_event(status, error))
            jobdir.write_job(self.dir(job_id), rec)
            return dict(rec)

    def cancel(self, job_id: str) -> dict:
        """queued → cancelled now; running → a marker the job checks at its next step boundary; finished → unchanged."""
        with self._lock:
            rec = self.get(job_id)
            if rec["status"] == "queued":
                return self.finish(job_id, "cancelled")
            if rec["status"] == "running":
                open(os.path.join(self.dir(job_id), jobdir.CANCEL_FILE), "w").close()
            return dict(self._jobs[job_id])

    def wait_for_change(self, timeout: float) -> None:
        with self.changed:
            self.changed.wait(timeout)


def _link_or_copy(src: str, dst: str) -> None:
    # A hard link costs nothing when the uploads and jobs share a file system; elsewhere the bundle is copied.
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)
