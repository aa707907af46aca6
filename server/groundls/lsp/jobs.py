"""What a folder's worker does with its jobs: the sink it reports progress to, and the work waiting for it."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

from groundls.results import IndexProgress, IndexReport


class JobSink(Protocol):
    """Where a folder reports one indexing job (the server maps it to ``$/progress``)."""

    def begin(self, title: str, job: str = "index") -> None:
        """``job``: "index", or "deep" for the deep tier (its own progress token)."""

    def report(self, progress: IndexProgress) -> None: ...

    def end(self, message: str) -> None: ...


class _NullSink:
    def begin(self, title: str, job: str = "index") -> None:
        pass

    def report(self, progress: IndexProgress) -> None:
        pass

    def end(self, message: str) -> None:
        pass


@dataclass
class _Pending:
    full: bool = False
    reopen: bool = False
    full_token: Any = None
    full_waiters: list[Future[IndexReport]] = field(default_factory=list)
    paths: set[str] = field(default_factory=set)
    path_waiters: list[Future[IndexReport]] = field(default_factory=list)
    last_event: float = 0.0
    urgent: bool = False
