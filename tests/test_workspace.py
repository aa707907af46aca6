"""Workspace logic with a fake embedder: incremental indexing, removal, model change, safety rules."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path

import pytest
from groundls.chunkers.textrules import is_cjk

from groundls.config import Config
from groundls.index import reading
from groundls.index.storage.terms import match_expression, query_terms
from groundls.results import InvalidChunkId, SearchFilters
from groundls.search import searcher
from groundls.workspace import Workspace
from tests.helpers.fakes import FakeEmbedder


def open_workspace(ws: Path, tmp_path: Path, embedders, **config) -> Workspace:
    # logic tests: fake vectors, and no answer model rewriting or translating questions (a test
    # that needs a rewrite or a translation gives its own)
    config.setdefault("search", {}).setdefault("rewrite_questions", False)
    config.setdefault("answer", {}).setdefault("use_packaged_model", False)
    cfg, warnings = Config.from_dict(config)
    assert not warnings
    return Workspace.open(ws, cfg, tmp_path / "index", embedders=embedders)


def test_index_skips_secrets_ignored_binary_and_invalid_utf8(search_ws, tmp_path, fake_embedders):
    (search_ws / "node_modules" / "pkg").mkdir(parents=True)
    (search_ws / "node_modules" / "pkg" / "index.js").write_text("module.exports = 1;\n")
    (search_ws / "docs" / "blob.txt").write_bytes(b"\x00\x01binary\x00")
    (search_ws / "docs" / "latin1.txt").write_bytes(b"caf\xe9 latin-1 text\n")
    (search_ws / "debug.log").write_text("ignored by .gitignore\n")
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    report = workspace.index()
    stats = workspace.stats()
    indexed = {r[0] for r in workspace.store.conn.execute("SELECT path FROM files")}
    assert indexed == {
        "src/storage/uploads.py",
        "src/storage/settings.py",
        "docs/guide.md",
        "docs/logging.ja.md",
    }
    # .env and secrets.yaml, by name
    assert report.skipped == {"binary": 1, "invalid-utf8": 1, "secret": 2}
    assert stats["skipped"] == {"binary": 1, "invalid-utf8": 1, "secret": 2}
    assert not any(
        "SECRET_TOKEN" in h.text
        for h in workspace.search("SECRET_TOKEN abc123", SearchFilters(k=50))
    )


def test_stats_count_an_empty_file_as_empty(search_ws, tmp_path, fake_embedders):
    (search_ws / "src" / "empty.py").write_text("")
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    assert workspace.stats()["files_by_kind"] == {"code": 2, "doc": 2, "empty": 1}


def test_secret_files_are_indexed_only_after_opting_in(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders, indexSecrets=True)
    workspace.index()
    assert workspace.store.file_checksum("secrets.yaml") is not None


def test_second_run_reuses_everything_and_embeds_nothing(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    first = workspace.index()
    assert first.embedded > 0
    second = workspace.index()
    assert second.embedded == 0
    assert second.files_unchanged == first.files_indexed
    assert second.files_indexed == 0


def test_editing_one_function_reembeds_only_that_chunk_and_keeps_other_ids(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    path = "src/storage/uploads.py"
    before = {
        r[0]: r[1]
        for r in workspace.store.conn.execute(
            "SELECT chunk_id, content_hash FROM chunks WHERE path = ?", (path,)
        )
    }
    source = search_ws / path
    source.write_text(
        source.read_text().replace(
            'raise ValueError(f"not an s3 URL', 'raise TypeError(f"not an s3 URL'
        )
    )
    report = workspace.index_paths([path])
    after = {
        r[0]: r[1]
        for r in workspace.store.conn.execute(
            "SELECT chunk_id, content_hash FROM chunks WHERE path = ?", (path,)
        )
    }
    assert set(after) == set(before)  # ids are stable
    changed = [cid for cid in after if after[cid] != before[cid]]
    assert len(changed) == 1
    assert report.embedded == 1  # only the changed chunk, in the one space code uses
    assert workspace.get_chunk(changed[0]).title.endswith("parse_bucket_url")


def test_deleted_and_renamed_files_leave_the_index(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    (search_ws / "docs" / "guide.md").rename(search_ws / "docs" / "manual.md")
    (search_ws / "src" / "storage" / "settings.py").unlink()
    report = workspace.index()
    paths = {r[0] for r in workspace.store.conn.execute("SELECT DISTINCT path FROM chunks")}
    assert "docs/guide.md" not in paths and "src/storage/settings.py" not in paths
    assert "docs/manual.md" in paths
    assert report.files_removed == 2
    # The path is part of the embedded context, so only the renamed file is embedded again.
    spaces = workspace.store.conn.execute(
        "SELECT space FROM chunks WHERE path = 'docs/manual.md'"
    ).fetchall()
    assert report.embedded == sum(len(s[0].split(",")) for s in spaces)


def test_index_paths_removes_a_file_deleted_on_disk(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    (search_ws / "docs" / "guide.md").unlink()
    report = workspace.index_paths(["docs/guide.md"])
    assert report.files_removed == 1
    assert workspace.chunk_at("docs/guide.md", 1) is None


def test_model_change_triggers_a_clean_reembed(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    first = workspace.index()
    workspace.close()
    changed = {"static": FakeEmbedder("fake-static-v2", 32), "use": fake_embedders["use"]}
    workspace = open_workspace(search_ws, tmp_path, changed)
    # the old model's chunks are dropped: the faces index again before they search
    assert not workspace.has_current_index
    report = workspace.index()
    assert workspace.has_current_index
    assert report.files_indexed == first.files_indexed
    assert changed["static"].embedded > 0
    dims = {
        r[0] for r in workspace.store.conn.execute("SELECT vec_length(embedding) FROM vec_static")
    }
    assert dims == {32}
    assert json.loads(workspace.store.get_meta("space:static"))["model"] == "fake-static-v2"


def test_interrupted_run_resumes_without_starting_over(
    search_ws, tmp_path, fake_embedders, monkeypatch
):
    import threading

    import groundls.index.indexer

    monkeypatch.setattr(groundls.index.indexer, "EMBED_BATCH", 1)  # write after every file
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    cancel = threading.Event()
    seen = []

    def on_progress(p):
        seen.append(p.done_files)
        if p.done_files >= 1:
            cancel.set()

    partial = workspace.index(progress=on_progress, cancel=cancel)
    assert partial.cancelled
    done_before = set(workspace.store.file_checksums())
    rest = workspace.index()
    assert rest.files_unchanged == len(done_before)
    assert rest.files_indexed == 4 - len(done_before)


def test_migrations_are_numbered_and_reopening_is_a_no_op(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    from groundls.index.storage.db import MIGRATIONS

    version = workspace.store.conn.execute("PRAGMA user_version").fetchone()[0]
    assert version == len(MIGRATIONS)
    mode = workspace.store.conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    workspace.close()
    again = open_workspace(search_ws, tmp_path, fake_embedders)
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
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    hits = workspace.search(f"{query} upload retry")  # must not raise an FTS5 syntax error
    assert hits, "the words around the odd text still find chunks"


def test_a_name_defined_as_asked_outranks_the_same_name_in_another_case(tmp_path, fake_embedders):
    ws = tmp_path / "ws"
    (ws / "lib" / "auth").mkdir(parents=True)
    (ws / "lib" / "request.rb").write_text(
        "module Rack\n  class Request\n    def initialize(env)\n      @env = env\n    end\n"
        "  end\nend\n"
    )
    # a method named ``request`` whose text says "request" more often than the class does
    (ws / "lib" / "auth" / "request.rb").write_text(
        "module Rack\n  module Auth\n    class AbstractRequest\n      def request\n"
        "        @request ||= Request.new(@env) # the request of this request\n      end\n"
        "      def request_scheme\n        request.scheme\n      end\n    end\n  end\nend\n"
    )
    workspace = open_workspace(ws, tmp_path, fake_embedders)
    workspace.index()
    for query in ("Request", "Rack::Request"):
        top = workspace.search(query)[0]
        assert (top.path, top.title) == ("lib/request.rb", "Rack.Request"), query


def test_only_the_first_part_of_a_long_class_outline_defines_the_class(tmp_path, fake_embedders):
    ws = tmp_path / "ws"
    ws.mkdir()
    members = "\n\n".join(
        f"    def handle_event_number_{i}(self, payload_{i}, options_{i}):\n        return {i}"
        for i in range(150)
    )
    (ws / "events.py").write_text(f'class Dispatcher:\n    """Routes events."""\n\n{members}\n')
    workspace = open_workspace(ws, tmp_path, fake_embedders)
    workspace.index()
    outline = workspace.store.conn.execute(
        "SELECT id, text_type FROM chunks WHERE symbol = 'Dispatcher' ORDER BY id"
    ).fetchall()
    assert [t for _, t in outline][:2] == ["class", "members"]  # the outline took parts
    assert [rowid for rowid, _ in workspace.store.definitions(["Dispatcher"], 10)] == [
        outline[0][0]
    ]


def test_a_type_is_found_where_it_is_defined_not_where_it_is_extended(tmp_path, fake_embedders):
    ws = tmp_path / "ws"
    (ws / "Sources").mkdir(parents=True)
    (ws / "Sources" / "App.swift").write_text(
        "public final class Application {\n    public var environment: String\n"
        "    public init(environment: String) {\n        self.environment = environment\n"
        "    }\n}\n"
    )
    # defined in a file of another name; files that only add to the type say its name more
    for topic in ("Sessions", "Routes", "Servers"):
        (ws / "Sources" / f"Application+{topic}.swift").write_text(
            f"extension Application {{\n    /// the {topic.lower()} of this Application\n"
            f"    public var {topic.lower()}: Application.{topic} {{\n"
            f"        .init(application: self) // Application\n    }}\n}}\n"
        )
    workspace = open_workspace(ws, tmp_path, fake_embedders)
    workspace.index()
    result = workspace.search("Application")
    assert result[0].path == "Sources/App.swift" and result.confidence == "high"
    # with no definition in the workspace, its extensions are what the name finds
    (ws / "Sources" / "App.swift").unlink()
    workspace.index()
    assert workspace.search("Application")[0].path.startswith("Sources/Application+")
    # a namesake in another case does not define the type
    (ws / "Sources" / "Setup.swift").write_text("func application() -> Int {\n    1\n}\n")
    workspace.index()
    assert workspace.search("Application")[0].path.startswith("Sources/Application+")


def test_two_question_words_find_the_identifier_that_joins_them(
    tmp_path, fake_embedders, monkeypatch
):
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "Values.java").write_text(
        "/** The base of every value: an object, an array, a primitive or null. */\n"
        "public abstract class JsonNode {\n    public abstract JsonNode deepCopy();\n}\n"
    )
    # files that say the question's words apart, and more often
    for name in ("Reader", "Writer", "Walker"):
        (ws / "src" / f"{name}.java").write_text(
            f"/** Goes through the json, node by node: a json hierarchy, a json tree. */\n"
            f"public final class {name} {{\n    // each json node of the tree, node by node\n"
            f"    void visit(Object node) {{ }}\n}}\n"
        )
    workspace = open_workspace(ws, tmp_path, fake_embedders)
    workspace.index()
    lists = []
    fuse = searcher.rrf
    monkeypatch.setattr(
        searcher, "rrf", lambda ranked, k=None: lists.extend(ranked) or fuse(ranked, k)
    )
    workspace.search("JSON node hierarchy and tree model")
    keyword = next(r for r in lists if r.name == "keyword")
    first = workspace.store.hits_by_rowid(keyword.ids[:1])[keyword.ids[0]]
    assert first.path == "src/Values.java"


def test_a_module_level_variable_is_found_by_its_name(tmp_path, fake_embedders):
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "globals.py").write_text(
        "from proxies import LocalProxy\n\n"
        "#: the application's namespace for one request\n"
        'g = LocalProxy("g")\n'
    )
    (ws / "src" / "views.py").write_text(
        "def show(g):\n    return g.user\n\n\ndef edit(g):\n    g.user.name = 'x'\n    return g\n"
    )
    workspace = open_workspace(ws, tmp_path, fake_embedders)
    workspace.index()
    result = workspace.search("g")
    assert result[0].path == "src/globals.py" and result.confidence == "high"
    # the binding goes with the line that made it
    (ws / "src" / "globals.py").write_text("from proxies import LocalProxy\n")
    workspace.index_paths(["src/globals.py"])
    assert all(h.path != "src/globals.py" for h in workspace.search("g")[:1])


def test_a_new_chunker_makes_every_files_chunks_again_and_keeps_their_vectors(
    search_ws, tmp_path, fake_embedders, monkeypatch
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    first = workspace.index()
    assert first.embedded > 0
    assert workspace.index().files_unchanged == first.files_seen
    monkeypatch.setattr("groundls.index.reading.CHUNKER_VERSION", -1)
    again = workspace.index()
    assert again.files_unchanged == 0 and again.files_indexed == first.files_indexed
    assert again.embedded == 0  # the same chunks: their vectors are kept


def test_a_new_chunker_that_only_describes_a_chunk_anew_updates_its_row(
    search_ws, tmp_path, fake_embedders, monkeypatch
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()

    chunk_file = reading.chunk_file

    def renamed(path, text, options=None):  # the same texts, other kinds and names
        return [
            dataclasses.replace(c, text_type="extension", names=(*c.names, "zzqnewname"))
            for c in chunk_file(path, text, options)
        ]

    monkeypatch.setattr(reading, "chunk_file", renamed)
    monkeypatch.setattr(reading, "CHUNKER_VERSION", -1)
    again = workspace.index()
    assert again.embedded == 0  # the vectors are kept
    rows = workspace.store.conn.execute("SELECT DISTINCT text_type FROM chunks").fetchall()
    assert rows == [("extension",)]
    assert workspace.search("zzqnewname"), "the new names are in the symbol table and terms"


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
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    assert {
        h.kind for h in workspace.search("upload retry log level", SearchFilters(kinds=("doc",)))
    } == {"doc"}
    assert {
        h.language for h in workspace.search("upload retry", SearchFilters(languages=("python",)))
    } == {"python"}
    in_docs = workspace.search("log level", SearchFilters(paths=("docs/*",)))
    assert in_docs and all(h.path.startswith("docs/") for h in in_docs)


def test_similar_excludes_the_chunk_itself_and_unknown_ids_are_errors(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    chunk = workspace.chunk_at("src/storage/uploads.py", 20)
    assert chunk is not None and chunk.title.endswith("upload_with_retry")
    hits = workspace.similar(chunk.chunk_id, k=5)
    assert hits and all(h.chunk_id != chunk.chunk_id for h in hits)
    with pytest.raises(KeyError):
        workspace.similar("0123456789abcdef")
    with pytest.raises(InvalidChunkId):
        workspace.similar("not-an-id")


def test_results_carry_workspace_relative_paths_only(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    hits = workspace.search("upload", SearchFilters(k=20))
    assert hits
    for hit in hits:
        assert not hit.path.startswith("/") and str(search_ws) not in hit.text


def test_history_is_stored_in_the_index(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.add_history(
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
    (entry,) = workspace.history()
    assert entry["question"] == "q?" and entry["found"] is True and entry["citations"] == [{"n": 1}]


def test_deleting_a_history_thread_forgets_its_follow_ups_and_nothing_else(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    first = workspace.add_history({"question": "where are uploads retried?"})
    workspace.add_history({"question": "how many times?", "thread": first})
    other = workspace.add_history({"question": "where are logs kept?"})
    assert workspace.delete_history(first) == 2
    assert [e["question"] for e in workspace.history()] == ["where are logs kept?"]
    assert workspace.delete_history(first) == 0
    assert workspace.delete_history(other) == 1 and workspace.history() == []


def test_progress_counts_every_file_up_to_the_total(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    seen = []
    workspace.index(progress=lambda p: seen.append((p.done_files, p.total_files)))
    assert [d for d, _ in seen] == list(range(1, 5))
    assert {t for _, t in seen} == {4}


def _part_rows(workspace: Workspace) -> tuple[int, int]:
    """(sentence vectors stored, sentence vectors the chunks say they have)."""
    stored = workspace.store.conn.execute("SELECT COUNT(*) FROM vec_use_parts").fetchone()[0]
    claimed = workspace.store.conn.execute("SELECT COALESCE(SUM(parts), 0) FROM chunks").fetchone()[
        0
    ]
    return stored, claimed


def test_japanese_prose_keeps_sentence_vectors_that_follow_edits_and_deletes(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    first = workspace.index()
    stored, claimed = _part_rows(workspace)
    assert first.embedded_parts == stored == claimed > 0
    with_parts = {
        r[0]
        for r in workspace.store.conn.execute("SELECT DISTINCT path FROM chunks WHERE parts > 0")
    }
    assert with_parts == {"docs/logging.ja.md"}  # not code, not English prose

    assert workspace.index().embedded_parts == 0  # unchanged: nothing re-embedded

    doc = search_ws / "docs" / "logging.ja.md"
    doc.write_text(doc.read_text().replace("七日間", "十四日間"), encoding="utf-8")
    edit = workspace.index_paths(["docs/logging.ja.md"])
    assert edit.embedded == 1  # the one changed section ...
    assert 0 < edit.embedded_parts < first.embedded_parts  # ... and its sentences only
    assert _part_rows(workspace)[0] == _part_rows(workspace)[1]

    doc.unlink()
    workspace.index()
    assert _part_rows(workspace) == (0, 0)


def test_sentence_vectors_rank_chunks_by_their_best_sentence(search_ws, tmp_path, fake_embedders):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    vector = fake_embedders["use"].embed(
        ["ログファイルは七日間保存され、その後は自動的に削除されます。"]
    )[0]
    ranked = workspace.store.knn("use", vector, 5, by_sentence=True)
    assert len({rowid for rowid, _ in ranked}) == len(ranked)  # one entry per chunk
    best = workspace.store.hits_by_rowid([ranked[0][0]])[ranked[0][0]]
    assert best.path == "docs/logging.ja.md" and "七日間" in best.text
    assert (
        workspace.store.knn("static", vector, 5, by_sentence=True) == []
    )  # no sentence table there


def test_a_model_change_of_the_sentence_space_re_embeds_its_sentences(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    first = workspace.index()
    workspace.close()
    changed = {"static": fake_embedders["static"], "use": FakeEmbedder("fake-use-v2", 48)}
    workspace = open_workspace(search_ws, tmp_path, changed)
    report = workspace.index()
    assert report.embedded_parts == first.embedded_parts
    dims = {
        r[0]
        for r in workspace.store.conn.execute("SELECT vec_length(embedding) FROM vec_use_parts")
    }
    assert dims == {48}
    assert _part_rows(workspace)[0] == _part_rows(workspace)[1]


def test_search_reports_the_share_of_query_words_the_workspace_holds(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    code = SearchFilters(kinds=("code",))
    known = workspace.search("upload retry", code)
    assert known and known.coverage == 1.0
    half = workspace.search("upload qwxzvplmk", code)
    assert half and half.coverage == 0.5
    # of a Japanese question, the names it writes in Latin letters: a katakana loanword the
    # workspace does not write may stand for a native word it does (アップストリーム for 上流)
    japanese = workspace.search("ログレベルはどこで変更しますか")
    assert japanese and japanese.coverage is None
    unknown = workspace.search("ログレベルとクラスターの設定")
    assert unknown and unknown.coverage is None
    named = workspace.search("upload と Kubernetes の設定はどこ")
    assert named and named.coverage == 0.5
    plain = workspace.search("どこで変更しますか")
    assert plain and plain.coverage is None  # kanji and kana bigrams are in most Japanese text
    over_code = workspace.search("クラスターの upload はどこ", code)
    assert not any(is_cjk(h.text) for h in over_code[:3])
    assert over_code.coverage == 1.0
    assert workspace.search("クラスターの再試行はどこ", code).coverage is None
    about_japanese_docs = workspace.search("upload log level", SearchFilters(kinds=("doc",)))
    assert any(is_cjk(h.text) for h in about_japanese_docs[:3])
    assert about_japanese_docs.coverage is None  # a Japanese passage cannot hold English words


def test_a_word_fewer_chunks_hold_is_rarer_and_rarity_follows_the_index(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    store = workspace.store
    holding = {
        term: store.conn.execute(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{term}"',)
        ).fetchone()[0]
        for term in ("upload", "qwxzvplmk")
    }
    total = store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert 0 < holding["upload"] < total and holding["qwxzvplmk"] == 0
    rarity = store.term_rarity(["upload", "qwxzvplmk"])
    assert rarity["qwxzvplmk"] > rarity["upload"] > 0
    # a new file holding the rare word: the index changed, so its rarity is worked out again
    (search_ws / "docs" / "notes.md").write_text("# Notes\n\nqwxzvplmk is the codename.\n")
    workspace.index()
    assert store.term_rarity(["qwxzvplmk"])["qwxzvplmk"] < rarity["qwxzvplmk"]


def test_the_confidence_weighs_japanese_bigrams_by_rarity_and_english_words_alike(
    search_ws, tmp_path, fake_embedders, monkeypatch
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    asked: list[list[str]] = []
    rarity = workspace.store.term_rarity
    monkeypatch.setattr(
        workspace.store, "term_rarity", lambda t: asked.append(list(t)) or rarity(t)
    )
    workspace.search("upload retry with backoff")
    english = asked[-1]  # the confidence's (the keyword lists' weighing asks first)
    workspace.search("ログレベルはどこで変更しますか")
    japanese = asked[-1]
    assert english == []
    assert japanese and all(is_cjk(term) for term in japanese)


def test_a_japanese_question_naming_only_absent_things_is_not_about_the_workspace(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    # its Japanese words match (ログレベル is in the docs), but OAuth2 is nowhere here
    absent = workspace.search("OAuth2 のログレベルはどこで変更しますか")
    assert absent and absent.confidence == "low" and absent.coverage == 0.0
    assert absent.reason == "names nothing in this workspace"
    # one of the names it writes in Latin letters is here: judged as before
    present = workspace.search("OAuth2 と upload のログレベルはどこで変更しますか")
    assert present and present.reason != "names nothing in this workspace"
    # ... but the one it lacks is named: the search is unsure, and says which
    assert present.confidence == "low" and present.reason.endswith("OAuth2")


def test_an_english_question_naming_only_absent_things_is_not_about_the_workspace(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, fake_embedders)
    workspace.index()
    # "log level" is in the docs, but Kubernetes and YAML are nowhere here
    absent = workspace.search("How do I change the log level of a Kubernetes YAML deployment?")
    assert absent and absent.confidence == "low" and absent.coverage == 0.0
    assert absent.reason == "names nothing in this workspace"
    present = workspace.search("Where do I change the log level?")
    assert present and present.reason != "names nothing in this workspace"


def _with_deep(fake_embedders):
    return {**fake_embedders, "minilm": FakeEmbedder("fake-minilm", 32)}


def test_index_leaves_the_deep_tier_for_later_and_fill_completes_it(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, _with_deep(fake_embedders))
    workspace.index()
    filled, wanted = workspace.deep_status()
    assert filled == 0 and wanted > 0
    assert workspace.store.count_in("static") > 0  # the fast tier is complete at once
    assert workspace.fill_deep(max_chunks=2) == 2  # a slice stops where it is told
    assert workspace.deep_status() == (2, wanted)
    assert workspace.fill_deep() == wanted - 2
    assert workspace.deep_status() == (wanted, wanted)
    assert workspace.fill_deep() == 0
    # the deep tier holds code and English text, not Japanese prose (MiniLM reads English only)
    japanese = workspace.store.conn.execute(
        "SELECT count(*) FROM chunks WHERE path = 'docs/logging.ja.md' AND space LIKE '%minilm%'"
    ).fetchone()[0]
    assert japanese == 0
    assert workspace.search("upload retries", SearchFilters(k=3)).hits


def test_search_embeds_the_question_for_the_deep_tier_only_once_it_holds_vectors(
    search_ws, tmp_path, fake_embedders
):
    embedders = _with_deep(fake_embedders)
    workspace = open_workspace(search_ws, tmp_path, embedders)
    workspace.index()
    assert workspace.search("upload retries", SearchFilters(k=3)).hits
    assert embedders["minilm"].calls == []  # an empty deep tier costs the search nothing
    workspace.fill_deep()
    before = embedders["minilm"].embedded
    assert workspace.search("upload retries", SearchFilters(k=3)).hits
    assert embedders["minilm"].embedded == before + 1


def test_editing_a_chunk_refills_only_its_deep_vector_and_keeps_the_others(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, _with_deep(fake_embedders))
    workspace.index()
    workspace.fill_deep()
    _, wanted = workspace.deep_status()
    source = search_ws / "src/storage/uploads.py"
    source.write_text(
        source.read_text().replace(
            'raise ValueError(f"not an s3 URL', 'raise TypeError(f"not an s3 URL'
        )
    )
    report = workspace.index_paths(["src/storage/uploads.py"])
    assert report.embedded == 1  # the fast tier only
    # the deep tier: its MiniLM vector and its gloss's e5 vector, and no other chunk's
    assert workspace.deep_status() == (wanted - 2, wanted)
    assert workspace.fill_deep() == 2


def test_the_deep_tier_skips_a_file_changed_since_it_was_indexed(
    search_ws, tmp_path, fake_embedders
):
    workspace = open_workspace(search_ws, tmp_path, _with_deep(fake_embedders))
    workspace.index()
    source = search_ws / "src/storage/uploads.py"
    source.write_text(source.read_text() + "\n\ndef later():\n    return 1\n")
    workspace.fill_deep()
    stale = workspace.store.conn.execute(
        "SELECT count(*) FROM chunks WHERE path = ? AND space LIKE '%minilm%'",
        ("src/storage/uploads.py",),
    ).fetchone()[0]
    assert stale == 0  # its chunks wait for the index run that sees the new text
    workspace.index_paths(["src/storage/uploads.py"])
    workspace.fill_deep()
    filled, wanted = workspace.deep_status()
    assert filled == wanted


def test_the_fast_policy_has_no_deep_tier(search_ws, tmp_path, fake_embedders):
    config, _ = Config.from_dict({"embedders": "fast", "search": {"rewrite_questions": False}})
    workspace = Workspace.open(search_ws, config, tmp_path / "index", embedders=fake_embedders)
    workspace.index()
    filled, wanted = workspace.deep_status()
    assert filled == wanted == 0
    assert workspace.fill_deep() == 0


def test_the_language_servers_deep_tier_waits_while_an_answer_is_being_written(
    search_ws, tmp_path, fake_embedders
):
    from groundls.lsp.folders import Folder

    workspace = open_workspace(search_ws, tmp_path, _with_deep(fake_embedders))
    generating = threading.Event()
    generating.set()
    asked = threading.Semaphore(0)

    def busy() -> bool:
        asked.release()
        return generating.is_set()

    folder = Folder(
        "ws",
        search_ws.as_uri(),
        search_ws,
        workspace.config,
        open_workspace=lambda root, config: workspace,
        busy_elsewhere=busy,
    )
    folder.start()
    try:
        folder.request_full().result(timeout=60)
        for _ in range(3):  # the worker looked three times and each time left the tier alone
            assert asked.acquire(timeout=30)
        filled, wanted = workspace.deep_status()
        assert filled == 0 and wanted > 0
        generating.clear()
        for _ in range(600):
            if workspace.deep_status() == (wanted, wanted):
                break
            time.sleep(0.05)
        assert workspace.deep_status() == (wanted, wanted)
    finally:
        folder.stop()


def test_a_workspace_without_code_asks_for_a_questions_meaning_in_english(
    tmp_path, fake_embedders, monkeypatch
):
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    (ws_dir / "docs" / "guide.md").write_text("# Guide\n\nConflicting packages are declared.\n")
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    asked: list[bool] = []
    monkeypatch.setattr(
        workspace.translations,
        "english",
        lambda question, cancel=None, *, prose=False: asked.append(prose),
    )
    try:
        workspace.index()
        assert not workspace.store.holds_code()
        workspace._english_query("競合するパッケージは？")
        (ws_dir / "src").mkdir()
        (ws_dir / "src" / "conflicts.py").write_text("def conflicts(a, b):\n    return a & b\n")
        workspace.index()
        assert workspace.store.holds_code()
        workspace._english_query("競合するパッケージは？")
        assert asked == [True, False]
    finally:
        workspace.close()
