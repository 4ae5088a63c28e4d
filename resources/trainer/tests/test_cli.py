"""`python3 -m awb_trainer serve`: the listening line, the generated token file (0600), loopback by default."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import tempfile
import unittest

from tests import helpers


class ServeCli(unittest.TestCase):
    def test_serve_generates_a_private_token_prints_the_url_and_stops_on_sigterm(self) -> None:
        with tempfile.TemporaryDirectory() as work:
            proc = subprocess.Popen([sys.executable, "-m", "awb_trainer", "serve", "--port", "0", "--workdir", work, "--quiet"],
                                    cwd=helpers.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                line = proc.stdout.readline().strip()
                self.assertRegex(line, r"^awb-trainer listening on http://127\.0\.0\.1:\d+$")
                token_path = os.path.join(work, "token")
                self.assertEqual(stat.S_IMODE(os.stat(token_path).st_mode), 0o600)
                with open(token_path) as f:
                    token = f.read().strip()
                url = line.rsplit(" ", 1)[1]
                status, body = helpers.Client(url, token).json("GET", "/v1/health")
                self.assertEqual((status, body["service"]), (200, "awb-trainer"))
                self.assertEqual(helpers.Client(url, None).json("GET", "/v1/health")[0], 401)
            finally:
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=30)
            self.assertEqual(proc.returncode, 0)
            self.assertEqual(err.count(token), 1)  # printed once, at generation; request lines never carry it

    def test_serve_refuses_an_empty_or_short_token_file_in_the_workdir(self) -> None:
        # Issue 16, D10: an empty DIR/token let `Authorization: Bearer ` (empty) through with 200.
        for content in ("", "\n", "short-token\n"):
            with self.subTest(content=content), tempfile.TemporaryDirectory() as work:
                with open(os.path.join(work, "token"), "w") as f:
                    f.write(content)
                proc = subprocess.run([sys.executable, "-m", "awb_trainer", "serve", "--port", "0", "--workdir", work, "--quiet"],
                                      cwd=helpers.ROOT, capture_output=True, text=True, timeout=60)
                self.assertNotEqual(proc.returncode, 0)
                self.assertEqual(proc.stdout, "")  # never listened
                self.assertIn("shorter than 16 characters", proc.stderr)
                self.assertIn("delete it", proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)

    def test_the_service_refuses_a_short_token(self) -> None:
        from awb_trainer.server import TrainerService
        with tempfile.TemporaryDirectory() as work:
            for token in ("", "x" * 15):
                with self.assertRaises(ValueError):
                    TrainerService(work, token, log=False)


if __name__ == "__main__":
    unittest.main()
