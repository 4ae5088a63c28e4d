"""Job kinds: what this machine can run (health.kinds) and where each kind's training lives."""

from __future__ import annotations

import functools
import importlib
import importlib.util
from typing import Optional

from .config import KINDS, JobKind


@functools.lru_cache(maxsize=None)
def _importable(*modules: str) -> Optional[str]:
    """None when every module imports, else why not (printed in unsupported_kind errors and test skips)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as e:  # a broken install raises more than ImportError; any failure means "cannot run"
            return f"{name} does not import ({type(e).__name__}: {e})"
    return None


TINY_VLM = "awb-tiny-lm"  # the torch-only test model of tiny_lm.py
VLM_KINDS = ("vlm-sft", "vlm-grpo")


def missing_for(kind: JobKind, config: Optional[dict] = None) -> Optional[str]:
    """Why this machine cannot run `kind` (with `config`, for the vlm kinds: its model), or None when it can.
    Without a config a vlm kind counts as runnable when awb-tiny-lm is, i.e. where torch imports."""
    if kind in VLM_KINDS and config is not None and config.get("model") != TINY_VLM:
        why = _importable("torch", "transformers", "peft")
        return None if why is None else f"model {config.get('model')!r} needs transformers and peft ({why}); only {TINY_VLM} runs without them"
    return _importable("torch")


def available_kinds() -> list[str]:
    return [k for k in KINDS if missing_for(k) is None]


def _installed(*modules: str) -> bool:
    """Whether every module is installed, without importing it: transformers + peft take seconds to import, and
    /v1/health, which every client calls first, must not pay that (a job that uses them imports them anyway and
    fails with its own error if the install is broken)."""
    return all(importlib.util.find_spec(name) is not None for name in modules)


def vlm_models() -> "list[str] | str":
    """health.vlmModels: "any" where transformers + peft are installed, else the built-in models ([] without torch)."""
    if _importable("torch") is not None:
        return []
    return "any" if _installed("transformers", "peft") else [TINY_VLM]


def torch_info() -> dict:
    """torch version, CUDA and devices for /v1/health (no torch: version null, cpu only)."""
    if _importable("torch") is not None:
        return {"torch": None, "cuda": False, "devices": ["cpu"]}
    import torch

    cuda = bool(torch.cuda.is_available())
    devices = [f"cuda:{i}" for i in range(torch.cuda.device_count())] if cuda else ["cpu"]
    return {"torch": torch.__version__.split("+")[0], "cuda": cuda, "devices": devices}
