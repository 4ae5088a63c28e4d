"""``awb/AndroidTask-v0``: one workbench session as a Gymnasium environment.

    env = gym.make("awb/AndroidTask-v0", task="ContactsAddContact", seed=7, screenshot="png", scale=0.5)
    obs, info = env.reset()
    obs, reward, terminated, truncated, info = env.step({"action_type": "navigate_home"})

Every episode is recorded in the workbench's store (a run named by ``run=``, policy ``agent=``) and can be watched,
paused and overridden in its Agent view. A malformed action is the agent's move: a recorded failed step whose
``info["error"]`` names it; it never raises. ``terminated``: the agent ended the episode (``answer``/``status``, or a
malformed action under ``on_malformed="end"``); ``truncated``: the step budget ran out, a person stopped it, or the
device failed. At the end ``info`` holds the checker's verdict (``success``, ``verdict``, ``episode_return``…).
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from .client import Connection, EnvClient, Session, StepResult, step_fields
from .config import EnvConfig

_apps_by_url: dict[str, tuple[str, ...]] = {}


def app_names(client: EnvClient) -> tuple[str, ...]:
    """The apps the task suite uses (what ``open_app`` samples name), asked once per server."""
    apps = _apps_by_url.get(client.url)
    if apps is None:
        catalog = client.tasks()
        apps = tuple(sorted({a for t in catalog.get("templates", []) for a in t.get("apps", [])}))
        _apps_by_url[client.url] = apps
    return apps


class AndroidTaskEnv(gym.Env[dict[str, Any], Any]):
    """A task of the workbench's suite on one device.

    Args:
        task: a template id (``"ContactsAddContact"``) or a whole task dict; or ``split=`` and ``part=``.
        seed: the template's seed on the first ``reset()`` (then one more on each); ``reset(seed=…)`` picks one.
        params: the instance's parameters instead of a seed (checked by the template's schema).
        split, part: draw instances from a split part (``"unseen-app"``, ``"test"``) in order.
        server: a running server's URL (else ``AWB_ENV_URL``, else the embedded server).
        device: ``"simdroid"`` (the server's own) or an adb serial.
        agent, run: recorded as each episode's policy and the run it goes into.
        screenshot, scale, tree: what each observation holds (``"png"`` is decoded to an array here).
        record: screenshots the store keeps per step (``"none"``, ``"half"``, ``"full"``).
        rewards: the reward components (a docs/rewards.md config, or a list of kinds at weight 1).
        max_steps, on_malformed: the step budget; whether a malformed action ends the episode.
        action_space: ``"workbench"`` (dicts of the workbench's space), ``"androidworld"`` (JSONAction dicts) or
            ``"reply"`` (a model's raw text, parsed by ``format``).
        render_mode: ``"rgb_array"`` for ``render()`` (the server then sends raw pixels each step).
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, *, server: str | None = None, render_mode: str | None = None, **kwargs: Any) -> None:
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode={render_mode!r}: expected None or 'rgb_array'")
        self.render_mode = render_mode
        self.config = EnvConfig.from_kwargs(frames=render_mode == "rgb_array", **kwargs)
        self._connection = Connection(server)
        self.client: EnvClient = self._connection.client
        self.session: Session = self._connection.create(self.config.task, **self.config.create_fields())
        self.observation_space = self.config.observation_space(self.session.device)
        self.action_space = self.config.action_space_for(self.session.device, app_names(self.client))
        self._last_obs: dict[str, Any] | None = None
        self._frame: np.ndarray | None = None
        self._notes: dict[str, Any] = {}

    # --- the Gymnasium API ---

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Starts the next episode (an unfinished one is recorded as aborted). ``options={"task": …}`` replaces the
        session's task from now on (a template id or a task dict)."""
        super().reset(seed=seed)
        task = (options or {}).get("task")
        if isinstance(task, str):
            task = {"template": task}
        r = self.session.reset(seed, task)
        self._notes = {}
        obs = self._observe(r.observation)
        info = dict(r.info)
        info.update(step=0, session=self.session.id, run_id=self.session.run.get("id"))
        return obs, self.config.gym_info(info)

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """One action in any of its forms (see EnvConfig.action_fields); never raises on a malformed one."""
        fields = {**self.config.action_fields(action), **self._notes}
        self._notes = {}
        r = self.session.step(**fields)
        return self._step_result(r)

    def annotate(self, *, thought: str | None = None, prompt: Any = None, reply: str | None = None) -> None:
        """Text stored with the next step and shown by the replay view: the agent's thought, the request it sent its
        model, the model's raw reply (for an action given as a dict)."""
        self._notes = step_fields(thought=thought, prompt=prompt, reply=reply)

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        if self.render_mode != "rgb_array":
            return None
        return None if self._frame is None else self._frame.copy()

    def close(self) -> None:
        self._connection.close()

    # --- helpers ---

    def _observe(self, o: dict[str, Any]) -> dict[str, Any]:
        if self.config.frames:
            self._frame = o.get("screenshot")  # type: ignore[assignment]
        obs = self.config.gym_observation(o)
        self._last_obs = obs
        return obs

    def _step_result(self, r: StepResult) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        info = self.config.gym_info(r.info)
        if r.observation is None:
            # The device failed at the end: the last screen stands in (a fresh copy: observations are never shared).
            info["observation_missing"] = True
            obs = _copy_obs(self._last_obs or {})
        else:
            obs = self._observe(r.observation)
        return obs, r.reward, r.terminated, r.truncated, info


def _copy_obs(obs: dict[str, Any]) -> dict[str, Any]:
    out = dict(obs)
    out["foreground"] = dict(obs.get("foreground") or {})
    if isinstance(obs.get("screenshot"), np.ndarray):
        out["screenshot"] = obs["screenshot"].copy()
    return out
