"""config.publish: serve the job's new weights as a new version and record it in published.json.

Each job publishes under its own name, <publish.name>-<job id>, so versions never overwrite each other and the workbench
switches by naming the new one as the model of its requests. How depends on publish.server:
- vllm: POST {baseUrl}/v1/load_lora_adapter {"lora_name", "lora_path"} (vLLM's dynamic LoRA loading; the server runs
  with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=1 and must be able to read lora_path: a shared disk). The
  request's model is then the adapter's name.
- transformers: `transformers serve` (5.17) loads a model by the request's `model`, a hub id or a folder, with
  AutoConfig + AutoProcessor + from_pretrained of that folder; it has no adapter route, and a peft adapter folder has no
  config.json for its AutoConfig. So the trainer writes a merged model folder (LoRA merged into the base weights, the
  processor beside them) at <job dir>/served/<name>, and the request's model is that folder's path. The workbench loads
  it (POST /load_model) and unloads the old version; the trainer does not talk to that server.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from typing import Any, Optional

from ..errors import ConfigError
from ..publish_keys import allowed_from_env, check_publish_key
from .context import JobContext

TIMEOUT_S = 120
MAX_ERROR_TEXT = 2000


class PublishError(Exception):
    """vLLM refused or could not be reached, or the merged folder could not be written; the job fails with error code
    publish_failed. Never holds the API key. `where`: the request (POST <url>) or the folder."""

    def __init__(self, where: str, status: Optional[int], detail: str):
        answer = f"HTTP {status}: " if status is not None else ("no HTTP answer: " if where.startswith("POST ") else "")
        super().__init__(f"{where}: {answer}{detail}")
        self.where = where
        self.status = status


def publish_adapter(ctx: JobContext, publish: dict, adapter_dir: str, backend: Any = None) -> dict:
    """Serves the new weights (see the module comment); on success writes and returns the published.json record.
    `backend` is the job's vlm_hf.HfBackend, whose model the transformers path merges (config.py refuses awb-tiny-lm there)."""
    try:
        # Checked again where the key is read: a job directory run on its own gets the list from its operator.
        check_publish_key(publish, allowed_from_env())
    except ConfigError as e:
        raise PublishError(f"POST {publish['baseUrl']}", None, str(e)) from None
    name = f"{publish['name']}-{ctx.record['id']}"
    server = publish.get("server", "vllm")
    record = {"name": name, "baseUrl": publish["baseUrl"], "adapterPath": os.path.abspath(adapter_dir), "job": ctx.record["id"],
              "model": ctx.config["model"], "server": server}
    if server == "transformers":
        record["servedPath"] = _write_merged(ctx, backend, name)
        ctx.log(f"published {name}: merged model folder {record['servedPath']} (transformers serve loads it by path)")
    else:
        status = _load_into_vllm(publish, name, record["adapterPath"])
        ctx.log(f"published adapter {name} to {publish['baseUrl']} (HTTP {status})")
    out = ctx.artifact("published.json")
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2)
    os.replace(out + ".tmp", out)
    return record


def _load_into_vllm(publish: dict, name: str, path: str) -> int:
    url = publish["baseUrl"].rstrip("/") + "/v1/load_lora_adapter"
    headers = {"Content-Type": "application/json"}
    key: Optional[str] = None
    if publish.get("apiKeyEnv"):
        key = os.environ.get(publish["apiKeyEnv"])
        if not key:
            raise PublishError(f"POST {url}", None, f"config.publish.apiKeyEnv names {publish['apiKeyEnv']}, which is not set in the trainer's environment")
        headers["Authorization"] = f"Bearer {key}"
    body = json.dumps({"lora_name": name, "lora_path": path}).encode("utf-8")
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        raise PublishError(f"POST {url}", e.code, _redact(_read_text(e), key) or e.reason) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise PublishError(f"POST {url}", None, _redact(f"{type(reason).__name__}: {reason}", key)) from None


def _write_merged(ctx: JobContext, backend: Any, name: str) -> str:
    """<job dir>/served/<name>: the base weights with the LoRA merged in, the config, generation config and processor —
    a folder `transformers serve` loads like any model. Outside artifacts/: it is as large as the model, and the
    workbench never downloads it (the server reads it from this disk)."""
    served = os.path.abspath(os.path.join(ctx.dir, "served"))
    out = os.path.join(served, name)
    if os.path.dirname(out) != served or not os.path.basename(out):
        # config.py's name check makes this unreachable; the folder is deleted before it is written, so check anyway.
        raise PublishError(out, None, f"publish.name {name!r} leaves the job's served/ folder")
    if "@" in out:
        # transformers serve splits the request's model at "@" into id and revision.
        raise PublishError(out, None, "the served folder's path contains '@', which transformers serve reads as a revision; use a --workdir without '@'")
    merged = backend.module.merge_and_unload()  # the job is done with the trainable model: merging in place is fine
    merged.config.use_cache = True  # gradient checkpointing turned the KV cache off; generation wants it
    tmp = out + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        merged.save_pretrained(tmp, safe_serialization=True)
        backend.processor.save_pretrained(tmp)
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)  # a folder the server can be pointed at is whole
    except OSError as e:
        raise PublishError(out, None, f"could not write the merged model: {type(e).__name__}: {e}") from None
    return out


def _read_text(e: urllib.error.HTTPError) -> str:
    try:
        return e.read(MAX_ERROR_TEXT).decode("utf-8", errors="replace").strip()
    except OSError:
        return ""


def _redact(text: str, key: Optional[str]) -> str:
    # vLLM does not echo the key, but a proxy in front of it might: it must not reach the job's error or events.
    return text.replace(key, "[redacted]") if key else text
