"""The AndroidWorld face: AsyncEnv's surface over a session. AndroidWorld itself is not on a registry; its agents were
run on this adapter by hand (docs/outside-agents.md, "AndroidWorld's agents"). Here: the surface and what it sends."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterator

import numpy as np
import pytest
from android_env.proto import adb_pb2

from awb_env.androidworld import AndroidWorldEnv, BoundingBox, UIElement


@dataclasses.dataclass
class JSONActionLike:
    """The shape of android_world.env.json_action.JSONAction the adapter relies on (fields, ``as_dict``)."""

    action_type: str | None = None
    index: int | None = None
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: str | None = None
    goal_status: str | None = None
    app_name: str | None = None
    keycode: str | None = None
    clear_text: bool | None = None

    def as_dict(self, skip_none: bool = True) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None or not skip_none}


@pytest.fixture()
def env() -> Iterator[AndroidWorldEnv]:
    e = AndroidWorldEnv(task="ContactsAddContact", seed=7, agent="aw-adapter-test", run="aw adapter test")
    yield e
    e.close()


def test_state_has_androidworlds_fields(env: AndroidWorldEnv) -> None:
    goal = env.start_episode()
    assert goal.startswith("Create a new contact") and env.max_steps == 20
    state = env.reset()
    assert state.pixels.shape == (2400, 1080, 3) and state.pixels.dtype == np.uint8
    assert isinstance(state.forest, str) and state.forest.startswith("<?xml")
    assert state.ui_elements and all(isinstance(e, UIElement) for e in state.ui_elements)
    phone = next(e for e in state.ui_elements if e.text == "Phone")
    assert isinstance(phone.bbox_pixels, BoundingBox) and phone.is_clickable is True and phone.bbox_pixels.width > 0
    assert env.logical_screen_size == env.device_screen_size == (1080, 2400)
    assert env.orientation == 0 and env.physical_frame_boundary == (0, 0, 1080, 2400)
    assert env.foreground_activity_name.startswith("com.google.android.apps.nexuslauncher/")


def test_actions_are_executed_as_androidworld_does(env: AndroidWorldEnv, store) -> None:
    env.start_episode()
    env.reset(go_home=True)  # Home, recorded as the agent's first step
    env.execute_action(JSONActionLike(action_type="open_app", app_name="Contacts"))
    assert env.foreground_activity_name.startswith("com.google.android.contacts/")
    before = env.get_state()
    assert env.get_state() is before, "no action, no new state"
    env.execute_action({"action_type": "scroll", "direction": "down"})
    env.execute_action({"action_type": "answer", "text": "Ana"})
    assert env.interaction_cache == "Ana" and not env.episode_running
    assert env.last_result is not None and env.last_result.terminated
    env.execute_action({"action_type": "navigate_back"})  # ignored: the episode is over
    result = env.finish_episode()
    assert result["terminated_by"] == "answer" and result["success"] is False
    episode = store.episodes("aw adapter test")[-1]
    assert episode["policy"] == "aw-adapter-test" and episode["steps"] == 4
    # AndroidWorld's executor scrolls by swiping from the screen's centre: the step carries out a swipe.
    assert [s["action_type"] for s in store.steps(episode["id"])] == ["navigate_home", "open_app", "swipe", "answer"]


def test_finish_episode_sends_the_status_agents_do_not_execute(env: AndroidWorldEnv) -> None:
    env.reset()  # starts an episode when none runs, as AndroidWorld's loop expects
    assert env.episode_running
    env.execute_action(JSONActionLike(action_type="click", index=5))
    result = env.finish_episode("infeasible")
    assert result["terminated_by"] == "status" and result["verdict"]["conditions"]
    assert env.start_episode() != "" and env.episode_info["seed"] == 8


def test_the_controller_answers_androidworlds_screen_queries(env: AndroidWorldEnv) -> None:
    env.start_episode()

    def generic(line: str) -> Any:
        return env.controller.execute_adb_call(
            adb_pb2.AdbRequest(generic=adb_pb2.AdbRequest.GenericRequest(args=line.split(" "))))

    out = generic("shell dumpsys input | grep logicalFrame")
    assert out.status == adb_pb2.AdbResponse.Status.OK
    # The patterns android_world/env/adb_utils.py reads them with.
    assert re.findall(r"logicalFrame=\[0, 0, (\d+), (\d+)\]", out.generic.output.decode()) == [("1080", "2400")]
    frames = re.findall(r"physicalFrame=\[(\d+), (\d+), (\d+), (\d+)\]", out.generic.output.decode())
    assert frames == [("0", "0", "1080", "2400")]
    rotation = generic("shell dumpsys window | grep mCurrentRotation")
    assert re.findall(r"mCurrentRotation=ROTATION_(\d+)", rotation.generic.output.decode()) == ["0"]
    refused = generic("shell pm list packages")
    assert refused.status != adb_pb2.AdbResponse.Status.OK and "no adb" in refused.error_message
    activity = env.controller.execute_adb_call(adb_pb2.AdbRequest(get_current_activity=adb_pb2.AdbRequest.GetCurrentActivity()))
    assert activity.get_current_activity.full_activity == env.foreground_activity_name
