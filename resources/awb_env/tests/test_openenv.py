"""The OpenEnv face, served by OpenEnv's own server (create_app, in this process) and driven by OpenEnv's client."""

from __future__ import annotations

import logging
import threading
import time
from functools import partial
from typing import Iterator

import pytest
import uvicorn
from openenv.core.env_server.http_server import create_app

from awb_env.openenv_env import AndroidAction, AndroidObservation, AndroidTaskClient, AndroidTaskEnvironment


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    factory = partial(AndroidTaskEnvironment, task="ContactsAddContact", seed=7, agent="openenv-test",
                      run="openenv test", screenshot="png", scale=0.5, tree="elements")
    app = create_app(factory, AndroidAction, AndroidObservation, env_name="awb", max_concurrent_envs=2)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical"))
    # OpenEnv's endpoint closes an already-closed socket when its client leaves; uvicorn logs that at ERROR.
    logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "OpenEnv's server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(30)


def test_openenvs_client_plays_an_episode_through_openenvs_server(served: str, store) -> None:
    with AndroidTaskClient(base_url=served).sync() as env:
        first = env.reset()
        obs = first.observation
        assert obs.goal.startswith("Create a new contact") and not first.done
        assert obs.screenshot_array().shape == (1200, 540, 3)
        assert obs.ui_elements and obs.ui_elements[0]["bbox_pixels"]
        r = env.step(AndroidAction(action={"action_type": "open_app", "app_name": "Contacts"}, thought="open it"))
        assert r.reward == 0.0 and not r.done and r.observation.foreground["package"] == "com.google.android.contacts"
        r = env.step(AndroidAction(reply="Thought: back\nAction: press_back()", format="ui-tars"))
        assert r.observation.info["action"] == {"action_type": "navigate_back"}
        r = env.step(AndroidAction(action={"action_type": "fly"}))
        assert r.observation.info["error"]["name"] == "ActionParseError" and not r.done
        r = env.step(AndroidAction(json_action={"action_type": "status", "goal_status": "complete"}))
        assert r.done and r.observation.terminated and r.observation.info["success"] is False
        state = env.state()
        assert state.step_count == 4 and state.done and state.success is False and state.template == "ContactsAddContact"
    [episode] = [e for e in store.episodes("openenv test") if e["id"] == int(state.episode_id)]
    assert episode["policy"] == "openenv-test" and episode["steps"] == 4


def test_the_environment_class_runs_alone_too() -> None:
    env = AndroidTaskEnvironment(task="ClockStartTimer", seed=1, tree="none")
    try:
        obs = env.reset(seed=2)
        assert env.state.seed == 2 and obs.tree is None and obs.screenshot is None
        obs = env.step(AndroidAction(json_action={"action_type": "answer", "text": "x"}))
        assert obs.done and obs.terminated and not obs.truncated
    finally:
        env.close()
