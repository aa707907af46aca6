"""Scanned pages and images read by OCR (the real RapidOCR engine and its packaged PP-OCRv6
models): waiting after the fast index, read by the OCR tier, searched and cited as scanned,
never read twice; a page's boxes composed into lines; bad images refused with why."""

from __future__ import annotations

import difflib
import math
import re
import struct
import threading
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from groundls.answer.stages.retrieve import carries_answer
from groundls.cli.commands import _scans_line
from groundls.config import Config
from groundls.index.files.documents import DocumentRefused, extract, extract_bounded, place_at
from groundls.index.files.documents.base import unsure_place
from groundls.index.files.documents.layout import Line, compose
from groundls.index.files.documents.scans import (
    MIN_IMAGE_BYTES,
    is_vertical,
    ocr_available,
    rows_as_lines,
    turned_for_reading,
)
from groundls.workspace import Workspace
from tests.documents import make, sources
from tests.helpers.excerpts import hit
from tests.helpers.fakes import FakeEmbedder

needs_ocr = pytest.mark.skipif(
    not ocr_available(), reason="OCR is not installed (scripts/test.sh installs the ocr extra)"
)


_PROSE = "The stock ledger records each warehouse's items and how many of each it holds. " * 3


def box(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def test_boxes_on_one_row_are_one_line_and_rows_read_top_to_bottom() -> None:
    boxes = [
        (box(100, 300, 400, 330), "second row"),
        (box(100, 100, 300, 130), "Name"),
        (box(700, 102, 900, 131), "Value"),  # a cell far to the right: a table's row
        (box(310, 101, 420, 129), "and kind"),  # close by: the same phrase
    ]
    lines = rows_as_lines(boxes, 1000, 4)
    assert [ln.text for ln in lines] == ["Name and kind | Value", "second row"]
    first, second = lines
    assert first.page == second.page == 4
    assert first.top > first.bottom > second.top  # PDF points, y up: the first row is higher
    assert first.size == second.size  # body lines of a like height read as one size


def test_rows_of_a_page_scanned_askew_stay_rows() -> None:
    # long lines turned by 2 degrees: each rises 52 pixels across its 1,500, more than the 40
    # pixels from one line to the next
    turn = math.radians(2)

    def askew(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
        return [
            [x * math.cos(turn) - y * math.sin(turn), x * math.sin(turn) + y * math.cos(turn)]
            for x, y in box(x0, y0, x1, y1)
        ]

    texts = [f"line {n} of a paragraph that runs across the whole width" for n in range(6)]
    boxes = [(askew(100, 300 + 40 * n, 1600, 330 + 40 * n), t) for n, t in enumerate(texts)]
    assert [ln.text for ln in rows_as_lines(boxes[::-1], 2200, 1)] == texts


def _column_page(left: list[str], right: list[str]) -> list[tuple[list[list[float]], str]]:
    """A title centred over the page, then two columns (at x 100 and 840, 15 pixels a
    character) whose lines sit on the same rows."""
    boxes = [(box(560, 40, 1040, 90), "A title set across both columns")]
    for row, (a, b) in enumerate(zip(left, right, strict=True)):
        y = 150 + 40 * row
        boxes += [(box(100, y, 100 + 15 * len(a), y + 30), a)]
        boxes += [(box(840, y, 840 + 15 * len(b), y + 30), b)]
    return boxes


def test_a_page_in_two_columns_is_read_column_by_column() -> None:
    left = [f"the left column's line {n} of its paragraph" for n in range(5)]
    right = [f"the right column's line {n} of its paragraph" for n in range(5)]
    lines = rows_as_lines(_column_page(left, right), 2200, 1)
    assert [ln.text for ln in lines] == ["A title set across both columns", *left, *right]


def test_a_table_of_short_cells_keeps_its_rows() -> None:
    options = ["--force", "--quiet", "--verbose", "--dry-run", "--color"]
    meanings = [f"what the option number {n} does, in a sentence" for n in range(5)]
    lines = rows_as_lines(_column_page(options, meanings), 2200, 1)
    assert [ln.text for ln in lines[1:]] == [
        f"{o} | {m}" for o, m in zip(options, meanings, strict=True)
    ]


def test_a_vertical_page_is_read_column_by_column_right_to_left() -> None:
    # three columns of a vertical page, 40 px apart, each box 60 px wide (PP-OCR's boxes reach
    # into their neighbours'), given in no order; a title column stands right of them
    columns = {1500: "縦書きの題", 1400: "一つ目の段落の一行目です", 1360: "一行目の続きです"}
    columns[1280] = "二つ目の段落です"
    boxes = [
        (box(x - 30, 100, x + 30, 100 + 90 * len(text)), text)
        for x, text in sorted(columns.items())
    ]
    assert is_vertical(boxes) and not is_vertical([(box(0, 0, 900, 40), "a row of text")])
    lines = rows_as_lines(turned_for_reading(boxes, 1700), 1700, 1)
    assert [ln.text for ln in lines] == [columns[x] for x in (1500, 1400, 1360, 1280)]
    first, second, third = lines[1:]
    assert first.bottom - second.top >= 0  # the columns of a paragraph do not overlap
    assert second.bottom - third.top > 2 * (first.bottom - second.top)  # the paragraph's gap


@needs_ocr
def test_a_scanned_vertical_page_reads_in_order_as_paragraphs(tmp_path: Path) -> None:
    printed = make.vertical_pdf(tmp_path / "vertical.pdf")
    scan = make.scanned_copy(printed, tmp_path / "vertical.png", [0])
    read = extract("vertical.png", scan.read_bytes(), ocr=True).text
    paragraphs = [p for _, sections in sources.JA_CHAPTERS for _, ps in sections for p in ps][:4]
    assert read.startswith("# 在庫管理サービス")
    truth = "".join(paragraphs)
    assert difflib.SequenceMatcher(None, _plain(truth), _plain(read)).ratio() > 0.9
    blocks = [b for b in read.split("\n\n")[1:] if b.strip()]
    assert len(blocks) == len(paragraphs)  # each paragraph one, its columns joined
    for block, paragraph in zip(blocks, paragraphs, strict=True):
        assert difflib.SequenceMatcher(None, _plain(paragraph), _plain(block)).ratio() > 0.85


@needs_ocr
def test_a_scanned_two_column_page_reads_as_its_text_layer(tmp_path: Path) -> None:
    printed = make.two_column_pdf(tmp_path / "columns.pdf")
    scan = make.scanned_copy(printed, tmp_path / "scan.pdf")
    truth = extract("columns.pdf", printed.read_bytes()).text
    read = extract("scan.pdf", scan.read_bytes(), ocr=True).text
    assert difflib.SequenceMatcher(None, _plain(truth), _plain(read)).ratio() > 0.9


def test_a_page_read_with_little_confidence_is_searched_but_never_an_excerpt() -> None:
    places = [(1, "p. 1 (scanned)"), (9, "p. 2 (scanned, unsure)"), (20, "p. 3 (scanned, unsure)")]
    assert place_at(places, 1, 5) == "p. 1 (scanned)"
    assert place_at(places, 10, 25) == "pp. 2–3 (scanned, unsure)"
    # a note that is not OCR's stays with its label
    assert place_at([(1, "sheet A (old)"), (2, "sheet B (old)")], 1, 2) == "sheets A (old)–B (old)"
    assert unsure_place(place_at(places, 2, 12)) and not unsure_place(place_at(places, 1, 5))
    question = "where is the stock ledger kept"
    assert carries_answer(replace(hit(1, _PROSE), place="p. 1 (scanned)"), question)
    assert not carries_answer(replace(hit(2, _PROSE), place="p. 2 (scanned, unsure)"), question)


def test_an_image_waits_for_ocr_in_the_fast_read() -> None:
    with pytest.raises(DocumentRefused) as refused:
        extract("board.png", b"\x89PNG\r\n\x1a\n")
    assert refused.value.reason == "needs-ocr"


def _png(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` × ``height`` pixels (its data is one empty row)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )


@needs_ocr
@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (_png(30_000, 30_000), "document-too-large"),  # a bomb: never decoded
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 40_000, "corrupt-document"),  # truncated
    ],
)
def test_a_bomb_or_a_broken_image_is_refused_with_why(
    tmp_path: Path, data: bytes, reason: str
) -> None:
    image = tmp_path / "x.png"
    image.write_bytes(data)
    with pytest.raises(DocumentRefused) as refused:
        extract_bounded(image, "x.png", ocr=True, time_limit=120)
    assert refused.value.reason == reason
    assert "Traceback" not in refused.value.message and str(tmp_path) not in refused.value.message


def _plain(text: str) -> str:
    return re.sub(r"[\s#*|]+", "", text)


@pytest.fixture(scope="module")
def scanned_ws(documents: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Japanese manual scanned whole, the same manual with its second page scanned (a mixed
    PDF), its first page as a photo (PNG), and an icon too small to hold text."""
    ws = tmp_path_factory.mktemp("scanned-ws")
    (ws / "docs").mkdir()
    manual = documents / "manual-ja.pdf"
    make.scanned_copy(manual, ws / "docs" / "scan-ja.pdf")
    page2 = make.scanned_copy(manual, tmp_path_factory.mktemp("scan-work") / "p2.pdf", [1])
    make.pdf_of([(manual, 0), (page2, 0)], ws / "docs" / "mixed-ja.pdf")
    make.scanned_copy(manual, ws / "docs" / "page-ja.png", [0])
    (ws / "docs" / "icon.png").write_bytes(_png(16, 16))
    assert (ws / "docs" / "icon.png").stat().st_size < MIN_IMAGE_BYTES
    return ws


@needs_ocr
def test_scans_wait_for_the_ocr_tier_then_are_searched_and_cited_as_scanned(
    scanned_ws: Path, documents: Path, tmp_path: Path
) -> None:
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    fakes = {"static": FakeEmbedder("fake-static", 32), "use": FakeEmbedder("fake-use", 32)}
    ws = Workspace.open(scanned_ws, config, tmp_path / "index", embedders=fakes)
    try:
        report = ws.index()
        assert report.skipped.get("needs-ocr") == 2  # the scan and the photo; the icon unlisted
        assert {p for p, _ in report.skipped_files} == {"docs/scan-ja.pdf", "docs/page-ja.png"}
        waiting = ws.stats()["scans"]
        assert (waiting["pages_read"], waiting["files_waiting"]) == (0, 3)  # and mixed's page 2
        assert waiting["ocr"] == ""  # installed: nothing to say how to install it
        assert ws.document_text("docs/mixed-ja.pdf").text  # its text page is searchable now

        assert ws.fill_deep() >= 3  # the OCR tier, as `groundls index --deep` runs it
        scans = ws.stats()["scans"]
        assert scans["files_waiting"] == 0 and scans["pages_read"] >= 4

        truth = extract("manual-ja.pdf", (documents / "manual-ja.pdf").read_bytes()).text
        read = ws.document_text("docs/scan-ja.pdf")
        assert all(label.endswith("(scanned)") for _, label in read.places)
        # the scan's text against the printed manual's own text layer, whitespace aside
        assert difflib.SequenceMatcher(None, _plain(truth), _plain(read.text)).ratio() > 0.9
        mixed = ws.document_text("docs/mixed-ja.pdf")
        assert [label for _, label in mixed.places][:2] == [
            "p. 1",
            "p. 2 (scanned)",
        ]

        hits = ws.search("締め処理の途中で注文を受け付けると数量がずれる").hits
        cited = {(h.path, h.place) for h in hits}
        assert any(path == "docs/scan-ja.pdf" and "scanned" in place for path, place in cited)
        assert ("docs/page-ja.png", "scanned") in cited or any(
            h.path == "docs/page-ja.png"
            for h in ws.search("この手引きについて 在庫管理サービス").hits
        )

        # read once: an index run over unchanged files reads nothing again, the tier has no work
        again = ws.index()
        assert again.files_indexed == 0 and ws.fill_deep() == 0
        assert ws.stats()["scans"] == scans
    finally:
        ws.close()


@needs_ocr
def test_a_file_saved_while_ocr_reads_a_scan_is_indexed_without_waiting_for_it(
    documents: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    make.scanned_copy(documents / "manual-ja.pdf", root / "scan.pdf", [0])
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    fakes = {"static": FakeEmbedder("fake-static", 32), "use": FakeEmbedder("fake-use", 32)}
    ws = Workspace.open(root, config, tmp_path / "index", embedders=fakes)
    try:
        ws.index()
        reading, saved = threading.Event(), threading.Event()
        read_by_ocr = ws.indexer.read_by_ocr

        def held(path: str) -> object:  # OCR "runs" until the saved file is indexed
            reading.set()
            assert saved.wait(120)
            return read_by_ocr(path)

        monkeypatch.setattr(ws.indexer, "read_by_ocr", held)
        ocr = threading.Thread(target=ws.fill_deep)
        ocr.start()
        assert reading.wait(60)
        (root / "notes.md").write_text("# Notes\n\nThe night batch starts at two.\n")
        save = threading.Thread(target=ws.index_paths, args=(["notes.md"],))
        save.start()
        save.join(60)
        indexed = not save.is_alive()
        saved.set()
        ocr.join(300)
        assert indexed  # the save did not wait for OCR's read
        assert any(h.path == "notes.md" for h in ws.search("night batch").hits)
        assert ws.stats()["scans"]["files_waiting"] == 0
        assert "scanned" in ws.document_text("scan.pdf").places[0][1]
    finally:
        ws.close()


def test_a_scanned_heading_style_is_one_heading_level_whatever_its_boxes_height() -> None:
    # one heading style whose boxes came out 20 to 22.5 points high, and body lines
    titles = {"Backups": 20.0, "Restores": 21.5, "Upgrades": 22.5, "Alerts": 20.5}
    pages = [
        [
            Line(n + 1, title, size, 400, 72, 300, 700, 680),
            *(
                Line(
                    n + 1,
                    f"line {i} of the {title.lower()} section",
                    15.0,
                    400,
                    72,
                    500,
                    650 - 20 * i,
                    635 - 20 * i,
                )
                for i in range(8)
            ),
        ]
        for n, (title, size) in enumerate(titles.items())
    ]
    text = compose(pages, {}, {1, 2, 3, 4}).text
    assert [ln for ln in text.splitlines() if ln.startswith("#")] == [f"# {t}" for t in titles]


@needs_ocr
def test_a_page_scanned_too_coarse_to_read_well_is_listed_as_unsure(
    documents: Path, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    manual = documents / "manual-ja.pdf"
    make.scanned_copy(manual, root / "fax.pdf", [0], dpi=50)  # a fax of a fax
    make.scanned_copy(manual, root / "scan.pdf", [0])
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    fakes = {"static": FakeEmbedder("fake-static", 32), "use": FakeEmbedder("fake-use", 32)}
    ws = Workspace.open(root, config, tmp_path / "index", embedders=fakes)
    try:
        ws.index()
        ws.fill_deep()
        assert ws.document_text("fax.pdf").places == [(1, "p. 1 (scanned, unsure)")]
        assert ws.document_text("scan.pdf").places == [(1, "p. 1 (scanned)")]
        scans = ws.stats()["scans"]
        assert (scans["pages_read"], scans["pages_unsure"]) == (2, 1)
        assert scans["unsure"] == ["fax.pdf p. 1 (scanned, unsure)"]
        status = _scans_line(scans)  # what `groundls status` prints
        assert "1 read with little confidence" in status and "fax.pdf p. 1" in status
    finally:
        ws.close()
