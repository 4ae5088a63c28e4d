"""`python -m awb_trainer.transformer.session`: a local training session the workbench holds open for a whole run
(core/rl/transformer/session.ts), so a GRPO iteration's update costs the update, not a Python start, a torch import
and a model load. One JSON request per line on stdin, answered on stdout:

    → {"id": 3, "cmd": "sft", "args": {...}}
    ← {"id": 3, "event": {...}}                  zero or more progress events (an SFT epoch)
    ← {"id": 3, "ok": true, "result": {...}}     or {"id": 3, "ok": false, "error": {"type": ..., "message": ...}}

Commands: create, load, save, sft, evaluate, log_probs, grpo_begin, grpo_update, quit (see each handler). A file named
by `stop` in sft's args that appears stops the epochs at the next minibatch (the workbench's Stop)."""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Callable

# The workbench that started this session, read before torch's import (seconds on a loaded machine): a parent that
# died meanwhile would otherwise be read as init, and an orphaned SFT would never see it gone.
PARENT = os.getppid()

import torch  # noqa: E402

from ..jobs.grpo_loss import LossOptions  # noqa: E402
from .data import read_steps  # noqa: E402
from .model import ModelConfig  # noqa: E402
from .train import GrpoOptions, SftOptions, evaluate, grpo_update, sft  # noqa: E402
from .trainee import Trainee  # noqa: E402


class Session:
    def __init__(self, emit: Callable[[dict], None]):
        self.trainee: Trainee | None = None
        self.emit = emit

    def _need(self) -> Trainee:
        if self.trainee is None:
            raise ValueError("no model: send create or load first")
        return self.trainee

    def create(self, a: dict) -> dict:
        """A new model: {model: ModelConfig fields but layout and vocab, layout, tokenizer?: path (default MiniLM's), seed}."""
        tok = a.get("tokenizer")
        fields = dict(a.get("model", {}))
        cfg = ModelConfig(layout=a["layout"], vocab=0, **fields)
        if cfg.text_init == "minilm" and (cfg.text_width != 384 or cfg.text_heads != 12 or cfg.text_ffn != 1536):
            raise ValueError("text_init 'minilm' needs text_width 384, text_heads 12, text_ffn 1536 (all-MiniLM-L6-v2's shape)")
        if tok is None:
            from .minilm import tokenizer_path
            tok = tokenizer_path()
        self.trainee = Trainee.create(cfg, tok, int(a.get("seed", 0)))
        return {"parameters": self.trainee.parameters_info(), "tokenizer": tok}

    def load(self, a: dict) -> dict:
        self.trainee = Trainee.load(a["dir"])
        return {"parameters": self.trainee.parameters_info(), "meta": self.trainee.meta}

    def save(self, a: dict) -> dict:
        t = self._need()
        t.save(a["out"], {**t.meta, **a.get("meta", {})}, onnx=a.get("onnx", True))
        return {"out": a["out"]}

    def sft(self, a: dict) -> dict:
        t = self._need()
        steps = read_steps(a["steps"], t.layout)
        o = SftOptions(**a.get("options", {}))
        stop_file = a.get("stop")
        # The workbench's Stop, or the workbench gone (a killed parent leaves this process to init): an orphaned session
        # would otherwise train on for minutes with no one to read it.
        return sft(t, steps, o, lambda ev: self.emit(ev),
                   lambda: os.getppid() != PARENT or (stop_file is not None and os.path.exists(stop_file)))

    def evaluate(self, a: dict) -> dict:
        t = self._need()
        return evaluate(t, read_steps(a["steps"], t.layout))

    def log_probs(self, a: dict) -> dict:
        t = self._need()
        from .data import choice_log_probs, collate
        steps = read_steps(a["steps"], t.layout)
        t.net.eval()
        with torch.no_grad():
            out = t.net(*collate(steps, t.layout).inputs)
            return {"logProbs": [float(x) for x in choice_log_probs(out, steps, t.layout)]}

    def adapter_begin(self, a: dict) -> dict:
        """A per-app adapter on the loaded base: {rank, alpha?}; then grpo_begin freezes the base as the reference."""
        t = self._need()
        rank = int(a.get("rank", 8))
        wrapped = t.begin_adapter(rank, float(a.get("alpha", 2.0 * rank)))
        return {"wrapped": wrapped, "parameters": t.parameters_info()}

    def grpo_begin(self, _a: dict) -> dict:
        t = self._need()
        t.freeze_reference()
        t.optimizer = None
        return {"parameters": t.parameters_info()}

    def grpo_update(self, a: dict) -> dict:
        t = self._need()
        steps = read_steps(a["steps"], t.layout)
        lo = a["loss"]
        opts = GrpoOptions(**{k: v for k, v in a.get("options", {}).items()},
                           loss=LossOptions(clip_eps=lo["clipEps"], clip_eps_high=lo.get("clipEpsHigh") or lo["clipEps"], kl_beta=lo["klBeta"],
                                            max_log_ratio=lo["maxLogRatio"], aggregation=lo["aggregation"], max_steps=lo.get("maxSteps")))
        return grpo_update(t, steps, opts)


def main() -> int:
    torch.set_num_threads(int(os.environ.get("AWB_TORCH_THREADS", "1")))
    out = sys.stdout
    sys.stdout = sys.stderr  # anything else that prints goes to stderr, never into the protocol

    def send(obj: dict) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    session: Session | None = None
    for line in sys.stdin:
        if not line.strip():
            continue
        req: dict[str, Any] = {}
        try:
            req = json.loads(line)
            rid = req.get("id")
            session = session or Session(lambda ev: None)
            session.emit = lambda ev, rid=rid: send({"id": rid, "event": ev})
            cmd = req.get("cmd")
            if cmd == "quit":
                send({"id": rid, "ok": True, "result": {}})
                return 0
            handler = getattr(session, cmd, None) if isinstance(cmd, str) and not cmd.startswith("_") else None
            if handler is None:
                raise ValueError(f"unknown command {cmd!r}")
            send({"id": rid, "ok": True, "result": handler(req.get("args", {}))})
        except Exception as e:  # answered to the caller, who decides; the session stays up for the next request
            traceback.print_exc(file=sys.stderr)
            send({"id": req.get("id"), "ok": False, "error": {"type": type(e).__name__, "message": str(e)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
