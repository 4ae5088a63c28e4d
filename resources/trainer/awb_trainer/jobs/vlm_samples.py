"""The vlm kinds' training samples: one per recorded step of episodes.jsonl (the store's export format) that has an
answer, with the chat the policy was prompted with and the episode's advantage.

The workbench writes each step a VLM policy decided with `messages` (the request it was sent; an image part
`{"type": "image", "step": k}` shows step k's screenshot, with `width`/`height` when the policy sent it resized) and
`raw` (the reply to learn), and `"train": false` on steps with nothing to learn. A bundle of another writer's, whose
steps carry neither, gets the fallback chat below and the action's JSON as the target."""

from __future__ import annotations

import json
import math
from typing import Any, Optional

import io

from ..bundle import Bundle
from ..errors import BundleError

HISTORY = 5
ROLES = ("system", "user", "assistant")


def default_messages(instruction: str, history: list[str]) -> list[dict]:
    """The chat built when a step does not carry the one the policy saw: screenshot, task and the last actions."""
    past = "\n".join(f"- {h}" for h in history) or "(none)"
    return [{"role": "user", "content": [
        {"type": "image"},
        {"type": "text", "text": f"Task: {instruction}\nPrevious actions:\n{past}\nWhat is the next action?"}]}]


def check_messages(raw: Any, where: str) -> list[dict]:
    """A step's `messages`: [{role: system|user|assistant, content: string | [{type: text, text} | {type: image}]}]."""
    if not isinstance(raw, list) or not raw:
        raise BundleError(where, f"messages must be a non-empty list, got {raw!r:.200}")
    out = []
    for i, m in enumerate(raw):
        at = f"{where} messages[{i}]"
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise BundleError(at, f"must be an object with role {'|'.join(ROLES)}, got {m!r:.200}")
        content = m.get("content")
        if isinstance(content, str):
            out.append({"role": m["role"], "content": content})
            continue
        if not isinstance(content, list):
            raise BundleError(at, f"content must be a string or a list of parts, got {content!r:.200}")
        parts = []
        for j, part in enumerate(content):
            if isinstance(part, dict) and part.get("type") == "image":
                parts.append({"type": "image", **_image_ref(part, f"{at}.content[{j}]")})
            elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append({"type": "text", "text": part["text"]})
            else:
                raise BundleError(f"{at}.content[{j}]", f"must be {{type: text, text: string}} or {{type: image}}, got {part!r:.200}")
        out.append({"role": m["role"], "content": parts})
    return out


def image_parts(messages: list[dict]) -> list[dict]:
    return [p for m in messages if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image"]


def samples(bundle: Bundle) -> list[dict]:
    """One dict per step with an answer: messages, target, the images in the chat's order (PNG bytes; the step's own
    screenshot, or step k's for a part naming it, resized when the part gives the size it was sent at), episode key,
    group (template, seed), outcome reward, the episode's advantage (None when absent), the server's prompt-token
    count (usage.prompt_tokens, when the step recorded it with its messages) and where the step is."""
    out = []
    for line, ep in bundle.jsonl("episodes.jsonl"):
        where = f"episodes.jsonl:{line}"
        if not isinstance(ep, dict):
            raise BundleError(where, f"expected an object, got {type(ep).__name__}")
        advantage = _advantage(ep.get("advantage"), where)
        steps = ep.get("steps") or []
        shots = {s.get("index", i): s.get("screenshot") for i, s in enumerate(steps) if isinstance(s, dict)}
        history: list[str] = []
        for i, step in enumerate(steps):
            at = f"{where} step {i}"
            if step.get("train") is False:
                history.append(step.get("description") or json.dumps(step.get("action")))
                continue
            target = step.get("raw") if isinstance(step.get("raw"), str) else (json.dumps(step["action"]) if step.get("action") else None)
            if step.get("messages") is not None:
                messages = check_messages(step["messages"], at)
            else:
                messages = default_messages(ep.get("instruction", ""), history[-HISTORY:])
            refs = image_parts(messages)
            own = step.get("index", i)
            files = []
            for r in refs:
                k = r.get("step", own)
                if k != own and not shots.get(k):
                    raise BundleError(at, f"an image part shows step {k}, which has no screenshot in this episode")
                files.append(shots.get(k))
            if target and all(files):
                # the server's prompt-token count is only comparable when the step recorded the chat it was sent
                prompt_tokens = _prompt_tokens(step.get("usage"), at) if step.get("messages") is not None else None
                images = [_sized(bundle.read(f), r) for f, r in zip(files, refs)]
                for m in messages:
                    if isinstance(m["content"], list):
                        m["content"] = [{"type": "image"} if p["type"] == "image" else p for p in m["content"]]
                out.append({"messages": messages, "target": target, "images": images,
                            "episode": ep.get("uid", f"line {line}"), "group": (ep.get("template"), ep.get("seed")),
                            "reward": _outcome(ep), "advantage": advantage, "promptTokens": prompt_tokens, "where": at})
            history.append(step.get("description") or json.dumps(step.get("action")))
    if not out:
        raise BundleError("episodes.jsonl", "no step has an answer (raw or action) and the screenshots its chat shows")
    return out


def _image_ref(part: dict, where: str) -> dict:
    """An image part's step and sent size: {"step": k, "width": w, "height": h}, each optional."""
    if part.get("marks") is not None:
        # androidworld-m3a's set-of-marks pictures are drawn by the agent, not stored: this trainer does not draw them.
        raise BundleError(where, f"an image part with marks {part['marks']!r:.50} (drawn by the agent) cannot be rebuilt from the stored screenshot")
    out = {}
    for key in ("step", "width", "height"):
        v = part.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "step" else 1):
            raise BundleError(where, f"image {key} must be {'a step index' if key == 'step' else 'a positive integer'}, got {v!r:.100}")
        out[key] = v
    if ("width" in out) != ("height" in out):
        raise BundleError(where, f"an image part gives width and height together, got {part!r:.200}")
    return out


def _sized(png: bytes, ref: dict) -> bytes:
    """The screenshot at the size the policy sent it (PIL's resize, as the official agents resize), else as stored."""
    if "width" not in ref:
        return png
    from PIL import Image

    image = Image.open(io.BytesIO(png))
    if image.size == (ref["width"], ref["height"]):
        return png
    buf = io.BytesIO()
    image.convert("RGB").resize((ref["width"], ref["height"])).save(buf, format="PNG")
    return buf.getvalue()


def _prompt_tokens(usage: Any, where: str) -> Optional[int]:
    """The server's prompt-token count of a VLM step: usage.prompt_tokens as the store's export writes it
    (docs/trajectory-format.md), None when the step has no usage."""
    if usage is None:
        return None
    n = usage.get("prompt_tokens") if isinstance(usage, dict) else usage
    if n is None and isinstance(usage, dict):
        return None
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise BundleError(where, f"usage.prompt_tokens must be a positive integer or absent, got {n!r:.100}")
    return n


def _advantage(v: Any, where: str) -> Optional[float]:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise BundleError(where, f"advantage must be a finite number or absent, got {v!r}")
    return float(v)


def _outcome(ep: dict) -> float:
    steps = ep.get("steps") or []
    value = ((steps[-1].get("rewards") or {}).get("outcome") or {}).get("value") if steps else None
    return float(value) if isinstance(value, (int, float)) else math.nan


def fill_advantages(rows: list[dict]) -> None:
    """Â = (R − μ_g) / (σ_g + 1e-4) over the episodes of a group (sample std; NaN rewards and zero-std groups → 0),
    for rows whose episode carries no advantage of its own (core/rl/grpo.ts defaults: group std, sample, eps 1e-4)."""
    groups: dict[Any, dict[str, float]] = {}
    for s in rows:
        groups.setdefault(s["group"], {})[s["episode"]] = s["reward"]
    stats = {}
    for g, eps in groups.items():
        vals = [v for v in eps.values() if math.isfinite(v)]
        mean = sum(vals) / len(vals) if vals else 0.0
        std = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)) if len(vals) > 1 else 0.0
        stats[g] = (mean, std, len(vals) < 2 or all(v == vals[0] for v in vals))
    for s in rows:
        if isinstance(s["advantage"], (int, float)):
            continue
        mean, std, degenerate = stats[s["group"]]
        s["advantage"] = 0.0 if degenerate or not math.isfinite(s["reward"]) else (s["reward"] - mean) / (std + 1e-4)
