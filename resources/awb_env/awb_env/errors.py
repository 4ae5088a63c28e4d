"""Named errors of awb_env, each carrying the value it is about.

The server's error results (docs/env-protocol.md, "Errors") arrive as :class:`EnvRequestError`, or as the subclass
named after the server's error (``UnknownTemplateError``, ``SeedError``, …), so a caller can catch exactly one.
A malformed *action* is never an error: it is a recorded failed step whose ``info["error"]`` names it.
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(r"(token=)[^&#]+")


def url_without_token(url: str) -> str:
    """The URL as it may be shown or logged: its token replaced by ``…``."""
    return _TOKEN.sub(r"\1…", url)


class AwbEnvError(Exception):
    """Base of every error awb_env raises."""


class ServerGoneError(AwbEnvError):
    """The environment server closed the connection, died, or could not be reached."""

    def __init__(self, url: str, detail: str) -> None:
        self.url = url_without_token(url)
        self.detail = detail
        super().__init__(f"the environment server at {self.url} is gone: {detail}")


class ProtocolMismatchError(AwbEnvError):
    """The server does not speak this client's protocol version (or is not an environment server)."""

    def __init__(self, url: str, client_protocol: int, detail: str) -> None:
        self.url = url_without_token(url)
        self.client_protocol = client_protocol
        self.detail = detail
        super().__init__(f"{self.url} does not speak environment protocol {client_protocol}: {detail}")


class WireFormatError(AwbEnvError):
    """A frame from the server that is not the protocol's framing (docs/env-protocol.md, "Frames")."""

    def __init__(self, detail: str, size: int) -> None:
        self.detail = detail
        self.size = size
        super().__init__(f"{detail} ({size} bytes)")


class EmbeddedServerError(AwbEnvError):
    """The embedded server cannot be started: node or the workbench checkout is missing, or it failed to start."""

    def __init__(self, message: str, value: str | None = None) -> None:
        self.value = value
        super().__init__(message)


class ConfigError(AwbEnvError, ValueError):
    """A keyword argument awb_env refuses before anything is sent (a bad observation or action space choice)."""

    def __init__(self, field: str, value: Any, expected: str) -> None:
        self.field = field
        self.value = value
        super().__init__(f"{field}={value!r}: expected {expected}")


class EnvRequestError(AwbEnvError):
    """The server answered a request with an error result: ``name`` and ``message`` as the server sent them.

    ``op`` is the request's operation and ``fields`` the request as sent (the bad value is in it and, named, in the
    message).
    """

    server_name = ""

    def __init__(self, name: str, message: str, op: str, fields: dict[str, Any] | None = None) -> None:
        self.name = name
        self.message = message
        self.op = op
        self.fields = fields or {}
        super().__init__(f"{name} ({op}): {message}")


# One class per error name of docs/env-protocol.md's table; unknown names stay EnvRequestError.
class ProtocolError(EnvRequestError):
    server_name = "ProtocolError"


class UnknownTemplateError(EnvRequestError):
    server_name = "UnknownTemplateError"


class GivenParamsError(EnvRequestError):
    server_name = "GivenParamsError"


class SplitError(EnvRequestError):
    server_name = "SplitError"


class SeedError(EnvRequestError):
    server_name = "SeedError"


class DeviceNotFoundError(EnvRequestError):
    server_name = "DeviceNotFoundError"


class DevicesBusyError(EnvRequestError):
    server_name = "DevicesBusyError"


class DeviceBusyError(EnvRequestError):
    server_name = "DeviceBusyError"


class SessionNotFoundError(EnvRequestError):
    server_name = "SessionNotFoundError"


class SessionBusyError(EnvRequestError):
    server_name = "SessionBusyError"


class EpisodeNotStartedError(EnvRequestError):
    server_name = "EpisodeNotStartedError"


class EpisodeEndedError(EnvRequestError):
    server_name = "EpisodeEndedError"


class RewardConfigError(EnvRequestError):
    server_name = "RewardConfigError"


class RewardUnavailableError(EnvRequestError):
    server_name = "RewardUnavailableError"


class ObservationSpecError(EnvRequestError):
    server_name = "ObservationSpecError"


class DeviceFailedError(EnvRequestError):
    """The server's ``EnvironmentError``: the device failed (the session lives on). Named apart from Python's own
    EnvironmentError (an alias of OSError)."""

    server_name = "EnvironmentError"


_BY_NAME: dict[str, type[EnvRequestError]] = {
    cls.server_name: cls
    for cls in (
        ProtocolError, UnknownTemplateError, GivenParamsError, SplitError, SeedError, DeviceNotFoundError,
        DevicesBusyError, DeviceBusyError, SessionNotFoundError, SessionBusyError, EpisodeNotStartedError,
        EpisodeEndedError, RewardConfigError, RewardUnavailableError, ObservationSpecError, DeviceFailedError,
    )
}


def request_error(name: str, message: str, op: str, fields: dict[str, Any] | None = None) -> EnvRequestError:
    """The exception for a server error result: the class named after ``name``, else EnvRequestError."""
    return _BY_NAME.get(name, EnvRequestError)(name, message, op, fields)
