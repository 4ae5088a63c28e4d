"""The embedded server: found from the checkout, shared per process, stopped at exit; clear errors when node or the
checkout is missing, and when the server goes away."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import awb_env
from awb_env import server
from awb_env.errors import EmbeddedServerError
from awb_env.vector_env import AndroidTaskVectorEnv

PACKAGE = Path(__file__).resolve().parents[1]


def test_a_missing_node_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWB_NODE", "/nonexistent/node")
    with pytest.raises(EmbeddedServerError, match="AWB_NODE=/nonexistent/node is not an executable") as e:
        server.find_node()
    assert e.value.value == "/nonexistent/node"
    monkeypatch.delenv("AWB_NODE")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(EmbeddedServerError, match="node is not on PATH.*AWB_NODE"):
        server.find_node()


def test_a_missing_checkout_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AWB_CHECKOUT", str(tmp_path))
    with pytest.raises(EmbeddedServerError, match=f"AWB_CHECKOUT={tmp_path} is not a workbench checkout"):
        server.find_checkout()
    monkeypatch.delenv("AWB_CHECKOUT")
    assert (server.find_checkout() / "bin" / "awb.js").is_file()


def test_the_shared_server_is_counted_not_restarted(server_url: str) -> None:
    first = server.acquire()
    again = server.acquire()
    assert first is again and first.url == server_url
    server.release(again)
    server.release(first)
    assert first.running, "the test session still holds it"


def test_a_refused_vector_env_leaves_no_session_and_a_dying_server_raises_server_gone() -> None:
    own = server.EmbeddedServer(devices=2)
    try:
        # Three sessions on a server of two SimDroids: refused, and the two it made are closed with the connection.
        with pytest.raises(awb_env.DevicesBusyError, match="--devices 3"):
            AndroidTaskVectorEnv(3, server=own.url, task="ContactsAddContact", seed=0, tree="none")
        two = AndroidTaskVectorEnv(2, server=own.url, task="ContactsAddContact", seed=0, tree="none")
        two.close()

        client = awb_env.EnvClient(own.url)
        session = client.create({"template": "ContactsAddContact", "seed": 1})
        session.reset()
        own.process.kill()
        own.process.wait()
        with pytest.raises(awb_env.ServerGoneError) as e:
            for _ in range(3):  # the first send may still reach the socket's buffer
                session.step({"action_type": "wait"})
        token = own.url.split("token=")[1]
        assert token not in str(e.value) and e.value.url == own.url.replace(token, "…")
        assert f"127.0.0.1:{own.port}" in str(e.value)
        with pytest.raises(awb_env.ServerGoneError):
            client.tasks()
    finally:
        own.stop()


def test_gym_make_works_with_no_server_running_and_stops_it_at_exit(tmp_path: Path) -> None:
    store = tmp_path / "fresh.db"
    script = textwrap.dedent("""
        import json, gymnasium, awb_env
        from awb_env import server
        env = gymnasium.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=7, agent="fresh", run="fresh")
        obs, info = env.reset()
        obs, reward, terminated, truncated, info = env.step({"action_type": "status", "goal_status": "complete"})
        print(json.dumps({"pid": server._shared.process.pid, "goal": obs["goal"], "terminated": terminated,
                          "success": info["success"]}))
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("AWB_ENV_URL",)}
    env.update(AWB_DB=str(store), PYTHONPATH=str(PACKAGE))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["goal"].startswith("Create a new contact") and out["terminated"] and out["success"] is False
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and Path(f"/proc/{out['pid']}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{out['pid']}").exists(), "the embedded server outlived its process"
    import sqlite3

    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT e.policy, e.terminated_by FROM episodes e JOIN runs r ON r.id = e.run_id"
                          " WHERE r.name = 'fresh'").fetchall()
    assert rows == [("fresh", "status")], "the episode went into AWB_DB"
