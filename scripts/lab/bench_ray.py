"""Index builds on Ray: per-worker throughput of each tier, the driver's write ceiling, and the
projected throughput of N workers (issue 35; BENCHMARKS.md).

    python scripts/lab/bench_ray.py CORPUS [--deep-chunks 160] [--nodes 2]

1. Per worker, per tier: one ``ChunkEmbedWorker`` on one thread (what a one-CPU actor gets)
   chunks and embeds the corpus's files in the fast tier, then a sample of its chunks in each
   deep space; chunks per second.
2. The driver's ceiling: the same results written by one driver into a fresh index, as the
   Ray build writes them (unpickle, one transaction per file); chunks per second.
3. End to end on a real local cluster (``ray.cluster_utils.Cluster``, one-CPU worker nodes):
   the fast tier with 1 and with ``--nodes`` workers.
4. The projection: N workers give min(N x per-worker, driver ceiling) for each tier.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

os.environ["OMP_NUM_THREADS"] = "1"  # one CPU per worker, as a num_cpus=1 actor gets

import numpy as np  # noqa: E402

from groundls.config import Config  # noqa: E402
from groundls.index.cluster import ChunkEmbedWorker, RayPlan, spaces_to_embed  # noqa: E402
from groundls.index.embed.embedding import blob_of  # noqa: E402
from groundls.index.embed.spaces import SpacePolicy  # noqa: E402
from groundls.index.files.read import read_text  # noqa: E402
from groundls.index.files.walk import WorkspaceWalker  # noqa: E402
from groundls.index.reading import chunk_visible  # noqa: E402
from groundls.results import IndexReport  # noqa: E402
from groundls.workspace import Workspace  # noqa: E402


def batches(rows: list[dict], size: int) -> list[dict[str, np.ndarray]]:
    return [
        {key: np.array([r[key] for r in rows[i : i + size]], dtype=object) for key in rows[0]}
        for i in range(0, len(rows), size)
    ]


def per_worker(config: Config, policy: SpacePolicy, rows: list[dict], spaces: tuple[str, ...]):
    worker = ChunkEmbedWorker(config, policy, spaces)
    started = time.perf_counter()
    out = [worker(b) for b in batches(rows, 32)]
    seconds = time.perf_counter() - started
    payloads = [p for o in out for p in o["built"]]
    chunks = sum(len(pickle.loads(p)[0]) for p in payloads)
    return seconds, chunks, payloads


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--deep-chunks", type=int, default=160, help="chunks per deep space")
    ap.add_argument("--nodes", type=int, default=2)
    args = ap.parse_args()
    config = Config()
    policy = SpacePolicy(config.embedders)
    files, _ = WorkspaceWalker(args.corpus, config).walk()
    rows = []
    for f in files:
        text = read_text(f, config.max_file_bytes)
        if isinstance(text, str):
            rows.append({"path": f.path, "text": text})
    print(f"corpus: {args.corpus.name}, {len(rows)} files")

    fast = spaces_to_embed(policy, deep=False)
    secs, chunks, payloads = per_worker(config, policy, rows, fast)
    rates = {"fast": chunks / secs}
    print(f"per worker (1 thread), fast tier {fast}: {chunks} chunks in {secs:.1f} s "
          f"= {rates['fast']:.0f} chunks/s")  # fmt: skip

    for space in policy.deferred:
        sample = [
            r for r in rows
            if any(space in policy.spaces_for(c) for c in chunk_visible(r["path"], r["text"], config)[0])
        ][: args.deep_chunks]  # fmt: skip
        worker = ChunkEmbedWorker(config, policy, (space,))
        started = time.perf_counter()
        n = 0
        for b in batches(sample, 4):
            for p in worker(b)["built"]:
                n += pickle.loads(p)[1].by_space.get(space, 0)
            if n >= args.deep_chunks:
                break
        secs = time.perf_counter() - started
        rates[space] = n / secs
        print(f"per worker (1 thread), deep tier {space}: {n} chunks in {secs:.1f} s "
              f"= {rates[space]:.2f} chunks/s")  # fmt: skip

    # the driver's ceiling: the fast tier's results, with random vectors in every deep space a
    # chunk wants (what --deep writes), unpickled and written one file per transaction
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace.open(args.corpus, config, tmp)
        ws.indexer.ensure_spaces()
        rng = np.random.default_rng(0)
        full = []
        for p in payloads:
            chunks, vectors, redacted, error = pickle.loads(p)
            for c in chunks:
                for space in policy.deferred:
                    if space in policy.spaces_for(c):
                        dim = ws.models.get(space).dim
                        vectors.vectors[(space, c.content_hash)] = blob_of(rng.random(dim))
            full.append(pickle.dumps((chunks, vectors, redacted, error)))
        by_path = {f.path: f for f in files}
        report = IndexReport()
        started = time.perf_counter()
        written = 0
        for p in full:
            chunks, vectors, _, error = pickle.loads(p)
            if error or not chunks:
                continue
            ws.indexer.write_file(by_path[chunks[0].path], "x", chunks, vectors, report)
            written += len(chunks)
        secs = time.perf_counter() - started
        ws.close()
    ceiling = written / secs
    print(f"driver write ceiling: {written} chunks in {secs:.1f} s = {ceiling:.0f} chunks/s")

    # end to end on a real local cluster
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(args.nodes):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    try:
        for workers in (1, args.nodes):
            with tempfile.TemporaryDirectory() as tmp:
                ws = Workspace.open(args.corpus, config, tmp)
                ws.indexer.ensure_spaces()
                started = time.perf_counter()
                rep = ws.index(ray=RayPlan(cluster.address, workers=workers))
                secs = time.perf_counter() - started
                ws.close()
            print(f"cluster, {workers} worker(s), fast tier end to end: {rep.chunks} chunks in "
                  f"{secs:.1f} s = {rep.chunks / secs:.0f} chunks/s")  # fmt: skip
    finally:
        ray.shutdown()
        cluster.shutdown()

    print("projection: min(N x per-worker, driver ceiling) chunks/s")
    for n in (1, 8, 32, 128):
        cells = ", ".join(f"{tier} {min(n * r, ceiling):.0f}" for tier, r in rates.items())
        print(f"  N={n}: {cells}")
    for tier, r in rates.items():
        print(f"  {tier}: the driver limits past N = {ceiling / r:.0f} workers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
