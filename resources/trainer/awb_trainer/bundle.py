"""Reading a dataset bundle (docs/trainer-protocol.md "Dataset bundle"): an uncompressed ustar archive with
manifest.json, steps.jsonl / samples.jsonl / episodes.jsonl, screenshots/ and init/ checkpoints. Members are
read by name only, never extracted wholesale, so a crafted path cannot escape the job directory."""

from __future__ import annotations

import base64
import json
import math
import os
import tarfile
import threading
from dataclasses import dataclass
from typing import Any, Iterator, Optional

import numpy as np

from .errors import BundleError

BUNDLE_FORMAT = "awb-bundle"
BUNDLE_VERSION = 1


@dataclass
class PolicyStep:
    """One policy step of steps.jsonl: features [n × F] float32, the chosen candidate, log π_old."""
    episode: str
    step: int
    n: int
    features: np.ndarray
    chosen: int
    log_prob: float
    temperature: float
    advantage: Optional[float]
    log_prob_ref: Optional[float]


def decode_floats(b64: Any, where: str) -> np.ndarray:
    """base64 little-endian float32 → a float32 array (core/util/float32-params.ts's byte layout)."""
    if not isinstance(b64, str):
        raise BundleError(where, f"expected base64 text, got {type(b64).__name__}")
    try:
        raw = base64.b64decode(b64, validate=True)
    except ValueError as e:
        raise BundleError(where, f"not base64 ({e})") from e
    if len(raw) % 4:
        raise BundleError(where, f"{len(raw)} bytes is not a whole number of float32 values")
    values = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise BundleError(where, f"value {int(bad[0])} is {values[bad[0]]}")
    return values


def _finite(v: Any, where: str, field: str, nullable: bool = False) -> Optional[float]:
    if v is None and nullable:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise BundleError(where, f"{field} must be a finite number{' or null' if nullable else ''}, got {v!r}")
    return float(v)


class Bundle:
    def __init__(self, path: str):
        self.path = path
        try:
            self._tar = tarfile.open(path, "r:")
        except (tarfile.TarError, OSError) as e:
            raise BundleError(os.path.basename(path), f"not an uncompressed tar archive ({e})") from e
        self._members = {(m.name[2:] if m.name.startswith("./") else m.name): m for m in self._tar.getmembers() if m.isfile()}

    def close(self) -> None:
        self._tar.close()

    def __enter__(self) -> "Bundle":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def has(self, name: str) -> bool:
        return name in self._members

    def names(self, prefix: str = "") -> list[str]:
        return sorted(n for n in self._members if n.startswith(prefix))

    def read(self, name: str) -> bytes:
        member = self._members.get(name)
        if member is None:
            raise BundleError(name, "missing from the bundle")
        f = self._tar.extractfile(member)
        assert f is not None  # regular files always have a stream
        return f.read()

    def json(self, name: str) -> Any:
        try:
            return json.loads(self.read(name))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise BundleError(name, f"not JSON ({e})") from e

    def jsonl(self, name: str) -> Iterator[tuple[int, Any]]:
        member = self._members.get(name)
        if member is None:
            raise BundleError(name, "missing from the bundle")
        f = self._tar.extractfile(member)
        assert f is not None
        for i, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                yield i, json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                raise BundleError(f"{name}:{i}", f"not JSON ({e})") from e

    def extract(self, name: str, dest_dir: str) -> str:
        """Writes one member to dest_dir under its base name (init/policy.json → dest_dir/policy.json).

        Atomically (a per-process temporary file, then os.replace): under torchrun every rank extracts the same member
        into the same job directory, and a plain open("wb") let one rank read the file while another had just
        truncated it (an empty init/policy.json, the rank failed, and its peer saw gloo's "connection reset")."""
        os.makedirs(dest_dir, exist_ok=True)
        out = os.path.join(dest_dir, os.path.basename(name))
        tmp = f"{out}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(self.read(name))
            os.replace(tmp, out)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        return out

    def manifest(self, kind: str) -> dict:
        m = self.json("manifest.json")
        if not isinstance(m, dict) or m.get("format") != BUNDLE_FORMAT:
            raise BundleError("manifest.json", f"format must be {BUNDLE_FORMAT!r}, got {m.get('format') if isinstance(m, dict) else m!r}")
        if m.get("version") != BUNDLE_VERSION:
            raise BundleError("manifest.json", f"version must be {BUNDLE_VERSION}, got {m.get('version')!r}")
        if m.get("kind") != kind:
            raise BundleError("manifest.json", f"kind is {m.get('kind')!r}, the job is {kind!r}")
        return m

    def policy_steps(self, feature_dim: int) -> list[PolicyStep]:
        out: list[PolicyStep] = []
        for line, row in self.jsonl("steps.jsonl"):
            where = f"steps.jsonl:{line}"
            if not isinstance(row, dict):
                raise BundleError(where, f"expected an object, got {type(row).__name__}")
            n = row.get("n")
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise BundleError(where, f"n must be a positive integer, got {n!r}")
            feats = decode_floats(row.get("features"), f"{where} features")
            if feats.size != n * feature_dim:
                raise BundleError(where, f"features hold {feats.size} values, expected n × F = {n} × {feature_dim}")
            chosen = row.get("chosen")
            if isinstance(chosen, bool) or not isinstance(chosen, int) or not 0 <= chosen < n:
                raise BundleError(where, f"chosen must be an index in 0..{n - 1}, got {chosen!r}")
            temperature = _finite(row.get("temperature"), where, "temperature")
            if not temperature > 0:
                raise BundleError(where, f"temperature must be > 0, got {temperature!r}")
            episode, step = row.get("episode"), row.get("step")
            if not isinstance(episode, str) or isinstance(step, bool) or not isinstance(step, int):
                raise BundleError(where, f"episode must be a string and step an integer, got {episode!r}, {step!r}")
            out.append(PolicyStep(
                episode=episode, step=step, n=n, features=feats, chosen=chosen,
                log_prob=_finite(row.get("logProb"), where, "logProb"), temperature=temperature,
                advantage=_finite(row.get("advantage"), where, "advantage", nullable=True),
                log_prob_ref=_finite(row.get("logProbRef"), where, "logProbRef", nullable=True),
            ))
        if not out:
            raise BundleError("steps.jsonl", "holds no steps")
        return out

    def samples(self, feature_dim: int) -> tuple[np.ndarray, np.ndarray]:
        """(X [N, F] float32, y [N] float64) of samples.jsonl; labels in [0, 1] (soft labels allowed)."""
        xs: list[np.ndarray] = []
        ys: list[float] = []
        for line, row in self.jsonl("samples.jsonl"):
            where = f"samples.jsonl:{line}"
            if not isinstance(row, dict):
                raise BundleError(where, f"expected an object, got {type(row).__name__}")
            x = decode_floats(row.get("features"), f"{where} features")
            if x.size != feature_dim:
                raise BundleError(where, f"features hold {x.size} values, the model takes {feature_dim}")
            y = _finite(row.get("label"), where, "label")
            if not 0 <= y <= 1:
                raise BundleError(where, f"label must be in [0, 1], got {y}")
            xs.append(x)
            ys.append(y)
        if not xs:
            raise BundleError("samples.jsonl", "holds no samples")
        return np.stack(xs), np.asarray(ys, dtype=np.float64)


def group_episodes(steps: list[PolicyStep]) -> list[list[PolicyStep]]:
    """Steps grouped by episode uid in first-seen order, each episode sorted by step index."""
    by: dict[str, list[PolicyStep]] = {}
    for s in steps:
        by.setdefault(s.episode, []).append(s)
    return [sorted(e, key=lambda s: s.step) for e in by.values()]
