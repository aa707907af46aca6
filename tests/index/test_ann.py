"""The vector graph of very large spaces (``groundls.index.storage.ann``): recall against exact search,
filters, writes, and the copy kept beside the index."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from groundls.config import Config
from groundls.index.storage import ann, reads
from groundls.index.storage.ann import AnnCopy
from groundls.index.storage.vector_copies import VectorMatrix
from groundls.workspace import Workspace


def clustered(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    """Unit vectors around 50 centres: some structure, as real embeddings have."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((50, dim))
    v = centres[rng.integers(0, 50, n)] + 0.6 * rng.standard_normal((n, dim))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def make(vectors: np.ndarray, kinds: list[str] | None = None) -> AnnCopy:
    n = len(vectors)
    kinds = kinds or ["code"] * n
    rows = ((i + 1, vectors[i].tobytes(), kinds[i], "python") for i in range(n))
    held = {i + 1: vectors[i] for i in range(n)}
    return AnnCopy.build(rows, vectors.shape[1], lambda ids: np.array([held[i] for i in ids]))


def exact(vectors: np.ndarray, q: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[int]:
    ids = np.arange(1, len(vectors) + 1) if rows is None else rows + 1
    sims = (vectors if rows is None else vectors[rows]) @ q
    return [int(ids[i]) for i in np.argsort(-sims)[:k]]


def test_the_graph_finds_what_exact_search_finds():
    vectors = clustered(4000)
    copy = make(vectors)
    queries = clustered(40, seed=1)
    recall = np.mean(
        [len({r for r, _ in copy.search(q, 10)} & set(exact(vectors, q, 10))) / 10 for q in queries]
    )
    assert recall >= 0.95
    # distances are exact cosine distances, nearest first
    hits = copy.search(queries[0], 5)
    assert [round(d, 5) for _, d in hits] == sorted(round(d, 5) for _, d in hits)
    assert hits[0][1] == pytest.approx(1 - float(vectors[hits[0][0] - 1] @ queries[0]), abs=1e-5)


def test_a_kind_filter_keeps_only_that_kind_or_hands_over_to_the_exact_scan():
    vectors = clustered(3000)
    kinds = ["doc" if i % 10 == 0 else "code" for i in range(3000)]
    copy = make(vectors, kinds)
    q = clustered(1, seed=2)[0]
    hits = copy.search(q, 5, kinds=["doc"])
    if hits is not None:  # enough docs among the candidates
        assert all(kinds[r - 1] == "doc" for r, _ in hits)
    rare = ["config" if i == 7 else "code" for i in range(3000)]
    assert make(vectors, rare).search(q, 5, kinds=["config"]) is None  # too few: exact scan


def test_removed_rows_are_never_found_and_added_rows_are():
    vectors = clustered(2000)
    copy = make(vectors)
    q = vectors[41]
    assert copy.search(q, 1)[0][0] == 42
    copy.remove([42])
    assert 42 not in {r for r, _ in copy.search(q, 10)}
    copy.add([5000], [q.tobytes()], ["code"], ["python"])
    copy.fetch = lambda ids: np.array([q if i == 5000 else vectors[i - 1] for i in ids])
    assert copy.search(q, 1)[0][0] == 5000
    assert copy.dirty


def test_the_saved_graph_is_used_only_for_the_write_it_was_saved_at(tmp_path: Path):
    vectors = clustered(1500)
    copy = make(vectors)
    path = tmp_path / "idx.static.usearch"
    copy.save(path, seq=7)
    again = AnnCopy.load(path, 7, len(vectors), copy.fetch)
    assert again is not None and not again.dirty
    q = vectors[10]
    assert again.search(q, 3) == copy.search(q, 3)
    assert AnnCopy.load(path, 8, len(vectors), copy.fetch) is None  # written since
    assert AnnCopy.load(tmp_path / "missing.usearch", 7, 1, copy.fetch) is None


@pytest.mark.slow
def test_past_the_threshold_search_goes_through_the_graph_and_ranks_as_exact_search(
    search_ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(reads, "LARGE_INDEX", 1)
    ws = Workspace.open(search_ws, Config(), tmp_path)
    ws.index()
    query = ws.models.query_vector("static", "retry failed uploads")
    exact_hits = ws.store.knn("static", query, 5)
    ws.store._copies = type(ws.store._copies)()  # forget the float copy
    monkeypatch.setattr(reads, "ANN_FROM", 1)
    graph_hits = ws.store.knn("static", query, 5)
    assert isinstance(ws.store._matrix("static"), AnnCopy)
    assert [r for r, _ in graph_hits] == [r for r, _ in exact_hits]
    assert [d for _, d in graph_hits] == pytest.approx([d for _, d in exact_hits], abs=1e-5)
    assert ws.store.ann_path("static").exists()  # kept for the next process
    ws.close()
    assert isinstance(VectorMatrix, type) and ann.EXPANSION > 0


@pytest.mark.slow
def test_the_models_load_after_the_vector_graph_in_one_process():
    # usearch loads its kernels with RTLD_GLOBAL; onnxruntime loaded afterwards used to crash
    code = (
        "import numpy as np\n"
        "from groundls.index.storage.ann import AnnCopy\n"
        "v = np.eye(4, dtype=np.float32)\n"
        "AnnCopy.build(((i, v[i].tobytes(), 'code', 'py') for i in range(4)), 4, None)\n"
        "from groundls.index.embed.embedders import Embedders\n"
        "print(Embedders().get('minilm').embed(['hello']).shape)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    assert "(1, 384)" in done.stdout
