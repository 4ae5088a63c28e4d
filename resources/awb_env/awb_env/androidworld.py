"""AndroidWorld's ``AsyncEnv`` surface over a workbench session, so AndroidWorld's own agents (T3A, M3A, …) run on it
unmodified (docs/outside-agents.md, "AndroidWorld's agents").

    env = AndroidWorldEnv(task="ContactsAddContact", seed=7, agent="t3a")
    goal = env.start_episode()                 # the task's initial state (AndroidWorld: task.initialize_task)
    agent = t3a.T3A(env, llm)
    agent.reset()
    for _ in range(env.max_steps):
        if agent.step(goal).done:
            break
    result = env.finish_episode()              # the checker's verdict (AndroidWorld: task.is_successful)

With ``android_world`` importable, the class is an ``android_world.env.interface.AsyncEnv`` and ``get_state`` returns
its ``State`` with its ``UIElement``/``BoundingBox``; without it, look-alike dataclasses with the same field names.
``State.pixels`` is the screen as RGB (height × width × 3), ``State.ui_elements`` what AndroidWorld's
``xml_dump_to_ui_elements`` makes of the screen's XML (the server computes them), ``State.forest`` that XML (a str:
there is no accessibility-forest proto here). Actions go to the server as AndroidWorld's JSONAction and are executed
as its ``execute_adb_action`` does; ``answer`` also sets ``interaction_cache``.

Where the workbench's episodes differ from AndroidWorld's loop: an episode starts with :meth:`start_episode` (or the
first ``reset``), and ends on the agent's ``answer`` or ``status`` action (T3A and M3A return ``done`` on ``status``
without executing it: :meth:`finish_episode` sends it, and returns the verdict). Actions after the end are ignored
with a warning, as a finished task would ignore them.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Optional

import numpy as np

from .client import Connection, EnvClient, ResetResult, Session, StepResult
from .config import EnvConfig

log = logging.getLogger("awb_env")

try:  # AndroidWorld's own classes when it is importable (it is not on a package registry)
    from android_world.env import interface as _aw_interface
    from android_world.env import representation_utils as _aw_repr

    _AsyncEnvBase: type = _aw_interface.AsyncEnv
    State: Any = _aw_interface.State
    UIElement: Any = _aw_repr.UIElement
    BoundingBox: Any = _aw_repr.BoundingBox
    HAVE_ANDROID_WORLD = True
except ImportError:
    HAVE_ANDROID_WORLD = False
    _AsyncEnvBase = object

    @dataclasses.dataclass
    class BoundingBox:  # type: ignore[no-redef]
        """Look-alike of android_world.env.representation_utils.BoundingBox."""

        x_min: float | int
        x_max: float | int
        y_min: float | int
        y_max: float | int

        @property
        def center(self) -> tuple[float, float]:
            return (self.x_min + self.x_max) / 2.0, (self.y_min + self.y_max) / 2.0

        @property
        def width(self) -> float | int:
            return self.x_max - self.x_min

        @property
        def height(self) -> float | int:
            return self.y_max - self.y_min

        @property
        def area(self) -> float | int:
            return self.width * self.height

    @dataclasses.dataclass
    class UIElement:  # type: ignore[no-redef]
        """Look-alike of android_world.env.representation_utils.UIElement."""

        text: Optional[str] = None
        content_description: Optional[str] = None
        class_name: Optional[str] = None
        bbox: Optional[BoundingBox] = None
        bbox_pixels: Optional[BoundingBox] = None
        hint_text: Optional[str] = None
        is_checked: Optional[bool] = None
        is_checkable: Optional[bool] = None
        is_clickable: Optional[bool] = None
        is_editable: Optional[bool] = None
        is_enabled: Optional[bool] = None
        is_focused: Optional[bool] = None
        is_focusable: Optional[bool] = None
        is_long_clickable: Optional[bool] = None
        is_scrollable: Optional[bool] = None
        is_selected: Optional[bool] = None
        is_visible: Optional[bool] = None
        package_name: Optional[str] = None
        resource_name: Optional[str] = None
        tooltip: Optional[str] = None
        resource_id: Optional[str] = None
        metadata: Optional[dict[str, Any]] = None

    @dataclasses.dataclass(frozen=True)
    class State:  # type: ignore[no-redef]
        """Look-alike of android_world.env.interface.State."""

        pixels: np.ndarray
        forest: Any
        ui_elements: list
        auxiliaries: Optional[dict[str, Any]] = None


_UI_FIELDS = frozenset(f.name for f in dataclasses.fields(UIElement))


def ui_element(d: dict[str, Any]) -> Any:
    """One of the server's UI element dicts as AndroidWorld's UIElement."""
    kw = {k: v for k, v in d.items() if k in _UI_FIELDS and k not in ("bbox", "bbox_pixels")}
    box = d.get("bbox_pixels") or d.get("bbox")
    if box:
        kw["bbox"] = BoundingBox(box["x_min"], box["x_max"], box["y_min"], box["y_max"])
        kw["bbox_pixels"] = BoundingBox(box["x_min"], box["x_max"], box["y_min"], box["y_max"])
    return UIElement(**kw)


class AdbShim:
    """The ``controller`` AndroidWorld's helpers reach through: ``execute_adb_call`` answers the read-only requests its
    agents make (the screen's frames and rotation from ``dumpsys``, the current activity) from the session; any other
    adb request gets a failed response (there is no adb to the server's SimDroid)."""

    def __init__(self, env: AndroidWorldEnv) -> None:
        self._env = env

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return self._env.device_screen_size

    def execute_adb_call(self, request: Any) -> Any:
        from android_env.proto import adb_pb2  # android_env comes with AndroidWorld

        response = adb_pb2.AdbResponse()
        kind = request.WhichOneof("command")
        w, h = self._env.logical_screen_size
        if kind == "generic":
            line = " ".join(request.generic.args)
            if "dumpsys input" in line:
                response.generic.output = f"logicalFrame=[0, 0, {w}, {h}]\nphysicalFrame=[0, 0, {w}, {h}]\n".encode()
            elif "dumpsys window" in line:
                response.generic.output = b"mCurrentRotation=ROTATION_0\n"
            else:
                response.status = adb_pb2.AdbResponse.Status.FAILED_PRECONDITION
                response.error_message = f"awb_env: no adb behind this environment ({line!r})"
                return response
            response.status = adb_pb2.AdbResponse.Status.OK
            return response
        if kind == "get_current_activity":
            response.get_current_activity.full_activity = self._env.foreground_activity_name
            response.status = adb_pb2.AdbResponse.Status.OK
            return response
        response.status = adb_pb2.AdbResponse.Status.FAILED_PRECONDITION
        response.error_message = f"awb_env: no adb behind this environment ({kind})"
        return response


class AndroidWorldEnv(_AsyncEnvBase):  # type: ignore[misc,valid-type]
    """A workbench session with AndroidWorld's AsyncEnv surface; keyword arguments as AndroidTaskEnv's."""

    interaction_cache = ""

    def __init__(self, *, server: str | None = None, agent: str = "androidworld-agent", scale: float = 1,
                 **kwargs: Any) -> None:
        self.config = EnvConfig.from_kwargs(screenshot="raw", scale=scale, tree="both", action_space="androidworld",
                                            agent=agent, **kwargs)
        self._connection = Connection(server)
        self.client: EnvClient = self._connection.client
        self.session: Session = self._connection.create(self.config.task, **self.config.create_fields())
        self.interaction_cache = ""
        self.goal = ""
        self.episode_info: dict[str, Any] = {}
        self.last_result: StepResult | None = None
        self._state: Any = None
        self._running = False
        self._controller = AdbShim(self)

    # --- the workbench's episodes ---

    def start_episode(self, seed: int | None = None, task: dict[str, Any] | None = None) -> str:
        """Starts the next episode (the task's initial state; an unfinished one is recorded as aborted); its goal."""
        r: ResetResult = self.session.reset(seed, task)
        self.goal = r.info.get("goal", "")
        self.episode_info = dict(r.info)
        self.last_result = None
        self.interaction_cache = ""
        self._state = self._to_state(r.observation)
        self._running = True
        return self.goal

    @property
    def max_steps(self) -> int:
        return int(self.episode_info.get("max_steps") or 20)

    @property
    def episode_running(self) -> bool:
        return self._running

    def finish_episode(self, goal_status: str = "complete") -> dict[str, Any]:
        """Ends the running episode with the agent's ``status`` (if the agent's own actions have not ended it) and
        returns the final info: ``success``, ``verdict``, ``episode_return``, ``terminated_by``…"""
        if self._running:
            self.execute_action({"action_type": "status", "goal_status": goal_status})
        return dict(self.last_result.info) if self.last_result else {}

    # --- AsyncEnv ---

    @property
    def controller(self) -> AdbShim:
        return self._controller

    def reset(self, go_home: bool = False) -> Any:
        """AndroidWorld's reset: the interaction cache cleared, Home pressed when ``go_home`` (a recorded step), and
        the state. Starts an episode if none is running."""
        if not self._running:
            self.start_episode()
        self.interaction_cache = ""
        if go_home:
            self.execute_action({"action_type": "navigate_home"})
        return self.get_state()

    def get_state(self, wait_to_stabilize: bool = False) -> Any:
        """The screen now. SimDroid settles within the action, so ``wait_to_stabilize`` needs no waiting; the state the
        last action returned is the screen now (nothing else moves the device between actions)."""
        if self._state is None:
            self._state = self._to_state(self.session.observe())
        return self._state

    def execute_action(self, action: Any) -> None:
        """One JSONAction (AndroidWorld's object, or a dict of its fields)."""
        fields = action.as_dict(skip_none=True) if hasattr(action, "as_dict") else dict(action)
        if fields.get("action_type") == "answer":
            self.interaction_cache = str(fields.get("text") or "")
        if not self._running:
            if fields.get("action_type") != "status":
                log.warning("awb_env: the episode has ended; %s ignored (call start_episode for the next)", fields)
            return
        r = self.session.step(json_action=fields)
        self.last_result = r
        if r.done:
            self._running = False
            self.episode_info.update(r.info)
        if r.observation is not None:
            self._state = self._to_state(r.observation)

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        raise NotImplementedError("ask_question is not implemented (as in AndroidWorld's AsyncAndroidEnv)")

    def display_message(self, message: str, header: str = "") -> None:
        log.info("awb_env: %s %s", header, message)

    def hide_automation_ui(self) -> None:
        """Nothing to hide: SimDroid draws no pointer location."""

    @property
    def foreground_activity_name(self) -> str:
        fg = self._foreground()
        return f"{fg.get('package', '')}/{fg.get('activity', '')}" if fg.get("package") else ""

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return int(self.session.device["width"]), int(self.session.device["height"])

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return self.device_screen_size

    @property
    def orientation(self) -> int:
        return 0

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        w, h = self.device_screen_size
        return 0, 0, w, h

    def close(self) -> None:
        self._connection.close()

    # --- helpers ---

    def _foreground(self) -> dict[str, Any]:
        aux = getattr(self.get_state(), "auxiliaries", None) or {}
        return aux.get("foreground") or {}

    def _to_state(self, o: dict[str, Any]) -> Any:
        elements = [ui_element(e) for e in o.get("ui_elements") or []]
        aux = {"foreground": o.get("foreground") or {}, "goal": o.get("goal", ""), "step": o.get("step", 0)}
        return State(pixels=o["screenshot"], forest=o.get("tree", ""), ui_elements=elements, auxiliaries=aux)
