"""Vector search at a million chunks: candidates and exact rescoring, by recall and latency
(issue 35; BENCHMARKS.md).

    python scripts/lab/bench_ann.py INDEX.sqlite [INDEX.sqlite ...] [--n 1000000] [--space static]

Vectors: the real vectors of ``--space`` in the given indexes, and around them synthetic ones
with the same structure (a real vector plus Gaussian noise shaped by the real vectors'
covariance), to ``--n`` in all. Queries: 200 other real vectors, perturbed the same way (random
unit vectors would be a pessimistic, structureless case; they are reported too with --random).
Truth: the exact top 10 by cosine.

Methods:
* ``pca``: today's copy, 128 main directions then exact rescoring of 2.5 % (float32 in RAM);
* ``usearch``: usearch's HNSW over int8 vectors, the top 4k rescored exactly from float32;
* ``sqlite-vec bit``: sqlite-vec's binary-quantised vectors (``bit[dim]``, a Hamming scan), the
  top 4k rescored exactly.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from groundls.bench_scale import Structured
from groundls.bench_search import _rss_mb


def real_vectors(paths: list[str], space: str) -> np.ndarray:
    from groundls.index.storage.store import Store

    blobs = []
    for p in paths:
        store = Store(Path(p))
        with contextlib.suppress(Exception):  # an index without that space
            blobs += [b for (b,) in store.conn.execute(f"SELECT embedding FROM vec_{space}")]
        store.close()
    m = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def exact_top(data: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    sims = queries @ data.T
    top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    return np.take_along_axis(top, np.argsort(-np.take_along_axis(sims, top, 1), 1), 1)


def rescore(data: np.ndarray, q: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    sims = data[rows] @ q
    top = np.argpartition(-sims, k - 1)[:k]
    return rows[top[np.argsort(-sims[top])]]


def report(name: str, times: list[float], found: list[np.ndarray], truth: np.ndarray, extra: str):
    recall = np.mean([len(set(f[:10]) & set(t)) / 10 for f, t in zip(found, truth, strict=True)])
    times = sorted(times)
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"  {name}: p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
          f"recall@10 {recall:.3f}; {extra}")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("indexes", nargs="+")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--space", default="static")
    ap.add_argument("--scale", type=float, default=0.5)
    ap.add_argument("--random", action="store_true", help="random unit vectors instead")
    ap.add_argument("--rescore", type=int, default=4000)
    ap.add_argument("--methods", default="pca,usearch,bit")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    real = real_vectors(args.indexes, args.space)
    dim = real.shape[1]
    if args.random:
        data = rng.standard_normal((args.n, dim)).astype(np.float32)
        data /= np.linalg.norm(data, axis=1, keepdims=True)
        queries = rng.standard_normal((200, dim)).astype(np.float32)
    else:
        order = rng.permutation(len(real))
        held, pool = real[order[:200]], real[order[200:]]
        shape = Structured(pool, args.scale)
        data = np.vstack(
            [shape.sample(min(100_000, args.n - i), rng) for i in range(0, args.n, 100_000)]
        )
        queries = held + args.scale * 0.5 * (Structured(held, 1.0).sample(200, rng) - held)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    print(f"{args.n} vectors of {dim} dims ({'random' if args.random else 'structured on'} "
          f"{len(real)} real {args.space} vectors), 200 queries; "
          f"{time.strftime('%Y-%m-%d')}")  # fmt: skip
    truth = np.vstack([exact_top(data, queries[i : i + 50], 10) for i in range(0, 200, 50)])
    methods = args.methods.split(",")

    if "pca" in methods:
        from groundls.index.storage.vector_copies import VectorMatrix

        before = _rss_mb()
        started = time.perf_counter()
        vm = VectorMatrix(np.arange(args.n), data, ["code"] * args.n, ["python"] * args.n)
        build = time.perf_counter() - started
        times, found = [], []
        for q in queries:
            t = time.perf_counter()
            hits = vm.search(q, 10)
            times.append((time.perf_counter() - t) * 1000)
            found.append(np.array([h[0] for h in hits]))
        report("pca (today)", times, found, truth,
               f"build {build:.0f} s, +{_rss_mb() - before:.0f} MB")  # fmt: skip
        del vm

    if "usearch" in methods:
        from usearch.index import Index

        before = _rss_mb()
        started = time.perf_counter()
        index = Index(ndim=dim, metric="cos", dtype="i8", connectivity=16, expansion_add=128)
        index.add(np.arange(args.n), data, threads=2)
        build = time.perf_counter() - started
        added = _rss_mb() - before
        for ef in (64, 128, 256):
            index.expansion_search = ef
            times, found = [], []
            for q in queries:
                t = time.perf_counter()
                m = index.search(q, 100, threads=1)
                rows = rescore(data, q, np.asarray(m.keys, dtype=np.int64), 10)
                times.append((time.perf_counter() - t) * 1000)
                found.append(rows)
            report(f"usearch i8 HNSW ef={ef}, top 100 rescored", times, found, truth,
                   f"build {build:.0f} s, +{added:.0f} MB (graph and int8 vectors)")  # fmt: skip
        del index

    if "bit" in methods:
        from groundls.index.storage.db import connect

        conn = connect(":memory:")
        before = _rss_mb()
        started = time.perf_counter()
        conn.execute(f"CREATE VIRTUAL TABLE b USING vec0(embedding bit[{dim}])")
        packed = np.packbits(data > 0, axis=1)
        conn.executemany(
            "INSERT INTO b(rowid, embedding) VALUES (?, vec_bit(?))",
            ((i, packed[i].tobytes()) for i in range(args.n)),
        )
        build = time.perf_counter() - started
        added = _rss_mb() - before
        times, found = [], []
        for q in queries:
            t = time.perf_counter()
            qb = np.packbits(q > 0).tobytes()
            rows = np.array([r for (r,) in conn.execute(
                "SELECT rowid FROM b WHERE embedding MATCH vec_bit(?) AND k = ?",
                (qb, args.rescore))])  # fmt: skip
            rows = rescore(data, q, rows, 10)
            times.append((time.perf_counter() - t) * 1000)
            found.append(rows)
        report(f"sqlite-vec bit, top {args.rescore} rescored", times, found, truth,
               f"build {build:.0f} s, +{added:.0f} MB")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the whole run (data, truth and every method): {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
