"""Documents in a workspace index: read once, chunked with their places, searched and cited by
page, slide, sheet or cell; bad ones listed as skipped with why while the rest index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from groundls.config import Config
from groundls.index import reading as reading_module
from groundls.workspace import Workspace
from tests.documents import make, sources
from tests.helpers.fakes import FakeEmbedder


def fakes() -> dict[str, FakeEmbedder]:
    return {"static": FakeEmbedder("fake-static", 32), "use": FakeEmbedder("fake-use", 32)}


def open_ws(root: Path, index: Path) -> Workspace:
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    return Workspace.open(root, config, index, embedders=fakes())


@pytest.fixture
def ws(documents: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(documents, root / "docs")
    (root / "README.md").write_text("# Inventory service\n\nSee docs/.\n", encoding="utf-8")
    return root


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The documents the index reads (the real reader, counted)."""
    seen: list[str] = []
    real = reading_module.extract_bounded

    def counted(abs_path: Path, rel_path: str, **kw):  # type: ignore[no-untyped-def]
        seen.append(rel_path)
        return real(abs_path, rel_path, **kw)

    monkeypatch.setattr(reading_module, "extract_bounded", counted)
    return seen


def test_documents_index_with_their_places_and_read_back_as_their_text(
    ws: Path, tmp_path: Path
) -> None:
    workspace = open_ws(ws, tmp_path / "index")
    try:
        report = workspace.index()
        assert report.files_indexed == 9 and not report.skipped
        stats = workspace.stats()
        assert stats["documents_by_format"] == {
            "pdf": 2,
            "docx": 1,
            "odt": 1,
            "epub": 1,
            "pptx": 1,
            "xlsx": 1,
            "ipynb": 1,
        }
        hit = workspace.chunk_at("docs/manual-ja.pdf", 1)
        assert hit is not None and hit.place == "p. 1" and hit.language == "pdf"
        places = {
            h.place
            for path in ("docs/review.pptx", "docs/matrix.xlsx", "docs/analysis.ipynb")
            for line in range(1, 12)
            if (h := workspace.chunk_at(path, line)) is not None
        }
        assert {"slide 1", "slide 2", "sheet テスト項目"} <= places
        assert any(p.startswith("cell") for p in places)
        lines, total = workspace.read_lines("docs/manual-ja.pdf", 1, 400)
        assert sources.WRAPPED_SENTENCE in "\n".join(lines) and total == len(lines)
    finally:
        workspace.close()


def test_an_unchanged_document_is_never_read_again_and_an_edited_one_once(
    ws: Path, tmp_path: Path, reads: list[str]
) -> None:
    workspace = open_ws(ws, tmp_path / "index")
    try:
        workspace.index()
        assert len(reads) == 8
        reads.clear()
        again = workspace.index()
        assert reads == [] and again.files_unchanged == 9
        pdf = ws / "docs" / "manual-ja.pdf"
        os.utime(pdf, ns=(pdf.stat().st_atime_ns, pdf.stat().st_mtime_ns + 10**9))
        assert workspace.index().files_indexed == 0 and reads == []  # same bytes, new time
        shutil.copyfile(ws / "docs" / "manual-en.pdf", pdf)
        report = workspace.index()
        assert reads == ["docs/manual-ja.pdf"] and report.files_indexed == 1
        assert workspace.index().files_indexed == 0 and reads == ["docs/manual-ja.pdf"]
    finally:
        workspace.close()


def test_a_new_reader_reads_every_document_again_the_refused_ones_too(
    ws: Path, bad_documents: Path, tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copyfile(bad_documents / "locked.pdf", ws / "locked.pdf")
    workspace = open_ws(ws, tmp_path / "index")
    try:
        workspace.index()
        reads.clear()
        workspace.index()
        assert reads == []
        monkeypatch.setattr(
            reading_module, "EXTRACTOR_VERSION", reading_module.EXTRACTOR_VERSION + 1
        )
        workspace.index()
        assert len(reads) == 9 and "locked.pdf" in reads
    finally:
        workspace.close()


def test_the_deep_tier_fills_document_chunks_from_the_stored_text(
    ws: Path, tmp_path: Path, reads: list[str]
) -> None:
    embedders = {
        **fakes(),
        "e5": FakeEmbedder("fake-e5", 32),
        "minilm": FakeEmbedder("fake-minilm", 32),
    }
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    workspace = Workspace.open(ws, config, tmp_path / "index", embedders=embedders)
    try:
        workspace.index()
        reads.clear()
        assert workspace.fill_deep() > 0
        assert reads == []  # the fill chunks the text the index kept, no document is read
        have, want = workspace.indexer.deep_status()
        assert want > 0 and have == want
    finally:
        workspace.close()


def test_bad_documents_are_listed_skipped_with_why_and_the_rest_indexes(
    ws: Path, bad_documents: Path, tmp_path: Path, reads: list[str]
) -> None:
    shutil.copytree(bad_documents, ws / "bad")
    (ws / "bad" / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")
    workspace = open_ws(ws, tmp_path / "index")
    try:
        report = workspace.index()
        assert report.files_indexed == 9
        why = dict(report.skipped_files)
        assert set(why) == {f"bad/{p.name}" for p in (ws / "bad").iterdir()}
        assert why["bad/scanned.pdf"].startswith("no text layer: scanned pages, their text waits")
        assert why["bad/locked.pdf"].startswith("encrypted")
        assert why["bad/old.doc"] == "save it as .docx"
        assert report.skipped["encrypted"] == 6
        listed = {f["path"]: f for f in workspace.stats()["skipped_files"]}
        assert listed["bad/bomb.docx"]["reason"] == "document-too-large"
        assert "zip bomb" in listed["bad/bomb.docx"]["detail"]
        reads.clear()
        again = workspace.index()  # a refused document is not tried again until it changes
        assert [r for r in reads if r.startswith("bad/")] == []
        assert dict(again.skipped_files) == why
        shutil.copyfile(ws / "docs" / "manual-en.pdf", ws / "bad" / "locked.pdf")
        fixed = workspace.index()
        assert reads == ["bad/locked.pdf"] and fixed.files_indexed == 1
        assert "bad/locked.pdf" not in dict(fixed.skipped_files)
    finally:
        workspace.close()


def test_secrets_inside_a_document_are_redacted(tmp_path: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    root = tmp_path / "ws"
    root.mkdir()
    make.pandoc(f"# 接続\n\nトークンは次のとおりです。\n\ntoken = {token}\n", root / "setup.docx")
    workspace = open_ws(root, tmp_path / "index")
    try:
        assert workspace.index().secrets_redacted == 1
        lines, _ = workspace.read_lines("setup.docx", 1, 50)
        assert token not in "\n".join(lines) and "«redacted»" in "\n".join(lines)
        hit = workspace.chunk_at("setup.docx", 1)
        assert hit is not None
        texts = [h.text for h in workspace.search("トークン").hits]
        assert texts and all(token not in t for t in texts)
    finally:
        workspace.close()


@pytest.mark.slow
def test_the_cli_searches_documents_with_the_real_models_and_names_the_page(
    ws: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "GROUNDLS_INDEX_DIR": str(tmp_path / "indexes")}
    groundls = [sys.executable, "-m", "groundls.cli.main"]
    subprocess.run(
        [*groundls, "index", str(ws)], check=True, capture_output=True, env=env, timeout=600
    )

    def search(query: str) -> dict:  # type: ignore[type-arg]
        done = subprocess.run(
            [*groundls, "search", query, "--json", "-k", "3", "--workspace", str(ws)],
            check=True,
            capture_output=True,
            env=env,
            timeout=300,
        )
        return json.loads(done.stdout)

    first = search("夜中のバックアップが終わらないと誰に連絡が行く？")["hits"][0]
    assert first["path"].startswith("docs/manual-ja.") and "バックアップ" in first["title"]
    pdf = [
        h
        for h in search("バックアップが三十分で終わらないとき")["hits"]
        if h["path"] == "docs/manual-ja.pdf"
    ]
    assert pdf and pdf[0]["place"] == "p. 2"
    slide = search("who migrates the billing database")["hits"][0]
    assert (slide["path"], slide["place"]) == ("docs/review.pptx", "slide 2")
    text = subprocess.run(
        [
            *groundls,
            "search",
            "who migrates the billing database",
            "-k",
            "1",
            "--workspace",
            str(ws),
        ],
        check=True,
        capture_output=True,
        env=env,
        timeout=300,
        text=True,
    ).stdout
    assert "docs/review.pptx slide 2" in text
