"""Search benchmarks: a query's time, a pasted text's, a search's while the deep tier fills, and a hover's."""

from __future__ import annotations

import random
import threading
import time

from groundls.answer.model import shared
from groundls.workspace import Workspace

QUERIES = [
    "how are command line options parsed",
    "where is the configuration loaded",
    "retry failed uploads",
    "ログレベルはどこで変更しますか",
    "error handling when a file is missing",
    "get_terminal_size",
    "how to install offline",
    "パッケージのビルド方法",
    "unit tests for the parser",
    "environment variables",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _ms(values: list[float]) -> str:
    return f"p50 {percentile(values, 0.5):.1f} ms, p95 {percentile(values, 0.95):.1f} ms"


def bench_search(workspace: Workspace, queries: list[str], rounds: int = 3) -> list[float]:
    times = []
    for q in queries:
        workspace.search(q)  # the first call of a query embeds it; measure warm and cold below
    for r in range(rounds):
        for q in queries:
            started = time.perf_counter()
            workspace.search(q if r == 0 else f"{q} {r}")
            times.append((time.perf_counter() - started) * 1000)
    return times


#: Sizes of the pasted queries (characters): a paragraph, a file, a log, a megabyte.
PASTED = (2_000, 40_000, 300_000, 1_000_000)


def bench_pasted_queries(workspace: Workspace) -> list[tuple[int, float]]:
    """One search per size in ``PASTED`` of the workspace's own text, each from another place
    so no query vector is reused: (size, ms). An agent pastes whole files as queries."""
    rows = workspace.store.chunk_texts()
    text = "\n".join(t for _, t in rows) or "no text"
    out = []
    for i, size in enumerate(PASTED):
        start = (i * 7919) % max(1, len(text))
        query = (text[start:] + text) * (size // max(1, len(text)) + 1)
        started = time.perf_counter()
        workspace.search(query[:size])
        out.append((size, (time.perf_counter() - started) * 1000))
    return out


def bench_search_during_fill(
    workspace: Workspace, queries: list[str]
) -> tuple[list[float], int, bool]:
    """Cold searches while the deep tier fills in slices on another thread, as the language
    server fills it: (times, chunks filled meanwhile, whether the fill outlasted the searches)."""
    stop = threading.Event()
    filled = [0]
    started = threading.Event()

    def fill() -> None:
        while not stop.is_set():
            started.set()
            if shared.generating():  # as the language server's fill waits for an answer
                stop.wait(0.5)
                continue
            done = workspace.fill_deep(max_chunks=32, cancel=stop)
            if done == 0:
                return
            filled[0] += done

    worker = threading.Thread(target=fill, name="bench-deep-fill")
    worker.start()
    started.wait()
    time.sleep(0.5)  # into the first slice
    times = bench_search(workspace, [f"{q} while filling" for q in queries], rounds=2)
    outlasted = worker.is_alive()
    stop.set()
    worker.join()
    return times, filled[0], outlasted


def bench_hover(workspace: Workspace, samples: int = 200) -> list[float]:
    rows = workspace.store.chunk_spans()
    rng = random.Random(7)
    times = []
    for path, start, end in rng.sample(rows, min(samples, len(rows))):
        line = rng.randint(start, end)
        started = time.perf_counter()
        hit = workspace.chunk_at(path, line)
        if hit is not None:
            workspace.related(hit.chunk_id, k=3)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _rss_mb() -> float:
    """This process's resident memory now (not the peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0
