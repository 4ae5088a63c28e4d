"""Environment servers as Ray actors across a cluster: connect, place, watch, tear down.

``env_servers(address, n)`` connects to the cluster (one clear ClusterUnreachableError when nothing answers), checks
that it has the CPUs (one per SimDroid) and custom resources asked for, starts ``ceil(n / envs_per_actor)`` actors
spread over the nodes (Ray's SPREAD strategy), and returns an ``EnvServers`` handle: the servers' URLs
(``.urls`` for awb_env's environments, ``.rollout_urls`` for the workbench's rollout workers), ``.dead()`` for the
servers that stopped, ``.close()`` to stop them all. The actors live as long as this process's Ray connection.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import urlsplit

from .errors import ClusterResourcesError, ClusterUnreachableError, EnvServerPlacementError
from .server import EnvServer, EnvServerInfo, check_checkout

#: The repository this package sits in (resources/awb_ray/awb_ray/ → the root): the default checkout on every node.
DEFAULT_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _reachable(address: str, timeout_s: float) -> None:
    """A host:port (or ray://host:port) address must accept a TCP connection: ray.init would otherwise wait a minute."""
    if address == "auto":
        return
    target = urlsplit(address if "://" in address else f"tcp://{address}")
    if not target.hostname or not target.port:
        raise ClusterUnreachableError(address, "not HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((target.hostname, target.port), timeout=timeout_s):
            pass
    except OSError as e:
        raise ClusterUnreachableError(address, f"{type(e).__name__}: {e}") from None


def connect(address: str, runtime_env: Optional[dict[str, Any]] = None, timeout_s: float = 30.0) -> None:
    """``ray.init`` on the cluster at ``address`` (HOST:PORT of the head's GCS, ray://HOST:PORT, or auto), unless this
    process is connected already. The actors' runtime env adds this package to PYTHONPATH, so the nodes need only the
    checkout (at the same path), not an install of it."""
    import ray

    if ray.is_initialized():
        return
    _reachable(address, min(timeout_s, 5.0))  # noqa: E501 (after the import: a connected process skips it)
    env = dict(runtime_env or {})
    env_vars = {**env.get("env_vars", {})}
    env_vars.setdefault("PYTHONPATH", PACKAGE_ROOT + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""))
    env["env_vars"] = env_vars
    failure: list[BaseException] = []

    def init() -> None:
        try:
            ray.init(address=address, runtime_env=env, namespace="awb", logging_level="WARNING", log_to_driver=False,
                     configure_logging=False)
        except BaseException as e:  # noqa: BLE001 (handed to the caller's thread)
            failure.append(e)

    # ray.init has no timeout of its own: a port that accepts but is no GCS would hold it for minutes.
    t = threading.Thread(target=init, daemon=True)
    t.start()
    t.join(timeout_s)
    if t.is_alive():
        raise ClusterUnreachableError(address, f"ray.init did not finish within {timeout_s:g} s")
    if failure:
        raise ClusterUnreachableError(address, f"{type(failure[0]).__name__}: {failure[0]}") from None


def _check_resources(devices: list[int], resources: dict[str, float]) -> None:
    import ray

    total = ray.cluster_resources()
    wanted = {"CPU": float(sum(devices))}
    for name, per_actor in resources.items():
        wanted[name] = per_actor * len(devices)
    for name, n in wanted.items():
        if total.get(name, 0.0) < n:
            raise ClusterResourcesError(name, n, total.get(name, 0.0))


@dataclass
class EnvServers:
    """Environment servers running as actors; a context manager that stops them."""

    actors: list[Any]
    servers: list[EnvServerInfo]
    _exits: dict[Any, int] = field(default_factory=dict)
    _dead: dict[int, str] = field(default_factory=dict)

    @property
    def urls(self) -> list[str]:
        """The ``/env`` URLs, one per server (each serves ``devices`` sessions at once)."""
        return [s.url for s in self.servers]

    @property
    def rollout_urls(self) -> list[str]:
        return [s.rollout_url for s in self.servers]

    def dead(self, timeout_s: float = 0.0) -> dict[int, str]:
        """Servers that stopped (index → why), waiting up to ``timeout_s`` for a first one; an actor that died is one."""
        import ray

        if not self._exits:
            self._exits = {a.wait_exit.remote(): i for i, a in enumerate(self.actors)}
        pending = [r for r, i in self._exits.items() if i not in self._dead]
        if not pending:
            return dict(self._dead)
        ready, rest = ray.wait(pending, num_returns=1, timeout=timeout_s)
        if ready and rest:
            more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
            ready += more
        for ref in ready:
            i = self._exits[ref]
            try:
                out = ray.get(ref)
                self._dead[i] = f"awb env serve exited with code {out['code']}" + (f": {out['stderr'][-300:]}" if out.get("stderr") else "")
            except Exception as e:  # noqa: BLE001 (RayActorError and its kin: the actor or its node died)
                self._dead[i] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        return dict(self._dead)

    def close(self, timeout_s: float = 15.0) -> None:
        """Stops every server (then kills its actor); a dead one is skipped."""
        import ray

        stops = [a.stop.remote() for a in self.actors]
        try:
            ray.wait(stops, num_returns=len(stops), timeout=timeout_s)
        finally:
            for a in self.actors:
                try:
                    ray.kill(a)
                except Exception:  # noqa: BLE001 (teardown: an actor that is already gone)
                    pass

    def __enter__(self) -> "EnvServers":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def env_servers(address: str, n: int, *, envs_per_actor: int = 1, checkout: str = DEFAULT_CHECKOUT,
                node: Optional[str] = None, resources: Optional[dict[str, float]] = None,
                runtime_env: Optional[dict[str, Any]] = None, awb_home: Optional[str] = None,
                timeout_s: float = 120.0) -> EnvServers:
    """Starts environment servers for ``n`` SimDroids on the cluster at ``address``: ``ceil(n / envs_per_actor)`` actors,
    each asking for one CPU per SimDroid plus ``resources`` (custom resources per actor, e.g. ``{"simdroid_node": 1}`` to
    keep them on the nodes that offer it), spread over the nodes. ``checkout``: the workbench checkout, at the same path
    on every node (default: this one). Returns once every server listens; raises (stopping what started) otherwise."""
    import ray

    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 256:
        raise ValueError(f"n: an integer from 1 to 256 environments, got {n!r}")
    if not isinstance(envs_per_actor, int) or isinstance(envs_per_actor, bool) or not 1 <= envs_per_actor <= 64:
        raise ValueError(f"envs_per_actor: an integer from 1 to 64, got {envs_per_actor!r}")
    check_checkout(checkout)  # here first: a driver on a head that lacks it would otherwise wait for every node to say so
    extra = dict(resources or {})
    for name, v in extra.items():
        if name in ("CPU", "GPU") or not isinstance(v, (int, float)) or v < 0:
            raise ValueError(f"resources: custom resources with a non-negative amount, got {name}={v!r}")
    connect(address, runtime_env, timeout_s=min(timeout_s, 30.0))
    devices = [min(envs_per_actor, n - k) for k in range(0, n, envs_per_actor)]
    _check_resources(devices, extra)
    actor_class = ray.remote(EnvServer)
    actors = [actor_class.options(num_cpus=d, resources=extra, scheduling_strategy="SPREAD", max_concurrency=4,
                                  max_restarts=0).remote(checkout, d, node, awb_home) for d in devices]
    infos = [a.info.remote() for a in actors]
    ready, _ = ray.wait(infos, num_returns=len(infos), timeout=timeout_s)
    servers = EnvServers(actors, [])
    if len(ready) < len(infos):
        servers.close()
        raise EnvServerPlacementError(len(ready), len(infos), timeout_s)
    try:
        servers.servers = [EnvServerInfo(**ray.get(r)) for r in infos]
    except BaseException:
        servers.close()
        raise
    return servers
