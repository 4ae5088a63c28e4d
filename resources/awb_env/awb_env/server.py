"""Where the environment server comes from: ``server=`` or ``AWB_ENV_URL`` (a running ``awb env serve`` / ``awb
serve``), else an embedded one — ``node <checkout>/bin/awb.js env serve --json --no-adb --port 0`` started on first
use, shared by everything in this process (reference-counted), and stopped when the last user lets go or the process
exits.

Environment variables: ``AWB_ENV_URL`` (a server to use), ``AWB_CHECKOUT`` (the workbench checkout, when this package
is not installed from one), ``AWB_NODE`` (the node binary), ``AWB_DB`` (the trajectory store the embedded server
records into; else the workbench's default, ``$AWB_HOME/trajectories.db``), ``AWB_ENV_DEVICES`` (how many SimDroids the
embedded server may run at once; 64: they start on demand).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import EmbeddedServerError

log = logging.getLogger("awb_env")

DEFAULT_DEVICES = 64
START_TIMEOUT_S = 120.0


def find_checkout() -> Path:
    """The workbench checkout: ``AWB_CHECKOUT``, else the one this package sits in (resources/awb_env/awb_env)."""
    env = os.environ.get("AWB_CHECKOUT")
    if env:
        root = Path(env).expanduser()
        if not (root / "bin" / "awb.js").is_file():
            raise EmbeddedServerError(f"AWB_CHECKOUT={env} is not a workbench checkout (no bin/awb.js there)", env)
        return root.resolve()
    here = Path(__file__).resolve().parents[3]
    if (here / "bin" / "awb.js").is_file():
        return here
    raise EmbeddedServerError(
        f"no workbench checkout around this awb_env ({Path(__file__).resolve().parent}): set AWB_CHECKOUT to one, "
        "or start a server (`npx awb env serve`) and pass its URL as server= or AWB_ENV_URL",
        str(here),
    )


def find_node() -> str:
    """``AWB_NODE``, else ``node`` on PATH."""
    env = os.environ.get("AWB_NODE")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise EmbeddedServerError(f"AWB_NODE={env} is not an executable file", env)
        return env
    found = shutil.which("node")
    if not found:
        raise EmbeddedServerError(
            "node is not on PATH: install Node.js 20 or newer, or set AWB_NODE to its binary "
            "(or pass server= / AWB_ENV_URL to use a running environment server)",
            "node",
        )
    return found


def _die_with_parent() -> None:
    # Linux: the server gets SIGTERM when its parent dies, even by SIGKILL (no orphaned node left behind). The kernel
    # ties this to the *thread* that forked, so it is set only for servers started from the main thread.
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class EmbeddedServer:
    """One ``awb env serve`` child process."""

    def __init__(self, *, checkout: Path | None = None, node: str | None = None, db: str | None = None,
                 devices: int | None = None) -> None:
        root = checkout or find_checkout()
        node = node or find_node()
        devices = devices or int(os.environ.get("AWB_ENV_DEVICES", DEFAULT_DEVICES))
        db = db or os.environ.get("AWB_DB") or None
        args = [node, str(root / "bin" / "awb.js"), "env", "serve", "--json", "--no-adb", "--port", "0",
                "--devices", str(devices)]
        if db:
            args += ["--db", db]
        self.args = args
        self._stderr: deque[str] = deque(maxlen=40)
        self.process = subprocess.Popen(
            args, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=_die_with_parent
            if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread() else None,
        )
        threading.Thread(target=self._drain, args=(self.process.stderr, True), daemon=True, name="awb-env-stderr").start()
        first = self._first_line()
        try:
            info = json.loads(first)
            self.url: str = info["url"]
            self.port: int = int(info["port"])
            self.ui: str = info.get("ui", "")
        except (ValueError, KeyError, TypeError) as e:
            self.stop()
            raise EmbeddedServerError(f"the embedded server's first line is not its address: {first[:200]!r}", first) from e
        threading.Thread(target=self._drain, args=(self.process.stdout, False), daemon=True, name="awb-env-stdout").start()
        log.info("awb_env: embedded environment server at %s (watch it in the workbench: %s)",
                 self.url.split("?")[0], self.ui.split("?")[0])

    def _first_line(self) -> str:
        got: list[str] = []
        stdout = self.process.stdout
        assert stdout is not None
        reader = threading.Thread(target=lambda: got.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(START_TIMEOUT_S)
        if not got or not got[0]:
            code = self.process.poll()
            self.stop()
            tail = " | ".join(list(self._stderr)[-5:])
            how = f"exited with {code}" if code is not None else f"printed nothing in {START_TIMEOUT_S:.0f} s"
            command = " ".join(self.args[:4])
            raise EmbeddedServerError(f"the embedded environment server ({command}) {how}: {tail or 'no output'}",
                                      " ".join(self.args))
        return got[0].strip()

    def _drain(self, stream, keep: bool) -> None:  # noqa: ANN001 - a text pipe
        for line in stream:
            if keep:
                self._stderr.append(line.rstrip())
                log.debug("awb env serve: %s", line.rstrip())

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM (the server closes its sessions: unfinished episodes are recorded as aborted), then SIGKILL."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("awb_env: the embedded server did not stop in %.0f s; killing it", timeout)
            self.process.kill()
            self.process.wait()


_lock = threading.Lock()
_shared: EmbeddedServer | None = None
_users = 0
_hooked = False


def acquire() -> EmbeddedServer:
    """The process's embedded server, started if none runs; pair with :func:`release`."""
    global _shared, _users, _hooked
    with _lock:
        if _shared is None or not _shared.running:
            _shared = EmbeddedServer()
            _users = 0
            if not _hooked:  # registered with the first server, not at import
                atexit.register(_stop_at_exit)
                _hooked = True
        _users += 1
        return _shared


def release(server: EmbeddedServer) -> None:
    """One user less; the last one stops the server."""
    global _shared, _users
    with _lock:
        if server is not _shared:
            server.stop()
            return
        _users -= 1
        if _users <= 0:
            _shared, _users = None, 0
            server.stop()


def _stop_at_exit() -> None:
    global _shared
    with _lock:
        if _shared is not None:
            _shared.stop()
            _shared = None


class ServerLease:
    """A server URL for one user: the given one, ``AWB_ENV_URL``, or the shared embedded server (released once)."""

    def __init__(self, server: str | None = None) -> None:
        self._embedded: EmbeddedServer | None = None
        url = server or os.environ.get("AWB_ENV_URL") or None
        if url is None:
            self._embedded = acquire()
            url = self._embedded.url
        self.url: str = url

    @property
    def embedded(self) -> bool:
        return self._embedded is not None

    def release(self) -> None:
        if self._embedded is not None:
            server, self._embedded = self._embedded, None
            release(server)


@contextmanager
def shared_server() -> Iterator[str]:
    """Keeps the embedded server up for the block (e.g. around many short-lived environments); yields its URL."""
    lease = ServerLease()
    try:
        yield lease.url
    finally:
        lease.release()
