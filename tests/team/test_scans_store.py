"""Scans in the team store: what OCR read on the machine that builds the index is published, and a
teammate's search through the served store cites the scanned page (the real OCR engine, a real
PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundls.cli.main import main as cli
from groundls.index.files.documents.scans import ocr_available
from tests.documents import make

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not ocr_available(), reason="OCR is not installed (scripts/test.sh installs the ocr extra)"
    ),
]


def test_a_teammate_searching_the_served_store_finds_the_scanned_page(
    tmp_path: Path, database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    manual = make.japanese_manual_pdf(tmp_path / "manual-ja.pdf")
    make.scanned_copy(manual, ws / "docs" / "board.png", [0])
    (ws / "notes.md").write_text("# Notes\n\nNothing about stock here.\n", encoding="utf-8")

    built = ["index", "--deep", str(ws), "--index-dir", str(tmp_path / "ci"), "--store", database]
    assert cli(built) == 0
    assert "published to postgresql database" in capsys.readouterr().out

    asked = ["search", "-w", str(ws), "--index-dir", str(tmp_path / "teammate")]
    assert cli([*asked, "--store", database, "--json", "在庫台帳とは何を記録した表ですか"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert ("docs/board.png", "scanned") in {(h["path"], h.get("place", "")) for h in hits}
