"""Connecting to the served store: the URL checked, errors as one line that never shows it.

A URL names the server, database and user; the password comes from ``PGPASSWORD`` or a
``.pgpass`` file (libpq reads both), never from the URL, which editor settings and shell
histories keep.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from groundls.results import WorkspaceError

#: The environment variable that names the served store when no setting does.
STORE_ENV = "GROUNDLS_STORE"
#: Seconds to wait for the server before saying it cannot be reached.
CONNECT_TIMEOUT_S = 5


class StoreUnavailable(WorkspaceError):
    """The served store cannot be used: no driver, a wrong URL, a refused login, a server gone,
    or a schema or models from another groundls. The message is one line without the URL."""


def store_url(setting: str = "") -> str:
    """The served store's URL: the setting, else ``GROUNDLS_STORE``, else ""."""
    return setting or os.environ.get(STORE_ENV, "")


def check_url(url: str) -> str:
    """``url`` if it is a PostgreSQL URL without a password, else :class:`StoreUnavailable`."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise StoreUnavailable("the store must be a postgresql:// URL")
    if parts.password:
        raise StoreUnavailable(
            "the store URL carries a password: put it in PGPASSWORD or ~/.pgpass instead"
        )
    return url


def describe(url: str) -> str:
    """What status and logs say of a store: its database and user, never host or password."""
    parts = urlsplit(url)
    database = parts.path.lstrip("/") or "postgres"
    return f"postgresql database {database}" + (f" as {parts.username}" if parts.username else "")


def connect(url: str) -> Any:
    """An autocommit connection to the served store, or a one-line :class:`StoreUnavailable`."""
    check_url(url)
    try:
        import psycopg  # the optional extra groundls[team]
    except ImportError:
        raise StoreUnavailable(
            "a served store needs the team extra: pip install 'groundls[team]'"
        ) from None
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as exc:
        raise StoreUnavailable(f"{describe(url)} cannot be reached: {reason(exc)}") from None


def reason(exc: BaseException) -> str:
    """The first line of a driver error, without the connection details libpq puts in it."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    # libpq names the socket or host it tried: keep only what went wrong
    for marker in ('connection to server at "', 'connection to server on socket "'):
        if marker in text:
            text = text.split('" ', 1)[-1] if '" ' in text else "connection failed"
            text = text.split(": ", 1)[-1]
    return text.rstrip(".")
