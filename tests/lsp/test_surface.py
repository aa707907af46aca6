"""A standard surface's request: nothing while its setting is off, nothing rather than an error
when the work fails, else the work's result from the query pool."""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from groundls.lsp.surface import served


@pytest.fixture
def ls():
    with ThreadPoolExecutor(max_workers=1) as pool:
        yield SimpleNamespace(config=SimpleNamespace(references=True), query_pool=pool)


def test_the_work_runs_in_the_query_pool_and_its_result_is_served(ls) -> None:
    def work(x: int) -> tuple[int, str]:
        return x + 1, threading.current_thread().name

    result, thread = asyncio.run(served(ls, "references", (0, ""), "failed", work, 41))
    assert result == 42 and thread != threading.current_thread().name


def test_a_surface_turned_off_serves_nothing_and_does_no_work(ls) -> None:
    ls.config.references = False
    calls: list[int] = []
    assert asyncio.run(served(ls, "references", [], "failed", calls.append, 1)) == []
    assert calls == []


def test_failing_work_serves_nothing_and_is_logged(ls, caplog) -> None:
    def work() -> list[int]:
        raise RuntimeError("index closed")

    with caplog.at_level(logging.ERROR, logger="groundls.lsp"):
        assert asyncio.run(served(ls, None, ["unresolved"], "lens failed", work)) == ["unresolved"]
    assert "lens failed" in caplog.text and "index closed" in caplog.text
