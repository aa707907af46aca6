"""Vector search past a few hundred thousand vectors: an HNSW graph (usearch) over int8 copies of
a space's vectors, its candidates rescored exactly with the float32 vectors the index holds.

The in-memory copy of :mod:`groundls.index.storage.vector_copies` keeps every vector as float32 plus a
projection: at 1M vectors of 256 dimensions that is 1.5 GB for one space and 31 ms a query. This
copy holds int8 vectors and the graph (about 0.5 GB per million 256-d vectors) and answers in
a few milliseconds; the candidates' exact vectors are read from SQLite (one point lookup each).
Measured on 1M vectors (BENCHMARKS.md, ``scripts/lab/bench_ann.py``): recall@10 0.993 against exact
search; sqlite-vec's binary-quantised scan was 112 ms at 200k (rejected).

The graph takes minutes to build at a million vectors, so it is saved beside the index with the
write sequence it matches, and loaded instead of rebuilt while that still holds.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger("groundls.index")

#: From this many vectors on, a space is searched through the graph.
ANN_FROM = 200_000
#: Graph degree and the breadth of its searches. Measured at 1M vectors made around 1.5k real
#: ones (clusters of ~700 near-equal vectors, the hard case of duplicated code): real questions'
#: recall@10 0.27 at a breadth of 128-512; MiniLM's 0.935 at 1024 and 0.988 at 2048 (2.1 ->
#: 4.7 ms a search); queries near stored vectors 0.993 at both (BENCHMARKS.md).
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION = 2048
#: The graph's best candidates scored exactly with the index's float32 vectors (a point lookup
#: each); the rest keep the graph's int8 distance. Measured at 1M: recall@10 the same with 30,
#: 50 or 100 (1.0 on queries near stored vectors), 15 against 32 ms a search.
EXACT_HEAD = 40
#: With a kind or language filter, candidates are taken this many times over, then filtered.
FILTER_OVERFETCH = 8

#: (rowids) -> their float32 vectors, in the order given (read from the index).
FetchVectors = Callable[[Sequence[int]], np.ndarray]


class AnnCopy:
    """One space's graph, the rows it holds (sorted) with their kind and language codes, and how
    to read exact vectors. Same interface as ``VectorMatrix``."""

    def __init__(
        self,
        index: object,
        ids: np.ndarray,
        kinds: np.ndarray,
        languages: np.ndarray,
        vocab: list[str],
        fetch: FetchVectors,
    ) -> None:
        self.index = index
        order = np.argsort(ids, kind="stable")
        self.ids = np.asarray(ids, dtype=np.int64)[order]
        self.kinds = np.asarray(kinds, dtype=np.int32)[order]
        self.languages = np.asarray(languages, dtype=np.int32)[order]
        self.vocab = vocab
        self.fetch = fetch
        self.seq = -1
        #: changed since it was saved (saved again when the store closes)
        self.dirty = False

    @classmethod
    def build(
        cls,
        rows: object,
        dim: int,
        fetch: FetchVectors,
        batch: int = 50_000,
    ) -> AnnCopy:
        """Build from an iterator of (rowid, float32 bytes, kind, language), a batch at a time
        (never the whole float32 matrix in memory)."""
        index = _usearch().Index(
            ndim=dim,
            metric="cos",
            dtype="i8",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION,
        )
        vocab: dict[str, int] = {}
        ids: list[np.ndarray] = []
        kinds: list[int] = []
        langs: list[int] = []
        pending: list[tuple[int, bytes, str, str]] = []

        def flush() -> None:
            keys = np.fromiter((r[0] for r in pending), dtype=np.int64, count=len(pending))
            matrix = np.frombuffer(b"".join(r[1] for r in pending), dtype=np.float32)
            index.add(keys, matrix.reshape(len(pending), dim), threads=0)
            ids.append(keys)
            kinds.extend(vocab.setdefault(r[2], len(vocab)) for r in pending)
            langs.extend(vocab.setdefault(r[3], len(vocab)) for r in pending)
            pending.clear()

        for row in rows:  # type: ignore[attr-defined]
            pending.append(row)
            if len(pending) >= batch:
                flush()
        if pending:
            flush()
        all_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        return cls(index, all_ids, np.array(kinds), np.array(langs), list(vocab), fetch)

    def __len__(self) -> int:
        return len(self.ids)

    def _codes(self, names: Sequence[str] | None) -> np.ndarray | None:
        if not names:
            return None
        return np.array([self.vocab.index(n) for n in names if n in self.vocab], dtype=np.int32)

    def search(
        self,
        vector: np.ndarray,
        k: int,
        kinds: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        rescore: int | None = None,
    ) -> list[tuple[int, float]] | None:
        """(rowid, cosine distance) of the ``k`` nearest, nearest first; None when a filter
        leaves too few of the candidates (the caller then scans exactly)."""
        if not len(self.ids) or k <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        want = max(k, EXACT_HEAD, rescore or 0)
        kind_codes, lang_codes = self._codes(kinds), self._codes(languages)
        filtered = kind_codes is not None or lang_codes is not None
        if filtered:
            want *= FILTER_OVERFETCH
        found = self.index.search(q, min(want, len(self.ids)), threads=1)  # type: ignore[attr-defined]
        keys = np.asarray(found.keys, dtype=np.int64)
        distances = np.asarray(found.distances, dtype=np.float64)
        if filtered:
            at = np.clip(np.searchsorted(self.ids, keys), 0, len(self.ids) - 1)
            keep = self.ids[at] == keys
            if kind_codes is not None:
                keep &= np.isin(self.kinds[at], kind_codes)
            if lang_codes is not None:
                keep &= np.isin(self.languages[at], lang_codes)
            keys, distances = keys[keep], distances[keep]
            if len(keys) < k:
                return None
        # the graph's best are scored exactly; the rest keep the int8 distance (their order
        # only matters as ranks far down a fused list)
        head = max(EXACT_HEAD, rescore or 0)
        vectors = self.fetch(keys[:head].tolist())
        norms = np.maximum(np.linalg.norm(vectors, axis=1), 1e-12)
        distances[:head] = 1.0 - (vectors @ q) / norms
        top = np.argsort(distances, kind="stable")[:k]
        return [(int(keys[i]), float(distances[i])) for i in top]

    def remove(self, rowids: Sequence[int]) -> None:
        if not rowids:
            return
        gone = np.asarray(rowids, dtype=np.int64)
        present = gone[np.isin(gone, self.ids)]
        if len(present):
            self.index.remove(present)  # type: ignore[attr-defined]
        keep = ~np.isin(self.ids, gone)
        self.ids, self.kinds, self.languages = (
            self.ids[keep],
            self.kinds[keep],
            self.languages[keep],
        )
        self.dirty = True

    def add(
        self,
        rowids: Sequence[int],
        vectors: Sequence[bytes],
        kinds: Sequence[str],
        languages: Sequence[str],
    ) -> None:
        if not rowids:
            return
        keys = np.asarray(rowids, dtype=np.int64)
        dim = self.index.ndim  # type: ignore[attr-defined]
        matrix = np.frombuffer(b"".join(vectors), dtype=np.float32).reshape(len(keys), dim)
        self.index.add(keys, matrix, threads=1)  # type: ignore[attr-defined]
        codes = {name: i for i, name in enumerate(self.vocab)}
        for name in (*kinds, *languages):
            if name not in codes:
                codes[name] = len(self.vocab)
                self.vocab.append(name)
        ids = np.concatenate([self.ids, keys])
        order = np.argsort(ids, kind="stable")
        self.ids = ids[order]
        self.kinds = np.concatenate([self.kinds, [codes[n] for n in kinds]]).astype(np.int32)[order]
        self.languages = np.concatenate([self.languages, [codes[n] for n in languages]]).astype(
            np.int32
        )[order]
        self.dirty = True

    # -- kept beside the index ------------------------------------------------------------------

    def save(self, path: Path, seq: int) -> None:
        """Write the graph and the rows to ``path`` (+ ``.rows.npz``, ``.json``) for ``seq``."""
        self.index.save(str(path))  # type: ignore[attr-defined]
        np.savez(
            path.with_suffix(".rows.npz"), ids=self.ids, kinds=self.kinds, langs=self.languages
        )
        path.with_suffix(".json").write_text(
            json.dumps({"seq": seq, "count": len(self.ids), "vocab": self.vocab})
        )
        self.dirty = False

    @classmethod
    def load(cls, path: Path, seq: int, count: int, fetch: FetchVectors) -> AnnCopy | None:
        """The copy saved for exactly this write sequence and row count, else None."""
        try:
            meta = json.loads(path.with_suffix(".json").read_text())
            if meta.get("seq") != seq or meta.get("count") != count:
                return None
            index = _usearch().Index.restore(str(path))
            if index is None:
                return None
            index.expansion_search = EXPANSION
            rows = np.load(path.with_suffix(".rows.npz"))
            copy = cls(index, rows["ids"], rows["kinds"], rows["langs"], meta["vocab"], fetch)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            log.info("the saved vector graph %s cannot be used: %s", path.name, exc)
            return None
        copy.seq = seq
        return copy


def _usearch():  # noqa: ANN202 - the usearch.index module
    """usearch, imported after onnxruntime: usearch loads its numkong kernels with RTLD_GLOBAL,
    and onnxruntime loaded after that crashes the process on load (seen here, usearch 2.26.6,
    onnxruntime via fastembed); loaded before, both work."""
    import onnxruntime  # noqa: F401 - see above
    import usearch.index

    return usearch.index
