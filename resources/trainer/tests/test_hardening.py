"""Issue 32: the publish settings a client sends cannot reach outside the job (a key of the machine, a folder out of
the workdir); the HTTP framing a client sends cannot turn into a 500 or a second request; uploads have a quota."""

from __future__ import annotations

import hashlib
import os
import socket
import tempfile
import unittest

from tests import helpers
from tests.helpers import TOKEN, Client


def start(workdir: str, **kw):
    from awb_trainer.server import RunningService, TrainerService

    return RunningService(TrainerService(workdir, TOKEN, log=False, **kw), poll_interval=0.02).start()


class PublishSettings(unittest.TestCase):
    def test_a_publish_name_that_leaves_the_served_folder_is_a_config_error(self) -> None:
        from awb_trainer.errors import ConfigError
        from awb_trainer.jobs.config import parse_config

        for name in ("../../outside", "a/b", "..", ".hidden", "-x", "", "x" * 101, "a\\b", "name with space"):
            with self.subTest(name=name), self.assertRaises(ConfigError) as e:
                parse_config("vlm-grpo", {"model": "m", "publish": {"baseUrl": "http://h:1", "name": name}})
            self.assertEqual(e.exception.field, "config.publish.name")
        ok = parse_config("vlm-grpo", {"model": "m", "publish": {"baseUrl": "http://h:1", "name": "awb-online-12.v2_b"}})
        self.assertEqual(ok["publish"]["name"], "awb-online-12.v2_b")

    def test_check_publish_key_allows_only_listed_variables_and_their_origin(self) -> None:
        from awb_trainer.errors import ConfigError
        from awb_trainer.publish_keys import check_publish_key, parse_publish_keys

        allowed = parse_publish_keys(["VLLM_API_KEY=http://gpu:8000", "OPEN_KEY"])
        self.assertEqual(allowed, {"VLLM_API_KEY": "http://gpu:8000", "OPEN_KEY": None})
        check_publish_key({"baseUrl": "http://GPU:8000/", "name": "n", "apiKeyEnv": "VLLM_API_KEY"}, allowed)
        check_publish_key({"baseUrl": "https://anywhere", "name": "n", "apiKeyEnv": "OPEN_KEY"}, allowed)
        check_publish_key({"baseUrl": "https://anywhere", "name": "n", "apiKeyEnv": None}, {})
        for publish, field in (({"baseUrl": "http://gpu:8000", "apiKeyEnv": "AWS_SECRET_ACCESS_KEY"}, "config.publish.apiKeyEnv"),
                               ({"baseUrl": "http://attacker:8000", "apiKeyEnv": "VLLM_API_KEY"}, "config.publish.baseUrl"),
                               ({"baseUrl": "https://gpu:8000", "apiKeyEnv": "VLLM_API_KEY"}, "config.publish.baseUrl")):
            with self.subTest(publish=publish), self.assertRaises(ConfigError) as e:
                check_publish_key(publish, allowed)
            self.assertEqual(e.exception.field, field)
        with self.assertRaises(ValueError):
            parse_publish_keys(["NOT A NAME=http://x"])
        with self.assertRaises(ValueError):
            parse_publish_keys(["KEY=ftp://x"])

    def test_the_service_refuses_a_key_it_was_not_started_with_before_anything_is_queued(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            svc = start(tmp, publish_keys={"VLLM_API_KEY": "http://127.0.0.1:8000"})
            try:
                c = Client(svc.url)
                base = {"model": "awb-tiny-lm"}
                # Before: HOME (any variable) was accepted, and the job sent its value to the client's baseUrl.
                for publish, field in (({"baseUrl": "http://127.0.0.1:8000", "name": "p", "apiKeyEnv": "HOME"}, "config.publish.apiKeyEnv"),
                                       ({"baseUrl": "http://127.0.0.1:9", "name": "p", "apiKeyEnv": "VLLM_API_KEY"}, "config.publish.baseUrl"),
                                       ({"baseUrl": "http://127.0.0.1:8000", "name": "../../x", "apiKeyEnv": "VLLM_API_KEY"}, "config.publish.name")):
                    with self.subTest(field=field):
                        status, body = c.submit("vlm-grpo", "a" * 64, {**base, "publish": publish})
                        self.assertEqual((status, body["error"]["code"], body["error"]["field"]), (400, "bad_request", field))
                # Listed, to its origin: the config passes; only the (missing) dataset is refused.
                status, body = c.submit("vlm-grpo", "a" * 64, {**base, "publish": {"baseUrl": "http://127.0.0.1:8000/", "name": "p", "apiKeyEnv": "VLLM_API_KEY"}})
                self.assertEqual((status, body["error"]["field"]), (409, "dataset"))
                self.assertEqual(os.listdir(os.path.join(tmp, "jobs")), [])
            finally:
                svc.stop()


def raw_exchange(url: str, request: bytes, timeout: float = 10.0) -> list[bytes]:
    """Sends raw bytes and reads until the server closes the connection (or the timeout): the responses' bytes."""
    host, port = url.split("//", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except socket.timeout:
            data += b"<timeout: the connection stayed open>"
    return [b"HTTP/1.1 " + part for part in data.split(b"HTTP/1.1 ")[1:]] or [data]


class Framing(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.svc = start(self.tmp.name)
        self.auth = f"Authorization: Bearer {TOKEN}\r\n".encode()

    def tearDown(self) -> None:
        self.svc.stop()
        self.tmp.cleanup()

    def test_a_negative_content_length_is_400_and_closes_the_connection(self) -> None:
        # Before: rfile.read(-5) read until the client gave up (the socket's 120 s).
        out = raw_exchange(self.svc.url, b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + self.auth + b"Content-Length: -5\r\n\r\n{}")
        self.assertEqual(len(out), 1, out)
        self.assertTrue(out[0].startswith(b"HTTP/1.1 400 "), out[0][:200])
        self.assertIn(b'"field": "Content-Length"', out[0])
        self.assertIn(b"Connection: close", out[0])

    def test_deeply_nested_json_is_400_not_500(self) -> None:
        depth = 100_000
        status, body = Client(self.svc.url).json("POST", "/v1/jobs", b"[" * depth + b"]" * depth)
        self.assertEqual((status, body["error"]["code"]), (400, "bad_request"))
        self.assertIn("nests", body["error"]["message"])

    def test_a_refused_chunk_closes_the_connection_its_body_is_never_read_as_a_request(self) -> None:
        sha = "a" * 64
        smuggled = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + self.auth + b"\r\n"
        # Chunked (no Content-Length): before, the refusal kept the connection and parsed the body as the next request.
        chunked = f"{len(smuggled):x}\r\n".encode() + smuggled + b"\r\n0\r\n\r\n"
        for framing, body in ((b"Transfer-Encoding: chunked\r\n", chunked), (b"Content-Length: abc\r\n", smuggled)):
            with self.subTest(framing=framing):
                out = raw_exchange(self.svc.url, b"PUT /v1/uploads/" + sha.encode() + b" HTTP/1.1\r\nHost: x\r\n" + self.auth
                                   + b"Content-Range: bytes 0-9/10\r\n" + framing + b"\r\n" + body)
                self.assertEqual(len(out), 1, out)
                self.assertTrue(out[0].startswith(b"HTTP/1.1 400 "), out[0][:200])
                self.assertIn(b"Connection: close", out[0])
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "uploads", sha + ".part")))


class UploadQuota(unittest.TestCase):
    def test_uploads_past_the_workdir_quota_are_refused_507_before_a_byte_is_kept(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            svc = start(tmp, upload_quota_bytes=10_000)
            try:
                c = Client(svc.url)
                c.upload(os.urandom(6000))
                second = os.urandom(5000)
                sha = hashlib.sha256(second).hexdigest()
                status, _, raw = c.request("PUT", f"/v1/uploads/{sha}", second[:100], {"Content-Range": f"bytes 0-99/{len(second)}"})
                self.assertEqual(status, 507, raw)
                self.assertIn(b'"code": "quota_exceeded"', raw)
                self.assertIn(b"11000 bytes, over its quota of 10000", raw)
                self.assertFalse(any(f.startswith(sha) for f in os.listdir(os.path.join(tmp, "uploads"))))
                # A small one still fits under the quota.
                c.upload(os.urandom(3000))
            finally:
                svc.stop()


if __name__ == "__main__":
    unittest.main()
