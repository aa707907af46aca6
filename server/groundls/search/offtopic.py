"""How near a question comes to the workspace, read against how near the questions it cannot
answer come: the workspace's own scale, not a constant.

A raw similarity means different things in different workspaces and models: a large manual has
some passage close to almost anything, a small library little close to anything. So a packaged
pool of off-topic questions (:mod:`.offtopic_pool`, in each language groundls answers in) is
searched against the workspace, with no model call, once for each state of the index. A
question's nearness (its nearest chunk's cosine, in each multilingual space the index holds) is
then a percentile among the pool's in the question's language: 0.95 means nearer than 95 % of
the questions this workspace cannot answer. The multilingual spaces read both languages, so a
Japanese question about English code is measured as it is asked.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from groundls.index.embed.embedders import Embedders, EmbedderUnavailable
from groundls.index.storage.store import Store
from groundls.search.language import MULTILINGUAL_SPACES
from groundls.search.offtopic_pool import POOL


@dataclass(frozen=True)
class Standing:
    """Where a question stands among the off-topic pool's, in this workspace."""

    #: the share of the pool's questions less near the workspace (0.0-1.0), the spaces' mean
    percentile: float
    #: the question's nearness (the nearest chunk's cosine) in each space read
    nearness: dict[str, float]
    #: the pool's questions read (in the question's language)
    pool: int
    language: str

    def as_dict(self) -> dict[str, object]:
        return {
            "percentile": round(self.percentile, 3),
            "nearness": {s: round(v, 3) for s, v in self.nearness.items()},
            "pool": self.pool,
            "language": self.language,
        }


def pool_language(language: str) -> str:
    """The pool a question in ``language`` is read against (English for one it lacks)."""
    return language if language in POOL else "en"


class OffTopic:
    """The pool's nearness in one workspace, kept until the index changes."""

    def __init__(self, store: Store, models: Embedders) -> None:
        self.store = store
        self.models = models
        self._lock = threading.Lock()
        self._kept: dict[tuple[str, str, str], list[float]] = {}

    def spaces(self) -> list[str]:
        """The multilingual spaces that hold vectors now."""
        return [s for s in MULTILINGUAL_SPACES if self.store.has_chunks_in(s)]

    def standing(self, question: str, language: str) -> Standing | None:
        """``question``'s standing among the off-topic questions in its language; None when no
        multilingual space holds vectors or none can embed now."""
        language = pool_language(language)
        nearness: dict[str, float] = {}
        shares: list[float] = []
        for space in self.spaces():
            try:
                near = self._nearness(space, question)
                pool = self._pool(space, language)
            except EmbedderUnavailable:
                continue
            if near is None or not pool:
                continue
            nearness[space] = near
            shares.append(sum(p < near for p in pool) / len(pool))
        if not shares:
            return None
        return Standing(sum(shares) / len(shares), nearness, len(POOL[language]), language)

    def _nearness(self, space: str, text: str) -> float | None:
        found = self.store.knn(space, self.models.query_vector(space, text), 1)
        return 1.0 - found[0][1] if found else None

    def _pool(self, space: str, language: str) -> list[float]:
        """The pool's nearness in ``space``, read again after the index changed."""
        key = (self.store.get_meta("write_seq") or "", space, language)
        with self._lock:
            if key not in self._kept:
                near = (self._nearness(space, q) for q in POOL[language])
                self._kept = {k: v for k, v in self._kept.items() if k[0] == key[0]}
                self._kept[key] = [n for n in near if n is not None]
            return self._kept[key]
