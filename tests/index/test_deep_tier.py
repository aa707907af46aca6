"""The deep tier: its spaces filled in the order the workspace wants them, and a partly filled
space counting only as much as it covers (fake embedders: logic only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from groundls.config import Config
from groundls.index.embed.embedders import E5Embedder, MiniLMEmbedder
from groundls.results import SearchFilters
from groundls.workspace import Workspace
from tests.helpers.fakes import FakeEmbedder

JA_PROSE = "# 設定\n\nログの保存期間は七日間です。古いログは自動的に削除されます。\n"
CODE = "def upload_with_retry(path, attempts=3):\n    return send(path)\n"


def fakes() -> dict[str, FakeEmbedder]:
    return {
        "static": FakeEmbedder("fake-static", 32),
        "use": FakeEmbedder("fake-use", 32),
        "minilm": FakeEmbedder("fake-minilm", 32),
        "e5": FakeEmbedder("fake-e5", 32),
    }


def open_ws(root: Path, tmp_path: Path) -> Workspace:
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    return Workspace.open(root, config, tmp_path / "index", embedders=fakes())


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_a_japanese_manual_fills_its_multilingual_space_first(tmp_path: Path) -> None:
    root = tmp_path / "manual"
    write(root, {f"ch{n}.md": JA_PROSE.replace("七", str(n)) for n in range(6)} | {"a.py": CODE})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    assert workspace.indexer.deep_order() == ["e5", "minilm"]


def test_a_code_repository_fills_minilm_first(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {f"m{n}.py": CODE.replace("upload", f"upload{n}") for n in range(6)})
    write(root, {"README.md": JA_PROSE})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    assert workspace.indexer.deep_order() == ["minilm", "e5"]


def test_a_fill_can_be_kept_to_one_deep_space(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {f"m{n}.py": CODE.replace("upload", f"upload{n}") for n in range(3)})
    write(root, {"guide.md": JA_PROSE})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    fraction = workspace.indexer.fill_fraction
    # minilm comes first in this workspace's order, yet only e5 is filled
    assert workspace.indexer.deep_order()[0] == "minilm"
    # the guide, and the three functions' glosses
    assert workspace.fill_deep(spaces=("e5",)) == 4
    assert fraction("e5") == 1.0 and fraction("minilm") == 0.0
    assert workspace.fill_deep(spaces=("e5",)) == 0
    assert workspace.fill_deep() > 0 and fraction("minilm") == 1.0


def test_e5_embeds_prose_and_not_config_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {"guide.md": JA_PROSE, "deploy.yaml": "replicas: 3\nimage: web:1.2\n"})
    write(root, {"logo.svg": '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h9"/></svg>\n'})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    workspace.fill_deep()
    store = workspace.store

    def in_e5(path: str) -> tuple[str, bool]:
        chunk = store.chunk_at(path, 1)
        assert chunk is not None
        return chunk.kind, bool(store.rowids_in("e5", [store.chunk_rowid(chunk.chunk_id)]))

    assert in_e5("guide.md") == ("doc", True)
    assert in_e5("deploy.yaml") == ("config", False)
    assert in_e5("logo.svg") == ("config", False)
    assert workspace.indexer.fill_fraction("e5") == 1.0


def test_a_partly_filled_deep_space_counts_as_much_as_it_covers(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {f"m{n}.py": CODE.replace("upload", f"upload{n}") for n in range(8)})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    fraction = workspace.indexer.fill_fraction
    assert fraction("static") == 1.0 and fraction("minilm") == 0.0
    workspace.fill_deep(max_chunks=2)
    assert 0.0 < fraction("minilm") < 1.0
    workspace.fill_deep()
    assert fraction("minilm") == 1.0
    assert workspace.search("upload3 with retry", SearchFilters(k=3)).hits


@pytest.mark.slow
def test_e5_embeds_queries_and_passages_with_their_own_prefixes() -> None:
    model = E5Embedder(max_chars=600)
    text = "ログの保存期間は七日間です。"
    passage = model.embed([text])[0]
    query = model.embed_query(text)
    assert passage.shape == query.shape == (384,)
    assert not np.allclose(passage, query)  # "passage: " and "query: " differ
    assert abs(float(np.linalg.norm(passage)) - 1.0) < 1e-3
    # a passage is embedded as its first max_chars characters
    long = text * 100
    assert np.allclose(model.embed([long])[0], model.embed([long[:600]])[0], atol=1e-5)
    assert model.version.endswith("/chars=600")


def test_minilm_embeds_a_question_on_its_own_session_as_it_embeds_a_passage() -> None:
    model = MiniLMEmbedder()
    texts = ["how are failed uploads retried", "where is the log retention set"]
    passages = model.embed(texts)
    for text, passage in zip(texts, passages, strict=True):
        assert np.allclose(model.embed_query(text), passage, atol=1e-5)
    assert model._query_model is not model._model  # the question's one-thread session


def test_the_fill_embeds_first_the_candidates_a_search_reached(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {f"m{n}.py": CODE.replace("upload", f"upload{n}") for n in range(200)})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    workspace.search("upload127 with retry", SearchFilters(k=3))
    queued = list(workspace.indexer._asked.get("minilm", {}))
    assert queued, "the search handed the candidates minilm lacks to the fill"
    workspace.fill_deep(max_chunks=3)
    filled = workspace.store.rowids_in("minilm", list(range(1, 1000)))
    # the three embedded are the search's best candidates, not the first three of the index
    assert len(filled) == 3
    assert filled == set(queued[-3:])
    best = workspace.store.chunk_rowid(
        next(h.chunk_id for h in workspace.search("upload127", SearchFilters(k=1)).hits)
    )
    assert best in filled


def test_a_deep_space_that_holds_every_candidate_counts_fully_however_little_it_holds(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    write(root, {f"m{n}.py": CODE.replace("upload", f"upload{n}") for n in range(200)})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    searcher = workspace.searcher
    weights: list[float] = []
    original = searcher._rank

    def spy(q, lists, *args, **kw):  # type: ignore[no-untyped-def]
        weights.extend(r.weight for r in lists if r.name == "vector:minilm")
        return original(q, lists, *args, **kw)

    searcher._rank = spy  # type: ignore[method-assign]
    workspace.fill_deep(max_chunks=2)  # the index's first two chunks, before any question
    workspace.search("upload127 with retry", SearchFilters(k=3))
    assert weights[-1] < 0.1  # hardly any of the question's candidates held yet
    workspace.fill_deep(max_chunks=len(workspace.indexer._asked["minilm"]))
    assert workspace.indexer.fill_fraction("minilm") < 0.9
    workspace.search("upload127 with retry", SearchFilters(k=3))
    assert weights[-1] == 1.0  # every one of them held, most of the workspace not


def test_the_latest_questions_candidates_are_taken_first_and_the_queue_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from groundls.index import deep as deep_module

    root = tmp_path / "repo"
    write(root, {"m.py": CODE})
    workspace = open_ws(root, tmp_path)
    monkeypatch.setattr(deep_module, "ASKED_KEPT", 5)
    index = workspace.indexer
    index.want_first("minilm", [1, 2, 3])
    index.want_first("minilm", [7, 8, 9, 2])
    assert index._take_asked("minilm", 3) == [7, 8, 9]
    assert index._take_asked("minilm", 10) == [2, 1]  # 3, the oldest, was forgotten
    assert index._take_asked("minilm", 10) == []


@pytest.mark.slow
def test_with_the_real_models_a_questions_candidates_get_their_deep_vectors_first(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    topics = ["upload", "invoice", "thumbnail", "session", "cache", "webhook", "backup", "quota"]
    write(
        root,
        {
            f"pkg/{topic}_{n}.py": (
                f"def {topic}_step_{n}(item, attempts=3):\n"
                f'    """Handle the {topic} step {n} for one item."""\n'
                f"    return run_{topic}(item, attempts)\n"
            )
            for topic in topics
            for n in range(25)
        },
    )
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    workspace = Workspace.open(root, config, tmp_path / "index")
    try:
        workspace.index()
        assert workspace.indexer.fill_fraction("minilm") == 0.0
        hits = workspace.search("generate a thumbnail for an item", SearchFilters(k=5)).hits
        assert hits and "thumbnail" in hits[0].path
        workspace.fill_deep(max_chunks=5)
        filled = workspace.store.rowids_in("minilm", list(range(1, 400)))
        assert len(filled) == 5
        best = workspace.store.chunk_rowid(hits[0].chunk_id)
        assert best in filled  # not the workspace's first five chunks (pkg/backup_*)
        filled_paths = {h.path for h in workspace.store.hits_by_rowid(list(filled)).values()}
        assert not any(p.startswith("pkg/backup_") for p in filled_paths)
    finally:
        workspace.close()


def test_a_filled_space_frees_minilms_batch_session_until_a_file_changes(tmp_path: Path) -> None:
    """The batch session's buffers grow with the largest batch it ran; once MiniLM's space is
    filled, only the query session stays loaded, and the next fill loads the batch one again."""
    root = tmp_path / "ws"
    write(root, {"a.py": CODE, "b.py": CODE.replace("upload", "download")})
    minilm = MiniLMEmbedder()
    models = {**fakes(), "minilm": minilm}
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    ws = Workspace.open(root, config, tmp_path / "index", embedders=models)
    try:
        ws.index()
        assert minilm._model is not None
        assert ws.fill_deep(spaces=["minilm"]) > 0
        assert minilm._model is None  # filled: the batch session is gone
        write(root, {"c.py": CODE.replace("upload", "archive")})
        ws.index()
        assert ws.fill_deep(spaces=["minilm"]) == 1
        assert ws.store.count_in("minilm") == 3 and minilm._model is None
        assert minilm.embed(["def f(): pass"]).shape == (1, 384)  # loaded again on demand
    finally:
        ws.close()


JAVA_JA = """package org.example.text;

/** 文字列のユーティリティです。 */
public final class Texts {

    /**
     * 文字列が<code>null</code>または空なら、与えられた既定値を返します。
     *
     * @param text 文字列
     */
    static String orDefault(final String text, final String fallback) {
        return text == null || text.isEmpty() ? fallback : text;
    }
}
"""


def test_every_code_chunk_is_read_in_words_by_the_multilingual_model_in_the_deep_tier(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    write(root, {"src/Texts.java": JAVA_JA, "upload.py": CODE})
    embedders = fakes()
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    workspace = Workspace.open(root, config, tmp_path / "index", embedders=embedders)
    workspace.index()
    assert not embedders["e5"].texts  # the first index waits for nothing more
    workspace.fill_deep()
    store = workspace.store

    def spaces(path: str, line: int) -> set[str]:
        chunk = store.chunk_at(path, line)
        assert chunk is not None and chunk.kind == "code"
        rowid = store.chunk_rowid(chunk.chunk_id)
        return {s for s in ("static", "minilm", "use", "e5") if store.rowids_in(s, [rowid])}

    assert spaces("src/Texts.java", 12) == spaces("upload.py", 1) == {"static", "minilm", "e5"}
    # e5 reads a method's names as words and its comments, without comment markers or markup;
    # the English models read its code
    read = next(t for t in embedders["e5"].texts if "or default" in t)
    assert "texts: or default" in read and "文字列がnullまたは空なら" in read
    assert "/**" not in read and "<code>" not in read and "return text" not in read
    assert any("return text == null" in t for t in embedders["minilm"].texts)
    assert "upload: upload with retry" in embedders["e5"].texts  # its names alone
    assert not any("upload" in t for t in embedders["use"].texts)
