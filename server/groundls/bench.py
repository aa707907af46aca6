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

import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from groundls.bench_load import run_load
from groundls.bench_scale import Structured, _embed_within, bench_synthetic, real_vectors
from groundls.bench_search import (
    QUERIES,
    _ms,
    bench_hover,
    bench_pasted_queries,
    bench_search,
    bench_search_during_fill,
    percentile,
)
from groundls.bench_store import run_store
from groundls.chunkers import Chunk, chunk_file, sentence_parts
from groundls.config import Config
from groundls.index.embed.spaces import PARTS_SPACE
from groundls.index.files.documents import DocumentRefused, document_format, extract_bounded
from groundls.index.files.read import Skipped, read_text
from groundls.index.files.walk import WorkspaceWalker
from groundls.workspace import Workspace

#: Texts per tier when each embedding model is timed alone (enough for a stable rate).
TIER_SAMPLE = 1024
#: Seconds a tier is timed at most (the slow ones embed fewer texts).
TIER_SECONDS = 30.0
#: Chunks of the deep tier filled after the index run, for its end-to-end rate.
DEEP_SAMPLE = 256


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
    tiers = _tier_rates(workspace, config)
    index_embedded = report.embedded + report.embedded_parts
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    deep = _deep_rates(workspace)
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


def _tier_rates(workspace: Workspace, config: Config) -> dict[str, tuple[int, float]]:
    """Each tier (embedding space) alone on the workspace's own chunks, with the same batching
    and nothing else: what it costs per text on this machine."""
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
            per_space.setdefault(space, {})[c.content_hash] = workspace.policy.text_for(space, c)
        if workspace.policy.has_parts(c):
            parts[c.content_hash] = sentence_parts(c)
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
    return tiers


def _deep_rates(workspace: Workspace) -> dict[str, tuple[int, float]]:
    """The deep tier as the language server fills it (re-chunking, embedding, writing),
    sampled, each space on its own: up to DEEP_SAMPLE chunks in at most TIER_SECONDS."""
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
    return deep


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


def _print_index(full: dict[str, Any]) -> None:
    chunk_rate = full["chunks"] / full["index_s"] if full["index_s"] else 0.0
    print(
        f"full index: {full['files']} files, {full['chunks']} chunks in {full['index_s']:.1f} s"
        f" = {chunk_rate:.0f} chunks/s end to end (target >= 200); {full['embedded']}"
        f" vectors; peak RSS while indexing {full['rss_mb']:.0f} MB (target <= 1024)"
    )
    for name, (count, seconds) in full["tiers"].items():
        rate = count / seconds if seconds else 0.0
        print(f"  tier {name}: {count} texts in {seconds:.1f} s = {rate:.0f} texts/s (model only)")
    for space, (count, seconds) in full["deep"].items():
        print(
            f"  deep tier {space} fill (after the index, sampled; chunked again, embedded,"
            f" written): {count} chunks in {seconds:.1f} s = {count / seconds:.1f} chunks/s"
        )
    if full["deep"]:
        print(f"  peak RSS after the deep tier fills: {full['deep_rss_mb']:.0f} MB")


def _print_searches(workspace: Workspace, chunks: int) -> None:
    times = bench_search(workspace, QUERIES)
    print(f"search on the workspace ({chunks} chunks): {_ms(times)} (target p50 <= 50 ms)")
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


def run(workspace_path: Path, config: Config, synthetic: int, store: str = "") -> int:
    """Measure everything on ``workspace_path`` and a synthetic index of ``synthetic`` chunks
    (with ``store``: that index built, exported and published to the served store too)."""
    work = Path(tempfile.mkdtemp(prefix="groundls-bench-"))
    try:
        print(f"groundls bench on {workspace_path.resolve().name} ({time.strftime('%Y-%m-%d')})")
        workspace, full = bench_full_index(workspace_path, config, work)
        _print_index(full)
        edit = bench_reindex_one_function(config, work)
        print(
            f"re-index after editing one function in a {edit['lines']}-line file: "
            f"median {statistics.median(edit['ms']):.0f} ms (runs {', '.join(f'{t:.0f}' for t in edit['ms'])}), "
            f"{edit['embedded_per_edit']} chunk(s) re-embedded (target <= 300 ms)"
        )
        _print_searches(workspace, full["chunks"])
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
        if store:
            run_store(work, config, store, synthetic, seeds)
        else:
            bench_synthetic(work, config, synthetic, seeds)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS: {peak:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


__all__ = ["run", "run_load"]
