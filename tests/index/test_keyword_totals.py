"""The keyword table's BM25 totals after edits, deletes and re-chunking equal a fresh index's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from groundls.config import Config
from groundls.index.storage import fts_totals
from groundls.index.storage.terms import match_expression
from groundls.workspace import Workspace


def _open(ws: Path, index: Path, embedders) -> Workspace:
    cfg, _ = Config.from_dict({"search": {"rewrite_questions": False}})
    return Workspace.open(ws, cfg, index, embedders=embedders)


def _scores(workspace: Workspace, words: str) -> dict[str, float]:
    """BM25 of every chunk matching any of ``words``, by chunk id."""
    hits = workspace.store.keyword(match_expression(words.split()), 100)
    ids = dict(workspace.store.conn.execute("SELECT id, chunk_id FROM chunks").fetchall())
    return {ids[rowid]: round(score, 9) for rowid, score in hits}


def _edit(ws: Path) -> None:
    uploads = ws / "src" / "storage" / "uploads.py"
    uploads.write_text(uploads.read_text().replace("bucket", "container"))
    (ws / "docs" / "guide.md").rename(ws / "docs" / "manual.md")
    (ws / "src" / "storage" / "settings.py").unlink()


def _fresh(ws: Path, tmp_path: Path, embedders) -> Workspace:
    """The same files indexed from nothing."""
    copy = tmp_path / "copy"
    shutil.copytree(ws, copy)
    workspace = _open(copy, tmp_path / "fresh-index", embedders)
    workspace.index()
    return workspace


def test_edits_renames_and_deletes_leave_the_keyword_totals_of_a_fresh_index(
    search_ws, tmp_path, fake_embedders
):
    workspace = _open(search_ws, tmp_path / "index", fake_embedders)
    workspace.index()
    before = fts_totals.totals(workspace.store.conn)
    _edit(search_ws)
    workspace.index()
    fresh = _fresh(search_ws, tmp_path, fake_embedders)
    after = fts_totals.totals(workspace.store.conn)
    assert after == fts_totals.totals(fresh.store.conn)
    assert after != before
    for words in ("container url", "storage settings", "guide"):
        assert _scores(fresh, words)
        assert _scores(workspace, words) == _scores(fresh, words)


def test_a_new_chunker_leaves_the_keyword_totals_of_a_fresh_index(
    search_ws, tmp_path, fake_embedders, monkeypatch
):
    workspace = _open(search_ws, tmp_path / "index", fake_embedders)
    workspace.index()
    fresh = fts_totals.totals(workspace.store.conn)
    # a chunker that describes every chunk anew rewrites every keyword row
    monkeypatch.setattr("groundls.index.reading.CHUNKER_VERSION", -1)
    monkeypatch.setattr("groundls.index.storage.store._names", lambda chunk: "renamed")
    workspace.index()
    assert fts_totals.totals(workspace.store.conn) == fresh


def test_an_index_with_stale_keyword_totals_is_repaired_when_opened(
    search_ws, tmp_path, fake_embedders
):
    workspace = _open(search_ws, tmp_path / "index", fake_embedders)
    workspace.index()
    right = fts_totals.totals(workspace.store.conn)
    scores = _scores(workspace, "upload url")
    assert right is not None
    conn = workspace.store.conn
    stale = [right[0] + 300, *(n * 2 for n in right[1:])]
    conn.execute("UPDATE chunks_fts_data SET block = ? WHERE id = 1", (fts_totals.encode(stale),))
    assert _scores(workspace, "upload url") != scores  # BM25 reads the totals
    workspace.close()
    reopened = _open(search_ws, tmp_path / "index", fake_embedders)
    assert fts_totals.totals(reopened.store.conn) == right
    assert _scores(reopened, "upload url") == scores


@pytest.mark.parametrize("values", [[0], [1, 127, 128, 300], [16_383, 16_384, 2**40, 2**56 - 1]])
def test_totals_are_written_as_the_varints_sqlite_reads(values):
    assert fts_totals.decode(fts_totals.encode(values)) == values


def test_a_negative_or_too_large_total_is_refused():
    with pytest.raises(ValueError):
        fts_totals.encode([-1])
    with pytest.raises(ValueError):
        fts_totals.encode([2**56])


def test_totals_left_stale_by_a_failed_update_are_worked_out_after_the_next_write(
    search_ws, tmp_path, fake_embedders, monkeypatch
):
    import sqlean

    workspace = _open(search_ws, tmp_path / "index", fake_embedders)
    workspace.index()
    store = workspace.store
    subtract = fts_totals.subtract

    def locked(conn, removed):
        raise sqlean.OperationalError("database is locked")

    monkeypatch.setattr(fts_totals, "subtract", locked)
    assert store.remove_file("docs/guide.md")  # removed all the same, the totals not updated
    rows = store.conn.execute("SELECT count(*) FROM chunks_fts_docsize").fetchone()[0]
    assert fts_totals.totals(store.conn)[0] > rows
    monkeypatch.setattr(fts_totals, "subtract", subtract)
    assert store.remove_file("src/storage/settings.py")
    (search_ws / "docs" / "guide.md").unlink()
    (search_ws / "src" / "storage" / "settings.py").unlink()
    fresh = _fresh(search_ws, tmp_path, fake_embedders)
    assert fts_totals.totals(store.conn) == fts_totals.totals(fresh.store.conn)


def test_a_cut_short_totals_record_is_read_without_an_error():
    assert fts_totals.decode(fts_totals.encode([300])[:1]) == [2]
    assert fts_totals.decode(b"") == []
