"""write_atomic: readers see the old or the new content, concurrent writers never share a temporary, nothing is left."""

from __future__ import annotations

import os
import stat
import tempfile
import threading
import unittest

from awb_trainer.atomic import write_atomic


class WriteAtomic(unittest.TestCase):
    def test_replaces_the_file_with_the_mode_and_leaves_no_temporary(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "token")
            write_atomic(path, "old\n", mode=0o600)
            write_atomic(path, b"new\n", mode=0o600)
            with open(path) as f:
                self.assertEqual(f.read(), "new\n")
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
            self.assertEqual(os.listdir(d), ["token"])

    def test_concurrent_writers_and_a_reader_never_see_a_partial_file(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "job.json")
            bodies = [(str(k) * 50_000).encode() for k in range(4)]
            write_atomic(path, bodies[0])
            seen: set[bytes] = set()
            stop = threading.Event()

            def read() -> None:
                while not stop.is_set():
                    with open(path, "rb") as f:
                        seen.add(f.read())

            def write(body: bytes) -> None:
                for _ in range(150):
                    write_atomic(path, body)

            reader = threading.Thread(target=read)
            reader.start()
            writers = [threading.Thread(target=write, args=(b,)) for b in bodies]
            for w in writers:
                w.start()
            for w in writers:
                w.join()
            stop.set()
            reader.join()
            self.assertTrue(seen)
            self.assertTrue(seen <= set(bodies), "a reader saw a file that no writer wrote whole")
            self.assertEqual(os.listdir(d), ["job.json"])

    def test_a_failed_write_leaves_the_old_file_and_no_temporary(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.json")
            write_atomic(path, "old")
            with self.assertRaises(TypeError):
                write_atomic(path, 42)  # type: ignore[arg-type]
            with open(path) as f:
                self.assertEqual(f.read(), "old")
            self.assertEqual(os.listdir(d), ["x.json"])


if __name__ == "__main__":
    unittest.main()
