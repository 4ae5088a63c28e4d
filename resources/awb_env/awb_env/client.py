"""A client of the workbench's environment protocol (docs/env-protocol.md), over one WebSocket.

:class:`EnvClient` says hello, sends requests with ids and matches the responses to them, so requests for several
sessions can be in flight at once on one connection (``send`` now, ``wait`` later: the vector environment steps all
its sessions this way). :class:`Session` is one session of it: ``reset``, ``step``, ``observe``, ``close``.

    with EnvClient(url) as client:
        session = client.create({"template": "ContactsAddContact", "seed": 7}, agent="my-agent")
        first = session.reset()
        result = session.step({"action_type": "navigate_home"})
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import ClientConnection, connect

from . import __version__
from .errors import (
    EnvRequestError,
    ProtocolError,
    ProtocolMismatchError,
    ServerGoneError,
    request_error,
    url_without_token,
)
from .observation import PngMode, decode_observation
from .server import ServerLease
from .wire import decode_frame, encode_request

log = logging.getLogger("awb_env")

PROTOCOL = 1


@dataclass
class ResetResult:
    """The first observation of an episode and its info (``episode_id``, ``template``, ``seed``, ``goal``, …)."""

    observation: dict[str, Any]
    info: dict[str, Any]


@dataclass
class StepResult:
    """One step's result. ``observation`` is None only when the device failed at the episode's end."""

    observation: dict[str, Any] | None
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated


class Pending:
    """A request in flight: ``result()`` waits for its response (other responses that arrive meanwhile are kept)."""

    def __init__(self, client: EnvClient, request_id: int, convert: Callable[[dict[str, Any]], Any]) -> None:
        self.client = client
        self.request_id = request_id
        self._convert = convert

    def result(self, timeout: float | None = None) -> Any:
        return self._convert(self.client.wait(self.request_id, timeout))


class EnvClient:
    """One connection to an environment server. Thread-safe: any thread may send and wait."""

    def __init__(
        self,
        url: str,
        *,
        client: str = f"awb_env/{__version__}",
        open_timeout: float = 30.0,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.url = url
        self.display_url = url_without_token(url)
        self._on_event = on_event
        self._ids = itertools.count(1)
        self._send_lock = threading.Lock()
        self._cond = threading.Condition()
        self._results: dict[int, dict[str, Any]] = {}
        self._requests: dict[int, tuple[str, dict[str, Any]]] = {}
        self._receiving = False
        self._gone: ServerGoneError | None = None
        loopback = "://127.0.0.1" in url or "://localhost" in url or "://[::1]" in url
        try:
            # No permessage-deflate (screenshots are PNG or raw pixels: deflating them costs more than it saves on
            # loopback), no size limit (a full-size raw screenshot is 7.8 MB), no proxy for loopback.
            self._ws: ClientConnection = connect(
                url, open_timeout=open_timeout, max_size=None, compression=None, legacy=True,
                **({"proxy": None} if loopback else {}),
            )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as e:
            raise ServerGoneError(url, f"cannot connect ({type(e).__name__}: {e})") from e
        try:
            self.hello: dict[str, Any] = self.request("hello", protocol=PROTOCOL, client=client)
        except ProtocolError as e:
            self._ws.close()
            raise ProtocolMismatchError(url, PROTOCOL, e.message) from e
        if self.hello.get("protocol") != PROTOCOL:
            self._ws.close()
            raise ProtocolMismatchError(url, PROTOCOL, f"its hello says protocol {self.hello.get('protocol')!r}")

    # --- requests ---

    def send(self, op: str, **fields: Any) -> int:
        """Sends a request and returns its id without waiting (``wait(id)`` gets the result)."""
        with self._cond:
            if self._gone:
                raise self._gone
        request_id = next(self._ids)
        frame = encode_request({"id": request_id, "op": op, **fields})
        with self._cond:
            self._requests[request_id] = (op, fields)
        try:
            with self._send_lock:
                self._ws.send(frame)
        except ConnectionClosed as e:
            raise self._went(f"closed while sending {op} ({e})") from e
        return request_id

    def wait(self, request_id: int, timeout: float | None = None) -> dict[str, Any]:
        """The result of request ``request_id``; its error result raised as an EnvRequestError."""
        deadline = None if timeout is None else time.monotonic() + timeout

        def remaining() -> float | None:
            if deadline is None:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no response to request {request_id} within {timeout} s")
            return left

        while True:
            # One thread reads the socket at a time; the others wait for it to hand them their responses.
            with self._cond:
                while True:
                    msg = self._results.pop(request_id, None)
                    if msg is not None:
                        return self._answer(request_id, msg)
                    if self._gone:
                        raise self._gone
                    if not self._receiving:
                        self._receiving = True
                        break
                    self._cond.wait(remaining())
            try:
                frame = self._ws.recv(remaining())
            except TimeoutError:
                with self._cond:
                    self._receiving = False
                    self._cond.notify_all()
                raise TimeoutError(f"no response to request {request_id} within {timeout} s") from None
            except BaseException as e:
                with self._cond:
                    self._receiving = False
                    self._cond.notify_all()
                if isinstance(e, ConnectionClosed):
                    raise self._went(f"the connection closed ({e})") from e
                raise
            with self._cond:
                self._receiving = False
                try:
                    self._deliver(frame)
                finally:
                    self._cond.notify_all()

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        return self.wait(self.send(op, **fields))

    def _answer(self, request_id: int, msg: dict[str, Any]) -> dict[str, Any]:
        op, fields = self._requests.pop(request_id, ("?", {}))
        if msg.get("ok"):
            return msg.get("result") or {}
        err = msg.get("error") or {}
        raise request_error(str(err.get("name", "EnvRequestError")), str(err.get("message", "")), op, fields)

    def _deliver(self, frame: str | bytes) -> None:
        msg = decode_frame(frame)
        if not isinstance(msg, dict):
            log.warning("awb_env: ignored a frame that is not a JSON object from %s", self.display_url)
            return
        request_id = msg.get("id")
        if isinstance(request_id, int):
            self._results[request_id] = msg
        elif "event" in msg:
            self._event(msg)
        elif msg.get("ok") is False:
            log.warning("awb_env: %s refused a frame: %s", self.display_url, msg.get("error"))

    def _event(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "held":
            log.info("awb_env: session %s is held in the workbench (%s)", event.get("session"), event.get("reason"))
        elif kind == "released":
            log.info("awb_env: session %s goes on", event.get("session"))
        if self._on_event:
            self._on_event(event)

    def _went(self, detail: str) -> ServerGoneError:
        with self._cond:
            if not self._gone:
                self._gone = ServerGoneError(self.url, detail)
            self._cond.notify_all()
            return self._gone

    # --- operations ---

    def tasks(self) -> dict[str, Any]:
        """Every template and each split part's instances (docs/env-protocol.md, ``tasks``)."""
        return self.request("tasks")

    def create(self, task: dict[str, Any], *, png: PngMode = "array", **options: Any) -> Session:
        """A session on ``task`` (``{"template", "seed"}``, ``{"template", "params"}`` or ``{"split", "part"}``);
        ``options`` are ``create``'s other fields (device, agent, run, observation, record, rewards, max_steps,
        on_malformed), None values left out."""
        fields = {k: v for k, v in options.items() if v is not None}
        result = self.request("create", task=task, **fields)
        return Session(self, result, png)

    def send_create(self, task: dict[str, Any], *, png: PngMode = "array", **options: Any) -> Pending:
        fields = {k: v for k, v in options.items() if v is not None}
        return Pending(self, self.send("create", task=task, **fields), lambda r: Session(self, r, png))

    @property
    def closed(self) -> bool:
        return self._gone is not None

    def close(self) -> None:
        """Closes the connection; the server closes this connection's sessions (unfinished episodes: aborted)."""
        with self._cond:
            if not self._gone:
                self._gone = ServerGoneError(self.url, "this client closed the connection")
            self._cond.notify_all()
        self._ws.close()

    def __enter__(self) -> EnvClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def step_fields(
    action: Any = None,
    *,
    json_action: Any = None,
    reply: str | None = None,
    format: str | None = None,
    coordinates: str | None = None,
    image: tuple[int, int] | list[int] | None = None,
    min_pixels: int | None = None,
    max_pixels: int | None = None,
    thought: str | None = None,
    prompt: Any = None,
) -> dict[str, Any]:
    """A ``step`` request's fields, None left out (docs/env-protocol.md, ``step``)."""
    fields = {
        "action": action, "json_action": json_action, "reply": reply, "format": format, "coordinates": coordinates,
        "image": list(image) if image is not None else None, "min_pixels": min_pixels, "max_pixels": max_pixels,
        "thought": thought, "prompt": prompt,
    }
    return {k: v for k, v in fields.items() if v is not None}


class Session:
    """One session: a device, a task source, one episode at a time (docs/env-protocol.md)."""

    def __init__(self, client: EnvClient, created: dict[str, Any], png: PngMode = "array") -> None:
        self.client = client
        self.id: str = created["session"]
        self.device: dict[str, Any] = created["device"]
        self.run: dict[str, Any] = created["run"]
        self.png = png
        self.closed = False

    def _reset_result(self, r: dict[str, Any]) -> ResetResult:
        return ResetResult(decode_observation(r["observation"], self.png) or {}, r.get("info") or {})

    def _step_result(self, r: dict[str, Any]) -> StepResult:
        return StepResult(
            decode_observation(r.get("observation"), self.png), float(r.get("reward") or 0.0),
            bool(r.get("terminated")), bool(r.get("truncated")), r.get("info") or {},
        )

    def send_reset(self, seed: int | None = None, task: dict[str, Any] | None = None) -> Pending:
        fields: dict[str, Any] = {"session": self.id}
        if seed is not None:
            fields["seed"] = seed
        if task is not None:
            fields["task"] = task
        return Pending(self.client, self.client.send("reset", **fields), self._reset_result)

    def reset(self, seed: int | None = None, task: dict[str, Any] | None = None) -> ResetResult:
        """Starts the next episode (an unfinished one ends as aborted)."""
        return self.send_reset(seed, task).result()

    def send_step(self, action: Any = None, **fields: Any) -> Pending:
        return Pending(
            self.client, self.client.send("step", session=self.id, **step_fields(action, **fields)), self._step_result,
        )

    def step(self, action: Any = None, **fields: Any) -> StepResult:
        """One action: ``action`` (the workbench's space), or ``json_action=`` (AndroidWorld's JSONAction), or
        ``reply=`` with ``format=`` (a model's raw reply); ``thought=``/``prompt=`` are stored with the step."""
        return self.send_step(action, **fields).result()

    def observe(self) -> dict[str, Any]:
        """The screen now, without acting."""
        r = self.client.request("observe", session=self.id)
        return decode_observation(r["observation"], self.png) or {}

    def close(self) -> int:
        """Ends the session (an unfinished episode: aborted) and frees its device; the number of episodes played."""
        if self.closed:
            return 0
        self.closed = True
        if self.client.closed:
            return 0
        return int(self.client.request("close", session=self.id).get("episodes", 0))


class Connection:
    """A server (the given one, ``AWB_ENV_URL``'s, or the embedded one) and one client of it, let go together: closing
    the connection ends every session it made (``Session.close``: unfinished episodes recorded as aborted, devices
    freed at once), then the client and the server."""

    def __init__(self, server: str | None = None) -> None:
        self.lease = ServerLease(server)
        self.sessions: list[Session] = []
        try:
            self.client = EnvClient(self.lease.url)
        except BaseException:
            self.lease.release()
            raise

    def create(self, task: dict[str, Any], *, png: PngMode = "array", **options: Any) -> Session:
        """A session; should the server refuse it, the connection is closed before the error is raised."""
        try:
            session = self.client.create(task, png=png, **options)
        except BaseException:
            self.close()
            raise
        self.sessions.append(session)
        return session

    def close(self) -> None:
        """Idempotent (as ``Session.close`` and the lease's release are)."""
        try:
            for session in self.sessions:
                session.close()
        finally:
            try:
                self.client.close()
            finally:
                self.lease.release()


__all__ = ["Connection", "EnvClient", "EnvRequestError", "Pending", "ResetResult", "Session", "StepResult", "step_fields"]
