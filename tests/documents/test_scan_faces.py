"""Scans in every face: the language server over stdio reads them in its background tier, then
searches, shows and counts them; the MCP server gives an agent the page it cites. The real OCR
engine, the real servers."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client

from groundls.index.files.documents.scans import ocr_available
from tests.documents import make
from tests.helpers import mcp_client
from tests.helpers.lsp_client import command, hover, start_session, stop_session

pytestmark = [
    pytest.mark.slow,
    pytest.mark.asyncio,
    pytest.mark.skipif(
        not ocr_available(), reason="OCR is not installed (scripts/test.sh installs the ocr extra)"
    ),
]

CLI = [sys.executable, "-m", "groundls.cli.main"]
#: Seconds the background tier may take to read the two scanned pages on a busy machine.
OCR_WAIT_S = 600
#: A sentence of the manual's first page (tests/documents/sources.py), asked in other words.
QUESTION = "在庫台帳とは何を記録した表ですか"


@pytest.fixture(scope="module")
def scans(documents: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The manual's first page scanned as a PDF and photographed as a PNG, beside a note."""
    folder = tmp_path_factory.mktemp("scans")
    make.scanned_copy(documents / "manual-ja.pdf", folder / "scan-ja.pdf", [0])
    make.scanned_copy(documents / "manual-ja.pdf", folder / "board.png", [0])
    (folder / "notes.md").write_text("# Notes\n\nNothing about stock here.\n", encoding="utf-8")
    return folder


async def _scans_read(session) -> dict:  # noqa: ANN001 - tests.helpers.lsp_client.Session
    """The folder's OCR counts once nothing waits for OCR any more."""
    deadline = time.monotonic() + OCR_WAIT_S
    while True:
        status = await command(session, "groundls.status", {})
        scans = status["folders"][0].get("stats", {}).get("scans", {})
        if scans.get("filesWaiting") == 0 and scans.get("pagesRead"):
            return scans
        assert time.monotonic() < deadline, f"OCR did not finish: {scans}"
        await asyncio.sleep(1.0)


async def test_an_editor_finds_shows_and_counts_what_its_server_read_from_scans(
    scans: Path, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(scans, ws / "docs")
    (ws / "docs" / "notes.md").write_text(  # a note on what the scanned page describes
        "# 在庫のメモ\n\n在庫台帳には倉庫ごとの品目と数量を記録する。\n", encoding="utf-8"
    )
    session = await start_session(
        "visual-studio-code",
        [ws],
        tmp_path / "index",
        init_options={"groundls": {"answer": {"usePackagedModel": False, "modelPath": ""}}},
    )
    try:
        counts = await _scans_read(session)
        assert counts["pagesRead"] == 2 and counts["pagesUnsure"] == 0

        shown = await command(
            session, "groundls.documentText", {"uri": session.uri("docs/board.png")}
        )
        assert shown["path"] == "docs/board.png"
        assert [p["place"] for p in shown["places"]] == ["scanned"]
        assert "在庫台帳" in shown["text"]

        found = await command(session, "groundls.search", {"query": QUESTION, "k": 5})
        cited = {(h["path"], h.get("place", "")) for h in found["hits"]}
        assert ("docs/scan-ja.pdf", "p. 1 (scanned)") in cited or (
            "docs/board.png",
            "scanned",
        ) in cited
        for h in found["hits"]:
            assert h["uri"] == session.uri(h["path"])

        # the hover's notes on the note name the scanned places, cited as scanned
        shown = await hover(session, "docs/notes.md", 2)
        assert shown is not None
        notes = shown.contents.value  # type: ignore[union-attr]
        assert "`docs/board.png scanned`" in notes or "`docs/scan-ja.pdf p. 1 (scanned)`" in notes
    finally:
        assert await stop_session(session) == 0


async def test_an_agent_reads_the_scanned_page_its_search_cites(
    scans: Path, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    shutil.copytree(scans, root / "docs")
    index_dir = tmp_path / "index"
    subprocess.run(  # --deep: the OCR tier is read before it returns, as for scripts and CI
        [*CLI, "index", "--quiet", "--deep", str(root), "--index-dir", str(index_dir)],
        check=True,
        capture_output=True,
        timeout=OCR_WAIT_S,
    )
    async with Client(
        mcp_client.server("--workspace", str(root), "--index-dir", str(index_dir))
    ) as client:
        found = await client.call_tool("search", {"query": QUESTION, "k": 5})
        assert not found.is_error
        places = [(h["path"], h.get("place", "")) for h in found.structured_content["hits"]]
        scanned = [p for p in places if "scanned" in p[1]]
        assert scanned, places
        path, place = scanned[0]
        assert f"{path} {place}" in found.content[0].text
        read = await client.call_tool("read", {"target": f"{path}:1-200"})
        assert not read.is_error
        assert "在庫台帳" in read.structured_content["text"]
