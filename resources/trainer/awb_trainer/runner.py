"""The service's queue: one job at a time, in order of submission, each in its own process
(`python3 -m awb_trainer run --job DIR --events stdout`, or under torchrun when --gpus > 1).

The job process prints its events as lines `@awb-event {json}` on stdout; this thread numbers them through the
store. Other output lines become log events (stderr at level warning), so a traceback is never lost. A job
that exits without a result event is failed with its exit code and the last stderr lines.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from typing import Optional

from . import jobdir
from .store import JobStore

EVENT_PREFIX = "@awb-event "
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def job_command(job_dir: str, gpus: int) -> list[str]:
    run = ["-m", "awb_trainer", "run", "--job", job_dir, "--events", "stdout"]
    if gpus > 1:
        return [sys.executable, "-m", "awb_trainer.torchrun", "--standalone", "--nnodes", "1", "--nproc_per_node", str(gpus), *run]
    return [sys.executable, *run]


def job_env(extra: Optional[dict[str, str]] = None) -> dict[str, str]:
    env = {**os.environ, **(extra or {})}
    env["PYTHONPATH"] = PACKAGE_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Runner:
    def __init__(self, store: JobStore, cancel_grace_s: float = 60.0, env: Optional[dict[str, str]] = None):
        """`env`: added to each job's environment (the publish keys it may send)."""
        self.store = store
        self.env = dict(env or {})
        self.cancel_grace_s = cancel_grace_s
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._proc: Optional[subprocess.Popen] = None
        self._thread = threading.Thread(target=self._loop, name="awb-runner", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        """Stops the queue; a running job's process group is killed (the job stays `running` on disk, so the next
        start of the service marks it failed/interrupted, as the protocol says)."""
        self._stop.set()
        self._wake.set()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            _kill_group(proc)
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.is_set():
            rec = self.store.next_queued()
            if rec is None:
                self._wake.wait(1.0)
                self._wake.clear()
                continue
            try:
                self._run(rec)
            except Exception as e:  # the queue must survive one job's launch failure; the job records why
                self.store.finish(rec["id"], "failed", {"code": "internal", "message": f"{type(e).__name__}: {e}"})

    def _run(self, rec: dict) -> None:
        job_id = rec["id"]
        d = self.store.dir(job_id)
        self.store.start(job_id)
        proc = subprocess.Popen(
            job_command(d, rec["gpus"]), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=job_env(self.env),
            start_new_session=True, text=True, encoding="utf-8", errors="replace",
        )
        self._proc = proc
        result: dict = {}
        tail: deque[str] = deque(maxlen=20)
        readers = [
            threading.Thread(target=self._read_stdout, args=(job_id, proc, result), daemon=True),
            threading.Thread(target=self._read_stderr, args=(job_id, proc, tail), daemon=True),
        ]
        for t in readers:
            t.start()
        try:
            self._supervise(job_id, d, proc, result)
        finally:
            try:
                proc.wait(timeout=10)  # already ended, or killed by stop()
            except subprocess.TimeoutExpired:
                _kill_group(proc)
            for t in readers:
                t.join(timeout=10)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
            self._proc = None
        if self._stop.is_set():
            return
        if "status" in result:
            self.store.finish(job_id, result["status"], result.get("error"))
        else:
            detail = " | ".join(tail) or "no output"
            self.store.finish(job_id, "failed", {"code": "internal", "message": f"job process exited with code {proc.returncode}: {detail}"})

    def _supervise(self, job_id: str, d: str, proc: subprocess.Popen, result: dict) -> None:
        """Waits for the process; after a cancel that the job has not honoured within the grace period, kills it."""
        cancel_seen: Optional[float] = None
        while proc.poll() is None:
            if self._stop.is_set():
                return
            if cancel_seen is None and jobdir.cancel_requested(d):
                cancel_seen = time.monotonic()
            if cancel_seen is not None and time.monotonic() - cancel_seen > self.cancel_grace_s:
                # The job did not reach a step boundary in time (a stuck data loader, a long step): stop it anyway.
                _kill_group(proc)
                proc.wait()
                result.setdefault("status", "cancelled")
            try:
                proc.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                pass

    def _read_stdout(self, job_id: str, proc: subprocess.Popen, result: dict) -> None:
        assert proc.stdout is not None  # Popen was given stdout=PIPE
        for line in proc.stdout:
            line = line.rstrip("\n")
            if not line.startswith(EVENT_PREFIX):
                if line.strip():
                    self.store.event(job_id, {"type": "log", "level": "info", "message": line})
                continue
            try:
                ev = json.loads(line[len(EVENT_PREFIX):])
            except json.JSONDecodeError:
                self.store.event(job_id, {"type": "log", "level": "warning", "message": line})
                continue
            if ev.get("type") == "result":
                result["status"] = ev["status"]
                result["error"] = ev.get("error")
            elif ev.get("type") in ("log", "metric"):
                self.store.event(job_id, ev)

    def _read_stderr(self, job_id: str, proc: subprocess.Popen, tail: deque) -> None:
        assert proc.stderr is not None  # Popen was given stderr=PIPE
        for line in proc.stderr:
            line = line.rstrip("\n")
            if line.strip():
                tail.append(line)
                self.store.event(job_id, {"type": "log", "level": "warning", "message": line})


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # already gone: nothing to stop
