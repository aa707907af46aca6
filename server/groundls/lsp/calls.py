"""One command call of the language server: its folders, how far they are indexed, and the folder a URI names."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from groundls.lsp.args import ArgError
from groundls.lsp.folder_set import Folders
from groundls.lsp.folders import Folder


class NotFound(LookupError):
    """A well-formed id that is not in any index (seed 003's 404)."""


@dataclass
class Call:
    """What a running command may use besides its arguments."""

    folders: Folders
    cancel: threading.Event = field(default_factory=threading.Event)
    #: Streams a progress message (ask: the answer text so far) to the request's work-done token.
    report: Callable[[str], None] = lambda message: None
    default_k: int = 10


def _indexing_note(folders: list[Folder]) -> dict[str, Any]:
    busy = [f for f in folders if f.indexing]
    out: dict[str, Any] = {"indexing": bool(busy)}
    notes = []
    if busy:
        notes.append(
            "; ".join(f.progress_message() for f in busy)
            + " - results come from what is indexed so far."
        )
    notes += [f"{f.name} has no index: {f.last_error}" for f in folders if f.state == "error"]
    deep = [f.deep_message() for f in folders if f.deep_message()]
    if deep:
        out["deepTierFilling"] = True
        notes.append("; ".join(deep) + " - search uses the vectors ready so far.")
    if notes:
        out["message"] = " ".join(notes)
    return out


def _ready(folders: list[Folder], wait_s: float = 0.0) -> list[Folder]:
    """Folders whose workspace is open (optionally waiting a little for ones still opening)."""
    deadline = time.monotonic() + wait_s
    for folder in folders:
        folder.opened.wait(max(0.0, deadline - time.monotonic()))
    return [f for f in folders if f.workspace is not None]


def _ready_or_fail(folders: list[Folder], wait_s: float = 2.0) -> list[Folder]:
    """Like :func:`_ready`, but an error when no index can be opened at all."""
    ready = _ready(folders, wait_s)
    broken = [f for f in folders if f.state == "error"]
    if not ready and broken:
        raise RuntimeError(
            "no index is available: " + "; ".join(f"{f.name}: {f.last_error}" for f in broken)
        )
    return ready


def _all_folders(call: Call) -> list[Folder]:
    folders = call.folders.all()
    if not folders:
        raise ArgError("no workspace folder is open: open a folder (or set rootUri) first")
    return folders


def _folder_of(call: Call, command: str, uri: str) -> tuple[Folder, str]:
    located = call.folders.for_uri(uri)
    if located is None:
        raise ArgError(f'{command}: "uri" {uri!r} is not inside an open workspace folder')
    return located
