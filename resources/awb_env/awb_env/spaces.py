"""Gymnasium spaces of the Android task environment.

- :class:`AnyText`: text of any Unicode characters (a screen's XML holds whatever the apps show), sampled from ASCII.
- :class:`UiElementsSpace`: the screen's AndroidWorld-style UI elements, a tuple of dicts.
- :class:`WorkbenchActionSpace`, :class:`AndroidWorldActionSpace`, :class:`ReplySpace`: the three forms an action
  takes (docs/env-protocol.md, ``step``). ``contains`` mirrors what the server accepts as well-formed;
  ``sample`` draws well-formed actions that act on the device (never ``answer`` or ``status``: a random agent that
  ended its episodes at random would explore nothing). The server stays the judge: an action outside the space is
  sent anyway and comes back as a recorded failed step with ``info["error"]``.
"""

from __future__ import annotations

import math
import string
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

DIRECTIONS = ("up", "down", "left", "right")
# core/device/device.ts KEYS: what press_key takes.
KEYS = ("BACK", "HOME", "ENTER", "DEL", "APP_SWITCH", "TAB", "MOVE_END", "MOVE_HOME", "ESCAPE", "SPACE")
WORKBENCH_TYPES = (
    "click", "long_press", "double_tap", "scroll", "swipe", "input_text", "keyboard_enter", "press_key",
    "navigate_back", "navigate_home", "open_app", "wait", "answer", "status",
)
# android_world/env/json_action.py
AW_TYPES = (
    "answer", "click", "double_tap", "input_text", "keyboard_enter", "long_press", "navigate_back", "navigate_home",
    "open_app", "scroll", "status", "swipe", "unknown", "wait",
)
AW_FIELDS = ("action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name", "keycode", "clear_text")
WORDS = ("hello", "Alice", "meeting", "42", "groceries", "note", "tomorrow", "555-0100", "done")
_SAMPLE_CHARS = string.ascii_letters + string.digits + " .,:;-_/<>=\"'"


class AnyText(spaces.Text):
    """Text of any Unicode characters between ``min_length`` and ``max_length``; ``sample()`` draws printable ASCII."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARS, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        return (self.min_length, self.max_length) == (other.min_length, other.max_length)  # type: ignore[attr-defined]


_ELEMENT_TEXT = ("text", "content_description", "class_name", "package_name", "resource_id")
_ELEMENT_FLAGS = (
    "is_checked", "is_checkable", "is_clickable", "is_enabled", "is_focused", "is_focusable", "is_long_clickable",
    "is_scrollable", "is_selected", "is_visible",
)
_BOX = ("x_min", "x_max", "y_min", "y_max")


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_number(v: Any) -> bool:
    return (_is_int(v) or isinstance(v, (float, np.floating))) and math.isfinite(float(v))


def _is_index(v: Any) -> bool:
    return (_is_int(v) or (isinstance(v, float) and v.is_integer())) and v >= 0


class UiElementsSpace(spaces.Space[tuple]):
    """A screen's UI elements as the server sends them (docs/env-protocol.md): a tuple of dicts with AndroidWorld's
    field names — texts, ``bbox``/``bbox_pixels`` as ``{x_min, x_max, y_min, y_max}`` pixels, and ``is_*`` flags."""

    def __init__(self, max_elements: int = 10_000, seed: int | np.random.Generator | None = None) -> None:
        self.max_elements = max_elements
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        if not isinstance(x, tuple) or len(x) > self.max_elements:
            return False
        for e in x:
            if not isinstance(e, dict):
                return False
            if not all(isinstance(e.get(k), str) for k in _ELEMENT_TEXT):
                return False
            if not all(isinstance(e.get(k), bool) for k in _ELEMENT_FLAGS):
                return False
            for box in (e.get("bbox"), e.get("bbox_pixels")):
                if not isinstance(box, dict) or not all(_is_number(box.get(k)) for k in _BOX):
                    return False
        return True

    def sample(self, mask: Any = None, probability: Any = None) -> tuple:
        rng = self.np_random
        out = []
        for _ in range(int(rng.integers(0, 4))):
            x0, y0 = int(rng.integers(0, 1000)), int(rng.integers(0, 2000))
            box = {"x_min": x0, "x_max": x0 + 80, "y_min": y0, "y_max": y0 + 40}
            e: dict[str, Any] = {k: "" for k in _ELEMENT_TEXT}
            e.update({k: bool(rng.integers(0, 2)) for k in _ELEMENT_FLAGS})
            e.update(text=str(rng.choice(WORDS)), class_name="android.widget.TextView", bbox=box, bbox_pixels=dict(box))
            out.append(e)
        return tuple(out)

    def __repr__(self) -> str:
        return f"UiElementsSpace(max_elements={self.max_elements})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UiElementsSpace) and other.max_elements == self.max_elements


class _ActionSpace(spaces.Space[Any]):
    """Shared by the action spaces: a screen to draw points on, the apps open_app may name."""

    def __init__(self, width: int, height: int, apps: Sequence[str] = (), seed: int | np.random.Generator | None = None) -> None:
        self.width = int(width)
        self.height = int(height)
        self.apps = tuple(apps) or ("Contacts",)
        super().__init__(None, None, seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def _point(self) -> tuple[int, int]:
        rng = self.np_random
        return int(rng.integers(0, self.width)), int(rng.integers(0, self.height))

    def _word(self) -> str:
        return str(self.np_random.choice(WORDS))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        return (self.width, self.height, self.apps) == (other.width, other.height, other.apps)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.width}x{self.height}, apps={list(self.apps)})"


def workbench_action_issues(a: Any) -> list[str]:
    """What the workbench's action schema (core/actions/schema.ts) would refuse in ``a``; empty when well-formed."""
    if not isinstance(a, dict):
        return [f"an action is a dict, got {type(a).__name__}"]
    t = a.get("action_type")
    if t not in WORKBENCH_TYPES:
        return [f"action_type {t!r} is not one of {', '.join(WORKBENCH_TYPES)}"]
    allowed: dict[str, Any] = {"action_type": lambda v: True}
    need: tuple[str, ...] = ()
    if t in ("click", "long_press", "double_tap"):
        allowed.update(index=_is_index, x=_is_number, y=_is_number)
        has_index, has_xy = "index" in a, ("x" in a, "y" in a)
        if has_index == any(has_xy) or (not has_index and not all(has_xy)):
            return ['give either "index" or both "x" and "y"']
    elif t == "scroll":
        allowed.update(direction=lambda v: v in DIRECTIONS, index=_is_index)
        need = ("direction",)
    elif t == "swipe":
        point = lambda v: isinstance(v, (list, tuple)) and len(v) == 2 and all(_is_number(c) for c in v)  # noqa: E731
        allowed.update(start=point, end=point, duration_ms=lambda v: _is_int(v) and 1 <= v <= 10_000)
        need = ("start", "end")
    elif t == "input_text":
        allowed.update(text=lambda v: isinstance(v, str) and v != "", index=_is_index, clear=lambda v: isinstance(v, bool),
                       submit=lambda v: isinstance(v, bool))
        need = ("text",)
    elif t == "press_key":
        allowed.update(key=lambda v: v in KEYS)
        need = ("key",)
    elif t == "open_app":
        allowed.update(app_name=lambda v: isinstance(v, str) and v.strip() != "")
        need = ("app_name",)
    elif t == "wait":
        allowed.update(seconds=lambda v: _is_number(v) and 0 < v <= 60)
    elif t == "answer":
        allowed.update(text=lambda v: isinstance(v, str))
        need = ("text",)
    elif t == "status":
        allowed.update(goal_status=lambda v: v in ("complete", "infeasible"))
        need = ("goal_status",)
    issues = [f'{t} needs "{k}"' for k in need if k not in a]
    for k, v in a.items():
        check = allowed.get(k)
        if check is None:
            issues.append(f'{t} has no field "{k}"')
        elif not check(v):
            issues.append(f"{t}: {k}={v!r} is not allowed")
    return issues


class WorkbenchActionSpace(_ActionSpace):
    """The workbench's action space (core/actions/schema.ts) as dicts."""

    def contains(self, x: Any) -> bool:
        return not workbench_action_issues(x)

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        rng = self.np_random
        kind = str(rng.choice(("click", "click", "long_press", "scroll", "swipe", "input_text", "keyboard_enter",
                               "navigate_back", "navigate_home", "open_app", "wait")))
        if kind in ("click", "long_press"):
            x, y = self._point()
            return {"action_type": kind, "x": x, "y": y}
        if kind == "scroll":
            return {"action_type": "scroll", "direction": str(rng.choice(DIRECTIONS))}
        if kind == "swipe":
            return {"action_type": "swipe", "start": list(self._point()), "end": list(self._point())}
        if kind == "input_text":
            return {"action_type": "input_text", "text": self._word()}
        if kind == "open_app":
            return {"action_type": "open_app", "app_name": str(rng.choice(self.apps))}
        return {"action_type": kind}


def androidworld_action_issues(a: Any) -> list[str]:
    """What AndroidWorld's JSONAction constructor (json_action.py) would refuse in ``a``; empty when it accepts it."""
    if not isinstance(a, dict):
        return [f"a JSONAction is a dict, got {type(a).__name__}"]
    issues = [f'"{k}" is not a JSONAction field' for k in a if k not in AW_FIELDS]
    if a.get("action_type") not in AW_TYPES:
        issues.append(f"action_type {a.get('action_type')!r} is not one of {', '.join(AW_TYPES)}")
    index = a.get("index")
    if index is not None:
        try:
            int(index)
        except (TypeError, ValueError):
            issues.append(f"index {index!r} is not an integer")
        if a.get("x") is not None or a.get("y") is not None:
            issues.append("either an index or x and y")
    if a.get("direction") and a.get("direction") not in DIRECTIONS:
        issues.append(f"direction {a.get('direction')!r} is not up, down, left or right")
    keycode = a.get("keycode")
    if keycode is not None and not (isinstance(keycode, str) and keycode.startswith("KEYCODE_")):
        issues.append(f"keycode {keycode!r} does not start with KEYCODE_")
    return issues


class AndroidWorldActionSpace(_ActionSpace):
    """AndroidWorld's JSONAction as dicts (json_action.py's fields and rules)."""

    def contains(self, x: Any) -> bool:
        return not androidworld_action_issues(x)

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        rng = self.np_random
        kind = str(rng.choice(("click", "click", "long_press", "double_tap", "scroll", "swipe", "input_text",
                               "keyboard_enter", "navigate_back", "navigate_home", "open_app", "wait")))
        if kind in ("click", "long_press", "double_tap"):
            x, y = self._point()
            return {"action_type": kind, "x": x, "y": y}
        if kind in ("scroll", "swipe"):
            return {"action_type": kind, "direction": str(rng.choice(DIRECTIONS))}
        if kind == "input_text":
            return {"action_type": "input_text", "text": self._word()}
        if kind == "open_app":
            return {"action_type": "open_app", "app_name": str(rng.choice(self.apps))}
        return {"action_type": kind}


class ReplySpace(AnyText):
    """A model's raw reply in ``format`` (docs/policy-vlm.md); ``sample()`` writes replies that format parses (a tap
    at a point inside every format's coordinate frame, back, home)."""

    def __init__(self, format: str, max_length: int = 1_000_000, seed: int | np.random.Generator | None = None) -> None:
        self.format = format
        super().__init__(max_length, min_length=0, seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        rng = self.np_random
        kind = str(rng.choice(("tap", "tap", "back", "home")))
        x, y = int(rng.integers(0, 500)), int(rng.integers(0, 500))
        if self.format == "androidworld":
            action = {"tap": f'{{"action_type": "click", "x": {x}, "y": {y}}}', "back": '{"action_type": "navigate_back"}',
                      "home": '{"action_type": "navigate_home"}'}[kind]
            return f"Reason: explore.\nAction: {action}"
        if self.format == "ui-tars":
            action = {"tap": f"click(start_box='({x},{y})')", "back": "press_back()", "home": "press_home()"}[kind]
            return f"Thought: explore.\nAction: {action}"
        if self.format == "mobilerl":
            action = {"tap": f'do(action="Tap", element=[{x}, {y}, {x + 10}, {y + 10}])', "back": 'do(action="Back")',
                      "home": 'do(action="Home")'}[kind]
            return f"<think>explore</think>\n<answer>{action}</answer>"
        args = {"tap": f'{{"action": "click", "coordinate": [{x}, {y}]}}',
                "back": '{"action": "system_button", "button": "Back"}',
                "home": '{"action": "system_button", "button": "Home"}'}[kind]
        return f'Explore.\n<tool_call>\n{{"name": "mobile_use", "arguments": {args}}}\n</tool_call>'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReplySpace) and other.format == self.format and other.max_length == self.max_length

    def __repr__(self) -> str:
        return f"ReplySpace({self.format!r})"
