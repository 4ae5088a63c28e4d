"""Which API keys a job may send when it publishes (config.publish.apiKeyEnv), and where.

config.publish.apiKeyEnv names an environment variable of the trainer's machine whose value goes, as a bearer token,
to config.publish.baseUrl, which the submitter chooses. Without a list, any variable (a cloud credential, the hub
token) could be sent to any URL. So the operator lists the variables the jobs may use, each optionally bound to the
one origin it may go to: `serve --publish-key VLLM_API_KEY=http://gpu:8000` (repeatable). The service passes the list
to its jobs as AWB_PUBLISH_KEYS (JSON {"VAR": "origin" | null}); `run` on its own (a Ray cluster) reads it from there.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from typing import Optional

from .errors import ConfigError

ENV = "AWB_PUBLISH_KEYS"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class PublishKeyArgError(ValueError):
    """A --publish-key value that is not VAR or VAR=URL."""


def origin(url: str) -> Optional[str]:
    """scheme://host:port of an http(s) URL (default port filled in, lowercase), or None if it is not one."""
    try:
        u = urllib.parse.urlsplit(url.strip())
        port = u.port
    except ValueError:
        return None
    if u.scheme not in _DEFAULT_PORTS or not u.hostname:
        return None
    return f"{u.scheme}://{u.hostname.lower()}:{port or _DEFAULT_PORTS[u.scheme]}"


def parse_publish_keys(values: list[str]) -> dict[str, Optional[str]]:
    """--publish-key VAR[=URL] values → {VAR: origin or None (any URL)}."""
    out: dict[str, Optional[str]] = {}
    for v in values:
        name, sep, url = v.partition("=")
        if not _NAME.match(name):
            raise PublishKeyArgError(f"--publish-key {v!r}: {name!r} is not an environment variable name")
        where = origin(url) if sep else None
        if sep and where is None:
            raise PublishKeyArgError(f"--publish-key {v!r}: {url!r} is not an http(s) URL")
        out[name] = where
    return out


def allowed_from_env(env: Optional[dict] = None) -> dict[str, Optional[str]]:
    """The list a job received from its service (or its operator); empty when none was given."""
    raw = (env if env is not None else os.environ).get(ENV)
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {k: v for k, v in parsed.items() if isinstance(k, str) and (v is None or isinstance(v, str))}


def check_publish_key(publish: Optional[dict], allowed: dict[str, Optional[str]]) -> None:
    """Refuses a config.publish whose apiKeyEnv the operator did not list, or whose baseUrl is not that key's origin."""
    if not publish or not publish.get("apiKeyEnv"):
        return
    var = publish["apiKeyEnv"]
    if var not in allowed:
        listed = f" (it allows {', '.join(sorted(allowed))})" if allowed else " (it was started with none)"
        raise ConfigError("config.publish.apiKeyEnv",
                          f"names a variable this trainer was not started with --publish-key for{listed}", var)
    where = allowed[var]
    if where is not None and origin(publish["baseUrl"]) != where:
        raise ConfigError("config.publish.baseUrl", f"is not where ${var} may be sent ({where})", publish["baseUrl"])
