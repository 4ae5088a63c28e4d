"""What a job's training code sees: its directory, config, bundle, where events go, cancel checks at step
boundaries, and the torch.distributed rank (rank 0 alone emits events and writes artifacts)."""

from __future__ import annotations

import json
import os
import sys
from typing import Callable, Literal, Optional

from .. import jobdir
from ..errors import JobCancelled

EventsMode = Literal["stdout", "file"]
EVENT_PREFIX = "@awb-event "


class JobContext:
    def __init__(self, job_dir: str, record: dict, events: EventsMode, rank: int = 0, world_size: int = 1,
                 cancel_flag: Optional[Callable[[bool], bool]] = None):
        self.dir = job_dir
        self.record = record
        self.kind: str = record["kind"]
        self.config: dict = record["config"]
        self.events = events
        self.rank = rank
        self.world_size = world_size
        # Under DDP every rank must stop at the same step: rank 0 reads the marker and the flag is broadcast.
        self._cancel_flag = cancel_flag
        self.artifacts = os.path.join(job_dir, jobdir.ARTIFACTS_DIR)
        self.work = os.path.join(job_dir, "work")
        os.makedirs(self.work, exist_ok=True)
        os.makedirs(self.artifacts, exist_ok=True)
        self._seq = jobdir.last_seq(job_dir) if events == "file" and rank == 0 else 0
        self._metrics_path = os.path.join(self.artifacts, "metrics.jsonl")

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def emit(self, event: dict) -> None:
        """A log / metric / result event: a prefixed line on stdout (the service numbers it) or a line in events.jsonl."""
        if not self.is_main:
            return
        if self.events == "stdout":
            sys.stdout.write(EVENT_PREFIX + json.dumps(event, separators=(",", ":")) + "\n")
            sys.stdout.flush()
            return
        if event["type"] == "result":
            return  # file mode writes the final status itself (run.py)
        self._seq += 1
        jobdir.append_event(self.dir, {"seq": self._seq, "time": jobdir.now_ms(), **event})

    def file_status(self, status: str, error: Optional[dict] = None) -> None:
        if self.is_main and self.events == "file":
            self._seq += 1
            jobdir.append_event(self.dir, {"seq": self._seq, "time": jobdir.now_ms(), **jobdir.status_event(status, error)})

    @property
    def last_seq(self) -> int:
        return self._seq

    def log(self, message: str, level: str = "info") -> None:
        self.emit({"type": "log", "level": level, "message": message})

    def metric(self, step: int, metrics: dict[str, float]) -> None:
        """A metric event and a metrics.jsonl line (the artifact)."""
        if not self.is_main:
            return
        self.emit({"type": "metric", "step": step, "metrics": metrics})
        with open(self._metrics_path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"step": step, **metrics}, separators=(",", ":")) + "\n")

    def check_cancel(self) -> None:
        """Called at every step boundary; raises JobCancelled when a cancel was requested."""
        requested = jobdir.cancel_requested(self.dir) if self.is_main else False
        if self._cancel_flag is not None:
            requested = self._cancel_flag(requested)
        if requested:
            raise JobCancelled()

    def artifact(self, name: str) -> str:
        path = os.path.join(self.artifacts, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path
