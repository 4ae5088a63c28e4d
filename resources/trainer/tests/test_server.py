"""The HTTP service against docs/trainer-protocol.md: auth, uploads, idempotency, events, cancel, artifacts, restart."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
import time
import unittest

from tests import helpers
from tests.helpers import TOKEN, Client


class ServiceTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.svc = helpers.start_service(self.tmp.name)
        self.c = Client(self.svc.url)

    def tearDown(self) -> None:
        self.svc.stop()
        self.tmp.cleanup()


class AuthAndHealth(ServiceTest):
    def test_requests_without_or_with_a_wrong_token_get_401_unauthorized(self) -> None:
        for token in (None, "wrong-token", TOKEN + "x"):
            status, body = Client(self.svc.url, token).json("GET", "/v1/health")
            self.assertEqual(status, 401)
            self.assertEqual(body["error"]["code"], "unauthorized")
        status, _, _ = Client(self.svc.url, None).request("PUT", "/v1/uploads/" + "a" * 64, b"xyz", {"Content-Range": "bytes 0-2/3"})
        self.assertEqual(status, 401)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "uploads", "a" * 64 + ".part")))

    def test_health_lists_the_service_torch_and_runnable_kinds(self) -> None:
        status, body = self.c.json("GET", "/v1/health")
        self.assertEqual(status, 200)
        self.assertEqual((body["service"], body["version"]), ("awb-trainer", "1"))
        import torch

        self.assertEqual(body["torch"], torch.__version__.split("+")[0])  # the service reports the release, not the build tag
        if not body["cuda"]:
            self.assertEqual(body["devices"], ["cpu"])
        self.assertEqual(body["kinds"][:4], ["builtin-sft", "builtin-grpo", "progrm", "prm"])

    def test_unknown_route_is_not_found(self) -> None:
        status, body = self.c.json("GET", "/v1/nothing")
        self.assertEqual((status, body["error"]["code"]), (404, "not_found"))


class Uploads(ServiceTest):
    def put(self, sha: str, data: bytes, start: int, total: int) -> tuple[int, dict, bytes]:
        return self.c.request("PUT", f"/v1/uploads/{sha}", data, {"Content-Range": f"bytes {start}-{start + len(data) - 1}/{total}"})

    def head(self, sha: str) -> dict:
        status, headers, _ = self.c.request("HEAD", f"/v1/uploads/{sha}")
        self.assertEqual(status, 200)
        return headers

    def test_a_stalled_chunk_is_released_after_the_read_timeout_keeping_what_arrived(self) -> None:
        # Issue 16, D9: a client whose side vanished without closing held the upload for the socket's 120 s, every other
        # PUT answered 409 meanwhile, and the release logged "internal error: TimeoutError" with a traceback.
        import socket
        import time
        from awb_trainer.server import RunningService, TrainerService
        svc = RunningService(TrainerService(self.tmp.name + "-stall", TOKEN, log=False, upload_read_timeout=1.0), poll_interval=0.02).start()
        try:
            client = Client(svc.url)
            data = os.urandom(5000)
            sha = hashlib.sha256(data).hexdigest()
            stalled = socket.create_connection(("127.0.0.1", svc.port))
            stalled.sendall((f"PUT /v1/uploads/{sha} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                             f"Content-Range: bytes 0-4999/5000\r\nContent-Length: 5000\r\n\r\n").encode() + data[:1200])
            time.sleep(0.3)
            put = lambda start: client.request("PUT", f"/v1/uploads/{sha}", data[start:], {"Content-Range": f"bytes {start}-4999/5000"})
            self.assertEqual(put(1200)[0], 409)  # still being received
            deadline = time.monotonic() + 10
            while True:
                status, headers, _ = client.request("HEAD", f"/v1/uploads/{sha}")
                if time.monotonic() > deadline or put(int(headers["upload-offset"]))[0] != 409:
                    break
                time.sleep(0.2)
            self.assertEqual(client.request("HEAD", f"/v1/uploads/{sha}")[1]["upload-complete"], "?1")
            with open(os.path.join(self.tmp.name + "-stall", "uploads", sha), "rb") as f:
                self.assertEqual(f.read(), data)
            stalled.settimeout(5)
            self.assertTrue(stalled.recv(4096).startswith(b"HTTP/1.1 408"))  # told why, then closed
            stalled.close()
        finally:
            svc.stop()
            import shutil
            shutil.rmtree(self.tmp.name + "-stall", ignore_errors=True)

    def test_an_empty_upload_record_left_behind_does_not_block_the_upload(self) -> None:
        # Issue 16: an empty uploads/<sha>.json (written in place by an older version, then a crash) made every PUT of
        # that sha a permanent 500 JSONDecodeError. It is now written atomically, and an unreadable one is no declaration.
        data = os.urandom(3000)
        sha = hashlib.sha256(data).hexdigest()
        with open(os.path.join(self.tmp.name, "uploads", sha + ".json"), "w"):
            pass
        self.assertEqual(self.put(sha, data[:1000], 0, len(data))[0], 200)
        self.assertEqual(self.put(sha, data[1000:], 1000, len(data))[0], 201)
        self.assertEqual(os.listdir(os.path.join(self.tmp.name, "uploads")), [sha])  # complete: record and part gone, no temporary left

    def test_chunks_advance_the_offset_and_the_last_one_completes_with_201(self) -> None:
        data = os.urandom(10_000)
        sha = hashlib.sha256(data).hexdigest()
        self.assertEqual((self.head(sha)["upload-offset"], self.head(sha)["upload-complete"]), ("0", "?0"))
        status, headers, _ = self.put(sha, data[:4000], 0, len(data))
        self.assertEqual((status, headers["upload-offset"], headers["upload-complete"]), (200, "4000", "?0"))
        self.assertEqual(self.head(sha)["upload-offset"], "4000")
        status, headers, _ = self.put(sha, data[4000:], 4000, len(data))
        self.assertEqual((status, headers["upload-complete"]), (201, "?1"))
        self.assertEqual((self.head(sha)["upload-offset"], self.head(sha)["upload-complete"]), ("10000", "?1"))
        # A retried last chunk (its 201 was lost) answers complete, and the kept-alive connection stays usable.
        import http.client

        conn = http.client.HTTPConnection(self.c.host, self.c.port, timeout=10)
        auth = {"Authorization": f"Bearer {TOKEN}"}
        conn.request("PUT", f"/v1/uploads/{sha}", data[4000:], {**auth, "Content-Range": f"bytes 4000-9999/{len(data)}"})
        resp = conn.getresponse()
        resp.read()
        self.assertEqual((resp.status, resp.getheader("Upload-Complete")), (201, "?1"))
        conn.request("HEAD", f"/v1/uploads/{sha}", headers=auth)
        resp = conn.getresponse()
        resp.read()
        self.assertEqual((resp.status, resp.getheader("Upload-Offset")), (200, "10000"))
        conn.close()

    def test_a_chunk_not_at_the_offset_is_a_conflict_carrying_the_offset(self) -> None:
        data = os.urandom(3000)
        sha = hashlib.sha256(data).hexdigest()
        self.put(sha, data[:1000], 0, 3000)
        status, headers, raw = self.put(sha, data[2000:], 2000, 3000)
        self.assertEqual((status, json.loads(raw)["error"]["code"], headers["upload-offset"]), (409, "conflict", "1000"))
        status, headers, _ = self.put(sha, data[:1000], 0, 3000)  # a resent first chunk is refused too
        self.assertEqual((status, headers["upload-offset"]), (409, "1000"))

    def test_a_checksum_mismatch_answers_422_and_deletes_the_partial_upload(self) -> None:
        data = os.urandom(2048)
        wrong = hashlib.sha256(b"something else").hexdigest()
        self.put(wrong, data[:1024], 0, 2048)
        status, _, raw = self.put(wrong, data[1024:], 1024, 2048)
        self.assertEqual((status, json.loads(raw)["error"]["code"]), (422, "checksum_mismatch"))
        self.assertEqual(self.head(wrong)["upload-offset"], "0")
        self.assertEqual(os.listdir(os.path.join(self.tmp.name, "uploads")), [])

    def test_a_dropped_connection_keeps_the_bytes_that_arrived_and_the_upload_resumes(self) -> None:
        data = os.urandom(200_000)
        sha = hashlib.sha256(data).hexdigest()
        sock = socket.create_connection((self.c.host, self.c.port))
        head = (f"PUT /v1/uploads/{sha} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                f"Content-Range: bytes 0-{len(data) - 1}/{len(data)}\r\nContent-Length: {len(data)}\r\n\r\n").encode()
        sock.sendall(head + data[:70_000])
        time.sleep(0.3)
        sock.close()  # mid-chunk
        deadline = time.monotonic() + 5
        while int(self.head(sha)["upload-offset"]) < 70_000 and time.monotonic() < deadline:
            time.sleep(0.05)
        offset = int(self.head(sha)["upload-offset"])
        self.assertEqual(offset, 70_000)
        status, headers, _ = self.put(sha, data[offset:], offset, len(data))
        self.assertEqual((status, headers["upload-complete"]), (201, "?1"))
        with open(os.path.join(self.tmp.name, "uploads", sha), "rb") as f:
            self.assertEqual(f.read(), data)

    def test_bad_sha_and_bad_content_range_are_bad_requests(self) -> None:
        status, _, raw = self.put("ABC", b"x", 0, 1)
        self.assertEqual((status, json.loads(raw)["error"]["field"]), (400, "sha256"))
        status, _, raw = self.c.request("PUT", "/v1/uploads/" + "b" * 64, b"xy", {"Content-Range": "bytes 5-1/3"})
        self.assertEqual((status, json.loads(raw)["error"]["field"]), (400, "Content-Range"))


class Jobs(ServiceTest):
    def test_an_idempotency_key_returns_the_same_job_and_refuses_a_different_body(self) -> None:
        sha = self.c.upload(helpers.builtin_bundle("builtin-sft"))
        body = {"idempotencyKey": "key-1", "kind": "builtin-sft", "dataset": sha, "config": {"epochs": 1}}
        s1, j1 = self.c.json("POST", "/v1/jobs", body)
        s2, j2 = self.c.json("POST", "/v1/jobs", body)
        self.assertEqual((s1, s2, j1["id"]), (201, 200, j2["id"]))
        s3, err = self.c.json("POST", "/v1/jobs", {**body, "config": {"epochs": 2}})
        self.assertEqual((s3, err["error"]["code"]), (409, "conflict"))
        _, listing = self.c.json("GET", "/v1/jobs")
        self.assertEqual(len(listing["jobs"]), 1)
        self.assertEqual(set(listing["jobs"][0]), {"id", "kind", "name", "status", "createdAt", "startedAt", "finishedAt", "error", "artifacts", "lastSeq"})

    def test_a_dataset_that_is_not_a_complete_upload_is_a_conflict(self) -> None:
        status, body = self.c.submit("builtin-sft", "c" * 64, {})
        self.assertEqual((status, body["error"]["code"], body["error"]["field"]), (409, "conflict", "dataset"))

    def test_bad_kind_and_bad_config_name_the_field(self) -> None:
        sha = self.c.upload(helpers.builtin_bundle("builtin-sft"))
        status, body = self.c.submit("builtin-rl", sha, {})
        self.assertEqual((status, body["error"]["field"]), (400, "kind"))
        status, body = self.c.submit("builtin-sft", sha, {"learningRate": -1})
        self.assertEqual((status, body["error"]["field"]), (400, "config.learningRate"))
        self.assertIn("-1", body["error"]["message"])
        status, body = self.c.submit("builtin-grpo", sha, {"aggregation": "token-mean"})
        self.assertEqual((status, body["error"]["field"]), (400, "config.aggregation"))
        status, body = self.c.submit("builtin-sft", sha, {"epochz": 1})
        self.assertEqual((status, body["error"]["field"]), (400, "config.epochz"))

    def test_events_replay_after_a_seq_end_at_the_final_status_and_artifacts_download_whole_and_by_range(self) -> None:
        sha = self.c.upload(helpers.builtin_bundle("builtin-sft"))
        _, job = self.c.submit("builtin-sft", sha, {"epochs": 3})
        # A live follow from 0 returns once the job ends; it holds every event exactly once, in order.
        events = self.c.events(job["id"])
        self.assertEqual([e["seq"] for e in events], list(range(1, len(events) + 1)))
        self.assertEqual([e["status"] for e in events if e["type"] == "status"], ["queued", "running", "succeeded"])
        self.assertEqual(len([e for e in events if e["type"] == "metric"]), 3)
        self.assertEqual(self.c.events(job["id"], after=4), events[4:])
        self.assertEqual(self.c.events(job["id"], after=events[-1]["seq"]), [])
        job = self.c.wait(job["id"])
        self.assertEqual((job["status"], job["lastSeq"]), ("succeeded", events[-1]["seq"]))
        art = {a["name"]: a for a in job["artifacts"]}
        self.assertEqual(set(art), {"metrics.jsonl", "policy.json", "policy.onnx"})
        path = f"/v1/jobs/{job['id']}/artifacts/policy.onnx"
        status, headers, whole = self.c.request("GET", path)
        self.assertEqual((status, len(whole), hashlib.sha256(whole).hexdigest()), (200, art["policy.onnx"]["size"], art["policy.onnx"]["sha256"]))
        self.assertEqual(headers["accept-ranges"], "bytes")
        status, headers, part = self.c.request("GET", path, headers={"Range": "bytes=10-99"})
        self.assertEqual((status, part, headers["content-range"]), (206, whole[10:100], f"bytes 10-99/{len(whole)}"))
        status, _, tail = self.c.request("GET", path, headers={"Range": "bytes=-16"})
        self.assertEqual((status, tail), (206, whole[-16:]))
        status, headers, _ = self.c.request("GET", path, headers={"Range": f"bytes={len(whole)}-"})
        self.assertEqual((status, headers["content-range"]), (416, f"bytes */{len(whole)}"))
        status, _, _ = self.c.request("GET", f"/v1/jobs/{job['id']}/artifacts/..%2Fjob.json")
        self.assertEqual(status, 404)

    def test_jobs_queue_in_order_a_resumed_stream_loses_nothing_and_cancel_stops_running_and_queued_jobs(self) -> None:
        sha = self.c.upload(helpers.builtin_bundle("builtin-sft", episodes=40))
        _, running = self.c.submit("builtin-sft", sha, {"epochs": 10_000, "batchSize": 4})
        _, queued = self.c.submit("builtin-sft", sha, {"epochs": 1})
        _, listing = self.c.json("GET", "/v1/jobs")
        self.assertEqual([j["id"] for j in listing["jobs"]], [queued["id"], running["id"]])  # newest first
        self.c.wait(running["id"], statuses=("running",))
        # Read a few lines of the live stream, drop the connection, resume with after = the last seq seen.
        conn = socket.create_connection((self.c.host, self.c.port))
        conn.sendall(f"GET /v1/jobs/{running['id']}/events?after=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode())
        buf = b""
        while buf.count(b"\n{") < 4:
            buf += conn.recv(4096)
        conn.close()
        body = buf.split(b"\r\n\r\n", 1)[1]
        seen = [json.loads(line) for line in _dechunk(body).splitlines() if line.strip().startswith(b"{") and line.strip().endswith(b"}")]
        self.assertEqual(self.c.json("GET", f"/v1/jobs/{queued['id']}")[1]["status"], "queued")  # one job at a time
        status, q = self.c.json("POST", f"/v1/jobs/{queued['id']}/cancel")
        self.assertEqual((status, q["status"]), (200, "cancelled"))
        _, r = self.c.json("POST", f"/v1/jobs/{running['id']}/cancel")
        self.assertEqual(r["status"], "running")  # until the next step boundary
        rest = self.c.events(running["id"], after=seen[-1]["seq"])
        seqs = [e["seq"] for e in seen] + [e["seq"] for e in rest]
        self.assertEqual(seqs, list(range(1, len(seqs) + 1)))
        self.assertEqual(rest[-1]["status"], "cancelled")
        done = self.c.wait(running["id"], timeout=30)
        self.assertEqual((done["status"], done["error"], done["artifacts"]), ("cancelled", None, []))
        _, again = self.c.json("POST", f"/v1/jobs/{running['id']}/cancel")
        self.assertEqual(again["status"], "cancelled")
        status, body = self.c.json("POST", "/v1/jobs/nope/cancel")
        self.assertEqual((status, body["error"]["code"]), (404, "not_found"))

    def test_a_failing_job_ends_failed_with_its_message(self) -> None:
        sha = self.c.upload(helpers.builtin_bundle("builtin-sft"))  # an SFT bundle has no advantages
        _, job = self.c.submit("builtin-grpo", sha, {"epochs": 1})
        job = self.c.wait(job["id"])
        self.assertEqual(job["status"], "failed")
        self.assertIn("kind is 'builtin-sft'", job["error"]["message"])
        final = self.c.events(job["id"])[-1]
        self.assertEqual((final["status"], final["error"]), ("failed", job["error"]))


class Restart(unittest.TestCase):
    def test_a_restart_marks_running_jobs_failed_interrupted_and_keeps_queued_ones(self) -> None:
        from awb_trainer.store import JobStore

        with tempfile.TemporaryDirectory() as tmp:
            bundle = os.path.join(tmp, "b.tar")
            with open(bundle, "wb") as f:
                f.write(helpers.builtin_bundle("builtin-sft"))
            store = JobStore(tmp)
            body = {"idempotencyKey": "k1", "kind": "builtin-sft", "dataset": "d" * 64, "config": {}}
            a, _ = store.create(body, {}, bundle, 1)
            b, _ = store.create({**body, "idempotencyKey": "k2"}, {}, bundle, 1)
            store.start(a["id"])
            again = JobStore(tmp)  # a new service on the same workdir
            ra, rb = again.get(a["id"]), again.get(b["id"])
            self.assertEqual((ra["status"], ra["error"]["code"]), ("failed", "interrupted"))
            self.assertEqual(rb["status"], "queued")
            self.assertEqual(ra["lastSeq"], 3)
            c, created = again.create(body, {}, bundle, 1)
            self.assertEqual((c["id"], created), (a["id"], False))


def _dechunk(data: bytes) -> bytes:
    """The payload of a (possibly cut) chunked body."""
    out = b""
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        try:
            size = int(size_line, 16)
        except ValueError:
            break
        out += rest[:size]
        data = rest[size + 2:]
        if size == 0:
            break
    return out


if __name__ == "__main__":
    unittest.main()
