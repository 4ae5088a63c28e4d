"""The builtin policy's scorer in PyTorch: same parameters, same maths, same files as TypeScript.

Mirrors core/policy/network.ts (ScorerNetwork) and core/policy/checkpoint.ts. Per candidate row x ∈ R^F

    s(x) = w2 · tanh(W1 x + b1) + wl · x
    log π(a | s) = s_a / T − log Σ_j exp(s_j / T)        (log-softmax over the step's n candidates)

API (what the trainer service imports; everything else here is private):

    BuiltinScorer(input_dim, hidden, encoder_config=None, seed=None)   torch.nn.Module
        .W1 [H, F], .b1 [H], .w2 [H], .wl [F]        float32 parameters, the TS flat layout in this order
        .scores(features [n, F]) -> [n]
        .log_probs(features [n, F], temperature) -> [n]   temperature: float or 0-d / [1] tensor
        .forward(features, temperature) -> (scores, log_probs)   (the ONNX graph's signature)
        .encoder_config                               dict written to checkpoints and ONNX metadata
    load_checkpoint(path) -> (model, meta)             an `awb-builtin-policy` v1 JSON file
    save_checkpoint(model, path, meta=None)            atomic; bit-exact with TypeScript's loader
    export_onnx(model, path, encoder_config=None)      opset 13, inputs features [n, F] (n dynamic) and
                                                       temperature [] float32; outputs scores [n], log_probs [n];
                                                       metadata_props as core/policy/onnx writes them
    decode_float32(b64, count=None) -> torch.Tensor    the base64 little-endian float32 blocks of
                                                       checkpoints and of steps.jsonl features
    CheckpointError, OnnxExportError                   named errors carrying the path and the problems

Command line (used by the parity tests; handy on a trainer machine):

    python3 -m awb_trainer.policy forward --checkpoint P --input IN.json     # prints scores/log_probs JSON
    python3 -m awb_trainer.policy roundtrip --checkpoint P --out Q           # load + save
    python3 -m awb_trainer.policy export-onnx --checkpoint P --out M.onnx

Only the standard library, torch and numpy are needed; torch.onnx.export serialises in C++, so the `onnx`
Python package is not required (the metadata is appended to the protobuf bytes here).
"""
from __future__ import annotations

import argparse
import base64
import io
import json
import math
import os
import sys
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
import torch
from torch import nn

from .atomic import write_atomic

CHECKPOINT_FORMAT = "awb-builtin-policy"
CHECKPOINT_VERSION = 1
ONNX_FORMAT = "awb-builtin-policy-onnx"
ONNX_VERSION = 1
ONNX_OPSET = 13
INPUT_NAMES = ("features", "temperature")
OUTPUT_NAMES = ("scores", "log_probs")
DEFAULT_ENCODER = {"kind": "hashed-ngram", "dim": 32, "charN": 3}


class CheckpointError(Exception):
    """A checkpoint file that cannot be read or does not describe a valid network."""

    def __init__(self, path: str, problems: list):
        self.path = path
        self.problems = list(problems)
        super().__init__(f"Bad policy checkpoint {path}: {'; '.join(self.problems)}")


class OnnxExportError(Exception):
    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"Cannot export ONNX to {path}: {message}")


def parameter_count(input_dim: int, hidden: int) -> int:
    return hidden * input_dim + 2 * hidden + input_dim


class BuiltinScorer(nn.Module):
    """s(x) = w2 · tanh(W1 x + b1) + wl · x with a log-softmax at temperature T (core/policy/network.ts)."""

    def __init__(self, input_dim: int, hidden: int, encoder_config: Optional[Dict[str, Any]] = None, seed: Optional[int] = None):
        super().__init__()
        if not (isinstance(input_dim, int) and input_dim > 0 and isinstance(hidden, int) and hidden > 0):
            raise ValueError(f"input_dim and hidden must be positive integers, got {input_dim!r}, {hidden!r}")
        self.input_dim = input_dim
        self.hidden = hidden
        self.encoder_config = dict(encoder_config or DEFAULT_ENCODER)
        self.W1 = nn.Parameter(torch.zeros(hidden, input_dim))
        self.b1 = nn.Parameter(torch.zeros(hidden))
        self.w2 = nn.Parameter(torch.zeros(hidden))
        self.wl = nn.Parameter(torch.zeros(input_dim))
        # The TS initialisation's distributions (ScorerNetwork.init), with torch's generator: W1 ~ U(±√(3/F)),
        # w2 ~ U(±0.1/√H), b1 = wl = 0. Training normally starts from the workbench's init/policy.json instead.
        gen = torch.Generator().manual_seed(0 if seed is None else int(seed))
        with torch.no_grad():
            a = math.sqrt(3 / input_dim)
            self.W1.copy_((2 * torch.rand(hidden, input_dim, generator=gen) - 1) * a)
            b = 0.1 / math.sqrt(hidden)
            self.w2.copy_((2 * torch.rand(hidden, generator=gen) - 1) * b)

    def _check(self, features: torch.Tensor) -> None:
        if torch.jit.is_tracing():  # the exported graph's input shape is declared instead; a traced check would freeze n
            return
        if features.dim() != 2 or features.shape[1] != self.input_dim or features.shape[0] < 1:
            raise ValueError(f"features must be n × {self.input_dim} with n ≥ 1, got shape {tuple(features.shape)}")

    def scores(self, features: torch.Tensor) -> torch.Tensor:
        self._check(features)
        hidden = torch.tanh(features @ self.W1.t() + self.b1)
        return hidden @ self.w2 + features @ self.wl

    def log_probs(self, features: torch.Tensor, temperature: Union[float, torch.Tensor] = 1.0) -> torch.Tensor:
        return self.forward(features, temperature)[1]

    def forward(self, features: torch.Tensor, temperature: Union[float, torch.Tensor] = 1.0) -> Tuple[torch.Tensor, torch.Tensor]:
        if not isinstance(temperature, torch.Tensor):
            if not (isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature > 0):
                raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
            temperature = torch.tensor(float(temperature), dtype=features.dtype)
        s = self.scores(features)
        # log softmax(s / T) over the candidates (dim 0); torch's kernel subtracts the max, as TS's logSoftmax does.
        return s, torch.log_softmax(s / temperature.reshape(()), dim=0)

    def flat_params(self) -> torch.Tensor:
        """The TS flat buffer: W1 row-major H×F, then b1, w2, wl (float32)."""
        return torch.cat([self.W1.detach().reshape(-1), self.b1.detach(), self.w2.detach(), self.wl.detach()]).to(torch.float32)

    def load_flat_params(self, flat: torch.Tensor) -> None:
        want = parameter_count(self.input_dim, self.hidden)
        if flat.numel() != want:
            raise ValueError(f"expected {want} parameters for input {self.input_dim}, hidden {self.hidden}, got {flat.numel()}")
        H, F = self.hidden, self.input_dim
        with torch.no_grad():
            o = 0
            for p, size in ((self.W1, H * F), (self.b1, H), (self.w2, H), (self.wl, F)):
                p.copy_(flat[o:o + size].reshape(p.shape))
                o += size


def decode_float32(b64: str, count: Optional[int] = None) -> torch.Tensor:
    """base64 little-endian float32 bytes → float32 tensor (core/util/float32-params.ts); ValueError on a bad length."""
    raw = base64.b64decode(b64, validate=True)
    if len(raw) % 4 != 0 or (count is not None and len(raw) != count * 4):
        want = "a multiple of 4" if count is None else str(count * 4)
        raise ValueError(f"float32 block holds {len(raw)} bytes, expected {want}")
    # frombuffer gives a read-only view; copy so torch owns writable memory.
    return torch.from_numpy(np.frombuffer(raw, dtype="<f4").astype(np.float32, copy=True))


def encode_float32(t: torch.Tensor) -> Dict[str, Any]:
    arr = t.detach().cpu().reshape(-1).numpy().astype("<f4", copy=False)
    return {"dtype": "float32-le", "count": int(arr.size), "base64": base64.b64encode(arr.tobytes()).decode("ascii")}


def _positive_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def load_checkpoint(path: str) -> Tuple[BuiltinScorer, Dict[str, Any]]:
    """Reads an `awb-builtin-policy` v1 checkpoint; the model carries its encoder config. CheckpointError on bad input.

    The feature dimension's agreement with the encoder (features.ts featureDim) is checked by TypeScript when it
    loads the file; here the parameter count must match the network's shape and every parameter must be finite.
    """
    try:
        with open(path, "r", encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise CheckpointError(path, [f"cannot read ({e})"]) from e
    except json.JSONDecodeError as e:
        raise CheckpointError(path, [f"not JSON ({e})"]) from e
    problems = []
    if not isinstance(doc, dict):
        raise CheckpointError(path, ["(root): expected an object"])
    if doc.get("format") != CHECKPOINT_FORMAT:
        problems.append(f"format: expected {CHECKPOINT_FORMAT!r}, got {doc.get('format')!r}")
    if doc.get("version") != CHECKPOINT_VERSION:
        problems.append(f"version: expected {CHECKPOINT_VERSION}, got {doc.get('version')!r}")
    enc = doc.get("encoder")
    if not (isinstance(enc, dict) and isinstance(enc.get("kind"), str) and _positive_int(enc.get("dim"))):
        problems.append(f"encoder: expected {{kind, dim, charN}}, got {enc!r}")
    net = doc.get("network")
    if not (isinstance(net, dict) and _positive_int(net.get("input")) and _positive_int(net.get("hidden"))):
        problems.append(f"network: expected positive integers input and hidden, got {net!r}")
    params = doc.get("params")
    if not (isinstance(params, dict) and params.get("dtype") == "float32-le" and isinstance(params.get("base64"), str)):
        problems.append(f"params: expected {{dtype: 'float32-le', count, base64}}, got {type(params).__name__}")
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        problems.append("meta: expected an object")
    if problems:
        raise CheckpointError(path, problems)
    want = parameter_count(net["input"], net["hidden"])
    if params.get("count") != want:
        raise CheckpointError(path, [f"params.count {params.get('count')!r}, the network needs {want}"])
    try:
        flat = decode_float32(params["base64"], want)
    except ValueError as e:
        raise CheckpointError(path, [str(e)]) from e
    bad = torch.nonzero(~torch.isfinite(flat))
    if bad.numel():
        i = int(bad[0])
        raise CheckpointError(path, [f"parameter {i} is {flat[i].item()}"])
    model = BuiltinScorer(net["input"], net["hidden"], encoder_config=enc)
    model.load_flat_params(flat)
    return model, meta




def save_checkpoint(model: BuiltinScorer, path: str, meta: Optional[Dict[str, Any]] = None) -> None:
    """Writes the TS checkpoint format atomically; parameters go through float32 unchanged, so TS → Python → TS is bit-exact."""
    flat = model.flat_params()
    if not bool(torch.isfinite(flat).all()):
        raise CheckpointError(path, ["refusing to save a network with a NaN or infinite parameter"])
    doc = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "encoder": model.encoder_config,
        "network": {"input": model.input_dim, "hidden": model.hidden},
        "params": encode_float32(flat),
        "meta": dict(meta or {}),
    }
    write_atomic(path, json.dumps(doc, separators=(",", ":")).encode("utf-8"))


# --- ONNX metadata: ModelProto.metadata_props (field 14) is a repeated StringStringEntryProto {key = 1, value = 2}.
# Protobuf lets a repeated field's entries follow the rest of a message, so appending them to the serialised model
# is a valid encoding; that avoids the `onnx` Python package.

def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _len_field(field: int, payload: bytes) -> bytes:
    return _varint((field << 3) | 2) + _varint(len(payload)) + payload


def metadata_props_bytes(props: Dict[str, str]) -> bytes:
    return b"".join(_len_field(14, _len_field(1, k.encode("utf-8")) + _len_field(2, v.encode("utf-8"))) for k, v in props.items())


def onnx_metadata(model: BuiltinScorer, encoder_config: Optional[Dict[str, Any]] = None, meta: Optional[Dict[str, Any]] = None) -> Dict[str, str]:
    """The keys core/policy/onnx/metadata.ts reads: a model file describes its encoder and dimensions."""
    props = {
        "awb.format": ONNX_FORMAT,
        "awb.version": str(ONNX_VERSION),
        "awb.encoder": json.dumps(encoder_config or model.encoder_config, separators=(",", ":")),
        "awb.network": json.dumps({"input": model.input_dim, "hidden": model.hidden}, separators=(",", ":")),
        "awb.producer": f"awb_trainer.policy (torch {torch.__version__})",
    }
    if meta:
        props["awb.meta"] = json.dumps(meta, separators=(",", ":"))
    return props


def export_onnx(model: BuiltinScorer, path: str, encoder_config: Optional[Dict[str, Any]] = None, meta: Optional[Dict[str, Any]] = None) -> None:
    """torch.onnx.export of forward(features [n, F], temperature []) → (scores [n], log_probs [n]) at opset 13, plus metadata."""
    was_training = model.training
    model.eval()
    buf = io.BytesIO()
    example = (torch.zeros(2, model.input_dim), torch.tensor(1.0))
    try:
        torch.onnx.export(
            model,
            example,
            buf,
            input_names=list(INPUT_NAMES),
            output_names=list(OUTPUT_NAMES),
            dynamic_axes={"features": {0: "n"}, "scores": {0: "n"}, "log_probs": {0: "n"}},
            opset_version=ONNX_OPSET,
            do_constant_folding=True,
            # torch ≥ 2.9 defaults to the dynamo exporter, which writes opset 18 whatever is asked and needs
            # onnxscript; the TorchScript exporter writes the opset 13 graph the workbench's reader declares.
            dynamo=False,
        )
    except Exception as e:  # torch raises several unrelated types here; name the file and keep the cause
        raise OnnxExportError(path, f"{type(e).__name__}: {e}") from e
    finally:
        model.train(was_training)
    write_atomic(path, buf.getvalue() + metadata_props_bytes(onnx_metadata(model, encoder_config, meta)))


# --- command line ---

def _forward_cmd(args: argparse.Namespace) -> None:
    """IN.json: {"temperature": T, "cases": [{"n": n, "features": base64 float32 [n × F]}]} → per case scores and log_probs."""
    model, _ = load_checkpoint(args.checkpoint)
    with open(args.input, "r", encoding="utf-8") as f:
        spec = json.load(f)
    out = []
    with torch.no_grad():
        for case in spec["cases"]:
            x = decode_float32(case["features"], case["n"] * model.input_dim).reshape(case["n"], model.input_dim)
            s, lp = model(x, float(spec.get("temperature", 1.0)))
            out.append({"scores": s.tolist(), "log_probs": lp.tolist()})
    json.dump({"results": out}, sys.stdout)


def main(argv: Optional[list] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m awb_trainer.policy", description="The builtin policy in PyTorch")
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("forward", help="scores and log-probs of feature matrices, as JSON on stdout")
    f.add_argument("--checkpoint", required=True)
    f.add_argument("--input", required=True)
    r = sub.add_parser("roundtrip", help="load a checkpoint and save it again")
    r.add_argument("--checkpoint", required=True)
    r.add_argument("--out", required=True)
    e = sub.add_parser("export-onnx", help="export a checkpoint to ONNX with torch.onnx")
    e.add_argument("--checkpoint", required=True)
    e.add_argument("--out", required=True)
    args = p.parse_args(argv)
    try:
        if args.cmd == "forward":
            _forward_cmd(args)
        elif args.cmd == "roundtrip":
            model, meta = load_checkpoint(args.checkpoint)
            save_checkpoint(model, args.out, meta)
        elif args.cmd == "export-onnx":
            model, meta = load_checkpoint(args.checkpoint)
            export_onnx(model, args.out, meta=meta)
        else:  # argparse's `required=True` makes this unreachable; fail loudly if a command is added without a branch
            raise AssertionError(f"unhandled command {args.cmd!r}")
    except (CheckpointError, OnnxExportError) as err:
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
