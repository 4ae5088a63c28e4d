"""Job configs: one declarative spec per kind, checked once when the job is submitted (and again when a job
directory is run standalone). Unknown keys are refused, as core/rl/config.ts refuses them. Defaults follow the
TypeScript trainers (core/rl/sft.ts, core/rl/config.ts, core/rewards/progrm/train.ts, shepherd/builtin.ts)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Literal, Optional

from ..errors import ConfigError

JobKind = Literal["builtin-sft", "builtin-grpo", "progrm", "prm", "vlm-sft", "vlm-grpo"]
KINDS: tuple[JobKind, ...] = ("builtin-sft", "builtin-grpo", "progrm", "prm", "vlm-sft", "vlm-grpo")

Aggregation = Literal["step-mean", "episode-mean", "constant"]
AGGREGATIONS: tuple[Aggregation, ...] = ("step-mean", "episode-mean", "constant")
LR_SCHEDULES = ("constant", "linear", "cosine")  # torch_util.lr_factor
PUBLISH_SERVERS = ("vllm", "transformers")  # TS: the endpoint server kinds that can serve new weights (core/policy/vlm/server.ts)

_REQUIRED = object()


@dataclass(frozen=True)
class Field:
    name: str
    check: Callable[[str, Any], Any]
    default: Any = _REQUIRED


def _int(lo: int, hi: int) -> Callable[[str, Any], int]:
    def check(path: str, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ConfigError(path, f"must be an integer in [{lo}, {hi}]", v)
        return v
    return check


def _num(lo: float, hi: float, lo_open: bool = False) -> Callable[[str, Any], float]:
    def check(path: str, v: Any) -> float:
        ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
        ok = ok and (v > lo if lo_open else v >= lo) and v <= hi
        if not ok:
            raise ConfigError(path, f"must be a number in {'(' if lo_open else '['}{lo}, {hi}]", v)
        return float(v)
    return check


def _opt(inner: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    return lambda path, v: None if v is None else inner(path, v)


def _enum(values: tuple[str, ...]) -> Callable[[str, Any], str]:
    def check(path: str, v: Any) -> str:
        if v not in values:
            raise ConfigError(path, f"must be one of {', '.join(values)}", v)
        return v
    return check


def _bool(path: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ConfigError(path, "must be true or false", v)
    return v


def _text(path: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip() or len(v) > 4096:
        raise ConfigError(path, "must be a non-empty string", v)
    return v


_PUBLISH_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def _publish_name(path: str, v: Any) -> str:
    # It names a folder (served/<name>-<job>) and vLLM's adapter: no separators, no "..", no leading dot or dash.
    if not isinstance(v, str) or not _PUBLISH_NAME.match(v):
        raise ConfigError(path, "must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit", v)
    return v


def _env_name(path: str, v: Any) -> str:
    if not isinstance(v, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$", v):
        raise ConfigError(path, "must be an environment variable name", v)
    return v


def _str_list(path: str, v: Any) -> list[str]:
    if not isinstance(v, list) or not v or not all(isinstance(s, str) and s for s in v):
        raise ConfigError(path, "must be a non-empty list of module names", v)
    return list(v)


def _object(fields: list[Field]) -> Callable[[str, Any], dict]:
    return lambda path, v: _parse_fields(path, v, fields)


_SEED = Field("seed", _int(0, 2**31 - 1), 0)
_LORA = [
    Field("r", _int(1, 1024), 16),
    Field("alpha", _num(0, 1e6, lo_open=True), 32.0),
    Field("dropout", _num(0, 0.9), 0.05),
    Field("targetModules", _str_list, ["q_proj", "k_proj", "v_proj", "o_proj"]),
]
_VLM_COMMON = [
    Field("model", _text),
    Field("lora", _object(_LORA), {}),
    Field("epochs", _int(1, 1000), 1),
    Field("batchSize", _int(1, 4096), 4),
    Field("learningRate", _num(0, 1, lo_open=True), 1e-5),
    Field("maxGradNorm", _num(0, 1e6), 1.0),
    Field("weightDecay", _num(0, 1), 0.0),  # AdamW's decoupled decay; 0 so a zero-advantage batch leaves the adapter as it is
    Field("warmupRatio", _num(0, 1), 0.0),  # the share of the job's optimizer steps the learning rate warms up over
    # The image size bounds of the server's processor (its mm_processor_kwargs min_pixels / max_pixels): the trainer
    # must expand each screenshot to the image tokens the policy saw. null: the model folder's own.
    Field("minPixels", _opt(_int(1, 2**31 - 1)), None),
    Field("maxPixels", _opt(_int(1, 2**31 - 1)), None),
    Field("gradientCheckpointing", _bool, False),  # recompute activations in backward: less memory, ~30% more time
    Field("resumeFrom", _opt(_text), None),  # a succeeded vlm job of this service whose adapter/ the job starts from
    # Where the new weights are served (vlm_publish.py): vllm loads the adapter by name (load_lora_adapter); transformers
    # (`transformers serve`) loads a model folder named by path, so the trainer writes a merged one.
    Field("publish", _opt(_object([Field("baseUrl", _text), Field("name", _publish_name), Field("apiKeyEnv", _opt(_env_name), None),
                                   Field("server", _enum(PUBLISH_SERVERS), "vllm")])), None),
    _SEED,
]

SPECS: dict[JobKind, list[Field]] = {
    "builtin-sft": [
        Field("epochs", _int(1, 100_000), 30),
        Field("batchSize", _int(1, 1_000_000), 32),
        Field("learningRate", _num(0, 1, lo_open=True), 1e-2),
        Field("weightDecay", _num(0, 1), 0.0),
        Field("maxGradNorm", _num(0, 1e6), 1.0),
        _SEED,
    ],
    "builtin-grpo": [
        Field("epochs", _int(1, 1000), 1),
        Field("minibatchSize", _int(1, 10_000_000), 128),
        Field("learningRate", _num(0, 1, lo_open=True), 3e-3),
        Field("clipEps", _num(0, 1, lo_open=True), 0.2),
        Field("clipEpsHigh", _opt(_num(0, 10, lo_open=True)), None),
        Field("klBeta", _num(0, 1e3), 0.05),
        Field("aggregation", _enum(AGGREGATIONS), "step-mean"),
        Field("maxLogRatio", _num(0, 50, lo_open=True), 20.0),
        Field("maxGradNorm", _opt(_num(0, 1e6)), 1.0),  # 0 or null: no clipping
        Field("maxSteps", _opt(_int(1, 100_000)), None),
        Field("weightDecay", _num(0, 1), 0.0),
        _SEED,
    ],
    "progrm": [
        Field("epochs", _int(1, 10_000), 60),
        Field("batchSize", _int(1, 1_000_000), 32),
        Field("learningRate", _num(0, 1, lo_open=True), 3e-3),
        Field("weightDecay", _num(0, 1), 0.0),
        _SEED,
    ],
    "prm": [
        Field("epochs", _int(1, 10_000), 40),
        Field("batchSize", _int(1, 1_000_000), 32),
        Field("learningRate", _num(0, 1, lo_open=True), 5e-3),
        Field("weightDecay", _num(0, 1), 1e-4),
        Field("balance", _bool, True),
        _SEED,
    ],
    # vlm-sft decays linearly to 0 over the job, as Trainer/TRL's SFT does by default; vlm-grpo keeps the rate
    # constant (verl's actor default): an online run is one job per iteration, and a decay inside each would restart.
    "vlm-sft": _VLM_COMMON + [Field("lrSchedule", _enum(LR_SCHEDULES), "linear")],
    "vlm-grpo": _VLM_COMMON + [
        Field("lrSchedule", _enum(LR_SCHEDULES), "constant"),
        Field("clipEps", _num(0, 1, lo_open=True), 0.2),
        Field("clipEpsHigh", _opt(_num(0, 10, lo_open=True)), None),
        Field("klBeta", _num(0, 1e3), 0.0),
        Field("maxLogRatio", _num(0, 50, lo_open=True), 20.0),
    ],
}


def _parse_fields(path: str, raw: Any, fields: list[Field]) -> dict:
    if not isinstance(raw, dict):
        raise ConfigError(path, "must be an object", raw)
    known = {f.name for f in fields}
    for key in raw:
        if key not in known:
            raise ConfigError(f"{path}.{key}", f"is not a field of this kind (fields: {', '.join(sorted(known))})", raw[key])
    out: dict = {}
    for f in fields:
        if f.name in raw:
            out[f.name] = f.check(f"{path}.{f.name}", raw[f.name])
        elif f.default is _REQUIRED:
            raise ConfigError(f"{path}.{f.name}", "is required", None)
        elif isinstance(f.default, dict) and f.default == {}:
            out[f.name] = f.check(f"{path}.{f.name}", {})
        else:
            out[f.name] = f.default
    return out


def parse_kind(value: Any) -> JobKind:
    if value not in KINDS:
        raise ConfigError("kind", f"must be one of {', '.join(KINDS)}", value)
    return value


def parse_config(kind: JobKind, raw: Optional[dict]) -> dict:
    """The config with defaults filled; ConfigError names the first bad field (config.<name>)."""
    config = _parse_fields("config", {} if raw is None else raw, SPECS[kind])
    if kind in ("builtin-grpo", "vlm-grpo") and config["clipEpsHigh"] is not None and config["clipEpsHigh"] < config["clipEps"]:
        raise ConfigError("config.clipEpsHigh", f"must be ≥ clipEps ({config['clipEps']})", config["clipEpsHigh"])
    if kind in ("vlm-sft", "vlm-grpo") and config["minPixels"] is not None and config["maxPixels"] is not None and config["minPixels"] > config["maxPixels"]:
        raise ConfigError("config.minPixels", f"must be ≤ maxPixels ({config['maxPixels']})", config["minPixels"])
    publish = config.get("publish")
    if publish and publish["server"] == "transformers" and config["model"] == "awb-tiny-lm":
        # transformers serve loads Hugging Face model folders; the plumbing LM has no merged form to serve.
        raise ConfigError("config.publish.server", "transformers needs a Hugging Face model (config.model awb-tiny-lm cannot be served)", "transformers")
    return config
