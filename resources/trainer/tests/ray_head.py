"""A real Ray head on loopback for tests and benchmarks: `ray start --head --block` in a session of its own, every port
picked free (so it runs beside other engineers' heads), its own --temp-dir, the dashboard (Jobs API) on 127.0.0.1.

Stopping never uses `ray stop` (it kills every Ray process on the machine): SIGTERM to our `ray start --block`, which
shuts down the processes it started; then SIGKILL to its process group and to any process whose command line names
our temp dir (raylet, gcs_server, dashboard, workers all carry the session folder in their arguments).

A second node can join it (`ray start --address`, its own temp dir, CPUs and custom resources): a cluster of two on
one machine, for the Ray rollout tests (docs/ray.md).

Also a CLI for the TypeScript tests and the bench (one implementation):
    python -m tests.ray_head          prints {"dashboard", "address", "tempDir", "pid", "startupS"} as one line, stops on
                                      stdin EOF; the line `node {"cpus": N, "resources": {…}}` on stdin adds a node and
                                      prints {"node": {"pid", "tempDir", "startupS"}}
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Callable, Optional, TypeVar

# The trainer's venv (./scripts/setup; AWB_PYTHON names another), whatever Python runs this: Ray is installed there.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VENV_BIN = os.path.dirname(os.environ["AWB_PYTHON"]) if os.environ.get("AWB_PYTHON") else os.path.join(REPO, ".venv", "bin")
RAY = os.path.join(VENV_BIN, "ray")


class RayHeadError(Exception):
    def __init__(self, reason: str, log_tail: str = ""):
        super().__init__(f"Ray head: {reason}" + (f"\n{log_tail}" if log_tail else ""))


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


R = TypeVar("R")

# The ports are free when picked, but Ray's processes bind them only as they come up, seconds later; on a busy machine
# another process can take one in between, and Ray then exits at once. Such a start is tried again with fresh ports.
_PORT_TAKEN = "address already in use"
_START_TRIES = 3


def _start_with_fresh_ports(owner: "RayHead", start_once: Callable[[], "R"]) -> "R":
    for attempt in range(_START_TRIES):
        try:
            return start_once()
        except RayHeadError as e:
            if attempt == _START_TRIES - 1 or _PORT_TAKEN not in str(e):
                raise
            owner.temp_dir = tempfile.mkdtemp(prefix="awbray-", dir="/tmp")  # the failed start removed its own
    raise AssertionError("unreachable")


class RayHead:
    def __init__(self, num_cpus: int = 1, timeout_s: float = 90.0):
        self.num_cpus = num_cpus
        self.timeout_s = timeout_s
        # Short: Ray puts unix sockets under it (108-byte limit).
        self.temp_dir = tempfile.mkdtemp(prefix="awbray-", dir="/tmp")
        self.proc: Optional[subprocess.Popen] = None
        self.dashboard = ""
        self.address = ""
        self.startup_s = 0.0
        self.nodes: list["RayNode"] = []

    @classmethod
    def attached(cls, dashboard: str) -> "RayHead":
        """A head someone else started and will stop (its dashboard URL): stop() and kill() leave it alone."""
        head = cls.__new__(cls)
        head.num_cpus, head.timeout_s, head.temp_dir, head.proc = 0, 0.0, "", None
        head.dashboard, head.address, head.startup_s, head.nodes = dashboard.rstrip("/"), "", 0.0, []
        return head

    def start(self) -> "RayHead":
        if not os.path.exists(RAY):
            raise RayHeadError(f"{RAY} does not exist: the trainer's venv is missing (run ./scripts/setup)")
        return _start_with_fresh_ports(self, self._start_once)

    def _start_once(self) -> "RayHead":
        gcs, dash, agent_http, agent_grpc, node_mgr, obj_mgr, client, metrics, rt_env, *workers = _free_ports(9 + 8)
        args = [
            RAY, "start", "--head", "--block", "--disable-usage-stats", "--include-dashboard=true",
            "--node-ip-address", "127.0.0.1", "--dashboard-host", "127.0.0.1", "--port", str(gcs),
            "--dashboard-port", str(dash), "--dashboard-agent-listen-port", str(agent_http),
            "--dashboard-agent-grpc-port", str(agent_grpc), "--node-manager-port", str(node_mgr),
            "--object-manager-port", str(obj_mgr), "--ray-client-server-port", str(client),
            "--metrics-export-port", str(metrics), "--runtime-env-agent-port", str(rt_env),
            "--worker-port-list", ",".join(map(str, workers)), "--num-cpus", str(self.num_cpus), "--num-gpus", "0",
            "--object-store-memory", str(100 * 1024 * 1024), "--temp-dir", self.temp_dir, "--log-style", "record",
        ]
        # The jobs' entrypoint says `python3`: the venv's, as on a cluster where Ray's Python is first on PATH.
        env = {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", ""), "RAY_USAGE_STATS_ENABLED": "0",
               "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
        self.dashboard = f"http://127.0.0.1:{dash}"
        self.address = f"127.0.0.1:{gcs}"
        t0 = time.monotonic()
        log = open(os.path.join(self.temp_dir, "ray-start.log"), "wb")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                     start_new_session=True)
        log.close()
        try:
            self._wait_ready(t0)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - t0
        return self

    def _log_tail(self) -> str:
        try:
            with open(os.path.join(self.temp_dir, "ray-start.log"), "r", encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-20:])
        except OSError:
            return ""

    def _wait_ready(self, t0: float) -> None:
        """Ready when the Jobs API answers a list: the job agent is up (a submit before that gets a 500)."""
        assert self.proc is not None
        while time.monotonic() - t0 < self.timeout_s:
            if self.proc.poll() is not None:
                raise RayHeadError(f"ray start exited with code {self.proc.returncode}", self._log_tail())
            try:
                with urllib.request.urlopen(f"{self.dashboard}/api/jobs/", timeout=2) as r:
                    if r.status == 200 and self._agent_ready():
                        return
            except OSError:
                pass
            time.sleep(0.25)
        raise RayHeadError(f"the dashboard at {self.dashboard} did not answer within {self.timeout_s} s", self._log_tail())

    def _agent_ready(self) -> bool:
        # The head picks a job agent from the live nodes; the node's agent registers a little after the dashboard.
        return self.alive_nodes() > 0

    def alive_nodes(self) -> int:
        """Nodes the head lists as alive (-1 when the dashboard does not answer)."""
        try:
            with urllib.request.urlopen(f"{self.dashboard}/nodes?view=summary", timeout=2) as r:
                summary = json.load(r).get("data", {}).get("summary") or []
                return sum(1 for n in summary if n.get("raylet", {}).get("state") == "ALIVE")
        except (OSError, ValueError):
            return -1

    def add_node(self, num_cpus: int, resources: Optional[dict[str, float]] = None, timeout_s: float = 90.0) -> "RayNode":
        """A second node joins the cluster (`ray start --address`): its own temp dir, ports, CPUs and custom resources.
        Returns once the head lists it alive; stop() stops it with the head."""
        if not self.address or self.proc is None:
            raise RayHeadError("add_node needs a head this process started")
        node = RayNode(self, num_cpus, resources or {})
        self.nodes.append(node)
        node.start(timeout_s)
        return node

    def own_pids(self) -> list[int]:
        """Processes whose command line names our temp dir or that run inside it (a job's entrypoint runs in its
        unpacked working_dir), and our `ray start`'s group: never another head's."""
        if not self.temp_dir:
            return []
        pids = set()
        mine = os.getpid()
        pgid = self.proc.pid if self.proc is not None else None
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == mine:
                continue
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    cmd = f.read()
                cwd = os.readlink(f"/proc/{d}/cwd")
                if self.temp_dir.encode() in cmd or cwd.startswith(self.temp_dir) or (pgid is not None and os.getpgid(int(d)) == pgid):
                    pids.add(int(d))
            except (OSError, ProcessLookupError):
                continue
        return sorted(pids)

    def kill(self) -> None:
        """The head disappears at once (SIGKILL to all of ours), as a crashed head node would."""
        if not self.temp_dir:
            return
        for node in self.nodes:
            node.kill()
        for pid in self.own_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop(self) -> None:
        if not self.temp_dir:
            return
        for node in self.nodes:
            node.stop()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        deadline = time.monotonic() + 5
        while self.own_pids() and time.monotonic() < deadline:
            time.sleep(0.2)
        self.kill()
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.temp_dir, ignore_errors=True)


class RayNode(RayHead):
    """A node that joined a RayHead's cluster: the head's process handling (own temp dir, own process group, never
    `ray stop`) with `ray start --address` instead of `--head`."""

    def __init__(self, head: RayHead, num_cpus: int, resources: dict[str, float]):
        super().__init__(num_cpus=num_cpus, timeout_s=head.timeout_s)
        self.head = head
        self.resources = resources

    def start(self, timeout_s: float = 90.0) -> "RayNode":  # type: ignore[override]
        return _start_with_fresh_ports(self, lambda: self._join(timeout_s))

    def _join(self, timeout_s: float) -> "RayNode":
        node_mgr, obj_mgr, metrics, agent_http, agent_grpc, rt_env, *workers = _free_ports(6 + 8)
        args = [
            RAY, "start", "--address", self.head.address, "--block", "--disable-usage-stats", "--node-ip-address", "127.0.0.1",
            "--node-manager-port", str(node_mgr), "--object-manager-port", str(obj_mgr), "--metrics-export-port", str(metrics),
            "--dashboard-agent-listen-port", str(agent_http), "--dashboard-agent-grpc-port", str(agent_grpc),
            "--runtime-env-agent-port", str(rt_env), "--worker-port-list", ",".join(map(str, workers)),
            "--num-cpus", str(self.num_cpus), "--num-gpus", "0", "--resources", json.dumps(self.resources),
            "--object-store-memory", str(80 * 1024 * 1024), "--temp-dir", self.temp_dir, "--log-style", "record",
        ]
        env = {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", ""), "RAY_USAGE_STATS_ENABLED": "0",
               "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
        before = max(self.head.alive_nodes(), 0)
        t0 = time.monotonic()
        log = open(os.path.join(self.temp_dir, "ray-start.log"), "wb")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                     start_new_session=True)
        log.close()
        try:
            while self.head.alive_nodes() <= before:
                if self.proc.poll() is not None:
                    raise RayHeadError(f"ray start --address exited with code {self.proc.returncode}", self._log_tail())
                if time.monotonic() - t0 > timeout_s:
                    raise RayHeadError(f"the node did not join within {timeout_s} s", self._log_tail())
                time.sleep(0.25)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - t0
        return self


def main() -> int:
    head = RayHead(num_cpus=int(os.environ.get("AWB_RAY_CPUS", "1")))
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: (head.stop(), os._exit(0)))
    try:
        head.start()
    except RayHeadError as e:
        print(json.dumps({"error": str(e)}), flush=True)
        return 1
    print(json.dumps({"dashboard": head.dashboard, "address": head.address, "tempDir": head.temp_dir, "pid": head.proc.pid,
                      "startupS": round(head.startup_s, 2)}), flush=True)
    # Commands on stdin: "kill" (the head disappears, for fault tests), "node {json}" (a node joins); EOF stops it.
    for line in sys.stdin:
        if line.strip() == "kill":
            head.kill()
            print(json.dumps({"killed": True}), flush=True)
        elif line.startswith("node "):
            try:
                spec = json.loads(line[5:])
                node = head.add_node(int(spec.get("cpus", 1)), spec.get("resources") or {})
                print(json.dumps({"node": {"pid": node.proc.pid if node.proc else None, "tempDir": node.temp_dir,
                                           "startupS": round(node.startup_s, 2)}}), flush=True)
            except (RayHeadError, ValueError) as e:
                print(json.dumps({"nodeError": str(e)}), flush=True)
    head.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
