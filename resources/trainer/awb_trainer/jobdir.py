"""One job's directory, the unit a trainer runs: job.json (the record), events.jsonl (seq-numbered events),
dataset.tar (the bundle, linked from the uploads), artifacts/ and a `cancel` marker. The service's JobStore and a
standalone `run --job DIR` both go through these functions, so a directory run by torchrun or Ray looks the same as
one run by the service."""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any, Optional

from .atomic import write_atomic

JOB_FILE = "job.json"
EVENTS_FILE = "events.jsonl"
DATASET_FILE = "dataset.tar"
ARTIFACTS_DIR = "artifacts"
CANCEL_FILE = "cancel"

FINAL_STATUSES = ("succeeded", "failed", "cancelled")
PUBLIC_FIELDS = ("id", "kind", "name", "status", "createdAt", "startedAt", "finishedAt", "error", "artifacts", "lastSeq")


def now_ms() -> int:
    return int(time.time() * 1000)


def public_job(record: dict) -> dict:
    """The protocol's Job: the record without internal fields (idempotency key, config, dataset, order)."""
    return {k: record[k] for k in PUBLIC_FIELDS}


def read_job(job_dir: str) -> dict:
    with open(os.path.join(job_dir, JOB_FILE), "r", encoding="utf-8") as f:
        return json.load(f)


def write_job(job_dir: str, record: dict) -> None:
    write_atomic(os.path.join(job_dir, JOB_FILE), json.dumps(record, indent=1, sort_keys=True))


def read_events(job_dir: str, after: int = 0) -> list[dict]:
    """Complete event lines with seq > after (a line still being written, without its newline, is left for later)."""
    out: list[dict] = []
    path = os.path.join(job_dir, EVENTS_FILE)
    if not os.path.exists(path):
        return out
    with open(path, "rb") as f:
        for line in f:
            if not line.endswith(b"\n"):
                break
            ev = json.loads(line)
            if ev["seq"] > after:
                out.append(ev)
    return out


def read_events_at(job_dir: str, offset: int) -> tuple[list[dict], int]:
    """Complete event lines from byte `offset` on, and the offset after the last complete line (for followers)."""
    path = os.path.join(job_dir, EVENTS_FILE)
    if not os.path.exists(path):
        return [], offset
    out: list[dict] = []
    with open(path, "rb") as f:
        f.seek(offset)
        for line in f:
            if not line.endswith(b"\n"):
                break
            out.append(json.loads(line))
            offset += len(line)
    return out, offset


def last_seq(job_dir: str) -> int:
    events = read_events(job_dir)
    return events[-1]["seq"] if events else 0


def append_event(job_dir: str, event: dict) -> None:
    """Appends one line and flushes it to the OS, so a follower (or a restarted service) sees whole lines only."""
    with open(os.path.join(job_dir, EVENTS_FILE), "ab") as f:
        f.write(json.dumps(event, separators=(",", ":")).encode("utf-8") + b"\n")
        f.flush()


def scan_artifacts(job_dir: str) -> list[dict]:
    """[{name, size, sha256}] for every file under artifacts/, names relative with '/' (adapter/adapter_config.json)."""
    root = os.path.join(job_dir, ARTIFACTS_DIR)
    out = []
    for base, _dirs, files in os.walk(root):
        for fn in files:
            if fn.endswith(".tmp"):
                continue
            full = os.path.join(base, fn)
            h = hashlib.sha256()
            with open(full, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            out.append({"name": os.path.relpath(full, root).replace(os.sep, "/"), "size": os.path.getsize(full), "sha256": h.hexdigest()})
    return sorted(out, key=lambda a: a["name"])


def keeps_artifacts(status: str, error: Optional[dict] = None) -> bool:
    """A succeeded job lists its artifacts; so does one whose only failure was publishing its finished adapter (the
    adapter is complete and can be published again by hand). Other failed or cancelled jobs list none."""
    return status == "succeeded" or (status == "failed" and (error or {}).get("code") == "publish_failed")


def cancel_requested(job_dir: str) -> bool:
    return os.path.exists(os.path.join(job_dir, CANCEL_FILE))


def artifact_path(job_dir: str, name: str) -> Optional[str]:
    """The file of artifact `name`, or None when it does not exist or climbs out of artifacts/."""
    root = os.path.realpath(os.path.join(job_dir, ARTIFACTS_DIR))
    full = os.path.realpath(os.path.join(root, name))
    if not full.startswith(root + os.sep) or not os.path.isfile(full):
        return None
    return full


def status_event(status: str, error: Optional[dict[str, Any]] = None) -> dict:
    ev: dict = {"type": "status", "status": status}
    if error is not None:
        ev["error"] = error
    return ev
