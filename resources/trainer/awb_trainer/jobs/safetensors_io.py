"""A small safetensors writer and reader (stdlib + torch), so the tiny backend writes the same adapter files peft
does without the `safetensors` package.

The format (huggingface/safetensors, "Format" in its README): an unsigned 64-bit little-endian N, then N bytes of
UTF-8 JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__"?: {str: str}}, then the data
buffer; offsets are relative to the buffer, tensors are row-major little-endian and packed without gaps. The header
may be padded with spaces (0x20) so that the buffer starts 8-byte aligned. Only F32 is written or read here.
"""

from __future__ import annotations

import json
import struct
from typing import Optional

import numpy as np
import torch

MAX_HEADER = 100 * 1024 * 1024  # the reference implementation refuses larger headers too


class SafetensorsError(Exception):
    """A safetensors file we cannot read or a tensor we will not write; names the file or tensor and the value."""


def save_file(tensors: dict[str, torch.Tensor], path: str, metadata: Optional[dict[str, str]] = None) -> None:
    """Writes `tensors` (F32 only) in name order, header padded with spaces to a multiple of 8 bytes."""
    header: dict = {}
    if metadata:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise SafetensorsError(f"{path}: __metadata__ must map strings to strings, got {metadata!r}")
        header["__metadata__"] = dict(metadata)
    blobs: list[bytes] = []
    offset = 0
    for name in sorted(tensors):
        t = tensors[name]
        if t.dtype != torch.float32:
            raise SafetensorsError(f"{path}: tensor {name!r} has dtype {t.dtype}; only float32 (F32) is supported")
        data = t.detach().cpu().contiguous().numpy().astype("<f4", copy=False).tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-(8 + len(raw)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)


def read_header(path: str) -> tuple[dict, int]:
    """(header JSON, byte offset of the data buffer)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise SafetensorsError(f"{path}: {len(head)} bytes, too short for the 8-byte header length")
        (n,) = struct.unpack("<Q", head)
        if n > MAX_HEADER:
            raise SafetensorsError(f"{path}: header length {n} exceeds {MAX_HEADER}")
        raw = f.read(n)
    if len(raw) != n:
        raise SafetensorsError(f"{path}: header says {n} bytes, the file holds {len(raw)}")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorsError(f"{path}: header is not JSON ({e})") from e
    if not isinstance(header, dict):
        raise SafetensorsError(f"{path}: header must be a JSON object, got {type(header).__name__}")
    return header, 8 + n


def load_file(path: str) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """(tensors, metadata). Checks dtypes (F32 only), shapes against offsets, and that the buffer is packed."""
    header, start = read_header(path)
    with open(path, "rb") as f:
        f.seek(start)
        buf = f.read()
    metadata = header.pop("__metadata__", None) or {}
    out: dict[str, torch.Tensor] = {}
    spans = []
    for name, info in header.items():
        if not isinstance(info, dict) or info.get("dtype") != "F32":
            raise SafetensorsError(f"{path}: tensor {name!r} has dtype {info.get('dtype') if isinstance(info, dict) else info!r}; only F32 is supported")
        shape, offs = info.get("shape"), info.get("data_offsets")
        if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise SafetensorsError(f"{path}: tensor {name!r} has a bad shape {shape!r}")
        if not (isinstance(offs, list) and len(offs) == 2 and all(isinstance(o, int) for o in offs) and 0 <= offs[0] <= offs[1] <= len(buf)):
            raise SafetensorsError(f"{path}: tensor {name!r} has bad data_offsets {offs!r} (buffer {len(buf)} bytes)")
        count = 1
        for d in shape:
            count *= d
        if offs[1] - offs[0] != 4 * count:
            raise SafetensorsError(f"{path}: tensor {name!r} of shape {shape} needs {4 * count} bytes, offsets give {offs[1] - offs[0]}")
        spans.append((offs[0], offs[1], name))
        values = np.frombuffer(buf, dtype="<f4", count=count, offset=offs[0]).astype(np.float32)  # a native-order copy
        out[name] = torch.from_numpy(values).reshape(shape)
    end = 0
    for begin, stop, name in sorted(spans):
        if begin != end:
            raise SafetensorsError(f"{path}: tensor {name!r} starts at {begin}, expected {end} (the buffer must be packed)")
        end = stop
    if end != len(buf):
        raise SafetensorsError(f"{path}: {len(buf) - end} bytes after the last tensor")
    return out, metadata
