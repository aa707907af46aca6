"""Build a workspace's index on a Ray cluster: ``groundls index --ray [ADDRESS]``.

The driver (this process) walks the workspace, reads the files whose content the index does not
hold and sends them, contents and all, through a Ray Data ``map_batches`` over a pool of actors
(``ChunkEmbedWorker``). Each actor loads the models once, chunks its files (the same pure
chunkers) and embeds them in every tier asked for. The driver writes what comes back, one file
per transaction, into the one SQLite index, exactly as a local run does: a run stopped anywhere
resumes from the files not yet written. Ray Data restarts an actor whose node died and retries
its batches (``max_restarts``/``max_task_retries`` -1, its defaults for actor pools).

Ray is an optional extra (``pip install 'groundls[ray]'``); nothing here imports it until a
build is asked for.
"""

from __future__ import annotations

import logging
import pickle
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from groundls.chunkers import Chunk
from groundls.config import Config
from groundls.index.embed.embedders import Embedders
from groundls.index.embed.embedding import embed_chunks
from groundls.index.embed.spaces import PARTS_SPACE, SERVED_SPACE, SpacePolicy
from groundls.index.files.read import WorkspaceFile
from groundls.index.indexer import BuildStep, Built
from groundls.index.reading import chunk_visible
from groundls.results import IndexReport

log = logging.getLogger("groundls.index")

#: Files per Ray Data batch: a few seconds of work for the fast tier, so a lost batch costs
#: little, and enough chunks per model call to batch well.
FILES_PER_BATCH = 32

RAY_MISSING = "Ray is not installed: pip install 'groundls[ray]' (here and on every node)"


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


@dataclass(frozen=True)
class RayPlan:
    """Where and how to build: the cluster (None: start a local one), the actors and their
    CPUs, and whether the deep tier is embedded too."""

    address: str | None = None
    workers: int | None = None
    cpus_per_worker: float = 1.0
    deep: bool = False
    files_per_batch: int = FILES_PER_BATCH


class ChunkEmbedWorker:
    """A Ray Data actor: holds the models and turns a batch of files into their chunks and
    vectors. Rows carry the file's path and text in; its path and its pickled chunks, vectors,
    count of redacted secrets and chunking error (if any) out."""

    def __init__(self, config: Config, policy: SpacePolicy, spaces: tuple[str, ...]) -> None:
        self.config = config
        self.policy = policy
        self.spaces = frozenset(spaces)
        self.models = Embedders()
        for space in sorted(self.spaces | {PARTS_SPACE} & set(policy.all_spaces)):
            self.models.get(space)  # loaded once per actor, not per batch

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list[Any]]:
        chunked: list[tuple[list[Chunk], int, str]] = []
        for path, text in zip(batch["path"], batch["text"], strict=True):
            try:
                chunks, redacted = chunk_visible(str(path), str(text), self.config)
                chunked.append((chunks, redacted, ""))
            except Exception as exc:  # noqa: BLE001 - one bad file must not fail the batch
                chunked.append(([], 0, str(exc) or type(exc).__name__))
        vectors = embed_chunks(
            (c for chunks, _, _ in chunked for c in chunks),
            self.policy,
            self.models,
            embed=self.spaces.__contains__,
        )
        seen: set[tuple[str, str]] = set()
        seen_parts: set[str] = set()
        payloads = []
        for chunks, redacted, error in chunked:
            share = vectors.only(chunks)
            # what was embedded, counted once, with the first file of the batch that holds it
            new = set(share.vectors) - seen
            new_parts = set(share.parts) - seen_parts
            seen |= new
            seen_parts |= new_parts
            share.by_space = dict(Counter(space for space, _ in new))
            share.embedded = len(new)
            share.embedded_parts = sum(len(share.parts[h]) for h in new_parts)
            payloads.append(pickle.dumps((chunks, share, redacted, error)))
        return {"path": list(batch["path"]), "built": payloads}


def spaces_to_embed(policy: SpacePolicy, deep: bool) -> tuple[str, ...]:
    """The fast tier's spaces, and the deep tier's with ``deep``; a model server's space is
    left to the machine that may reach it (filled afterwards like any deep space)."""
    deferred = policy.deferred
    return tuple(
        space
        for space in policy.all_spaces
        if space != SERVED_SPACE and (deep or space not in deferred)
    )


def connect(address: str | None) -> Any:
    """Ray, connected to ``address`` (None or "local": a cluster of this machine alone)."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable(RAY_MISSING) from None
    if not ray.is_initialized():
        try:
            ray.init(
                address=None if address in (None, "", "local") else address,
                logging_level=logging.WARNING,
                log_to_driver=False,
                include_dashboard=False,
            )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailable(f"cannot reach the Ray cluster at {address}: {exc}") from None
    # groundls shows its own progress; Ray Data's bars and execution notes would interleave
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    return ray


def ray_build(config: Config, policy: SpacePolicy, plan: RayPlan) -> BuildStep:
    """A build step (``Indexer.index(build=...)``) that chunks and embeds on a Ray cluster."""
    spaces = spaces_to_embed(policy, plan.deep)

    def build(
        changed: Iterator[tuple[WorkspaceFile, str, str]], report: IndexReport
    ) -> Iterator[Built]:
        ray = connect(plan.address)
        files: dict[str, WorkspaceFile] = {}
        checksums: dict[str, str] = {}
        rows = []
        for file, text, checksum in changed:
            files[file.path] = file
            checksums[file.path] = checksum
            rows.append({"path": file.path, "text": text})
        if not rows:
            return
        workers = plan.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        batches = -(-len(rows) // plan.files_per_batch)
        dataset = ray.data.from_items(rows, override_num_blocks=batches)
        actors = min(workers, batches)
        out = dataset.map_batches(
            ChunkEmbedWorker,
            fn_constructor_kwargs={"config": config, "policy": policy, "spaces": spaces},
            batch_size=plan.files_per_batch,
            compute=ray.data.ActorPoolStrategy(size=actors),
            num_cpus=plan.cpus_per_worker,
            batch_format="numpy",
        )
        for row in out.iter_rows():
            chunks, vectors, redacted, error = pickle.loads(row["built"])
            vectors.count_into(report)
            report.secrets_redacted += redacted
            file = files[row["path"]]
            yield Built(file, checksums[file.path], chunks, vectors, error)

    return build
