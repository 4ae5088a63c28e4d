"""``awb/AndroidTask-v0`` against Gymnasium's own checker and the real server."""

from __future__ import annotations

import json
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import awb_env
from awb_env.spaces import androidworld_action_issues, workbench_action_issues

PARSE_ERRORS = {"ActionParseError", "AndroidWorldActionError", "VlmFormatError"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"screenshot": "png", "scale": 0.5, "tree": "both"},
        {"screenshot": "raw", "scale": 0.5, "tree": "elements", "action_space": "androidworld"},
        {"action_space": "reply", "format": "qwen-mobile-use", "tree": "none"},
    ],
    ids=["xml", "png+both", "raw+elements+androidworld", "reply"],
)
def test_passes_gymnasiums_env_checker(kwargs: dict[str, Any]) -> None:
    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=7, **kwargs)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
        assert [str(w.message) for w in caught] == []
    finally:
        env.close()


@pytest.mark.parametrize(
    ("space", "fmt"),
    [("workbench", None), ("androidworld", None), ("reply", "androidworld"), ("reply", "ui-tars"), ("reply", "mobilerl"),
     ("reply", "qwen-mobile-use")],
)
def test_sampled_actions_are_well_formed_for_the_server(space: str, fmt: str | None) -> None:
    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=3, action_space=space, format=fmt, tree="none",
                   max_steps=200)
    try:
        env.action_space.seed(5)
        env.reset()
        for _ in range(30):
            a = env.action_space.sample()
            assert a in env.action_space
            _, _, terminated, truncated, info = env.step(a)
            assert info["error"].get("name") not in PARSE_ERRORS, (a, info["error"])
            assert not terminated, "sample() never ends the episode"
            if truncated:
                env.reset()
    finally:
        env.close()


@pytest.mark.parametrize(
    "action",
    [{"action_type": "click"}, {"action_type": "click", "index": 1, "x": 3, "y": 4}, {"action_type": "scroll"},
     {"action_type": "input_text", "text": ""}, {"action_type": "wait", "seconds": 0}, {"action_type": "click", "x": 1},
     {"action_type": "open_app", "app_name": " "}, {"action_type": "navigate_back", "extra": 1}, "click", 5],
)
def test_what_the_space_refuses_the_server_refuses_too(action: Any) -> None:
    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=3, tree="none")
    try:
        assert action not in env.action_space and workbench_action_issues(action)
        env.reset()
        _, _, _, _, info = env.step(action)
        assert info["error"]["name"] == "ActionParseError", info["error"]
    finally:
        env.close()


def test_androidworld_space_mirrors_the_jsonaction_constructor() -> None:
    assert androidworld_action_issues({"action_type": "click", "index": "3"}) == []
    assert androidworld_action_issues({"action_type": "click", "index": 2, "x": 1}) == ["either an index or x and y"]
    assert androidworld_action_issues({"action_type": "tap"})[0].startswith("action_type 'tap'")
    assert androidworld_action_issues({"action_type": "scroll", "direction": "sideways"})
    assert androidworld_action_issues({"action_type": "wait", "speed": 1}) == ['"speed" is not a JSONAction field']


def test_an_episode_reads_as_gymnasium_says(store) -> None:
    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=7, agent="gym-test", run="gym test",
                   tree="both", rewards=["outcome", "format"])
    try:
        obs, info = env.reset()
        assert obs["goal"] == info["goal"] and info["step"] == 0 and info["episode_id"]
        assert obs["tree"].startswith("<?xml") and isinstance(obs["ui_elements"], tuple)
        phone = next(i for i, e in enumerate(obs["ui_elements"]) if e["text"] == "Phone")
        rewards = []
        env.unwrapped.annotate(thought="open Contacts", reply='{"action_type": "open_app"}')
        obs, r, terminated, truncated, info = env.step(json.dumps({"action_type": "open_app", "app_name": "Contacts"}))
        rewards.append(r)
        assert info["error"] == {} and obs["foreground"]["package"] == "com.google.android.contacts"
        obs, r, terminated, truncated, info = env.step({"action_type": "navigate_home"})
        rewards.append(r)
        obs, r, terminated, truncated, info = env.step({"action_type": "click", "index": phone})
        rewards.append(r)
        assert info["description"] == 'Tap "Phone" on the home screen', info
        obs, r, terminated, truncated, info = env.step({"action_type": "teleport"})
        rewards.append(r)
        assert info["error"]["name"] == "ActionParseError" and not (terminated or truncated)
        obs, r, terminated, truncated, info = env.step({"json_action": {"action_type": "status", "goal_status": "complete"}})
        rewards.append(r)
        assert terminated is True and truncated is False
        assert info["success"] is False and info["status"] == "failure" and info["verdict"]["ok"] is False
        assert sum(rewards) == pytest.approx(info["episode_return"]), "the rewards sum to the stored return"
        assert set(info["episode_rewards"]) == {"outcome", "format"}
        with pytest.raises(awb_env.EpisodeEndedError):
            env.step({"action_type": "wait"})
        episode = store.episodes("gym test")[-1]
        assert episode["policy"] == "gym-test" and episode["steps"] == 5
        steps = store.steps(episode["id"])
        assert [s["error_name"] for s in steps] == [None, None, None, "ActionParseError", None]
        assert steps[0]["thought"] == "open Contacts" and steps[0]["reply"] == '{"action_type": "open_app"}'
    finally:
        env.close()


def test_reset_seeds_and_tasks() -> None:
    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=7)
    try:
        _, a = env.reset()
        _, b = env.reset()
        _, c = env.reset(seed=7)
        assert (a["seed"], b["seed"], c["seed"]) == (7, 8, 7) and a["goal"] == c["goal"] != b["goal"]
        _, d = env.reset(options={"task": "ClockStartTimer"})
        assert d["template"] == "ClockStartTimer"
        with pytest.raises(awb_env.SeedError):
            env.reset(seed=2**31)
    finally:
        env.close()


def test_split_part_sessions_draw_the_parts_instances() -> None:
    env = gym.make("awb/AndroidTask-v0", split="unseen-app", part="test", tree="none")
    try:
        _, first = env.reset(seed=0)
        _, second = env.reset()
        assert (first["template"], first["seed"]) != (second["template"], second["seed"])
    finally:
        env.close()


def test_render_gives_the_screen() -> None:
    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=7, scale=0.5, render_mode="rgb_array")
    try:
        obs, _ = env.reset()
        frame = env.render()
        assert isinstance(frame, np.ndarray) and frame.shape == (1200, 540, 3) and "screenshot" not in obs
    finally:
        env.close()


def test_bad_keyword_arguments_are_refused_before_connecting() -> None:
    with pytest.raises(awb_env.ConfigError, match="screenshot='jpeg'"):
        gym.make("awb/AndroidTask-v0", task="ContactsAddContact", screenshot="jpeg")
    with pytest.raises(awb_env.ConfigError, match="format=None"):
        gym.make("awb/AndroidTask-v0", task="ContactsAddContact", action_space="reply")
    with pytest.raises(awb_env.ConfigError, match="split="):
        gym.make("awb/AndroidTask-v0")
