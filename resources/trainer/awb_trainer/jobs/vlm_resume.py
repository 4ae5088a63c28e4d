"""config.resumeFrom: a vlm job starts from an earlier job's adapter/ on the same service instead of a fresh LoRA.
Checked when the job is submitted (the service answers 422 naming config.resumeFrom) and again when the job runs
(a job directory run standalone, or an earlier job deleted in between). No torch here: the service imports it."""

from __future__ import annotations

import os
import re

from .. import jobdir
from ..errors import ConfigError
from .config import parse_config

VLM_KINDS = ("vlm-sft", "vlm-grpo")
ADAPTER_FILES = ("adapter_config.json", "adapter_model.safetensors")
_JOB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


def resume_adapter_dir(jobs_root: str, config: dict) -> str:
    """The adapter directory config.resumeFrom names, after checking that it can be continued; ConfigError otherwise.

    The earlier job must be a succeeded vlm-sft/vlm-grpo job of the same `model` whose LoRA has the same rank, alpha
    and target modules (they define what the adapter computes; dropout only affects training and may differ)."""
    job_id = config["resumeFrom"]
    field = "config.resumeFrom"
    if not _JOB_ID.match(job_id):
        raise ConfigError(field, "must be a job id of this service", job_id)
    d = os.path.join(jobs_root, job_id)
    if not os.path.isfile(os.path.join(d, jobdir.JOB_FILE)):
        raise ConfigError(field, "names no job of this service", job_id)
    rec = jobdir.read_job(d)
    if rec.get("kind") not in VLM_KINDS:
        raise ConfigError(field, f"names a {rec.get('kind')} job; only vlm-sft and vlm-grpo jobs have an adapter", job_id)
    if rec.get("status") != "succeeded":
        raise ConfigError(field, f"names a job that is {rec.get('status')}, not succeeded", job_id)
    try:  # compared with its defaults filled, as it ran (a hand-written job.json may give only {"r": 2})
        prev = parse_config(rec["kind"], rec.get("config"))
    except ConfigError as e:
        raise ConfigError(field, f"names a job whose config does not parse ({e})", job_id) from None
    if prev.get("model") != config["model"]:
        raise ConfigError(field, f"names a job of model {prev.get('model')!r}, this job trains {config['model']!r}", job_id)
    old, new = prev["lora"], config["lora"]
    for key in ("r", "alpha"):
        if old.get(key) != new[key]:
            raise ConfigError(field, f"names a job with LoRA {key} {old.get(key)!r}, this job has {new[key]!r}", job_id)
    if sorted(old.get("targetModules") or []) != sorted(new["targetModules"]):
        raise ConfigError(field, f"names a job with LoRA targetModules {old.get('targetModules')!r}, this job has {new['targetModules']!r}", job_id)
    adapter = os.path.join(d, jobdir.ARTIFACTS_DIR, "adapter")
    for name in ADAPTER_FILES:
        if not os.path.isfile(os.path.join(adapter, name)):
            raise ConfigError(field, f"names a job without artifact adapter/{name}", job_id)
    return os.path.abspath(adapter)
