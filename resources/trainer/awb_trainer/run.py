"""`python3 -m awb_trainer run --job DIR`: runs one job directory to its end, under the service, standalone, under
torchrun (every rank runs this; rank 0 reports) or as a Ray job. Any exception ends the job `failed` with its
message; a cancel ends it `cancelled` at the step boundary where it was seen."""

from __future__ import annotations

import importlib
import traceback
from typing import Optional

from . import jobdir
from .bundle import Bundle
from .errors import BundleError, ConfigError, JobCancelled
from .jobs import missing_for
from .jobs.config import parse_config, parse_kind
from .jobs.context import EventsMode, JobContext

MODULES = {
    "builtin-sft": "builtin_sft", "builtin-grpo": "builtin_grpo", "progrm": "progrm", "prm": "prm",
    "vlm-sft": "vlm", "vlm-grpo": "vlm",
}


def _error_code(e: BaseException) -> str:
    if isinstance(e, (BundleError, ConfigError)):
        return "bad_request"
    if type(e).__name__ == "PublishError":  # jobs/vlm_publish.py, not imported here: it is a vlm-only module
        return "publish_failed"
    return "internal"


def run_job(job_dir: str, events: EventsMode) -> int:
    """Exit code 0 when the job succeeded or was cancelled, 1 when it failed."""
    status, _error = run_job_outcome(job_dir, events)
    return 1 if status == "failed" else 0


def run_job_outcome(job_dir: str, events: EventsMode) -> tuple[str, Optional[dict]]:
    """The job's final status and error (None unless failed)."""
    record = jobdir.read_job(job_dir)
    dist = None
    ctx: Optional[JobContext] = None
    status, error = "succeeded", None
    try:
        kind = parse_kind(record["kind"])
        record["config"] = parse_config(kind, record.get("config"))
        missing = missing_for(kind, record["config"])
        if missing is not None:
            raise RuntimeError(f"this machine cannot run {kind}: {missing}")
        from .jobs.torch_util import Distributed  # torch is imported only once the kind is known to be runnable

        dist = Distributed()
        ctx = JobContext(job_dir, record, events, dist.rank, dist.world_size, dist.cancel_flag)
        if events == "file":
            _file_record(job_dir, ctx, "running")
        module = importlib.import_module(f".jobs.{MODULES[kind]}", __package__)
        with Bundle(f"{job_dir}/{jobdir.DATASET_FILE}") as bundle:
            bundle.manifest(kind)
            module.train(ctx, bundle, dist)
    except JobCancelled:
        status = "cancelled"
    except Exception as e:  # the job's outcome, reported to the client: the message names what was wrong
        status, error = "failed", {"code": _error_code(e), "message": f"{type(e).__name__}: {e}"}
        if ctx is not None:
            ctx.log(traceback.format_exc(), level="error")
    finally:
        if dist is not None:
            dist.close()
    if ctx is None:  # failed before a context existed (bad kind/config): report through a minimal one
        ctx = JobContext(job_dir, record, events)
    ctx.emit({"type": "result", "status": status, "error": error})
    if events == "file":
        _file_record(job_dir, ctx, status, error)
    return status, error


def _file_record(job_dir: str, ctx: JobContext, status: str, error: Optional[dict] = None) -> None:
    """Standalone runs keep job.json and events.jsonl themselves (the service does this when it runs the job)."""
    if not ctx.is_main:
        return
    ctx.file_status(status, error)
    rec = jobdir.read_job(job_dir)
    rec["status"] = status
    rec["lastSeq"] = ctx.last_seq
    if status == "running":
        rec["startedAt"] = jobdir.now_ms()
    else:
        rec["finishedAt"] = jobdir.now_ms()
        rec["error"] = error
        rec["artifacts"] = jobdir.scan_artifacts(job_dir) if jobdir.keeps_artifacts(status, error) else []
    jobdir.write_job(job_dir, rec)
