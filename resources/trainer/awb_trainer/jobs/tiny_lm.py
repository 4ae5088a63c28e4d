"""`model: "awb-tiny-lm"`: a built-in byte-level causal language model with LoRA written in torch, so the vlm-sft /
vlm-grpo path (samples, losses, adapter files, resumeFrom, publishing) runs and is tested where transformers and
peft cannot be installed.

It is a protocol and plumbing model, not an agent: it has never been trained (its base weights are drawn from a fixed
seed, so "the base model" is the same tensor values on every machine and in every job) and it IGNORES THE IMAGE —
it conditions on the prompt text only (a screenshot part of the chat becomes one <image> token).

Tokens: the 256 byte values, then BOS, EOS, one tag per chat role and <image>. A chat is encoded as
BOS, then for every message its role tag and its text parts' UTF-8 bytes (an image part → <image>), then the
assistant tag (the generation prompt); the answer follows as bytes and EOS.
Network: token embedding + sinusoidal positions (Vaswani et al. 2017, §3.5), LAYERS pre-norm blocks of causal
multi-head attention (q_proj, k_proj, v_proj, o_proj) and a GELU MLP (up_proj, down_proj), a final LayerNorm and
lm_head. LoRA (Hu et al. 2021, Eq. 3): h = W₀x + (α/r)·B·A·dropout(x), A ~ U(±1/√in) from the job seed, B = 0, so
a fresh adapter leaves the base model unchanged; peft's initialisation and forward, and its module names.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from typing import Any, Iterator, Optional

import torch
import torch.nn.functional as F

from ..errors import ConfigError
from .safetensors_io import load_file, save_file

MODEL_ID = "awb-tiny-lm"
BASE_SEED = 8_470_001  # fixed forever: changing it changes "the base model" every saved adapter refers to
BOS, EOS, SYSTEM, USER, ASSISTANT, IMAGE = range(256, 262)
VOCAB = 262
ROLE_TOKENS = {"system": SYSTEM, "user": USER, "assistant": ASSISTANT}
D_MODEL, HEADS, LAYERS, D_FF = 64, 4, 2, 128
MAX_LEN = 512      # prompt + answer tokens; the prompt is cut from the left, the answer to MAX_LEN // 2
PEFT_PREFIX = "base_model.model."


class LoraLinear(torch.nn.Module):
    """A frozen nn.Linear plus a LoRA branch with peft's parameter names (lora_A, lora_B)."""

    def __init__(self, base: torch.nn.Linear, r: int, alpha: float, dropout: float, gen: torch.Generator):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.lora_A = torch.nn.Linear(base.in_features, r, bias=False)
        self.lora_B = torch.nn.Linear(r, base.out_features, bias=False)
        bound = 1.0 / math.sqrt(base.in_features)  # peft: kaiming_uniform_(a=√5) on A, whose bound is 1/√fan_in
        with torch.no_grad():
            self.lora_A.weight.copy_(torch.rand(self.lora_A.weight.shape, generator=gen) * 2 * bound - bound)
            self.lora_B.weight.zero_()
        self.scaling = alpha / r
        self.dropout = torch.nn.Dropout(dropout)
        self.enabled = True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.base(x)
        if self.enabled:
            y = y + self.lora_B(self.lora_A(self.dropout(x))) * self.scaling
        return y


class _Attention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (torch.nn.Linear(D_MODEL, D_MODEL, bias=False) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        split = lambda y: y.view(b, t, HEADS, D_MODEL // HEADS).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(D_MODEL // HEADS)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        att = torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
        return self.o_proj((att @ v).transpose(1, 2).reshape(b, t, D_MODEL))


class _Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up_proj = torch.nn.Linear(D_MODEL, D_FF, bias=False)
        self.down_proj = torch.nn.Linear(D_FF, D_MODEL, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.gelu(self.up_proj(x)))


class _Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn_norm, self.mlp_norm = torch.nn.LayerNorm(D_MODEL), torch.nn.LayerNorm(D_MODEL)
        self.self_attn, self.mlp = _Attention(), _Mlp()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.self_attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


def _sinusoids(n: int, d: int) -> torch.Tensor:
    """PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(p / 10000^(2i/d))  (Vaswani et al. 2017, §3.5)."""
    pos = torch.arange(n, dtype=torch.float32).unsqueeze(1)
    freq = torch.exp(torch.arange(0, d, 2, dtype=torch.float32) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * freq), torch.cos(pos * freq)
    return pe


class TinyLM(torch.nn.Module):
    """The base network; its weights are drawn from BASE_SEED in parameter-name order (N(0, 0.02), LayerNorm 1/0)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed_tokens = torch.nn.Embedding(VOCAB, D_MODEL)
        self.layers = torch.nn.ModuleList(_Block() for _ in range(LAYERS))
        self.norm = torch.nn.LayerNorm(D_MODEL)
        self.lm_head = torch.nn.Linear(D_MODEL, VOCAB, bias=False)
        self.register_buffer("positions", _sinusoids(MAX_LEN, D_MODEL), persistent=False)
        gen = torch.Generator().manual_seed(BASE_SEED)
        with torch.no_grad():
            for name, p in sorted(self.named_parameters()):
                if "norm" in name:
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                else:
                    p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
        self.requires_grad_(False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed_tokens(ids) + self.positions[: ids.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))


def _matches(name: str, targets: list[str]) -> bool:
    # peft's rule for a list of target_modules: the module's full name equals a target or ends with "." + target
    return any(name == t or name.endswith("." + t) for t in targets)


def add_lora(model: TinyLM, r: int, alpha: float, dropout: float, targets: list[str], seed: int) -> list[str]:
    """Wraps every nn.Linear whose name matches `targets` in a LoraLinear; returns the wrapped module names."""
    gen = torch.Generator().manual_seed(seed)
    names = [n for n, m in sorted(model.named_modules()) if isinstance(m, torch.nn.Linear) and _matches(n, targets)]
    if not names:
        linear = sorted(n.rsplit(".", 1)[-1] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear))
        raise ConfigError("config.lora.targetModules", f"matches no Linear layer of {MODEL_ID} (its layers: {', '.join(sorted(set(linear)))})", targets)
    for name in names:
        parent_name, _, attr = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, attr, LoraLinear(getattr(parent, attr), r, alpha, dropout, gen))
    return names


def encode_chat(messages: list[dict]) -> list[int]:
    """BOS, role tag + text bytes (image part → <image>) per message, then the assistant tag."""
    ids = [BOS]
    for m in messages:
        ids.append(ROLE_TOKENS[m["role"]])
        parts = [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]
        for part in parts:
            ids.extend([IMAGE] if part["type"] == "image" else part["text"].encode("utf-8"))
    ids.append(ASSISTANT)
    return ids


def encode_sample(messages: list[dict], target: str) -> tuple[torch.Tensor, int]:
    """(token ids of prompt + answer + EOS, prompt length), cut to MAX_LEN."""
    answer = (list(target.encode("utf-8")) + [EOS])[: MAX_LEN // 2]
    prompt = encode_chat(messages)[-(MAX_LEN - len(answer)):]
    return torch.tensor(prompt + answer, dtype=torch.long), len(prompt)


class TinyBackend:
    """The vlm.Backend of awb-tiny-lm (see vlm.py for the interface)."""

    def __init__(self, lora: dict, seed: int, device: torch.device, resume_dir: Optional[str] = None):
        self.lora = dict(lora)
        if resume_dir is not None:
            saved = read_adapter_config(resume_dir)
            self.lora.update(r=saved["r"], alpha=float(saved["lora_alpha"]), targetModules=list(saved["target_modules"]))
        self.module = TinyLM()
        self.targets = add_lora(self.module, self.lora["r"], self.lora["alpha"], self.lora["dropout"], self.lora["targetModules"], seed)
        if resume_dir is not None:
            self.load_adapter(resume_dir)
        self.module.to(device)
        self.device = device

    def trainable(self) -> list[torch.nn.Parameter]:
        return [p for p in self.module.parameters() if p.requires_grad]

    def encode(self, sample: dict) -> tuple[torch.Tensor, int]:
        ids, n_prompt = encode_sample(sample["messages"], sample["target"])
        return ids.to(self.device), n_prompt

    def token_log_probs(self, net: Any, enc: tuple[torch.Tensor, int]) -> torch.Tensor:
        """log π(answer token) for every answer token: logits at position t score token t + 1."""
        ids, n_prompt = enc
        logits = net(ids.unsqueeze(0))[0, :-1].float()
        lp = torch.log_softmax(logits, dim=-1).gather(-1, ids[1:].unsqueeze(-1)).squeeze(-1)
        return lp[n_prompt - 1:]

    @contextlib.contextmanager
    def reference(self) -> Iterator[None]:
        """The base model: every LoRA branch off."""
        layers = [m for m in self.module.modules() if isinstance(m, LoraLinear)]
        for m in layers:
            m.enabled = False
        try:
            yield
        finally:
            for m in layers:
                m.enabled = True

    def adapter_tensors(self) -> dict[str, torch.Tensor]:
        return {f"{PEFT_PREFIX}{name}.{part}.weight": getattr(self.module.get_submodule(name), part).weight.detach().float().cpu()
                for name in self.targets for part in ("lora_A", "lora_B")}

    def save_adapter(self, out_dir: str) -> None:
        """peft's layout: adapter_config.json + adapter_model.safetensors with peft's key names."""
        os.makedirs(out_dir, exist_ok=True)
        save_file(self.adapter_tensors(), os.path.join(out_dir, "adapter_model.safetensors"), {"format": "pt"})
        config = {
            "peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": MODEL_ID, "r": self.lora["r"],
            "lora_alpha": self.lora["alpha"], "lora_dropout": self.lora["dropout"], "target_modules": sorted(self.lora["targetModules"]),
            "bias": "none", "fan_in_fan_out": False, "inference_mode": True, "modules_to_save": None,
        }
        with open(os.path.join(out_dir, "adapter_config.json"), "w", encoding="utf-8") as f:
            json.dump(config, f, indent=2, sort_keys=True)

    def load_adapter(self, adapter_dir: str) -> None:
        """Copies a saved adapter's tensors into the LoRA layers; every key must be there with its shape."""
        path = os.path.join(adapter_dir, "adapter_model.safetensors")
        saved, _ = load_file(path)
        mine = self.adapter_tensors()
        if set(saved) != set(mine):
            raise ConfigError("config.resumeFrom", f"{path} holds {sorted(set(saved) ^ set(mine))[:4]} that this model's adapter does not match", adapter_dir)
        with torch.no_grad():
            for key, value in saved.items():
                name, part = key[len(PEFT_PREFIX):].rsplit(".", 2)[:2]
                weight = getattr(self.module.get_submodule(name), part).weight
                if tuple(weight.shape) != tuple(value.shape):
                    raise ConfigError("config.resumeFrom", f"{key} has shape {list(value.shape)}, expected {list(weight.shape)}", adapter_dir)
                weight.copy_(value)


def read_adapter_config(adapter_dir: str) -> dict:
    with open(os.path.join(adapter_dir, "adapter_config.json"), "r", encoding="utf-8") as f:
        return json.load(f)
