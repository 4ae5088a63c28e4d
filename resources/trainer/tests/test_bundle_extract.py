"""Bundle.extract under concurrency: torchrun's ranks extract the same member into the same job directory at once, and
a reader must never see a half-written file (the cause of the 2-rank test's rare failures: an empty init/policy.json in
one rank, then gloo's "connection reset" in its peer)."""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
import unittest

from tests import helpers


def _extract_and_read(bundle_path: str, dest: str, rounds: int, errors) -> None:  # type: ignore[no-untyped-def]
    from awb_trainer.bundle import Bundle

    with Bundle(bundle_path) as b:
        for _ in range(rounds):
            path = b.extract("init/policy.json", dest)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            try:
                json.loads(text)
            except ValueError:
                errors.put(len(text))
                return


class ConcurrentExtract(unittest.TestCase):
    def test_two_processes_extracting_the_same_member_never_read_a_partial_file(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            bundle_path = os.path.join(tmp, "bundle.tar")
            with open(bundle_path, "wb") as f:
                f.write(helpers.builtin_bundle("builtin-sft", episodes=2))
            dest = os.path.join(tmp, "work", "init")
            ctx = multiprocessing.get_context("fork")
            errors = ctx.Queue()
            procs = [ctx.Process(target=_extract_and_read, args=(bundle_path, dest, 1500, errors)) for _ in range(2)]
            for p in procs:
                p.start()
            for p in procs:
                p.join(60)
            self.assertEqual([p.exitcode for p in procs], [0, 0])
            self.assertTrue(errors.empty(), "a process read a partial init/policy.json")
            self.assertEqual(sorted(os.listdir(dest)), ["policy.json"])  # no temporary file left behind


if __name__ == "__main__":
    unittest.main()
