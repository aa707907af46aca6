"""Benchmarks at scale: a synthetic index of N chunks built from real vectors, searched against exact search (``groundls bench --synthetic N``)."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundls.bench_search import (
    QUERIES,
    _ms,
    _rss_mb,
    bench_hover,
    bench_search,
)
from groundls.chunkers import Chunk
from groundls.config import Config
from groundls.index.storage.store import FileRecord
from groundls.workspace import Workspace

#: Real vectors a space's synthetic ones are made around, at least: a deep space holds only
#: what the sampled fill embedded, and a million vectors around 256 are clusters of ~4,000
#: that no real workspace has (MiniLM's recall@10 0.92 there, BENCHMARKS.md). The rest are
#: embedded from a random sample of the workspace's chunks, for at most SEED_SECONDS.
SEED_VECTORS = 2_000


SEED_SECONDS = 90.0


class Structured:
    """Unit vectors with the structure of ``real``: a random real vector plus Gaussian noise
    shaped by the real vectors' covariance (random unit vectors have no neighbourhoods, which
    makes any approximate search look worse and exact ties meaningless)."""

    def __init__(self, real: np.ndarray, scale: float = 0.5) -> None:
        sample = real[: min(len(real), 20_000)]
        _, sv, self.vt = np.linalg.svd(sample - sample.mean(axis=0), full_matrices=False)
        self.sv = sv / np.sqrt(len(sample))
        self.real = real
        self.scale = scale

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        base = self.real[rng.integers(0, len(self.real), n)]
        noise = (rng.standard_normal((n, len(self.sv))) * self.sv) @ self.vt
        v = base + self.scale * noise
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def real_vectors(
    workspace: Workspace, space: str, dim: int, rng: np.random.Generator
) -> np.ndarray:
    """The workspace's own vectors of ``space``, with those of more of its chunks embedded up to
    :data:`SEED_VECTORS` (random ones when it has too few chunks)."""
    blobs = [b for (b,) in workspace.store.conn.execute(f"SELECT embedding FROM vec_{space}")]
    m = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim)
    if len(m) < SEED_VECTORS:
        m = np.vstack([m, _embed_sample(workspace, space, SEED_VECTORS - len(m), rng)])
    if len(m) < 50:
        return rng.standard_normal((1000, dim)).astype(np.float32)
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def _embed_sample(
    workspace: Workspace, space: str, wanted: int, rng: np.random.Generator
) -> np.ndarray:
    """Vectors of up to ``wanted`` random chunks ``space`` has not embedded (their first 400
    characters), for at most :data:`SEED_SECONDS`."""
    rows = workspace.store.chunks_without(space, limit=1 << 30)
    model = workspace.models.get(space)
    texts = [rows[i][5] for i in rng.permutation(len(rows))[:wanted]]
    made, _ = _embed_within(model, texts, SEED_SECONDS)
    return np.vstack(made).astype(np.float32) if made else np.zeros((0, model.dim), np.float32)


def _embed_within(model: Any, texts: list[str], seconds: float) -> tuple[list[Any], float]:
    """``texts`` embedded 16 at a time until all are or ``seconds`` have passed: the vectors
    made, and the seconds it took."""
    started = time.perf_counter()
    made: list[Any] = []
    while len(made) < len(texts) and time.perf_counter() - started < seconds:
        made.extend(model.embed(texts[len(made) : len(made) + 16]))
    return made, time.perf_counter() - started


def build_synthetic(
    workspace: Workspace, total: int, seeds: dict[str, Structured], per_file: int = 100
) -> float:
    """Fill an index with ``total`` code chunks of random words and, in each of their spaces,
    vectors with the structure of the real ``seeds``."""
    rng = np.random.default_rng(7)
    words = np.array(
        [f"w{i}" for i in range(20_000)] + ["retry", "upload", "config", "parser", "ログ", "設定"]
    )
    started = time.perf_counter()
    spaces = tuple(s for s in workspace.policy.spaces_of("code", "") if s in seeds)
    for f in range(total // per_file):
        path = f"synthetic/mod_{f:05d}.py"
        chunks = []
        for i in range(per_file):
            text = " ".join(rng.choice(words, 40))
            chunks.append(
                Chunk(
                    id=f"{f:08x}{i:08x}",
                    path=path,
                    start_line=i * 10 + 1,
                    end_line=i * 10 + 9,
                    language="python",
                    kind="code",
                    text_type="function",
                    title=f"mod_{f}.fn_{i}",
                    breadcrumb=(f"mod_{f}", f"fn_{i}"),
                    text=text,
                    embed_text=text,
                    content_hash=f"{f}-{i}",
                    symbol=f"fn_{i}",
                )
            )
        made = {s: seeds[s].sample(per_file, rng) for s in spaces}
        vectors = [{s: made[s][i].tobytes() for s in spaces} for i in range(per_file)]
        record = FileRecord(path, f"synthetic-{f}", 0, 0, "python", "code")
        workspace.store.replace_file(record, chunks, [spaces] * per_file, vectors)
    return time.perf_counter() - started


def exact_knn(workspace: Workspace, space: str, queries: np.ndarray, k: int) -> list[set[int]]:
    """The exact ``k`` nearest rows of each query, streamed from the index (never all of it in
    memory at once)."""
    best = [np.zeros(0, dtype=np.int64) for _ in queries]
    best_s = [np.zeros(0, dtype=np.float32) for _ in queries]
    cursor = workspace.store.conn.execute(f"SELECT chunk, embedding FROM vec_{space}")
    while rows := cursor.fetchmany(50_000):
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        m = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        sims = (queries @ m.T) / np.linalg.norm(m, axis=1)
        for i in range(len(queries)):
            cand_ids = np.concatenate([best[i], ids])
            cand_s = np.concatenate([best_s[i], sims[i]])
            top = np.argpartition(-cand_s, min(k, len(cand_s)) - 1)[:k]
            best[i], best_s[i] = cand_ids[top], cand_s[top]
    return [set(b.tolist()) for b in best]


def bench_synthetic(work: Path, config: Config, total: int, seeds: dict[str, Structured]) -> None:
    """Search, keyword search, recall of vector search and memory at ``total`` chunks."""
    synth = Workspace.open(work, config, work / "synthetic-index")
    synth.indexer.ensure_spaces()
    build_s = build_synthetic(synth, total, seeds)
    print(f"synthetic index: {total} chunks written in {build_s:.0f} s")
    spaces = [s for s in synth.policy.spaces_of("code", "") if s in seeds]
    for space in spaces:
        started = time.perf_counter()
        synth.store.warm(space)
        copy = synth.store._matrix(space)
        print(
            f"  {space}: {type(copy).__name__} ready in {time.perf_counter() - started:.0f} s"
            f" (built, or loaded when saved for this write); RSS now {_rss_mb():.0f} MB"
        )
    times = bench_search(synth, QUERIES)
    print(f"search on the synthetic {total}-chunk index: {_ms(times)} (target p50 <= 50 ms)")
    words = ["retry", "upload", "config", "parser", "w17 w4242", "w9 w99 w999"]
    keyword = []
    for _ in range(3):
        for w in words:
            started = time.perf_counter()
            synth.store.keyword(w, 50)
            keyword.append((time.perf_counter() - started) * 1000)
    print(f"keyword search (FTS5, 50 best) at {total} chunks: {_ms(keyword)}")
    rng = np.random.default_rng(11)
    for space in spaces:
        queries = np.vstack([synth.models.query_vector(space, q) for q in QUERIES])
        queries = np.vstack([queries, seeds[space].sample(20, rng)])
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        truth = exact_knn(synth, space, queries, 10)
        found = [{r for r, _ in synth.store.knn(space, q, 10)} for q in queries]
        recall = statistics.mean(len(f & t) / 10 for f, t in zip(found, truth, strict=True))
        print(f"  {space}: recall@10 against exact search {recall:.3f} ({len(queries)} queries)")
    hover = bench_hover(synth)
    print(f"hover on the synthetic index: {_ms(hover)}")
    print(f"RSS after searching the synthetic index: {_rss_mb():.0f} MB (target <= 2048 at 1M)")
    synth.close()
