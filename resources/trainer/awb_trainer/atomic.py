"""One way to replace a file so that a reader sees the old content or the new one, never a half-written one."""

from __future__ import annotations

import os
import secrets
from typing import Union


def write_atomic(path: str, data: Union[bytes, str], mode: int = 0o644) -> None:
    """Writes `data` to a temporary file unique to this call beside `path`, fsyncs it, then os.replace()s it over `path`.

    A crash leaves either the old file or the new one (and at worst a stray temporary), never an empty or truncated
    `path`; concurrent writers (threads, torchrun ranks) each use their own temporary, so none reads another's.
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    tmp = f"{path}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
