"""One workbench environment server on a Ray node: the body of the actor (cluster.py makes it one).

The actor starts ``node <checkout>/bin/awb.js env serve --host 0.0.0.0 --port 0 --devices K --json --stop-with-stdin``
on its node, reads the first line (the server's URLs and token) and reports them with the node's address in place of
127.0.0.1: ``/env`` for outside agents (awb_env) and ``/rollout`` for the workbench's remote rollout workers. The server
holds the read end of a pipe whose write end only this actor has, so when the actor dies, however it dies, the
server sees its stdin close and stops. ``AWB_HOME`` is a folder of the actor's own (removed at the end) unless one is
given: nothing recorded there is needed after the actor (the rollout driver keeps the one trajectory store).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any, Optional

from .errors import CheckoutError, EnvServerStartError


@dataclass(frozen=True)
class EnvServerInfo:
    """Where one actor's server listens (every URL carries the server's token)."""

    url: str
    """``ws://<node ip>:<port>/env?token=…``: the environment protocol (docs/env-protocol.md)."""
    rollout_url: str
    """``ws://<node ip>:<port>/rollout?token=…``: remote rollout workers (docs/ray.md)."""
    node_id: str
    ip: str
    devices: int
    server_pid: int
    actor_pid: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def find_node(node: Optional[str]) -> str:
    """The Node.js executable: the one named (a path or a name on PATH), else ``node`` on PATH."""
    want = node or os.environ.get("AWB_NODE") or "node"
    found = want if os.path.sep in want and os.access(want, os.X_OK) else shutil.which(want)
    if not found:
        raise CheckoutError(want, "no Node.js executable there (install Node 20+ on every node, or set AWB_NODE)")
    return found


def check_checkout(checkout: str) -> str:
    """The checkout's ``bin/awb.js``, which must be there (with its node_modules) on every node."""
    awb = os.path.join(checkout, "bin", "awb.js")
    if not os.path.isfile(awb):
        raise CheckoutError(checkout, "no bin/awb.js: not a workbench checkout (the same path must hold one on every node)")
    if not os.path.isdir(os.path.join(checkout, "node_modules")):
        raise CheckoutError(checkout, "no node_modules: run npm ci there")
    return awb


class EnvServer:
    """The actor: one ``awb env serve`` with ``devices`` SimDroids on the node Ray placed it on."""

    def __init__(self, checkout: str, devices: int, node: Optional[str] = None, awb_home: Optional[str] = None,
                 startup_timeout_s: float = 60.0) -> None:
        import ray  # in the actor's process, where Ray is running

        self._node_ip = ray.util.get_node_ip_address()
        node_id = ray.get_runtime_context().get_node_id()
        awb = check_checkout(checkout)
        node_bin = find_node(node)
        self._own_home = awb_home is None
        self._home = awb_home or tempfile.mkdtemp(prefix="awb-ray-actor-")
        self._stderr: deque[str] = deque(maxlen=40)
        env = {**os.environ, "AWB_HOME": self._home}
        self._proc = subprocess.Popen(
            [node_bin, awb, "env", "serve", "--host", "0.0.0.0", "--port", "0", "--devices", str(devices), "--json",
             "--no-adb", "--stop-with-stdin"],
            cwd=checkout, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        first = self._first_line(startup_timeout_s)
        try:
            started = json.loads(first)
            port, token = int(started["port"]), str(started["token"])
        except (ValueError, KeyError, TypeError) as e:
            self.stop()
            raise EnvServerStartError(node_id, f"its first line is not the server's JSON ({e}): {first[:200]!r}") from None
        base = f"ws://{self._node_ip}:{port}"
        self._info = EnvServerInfo(url=f"{base}/env?token={token}", rollout_url=f"{base}/rollout?token={token}",
                                   node_id=node_id, ip=self._node_ip, devices=devices, server_pid=self._proc.pid,
                                   actor_pid=os.getpid())
        self._exited = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _drain_stderr(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._stderr.append(line.rstrip("\n"))

    def _first_line(self, timeout_s: float) -> str:
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(self._proc.stdout.readline() if self._proc.stdout else ""), daemon=True)
        reader.start()
        reader.join(timeout_s)
        if not box or not box[0]:
            code = self._proc.poll()
            self.stop()
            why = f"exited with code {code}" if code is not None else f"said nothing within {timeout_s:g} s"
            raise EnvServerStartError(self._node_ip, f"awb env serve {why}; stderr: {' | '.join(self._stderr)[-1500:]}")
        return box[0]

    def _watch(self) -> None:
        self._proc.wait()
        self._exited.set()

    def info(self) -> dict[str, Any]:
        return self._info.to_json()

    def wait_exit(self) -> dict[str, Any]:
        """Returns when the server process has exited (the driver watches each actor through this call)."""
        self._exited.wait()
        return {"code": self._proc.returncode, "stderr": "\n".join(self._stderr)[-1500:]}

    def stop(self, timeout_s: float = 10.0) -> int:
        """Stops the server (closing its stdin, as the actor's death would), SIGKILL after ``timeout_s``."""
        if self._proc.poll() is None:
            try:
                if self._proc.stdin:
                    self._proc.stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._own_home:
            shutil.rmtree(self._home, ignore_errors=True)
        return self._proc.returncode if self._proc.returncode is not None else -1

    def ping(self) -> float:
        return time.time()
