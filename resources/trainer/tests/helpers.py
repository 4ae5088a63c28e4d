"""Test helpers: tiny dataset bundles built in memory, a started service on loopback, and a small HTTP client."""

from __future__ import annotations

import base64
import hashlib
import http.client
import io
import json
import os
import sys
import tarfile
import tempfile
import time
from typing import Any, Optional

import numpy as np


# Every test's scratch folders live under one root that is removed when the test process exits (TemporaryDirectory's
# finalizer), so a run leaves nothing in the system temp folder even where a test cannot clean up after itself.
_SCRATCH = tempfile.TemporaryDirectory(prefix="awb-trainer-tests-")


def scratch_dir() -> str:
    """A fresh folder for one test's job directories; removed with the others at exit."""
    return tempfile.mkdtemp(dir=_SCRATCH.name)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

TOKEN = "test-token-0123456789abcdef"
F = 6       # feature dimension of the tiny policies
H = 4       # hidden units


def b64f32(values: np.ndarray) -> str:
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def make_tar(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def policy_json(seed: int = 0, hidden: int = H, input_dim: int = F) -> bytes:
    from awb_trainer import policy

    model = policy.BuiltinScorer(input_dim, hidden, seed=seed)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.json")
        policy.save_checkpoint(model, path, {"step": 0})
        with open(path, "rb") as f:
            return f.read()


def policy_steps(episodes: int, steps_per_episode: int, seed: int = 0, grpo: bool = False, n: int = 5) -> list[dict]:
    """Steps whose chosen candidate is the one with the largest first feature: a rule the scorer can learn."""
    rng = np.random.default_rng(seed)
    out = []
    for e in range(episodes):
        adv = float(rng.normal()) if grpo else None
        for t in range(steps_per_episode):
            x = rng.normal(size=(n, F)).astype(np.float32)
            chosen = int(np.argmax(x[:, 0]))
            out.append({"episode": f"ep-{e}", "step": t, "n": n, "features": b64f32(x), "chosen": chosen,
                        "logProb": float(-np.log(n)), "temperature": 1.0, "advantage": adv, "logProbRef": None})
    return out


def builtin_bundle(kind: str, episodes: int = 8, steps_per_episode: int = 4, seed: int = 0) -> bytes:
    steps = policy_steps(episodes, steps_per_episode, seed, grpo=kind == "builtin-grpo")
    manifest = {"format": "awb-bundle", "version": 1, "kind": kind, "createdAt": 0, "counts": {"steps": len(steps)}}
    return make_tar({
        "manifest.json": json.dumps(manifest).encode(),
        "steps.jsonl": "".join(json.dumps(s) + "\n" for s in steps).encode(),
        "init/policy.json": policy_json(seed),
    })


def mlp_bundle(kind: str, samples: int = 64, hidden: int = 4, seed: int = 0) -> bytes:
    """progrm: awb-progrm with soft labels σ(2·x0); prm: awb-shepherd-judge with labels 1[x0 > 0]."""
    rng = np.random.default_rng(seed)
    fmt = "awb-progrm" if kind == "progrm" else "awb-shepherd-judge"
    count = F + 1 if hidden == 0 else hidden * F + 2 * hidden + 1
    init = rng.uniform(-0.3, 0.3, size=count).astype(np.float32)
    model = {"format": fmt, "version": 1, "encoder": {"kind": "hashed-ngram", "dim": 8, "charN": 3},
             "network": {"input": F, "hidden": hidden}, "params": {"dtype": "float32-le", "count": count, "base64": b64f32(init)},
             "meta": {"labels": "test"}}
    rows = []
    for _ in range(samples):
        x = rng.normal(size=F).astype(np.float32)
        y = float(1 / (1 + np.exp(-2 * x[0]))) if kind == "progrm" else float(x[0] > 0)
        rows.append({"features": b64f32(x), "label": y})
    manifest = {"format": "awb-bundle", "version": 1, "kind": kind, "createdAt": 0, "counts": {"samples": samples}}
    return make_tar({
        "manifest.json": json.dumps(manifest).encode(),
        "samples.jsonl": "".join(json.dumps(r) + "\n" for r in rows).encode(),
        "init/model.json": json.dumps(model).encode(),
    })


def make_job_dir(root: str, kind: str, config: dict, bundle: bytes, job_id: str = "000001-test") -> str:
    """A job directory as the service creates it, for `run --job DIR`."""
    from awb_trainer import jobdir

    d = os.path.join(root, job_id)
    os.makedirs(os.path.join(d, "artifacts"))
    with open(os.path.join(d, "dataset.tar"), "wb") as f:
        f.write(bundle)
    rec = {"id": job_id, "kind": kind, "name": kind, "status": "queued", "createdAt": 0, "startedAt": None, "finishedAt": None,
           "error": None, "artifacts": [], "lastSeq": 0, "order": 1, "idempotencyKey": job_id, "requestHash": "",
           "dataset": hashlib.sha256(bundle).hexdigest(), "config": config, "gpus": 1}
    jobdir.write_job(d, rec)
    return d


class Client:
    def __init__(self, url: str, token: Optional[str] = TOKEN):
        hostport = url.split("//", 1)[1]
        self.host, port = hostport.split(":")
        self.port = int(port)
        self.token = token

    def request(self, method: str, path: str, body: Any = None, headers: Optional[dict] = None) -> tuple[int, dict, bytes]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        hdrs = dict(headers or {})
        if self.token is not None:
            hdrs["Authorization"] = f"Bearer {self.token}"
        data = body
        if body is not None and not isinstance(body, (bytes, bytearray)):
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, raw

    def json(self, method: str, path: str, body: Any = None, headers: Optional[dict] = None) -> tuple[int, Any]:
        status, _, raw = self.request(method, path, body, headers)
        return status, json.loads(raw) if raw else None

    def upload(self, data: bytes, chunk: int = 1 << 22) -> str:
        sha = hashlib.sha256(data).hexdigest()
        for start in range(0, len(data), chunk):
            part = data[start:start + chunk]
            status, _, raw = self.request("PUT", f"/v1/uploads/{sha}", part, {
                "Content-Range": f"bytes {start}-{start + len(part) - 1}/{len(data)}", "Content-Type": "application/octet-stream"})
            assert status in (200, 201), (status, raw)
        return sha

    def submit(self, kind: str, dataset: str, config: dict, key: Optional[str] = None) -> tuple[int, Any]:
        return self.json("POST", "/v1/jobs", {"idempotencyKey": key or os.urandom(8).hex(), "kind": kind, "dataset": dataset, "config": config})

    def wait(self, job_id: str, timeout: float = 60, statuses: tuple = ("succeeded", "failed", "cancelled")) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, job = self.json("GET", f"/v1/jobs/{job_id}")
            if job["status"] in statuses:
                return job
            time.sleep(0.1)
        raise AssertionError(f"job {job_id} still {job['status']} after {timeout} s")

    def events(self, job_id: str, after: int = 0) -> list[dict]:
        _, _, raw = self.request("GET", f"/v1/jobs/{job_id}/events?after={after}")
        return [json.loads(line) for line in raw.splitlines() if line.strip()]


def start_service(workdir: str, gpus: int = 1):
    from awb_trainer.server import RunningService, TrainerService

    # stop() waits up to poll_interval for the HTTP loop: 0.5 s (the default) per test adds up over the suite
    return RunningService(TrainerService(workdir, TOKEN, gpus=gpus, log=False), poll_interval=0.02).start()


def vlm_episode(uid: str, answers: list[str], advantage: Optional[float] = None, instruction: str = "Press OK",
                messages: Optional[list] = None, template: str = "T", seed: int = 1) -> dict:
    """An episodes.jsonl line of the store's export format: one step per answer, each with a screenshot."""
    steps = [{"index": i, "screenshot": "screenshots/s.png", "action": None, "raw": a, "description": f"step {i}",
              **({"messages": messages} if messages is not None else {})} for i, a in enumerate(answers)]
    ep: dict = {"uid": uid, "template": template, "seed": seed, "instruction": instruction, "steps": steps}
    if advantage is not None:
        ep["advantage"] = advantage
    return ep


def vlm_bundle(kind: str, episodes: list[dict], screenshot: bytes = b"\x89PNG not decoded by awb-tiny-lm") -> bytes:
    """A vlm bundle whose steps all show `screenshot` (by default a few bytes, not an image: awb-tiny-lm never decodes it)."""
    manifest = {"format": "awb-bundle", "version": 1, "kind": kind, "createdAt": 0, "counts": {"episodes": len(episodes)}}
    return make_tar({
        "manifest.json": json.dumps(manifest).encode(),
        "episodes.jsonl": "".join(json.dumps(e) + "\n" for e in episodes).encode(),
        "screenshots/s.png": screenshot,
    })


def png(width: int, height: int, rgb: tuple = (200, 30, 30)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), rgb).save(buf, format="PNG")
    return buf.getvalue()


def tiny_vlm() -> str:
    """The tiny random Qwen2.5-VL of tools/make_tiny_vlm.py: AWB_TINY_VLM, else its cached build (made on first use)."""
    if os.environ.get("AWB_TINY_VLM"):
        return os.environ["AWB_TINY_VLM"]
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import make_tiny_vlm
    finally:
        sys.path.pop(0)
    out = sys.stdout
    sys.stdout = sys.stderr  # build() reports on stdout
    try:
        return make_tiny_vlm.cached()
    finally:
        sys.stdout = out
