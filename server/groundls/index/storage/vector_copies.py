"""In-memory copy of one embedding space for fast KNN on large indexes.

sqlite-vec's ``vec0`` scans every vector with scalar code: about 0.1-0.5 s per query at 100k
chunks on 2 cores, so above ``LARGE_INDEX`` vectors the store keeps this copy in step with its
writes (and reloads it when another process has written).

Even one BLAS product over 100k float32 vectors is memory-bound (8-12 ms per space here). So the
copy also keeps every vector projected onto its space's 128 main directions (PCA, fitted once
on a sample when the copy is loaded): a query ranks all rows in that small space, then scores
only the best ``RESCORE_SHARE`` of them exactly. Recall of the exact top 50 for real questions
on 20k real chunk vectors: 0.988 (BENCHMARKS.md).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from groundls.index.storage.ann import AnnCopy

#: From this many vectors on, a space is searched from the copy. sqlite-vec's scan costs
#: ~16-20 ms per 10k vectors here; loading the copy ~0.3-0.8 s per 10k, once per process.
LARGE_INDEX = 5_000
#: Dimensions of the projected copy used to pick the rows that are scored exactly.
REDUCED_DIMS = 128
#: Share of the rows scored exactly (at least ``MIN_RESCORE`` rows, and 20 per wanted result).
RESCORE_SHARE = 0.025
MIN_RESCORE = 1_000
#: Rows the projection is fitted on.
_FIT_SAMPLE = 5_000


class VectorMatrix:
    """Row ids, unit vectors and the metadata the filters use, for one space."""

    def __init__(
        self, ids: np.ndarray, matrix: np.ndarray, kinds: Sequence[str], languages: Sequence[str]
    ) -> None:
        self.ids = np.asarray(ids, dtype=np.int64)
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.kinds = np.asarray(kinds, dtype=object)
        self.languages = np.asarray(languages, dtype=object)
        self.seq = -1
        self.center: np.ndarray | None = None
        self.basis: np.ndarray | None = None
        self.reduced = np.zeros((0, 0), dtype=np.float32)
        self._fit()

    def _fit(self) -> None:
        """Fit the projection on (a sample of) the current rows; below it, scoring is exact."""
        n, dim = self.matrix.shape if self.matrix.ndim == 2 else (0, 0)
        if n < MIN_RESCORE or dim <= REDUCED_DIMS:
            return
        rng = np.random.default_rng(0)
        sample = self.matrix[rng.choice(n, min(n, _FIT_SAMPLE), replace=False)]
        self.center = sample.mean(axis=0)
        _, _, vt = np.linalg.svd(sample - self.center, full_matrices=False)
        self.basis = np.ascontiguousarray(vt[:REDUCED_DIMS].T, dtype=np.float32)
        self.reduced = self._project(self.matrix)

    def _project(self, rows: np.ndarray) -> np.ndarray:
        assert self.basis is not None and self.center is not None
        return np.ascontiguousarray((rows - self.center) @ self.basis, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.ids)

    def search(
        self,
        vector: np.ndarray,
        k: int,
        kinds: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        rescore: int | None = None,
    ) -> list[tuple[int, float]]:
        """Cosine KNN: (rowid, cosine distance), nearest first.

        Rows are ranked in the projected space, then the best ``rescore`` of them (default:
        ``RESCORE_SHARE`` of all rows, at least ``MIN_RESCORE`` and ``20 * k``) are scored
        exactly; ``rescore=0`` scores every row exactly.
        """
        if not len(self.ids):
            return []
        q = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(q))
        if norm:
            q = q / norm
        mask = None
        if kinds or languages:
            mask = np.ones(len(self.ids), dtype=bool)
            if kinds:
                mask &= np.isin(self.kinds, list(kinds))
            if languages:
                mask &= np.isin(self.languages, list(languages))
        if rescore is None:
            rescore = max(MIN_RESCORE, 20 * k, int(len(self.ids) * RESCORE_SHARE))
        rows: np.ndarray | None = None
        if self.basis is not None and 0 < rescore < len(self.ids):
            approx = self.reduced @ self._project(q[None, :])[0]
            if mask is not None:
                approx[~mask] = -np.inf
            rows = np.argpartition(-approx, rescore - 1)[:rescore]
            if mask is not None:
                rows = rows[mask[rows]]
        elif mask is not None:
            rows = np.flatnonzero(mask)
        sims = self.matrix @ q if rows is None else self.matrix[rows] @ q
        k = min(k, len(sims))
        if k <= 0:
            return []
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        index = top if rows is None else rows[top]
        return [(int(self.ids[i]), float(1.0 - s)) for i, s in zip(index, sims[top], strict=True)]

    def remove(self, rowids: Sequence[int]) -> None:
        if not rowids:
            return
        keep = ~np.isin(self.ids, np.asarray(rowids, dtype=np.int64))
        self.ids, self.matrix = self.ids[keep], self.matrix[keep]
        if self.basis is not None:
            self.reduced = self.reduced[keep]
        self.kinds, self.languages = self.kinds[keep], self.languages[keep]

    def add(
        self,
        rowids: Sequence[int],
        vectors: Sequence[bytes],
        kinds: Sequence[str],
        languages: Sequence[str],
    ) -> None:
        if not rowids:
            return
        new = np.frombuffer(b"".join(vectors), dtype=np.float32).reshape(len(rowids), -1)
        new = (new / np.maximum(np.linalg.norm(new, axis=1, keepdims=True), 1e-12)).astype(
            np.float32
        )
        self.ids = np.concatenate([self.ids, np.asarray(rowids, dtype=np.int64)])
        self.matrix = np.vstack([self.matrix, new])
        if self.basis is not None:
            self.reduced = np.vstack([self.reduced, self._project(new)])
        else:
            self._fit()
        self.kinds = np.concatenate([self.kinds, np.asarray(kinds, dtype=object)])
        self.languages = np.concatenate([self.languages, np.asarray(languages, dtype=object)])

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[int, bytes, str, str]], dim: int) -> VectorMatrix:
        if not rows:
            return cls(np.zeros(0), np.zeros((0, dim), np.float32), [], [])
        ids = [r[0] for r in rows]
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(
            len(rows), dim
        )
        matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        return cls(np.asarray(ids), matrix, [r[2] for r in rows], [r[3] for r in rows])


#: A large table's copy: every vector, or (past ``ann.ANN_FROM``) a graph over int8 copies.
Copy = VectorMatrix | AnnCopy


class VectorCopies:
    """A store's in-memory copies of its large vector tables, kept in step with its writes.

    Each copy remembers the store's write sequence number when it was made; a copy whose number
    is behind (another process wrote) is dropped and reloaded on next use.
    """

    def __init__(self) -> None:
        self._matrices: dict[str, Copy] = {}
        self._lock = threading.Lock()

    @property
    def tables(self) -> set[str]:
        """The vector tables that have a copy loaded."""
        with self._lock:
            return set(self._matrices)

    def latest(self, table: str) -> Copy | None:
        with self._lock:
            return self._matrices.get(table)

    def current(self, table: str, seq: int) -> Copy | None:
        with self._lock:
            matrix = self._matrices.get(table)
            return matrix if matrix is not None and matrix.seq == seq else None

    def put(self, table: str, matrix: Copy, seq: int) -> Copy:
        matrix.seq = seq
        with self._lock:
            self._matrices[table] = matrix
        return matrix

    def patch(
        self,
        seq: int,
        removed: list[int],
        added: list[tuple[str, int, bytes, str, str]],
        removed_parts: list[int],
    ) -> None:
        """Apply this process's own write to the copies, or drop a copy out of step.

        ``added`` entries are (table: ``space`` or ``space_parts``, id, vector, kind, language);
        ``removed`` are chunk ids and ``removed_parts`` sentence-vector ids.
        """
        with self._lock:
            for table, matrix in list(self._matrices.items()):
                if matrix.seq != seq - 1:
                    del self._matrices[table]
                    continue
                matrix.remove(removed_parts if table.endswith("_parts") else removed)
                mine = [a for a in added if a[0] == table]
                matrix.add(
                    [a[1] for a in mine],
                    [a[2] for a in mine],
                    [a[3] for a in mine],
                    [a[4] for a in mine],
                )
                matrix.seq = seq
