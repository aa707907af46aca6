"""Documents through the language server over stdio: hits name their page or slide, a
document's text can be shown at a citation, and the status lists each skipped document."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.documents import sources
from tests.helpers.lsp_client import command, command_error, start_session, stop_session

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803


async def test_documents_over_the_language_server(
    documents: Path, bad_documents: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(documents, ws / "docs")
    shutil.copyfile(bad_documents / "locked.pdf", ws / "docs" / "locked.pdf")
    (ws / "notes.md").write_text("# Notes\n\nNothing about backups here.\n", encoding="utf-8")
    session = await start_session(
        "visual-studio-code",
        [ws],
        tmp_path / "index",
        init_options={"groundls": {"answer": {"usePackagedModel": False, "modelPath": ""}}},
    )
    try:
        found = await command(
            session, "groundls.search", {"query": "who migrates the billing database", "k": 3}
        )
        slide = found["hits"][0]
        assert (slide["path"], slide["place"]) == ("docs/review.pptx", "slide 2")
        assert slide["uri"] == session.uri("docs/review.pptx")

        pdf_uri = session.uri("docs/manual-ja.pdf")
        shown = await command(session, "groundls.documentText", {"uri": pdf_uri})
        assert shown["path"] == "docs/manual-ja.pdf"
        assert sources.WRAPPED_SENTENCE in shown["text"]
        assert [p["place"] for p in shown["places"]] == ["p. 1", "p. 2", "p. 3"]

        error = await command_error(
            session, "groundls.documentText", [{"uri": session.uri("notes.md")}]
        )
        assert error.code == REQUEST_FAILED and "not an indexed document" in error.message
        error = await command_error(session, "groundls.documentText", [{}])
        assert error.code == INVALID_PARAMS

        status = await command(session, "groundls.status", {})
        skipped = status["folders"][0]["skippedFiles"]
        assert skipped[0]["path"] == "docs/locked.pdf"
        assert skipped[0]["detail"].startswith("encrypted")
        assert skipped[0]["uri"] == session.uri("docs/locked.pdf")
    finally:
        assert await stop_session(session) == 0
