"""config.publish: load the job's adapter into a vLLM server as a new LoRA version and record it in published.json.

vLLM's dynamic LoRA loading is POST {baseUrl}/v1/load_lora_adapter {"lora_name", "lora_path"}; the server runs with
--enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=1 and must be able to read lora_path (a shared disk). Each job
publishes under its own name, <publish.name>-<job id>, so versions never overwrite each other and the workbench
switches by naming the new one as the model of its requests.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Optional

from .context import JobContext

TIMEOUT_S = 120
MAX_ERROR_TEXT = 2000


class PublishError(Exception):
    """vLLM refused or could not be reached; the job fails with error code publish_failed. Never holds the API key."""

    def __init__(self, url: str, status: Optional[int], detail: str):
        where = f"HTTP {status}" if status is not None else "no HTTP answer"
        super().__init__(f"POST {url}: {where}: {detail}")
        self.url = url
        self.status = status


def publish_adapter(ctx: JobContext, publish: dict, adapter_dir: str) -> dict:
    """Loads adapter_dir into vLLM; on success writes and returns the published.json record."""
    name = f"{publish['name']}-{ctx.record['id']}"
    url = publish["baseUrl"].rstrip("/") + "/v1/load_lora_adapter"
    headers = {"Content-Type": "application/json"}
    key: Optional[str] = None
    if publish.get("apiKeyEnv"):
        key = os.environ.get(publish["apiKeyEnv"])
        if not key:
            raise PublishError(url, None, f"config.publish.apiKeyEnv names {publish['apiKeyEnv']}, which is not set in the trainer's environment")
        headers["Authorization"] = f"Bearer {key}"
    path = os.path.abspath(adapter_dir)
    body = json.dumps({"lora_name": name, "lora_path": path}).encode("utf-8")
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
            status = resp.status
    except urllib.error.HTTPError as e:
        raise PublishError(url, e.code, _redact(_read_text(e), key) or e.reason) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise PublishError(url, None, _redact(f"{type(reason).__name__}: {reason}", key)) from None
    record = {"name": name, "baseUrl": publish["baseUrl"], "adapterPath": path, "job": ctx.record["id"], "model": ctx.config["model"]}
    out = ctx.artifact("published.json")
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2)
    os.replace(out + ".tmp", out)
    ctx.log(f"published adapter {name} to {publish['baseUrl']} (HTTP {status})")
    return record


def _read_text(e: urllib.error.HTTPError) -> str:
    try:
        return e.read(MAX_ERROR_TEXT).decode("utf-8", errors="replace").strip()
    except OSError:
        return ""


def _redact(text: str, key: Optional[str]) -> str:
    # vLLM does not echo the key, but a proxy in front of it might: it must not reach the job's error or events.
    return text.replace(key, "[redacted]") if key else text
