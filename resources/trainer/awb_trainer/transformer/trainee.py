"""A transformer policy being trained: the network, its optimizer and its KL reference, read from and written to a
model folder (core/policy/transformer/model.ts reads it):

    config.json     {format: awb-transformer-policy, version: 1, model: ModelConfig, meta}
    tokenizer.json  the WordPiece tokenizer the workbench tokenizes with
    weights.pt      the torch state dict (LoRA adapters unmerged)
    policy.onnx     the network with any LoRA merged, for ONNX Runtime
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import warnings
from typing import Any, Callable, Optional

import torch

from ..atomic import write_atomic
from .layers import add_lora, merge_lora
from .model import ModelConfig, ScreenPolicyNet, count_parameters

FORMAT = "awb-transformer-policy"
VERSION = 1
INPUTS = ["goal_ids", "goal_copy", "item_ids", "item_copy", "item_features", "pointer_mask", "type_mask", "item_valid", "temperature"]
OUTPUTS = ["type_logp", "pointer_logp", "goal_span_logp", "item_span_logp", "generated_logp"]
LORA_TARGETS = ("query", "value")
# A per-app adapter's LoRA: every linear map of the screen transformer (attention and feed-forward).
ADAPTER_TARGETS = ("query", "key", "value", "dense")


class ModelFolderError(Exception):
    def __init__(self, path: str, problem: str):
        super().__init__(f"transformer policy model {path}: {problem}")
        self.path = path
        self.problem = problem


def _vocab_size(tokenizer_path: str) -> int:
    with open(tokenizer_path, "r", encoding="utf-8") as f:
        tok = json.load(f)
    vocab = tok.get("model", {}).get("vocab")
    if not isinstance(vocab, dict) or not vocab:
        raise ModelFolderError(tokenizer_path, "not a WordPiece tokenizer.json (no model.vocab)")
    return max(vocab.values()) + 1


class Trainee:
    def __init__(self, net: ScreenPolicyNet, tokenizer_path: str, meta: Optional[dict] = None):
        self.net = net
        self.cfg = net.cfg
        self.tokenizer_path = tokenizer_path
        self.meta = meta or {}
        self.reference: Optional[ScreenPolicyNet] = None
        self.optimizer: Optional[torch.optim.Optimizer] = None
        self._apply_text_training()
        self._apply_adapter()

    @property
    def layout(self) -> dict:
        return self.cfg.layout

    def begin_adapter(self, rank: int, alpha: float, targets: tuple[str, ...] = ADAPTER_TARGETS) -> list[str]:
        """A per-app adapter: LoRA on the screen transformer's linear maps, everything else frozen; the reference and the
        optimizer start afresh (GRPO's KL is to the base). The config records it, so the folder loads with it."""
        if "adapter" in self.cfg.extra:
            raise ValueError("this model already carries an adapter: adapt its base")
        for p in self.net.parameters():
            p.requires_grad_(False)
        wrapped = add_lora(self.net.screen, targets, rank, alpha)
        self.cfg.extra["adapter"] = {"rank": rank, "alpha": alpha, "targets": list(targets), "scope": "screen"}
        self.optimizer = None
        return wrapped

    def _apply_adapter(self) -> None:
        a = self.cfg.extra.get("adapter")
        if not a:
            return
        for p in self.net.parameters():
            p.requires_grad_(False)
        add_lora(self.net.screen, tuple(a["targets"]), int(a["rank"]), float(a["alpha"]))

    def _apply_text_training(self) -> None:
        mode = self.cfg.text_train
        if mode == "full":
            return
        for p in self.net.text.parameters():
            p.requires_grad_(False)
        if mode == "lora" and not any(n.endswith("lora_A") for n, _ in self.net.text.named_parameters()):
            add_lora(self.net.text.encoder, LORA_TARGETS, self.cfg.text_lora_rank, 2.0 * self.cfg.text_lora_rank)

    @staticmethod
    def create(cfg: ModelConfig, tokenizer_path: str, seed: int, minilm_dir: Optional[str] = None) -> "Trainee":
        torch.manual_seed(seed)
        cfg.vocab = _vocab_size(tokenizer_path)
        net = ScreenPolicyNet(cfg)
        if cfg.text_init == "minilm":
            from .minilm import load_minilm_text_encoder
            load_minilm_text_encoder(net.text, minilm_dir, cfg.text_layers)
        return Trainee(net, tokenizer_path, {"init": {"seed": seed, "text": cfg.text_init}})

    @staticmethod
    def load(folder: str) -> "Trainee":
        path = os.path.join(folder, "config.json")
        try:
            with open(path, "r", encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise ModelFolderError(folder, f"cannot read config.json ({e})") from e
        if doc.get("format") != FORMAT or doc.get("version") != VERSION:
            raise ModelFolderError(folder, f"expected {FORMAT} version {VERSION}, got {doc.get('format')} {doc.get('version')}")
        cfg = ModelConfig.from_json(doc["model"])
        net = ScreenPolicyNet(cfg)
        trainee = Trainee(net, os.path.join(folder, "tokenizer.json"), doc.get("meta", {}))
        state = torch.load(os.path.join(folder, "weights.pt"), map_location="cpu", weights_only=True)
        missing, unexpected = trainee.net.load_state_dict(state, strict=False)
        lora = [k for k in missing if "lora_" in k]
        if [k for k in missing if k not in lora] or unexpected:
            raise ModelFolderError(folder, f"weights.pt does not fit config.json (missing {missing[:5]}, unexpected {unexpected[:5]})")
        return trainee

    def trainable(self) -> list[torch.nn.Parameter]:
        return [p for p in self.net.parameters() if p.requires_grad]

    def parameters_info(self) -> dict[str, Any]:
        return count_parameters(self.net)

    def freeze_reference(self) -> None:
        """The KL reference: a frozen copy of the network as it is now (the run's starting policy)."""
        self.reference = copy.deepcopy(self.net).eval()
        for p in self.reference.parameters():
            p.requires_grad_(False)

    def save(self, folder: str, meta: Optional[dict] = None, onnx: bool = True) -> None:
        os.makedirs(folder, exist_ok=True)
        if meta is not None:
            self.meta = meta
        tok = os.path.join(folder, "tokenizer.json")
        if os.path.abspath(self.tokenizer_path) != os.path.abspath(tok):
            shutil.copyfile(self.tokenizer_path, tok)
            self.tokenizer_path = tok
        tmp = os.path.join(folder, "weights.pt.tmp")
        torch.save(self.net.state_dict(), tmp)
        os.replace(tmp, os.path.join(folder, "weights.pt"))
        if onnx:
            export_onnx(self.net, os.path.join(folder, "policy.onnx"))
        # config.json last: a folder with it is complete.
        write_atomic(os.path.join(folder, "config.json"), json.dumps(
            {"format": FORMAT, "version": VERSION, "model": self.cfg.to_json(), "meta": self.meta}, indent=1))


def example_inputs(net: ScreenPolicyNet, items: int = 7) -> tuple[torch.Tensor, ...]:
    tg, t, f = net.Tg, net.T, net.F
    g = torch.zeros(1, tg, dtype=torch.int32)
    g[0, :3] = torch.tensor([5, 6, 7])
    ii = torch.zeros(1, items, t, dtype=torch.int32)
    ii[0, :, 0] = 5
    return (g, torch.ones(1, tg, 2), ii, torch.ones(1, items, t, 2), torch.zeros(1, items, f), torch.ones(1, net.P, items),
            torch.ones(1, net.K), torch.ones(1, items), torch.ones(1))


def export_onnx(net: ScreenPolicyNet, path: str) -> None:
    """The network (LoRA merged) as ONNX opset 17 with a dynamic item count, written atomically."""
    model = copy.deepcopy(net).float().eval()
    merge_lora(model)
    dyn = {"item_ids": {1: "items"}, "item_copy": {1: "items"}, "item_features": {1: "items"}, "pointer_mask": {2: "items"},
           "item_valid": {1: "items"}, "pointer_logp": {2: "items"}, "item_span_logp": {2: "items"}}
    tmp = path + ".tmp"
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example_inputs(model), tmp, input_names=INPUTS, output_names=OUTPUTS, dynamic_axes=dyn,
                          opset_version=17, dynamo=False, do_constant_folding=True)
    os.replace(tmp, path)


def bucketed_minibatches(lengths: list[int], size: int, gen: torch.Generator, pool: int = 16) -> list[list[int]]:
    """Shuffled minibatches whose steps have similar lengths: each random pool of `pool` minibatches' worth of steps is
    sorted by length and cut, then the minibatches are shuffled. A batch pads to its longest screen, and screens run
    from 40 to 130 items, so random batches spent most of the screen transformer's time on padding."""
    order = torch.randperm(len(lengths), generator=gen).tolist()
    batches: list[list[int]] = []
    for p in range(0, len(order), size * pool):
        chunk = sorted(order[p:p + size * pool], key=lambda i: lengths[i])
        batches += [chunk[i:i + size] for i in range(0, len(chunk), size)]
    return [batches[i] for i in torch.randperm(len(batches), generator=gen).tolist()]


Log = Callable[[dict], None]
