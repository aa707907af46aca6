"""Work-done progress (``$/progress``) for a request and for an indexing job."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any, Protocol

from lsprotocol import types

from groundls.lsp.folders import Folder
from groundls.results import IndexProgress

log = logging.getLogger("groundls.lsp")

#: Minimum seconds between two ``$/progress`` reports of one indexing job.
REPORT_EVERY_S = 0.2


class ProgressHost(Protocol):
    """What progress needs of the server: send soon on its loop, ask the client for tokens."""

    loop: asyncio.AbstractEventLoop | None
    progress_tokens: dict[Any, Folder]

    @property
    def work_done_progress(self) -> Any: ...

    def call_soon(self, fn: Any, *args: Any) -> None: ...

    def progress(self, params: types.ProgressParams) -> None: ...

    def supports(self, dotted: str) -> bool: ...


class RequestProgress:
    """``$/progress`` on a token the client passed with its request (``workDoneToken``)."""

    def __init__(self, server: ProgressHost, token: Any, title: str) -> None:
        self.server = server
        self.token = token
        self.title = title

    def _notify(self, value: Any) -> None:
        self.server.call_soon(
            self.server.progress, types.ProgressParams(token=self.token, value=value)
        )

    def begin(self) -> None:
        self._notify(types.WorkDoneProgressBegin(title=self.title, cancellable=False))

    def report(self, message: str) -> None:
        self._notify(types.WorkDoneProgressReport(message=message))

    def end(self, message: str) -> None:
        self._notify(types.WorkDoneProgressEnd(message=message))


class IndexProgressSink:
    """Reports one indexing job with ``window/workDoneProgress/create`` + ``$/progress``."""

    def __init__(self, server: ProgressHost, folder: Folder, token: Any) -> None:
        self.server = server
        self.folder = folder
        self.token = token
        self.enabled = token is not None
        self._last = 0.0
        self._last_pct = -1

    def _notify(self, value: Any) -> None:
        self.server.call_soon(
            self.server.progress, types.ProgressParams(token=self.token, value=value)
        )

    def begin(self, title: str, job: str = "index") -> None:
        server = self.server
        if self.token is None and server.supports("window.work_done_progress") and server.loop:
            token = f"groundls/{job}/{self.folder.name}/{uuid.uuid4().hex[:8]}"
            try:
                fut = asyncio.run_coroutine_threadsafe(
                    server.work_done_progress.create_async(token), server.loop
                )
                fut.result(timeout=10)
                self.token = token
                self.enabled = True
            except Exception as exc:  # noqa: BLE001 - progress is optional
                log.info("client refused progress token: %s", exc)
        if not self.enabled:
            log.info("%s", title)
            return
        server.progress_tokens[self.token] = self.folder
        self._notify(
            types.WorkDoneProgressBegin(
                title=title,
                message="scanning files" if job == "index" else "",
                percentage=0,
                cancellable=True,
            )
        )

    def report(self, progress: IndexProgress) -> None:
        if not self.enabled:
            return
        total = max(progress.total_files, 0)
        pct = min(100, round(100 * progress.done_files / total)) if total else 0
        now = time.monotonic()
        last = total > 0 and progress.done_files >= total
        if not last and pct == self._last_pct and now - self._last < REPORT_EVERY_S:
            return
        self._last, self._last_pct = now, pct
        message = f"{progress.done_files} of {total} {progress.unit}"
        if progress.current_path:
            message += f" ({progress.current_path})"
        self._notify(types.WorkDoneProgressReport(message=message, percentage=pct))

    def end(self, message: str) -> None:
        log.info("%s: %s", self.folder.name, message)
        if not self.enabled:
            return
        self.server.progress_tokens.pop(self.token, None)
        self._notify(types.WorkDoneProgressEnd(message=message))
