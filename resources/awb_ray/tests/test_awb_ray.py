"""awb_ray: the driver's error paths (no cluster needed) and environment server actors on a REAL Ray cluster.

The cluster: AWB_RAY_ADDRESS names one (test/jobs/ray-jobs.test.ts runs this module on its head and second node, with
AWB_RAY_NODES saying how many nodes it has); without it, one head is started for the module (the trainer's
tests/ray_head.py, the one helper both languages use).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(PACKAGE_ROOT))
sys.path.insert(0, PACKAGE_ROOT)

from awb_ray import ClusterResourcesError, EnvServers, env_servers  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _driver(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": PACKAGE_ROOT}
    return subprocess.run([sys.executable, "-m", "awb_ray", "serve", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) is gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    return not _alive(pid)


async def _hello(url: str) -> dict:
    import websockets

    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"id": 1, "op": "hello", "protocol": 1, "client": "awb_ray-test"}))
        return json.loads(await asyncio.wait_for(ws.recv(), 30))


class DriverErrors(unittest.TestCase):
    def test_an_unreachable_cluster_is_one_error_line_before_anything_starts(self) -> None:
        address = f"127.0.0.1:{_free_port()}"
        t0 = time.monotonic()
        r = _driver("--address", address, "--envs", "2")
        self.assertEqual(r.returncode, 2, r.stderr)
        lines = r.stdout.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stdout)
        event = json.loads(lines[0])
        self.assertEqual(event["type"], "error")
        self.assertEqual(event["error"], "ClusterUnreachableError")
        self.assertIn(f"Ray cluster '{address}' unreachable: ConnectionRefusedError", event["message"])
        self.assertLess(time.monotonic() - t0, 30)

    def test_bad_arguments_are_refused_naming_the_value(self) -> None:
        for args, said in [
            (["--envs", "0"], "argument --envs: must be an integer from 1 to 256, got 0"),
            (["--envs", "2", "--envs-per-actor", "x"], "argument --envs-per-actor: must be an integer from 1 to 64, got 'x'"),
            (["--envs", "2", "--resources", "[1]"], "argument --resources: must be a JSON object, got '[1]'"),
            (["--envs", "2", "--runtime-env", "{nope"], "argument --runtime-env: not JSON"),
        ]:
            r = _driver("--address", "127.0.0.1:1", *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(said, r.stderr, args)

    def test_a_folder_that_is_no_checkout_or_an_address_that_is_none_is_refused_before_connecting(self) -> None:
        r = _driver("--address", "127.0.0.1:1", "--envs", "1", "--checkout", HERE)
        self.assertEqual(json.loads(r.stdout)["message"], f"{HERE}: no bin/awb.js: not a workbench checkout (the same path must hold one on every node)")
        r = _driver("--address", "head-without-port", "--envs", "1")
        self.assertEqual(json.loads(r.stdout)["message"], "Ray cluster 'head-without-port' unreachable: not HOST:PORT, ray://HOST:PORT or auto")

    def test_env_servers_checks_its_arguments(self) -> None:
        with self.assertRaisesRegex(ValueError, r"n: an integer from 1 to 256 environments, got 0"):
            env_servers("127.0.0.1:1", 0)
        with self.assertRaisesRegex(ValueError, r"resources: custom resources with a non-negative amount, got CPU=1"):
            env_servers("127.0.0.1:1", 1, resources={"CPU": 1})


class OnACluster(unittest.TestCase):
    address: str
    nodes: int
    head = None

    @classmethod
    def setUpClass(cls) -> None:
        attached = os.environ.get("AWB_RAY_ADDRESS")
        if attached:
            cls.address, cls.nodes = attached, int(os.environ.get("AWB_RAY_NODES", "1"))
        else:
            # The trainer's helper (one implementation), loaded by path: both folders name their tests package `tests`.
            spec = importlib.util.spec_from_file_location("awb_trainer_ray_head", os.path.join(REPO, "resources", "trainer", "tests", "ray_head.py"))
            assert spec and spec.loader
            ray_head = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(ray_head)
            cls.head = ray_head.RayHead(num_cpus=3).start()
            cls.address, cls.nodes = cls.head.address, 1
        print(f"Ray cluster {cls.address} with {cls.nodes} node(s)", file=sys.stderr)

    @classmethod
    def tearDownClass(cls) -> None:
        import ray

        ray.shutdown()
        if cls.head is not None:
            cls.head.stop()

    def test_servers_listen_on_the_nodes_answer_the_environment_protocol_and_stop_with_close(self) -> None:
        with env_servers(self.address, 2) as servers:
            self.assertIsInstance(servers, EnvServers)
            self.assertEqual(len(servers.urls), 2)
            self.assertEqual(len({s.node_id for s in servers.servers}), min(2, self.nodes))  # SPREAD: one per node
            for s in servers.servers:
                self.assertRegex(s.url, r"^ws://[0-9.]+:\d+/env\?token=[0-9a-f]{64}$")
                self.assertEqual(s.rollout_url, s.url.replace("/env?", "/rollout?"))
                reply = asyncio.run(_hello(s.url))
                self.assertTrue(reply["ok"], reply)
                self.assertEqual(reply["result"]["devices"]["simdroid"], 1)
            pids = [s.server_pid for s in servers.servers]
            self.assertEqual(servers.dead(), {})
        for pid in pids:
            self.assertTrue(_gone_within(pid, 15), f"awb env serve {pid} outlived close()")

    def test_an_actor_killed_on_its_node_is_reported_dead_and_takes_its_server_along(self) -> None:
        servers = env_servers(self.address, 1)
        try:
            s = servers.servers[0]
            os.kill(s.actor_pid, signal.SIGKILL)
            dead = servers.dead(timeout_s=60)
            self.assertEqual(list(dead), [0])
            self.assertRegex(dead[0], r"Actor|exited with code")
            self.assertTrue(_gone_within(s.server_pid, 15), "the server outlived its actor")
        finally:
            servers.close()

    def test_awb_env_vector_env_on_the_cluster_spreads_its_sessions_over_the_actors_servers(self) -> None:
        # This checkout's awb_env (a venv's editable install may name another checkout's).
        sys.path.insert(0, os.path.join(REPO, "resources", "awb_env"))
        import gymnasium as gym

        import awb_env  # noqa: F401 (registers the environment id)

        envs = gym.make_vec("awb/AndroidTask-v0", num_envs=2, task="SystemWifiTurnOn", seed=3, ray_address=self.address)
        try:
            vec = envs.unwrapped
            servers = vec._ray.servers
            self.assertEqual(len(servers), 2)
            self.assertEqual(len({s.client for s in vec.sessions}), 2)  # one connection per actor's server
            self.assertEqual(len({s.node_id for s in servers}), min(2, self.nodes))
            obs, infos = envs.reset()
            self.assertEqual(infos["seed"].tolist(), [3, 4])
            obs, rewards, terminated, truncated, infos = envs.step(({"action_type": "wait"}, {"action_type": "wait"}))
            self.assertEqual(infos["step"].tolist(), [0, 0])
            pids = [s.server_pid for s in servers]
        finally:
            envs.close()
        for pid in pids:
            self.assertTrue(_gone_within(pid, 15), f"awb env serve {pid} outlived the vector env")
        with self.assertRaisesRegex(ValueError, r"server='ws://x' and ray_address='auto': one or the other"):
            gym.make_vec("awb/AndroidTask-v0", num_envs=1, task="SystemWifiTurnOn", server="ws://x", ray_address="auto")

    def test_more_envs_than_the_cluster_has_cpus_is_refused_before_any_actor_starts(self) -> None:
        with self.assertRaises(ClusterResourcesError) as e:
            env_servers(self.address, 200)
        self.assertEqual((e.exception.resource, e.exception.wanted), ("CPU", 200.0))
        self.assertRegex(str(e.exception), r"^the Ray cluster has \d+ CPU in all, the environment servers need 200")
        with self.assertRaises(ClusterResourcesError) as e:
            env_servers(self.address, 1, resources={"no_such_resource": 1})
        self.assertEqual(str(e.exception), "the Ray cluster has 0 no_such_resource in all, the environment servers need 1: add nodes, or ask for fewer envs")


if __name__ == "__main__":
    unittest.main()
