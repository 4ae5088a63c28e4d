"""The test Ray head's start when a picked port is taken before Ray binds it: tried again with fresh ports, and only
for that error (tests/ray_head.py)."""

from __future__ import annotations

import os
import unittest

from tests import ray_head


class _Owner:
    temp_dir = ""


class StartWithFreshPorts(unittest.TestCase):
    def test_a_taken_port_is_tried_again_in_a_fresh_temp_dir(self) -> None:
        owner, tries = _Owner(), []

        def once() -> str:
            tries.append(owner.temp_dir)
            if len(tries) < 3:
                raise ray_head.RayHeadError("ray start exited with code 1", "[Errno 98] ... address already in use")
            return "started"

        self.assertEqual(ray_head._start_with_fresh_ports(owner, once), "started")
        self.assertEqual(len(tries), 3)
        self.assertEqual(len(set(tries)), 3, "each try has its own temp dir")
        for d in tries[1:]:
            os.rmdir(d)

    def test_other_failures_and_the_last_taken_port_are_raised(self) -> None:
        owner = _Owner()

        def broken() -> str:
            raise ray_head.RayHeadError("the dashboard did not answer within 90 s")

        with self.assertRaisesRegex(ray_head.RayHeadError, "did not answer"):
            ray_head._start_with_fresh_ports(owner, broken)
        self.assertEqual(owner.temp_dir, "", "no retry for another error")

        dirs = []

        def always_taken() -> str:
            dirs.append(owner.temp_dir)
            raise ray_head.RayHeadError("ray start exited with code 1", "address already in use")

        with self.assertRaisesRegex(ray_head.RayHeadError, "address already in use"):
            ray_head._start_with_fresh_ports(owner, always_taken)
        self.assertEqual(len(dirs), ray_head._START_TRIES)
        for d in dirs[1:]:
            os.rmdir(d)


if __name__ == "__main__":
    unittest.main()
