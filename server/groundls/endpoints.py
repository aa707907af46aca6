"""Model servers over HTTP: where an endpoint is, and whether workspace content may go there.

Content leaves the machine only when the user opted in: a loopback endpoint (``localhost``,
127.0.0.0/8, ``::1``) needs nothing more, any other host needs the matching ``allowRemote``
setting. Every face shows the host content is sent to (:func:`describe`).
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any
from urllib.parse import urlsplit

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


class EndpointRefused(ValueError):
    """An endpoint that is malformed, or remote without the user's opt-in; the message says which
    setting to change."""


def host_of(base_url: str) -> str:
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointRefused(f"{base_url!r} is not an http(s) URL")
    return parts.hostname


def is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check(base_url: str, allow_remote: bool, setting: str) -> str:
    """The endpoint's host, or :class:`EndpointRefused` when ``setting`` (e.g. ``answer``) points
    at another machine and its ``allowRemote`` is off."""
    if not base_url.strip():
        raise EndpointRefused(f"{setting}.baseUrl is not set")
    host = host_of(base_url)
    if not is_loopback(host) and not allow_remote:
        raise EndpointRefused(
            f"{setting}.baseUrl points at {host}, another machine: workspace content would be sent "
            f"there. Set {setting}.allowRemote to true to allow it, or use a server on this machine."
        )
    return host


def describe(host: str) -> str:
    """How a face names where content goes: "" for this machine."""
    return "" if is_loopback(host) else f"workspace content is sent to {host}"


def client(
    setting: str,
    base_url: str,
    model: str,
    *,
    allow_remote: bool,
    api_key_env: str,
    timeout_s: float,
    connect_timeout_s: float,
    retries: int,
) -> tuple[Any, str]:
    """The official ``openai`` client for a model server, and the server's host (for
    :func:`describe`). :class:`EndpointRefused` says what to do when the client is not
    installed, ``{setting}.model`` is unset or content would leave without opt-in. The key is
    read from the environment variable ``api_key_env`` names, never stored."""
    try:
        import openai
    except ImportError:
        raise EndpointRefused(
            f'{setting} needs the openai client: pip install "groundls[served]"'
        ) from None
    if not model:
        raise EndpointRefused(f"{setting}.model is not set (the name the endpoint serves)")
    host = check(base_url, allow_remote, setting)
    key = os.environ.get(api_key_env, "") if api_key_env else ""
    made = openai.OpenAI(
        base_url=base_url.rstrip("/"),
        api_key=key or "not-needed",
        timeout=openai.Timeout(timeout_s, connect=connect_timeout_s),
        max_retries=max(0, retries),
    )
    return made, host
