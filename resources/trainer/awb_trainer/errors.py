"""Named errors. An ApiError becomes the protocol's error body: {"error": {"code", "message", "field"?}}."""

from __future__ import annotations

from typing import Literal, Optional

ErrorCode = Literal[
    "unauthorized", "not_found", "bad_request", "conflict", "checksum_mismatch", "unsupported_kind", "unprocessable", "internal",
    "quota_exceeded",
]

_STATUS: dict[str, int] = {
    "unauthorized": 401,
    "not_found": 404,
    "bad_request": 400,
    "conflict": 409,
    "checksum_mismatch": 422,
    "unsupported_kind": 422,
    "unprocessable": 422,  # a well-formed submission naming something unusable (config.resumeFrom)
    "internal": 500,
    "quota_exceeded": 507,  # Insufficient Storage: the workdir's uploads would pass --upload-quota-gib
}


class ApiError(Exception):
    """An error the HTTP layer answers with; `headers` are added to the response (e.g. Upload-Offset on a 409)."""

    def __init__(self, code: ErrorCode, message: str, field: Optional[str] = None, headers: Optional[dict[str, str]] = None,
                 status: Optional[int] = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers or {}
        self._status = status  # an HTTP status other than the code's own (416 for a bad Range)

    @property
    def status(self) -> int:
        return self._status or _STATUS[self.code]

    def body(self) -> dict:
        err: dict = {"code": self.code, "message": self.message}
        if self.field is not None:
            err["field"] = self.field
        return {"error": err}


class BundleError(Exception):
    """A dataset bundle that cannot be trained on; the message names the member and the bad value."""

    def __init__(self, member: str, problem: str):
        super().__init__(f"bundle {member}: {problem}")
        self.member = member
        self.problem = problem


class ConfigError(Exception):
    """A job config field that is missing or out of range; `field` is its dotted path (config.learningRate)."""

    def __init__(self, field: str, problem: str, value: object = None):
        super().__init__(f"{field}: {problem}, got {value!r}")
        self.field = field
        self.value = value


class JobCancelled(Exception):
    """Raised at a step boundary when the job's cancel marker exists."""


class CheckpointFormatError(Exception):
    """A checkpoint file whose format, version, shape or parameters are wrong."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"bad checkpoint {where}: {problem}")
        self.where = where
