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


if __name__ == "__main__":
    unittest.main()
