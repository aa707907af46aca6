"""The served team index at scale (``groundls bench --store URL --synthetic N``).

A synthetic index of N chunks (vectors made around the workspace's real ones) is built locally,
exported as a shared base and published to the store. For each, the figures a team chooses by:
build time and size on disk, search p50/p95, and a reader's memory; for the store also the
statements one search sends, replayed by 1, 8 and 32 concurrent clients, and the recall@10 of
its HNSW indexes against exact search.
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundls.bench_scale import Structured, build_synthetic
from groundls.bench_search import QUERIES, _ms, bench_search
from groundls.config import Config
from groundls.index.storage.served.reads import prepare as prepare_reads
from groundls.index.storage.served.schema import VECTOR_TYPE
from groundls.workspace import Workspace, store_connect

#: Concurrent clients the store's share of a search is replayed by.
CLIENTS = (1, 8, 32)


def run_store(
    work: Path, config: Config, url: str, total: int, seeds: dict[str, Structured]
) -> None:
    """Build, publish and measure a synthetic index of ``total`` chunks against ``url``."""
    local = Workspace.open(work, config, work / "synthetic-index")
    local.indexer.ensure_spaces()
    build_s = build_synthetic(local, total, seeds)
    size = sum(p.stat().st_size for p in (work / "synthetic-index").glob("*") if p.is_file())
    print(f"local index: {total} chunks written in {build_s:.0f} s, {size / 2**20:.0f} MB on disk")
    print(f"  search, one client: {_ms(bench_search(local, QUERIES))}")
    started = time.perf_counter()
    base = local.export(work / "synthetic.groundls")
    print(f"shared base: exported in {time.perf_counter() - started:.1f} s,"
          f" {(work / 'synthetic.groundls').stat().st_size / 2**20:.0f} MB ({base.chunks} chunks)")  # fmt: skip
    started = time.perf_counter()
    published = local.publish(url)
    publish_s = time.perf_counter() - started
    local.close()
    conn = store_connect(url)
    try:
        bytes_ = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    finally:
        conn.close()
    print(
        f"served store: {published.chunks} chunks published in {publish_s:.0f} s,"
        f" {bytes_ / 2**20:.0f} MB in PostgreSQL"
    )
    for kind, setting in (("base", "base"), ("store", "store")):
        value = str(work / "synthetic.groundls") if kind == "base" else url
        print(f"  {kind} reader: {_reader(work, kind, setting, value)}")
    reader = _store_reader(work, config, url)
    try:
        statements = _statements(reader)
        for clients in CLIENTS:
            times = _replay(reader, statements, clients)
            print(f"  store's share of a search, {clients} concurrent client(s): {_ms(times)}")
        for space, recall in _recall(reader, seeds).items():
            print(f"  {space}: HNSW recall@10 against exact search {recall:.3f}")
    finally:
        reader.close()


def _store_reader(work: Path, config: Config, url: str) -> Workspace:
    reading = copy.deepcopy(config)
    reading.index.store = url
    return Workspace.open(work, reading, work / "reader-index")


def _reader(work: Path, kind: str, setting: str, value: str) -> str:
    """Search p50/p95 and resident memory of a fresh reader process (never indexing: the
    synthetic files exist only in the index)."""
    code = (
        "import json, sys, time\n"
        "from groundls.config import Config\n"
        "from groundls.workspace import Workspace\n"
        "from groundls.bench_search import QUERIES, bench_search, _ms\n"
        "from groundls.memory import process_memory\n"
        "c = Config()\n"
        f"setattr(c.index, {setting!r}, {value!r})\n"
        f"ws = Workspace.open({str(work)!r}, c, {str(work / (kind + '-reader'))!r})\n"
        "times = bench_search(ws, QUERIES)\n"
        "print(json.dumps({'ms': _ms(times), 'mem': process_memory()}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy()
    )
    if out.returncode != 0:
        return "failed: " + (out.stderr.strip().splitlines() or ["?"])[-1]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return f"search {got['ms']}, memory {got['mem']}"


def _statements(reader: Workspace) -> list[list[tuple[str, Any]]]:
    """The statements each of the benchmark's searches sends to the store."""
    served = reader.store.served  # type: ignore[attr-defined]
    recorded: list[tuple[str, Any]] = []
    original = served.run

    def run(sql: str, params: Any = ()) -> list[Any]:
        recorded.append((sql, params))
        return original(sql, params)

    served.run = run
    out = []
    try:
        for query in QUERIES:
            reader.search(query)  # embeds the question, fills the per-publish caches
            recorded.clear()
            reader.search(query)
            out.append(list(recorded))
    finally:
        served.run = original
    return out


def _replay(
    reader: Workspace, statements: list[list[tuple[str, Any]]], clients: int
) -> list[float]:
    """Milliseconds per search when ``clients`` connections replay the searches at once."""
    url = reader.store.served.url  # type: ignore[attr-defined]
    times: list[float] = []
    lock = threading.Lock()

    def client(offset: int) -> None:
        conn = store_connect(url)
        prepare_reads(conn)
        try:
            for i in range(len(statements)):
                search = statements[(i + offset) % len(statements)]
                started = time.perf_counter()
                for sql, params in search:
                    conn.execute(sql, params or None).fetchall()
                with lock:
                    times.append((time.perf_counter() - started) * 1000)
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times


def _recall(reader: Workspace, seeds: dict[str, Structured]) -> dict[str, float]:
    served = reader.store.served  # type: ignore[attr-defined]
    rng = np.random.default_rng(11)
    out = {}
    for space, seed in seeds.items():
        table = f"vec_{space}"
        if not served.has_vectors(table):
            continue
        queries = seed.sample(30, rng)
        recalls = []
        distance = f"embedding <=> %s::{VECTOR_TYPE}"
        for vector in queries:
            text = ("[" + ",".join(map(repr, vector.tolist())) + "]",)
            approx = served.run(f"SELECT chunk FROM {table} ORDER BY {distance} LIMIT 10", text)
            exact = served.run(
                f"SELECT chunk FROM (SELECT chunk, {distance} AS d FROM {table}) v"
                " ORDER BY d + 0 LIMIT 10",
                text,
            )
            recalls.append(len({r[0] for r in approx} & {r[0] for r in exact}) / 10)
        out[space] = statistics.mean(recalls)
    return out
