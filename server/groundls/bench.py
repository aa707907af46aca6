"""``groundls bench``: speed and memory figures for BENCHMARKS.md, printed as one report.

Measures, in one run on this machine:
* full-index throughput against the raw embedders' throughput on the very same chunks;
* re-index time after editing one function in a 500-line file;
* search latency p50/p95 on the workspace and on a synthetic 100k-chunk index;
* hover-style "related" latency (chunk at a position + its neighbours, no model call);
* documents read per second by format (pages, slides, sheets, cells), when the workspace has any;
* peak RSS.
"""

from __future__ import annotations

import random
import resource
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundls.answer.model import shared
from groundls.chunkers import Chunk, chunk_file, sentence_parts
from groundls.config import Config
from groundls.index.embed.spaces import PARTS_SPACE
from groundls.index.files.documents import DocumentRefused, document_format, extract_bounded
from groundls.index.files.read import Skipped, read_text
from groundls.index.files.walk import WorkspaceWalker
from groundls.index.storage.store import FileRecord
from groundls.workspace import Workspace

#: Texts per tier when each embedding model is timed alone (enough for a stable rate).
TIER_SAMPLE = 1024
#: Seconds a tier is timed at most (the slow ones embed fewer texts).
TIER_SECONDS = 30.0
#: Chunks of the deep tier filled after the index run, for its end-to-end rate.
DEEP_SAMPLE = 256
#: Real vectors a space's synthetic ones are made around, at least: a deep space holds only
#: what the sampled fill embedded, and a million vectors around 256 are clusters of ~4,000
#: that no real workspace has (MiniLM's recall@10 0.92 there, BENCHMARKS.md). The rest are
#: embedded from a random sample of the workspace's chunks, for at most SEED_SECONDS.
SEED_VECTORS = 2_000
SEED_SECONDS = 90.0

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


def bench_full_index(
    workspace: Path, config: Config, work: Path
) -> tuple[Workspace, dict[str, Any]]:
    workspace = Workspace.open(workspace, config, work / "index")
    workspace.indexer.ensure_spaces()  # load models outside the timed part, as the raw run does
    for space in workspace.policy.all_spaces:
        workspace.models.get(space).embed(["warm up"])  # USE loads its tokenizer on first use
    started = time.perf_counter()
    report = workspace.index()
    index_s = time.perf_counter() - started
    # The raw embedder on the same chunks, with the same batching, nothing else.
    walker = WorkspaceWalker(workspace.root, config)
    files, _ = walker.walk()
    chunks: list[Chunk] = []
    for f in files:
        if document_format(f.path):
            text = workspace.indexer.read_visible(f.path)  # as the index read it
            if text is not None:
                chunks.extend(chunk_file(f.path, text, config.chunk_options))
            continue
        text = read_text(f, config.max_file_bytes)
        if not isinstance(text, Skipped):
            chunks.extend(chunk_file(f.path, text, config.chunk_options))
    per_space: dict[str, dict[str, str]] = {}
    parts: dict[str, list[str]] = {}
    for c in chunks:
        for space in workspace.policy.spaces_for(c):
            per_space.setdefault(space, {})[c.content_hash] = c.embed_text
        if workspace.policy.has_parts(c):
            parts[c.content_hash] = sentence_parts(c)
    # each tier (embedding space) alone: what it costs per text on this machine
    tiers: dict[str, tuple[int, float]] = {}
    part_texts = [t for texts in parts.values() for t in texts]
    jobs = [(space, list(texts.values())) for space, texts in per_space.items()]
    jobs.append((f"{PARTS_SPACE} sentences", part_texts))
    for name, items in jobs:
        items = items[:TIER_SAMPLE]
        # a slow tier (e5: a few texts a second) is timed on what it embeds in TIER_SECONDS
        vectors, seconds = _embed_within(workspace.models.get(name.split()[0]), items, TIER_SECONDS)
        if vectors:
            tiers[name] = (len(vectors), seconds)
    index_embedded = report.embedded + report.embedded_parts
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # the deep tier as the language server fills it (re-chunking, embedding, writing), sampled,
    # each space on its own: up to DEEP_SAMPLE chunks in at most TIER_SECONDS
    deep: dict[str, tuple[int, float]] = {}
    for space in workspace.indexer.deep_order():
        started = time.perf_counter()
        done = 0
        while done < DEEP_SAMPLE and time.perf_counter() - started < TIER_SECONDS:
            filled = workspace.fill_deep(max_chunks=min(32, DEEP_SAMPLE - done), spaces=(space,))
            if not filled:
                break
            done += filled
        if done:
            deep[space] = (done, time.perf_counter() - started)
    deep_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return workspace, {
        "tiers": tiers,
        "rss_mb": rss_mb,
        "files": report.files_indexed,
        "chunks": report.chunks,
        "embedded": index_embedded,
        "index_s": index_s,
        "deep": deep,
        "deep_rss_mb": deep_rss_mb,
    }


def bench_reindex_one_function(config: Config, work: Path) -> dict[str, Any]:
    ws = work / "edit-ws"
    ws.mkdir()
    body = []
    for i in range(50):
        body.append(f"def handler_{i}(request, retries=3):")
        body.append(f'    """Handle request kind {i} and retry on failure."""')
        body += [f"    value_{j} = request.get('field_{j}', {i * j})" for j in range(6)]
        body.append("    return value_0")
        body.append("")
    target = ws / "handlers.py"
    target.write_text("\n".join(body) + "\n", encoding="utf-8")
    workspace = Workspace.open(ws, config, work / "edit-index")
    workspace.index()
    lines = target.read_text(encoding="utf-8").splitlines()
    times = []
    for n in range(5):
        lines[3] = f"    value_0 = request.get('field_0', {1000 + n})"
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        started = time.perf_counter()
        report = workspace.index_paths(["handlers.py"])
        times.append((time.perf_counter() - started) * 1000)
    workspace.close()
    return {"lines": len(lines), "embedded_per_edit": report.embedded, "ms": times}


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


def bench_documents(root: Path, config: Config) -> dict[str, tuple[int, int, float]]:
    """Each document of the workspace read once as the index reads it (a bounded child process
    each): per format, (documents, pages or slides or sheets or cells, seconds)."""
    files, _ = WorkspaceWalker(root, config).walk()
    out: dict[str, tuple[int, int, float]] = {}
    for f in files:
        fmt = document_format(f.path)
        if fmt is None:
            continue
        started = time.perf_counter()
        try:
            units = extract_bounded(f.abs_path, f.path).units
        except DocumentRefused:
            continue
        count, total, seconds = out.get(fmt, (0, 0, 0.0))
        out[fmt] = (count + 1, total + units, seconds + time.perf_counter() - started)
    return out


#: What a format's places are called, per second.
_UNITS = {"pdf": "pages", "pptx": "slides", "xlsx": "sheets", "ipynb": "cells", "epub": "chapters"}


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


def _rss_mb() -> float:
    """This process's resident memory now (not the peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def run(workspace_path: Path, config: Config, synthetic: int) -> int:
    """Measure everything on ``workspace_path`` and a synthetic index of ``synthetic`` chunks."""
    work = Path(tempfile.mkdtemp(prefix="groundls-bench-"))
    try:
        print(f"groundls bench on {workspace_path.resolve().name} ({time.strftime('%Y-%m-%d')})")
        workspace, full = bench_full_index(workspace_path, config, work)
        chunk_rate = full["chunks"] / full["index_s"] if full["index_s"] else 0.0
        print(
            f"full index: {full['files']} files, {full['chunks']} chunks in {full['index_s']:.1f} s"
            f" = {chunk_rate:.0f} chunks/s end to end (target >= 200); {full['embedded']}"
            f" vectors; peak RSS while indexing {full['rss_mb']:.0f} MB (target <= 1024)"
        )
        for name, (count, seconds) in full["tiers"].items():
            rate = count / seconds if seconds else 0.0
            print(
                f"  tier {name}: {count} texts in {seconds:.1f} s = {rate:.0f} texts/s (model only)"
            )
        for space, (count, seconds) in full["deep"].items():
            print(
                f"  deep tier {space} fill (after the index, sampled; chunked again, embedded,"
                f" written): {count} chunks in {seconds:.1f} s = {count / seconds:.1f} chunks/s"
            )
        if full["deep"]:
            print(f"  peak RSS after the deep tier fills: {full['deep_rss_mb']:.0f} MB")
        edit = bench_reindex_one_function(config, work)
        print(
            f"re-index after editing one function in a {edit['lines']}-line file: "
            f"median {statistics.median(edit['ms']):.0f} ms (runs {', '.join(f'{t:.0f}' for t in edit['ms'])}), "
            f"{edit['embedded_per_edit']} chunk(s) re-embedded (target <= 300 ms)"
        )
        times = bench_search(workspace, QUERIES)
        print(
            f"search on the workspace ({full['chunks']} chunks): {_ms(times)} (target p50 <= 50 ms)"
        )
        pasted = bench_pasted_queries(workspace)
        print(
            "search for a pasted text (the workspace's own text, each size once): "
            + ", ".join(f"{size // 1000} kB {ms:.0f} ms" for size, ms in pasted)
            + " (target <= 5 s each)"
        )
        during, filled, outlasted = bench_search_during_fill(workspace, QUERIES)
        idle = percentile(times, 0.5)
        print(
            f"search while the deep tier fills: {_ms(during)}"
            f" ({percentile(during, 0.5) / idle if idle else 0:.1f}x idle p50, target <= 3x);"
            f" {filled} chunks filled meanwhile"
            + ("" if outlasted else " - the fill ended before the searches did")
        )
        for fmt, (count, units, seconds) in sorted(bench_documents(workspace_path, config).items()):
            unit = _UNITS.get(fmt, "documents")
            amount = units if unit != "documents" else count
            print(
                f"documents {fmt}: {count} read, {amount} {unit} in {seconds:.1f} s ="
                f" {amount / seconds if seconds else 0:.1f} {unit}/s (a bounded child process each)"
            )
        hover = bench_hover(workspace)
        print(
            f"hover related notes (chunk at position + 3 neighbours): {_ms(hover)} (target p50 <= 50 ms)"
        )
        rng = np.random.default_rng(3)
        seeds = {
            space: Structured(real_vectors(workspace, space, workspace.models.get(space).dim, rng))
            for space in workspace.policy.spaces_of("code", "")
            if space not in workspace.policy.deferred or workspace.store.count_in(space)
        }
        for space, seed in seeds.items():
            print(f"  {space}: synthetic vectors are made around {len(seed.real)} real ones")
        workspace.close()
        bench_synthetic(work, config, synthetic, seeds)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS: {peak:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0
