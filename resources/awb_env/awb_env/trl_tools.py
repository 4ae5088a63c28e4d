"""TRL's ``GRPOTrainer(environment_factory=…)`` face: a class whose public methods are the model's tools.

    from functools import partial
    from trl import GRPOConfig, GRPOTrainer
    from awb_env.trl_tools import AndroidToolEnv, with_tool_template

    trainer = GRPOTrainer(
        model=MODEL, args=GRPOConfig(max_steps=100, ...),
        processing_class=with_tool_template(processor),       # only if its template cannot render tool calls
        environment_factory=partial(AndroidToolEnv, task="ContactsAddContact", seed=0, run="grpo tools"),
    )

TRL's contract (trl/trainer/grpo_trainer.py, 1.16): one instance per rollout, reused across batches; ``reset(**row)``
gets the dataset row and returns what is appended to the prompt (here: the goal, the screen's elements as text, and
the screenshot as an image block when ``screenshot=True``, so a vision model sees it); every public method other than
``reset`` and ``get_reward`` is a tool, described to the model by its type hints and Google-style docstring;
``get_reward()`` scores the rollout: the rewards the episode earned (they sum to the stored return once it ends).
Each ``reset`` starts an episode recorded in the store (an unfinished one before it ends as aborted).
"""

from __future__ import annotations

import io
import weakref
from importlib import resources
from typing import Any

from .client import Connection, ResetResult, Session, StepResult
from .config import EnvConfig


def tool_chat_template() -> str:
    """TRL's Qwen3-VL chat template (trl/chat_templates/qwen3_vl.jinja, read from the installed TRL): a Qwen template
    that renders tools and tool calls, and whose tool-call replies TRL knows how to parse."""
    return (resources.files("trl") / "chat_templates" / "qwen3_vl.jinja").read_text(encoding="utf-8")


def with_tool_template(processor: Any) -> Any:
    """``processor`` with TRL's Qwen3-VL template, for a Qwen-family model whose own template has no tool support
    (the tiny test Qwen2.5-VL, base checkpoints). Returns the same processor."""
    template = tool_chat_template()
    processor.chat_template = template
    tokenizer = getattr(processor, "tokenizer", None)
    if tokenizer is not None:
        tokenizer.chat_template = template
    return processor


class AndroidToolEnv:
    """A workbench session whose episodes a model plays by calling tools.

    Args (keyword): as AndroidTaskEnv's (task, seed, params, split, part, server, agent, run, rewards, max_steps);
    ``screenshot`` (default True) sends the screen as an image with each observation, at ``scale`` (default 0.5).
    Coordinates the tools take are pixels of that screenshot.
    """

    def __init__(self, *, screenshot: bool = True, scale: float = 0.5, server: str | None = None,
                 agent: str = "trl-tools", **kwargs: Any) -> None:
        self._config = EnvConfig.from_kwargs(screenshot="png" if screenshot else "none", scale=scale, tree="elements",
                                             agent=agent, **kwargs)
        connection = Connection(server)
        self._session: Session = connection.create(self._config.task, png="bytes", **self._config.create_fields())
        # TRL keeps its instances for the whole run and has no close hook: the connection goes with the instance.
        self._finalizer = weakref.finalize(self, connection.close)
        self._return = 0.0
        self._done = False
        self._last: StepResult | ResetResult | None = None

    # --- TRL's contract ---

    def reset(self, **kwargs: Any) -> str | list[dict[str, Any]]:
        """Starts the next episode. A dataset row may name it: ``task`` (a template id or task dict) and ``seed``."""
        task = kwargs.get("task")
        if isinstance(task, str):
            task = {"template": task}
        seed = kwargs.get("seed")
        r = self._session.reset(int(seed) if seed is not None else None, task if isinstance(task, dict) else None)
        self._return, self._done, self._last = 0.0, False, r
        return self._content(f"Task: {r.info.get('goal', '')}", r.observation)

    def get_reward(self) -> float:
        """The rewards this rollout's episode earned (its stored return when it ended)."""
        return self._return

    # --- the tools ---

    def click(self, x: int, y: int) -> str | list[dict[str, Any]]:
        """Tap a point of the screen.

        Args:
            x: Horizontal position, in pixels of the screenshot.
            y: Vertical position, in pixels of the screenshot.

        Returns:
            What the tap did, and the screen after it.
        """
        return self._act({"action_type": "click", **self._point(x, y)})

    def long_press(self, x: int, y: int) -> str | list[dict[str, Any]]:
        """Press and hold a point of the screen.

        Args:
            x: Horizontal position, in pixels of the screenshot.
            y: Vertical position, in pixels of the screenshot.

        Returns:
            What the press did, and the screen after it.
        """
        return self._act({"action_type": "long_press", **self._point(x, y)})

    def type_text(self, text: str) -> str | list[dict[str, Any]]:
        """Type text into the focused input field.

        Args:
            text: The text to type.

        Returns:
            What was typed, and the screen after it.
        """
        return self._act({"action_type": "input_text", "text": text})

    def scroll(self, direction: str) -> str | list[dict[str, Any]]:
        """Scroll the screen's content.

        Args:
            direction: Where to move the view: "up", "down", "left" or "right".

        Returns:
            The screen after scrolling.
        """
        return self._act({"action_type": "scroll", "direction": direction})

    def navigate_back(self) -> str | list[dict[str, Any]]:
        """Press the Back button.

        Returns:
            The screen after it.
        """
        return self._act({"action_type": "navigate_back"})

    def navigate_home(self) -> str | list[dict[str, Any]]:
        """Press the Home button.

        Returns:
            The home screen.
        """
        return self._act({"action_type": "navigate_home"})

    def open_app(self, app_name: str) -> str | list[dict[str, Any]]:
        """Open an app by its name.

        Args:
            app_name: The app's name, e.g. "Contacts".

        Returns:
            The screen after opening it.
        """
        return self._act({"action_type": "open_app", "app_name": app_name})

    def answer(self, text: str) -> str:
        """Give the answer the task asks for; this ends the task.

        Args:
            text: The answer.

        Returns:
            Whether the task was solved.
        """
        return self._end({"action_type": "answer", "text": text})

    def finish(self, status: str) -> str:
        """End the task.

        Args:
            status: "complete" when the task is done, "infeasible" when it cannot be done.

        Returns:
            Whether the task was solved.
        """
        return self._end({"action_type": "status", "goal_status": status})

    # --- helpers (private: TRL makes every public method a tool) ---

    def _point(self, x: int, y: int) -> dict[str, float]:
        return {"x": round(x / self._config.scale), "y": round(y / self._config.scale)}

    def _step(self, action: dict[str, Any]) -> StepResult:
        r = self._session.step(action)
        self._return += r.reward
        self._done = r.done
        self._last = r
        return r

    def _act(self, action: dict[str, Any]) -> str | list[dict[str, Any]]:
        r = self._step(action)
        head = self._outcome(r)
        if r.done or r.observation is None:
            return head
        return self._content(head, r.observation)

    def _end(self, action: dict[str, Any]) -> str:
        return self._outcome(self._step(action))

    def _outcome(self, r: StepResult) -> str:
        info = r.info
        err = info.get("error")
        head = f"Failed: {err.get('message')}" if err else f"Done: {info.get('description') or info.get('action')}"
        if r.done:
            ok = info.get("success")
            head += f". The task is over ({info.get('terminated_by')}): {'solved' if ok else 'not solved'}."
        return head

    def _content(self, head: str, obs: dict[str, Any]) -> str | list[dict[str, Any]]:
        text = head + "\n" + self._describe(obs)
        png = obs.get("screenshot")
        if not isinstance(png, (bytes, bytearray)):
            return text
        from PIL import Image

        image = Image.open(io.BytesIO(png))
        image.load()
        return [{"type": "image", "image": image}, {"type": "text", "text": text}]

    def _describe(self, obs: dict[str, Any]) -> str:
        scale = self._config.scale
        fg = (obs.get("foreground") or {}).get("package", "")
        lines = [f"App: {fg}. Screen elements (centre in screenshot pixels):"]
        for e in obs.get("ui_elements") or []:
            label = e.get("text") or e.get("content_description")
            if not (label or e.get("is_clickable") or e.get("is_editable")):
                continue
            b = e["bbox_pixels"]
            cx, cy = round((b["x_min"] + b["x_max"]) / 2 * scale), round((b["y_min"] + b["y_max"]) / 2 * scale)
            kind = e.get("class_name", "").rsplit(".", 1)[-1]
            lines.append(f'- {kind} "{label}" at ({cx}, {cy})' if label else f"- {kind} at ({cx}, {cy})")
        return "\n".join(lines)
