"""The vector form: N sessions on one connection, with Gymnasium 1.x's autoreset semantics."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from awb_env.vector_env import AndroidTaskVectorEnv

WAIT = {"action_type": "wait"}


def test_make_vec_builds_n_sessions_on_one_connection() -> None:
    envs = gym.make_vec("awb/AndroidTask-v0", num_envs=4, task="ContactsAddContact", seed=10, screenshot="raw",
                        scale=0.5, tree="both")
    try:
        vec = envs.unwrapped
        assert isinstance(vec, AndroidTaskVectorEnv) and len({s.client for s in vec.sessions}) == 1
        assert len({s.id for s in vec.sessions}) == 4
        obs, infos = envs.reset()
        assert obs["screenshot"].shape == (4, 1200, 540, 3) and obs["screenshot"].dtype == np.uint8
        assert len(obs["tree"]) == 4 and len(obs["ui_elements"]) == 4
        assert infos["seed"].tolist() == [10, 11, 12, 13], "no two sessions play the same instance"
        assert obs in envs.observation_space
        actions = envs.action_space.sample()
        assert len(actions) == 4 and actions in envs.action_space
        obs, rewards, terms, truncs, infos = envs.step(actions)
        assert rewards.dtype == np.float64 and terms.dtype == np.bool_ and infos["step"].tolist() == [0, 0, 0, 0]
    finally:
        envs.close()


def test_next_step_autoreset_resets_on_the_step_after_the_end() -> None:
    envs = AndroidTaskVectorEnv(2, task="ContactsAddContact", seed=0, max_steps=2, tree="none")
    try:
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        _, infos = envs.reset()
        assert infos["seed"].tolist() == [0, 1]
        envs.step((WAIT, {"action_type": "answer", "text": "x"}))  # env 1 ends here (terminated)
        _, r, term, trunc, infos = envs.step((WAIT, WAIT))          # env 0 runs out of steps; env 1 resets
        assert term.tolist() == [False, False] and trunc.tolist() == [True, False]
        assert infos["_seed"].tolist() == [False, True] and infos["seed"][1] == 3, "env 1 plays its next seed (1 + N)"
        assert infos["terminated_by"][0] == "max_steps"
        _, r, term, trunc, infos = envs.step(({"action_type": "fly"}, WAIT))  # env 0's action is ignored: it resets
        assert r.tolist() == [0.0, 0.0] and term.tolist() == [False, False] and trunc.tolist() == [False, False]
        assert infos["seed"][0] == 2 and infos["_step"].tolist() == [True, True]
    finally:
        envs.close()


def test_same_step_autoreset_hands_back_the_final_observation() -> None:
    envs = AndroidTaskVectorEnv(2, task="ContactsAddContact", seed=0, tree="none", autoreset_mode="SameStep")
    try:
        envs.reset()
        obs, _, term, _, infos = envs.step(({"action_type": "status", "goal_status": "complete"}, WAIT))
        assert term.tolist() == [True, False]
        assert infos["_final_info"].tolist() == [True, False] and infos["final_info"]["terminated_by"][0] == "status"
        assert infos["seed"][0] == 2 and infos["_seed"].tolist() == [True, False], "env 0 was reset in the same step"
        assert infos["final_obs"][0]["goal"] != obs["goal"][0], "the final observation is the ended episode's"
    finally:
        envs.close()


def test_reset_mask_resets_only_the_masked_sessions() -> None:
    envs = AndroidTaskVectorEnv(3, task="ContactsAddContact", seed=0, tree="none", autoreset_mode="Disabled")
    try:
        envs.reset()
        _, infos = envs.reset(options={"reset_mask": np.array([False, True, False])})
        assert infos["_seed"].tolist() == [False, True, False] and infos["seed"][1] == 4
        with pytest.raises(ValueError, match="reset_mask"):
            envs.reset(options={"reset_mask": [True, True, True]})
    finally:
        envs.close()


def test_sync_vectorization_of_single_environments_works_too() -> None:
    envs = gym.make_vec("awb/AndroidTask-v0", num_envs=2, vectorization_mode="sync", task="ContactsAddContact",
                        seed=0, tree="none")
    try:
        obs, infos = envs.reset(seed=5)
        assert infos["seed"].tolist() == [5, 6]
        envs.step((WAIT, WAIT))
    finally:
        envs.close()
