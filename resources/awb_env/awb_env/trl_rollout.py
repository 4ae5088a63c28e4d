"""TRL's ``GRPOTrainer(rollout_func=…)`` face, for a vision model that must see the screen: each prompt's rollout is
an episode on the workbench, the model's replies stepped as ``reply`` + ``format`` (docs/env-protocol.md), recorded
in the store like any other episode.

    rollout = AndroidRollout(format="qwen-mobile-use", run="grpo vlm", max_turns=3)
    dataset = rollout.dataset([("ContactsAddContact", 0), ("ClockStartTimer", 3)])
    trainer = GRPOTrainer(model=MODEL, processing_class=processor, reward_funcs=[env_reward], args=config,
                          train_dataset=dataset, rollout_func=rollout)

How the screenshot reaches the model, within TRL 1.16's contract: the trainer re-encodes images for its training
forward pass from the dataset's ``image`` column only (a rollout_func cannot hand it others). So the episode's first
screen is the dataset row's image — ``dataset()`` resets each task once to take it, and every rollout of the row
resets to the same instance, whose first screen is the same (SimDroid is deterministic) — and the model sees it in
its first turn. Later turns (``max_turns`` > 1) continue the same sequence with the step's outcome as text (tokens
masked out of the loss with ``env_mask``), so generation and training see the same inputs. The prompt of each row is
the format's own request for that task, loaded at run time from the workbench (``awb vlm request``), or yours
(``prompt=``).

Returns per rollout, as TRL 1.16 asks: ``prompt_ids``, ``completion_ids`` (all turns), ``logprobs`` (the sampling
log-probabilities of the model's tokens, 0 for feedback tokens), ``env_mask``, and ``env_reward`` (the episode's
rewards so far: its stored return once it ended) for the :func:`env_reward` reward function.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
from typing import Any, Callable, Sequence

from .client import Connection, EnvClient, Session
from .config import EnvConfig, task_spec
from .server import find_checkout, find_node

Messages = list[dict[str, Any]]


def env_reward(completions: list[Any], env_reward: list[float], **kwargs: Any) -> list[float]:
    """The reward function for :class:`AndroidRollout`: each rollout's episode return, as the rollout measured it."""
    return [float(r) for r in env_reward]


def official_messages(format: str, template: str, seed: int) -> Messages:
    """The format's request for a task's first step, as the workbench's VLM policy sends it (``awb vlm request``):
    the system prompt and the user turn, the screenshot as an ``{"type": "image"}`` placeholder."""
    root = find_checkout()
    args = [find_node(), str(root / "bin" / "awb.js"), "vlm", "request", "--format", format, "--task", template,
            "--seed", str(seed), "--step", "0"]
    done = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"awb vlm request --format {format} --task {template} failed: {done.stderr.strip()[-400:]}")
    request = json.loads(done.stdout)["request"]
    out: Messages = []
    for m in request["messages"]:
        content = m["content"]
        if isinstance(content, list):
            content = [{"type": "image"} if part.get("type") == "image_url" else {"type": "text", "text": part["text"]}
                       for part in content]
        out.append({"role": m["role"], "content": content})
    return out


def _user_text(prompt: Messages) -> str:
    for m in reversed(prompt):
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(p.get("text") or "" for p in content if isinstance(p, dict) and p.get("type") == "text")
    return ""


def _without_images(prompt: Messages) -> Messages:
    """The request as the store keeps it: the messages, each image as a placeholder."""
    out = []
    for m in prompt:
        content = m.get("content")
        if isinstance(content, list):
            content = [{"type": "image"} if isinstance(p, dict) and p.get("type") == "image" else
                       {"type": "text", "text": p.get("text")} for p in content]
        out.append({"role": m.get("role"), "content": content})
    return out


def _first_image(prompt: Messages) -> Any:
    for m in prompt:
        content = m.get("content")
        if isinstance(content, list):
            for p in content:
                if isinstance(p, dict) and p.get("type") == "image" and p.get("image") is not None:
                    return p["image"]
    raise ValueError("the rollout's prompt carries no image: build the dataset with AndroidRollout.dataset()")


class AndroidRollout:
    """A ``rollout_func`` whose rollouts are recorded episodes (keyword arguments as AndroidTaskEnv's, plus
    ``format``, ``max_turns`` and ``feedback``)."""

    def __init__(self, *, format: str, server: str | None = None, agent: str = "trl-vlm", run: str | None = None,
                 max_turns: int = 3, turn_tokens: int | None = None, scale: float = 0.5, rewards: Any = None,
                 max_steps: int | None = None, on_malformed: str = "continue",
                 feedback: Callable[[dict[str, Any]], str] | None = None) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns={max_turns!r}: expected at least 1")
        self.format = format
        self.max_turns = max_turns
        self.turn_tokens = turn_tokens
        self.feedback = feedback or _feedback
        self._kwargs = dict(agent=agent, run=run, scale=scale, rewards=rewards, max_steps=max_steps,
                            on_malformed=on_malformed, format=format, action_space="reply", tree="none",
                            screenshot="png", record="half" if scale == 0.5 else "full")
        self._server = server
        self._tasks: dict[str, dict[str, Any]] = {}
        self._connection: Connection | None = None
        self._sessions: list[Session] = []

    # --- the dataset ---

    def dataset(self, tasks: Sequence[tuple[str, int] | dict[str, Any]],
                prompt: Callable[[str, int, dict[str, Any]], Messages] | None = None) -> Any:
        """A ``datasets.Dataset`` of (``prompt``, ``image``): each task's request and its first screen."""
        from datasets import Dataset
        from PIL import Image

        rows = []
        specs = [task_spec(*t) if isinstance(t, tuple) else dict(t) for t in tasks]
        for t, spec in zip(tasks, specs):
            if "template" not in spec or "seed" not in spec:
                raise ValueError(f"task {t!r}: AndroidRollout needs a template and a seed per row")
        # The first screens are taken in a run of their own, so the training run holds only rollouts.
        client = self._connect()
        kwargs = {**self._kwargs, "run": f"{self._kwargs['run'] or self._kwargs['agent']} · first screens"}
        config = EnvConfig.from_kwargs(task=specs[0], **kwargs)  # type: ignore[arg-type]
        session = client.create(config.task, png="bytes", **config.create_fields())
        for spec in specs:
            first = session.reset(task=spec)
            messages = (prompt or (lambda tpl, seed, _obs: official_messages(self.format, tpl, seed)))(
                spec["template"], spec["seed"], first.observation)
            # Every content a list of blocks (Arrow cannot store a column mixing text and lists).
            messages = [{**m, "content": [{"type": "text", "text": m["content"]}]} if isinstance(m.get("content"), str)
                        else m for m in messages]
            key = _user_text(messages)
            if key in self._tasks and self._tasks[key] != spec:
                raise ValueError(f"two tasks with the same prompt text: {self._tasks[key]} and {spec}")
            self._tasks[key] = spec
            image = Image.open(io.BytesIO(first.observation["screenshot"]))
            image.load()
            rows.append({"prompt": messages, "image": image})
        session.close()
        return Dataset.from_list(rows)

    # --- the rollouts ---

    def __call__(self, prompts: list[Messages], trainer: Any) -> dict[str, Any]:
        import torch
        from trl.models import unwrap_model_for_generation

        processor = trainer.processing_class
        tokenizer = getattr(processor, "tokenizer", processor)
        specs = [self._task_of(p) for p in prompts]
        sessions = self._session_pool(len(prompts), specs[0])
        resets = [s.send_reset(task=spec) for s, spec in zip(sessions, specs)]
        for p in resets:
            p.result()

        images = [_first_image(p) for p in prompts]
        texts = [processor.apply_chat_template(p, tokenize=False, add_generation_prompt=True,
                                               **(trainer.chat_template_kwargs or {})) for p in prompts]
        enc = processor(text=texts, images=images, padding=True, padding_side="left", return_tensors="pt")
        prompt_ids = [row[mask.bool()].tolist() for row, mask in zip(enc["input_ids"], enc["attention_mask"])]
        shape = enc["input_ids"].shape
        # Per-token fields (e.g. mm_token_type_ids) follow each row's tokens; the rest (pixels, grids) its image.
        per_token = {k: [row[m.bool()].tolist() for row, m in zip(v, enc["attention_mask"])]
                     for k, v in enc.items() if k not in ("input_ids", "attention_mask") and tuple(v.shape) == tuple(shape)}
        vision = {k: v for k, v in enc.items() if k not in ("input_ids", "attention_mask") and k not in per_token}
        turn_end = _turn_end_ids(processor, tokenizer)

        n = len(prompts)
        completion: list[list[int]] = [[] for _ in range(n)]
        logprobs: list[list[float]] = [[] for _ in range(n)]
        mask: list[list[int]] = [[] for _ in range(n)]
        returns = [0.0] * n
        episode_ids: list[int | None] = [None] * n
        live = list(range(n))
        budget = int(trainer.max_completion_length)
        fmt_opts = self._format_options(processor)
        for turn in range(self.max_turns):
            live = [i for i in live if budget - len(completion[i]) > 0]
            if not live:
                break
            new_ids, new_lps = self._generate(trainer, unwrap_model_for_generation, torch, tokenizer,
                                              [prompt_ids[i] + completion[i] for i in live], vision, per_token, live, n,
                                              min(budget - len(completion[i]) for i in live) if self.turn_tokens is None
                                              else min(self.turn_tokens, *(budget - len(completion[i]) for i in live)))
            steps = []
            for i, ids, lps in zip(live, new_ids, new_lps):
                completion[i] += ids
                logprobs[i] += lps
                mask[i] += [1] * len(ids)
                reply = tokenizer.decode(ids, skip_special_tokens=True)
                steps.append(sessions[i].send_step(reply=reply, format=self.format, image=[images[i].width, images[i].height],
                                                   prompt=_without_images(prompts[i]) if turn == 0 else None,
                                                   **fmt_opts))
            still = []
            for i, pending in zip(live, steps):
                r = pending.result()
                returns[i] += r.reward
                if r.done:
                    episode_ids[i] = r.info.get("episode_id")
                    continue
                if turn + 1 < self.max_turns:
                    fb = self._feedback_ids(processor, tokenizer, turn_end, completion[i], self.feedback(r.info))
                    completion[i] += fb
                    logprobs[i] += [0.0] * len(fb)
                    mask[i] += [0] * len(fb)
                    still.append(i)
            live = still
        # Completions are cut to the budget (a feedback turn may overrun it; its tokens carry no loss).
        completion = [c[:budget] for c in completion]
        return {
            "prompt_ids": prompt_ids, "completion_ids": completion,
            "logprobs": [lp[:budget] for lp in logprobs], "env_mask": [m[:budget] for m in mask],
            "env_reward": returns, "episode_id": episode_ids,
        }

    def close(self) -> None:
        """Closes the sessions (an unfinished episode is recorded as aborted) and lets the server go."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self._sessions = []

    # --- helpers ---

    def _task_of(self, prompt: Messages) -> dict[str, Any]:
        spec = self._tasks.get(_user_text(prompt))
        if spec is None:
            raise ValueError("a prompt this rollout did not make: build the training dataset with AndroidRollout.dataset()")
        return spec

    def _connect(self) -> EnvClient:
        if self._connection is None:
            self._connection = Connection(self._server)
        return self._connection.client

    def _session_pool(self, n: int, spec: dict[str, Any]) -> list[Session]:
        client = self._connect()
        config = EnvConfig.from_kwargs(task=spec, **self._kwargs)  # type: ignore[arg-type]
        missing = n - len(self._sessions)
        created = [client.send_create(config.task, png="bytes", **config.create_fields()) for _ in range(missing)]
        self._sessions += [p.result() for p in created]
        return self._sessions[:n]

    def _format_options(self, processor: Any) -> dict[str, Any]:
        # smart-resize coordinates (qwen-mobile-use) depend on the image processor's pixel bounds.
        ip = getattr(processor, "image_processor", None)
        lo, hi = getattr(ip, "min_pixels", None), getattr(ip, "max_pixels", None)
        if self.format == "qwen-mobile-use" and lo and hi:
            return {"min_pixels": int(lo), "max_pixels": int(hi)}
        return {}

    def _generate(self, trainer: Any, unwrap: Any, torch: Any, tokenizer: Any, rows: list[list[int]],
                  vision: dict[str, Any], per_token: dict[str, list[list[int]]], live: list[int], n: int,
                  max_new: int) -> tuple[list[list[int]], list[list[float]]]:
        """One turn for the live rollouts: sampled tokens (up to the end of turn) and their sampling log-probs."""
        device = trainer.accelerator.device
        width = max(len(r) for r in rows)
        pad = tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=device)
        attn = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=device)
        inputs: dict[str, Any] = {"input_ids": ids, "attention_mask": attn}
        inputs.update(_select_vision(vision, live, n, torch, device))
        for k, rows_k in per_token.items():
            # The prompt's values, 0 (text) for the tokens after it, left-padded like the ids.
            vals = [rows_k[i] + [0] * (len(r) - len(rows_k[i])) for i, r in zip(live, rows)]
            inputs[k] = torch.tensor([[0] * (width - len(v)) + v for v in vals], device=device)
        config = copy.deepcopy(trainer.generation_config)  # the trainer's sampling settings
        config.max_new_tokens = max_new
        config.output_scores = True
        config.return_dict_in_generate = True
        with unwrap(trainer.model_wrapped, trainer.accelerator) as model, torch.no_grad():
            out = model.generate(**inputs, generation_config=config)
        gen = out.sequences[:, width:]
        scores = torch.stack(out.scores, dim=1).float().log_softmax(-1)  # (B, T, V): the sampling distribution
        lps = scores.gather(-1, gen.unsqueeze(-1)).squeeze(-1)
        stop = set(trainer.eos_token_ids) | {pad}
        new_ids, new_lps = [], []
        for row, lp in zip(gen.tolist(), lps.tolist()):
            k = next((j + 1 for j, t in enumerate(row) if t in stop), len(row))
            new_ids.append(row[:k])
            new_lps.append(lp[:k])
        return new_ids, new_lps

    def _feedback_ids(self, processor: Any, tokenizer: Any, turn_end: list[int], done: list[int], text: str) -> list[int]:
        """The tokens that close the model's turn and carry the step's outcome as the next user turn."""
        # The reply stopped on the template's end-of-turn token, or ran out of budget before it.
        ids = turn_end[1:] if done and turn_end and done[-1] == turn_end[0] else list(turn_end)
        return ids + tokenizer.encode(_user_turn(processor, text), add_special_tokens=False)


def _feedback(info: dict[str, Any]) -> str:
    """The default next user turn: what the step did, briefly (the whole error is in the store)."""
    err = info.get("error")
    said = f"That action failed ({err.get('name')})." if err else f"Done: {info.get('description')}."
    return f"{said} What is the next action?"


def _turn_end_ids(processor: Any, tokenizer: Any) -> list[int]:
    """What the chat template writes after an assistant's text (e.g. ``<|im_end|>`` and a newline), found by
    rendering a one-turn chat."""
    marker = "§reply§"
    text = processor.apply_chat_template(
        [{"role": "user", "content": [{"type": "text", "text": "x"}]},
         {"role": "assistant", "content": [{"type": "text", "text": marker}]}], tokenize=False)
    return tokenizer.encode(text[text.index(marker) + len(marker):], add_special_tokens=False)


def _user_turn(processor: Any, text: str) -> str:
    """A user turn and the generation prompt after it, as the chat template writes them mid-conversation: the
    rendering of [system, user] minus that of [system] (so no default system turn comes with it)."""
    system = {"role": "system", "content": [{"type": "text", "text": "s"}]}
    user = {"role": "user", "content": [{"type": "text", "text": text}]}
    before = processor.apply_chat_template([system], tokenize=False)
    both = processor.apply_chat_template([system, user], tokenize=False, add_generation_prompt=True)
    if not both.startswith(before):
        raise ValueError("the chat template does not render a conversation's turns as a prefix of the next")
    return both[len(before):]


def _select_vision(vision: dict[str, Any], live: list[int], n: int, torch: Any, device: Any) -> dict[str, Any]:
    """The vision inputs of the live rows: one image per row, its patches in ``pixel_values`` in row order."""
    if len(live) == n:
        return {k: v.to(device) for k, v in vision.items()}
    thw = vision["image_grid_thw"]
    sizes = [int(t.prod()) for t in thw]
    starts = [sum(sizes[:i]) for i in range(n)]
    pv = torch.cat([vision["pixel_values"][starts[i]:starts[i] + sizes[i]] for i in live])
    out = {"pixel_values": pv.to(device), "image_grid_thw": thw[live].to(device)}
    for k, v in vision.items():
        if k not in out:
            out[k] = v[live].to(device)
    return out
