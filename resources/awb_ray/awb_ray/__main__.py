"""``python -m awb_ray serve``: the driver the workbench spawns for Ray rollouts (core/rollout/ray.ts).

It starts the environment servers on the cluster (cluster.py) and speaks JSON lines on stdout:

    {"type": "actor", "index": i, "url": …, "rollout_url": …, "node_id": …, "ip": …, "devices": k, …}   one per server
    {"type": "ready", "actors": n, "envs": N, "startup_s": s}
    {"type": "dead", "index": i, "reason": …}        a server stopped or its actor (or node) died
    {"type": "error", "error": "ClusterUnreachableError", "message": …}    nothing started; exit status 2

It stops every server and exits when its stdin closes (the workbench ended, however it ended) or on SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from typing import Any, NoReturn

from .cluster import DEFAULT_CHECKOUT, EnvServers, env_servers
from .errors import AwbRayError


def _emit(event: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def _int_in(lo: int, hi: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer from {lo} to {hi}, got {text!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"must be an integer from {lo} to {hi}, got {v}")
        return v
    return parse


def _json_object(text: str) -> dict[str, Any]:
    try:
        v = json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"not JSON ({e}): {text!r}") from None
    if not isinstance(v, dict):
        raise argparse.ArgumentTypeError(f"must be a JSON object, got {text!r}")
    return v


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m awb_ray", description="Workbench environment servers as Ray actors")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="start the servers, print them as JSON lines, stop them when stdin closes")
    s.add_argument("--address", required=True, help="the cluster: HOST:PORT of the head's GCS, ray://HOST:PORT, or auto")
    s.add_argument("--envs", type=_int_in(1, 256), required=True, help="SimDroids in all")
    s.add_argument("--envs-per-actor", type=_int_in(1, 64), default=1, help="SimDroids per actor (one CPU each; default 1)")
    s.add_argument("--checkout", default=DEFAULT_CHECKOUT, help="the workbench checkout, same path on every node")
    s.add_argument("--node", default=None, help="Node.js on the nodes (default $AWB_NODE, else node on PATH)")
    s.add_argument("--resources", type=_json_object, default={}, help='custom resources per actor, e.g. {"simdroid_node": 1}')
    s.add_argument("--runtime-env", type=_json_object, default={}, help="Ray runtime env for the actors (JSON)")
    s.add_argument("--timeout", type=float, default=120.0, help="seconds to place and start every server")
    return p


def _fail(e: BaseException) -> NoReturn:
    _emit({"type": "error", "error": type(e).__name__, "message": str(e)})
    sys.exit(2)


def serve(args: argparse.Namespace) -> int:
    t0 = time.monotonic()
    try:
        servers = env_servers(args.address, args.envs, envs_per_actor=args.envs_per_actor, checkout=args.checkout,
                              node=args.node, resources=args.resources, runtime_env=args.runtime_env,
                              timeout_s=args.timeout)
    except (AwbRayError, ValueError) as e:
        _fail(e)
    except Exception as e:  # noqa: BLE001 (an actor that failed to start on its node: Ray wraps its error)
        _fail(e)
    stop = threading.Event()

    def watch_stdin() -> None:
        for _ in sys.stdin:
            pass
        stop.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    for i, s in enumerate(servers.servers):
        _emit({"type": "actor", "index": i, **s.to_json()})
    _emit({"type": "ready", "actors": len(servers.servers), "envs": args.envs, "startup_s": round(time.monotonic() - t0, 2)})
    _watch(servers, stop)
    servers.close()
    return 0


def _watch(servers: EnvServers, stop: threading.Event) -> None:
    reported: set[int] = set()
    while not stop.is_set():
        for i, reason in servers.dead(timeout_s=0.5).items():
            if i not in reported:
                reported.add(i)
                _emit({"type": "dead", "index": i, "url": servers.servers[i].url, "reason": reason})
        if len(reported) == len(servers.servers):
            stop.wait(0.5)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "serve":
        return serve(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
