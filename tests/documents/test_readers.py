"""Each reader on real documents made by real tools: structure kept, noise dropped, and every
broken, encrypted or hostile file refused with its reason, never a crash or a stall."""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from groundls.chunkers import chunk_file

from groundls.index.files.documents import DocumentRefused, extract, extract_bounded, place_at
from tests.documents import sources


def read(documents: Path, name: str):  # type: ignore[no-untyped-def]
    return extract(name, (documents / name).read_bytes())


def raw_pdf_text(path: Path) -> str:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


# -- PDF -----------------------------------------------------------------------------------------


def test_a_japanese_sentence_wrapped_across_pdf_lines_is_one_sentence(documents: Path) -> None:
    raw = raw_pdf_text(documents / "manual-ja.pdf")
    assert sources.WRAPPED_SENTENCE not in raw.replace("\r\n", "\n")  # the page wraps it
    text = read(documents, "manual-ja.pdf").text
    assert sources.WRAPPED_SENTENCE in text
    chunk = next(c for c in chunk_file("manual-ja.pdf", text) if "バックアップ" in c.title)
    assert sources.WRAPPED_SENTENCE in chunk.text


def test_pdf_running_headers_footers_and_page_numbers_are_dropped(documents: Path) -> None:
    raw = raw_pdf_text(documents / "manual-ja.pdf")
    assert "file://" in raw and "1/3" in raw  # Chromium's footer: the address and "page/pages"
    text = read(documents, "manual-ja.pdf").text
    assert "file://" not in text
    assert "1/3" not in text and "2/3" not in text


def test_a_pdf_contents_page_is_dropped_so_it_cannot_outrank_its_sections(documents: Path) -> None:
    raw = raw_pdf_text(documents / "manual-ja.pdf")
    assert "1.1 この手引きについて ......" in raw
    text = read(documents, "manual-ja.pdf").text
    assert "....." not in text
    assert text.count("この手引きについて") == 1  # the section's heading, not its contents entry


def test_pdf_headings_come_from_the_font_sizes_without_bookmarks(documents: Path) -> None:
    lines = read(documents, "manual-ja.pdf").text.splitlines()
    assert "# 第1章 はじめに" in lines
    assert "## 2.1 バックアップ" in lines


def test_pdf_headings_come_from_the_bookmarks_when_the_pdf_has_them(documents: Path) -> None:
    pdf = pdfium.PdfDocument(str(documents / "manual-en.pdf"))
    assert [item.get_title() for item in pdf.get_toc()][:2] == [
        "Chapter 1 Getting started",
        "1.1 Installing the agent",
    ]
    pdf.close()
    text = read(documents, "manual-en.pdf").text
    chapter = next(line for line in text.splitlines() if line.endswith("Chapter 1 Getting started"))
    section = next(line for line in text.splitlines() if line.endswith("1.1 Installing the agent"))
    assert chapter.startswith("#") and section.startswith(chapter.split()[0] + "#")


def test_pdf_places_are_its_pages(documents: Path) -> None:
    document = read(documents, "manual-ja.pdf")
    assert [label for _, label in document.places] == ["p. 1", "p. 2", "p. 3"]
    assert document.units == 3
    chunks = chunk_file("manual-ja.pdf", document.text)
    failure = next(c for c in chunks if "注文が受け付けられない" in c.title)
    assert place_at(document.places, failure.start_line, failure.end_line) == "p. 3"


# -- Office, OpenDocument, EPUB, notebooks ---------------------------------------------------------


@pytest.mark.parametrize("name", ["manual-ja.docx", "manual-ja.odt"])
def test_word_and_odt_headings_come_from_their_heading_styles_and_outline(
    documents: Path, name: str
) -> None:
    document = read(documents, name)
    lines = document.text.splitlines()
    assert "# 第2章 日々の作業" in lines
    assert "## 2.1 バックアップ" in lines
    assert sources.WRAPPED_SENTENCE in document.text
    chunk = next(c for c in chunk_file(name, document.text) if sources.WRAPPED_SENTENCE in c.text)
    assert chunk.breadcrumb[-2:] == ("第2章 日々の作業", "2.1 バックアップ")


def test_each_slide_is_a_section_titled_by_its_title_with_its_speaker_notes(
    documents: Path,
) -> None:
    document = read(documents, "review.pptx")
    assert [label for _, label in document.places] == ["slide 1", "slide 2"]
    chunks = chunk_file("review.pptx", document.text)
    first = next(c for c in chunks if c.title == "四半期レビュー")
    assert "新しい顧客は関西に多い" in first.text
    assert "物流倉庫の移転計画" in first.text  # the speaker notes
    second = next(c for c in chunks if c.title == "Next steps")
    assert "| Aiko | migrate the billing database to the new cluster |" in second.text
    assert place_at(document.places, second.start_line, second.end_line) == "slide 2"


def test_each_block_of_a_sheet_keeps_the_header_row(documents: Path) -> None:
    document = read(documents, "matrix.xlsx")
    assert [label for _, label in document.places] == ["sheet テスト項目", "sheet Summary"]
    chunks = chunk_file("matrix.xlsx", document.text)
    assert document.text.count("| ID | 手順 | 期待結果 |") == 3  # 46 rows: three blocks
    rows = [c for c in chunks if "ログイン画面" in c.text or "ロックされる" in c.text]
    assert len(rows) >= 2
    assert all("| ID | 手順 | 期待結果 |" in c.text for c in rows)
    lockout = next(c for c in rows if "アカウントが十五分ロックされる" in c.text)
    assert place_at(document.places, lockout.start_line, lockout.end_line) == "sheet テスト項目"


def test_epub_chapters_go_through_the_html_chunker(documents: Path) -> None:
    document = read(documents, "manual-ja.epub")
    assert document.syntax == "html"
    chunks = chunk_file("manual-ja.epub", document.text)
    backup = next(c for c in chunks if sources.WRAPPED_SENTENCE in c.text)
    assert backup.breadcrumb[-1] == "2.1 バックアップ"
    assert place_at(document.places, backup.start_line, backup.end_line).startswith("ch. ")


def test_notebook_markdown_is_prose_code_is_code_and_outputs_are_left_out(documents: Path) -> None:
    document = read(documents, "analysis.ipynb")
    assert "OUTPUT-ONLY-WORD" not in document.text
    assert "```python\nimport pandas as pd" in document.text
    chunks = chunk_file("analysis.ipynb", document.text)
    winter = next(c for c in chunks if "冬の売上" in c.text)
    assert place_at(document.places, winter.start_line, winter.end_line) == "cell 3"


# -- what cannot be read ------------------------------------------------------------------------

BAD = {
    "broken.pdf": "corrupt-document",
    "broken.docx": "corrupt-document",
    "broken.pptx": "corrupt-document",
    "broken.xlsx": "corrupt-document",
    "broken.odt": "corrupt-document",
    "broken.epub": "corrupt-document",
    "broken.ipynb": "corrupt-document",
    "locked.pdf": "encrypted",
    "locked.docx": "encrypted",
    "locked.pptx": "encrypted",
    "locked.xlsx": "encrypted",
    "locked.odt": "encrypted",
    "locked.epub": "encrypted",
    "bomb.docx": "document-too-large",
    "pages.pdf": "document-too-large",
    "loop.pdf": "corrupt-document",
    "scanned.pdf": "needs-ocr",
}


@pytest.mark.parametrize(("name", "reason"), sorted(BAD.items()))
def test_a_broken_encrypted_or_hostile_document_is_refused_with_its_reason(
    bad_documents: Path, name: str, reason: str
) -> None:
    with pytest.raises(DocumentRefused) as refused:
        extract_bounded(bad_documents / name, name, time_limit=60)
    assert refused.value.reason == reason
    assert refused.value.message and "Traceback" not in refused.value.message
    if reason == "needs-ocr":  # read later, by the OCR tier
        assert "waits for OCR" in refused.value.message


def test_a_document_that_reads_too_long_is_stopped_and_refused(documents: Path) -> None:
    with pytest.raises(DocumentRefused) as refused:
        extract_bounded(documents / "manual-ja.pdf", "manual-ja.pdf", time_limit=0.01)
    assert refused.value.reason == "document-timeout"


def test_a_reader_that_runs_out_of_memory_is_refused_and_this_process_lives_on(
    tmp_path: Path,
) -> None:
    huge = tmp_path / "huge.ipynb"  # valid, but reading it needs about three times its size
    huge.write_text(
        '{"cells": [{"cell_type": "markdown", "source": "' + "x" * 60_000_000 + '"}]}',
        encoding="utf-8",
    )
    with pytest.raises(DocumentRefused) as refused:
        extract_bounded(huge, "huge.ipynb", memory=150 * 1024**2)
    assert refused.value.reason in ("document-too-large", "corrupt-document")
    assert "memory" in refused.value.message


def test_a_reader_that_fails_names_no_path_and_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from groundls.index.files.documents import child

    def trips(path: str, data: bytes, **options: object) -> None:
        raise ValueError(f"unexpected object at {tmp_path}/deep/inside")

    monkeypatch.setattr(child, "extract", trips)
    doc = tmp_path / "a.pdf"
    doc.write_bytes(b"%PDF-1.7")
    assert child.main(["child", str(doc), "a.pdf"]) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply == {"refused": "corrupt-document", "message": "cannot read it: ValueError"}
