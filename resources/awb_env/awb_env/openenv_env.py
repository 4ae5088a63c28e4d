"""The OpenEnv face: a workbench session behind OpenEnv's server-side ``Environment`` interface (typed Action,
Observation and State as pydantic models), so OpenEnv's own server serves it, and the matching client.

Serve (one workbench session per OpenEnv WebSocket session)::

    from functools import partial
    from openenv.core.env_server.http_server import create_app
    from awb_env.openenv_env import AndroidAction, AndroidObservation, AndroidTaskEnvironment

    app = create_app(partial(AndroidTaskEnvironment, task="ContactsAddContact", seed=7, agent="my-agent"),
                     AndroidAction, AndroidObservation, env_name="awb", max_concurrent_envs=8)

Connect::

    with AndroidTaskClient(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset()
        result = env.step(AndroidAction(action={"action_type": "navigate_home"}))

Screenshots travel as base64 (OpenEnv's wire is JSON); ``AndroidObservation.screenshot_array()`` decodes one.
OpenEnv's stateless HTTP ``/reset`` and ``/step`` make a new environment per request (a new session each time); the
WebSocket path keeps one session, as an agent needs.
"""

from __future__ import annotations

import base64
from typing import Any, Optional

import numpy as np
from openenv.core.client_types import StepResult as OpenEnvStepResult
from openenv.core.env_client import EnvClient as OpenEnvClient
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State
from pydantic import Field

from .client import Connection, EnvClient, Session, step_fields
from .config import EnvConfig
from .observation import decode_png


class AndroidAction(Action):
    """One action in one of the protocol's three forms (docs/env-protocol.md, ``step``), with optional notes."""

    action: Optional[dict[str, Any]] = Field(default=None, description="the workbench's action space")
    json_action: Optional[dict[str, Any]] = Field(default=None, description="AndroidWorld's JSONAction")
    reply: Optional[str] = Field(default=None, description="a model's raw reply, parsed by `format`")
    format: Optional[str] = Field(default=None, description="androidworld, ui-tars, mobilerl or qwen-mobile-use")
    thought: Optional[str] = Field(default=None, description="stored with the step, shown by the replay view")


class AndroidObservation(Observation):
    """The screen after a reset or step, and the step's result (``info`` as the protocol writes it)."""

    goal: str = ""
    step: int = 0
    foreground: dict[str, str] = Field(default_factory=dict)
    screen: dict[str, int] = Field(default_factory=dict)
    tree: Optional[str] = None
    ui_elements: Optional[list[dict[str, Any]]] = None
    screenshot: Optional[dict[str, Any]] = Field(
        default=None, description='{"format": "png" | "rgb", "width", "height", "data": base64}')
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = Field(default_factory=dict)

    def screenshot_array(self) -> np.ndarray | None:
        """The screenshot as a ``height × width × 3`` uint8 array."""
        if not self.screenshot:
            return None
        data = base64.b64decode(self.screenshot["data"])
        if self.screenshot["format"] == "png":
            return decode_png(data)
        return np.frombuffer(data, np.uint8).reshape(self.screenshot["height"], self.screenshot["width"], 3).copy()


class AndroidState(State):
    """``episode_id`` is the store's episode id (as text); ``step_count`` the steps of the current episode."""

    session: Optional[str] = None
    run_id: Optional[int] = None
    template: Optional[str] = None
    seed: Optional[int] = None
    goal: str = ""
    episode_return: float = 0.0
    done: bool = False
    success: Optional[bool] = None


class AndroidTaskEnvironment(Environment[AndroidAction, AndroidObservation, AndroidState]):
    """A workbench session as an OpenEnv environment; keyword arguments as AndroidTaskEnv's (task, seed, server, agent,
    run, screenshot, scale, tree, rewards, max_steps, …)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, *, server: str | None = None, **kwargs: Any) -> None:
        super().__init__()
        self.config = EnvConfig.from_kwargs(**kwargs)
        self._connection = Connection(server)
        self.client: EnvClient = self._connection.client
        self.session: Session = self._connection.create(self.config.task, png="bytes", **self.config.create_fields())
        self._state = AndroidState(session=self.session.id, run_id=self.session.run.get("id"))

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> AndroidObservation:
        """Starts the next episode; ``task=`` (a template id or task dict) replaces the session's task. OpenEnv's
        ``episode_id`` is not used: the store numbers episodes itself (``state.episode_id``)."""
        task = kwargs.get("task")
        if isinstance(task, str):
            task = {"template": task}
        r = self.session.reset(seed, task)
        info = r.info
        self._state = AndroidState(
            episode_id=str(info.get("episode_id")), step_count=0, session=self.session.id,
            run_id=self.session.run.get("id"), template=info.get("template"), seed=info.get("seed"),
            goal=info.get("goal", ""),
        )
        return self._observation(r.observation, reward=0.0, done=False, terminated=False, truncated=False, info=info)

    def step(self, action: AndroidAction, timeout_s: Optional[float] = None, **kwargs: Any) -> AndroidObservation:
        """One action; a malformed one is a recorded failed step (``info["error"]``), never an exception."""
        fields = step_fields(action.action, json_action=action.json_action, reply=action.reply, format=action.format,
                             thought=action.thought)
        r = self.session.step(**fields)
        st = self._state
        st.step_count += 1
        st.episode_return += r.reward
        st.done = r.done
        if r.done:
            st.success = r.info.get("success")
        return self._observation(r.observation, reward=r.reward, done=r.done, terminated=r.terminated,
                                 truncated=r.truncated, info=r.info)

    @property
    def state(self) -> AndroidState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="awb-android-task", version="0.1.0",
            description="An Android task of the workbench's suite on SimDroid; every episode recorded in its store",
        )

    def close(self) -> None:
        self._connection.close()

    def _observation(self, o: dict[str, Any] | None, **result: Any) -> AndroidObservation:
        o = o or {}
        shot = o.get("screenshot")
        screenshot = None
        if isinstance(shot, (bytes, np.ndarray)):
            raw = shot if isinstance(shot, bytes) else shot.tobytes()
            fmt = "png" if isinstance(shot, bytes) else "rgb"
            h, w = (shot.shape[0], shot.shape[1]) if isinstance(shot, np.ndarray) else (None, None)
            screenshot = {"format": fmt, "width": w, "height": h, "data": base64.b64encode(raw).decode("ascii")}
        return AndroidObservation(
            goal=o.get("goal") or "", step=int(o.get("step") or 0), foreground=o.get("foreground") or {},
            screen=o.get("screen") or {}, tree=o.get("tree"), ui_elements=o.get("ui_elements"), screenshot=screenshot,
            **result,
        )


class AndroidTaskClient(OpenEnvClient[AndroidAction, AndroidObservation, AndroidState]):
    """OpenEnv's client for a served AndroidTaskEnvironment (async; ``.sync()`` for a blocking one)."""

    def _step_payload(self, action: AndroidAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> OpenEnvStepResult[AndroidObservation]:
        obs = AndroidObservation(**payload.get("observation", {}), done=payload.get("done", False),
                                 reward=payload.get("reward"))
        return OpenEnvStepResult(observation=obs, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> AndroidState:
        return AndroidState(**payload)
