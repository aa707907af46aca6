"""The test documents, made once per session with real tools (see ``make``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.documents import make, sources


@pytest.fixture(scope="session")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Readable documents of every format: a Japanese manual printed to PDF by Chromium (with
    its running header and footer), the same manual as Word, OpenDocument and EPUB (pandoc), an
    English manual exported to PDF with bookmarks by LibreOffice, slides, a workbook and a
    notebook."""
    out = tmp_path_factory.mktemp("documents")
    work = tmp_path_factory.mktemp("documents-work")
    ja = sources.chapters_markdown(sources.JA_CHAPTERS)
    make.japanese_manual_pdf(out / "manual-ja.pdf", header_footer=True)
    make.pandoc(ja, out / "manual-ja.docx")
    make.pandoc(ja, out / "manual-ja.odt")
    make.pandoc(ja, out / "manual-ja.epub")
    en_odt = make.pandoc(sources.chapters_markdown(sources.EN_CHAPTERS), work / "manual-en.odt")
    make.libreoffice([(en_odt, out / "manual-en.pdf", "writer_pdf_Export", "")], work)
    make.slides(out / "review.pptx")
    make.workbook(out / "matrix.xlsx")
    make.notebook(out / "analysis.ipynb")
    return out


@pytest.fixture(scope="session")
def bad_documents(documents: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """For each format a broken and (where the format has it) an encrypted file, and hostile
    ones: a zip bomb, a 50,000-page PDF, a PDF whose page tree loops, a scan with no text."""
    out = tmp_path_factory.mktemp("bad-documents")
    work = tmp_path_factory.mktemp("bad-documents-work")
    for name in (
        "manual-ja.pdf",
        "manual-ja.docx",
        "review.pptx",
        "matrix.xlsx",
        "manual-ja.odt",
        "manual-ja.epub",
    ):
        suffix = Path(name).suffix
        make.truncated(documents / name, out / f"broken{suffix}")
    (out / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    make.need("qpdf")
    subprocess.run(
        [
            "qpdf",
            "--encrypt",
            "user-pw",
            "owner-pw",
            "256",
            "--",
            str(documents / "manual-ja.pdf"),
            str(out / "locked.pdf"),
        ],
        check=True,
        capture_output=True,
    )
    for name in ("manual-ja.docx", "review.pptx", "matrix.xlsx"):
        make.office_encrypted(documents / name, out / f"locked{Path(name).suffix}")
    make.libreoffice([(documents / "manual-ja.odt", out / "locked.odt", "writer8", "pw")], work)
    make.drm_epub(out / "locked.epub", documents / "manual-ja.epub")
    make.zip_bomb_docx(out / "bomb.docx", documents / "manual-ja.docx")
    make.many_pages_pdf(out / "pages.pdf")
    make.looping_pdf(out / "loop.pdf")
    make.scanned_pdf(out / "scanned.pdf")
    return out
