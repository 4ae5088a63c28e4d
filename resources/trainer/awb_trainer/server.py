"""The HTTP service of docs/trainer-protocol.md on http.server's ThreadingHTTPServer: bearer-token auth,
resumable uploads, jobs, an NDJSON event stream with replay and live follow, cancel, and artifacts with Range."""

from __future__ import annotations

import hmac
import json
import os
import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

from . import PROTOCOL_VERSION, SERVICE, jobdir
from .errors import ApiError, ConfigError
from .jobs import available_kinds, missing_for, torch_info, vlm_models
from .jobs.config import parse_config, parse_kind
from .jobs.vlm_resume import resume_adapter_dir
from .publish_keys import ENV as PUBLISH_KEYS_ENV, check_publish_key
from .runner import Runner
from .store import JobStore
from .uploads import UploadStore, check_sha

MAX_JSON_BODY = 1 << 20
STREAM_WAIT_S = 5.0
RANGE_RE = re.compile(r"^bytes=(\d*)-(\d*)$")


class TrainerService:
    """Everything the handlers share: the token, the stores, the queue."""

    def __init__(self, workdir: str, token: str, gpus: int = 1, max_upload_bytes: int = 1 << 40, log: bool = True,
                 upload_read_timeout: float = 30.0, publish_keys: Optional[dict[str, Optional[str]]] = None,
                 upload_quota_bytes: Optional[int] = None):
        self.workdir = workdir
        # An upload chunk whose bytes stop arriving for this long is released (kept up to there, the connection
        # closed): a client whose side vanished without a FIN must not hold the upload for the socket's 120 s.
        self.upload_read_timeout = upload_read_timeout
        if len(token) < 16:  # an empty or short token must never mean "no authentication"
            raise ValueError("the bearer token must be at least 16 characters")
        self._token = token.encode("utf-8")
        self.gpus = gpus
        self.log = log
        self.uploads = UploadStore(workdir, max_upload_bytes, quota_bytes=upload_quota_bytes)
        # The environment variables jobs may send as a publish key, each with the origin it may go to (publish_keys.py).
        self.publish_keys = dict(publish_keys or {})
        self.jobs = JobStore(workdir)
        self.runner = Runner(self.jobs, env={PUBLISH_KEYS_ENV: json.dumps(self.publish_keys)})
        self.stopping = threading.Event()

    def authorized(self, header: Optional[str]) -> bool:
        scheme, _, value = (header or "").partition(" ")
        # compare_digest on bytes of possibly different lengths still takes time independent of where they differ
        return scheme == "Bearer" and hmac.compare_digest(value.strip().encode("utf-8"), self._token)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "awb-trainer/1"
    # Socket timeout: a client that stalls mid-upload releases the upload (and its thread) after this long.
    timeout = 120
    service: TrainerService  # set on the subclass made by make_server

    # -- plumbing --------------------------------------------------------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:
        if self.service.log:  # request lines carry no token: it travels in the Authorization header only
            sys.stderr.write(f"awb-trainer: {self.address_string()} {format % args}\n")

    def _send_json(self, status: int, body: Any, headers: Optional[dict[str, str]] = None) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if self._unread_body():
            # The request body was not read (an early error): close rather than parse it as the next request.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _unread_body(self) -> bool:
        """Whether bytes of this request's body may still be on the connection: then it is closed after the answer, never
        read as the next request. A body framed some other way (chunked, a length that is not a number) counts as unread."""
        if getattr(self, "_body_read", False):
            return False
        if self.headers.get("Transfer-Encoding"):
            return True
        length = self.headers.get("Content-Length")
        return length is not None and (not length.isdigit() or int(length) > 0)

    def _content_length(self) -> int:
        """The body's length: absent is 0; a negative, non-numeric or chunked one is refused (400, connection closed)."""
        if self.headers.get("Transfer-Encoding"):
            raise ApiError("bad_request", f"Transfer-Encoding {self.headers.get('Transfer-Encoding')!r} is not accepted; send Content-Length",
                           field="Transfer-Encoding")
        raw = self.headers.get("Content-Length")
        if raw is None:
            return 0
        if not raw.strip().isdigit():
            raise ApiError("bad_request", f"Content-Length must be a non-negative integer, got {raw[:40]!r}", field="Content-Length")
        return int(raw)

    def _dispatch(self) -> None:
        self._body_read = False
        try:
            if not self.service.authorized(self.headers.get("Authorization")):
                raise ApiError("unauthorized", "missing or wrong bearer token")
            url = urllib.parse.urlsplit(self.path)
            parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
            query = urllib.parse.parse_qs(url.query)
            self._route(parts, query)
        except ApiError as e:
            if e.status == 408:
                self.log_message("%s", e.message)
            try:
                self._send_json(e.status, e.body(), e.headers)
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                self.close_connection = True  # the client is gone (a stalled upload): nobody to answer
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # an unexpected bug answers 500 with its type, never a dropped connection
            self.log_message("internal error: %s: %s", type(e).__name__, e)
            self._send_json(500, ApiError("internal", f"{type(e).__name__}: {e}").body())

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _dispatch

    def _route(self, parts: list[str], query: dict) -> None:
        m = self.command
        if parts[:1] != ["v1"]:
            raise ApiError("not_found", f"no route {m} {self.path.split('?')[0]}")
        p = parts[1:]
        if m == "GET" and p == ["health"]:
            return self._health()
        if len(p) == 2 and p[0] == "uploads":
            if m == "HEAD":
                return self._upload_head(check_sha(p[1]))
            if m == "PUT":
                return self._upload_put(check_sha(p[1]))
        if p == ["jobs"]:
            if m == "POST":
                return self._create_job()
            if m == "GET":
                return self._send_json(200, {"jobs": [jobdir.public_job(r) for r in self.service.jobs.list()]})
        if len(p) == 2 and p[0] == "jobs" and m == "GET":
            return self._send_json(200, jobdir.public_job(self.service.jobs.get(p[1])))
        if len(p) == 3 and p[0] == "jobs" and p[2] == "cancel" and m == "POST":
            return self._send_json(200, jobdir.public_job(self.service.jobs.cancel(p[1])))
        if len(p) == 3 and p[0] == "jobs" and p[2] == "events" and m == "GET":
            return self._events(p[1], query)
        if len(p) >= 4 and p[0] == "jobs" and p[2] == "artifacts" and m in ("GET", "HEAD"):
            return self._artifact(p[1], "/".join(p[3:]))
        raise ApiError("not_found", f"no route {m} {self.path.split('?')[0]}")

    # -- health and uploads ----------------------------------------------------------------------------------

    def _health(self) -> None:
        self._send_json(200, {"service": SERVICE, "version": PROTOCOL_VERSION, **torch_info(), "kinds": available_kinds(),
                                   "vlmModels": vlm_models()})

    def _upload_headers(self, offset: int, complete: bool) -> dict[str, str]:
        return {"Upload-Offset": str(offset), "Upload-Complete": "?1" if complete else "?0", "Cache-Control": "no-store"}

    def _upload_head(self, sha: str) -> None:
        offset, complete = self.service.uploads.status(sha)
        self._send_json(200, {"offset": offset, "complete": complete}, self._upload_headers(offset, complete))

    def _upload_put(self, sha: str) -> None:
        length = self._content_length() if self.headers.get("Content-Length") is not None else None
        self._body_read = True  # UploadStore reads it, or raises before reading (then the connection closes)
        self.connection.settimeout(self.service.upload_read_timeout)
        try:
            offset, complete = self.service.uploads.put(sha, self.headers.get("Content-Range"), length, self.rfile,
                                                        stall_seconds=self.service.upload_read_timeout)
        except ApiError:
            # A failed chunk may have left bytes unread on the connection: it is closed after the answer.
            self._body_read = False
            raise
        finally:
            self.connection.settimeout(self.timeout)
        status = 201 if complete else 200
        self._send_json(status, {"offset": offset, "complete": complete}, self._upload_headers(offset, complete))

    # -- jobs ------------------------------------------------------------------------------------------------

    def _read_json(self) -> Any:
        length = self._content_length()
        if length > MAX_JSON_BODY:
            raise ApiError("bad_request", f"body of {length} bytes exceeds {MAX_JSON_BODY}")
        raw = self.rfile.read(length)
        self._body_read = True
        try:
            return json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ApiError("bad_request", f"body is not JSON ({e})") from e
        except RecursionError:  # [[[[…]]]] deeper than the interpreter's recursion limit: the parser gives up
            raise ApiError("bad_request", "body nests arrays or objects too deeply to parse") from None

    def _create_job(self) -> None:
        body = self._read_json()
        if not isinstance(body, dict):
            raise ApiError("bad_request", f"body must be a JSON object, got {type(body).__name__}")
        key = body.get("idempotencyKey")
        if not isinstance(key, str) or not 1 <= len(key) <= 200:
            raise ApiError("bad_request", f"idempotencyKey must be a string of 1..200 characters, got {key!r}", field="idempotencyKey")
        name = body.get("name")
        if name is not None and (not isinstance(name, str) or len(name) > 500):
            raise ApiError("bad_request", f"name must be a string of at most 500 characters, got {name!r}", field="name")
        unknown = set(body) - {"idempotencyKey", "kind", "dataset", "config", "name"}
        if unknown:
            raise ApiError("bad_request", f"unknown fields {sorted(unknown)}", field=sorted(unknown)[0])
        try:
            kind = parse_kind(body.get("kind"))
            config = parse_config(kind, body.get("config"))
            check_publish_key(config.get("publish"), self.service.publish_keys)
        except ConfigError as e:
            raise ApiError("bad_request", str(e), field=e.field) from e
        missing = missing_for(kind, config)
        if missing is not None:
            field = "kind" if missing_for(kind) is not None else "config.model"
            raise ApiError("unsupported_kind", f"this trainer cannot run {kind}: {missing}", field=field)
        if config.get("resumeFrom"):
            try:
                resume_adapter_dir(self.service.jobs.root, config)
            except ConfigError as e:
                raise ApiError("unprocessable", str(e), field=e.field) from e
        dataset = body.get("dataset")
        if not isinstance(dataset, str):
            raise ApiError("bad_request", f"dataset must be a sha256, got {dataset!r}", field="dataset")
        check_sha(dataset, "dataset")
        if not self.service.uploads.is_complete(dataset):
            raise ApiError("conflict", f"dataset {dataset} is not a complete upload", field="dataset")
        rec, created = self.service.jobs.create(body, config, self.service.uploads.complete_path(dataset), self.service.gpus)
        if created:
            self.service.runner.wake()
        self._send_json(201 if created else 200, jobdir.public_job(rec))

    def _events(self, job_id: str, query: dict) -> None:
        raw_after = (query.get("after") or ["0"])[0]
        if not raw_after.isdigit():
            raise ApiError("bad_request", f"after must be a non-negative integer, got {raw_after!r}", field="after")
        seen = int(raw_after)
        store = self.service.jobs
        store.get(job_id)  # not_found before the headers go out
        d = store.dir(job_id)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        offset = 0
        while not self.service.stopping.is_set():
            events, offset = jobdir.read_events_at(d, offset)
            done = False
            lines = b""
            for ev in events:
                if ev["seq"] <= seen:
                    continue
                lines += json.dumps(ev, separators=(",", ":")).encode("utf-8") + b"\n"
                seen = ev["seq"]
                if ev["type"] == "status" and ev["status"] in jobdir.FINAL_STATUSES:
                    done = True
            if lines:
                self._chunk(lines)
            rec = store.get(job_id)
            if done or (rec["status"] in jobdir.FINAL_STATUSES and seen >= rec["lastSeq"]):
                break
            with store.changed:
                if store.get(job_id)["lastSeq"] <= seen:
                    store.changed.wait(STREAM_WAIT_S)
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")
        self.wfile.flush()

    def _artifact(self, job_id: str, name: str) -> None:
        self.service.jobs.get(job_id)
        path = jobdir.artifact_path(self.service.jobs.dir(job_id), name)
        if path is None:
            raise ApiError("not_found", f"job {job_id} has no artifact {name!r}")
        size = os.path.getsize(path)
        start, end, status = 0, size - 1, 200
        header = self.headers.get("Range")
        if header:
            start, end = _parse_range(header, size)
            status = 206
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if name.endswith(".json") else "application/octet-stream")
        self.send_header("Content-Length", str(max(0, end - start + 1)))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        if self.command == "HEAD":
            return
        with open(path, "rb") as f:
            f.seek(start)
            remaining = end - start + 1
            while remaining > 0:
                data = f.read(min(1 << 20, remaining))
                if not data:
                    break
                self.wfile.write(data)
                remaining -= len(data)


def _parse_range(header: str, size: int) -> tuple[int, int]:
    """One byte range (`bytes=a-b`, `bytes=a-`, `bytes=-n`) → inclusive (start, end); 416 when unsatisfiable."""
    m = RANGE_RE.match(header.strip())
    bad = ApiError("bad_request", f"Range {header!r} is not one satisfiable byte range of a {size}-byte file",
                   field="Range", headers={"Content-Range": f"bytes */{size}"}, status=416)
    if not m or (not m.group(1) and not m.group(2)):
        raise bad
    if not m.group(1):
        n = int(m.group(2))
        if n == 0 or size == 0:
            raise bad
        return max(0, size - n), size - 1
    start = int(m.group(1))
    end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
    if start >= size or end < start:
        raise bad
    return start, end


def make_server(service: TrainerService, host: str, port: int) -> ThreadingHTTPServer:
    handler = type("BoundHandler", (Handler,), {"service": service})
    httpd = ThreadingHTTPServer((host, port), handler)
    httpd.daemon_threads = True
    return httpd


class RunningService:
    """A started service (tests and `serve`): the HTTP server thread and the job runner."""

    def __init__(self, service: TrainerService, host: str = "127.0.0.1", port: int = 0, poll_interval: float = 0.5):
        """poll_interval: how often the HTTP loop checks for shutdown, i.e. how long stop() can wait for it (tests
        that start a service each pass a short one)."""
        self.service = service
        self.httpd = make_server(service, host, port)
        self.host, self.port = self.httpd.server_address[:2]
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(poll_interval,), name="awb-http", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> "RunningService":
        self.service.runner.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self.service.stopping.set()
        with self.service.jobs.changed:
            self.service.jobs.changed.notify_all()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.service.runner.stop()
