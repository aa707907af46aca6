"""A search's query vectors: each (space, text) pair embedded side by side on a small pool."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from groundls.index.embed.embedders import Embedders, EmbedderUnavailable

#: Threads that embed a question in the spaces side by side (one per space at most).
_QUERY_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="groundls-query")

#: A vector, or why its space could not embed it now (a model server that is down).
Vector = np.ndarray | EmbedderUnavailable
#: The vectors of one search, by (space, text).
QueryVectors = Mapping[tuple[str, str], Vector]


class _Pending(Mapping[tuple[str, str], Vector]):
    """Query vectors still being embedded: reading one waits for that one only, so the work
    that needs the fast models' vectors goes on while the slowest is still being embedded."""

    def __init__(self, futures: dict[tuple[str, str], Future]) -> None:
        self._futures = futures

    def __getitem__(self, pair: tuple[str, str]) -> Vector:
        return self._futures[pair].result()

    def __iter__(self):  # noqa: ANN204 - Mapping's own signature
        return iter(self._futures)

    def __len__(self) -> int:
        return len(self._futures)


def embed_queries(models: Embedders, pairs: Sequence[tuple[str, str]]) -> QueryVectors:
    """The vectors of (space, text) pairs, the models side by side: each holds its own lock and
    most of their work leaves Python's lock, so the slowest model's query need not wait for the
    others."""

    def one(pair: tuple[str, str]) -> Vector:
        try:
            return models.query_vector(*pair)
        except EmbedderUnavailable as exc:
            return exc

    if len(pairs) < 2:
        return {pair: one(pair) for pair in pairs}
    return _Pending({pair: _QUERY_POOL.submit(one, pair) for pair in pairs})


def vector_of(models: Embedders, vectors: QueryVectors | None, space: str, text: str) -> Vector:
    """A text's vector in ``space`` from this search's batch, or embedded now when the batch
    lacks it (raises :class:`EmbedderUnavailable` then)."""
    vector = vectors.get((space, text)) if vectors is not None else None
    return vector if vector is not None else models.query_vector(space, text)
