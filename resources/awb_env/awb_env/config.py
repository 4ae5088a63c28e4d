"""The keyword arguments every face of awb_env takes, checked once, turned into the protocol's ``create`` fields, the
Gymnasium spaces and observations, and a ``step`` request's fields for an action in any of its three forms."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from gymnasium import spaces

from .errors import ConfigError
from .spaces import (
    AndroidWorldActionSpace,
    AnyText,
    ReplySpace,
    UiElementsSpace,
    WorkbenchActionSpace,
)

Screenshot = Literal["none", "png", "raw"]
Tree = Literal["xml", "elements", "both", "none"]
ActionSpaceName = Literal["workbench", "androidworld", "reply"]
FORMATS = ("androidworld", "ui-tars", "mobilerl", "qwen-mobile-use")
MAX_TEXT = 1_000_000
_OBJECT_OR_NULL = ("action", "error", "verdict", "episode_error", "episode_rewards")
_REPLY_OPTIONS = ("coordinates", "image", "min_pixels", "max_pixels", "thought", "prompt")


def _choice(name: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    if value not in allowed:
        raise ConfigError(name, value, "one of " + ", ".join(repr(a) for a in allowed))
    return value


def task_spec(task: str | Mapping[str, Any] | None, seed: int | None = None, params: Mapping[str, Any] | None = None,
              split: str | None = None, part: str | None = None) -> dict[str, Any]:
    """The protocol's task: ``task`` a template id (with ``seed`` or ``params``) or a whole spec, or ``split``+``part``."""
    if isinstance(task, Mapping):
        if seed is not None or params is not None or split is not None or part is not None:
            raise ConfigError("task", dict(task), "a template name when seed=, params=, split= or part= is given too")
        return dict(task)
    if task is not None and not isinstance(task, str):
        raise ConfigError("task", task, "a template name (str) or a task dict")
    if task is not None and (split is not None or part is not None):
        raise ConfigError("split", split, "no split or part with a template (task=)")
    if task is None and (split is None or part is None):
        raise ConfigError("task", task, 'a template (task="ContactsAddContact", seed=7) or split= and part=')
    if task is None:
        return {"split": split, "part": part}
    spec: dict[str, Any] = {"template": task}
    if seed is not None:
        spec["seed"] = int(seed)
    if params is not None:
        spec["params"] = dict(params)
    return spec


def rewards_config(rewards: Any) -> Any:
    """``rewards`` as docs/rewards.md writes it; a list of kinds (or "outcome,format") is each at weight 1."""
    if isinstance(rewards, str):
        rewards = [k.strip() for k in rewards.split(",") if k.strip()]
    if isinstance(rewards, (list, tuple)) and all(isinstance(k, str) for k in rewards):
        return {"components": [{"kind": k, "weight": 1} for k in rewards]}
    return rewards


@dataclass(frozen=True)
class EnvConfig:
    """What a session is created with and how its observations and actions look in Python."""

    task: dict[str, Any]
    device: str = "simdroid"
    agent: str = "awb_env"
    run: str | None = None
    screenshot: Screenshot = "none"
    scale: float = 1
    tree: Tree = "xml"
    record: str | None = None
    rewards: Any = None
    max_steps: int | None = None
    on_malformed: Literal["continue", "end"] = "continue"
    action_space: ActionSpaceName = "workbench"
    format: str | None = None
    #: Raw pixels from the server although the observation has no screenshot (``render_mode="rgb_array"``).
    frames: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_kwargs(
        cls, *, task: str | Mapping[str, Any] | None = None, seed: int | None = None, params: Mapping[str, Any] | None = None,
        split: str | None = None, part: str | None = None, device: str = "simdroid", agent: str = "awb_env",
        run: str | None = None, screenshot: Screenshot = "none", scale: float = 1, tree: Tree = "xml",
        record: str | None = None, rewards: Any = None, max_steps: int | None = None,
        on_malformed: Literal["continue", "end"] = "continue", action_space: ActionSpaceName = "workbench",
        format: str | None = None, frames: bool = False,
    ) -> EnvConfig:
        _choice("screenshot", screenshot, ("none", "png", "raw"))
        _choice("scale", scale, (1, 0.5))
        _choice("tree", tree, ("xml", "elements", "both", "none"))
        _choice("on_malformed", on_malformed, ("continue", "end"))
        _choice("action_space", action_space, ("workbench", "androidworld", "reply"))
        if record is not None:
            _choice("record", record, ("none", "half", "full"))
        if format is not None:
            _choice("format", format, FORMATS)
        if action_space == "reply" and format is None:
            raise ConfigError("format", format, f'the reply format for action_space="reply": one of {", ".join(FORMATS)}')
        if max_steps is not None and (not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1):
            raise ConfigError("max_steps", max_steps, "a positive integer")
        return cls(
            task=task_spec(task, seed, params, split, part), device=device, agent=agent, run=run, screenshot=screenshot,
            scale=scale, tree=tree, record=record, rewards=rewards_config(rewards), max_steps=max_steps,
            on_malformed=on_malformed, action_space=action_space, format=format, frames=frames,
        )

    # --- create ---

    def observation_spec(self) -> dict[str, Any]:
        shot = self.screenshot if self.screenshot != "none" else ("raw" if self.frames else "none")
        return {"screenshot": shot, "scale": self.scale, "tree": self.tree}

    def create_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "device": self.device, "agent": self.agent, "run": self.run, "observation": self.observation_spec(),
            "rewards": self.rewards, "max_steps": self.max_steps, "on_malformed": self.on_malformed,
        }
        if self.record is not None:
            fields["record"] = {"screenshots": self.record}
        elif self.frames and self.screenshot == "none":
            fields["record"] = {"screenshots": "none"}  # frames for render() only: the store keeps none
        return {k: v for k, v in fields.items() if v is not None}

    # --- Gymnasium ---

    def image_shape(self, device: Mapping[str, Any]) -> tuple[int, int, int]:
        return round(int(device["height"]) * self.scale), round(int(device["width"]) * self.scale), 3

    def observation_space(self, device: Mapping[str, Any]) -> spaces.Dict:
        parts: dict[str, spaces.Space[Any]] = {
            "goal": AnyText(MAX_TEXT),
            "foreground": spaces.Dict({"package": AnyText(MAX_TEXT), "activity": AnyText(MAX_TEXT)}),
        }
        if self.tree in ("xml", "both"):
            parts["tree"] = AnyText(100 * MAX_TEXT)
        if self.tree in ("elements", "both"):
            parts["ui_elements"] = UiElementsSpace()
        if self.screenshot != "none":
            parts["screenshot"] = spaces.Box(0, 255, self.image_shape(device), dtype="uint8")
        return spaces.Dict(parts)

    def action_space_for(self, device: Mapping[str, Any], apps: tuple[str, ...]) -> spaces.Space[Any]:
        w, h = int(device["width"]), int(device["height"])
        if self.action_space == "workbench":
            return WorkbenchActionSpace(w, h, apps)
        if self.action_space == "androidworld":
            return AndroidWorldActionSpace(w, h, apps)
        return ReplySpace(self.format or "androidworld")

    def gym_observation(self, o: Mapping[str, Any]) -> dict[str, Any]:
        """The server's (decoded) observation as the observation space says."""
        fg = o.get("foreground") or {}
        out: dict[str, Any] = {
            "goal": o.get("goal") or "",
            "foreground": {"package": fg.get("package") or "", "activity": fg.get("activity") or ""},
        }
        if self.tree in ("xml", "both"):
            out["tree"] = o.get("tree") or ""
        if self.tree in ("elements", "both"):
            out["ui_elements"] = tuple(o.get("ui_elements") or ())
        if self.screenshot != "none":
            out["screenshot"] = o["screenshot"]
        return out

    # --- step ---

    @staticmethod
    def gym_info(info: dict[str, Any]) -> dict[str, Any]:
        """The protocol's info with its object-or-null values as dicts (``{}`` for null), so Gymnasium's vector envs,
        which batch each key by the type they see first, can batch them."""
        for key in _OBJECT_OR_NULL:
            if key in info and info[key] is None:
                info[key] = {}
        return info

    def action_fields(self, action: Any) -> dict[str, Any]:
        """A ``step`` request's action fields for ``action``: a dict or JSON text in this space; a JSONAction object;
        ``{"json_action": …}``, ``{"action": …}`` or ``{"reply": …, "format": …}`` in any space. Nothing here raises on
        a malformed action: the server records it as a failed step."""
        if hasattr(action, "as_dict") and callable(action.as_dict):  # AndroidWorld's JSONAction
            return {"json_action": action.as_dict()}
        if isinstance(action, str) and self.action_space == "reply":
            return {"reply": action, "format": self.format}
        if isinstance(action, str):
            try:
                parsed = json.loads(action)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                action = parsed
        if isinstance(action, dict):
            if "reply" in action and "action_type" not in action:
                fmt = _choice("format", action.get("format", self.format), FORMATS)
                return {"reply": action["reply"], "format": fmt, **{k: v for k, v in action.items() if k in _REPLY_OPTIONS}}
            if "json_action" in action and "action_type" not in action:
                return {"json_action": action["json_action"]}
            if "action" in action and "action_type" not in action:
                return {"action": action["action"]}
        if self.action_space == "androidworld":
            return {"json_action": action}
        return {"action": action}
