"""The in-memory vector copy for large indexes gives the same answers as sqlite-vec."""

from __future__ import annotations

import numpy as np

import groundls.index.storage.reads
from groundls.results import SearchFilters


def test_matrix_knn_matches_sqlite_vec_and_follows_writes(
    indexed_search_ws, search_ws, fake_embedders, monkeypatch
):
    store = indexed_search_ws.store
    query = fake_embedders["static"].embed(["upload retry bucket"])[0]
    exact = store.knn("static", query, 5)  # sqlite-vec (index below the threshold)
    exact_docs = store.knn("static", query, 5, SearchFilters(kinds=("doc",)))
    monkeypatch.setattr(groundls.index.storage.reads, "LARGE_INDEX", 1)
    assert store._matrix("static") is not None
    fast = store.knn("static", query, 5)
    assert [r for r, _ in fast] == [r for r, _ in exact]
    assert np.allclose([d for _, d in fast], [d for _, d in exact], atol=1e-5)
    fast_docs = store.knn("static", query, 5, SearchFilters(kinds=("doc",)))
    assert [r for r, _ in fast_docs] == [r for r, _ in exact_docs] and fast_docs
    # a write by this process patches the copy; a deleted file's vectors leave it
    (search_ws / "src" / "storage" / "uploads.py").unlink()
    indexed_search_ws.index_paths(["src/storage/uploads.py"])
    after = store.knn("static", query, 50)
    gone = {r for r, _ in exact} - {r for r, _ in after}
    assert gone and all(store.hits_by_rowid([r]).get(r) is None for r in gone)
    assert store._copies.current("static", int(store.get_meta("write_seq"))) is not None


def test_sentence_vector_copy_matches_sqlite_vec_and_follows_edits(
    indexed_search_ws, search_ws, fake_embedders, monkeypatch
):
    store = indexed_search_ws.store
    query = fake_embedders["use"].embed(["ログレベルは環境変数 で変更できます。"])[0]
    exact = store.knn("use", query, 5, by_sentence=True)
    monkeypatch.setattr(groundls.index.storage.reads, "LARGE_INDEX", 1)
    assert store._matrix("use_parts") is not None
    fast = store.knn("use", query, 5, by_sentence=True)
    assert [r for r, _ in fast] == [r for r, _ in exact] and fast
    assert np.allclose([d for _, d in fast], [d for _, d in exact], atol=1e-5)
    # editing the document replaces its sentence vectors in the copy, not only in SQLite
    doc = search_ws / "docs" / "logging.ja.md"
    doc.write_text(doc.read_text().replace("七日間", "十四日間"), encoding="utf-8")
    indexed_search_ws.index_paths(["docs/logging.ja.md"])
    copy = store._copies.latest("use_parts")
    assert copy.seq == int(store.get_meta("write_seq"))
    in_sqlite = {r[0] for r in store.conn.execute("SELECT part FROM vec_use_parts")}
    assert set(copy.ids.tolist()) == in_sqlite


def _embeddings(n: int, dim: int, seed: int = 3) -> np.ndarray:
    """Unit vectors with most of their variance in a few directions, as real embeddings have."""
    rng = np.random.default_rng(seed)
    mix = rng.standard_normal((48, dim)).astype(np.float32)
    rows = rng.standard_normal((n, 48)).astype(np.float32) @ mix
    rows += 0.3 * rng.standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_projected_prefilter_finds_the_exact_nearest_neighbours():
    from groundls.index.storage.vector_copies import VectorMatrix

    rows = _embeddings(30_000, 384)
    kinds = ["code" if i % 3 else "doc" for i in range(len(rows))]
    matrix = VectorMatrix(np.arange(len(rows)), rows, kinds, ["python"] * len(rows))
    queries = _embeddings(20, 384, seed=11)
    recall = []
    for q in queries:
        exact = matrix.search(q, 50, rescore=0)
        fast = matrix.search(q, 50, rescore=1_000)
        assert len(fast) == 50 and [d for _, d in fast] == sorted(d for _, d in fast)
        recall.append(len({r for r, _ in exact} & {r for r, _ in fast}) / 50)
        docs = matrix.search(q, 10, kinds=["doc"], rescore=1_000)
        assert docs and all(kinds[r] == "doc" for r, _ in docs)
    assert np.mean(recall) >= 0.95


def test_rows_added_and_removed_keep_their_projection_in_step():
    from groundls.index.storage.vector_copies import VectorMatrix

    rows = _embeddings(5_000, 256)
    matrix = VectorMatrix(np.arange(4_000), rows[:4_000], ["code"] * 4_000, ["python"] * 4_000)
    matrix.add(
        list(range(4_000, 5_000)),
        [r.tobytes() for r in rows[4_000:]],
        ["doc"] * 1_000,
        ["markdown"] * 1_000,
    )
    matrix.remove(list(range(0, 4_000, 2)))
    assert len(matrix.reduced) == len(matrix.ids) == 3_000
    for probe in (4_321, 1):  # a row added later and a row that was there from the start
        (best, distance), *_ = matrix.search(rows[probe], 5, rescore=100)
        assert best == probe and abs(distance) < 1e-5
    assert all(r % 2 or r >= 4_000 for r, _ in matrix.search(rows[10], 50, rescore=200))


def test_warm_loads_the_copies_of_large_spaces_before_the_first_search(
    indexed_search_ws, monkeypatch
):
    indexed_search_ws.warm()
    assert (
        indexed_search_ws.store._copies.tables == set()
    )  # small index: sqlite-vec answers, nothing to load
    monkeypatch.setattr(groundls.index.storage.reads, "LARGE_INDEX", 1)
    indexed_search_ws.warm()
    assert indexed_search_ws.store._copies.tables == {"static", "use", "use_parts"}
