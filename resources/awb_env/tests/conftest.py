"""One embedded environment server for the whole test session, recording into a fresh store in a temporary folder.

Every face is tested against it (AWB_ENV_URL points them there); tests of the embedded server itself start their
own. Nothing here skips: a missing node, checkout or package fails the tests that need it, with its own message.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("awb-store") / "trajectories.db"


@pytest.fixture(scope="session", autouse=True)
def server_url(store_path: Path) -> Iterator[str]:
    from awb_env import server

    os.environ.pop("AWB_ENV_URL", None)
    os.environ["AWB_DB"] = str(store_path)
    shared = server.acquire()
    os.environ["AWB_ENV_URL"] = shared.url
    yield shared.url
    os.environ.pop("AWB_ENV_URL", None)
    server.release(shared)


class Store:
    """Read-only queries on the session's trajectory store (the schema of core/store/migrations)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        with sqlite3.connect(f"file:{self.path}?mode=ro", uri=True) as db:
            return db.execute(sql, args).fetchall()

    def episodes(self, run: str) -> list[dict[str, Any]]:
        rows = self.rows(
            "SELECT e.id, e.policy, e.status, e.steps_count, e.terminated_by FROM episodes e JOIN runs r ON r.id = e.run_id"
            " WHERE r.name = ? ORDER BY e.id", run)
        return [dict(zip(("id", "policy", "status", "steps", "terminated_by"), r)) for r in rows]

    def steps(self, episode: int) -> list[dict[str, Any]]:
        rows = self.rows("SELECT idx, action_type, error_name, reply, prompt, thought FROM steps"
                         " WHERE episode_id = ? ORDER BY idx", episode)
        return [dict(zip(("idx", "action_type", "error_name", "reply", "prompt", "thought"), r)) for r in rows]


@pytest.fixture(scope="session")
def store(store_path: Path) -> Store:
    return Store(store_path)


@pytest.fixture(scope="session")
def tiny_vlm() -> str:
    """The tiny random Qwen2.5-VL: AWB_TINY_VLM, else built (cached) by resources/trainer/tools/make_tiny_vlm.py."""
    path = os.environ.get("AWB_TINY_VLM")
    if path:
        return path
    tool = ROOT / "resources" / "trainer" / "tools" / "make_tiny_vlm.py"
    done = subprocess.run([sys.executable, str(tool), "--cached"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"make_tiny_vlm.py --cached failed: {done.stderr[-800:]}"
    return done.stdout.strip().splitlines()[-1]
