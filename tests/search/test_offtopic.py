"""A question's standing among the off-topic questions a workspace cannot answer: a percentile
on the workspace's own scale, in the question's language, with no model call."""

from __future__ import annotations

import numpy as np

from groundls.search.offtopic import OffTopic, pool_language
from groundls.search.offtopic_pool import POOL


class _Models:
    """A question's vector: its nearness to the workspace, written into the first component."""

    def __init__(self, near: dict[str, float]) -> None:
        self.near = near
        self.embedded: list[str] = []

    def query_vector(self, space: str, text: str) -> np.ndarray:
        self.embedded.append(text)
        return np.array([self.near.get(text, 0.5)], dtype=np.float32)


class _Store:
    def __init__(self, spaces: tuple[str, ...], seq: str = "1") -> None:
        self.spaces, self.seq = spaces, seq

    def has_chunks_in(self, space: str) -> bool:
        return space in self.spaces

    def knn(self, space: str, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        return [(1, 1.0 - float(vector[0]))]  # (rowid, cosine distance)

    def get_meta(self, key: str) -> str:
        return self.seq


def test_a_question_stands_among_the_pool_in_its_language_on_the_workspaces_scale() -> None:
    # the pool's questions are 0.5 near this workspace: the scale is the workspace's
    models = _Models({"Where does click parse options?": 0.8, "離れた質問": 0.3})
    offtopic = OffTopic(_Store(("e5", "use")), models)  # type: ignore[arg-type]
    near = offtopic.standing("Where does click parse options?", "en")
    assert near is not None and near.percentile == 1.0 and near.pool == len(POOL["en"])
    assert set(near.nearness) == {"use", "e5"}
    far = offtopic.standing("離れた質問", "ja")
    assert far is not None and far.percentile == 0.0 and far.language == "ja"
    assert set(POOL["ja"]) <= set(models.embedded)  # read against the Japanese pool


def test_the_pool_is_read_once_for_each_state_of_the_index() -> None:
    models = _Models({})
    store = _Store(("e5",))
    offtopic = OffTopic(store, models)  # type: ignore[arg-type]
    offtopic.standing("a question", "en")
    offtopic.standing("another question", "en")
    assert models.embedded.count(POOL["en"][0]) == 1
    store.seq = "2"  # the index changed
    offtopic.standing("a question", "en")
    assert models.embedded.count(POOL["en"][0]) == 2


def test_no_multilingual_vectors_no_standing_and_an_unpooled_language_reads_english() -> None:
    assert OffTopic(_Store(("static",)), _Models({})).standing("q", "en") is None  # type: ignore[arg-type]
    assert pool_language("pt") == "en" and pool_language("ko") == "ko"
    assert all(len(POOL[lang]) >= 15 for lang in ("en", "ja", "zh", "ko", "de", "fr", "es"))
