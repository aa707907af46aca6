"""A document's keyword terms: its source's words and the words only its reading spells."""

from __future__ import annotations

from pathlib import Path

from groundls.config import Config
from groundls.index.storage.terms import index_terms, match_expression
from groundls.workspace import Workspace

PAGE = """\
Log rotation
============

The default is :java:extdoc:`FileSizeRotatePolicy <nablarch.core.log.basic.FileSizeRotatePolicy>`.
ローテーション\\には ``rotate()`` を使う。
"""


def _found(workspace: Workspace, words: str) -> set[str]:
    hits = workspace.store.keyword(match_expression([index_terms(words)]), 10)
    paths = dict(workspace.store.conn.execute("SELECT id, path FROM chunks").fetchall())
    return {paths[rowid] for rowid, _ in hits}


def test_a_page_is_found_by_the_words_its_reader_sees_and_by_the_names_its_markup_holds(
    tmp_path: Path, fake_embedders
) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "log.rst").write_text(PAGE, encoding="utf-8")
    (ws / "docs" / "other.rst").write_text("Other\n=====\n\nローテーション。\n", encoding="utf-8")
    cfg, _ = Config.from_dict({"search": {"rewrite_questions": False}})
    workspace = Workspace.open(ws, cfg, tmp_path / "index", embedders=fake_embedders)
    try:
        workspace.index()
        # the escape splits the word in the source; the page shows it whole
        assert _found(workspace, "ローテーションには") == {"docs/log.rst"}
        assert _found(workspace, "nablarch.core.log.basic.FileSizeRotatePolicy") == {"docs/log.rst"}
    finally:
        workspace.close()
