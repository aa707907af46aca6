"""What the server tells the client about itself never names the machine.

Messages shown or logged to the client, and error responses, pass through :func:`redact`: a path
inside a workspace folder becomes workspace-relative, any other absolute path (the install,
Python, the index directory, whatever a client asked about) becomes ``<path>``. Error ``data``
loses pygls' ``traceback``; tracebacks go to the server's own stderr log only. Results (hits,
answers, file URIs) are not touched: their paths are the workspace's by construction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

#: An absolute path of two or more components (POSIX, ``file:`` URI or a Windows drive).
_PATH = re.compile(
    r"(?:file://[^\s'\"`<>]*)"
    r"|(?<![\w.~/-])(?:/[^\s/'\"`<>:,;()\[\]{}|]+){2,}/?"
    r"|\b[A-Za-z]:\\(?:[^\s\\'\"`<>:|]+\\?)+"
)


def _relative(path: str, roots: list[str]) -> str | None:
    for root in roots:
        if path == root:
            return "."
        if path.startswith(root + "/"):
            return path[len(root) + 1 :]
    return None


def redact(text: str, roots: Iterable[Path | str]) -> str:
    """``text`` with absolute paths made workspace-relative or replaced by ``<path>``."""
    if "/" not in text and "\\" not in text:
        return text
    posix_roots = sorted({str(r).rstrip("/") for r in roots if str(r)}, key=len, reverse=True)

    def one(match: re.Match[str]) -> str:
        found = match.group(0)
        path = unquote(found[len("file://") :]) if found.startswith("file://") else found
        if "/.." in path or path.startswith(".."):
            return "<path>"
        rel = _relative(path.rstrip("/"), posix_roots)
        return rel if rel is not None else "<path>"

    return _PATH.sub(one, text)


def redact_error_data(data: Any, roots: Iterable[Path | str]) -> Any:
    """An error's ``data`` without tracebacks, its strings redacted."""
    roots = list(roots)
    if isinstance(data, dict):
        return {
            k: redact_error_data(v, roots)
            for k, v in data.items()
            if k not in ("traceback", "stack", "exc_info")
        } or None
    if isinstance(data, list):
        return [redact_error_data(v, roots) for v in data]
    if isinstance(data, str):
        return redact(data, roots)
    return data
