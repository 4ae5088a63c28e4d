"""The package's errors: each names the value that was wrong."""

from __future__ import annotations


class AwbRayError(Exception):
    """Base of this package's errors."""


class ClusterUnreachableError(AwbRayError):
    """No Ray cluster answers at the address (nothing was started)."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(f"Ray cluster {address!r} unreachable: {reason}")
        self.address = address
        self.reason = reason


class ClusterResourcesError(AwbRayError):
    """The cluster cannot place the actors asked for (too few CPUs or custom resources): checked before any starts."""

    def __init__(self, resource: str, wanted: float, available: float) -> None:
        super().__init__(
            f"the Ray cluster has {available:g} {resource} in all, the environment servers need {wanted:g}: "
            "add nodes, or ask for fewer envs")
        self.resource = resource
        self.wanted = wanted
        self.available = available


class CheckoutError(AwbRayError):
    """The workbench checkout the actors run (`bin/awb.js`) or its Node is not where it was said to be."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.detail = detail


class EnvServerStartError(AwbRayError):
    """An actor's `awb env serve` did not start (or did not say where it listens) on its node."""

    def __init__(self, node: str, reason: str) -> None:
        super().__init__(f"environment server on node {node}: {reason}")
        self.node = node
        self.reason = reason


class EnvServerPlacementError(AwbRayError):
    """Ray did not place every actor within the time given (the cluster is busy, or lacks what they ask for)."""

    def __init__(self, placed: int, wanted: int, timeout_s: float) -> None:
        super().__init__(f"{placed} of {wanted} environment server actors started within {timeout_s:g} s")
        self.placed = placed
        self.wanted = wanted
        self.timeout_s = timeout_s
