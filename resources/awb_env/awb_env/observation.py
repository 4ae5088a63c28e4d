"""Observations as Python values (docs/env-protocol.md, "The observation").

``screenshot`` becomes a ``height × width × 3`` uint8 array (raw RGB as sent; PNG decoded with Pillow), or the PNG's
bytes when the caller keeps them encoded (``png="bytes"``: a PNG nobody asked to decode is not decoded). ``tree`` is
the uiautomator XML as a str (parsed by whoever needs it), ``ui_elements`` a list of dicts with AndroidWorld's field
names.
"""

from __future__ import annotations

import io
from typing import Any, Literal

import numpy as np

from .errors import WireFormatError

PngMode = Literal["array", "bytes"]


def decode_png(data: bytes | memoryview) -> np.ndarray:
    """A PNG as a writable ``height × width × 3`` uint8 array."""
    from PIL import Image  # Pillow is imported on the first PNG, not with the package

    with Image.open(io.BytesIO(data)) as img:
        return np.array(img.convert("RGB"))


def decode_screenshot(shot: dict[str, Any], png: PngMode) -> np.ndarray | bytes:
    data = shot["data"]
    fmt = shot.get("format")
    if fmt == "rgba":
        w, h = int(shot["width"]), int(shot["height"])
        if len(data) != w * h * 4:
            raise WireFormatError(f"raw screenshot of {w}x{h} needs {w * h * 4} bytes", len(data))
        # RGB, writable and contiguous: the frame's bytes are read-only, and callers draw on screenshots.
        return np.ascontiguousarray(np.frombuffer(data, dtype=np.uint8).reshape(h, w, 4)[:, :, :3])
    if fmt == "png":
        return decode_png(data) if png == "array" else bytes(data)
    raise WireFormatError(f"screenshot format {fmt!r} is neither 'rgba' nor 'png'", len(data))


def decode_observation(obs: dict[str, Any] | None, png: PngMode = "array") -> dict[str, Any] | None:
    """The server's observation with its screenshot decoded (in place; the dict is the caller's own)."""
    if obs is None:
        return None
    shot = obs.get("screenshot")
    if isinstance(shot, dict):
        obs["screenshot"] = decode_screenshot(shot, png)
    return obs
