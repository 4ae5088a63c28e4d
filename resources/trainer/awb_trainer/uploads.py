"""Resumable, content-addressed uploads under --workdir/uploads/: `<sha>.part` while bytes arrive (appended as
they are read, so a dropped connection keeps what reached the server), `<sha>.json` with the declared total,
and `<sha>` once complete and verified."""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from typing import BinaryIO, Optional

from .atomic import write_atomic
from .errors import ApiError

SHA_RE = re.compile(r"^[0-9a-f]{64}$")
RANGE_RE = re.compile(r"^bytes (\d+)-(\d+)/(\d+)$")
READ_CHUNK = 1 << 16


def check_sha(sha: str, field: str = "sha256") -> str:
    if not SHA_RE.match(sha):
        raise ApiError("bad_request", f"{field} must be 64 lowercase hex digits, got {sha!r}", field=field)
    return sha


def parse_content_range(value: Optional[str]) -> tuple[int, int, int]:
    """`bytes START-END/TOTAL` (END inclusive) → (start, end, total)."""
    m = RANGE_RE.match(value or "")
    if not m:
        raise ApiError("bad_request", f"Content-Range must be 'bytes START-END/TOTAL', got {value!r}", field="Content-Range")
    start, end, total = (int(g) for g in m.groups())
    if not start <= end < total:
        raise ApiError("bad_request", f"Content-Range needs START ≤ END < TOTAL, got {value!r}", field="Content-Range")
    return start, end, total


class UploadStore:
    def __init__(self, workdir: str, max_bytes: int, quota_bytes: Optional[int] = None):
        """max_bytes: the largest one upload; quota_bytes: all of them together (complete ones, and the totals declared by
        those under way), so uploads cannot fill the workdir's disk; None: no quota."""
        self.root = os.path.join(workdir, "uploads")
        os.makedirs(self.root, exist_ok=True)
        self.max_bytes = max_bytes
        self.quota_bytes = quota_bytes
        self._lock = threading.Lock()
        self._busy: set[str] = set()

    def complete_path(self, sha: str) -> str:
        return os.path.join(self.root, sha)

    def is_complete(self, sha: str) -> bool:
        return os.path.isfile(self.complete_path(sha))

    def status(self, sha: str) -> tuple[int, bool]:
        """(bytes received, complete)."""
        if self.is_complete(sha):
            return os.path.getsize(self.complete_path(sha)), True
        part = self._part(sha)
        return (os.path.getsize(part) if os.path.exists(part) else 0), False

    def _part(self, sha: str) -> str:
        return os.path.join(self.root, sha + ".part")

    def _meta(self, sha: str) -> str:
        return os.path.join(self.root, sha + ".json")

    def put(self, sha: str, content_range: Optional[str], content_length: Optional[int], body: BinaryIO,
            stall_seconds: Optional[float] = None) -> tuple[int, bool]:
        """Appends one chunk; returns (offset, complete). Raises conflict, bad_request or checksum_mismatch, and 408 when
        the body stops arriving (the body's reads time out after `stall_seconds`): the bytes that came are kept."""
        start, end, total = parse_content_range(content_range)
        length = end - start + 1
        if content_length is None or content_length != length:
            raise ApiError("bad_request", f"Content-Length must equal the range's {length} bytes, got {content_length}", field="Content-Length")
        if total > self.max_bytes:
            raise ApiError("bad_request", f"upload of {total} bytes exceeds the service's limit of {self.max_bytes}", field="Content-Range")
        with self._lock:
            if sha in self._busy:
                raise ApiError("conflict", f"another request is uploading {sha}", headers={"Upload-Offset": str(self.status(sha)[0])})
            offset, complete = self.status(sha)
            if complete:
                # Already verified (a retry after a lost 201): drain the chunk so the connection stays usable.
                while length > 0 and (data := body.read(min(READ_CHUNK, length))):
                    length -= len(data)
                return offset, True
            declared = self._declared_total(sha)
            if declared is not None and declared != total:
                raise ApiError("conflict", f"upload {sha} was started with total {declared}, got {total}", field="Content-Range", headers={"Upload-Offset": str(offset)})
            if start != offset:
                raise ApiError("conflict", f"chunk starts at {start}, the upload is at offset {offset}", headers={"Upload-Offset": str(offset)})
            if declared is None:
                self._check_quota(sha, total)
                write_atomic(self._meta(sha), json.dumps({"total": total}))
            self._busy.add(sha)
        try:
            with open(self._part(sha), "ab") as f:
                remaining = length
                stalled = False
                while remaining > 0:
                    try:
                        data = body.read(min(READ_CHUNK, remaining))
                    except (TimeoutError, ConnectionError):
                        stalled = True
                        break
                    if not data:
                        break  # the client went away: keep what arrived, the next HEAD reports it
                    f.write(data)
                    f.flush()
                    remaining -= len(data)
            offset = os.path.getsize(self._part(sha))
            if stalled:
                raise ApiError("bad_request", f"upload {sha[:12]}… stalled: no bytes for {stall_seconds:g} s; kept {offset} of {total} bytes, "
                               f"continue from Upload-Offset", status=408, headers={"Upload-Offset": str(offset)})
            if offset < total:
                return offset, False
            return self._finish(sha, total), True
        finally:
            with self._lock:
                self._busy.discard(sha)

    def used_bytes(self, leave_out: Optional[str] = None) -> int:
        """What the uploads hold or have claimed: each complete upload's size, each one under way's declared total."""
        used = 0
        for name in os.listdir(self.root):
            sha, _, ext = name.partition(".")
            if sha == leave_out or not SHA_RE.match(sha):
                continue
            if ext == "":
                used += os.path.getsize(os.path.join(self.root, name))
            elif ext == "json":
                used += self._declared_total(sha) or 0
        return used

    def _check_quota(self, sha: str, total: int) -> None:
        if self.quota_bytes is None:
            return
        used = self.used_bytes(leave_out=sha)
        if used + total > self.quota_bytes:
            raise ApiError("quota_exceeded", f"upload of {total} bytes would bring the workdir's uploads to {used + total} bytes, over its quota of "
                           f"{self.quota_bytes} (--upload-quota-gib); the operator can delete old uploads in {self.root}", field="Content-Range")

    def _declared_total(self, sha: str) -> Optional[int]:
        try:
            with open(self._meta(sha), "r", encoding="utf-8") as f:
                return int(json.load(f)["total"])
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError):
            # Unreadable (an empty file left by a version that wrote it in place): no declaration, as if absent; the
            # next chunk declares the total again and the offset check still guards the bytes already kept.
            return None

    def _finish(self, sha: str, total: int) -> int:
        h = hashlib.sha256()
        with open(self._part(sha), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        got = h.hexdigest()
        if got != sha:
            os.remove(self._part(sha))
            os.remove(self._meta(sha))
            raise ApiError("checksum_mismatch", f"the {total} bytes received hash to {got}, not {sha}; the partial upload was deleted")
        os.replace(self._part(sha), self.complete_path(sha))
        os.remove(self._meta(sha))
        return total
