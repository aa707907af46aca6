"""Workspace folders for the language server: one workspace per folder, indexed by one worker thread.

Every index write for a folder goes through its worker, so jobs never overlap: the first full
index, full re-indexes, and debounced batches of changed paths (saves, watched-file events).
A batch re-reads the files when it runs, so the last state on disk always wins.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from groundls.config import Config
from groundls.lsp.jobs import JobSink, _NullSink, _Pending
from groundls.results import IndexProgress, IndexReport

if TYPE_CHECKING:
    from groundls.workspace import Workspace

log = logging.getLogger("groundls.lsp.folders")

#: Quiet period before a burst of file events is indexed.
DEBOUNCE_S = 0.3
#: Deep-tier chunks embedded between two looks at the job queue (a few seconds of MiniLM).
DEEP_SLICE = 32
#: While something more urgent runs (an answer being written), the deep tier waits this long
#: before it looks again.
DEEP_WAIT_S = 0.5


SinkFactory = Callable[["Folder", Any], JobSink]
WorkspaceOpener = Callable[[Path, Config], "Workspace"]


def uri_to_path(uri: str) -> Path | None:
    """A ``file:`` URI as an absolute path (not resolved); None for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":" and path[1].isalpha():
        path = path[1:]  # file:///C:/x -> C:/x
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    return Path(path)


class Folder:
    """One workspace folder: its workspace, its indexing worker and what it last reported."""

    def __init__(
        self,
        name: str,
        uri: str,
        root: Path,
        config: Config,
        open_workspace: WorkspaceOpener,
        make_sink: SinkFactory | None = None,
        busy_elsewhere: Callable[[], bool] | None = None,
    ) -> None:
        self.name = name
        self.uri = uri
        self.root = root
        self.config = config
        self.workspace: Workspace | None = None
        self.state = "opening"  # opening | indexing | ready | error | stopped
        self.progress: IndexProgress | None = None
        self.last_report: IndexReport | None = None
        self.last_error: str | None = None
        self.opened = threading.Event()
        self._open_workspace = open_workspace
        self._make_sink = make_sink or (lambda folder, token: _NullSink())
        #: true while the machine's cores are wanted elsewhere: the deep tier waits
        self._busy_elsewhere = busy_elsewhere or (lambda: False)
        self._cond = threading.Condition()
        self._pending = _Pending()
        self._stop = False
        self._dead = False
        self._cancel = threading.Event()
        #: the deep tier may lack vectors: fill it, a slice at a time, whenever no job waits
        self._deep_due = False
        self._deep_sink: JobSink | None = None
        #: (filled, wanted) while the deep tier fills: counted once, then advanced per slice
        self._deep_counts = (0, 0)
        #: counts the index jobs done: what was read from the index before a change is stale
        self.generation = 0
        self._thread = threading.Thread(
            target=self._run, name=f"groundls-index:{name}", daemon=True
        )

    # -- requests -------------------------------------------------------------------------

    def start(self) -> None:
        """Open the workspace and run the first full index in the background."""
        self.request_full()
        self._thread.start()

    def request_full(self, token: Any = None, reopen: bool = False) -> Future[IndexReport]:
        """Queue a full index (coalesced with one already queued)."""
        fut: Future[IndexReport] = Future()
        with self._cond:
            if self._stop or self._dead:
                fut.set_exception(RuntimeError(self._unavailable()))
                return fut
            self._pending.full = True
            self._pending.reopen = self._pending.reopen or reopen
            if token is not None:
                self._pending.full_token = token
            self._pending.full_waiters.append(fut)
            self._cond.notify_all()
        return fut

    def request_paths(self, rel_paths: list[str], urgent: bool = False) -> Future[IndexReport]:
        """Queue files for re-indexing; bursts are merged and run after a quiet period."""
        fut: Future[IndexReport] = Future()
        with self._cond:
            if self._stop or self._dead:
                fut.set_exception(RuntimeError(self._unavailable()))
                return fut
            self._pending.paths.update(rel_paths)
            self._pending.path_waiters.append(fut)
            self._pending.last_event = time.monotonic()
            self._pending.urgent = self._pending.urgent or urgent
            self._cond.notify_all()
        return fut

    def reconfigure(self, config: Config, reindex: bool) -> None:
        """Take new settings; when they change the index, re-open the workspace and re-index."""
        self.config = config
        if reindex:
            self.request_full(reopen=True)
        elif self.workspace is not None:
            self.workspace.reconfigure(config)

    def cancel_current(self) -> None:
        """Cancel the job that is running now (a full index stops at the next file)."""
        self._cancel.set()

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop the worker, cancel its job, close the workspace; True when the thread ended."""
        with self._cond:
            self._stop = True
            self._cancel.set()
            self._cond.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        ended = not self._thread.is_alive()
        if ended:
            self._close_workspace()
        self.state = "stopped"
        return ended

    # -- queries --------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._thread.ident is not None

    @property
    def indexing(self) -> bool:
        return self.state in ("opening", "indexing")

    def progress_message(self) -> str:
        """One line for responses made while indexing is still running."""
        if self.state == "opening":
            return f"{self.name}: opening the index"
        p = self.progress
        if p is None or not p.total_files:
            return f"{self.name}: indexing in progress"
        return f"{self.name}: indexing in progress ({p.done_files} of {p.total_files} files)"

    def rel_path(self, path: Path) -> str | None:
        """Workspace-relative POSIX path of ``path``, or None when it is outside this folder.

        ``..`` and symlinks are resolved first: a path that leads out is outside, however it
        is spelled."""
        try:
            real = path.resolve()
        except (OSError, RuntimeError, ValueError):
            real = Path(os.path.normpath(path))
        try:
            rel = real.relative_to(self.root)
        except ValueError:
            return None
        if ".." in rel.parts:
            return None
        text = rel.as_posix()
        return "" if text == "." else text

    def uri_for(self, rel_path: str) -> str:
        return (self.root / rel_path).as_uri()

    # -- worker ---------------------------------------------------------------------------

    def _unavailable(self) -> str:
        if self.last_error and self.state == "error":
            return f"folder {self.name} has no index ({self.last_error})"
        return f"folder {self.name} is shut down"

    def _run(self) -> None:
        try:
            self._open()
        except Exception as exc:  # noqa: BLE001 - reported to the user, the thread ends
            with self._cond:
                self._dead = True
            self._fail_all(exc)
            return
        while True:
            job = self._next_job()
            if job is None:
                break
            kind, payload, waiters = job
            if kind == "deep":
                self._fill_deep()
                continue
            try:
                run = self._full_index if kind == "full" else self._index_paths
                report = run(payload)
                self.generation += 1
                self._deep_due = True
            except Exception as exc:  # noqa: BLE001 - one failed job must not kill the folder
                log.exception("%s: indexing failed", self.name)
                self.last_error = f"{type(exc).__name__}: {exc}"
                self.state = "ready" if self.workspace is not None else "error"
                for fut in waiters:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            for fut in waiters:
                if not fut.done():
                    fut.set_result(report)
        with self._cond:
            self._dead = True
        self._fail_all(RuntimeError(f"folder {self.name} is shut down"))

    def _open(self) -> None:
        self.state = "opening"
        try:
            self.workspace = self._open_workspace(self.root, self.config)
        except Exception as exc:
            self.state = "error"
            self.last_error = f"cannot open the index: {type(exc).__name__}: {exc}"
            log.error("%s: %s", self.name, self.last_error)
            raise
        finally:
            self.opened.set()
        self.state = "ready"

    def _fail_all(self, exc: BaseException) -> None:
        with self._cond:
            waiters = self._pending.full_waiters + self._pending.path_waiters
            self._pending = _Pending()
        for fut in waiters:
            if not fut.done():
                fut.set_exception(exc)

    def _next_job(self) -> tuple[str, Any, list[Future[IndexReport]]] | None:
        with self._cond:
            while True:
                if self._stop:
                    return None
                pending = self._pending
                if pending.full:
                    self._pending = _Pending()
                    # Paths queued before a full run are covered by it; later events queue anew.
                    self._cancel = threading.Event()
                    self.state = "indexing"
                    return (
                        "full",
                        (pending.full_token, pending.reopen),
                        pending.full_waiters + pending.path_waiters,
                    )
                if pending.paths:
                    wait = pending.last_event + DEBOUNCE_S - time.monotonic()
                    if wait > 0 and not pending.urgent:
                        self._cond.wait(wait)
                        continue
                    paths = sorted(pending.paths)
                    waiters = pending.path_waiters
                    self._pending = _Pending()
                    self._cancel = threading.Event()
                    return ("paths", paths, waiters)
                if self._deep_due and self.workspace is not None:
                    if self._busy_elsewhere():
                        self._cond.wait(DEEP_WAIT_S)
                        continue
                    return ("deep", None, [])
                self._cond.wait()

    def _full_index(self, payload: tuple[Any, bool]) -> IndexReport:
        token, reopen = payload
        if reopen:
            self._close_workspace()
            self._open()
            self.state = "indexing"
        assert self.workspace is not None
        sink = self._make_sink(self, token)
        sink.begin(f"groundls: indexing {self.name}")
        self.progress = IndexProgress(done_files=0, total_files=0)
        self.last_error = None
        report: IndexReport | None = None
        try:
            ticks = 0

            def on_progress(p: IndexProgress) -> None:
                # One callback per finished file; the workspace's done_files can lag behind while
                # a batch is flushed, so the count of callbacks is the better "done".
                nonlocal ticks
                ticks += 1
                done = max(p.done_files, min(ticks, p.total_files))
                if done != p.done_files:
                    p = IndexProgress(done, p.total_files, p.current_path, p.chunks, p.embedded)
                self.progress = p
                sink.report(p)

            report = self.workspace.index(progress=on_progress, cancel=self._cancel)
            self.last_report = report
            if report.errors:
                self.last_error = report.errors[-1]
            if not report.cancelled:
                try:
                    self.workspace.warm()  # so the first hover does not wait for models or copies
                except Exception as exc:  # noqa: BLE001 - search will report it if it persists
                    log.warning("%s: warming up the search failed: %s", self.name, exc)
            return report
        finally:
            self.state = "ready"
            sink.end(report.summary if report is not None else "indexing failed")

    def _fill_deep(self) -> None:
        """One slice of the deep tier (MiniLM vectors the fast index left out), reported as its
        own progress; the worker takes queued index jobs between slices."""
        assert self.workspace is not None
        try:
            if self._deep_sink is None:
                self._deep_counts = self.workspace.deep_status()
                if self._deep_counts[0] >= self._deep_counts[1]:
                    self._deep_due = False
                    return
                self._deep_sink = self._make_sink(self, None)
                self._deep_sink.begin(f"groundls: deep tier for {self.name}", job="deep")
            embedded = self.workspace.fill_deep(max_chunks=DEEP_SLICE, cancel=self._cancel)
            if embedded:
                filled, wanted = self._deep_counts
                self._deep_counts = (min(wanted, filled + embedded), wanted)
            else:  # the last word is counted again (saves may have changed what is wanted)
                self._deep_counts = self.workspace.deep_status()
            filled, wanted = self._deep_counts
        except Exception as exc:  # noqa: BLE001 - search works without the deep tier
            log.warning("%s: filling the deep tier failed: %s", self.name, exc)
            self._deep_due = False
            embedded, filled, wanted = 0, 0, 0
        if self._deep_sink is None:
            return
        self._deep_sink.report(IndexProgress(filled, wanted, unit="chunks"))
        if embedded == 0:  # complete, or cancelled (the next index job starts it again)
            self._deep_due = False
            state = "ready" if filled >= wanted else "paused"
            self._deep_sink.end(f"deep tier {state}: {filled} of {wanted} chunks")
            self._deep_sink = None

    def deep_message(self) -> str:
        """What the deep tier is doing, for status: "" when it is not filling."""
        return f"{self.name}: deep tier filling in the background" if self._deep_due else ""

    def _index_paths(self, paths: list[str]) -> IndexReport:
        assert self.workspace is not None
        started = time.perf_counter()
        report = self.workspace.index_paths(paths)
        log.info(
            "%s: re-indexed %d file(s) in %.0f ms: %s",
            self.name,
            len(paths),
            (time.perf_counter() - started) * 1000,
            ", ".join(paths[:5]) + (" ..." if len(paths) > 5 else ""),
        )
        if report.errors:
            self.last_error = report.errors[-1]
        return report

    def _close_workspace(self) -> None:
        workspace, self.workspace = self.workspace, None
        if workspace is not None:
            try:
                workspace.close()
            except Exception:  # noqa: BLE001 - closing must not raise during shutdown
                log.exception("%s: closing the index failed", self.name)
