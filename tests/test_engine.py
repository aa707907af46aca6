"""Engine logic with a fake embedder: incremental indexing, removal, model change, safety rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FakeEmbedder
from groundls.config import Config
from groundls.engine import Engine, InvalidChunkId
from groundls.lexical import match_expression, query_terms


def open_engine(ws: Path, tmp_path: Path, embedders, **config) -> Engine:
    cfg, warnings = Config.from_dict(config)
    assert not warnings
    return Engine.open(ws, cfg, tmp_path / "index", embedders=embedders)


def test_index_skips_secrets_ignored_binary_and_invalid_utf8(search_ws, tmp_path, fake_embedders):
    (search_ws / "node_modules" / "pkg").mkdir(parents=True)
    (search_ws / "node_modules" / "pkg" / "index.js").write_text("module.exports = 1;\n")
    (search_ws / "docs" / "blob.txt").write_bytes(b"\x00\x01binary\x00")
    (search_ws / "docs" / "latin1.txt").write_bytes(b"caf\xe9 latin-1 text\n")
    (search_ws / "debug.log").write_text("ignored by .gitignore\n")
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    report = engine.index()
    stats = engine.stats()
    indexed = {r[0] for r in engine.store.conn.execute("SELECT path FROM files")}
    assert indexed == {
        "src/storage/uploads.py",
        "src/storage/settings.py",
        "docs/guide.md",
        "docs/logging.ja.md",
    }
    assert report.skipped == {"binary": 1, "invalid-utf8": 1, "secret": 1}
    assert stats["skipped"] == {"binary": 1, "invalid-utf8": 1, "secret": 1}
    assert not any("SECRET_TOKEN" in h.text for h in engine.search("SECRET_TOKEN abc123", k=50))


def test_secret_files_are_indexed_only_after_opting_in(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders, indexSecrets=True)
    engine.index()
    assert engine.store.file_checksum("secrets.yaml") is not None


def test_second_run_reuses_everything_and_embeds_nothing(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    first = engine.index()
    assert first.embedded > 0
    second = engine.index()
    assert second.embedded == 0
    assert second.files_unchanged == first.files_indexed
    assert second.files_indexed == 0


def test_editing_one_function_reembeds_only_that_chunk_and_keeps_other_ids(
    search_ws, tmp_path, fake_embedders
):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    engine.index()
    path = "src/storage/uploads.py"
    before = {
        r[0]: r[1]
        for r in engine.store.conn.execute(
            "SELECT chunk_id, content_hash FROM chunks WHERE path = ?", (path,)
        )
    }
    source = search_ws / path
    source.write_text(
        source.read_text().replace(
            'raise ValueError(f"not an s3 URL', 'raise TypeError(f"not an s3 URL'
        )
    )
    report = engine.index_paths([path])
    after = {
        r[0]: r[1]
        for r in engine.store.conn.execute(
            "SELECT chunk_id, content_hash FROM chunks WHERE path = ?", (path,)
        )
    }
    assert set(after) == set(before)  # ids are stable
    changed = [cid for cid in after if after[cid] != before[cid]]
    assert len(changed) == 1
    assert report.embedded == 1  # only the changed chunk, in the one space code uses
    assert engine.get_chunk(changed[0]).title.endswith("parse_bucket_url")


def test_deleted_and_renamed_files_leave_the_index(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    engine.index()
    (search_ws / "docs" / "guide.md").rename(search_ws / "docs" / "manual.md")
    (search_ws / "src" / "storage" / "settings.py").unlink()
    report = engine.index()
    paths = {r[0] for r in engine.store.conn.execute("SELECT DISTINCT path FROM chunks")}
    assert "docs/guide.md" not in paths and "src/storage/settings.py" not in paths
    assert "docs/manual.md" in paths
    assert report.files_removed == 2
    # The path is part of the embedded context, so only the renamed file is embedded again.
    spaces = engine.store.conn.execute(
        "SELECT space FROM chunks WHERE path = 'docs/manual.md'"
    ).fetchall()
    assert report.embedded == sum(len(s[0].split(",")) for s in spaces)


def test_index_paths_removes_a_file_deleted_on_disk(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    engine.index()
    (search_ws / "docs" / "guide.md").unlink()
    report = engine.index_paths(["docs/guide.md"])
    assert report.files_removed == 1
    assert engine.chunk_at("docs/guide.md", 1) is None


def test_model_change_triggers_a_clean_reembed(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    first = engine.index()
    engine.close()
    changed = {"minilm": FakeEmbedder("fake-minilm-v2", 32), "use": fake_embedders["use"]}
    engine = open_engine(search_ws, tmp_path, changed)
    report = engine.index()
    assert report.files_indexed == first.files_indexed
    assert changed["minilm"].embedded > 0
    dims = {r[0] for r in engine.store.conn.execute("SELECT vec_length(embedding) FROM vec_minilm")}
    assert dims == {32}
    assert json.loads(engine.store.get_meta("space:minilm"))["model"] == "fake-minilm-v2"


def test_interrupted_run_resumes_without_starting_over(
    search_ws, tmp_path, fake_embedders, monkeypatch
):
    import threading

    import groundls.engine

    monkeypatch.setattr(groundls.engine, "EMBED_BATCH", 1)  # write after every file
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    cancel = threading.Event()
    seen = []

    def on_progress(p):
        seen.append(p.done_files)
        if p.done_files >= 1:
            cancel.set()

    partial = engine.index(progress=on_progress, cancel=cancel)
    assert partial.cancelled
    done_before = set(engine.store.file_checksums())
    rest = engine.index()
    assert rest.files_unchanged == len(done_before)
    assert rest.files_indexed == 4 - len(done_before)


def test_migrations_are_numbered_and_reopening_is_a_no_op(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    from groundls.db import MIGRATIONS

    version = engine.store.conn.execute("PRAGMA user_version").fetchone()[0]
    assert version == len(MIGRATIONS)
    mode = engine.store.conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    engine.close()
    again = open_engine(search_ws, tmp_path, fake_embedders)
    assert again.store.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced quote',
        "bucket: NOT AND OR",
        "NEAR(a b)",
        "col:value",
        "*",
        "ログレベル？",
        "a)(b",
        "^caret",
    ],
)
def test_user_text_never_breaks_the_keyword_query(search_ws, tmp_path, fake_embedders, query):
    engine = open_engine(search_ws, tmp_path, fake_embedders, search={"minSimilarity": 0.0})
    engine.index()
    engine.search(query)  # must not raise an FTS5 syntax error


def test_match_expression_quotes_every_term():
    assert match_expression(['say "hi"', "or"]) == '"say ""hi""" OR "or"'
    assert query_terms("ログレベルはどこで変更しますか") == [
        "ログ",
        "グレ",
        "レベ",
        "ベル",
        "ルは",
        "で変",
        "変更",
        "更し",
    ]


def test_filters_restrict_hits_by_path_language_and_kind(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders, search={"minSimilarity": 0.0})
    engine.index()
    assert {h.kind for h in engine.search("upload retry log level", kinds=["doc"])} == {"doc"}
    assert {h.language for h in engine.search("upload retry", languages=["python"])} == {"python"}
    assert all(h.path.startswith("docs/") for h in engine.search("log level", paths=["docs/*"]))


def test_similar_excludes_the_chunk_itself_and_unknown_ids_are_errors(
    search_ws, tmp_path, fake_embedders
):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    engine.index()
    chunk = engine.chunk_at("src/storage/uploads.py", 20)
    assert chunk is not None and chunk.title.endswith("upload_with_retry")
    hits = engine.similar(chunk.chunk_id, k=5)
    assert hits and all(h.chunk_id != chunk.chunk_id for h in hits)
    with pytest.raises(KeyError):
        engine.similar("0123456789abcdef")
    with pytest.raises(InvalidChunkId):
        engine.similar("not-an-id")


def test_results_carry_workspace_relative_paths_only(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders, search={"minSimilarity": 0.0})
    engine.index()
    for hit in engine.search("upload", k=20):
        assert not hit.path.startswith("/") and str(search_ws) not in hit.text


def test_history_is_stored_in_the_index(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    engine.add_history(
        {
            "question": "q?",
            "answer": "a [1]",
            "found": True,
            "mode": "llm",
            "model": "m",
            "citations": [{"n": 1}],
            "timing": {"total_ms": 5},
        }
    )
    (entry,) = engine.history()
    assert entry["question"] == "q?" and entry["found"] is True and entry["citations"] == [{"n": 1}]


def test_progress_counts_every_file_up_to_the_total(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    seen = []
    engine.index(progress=lambda p: seen.append((p.done_files, p.total_files)))
    assert [d for d, _ in seen] == list(range(1, 5))
    assert {t for _, t in seen} == {4}


def _part_rows(engine: Engine) -> tuple[int, int]:
    """(sentence vectors stored, sentence vectors the chunks say they have)."""
    stored = engine.store.conn.execute("SELECT COUNT(*) FROM vec_use_parts").fetchone()[0]
    claimed = engine.store.conn.execute("SELECT COALESCE(SUM(parts), 0) FROM chunks").fetchone()[0]
    return stored, claimed


def test_japanese_prose_keeps_sentence_vectors_that_follow_edits_and_deletes(
    search_ws, tmp_path, fake_embedders
):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    first = engine.index()
    stored, claimed = _part_rows(engine)
    assert first.embedded_parts == stored == claimed > 0
    with_parts = {
        r[0] for r in engine.store.conn.execute("SELECT DISTINCT path FROM chunks WHERE parts > 0")
    }
    assert with_parts == {"docs/logging.ja.md"}  # not code, not English prose

    assert engine.index().embedded_parts == 0  # unchanged: nothing re-embedded

    doc = search_ws / "docs" / "logging.ja.md"
    doc.write_text(doc.read_text().replace("七日間", "十四日間"), encoding="utf-8")
    edit = engine.index_paths(["docs/logging.ja.md"])
    assert edit.embedded == 1  # the one changed section ...
    assert 0 < edit.embedded_parts < first.embedded_parts  # ... and its sentences only
    assert _part_rows(engine)[0] == _part_rows(engine)[1]

    doc.unlink()
    engine.index()
    assert _part_rows(engine) == (0, 0)


def test_sentence_vectors_rank_chunks_by_their_best_sentence(search_ws, tmp_path, fake_embedders):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    engine.index()
    vector = fake_embedders["use"].embed(
        ["ログファイルは七日間保存され、その後は自動的に削除されます。"]
    )[0]
    ranked = engine.store.knn_parts("use", vector, 5)
    assert len({rowid for rowid, _ in ranked}) == len(ranked)  # one entry per chunk
    best = engine.store.hits_by_rowid([ranked[0][0]])[ranked[0][0]]
    assert best.path == "docs/logging.ja.md" and "七日間" in best.text
    assert engine.store.knn_parts("minilm", vector, 5) == []  # no sentence table there


def test_a_model_change_of_the_sentence_space_re_embeds_its_sentences(
    search_ws, tmp_path, fake_embedders
):
    engine = open_engine(search_ws, tmp_path, fake_embedders)
    first = engine.index()
    engine.close()
    changed = {"minilm": fake_embedders["minilm"], "use": FakeEmbedder("fake-use-v2", 48)}
    engine = open_engine(search_ws, tmp_path, changed)
    report = engine.index()
    assert report.embedded_parts == first.embedded_parts
    dims = {
        r[0] for r in engine.store.conn.execute("SELECT vec_length(embedding) FROM vec_use_parts")
    }
    assert dims == {48}
    assert _part_rows(engine)[0] == _part_rows(engine)[1]
