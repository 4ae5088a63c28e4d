"""The protocol's frames (docs/env-protocol.md, "Frames"): requests are JSON text; responses are JSON text, or one
binary frame when they carry bytes, little-endian::

    u32 json_length · JSON (UTF-8) · (u32 length · bytes)*

where ``{"$bin": i}`` in the JSON stands for the i-th attachment, and an object whose only key is ``$$bin`` (``$$$bin``…)
is read back with one ``$`` less. Attachments come back as memoryviews of the frame (no copy): a caller keeps only
what it needs.
"""

from __future__ import annotations

import json
import re
import struct
from typing import Any

from .errors import WireFormatError

_ESCAPED = re.compile(r"^\$+bin$")
_U32 = struct.Struct("<I")


def _hook(blobs: list[memoryview], size: int):
    def object_hook(obj: dict[str, Any]) -> Any:
        if len(obj) != 1:
            return obj
        (key,) = obj
        if key == "$bin":
            i = obj[key]
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(blobs):
                raise WireFormatError(f"reference to missing attachment {i!r}", size)
            return blobs[i]
        if _ESCAPED.match(key):
            return {key[1:]: obj[key]}
        return obj

    return object_hook


def _loads(text: str | bytes | memoryview, size: int, hook: Any) -> Any:
    try:
        return json.loads(bytes(text) if isinstance(text, memoryview) else text, object_hook=hook)
    except WireFormatError:
        raise
    except (ValueError, RecursionError) as e:
        raise WireFormatError(f"not JSON: {e}", size) from e


def decode_frame(data: str | bytes) -> Any:
    """One frame from the server as a JSON value, attachments in place of their references."""
    if isinstance(data, str):
        # Only text holding a "…bin" key needs the hook; a text frame has no attachments.
        return _loads(data, len(data), _hook([], len(data)) if 'bin"' in data else None)
    size = len(data)
    if size < 4:
        raise WireFormatError("binary frame shorter than its header", size)
    view = memoryview(data)
    (json_length,) = _U32.unpack_from(view, 0)
    if 4 + json_length > size:
        raise WireFormatError(f"JSON part of {json_length} bytes overruns the frame", size)
    blobs: list[memoryview] = []
    at = 4 + json_length
    while at < size:
        if at + 4 > size:
            raise WireFormatError("truncated attachment length", size)
        (length,) = _U32.unpack_from(view, at)
        if at + 4 + length > size:
            raise WireFormatError(f"attachment of {length} bytes overruns the frame", size)
        blobs.append(view[at + 4 : at + 4 + length])
        at += 4 + length
    return _loads(view[4 : 4 + json_length], size, _hook(blobs, size))


def encode_frame(value: Any, blobs: list[bytes]) -> bytes:
    """A binary frame whose JSON already holds its ``{"$bin": i}`` references (tests, and servers written in Python)."""
    head = json.dumps(value, separators=(",", ":")).encode()
    parts = [_U32.pack(len(head)), head]
    for b in blobs:
        parts += [_U32.pack(len(b)), bytes(b)]
    return b"".join(parts)


def _jsonable(value: Any) -> Any:
    # numpy scalars and arrays, and anything else a caller hands us: numbers stay numbers; the rest becomes its
    # text, which the server then refuses with a message naming it (a malformed action, not a crash here).
    for attr in ("item", "tolist"):
        fn = getattr(value, attr, None)
        if callable(fn):
            try:
                return fn()
            except (TypeError, ValueError):
                pass
    return repr(value)


def encode_request(request: dict[str, Any]) -> str:
    """A request's text frame."""
    return json.dumps(request, separators=(",", ":"), default=_jsonable, ensure_ascii=False)
