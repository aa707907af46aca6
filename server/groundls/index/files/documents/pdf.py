"""PDF: the text layer, page by page (PDFium, through pypdfium2).

PDFium gives each page's text in reading order with its line breaks, and for each character
its font size, weight and box; :mod:`.layout` makes Markdown of those lines:

- headings come from the outline (bookmarks) where the PDF has one, else from lines set larger
  (or bolder) than the body text;
- a line that wraps inside a paragraph is joined to the next (Japanese with no space);
- running headers, footers and page numbers are dropped;
- table-of-contents entries (a title with dot leaders and a page number, or a run of lines that
  repeat the document's headings) are dropped, so a contents page cannot outrank the sections it
  lists.

A page without text is read by OCR in the OCR tier (:mod:`.scans`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .base import DocumentRefused, Extracted
from .layout import Line, compose

#: More pages than this is refused (a 50,000-page file is not a manual anyone reads).
MAX_PAGES = 5000
#: Characters per page below which a page is taken for a scanned image.
SCAN_CHARS = 20
#: What tells a scanned page's text: (the open PDF, 0-based page index) -> its lines (none for a
#: blank page); see :mod:`.scans`.
PageReader = Callable[[object, int], list[Line]]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]")


def read_pdf(data: bytes, ocr: PageReader | None = None) -> Extracted:
    """A PDF's text layer as Markdown, page by page. A page without text is read by ``ocr``
    (its place is then "p. N (scanned)"); without ``ocr`` such pages are counted as waiting
    (``Extracted.waiting``), and a PDF that is all scanned pages is refused as waiting for OCR."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise DocumentRefused(
                "encrypted", "encrypted: the PDF needs a password (save a copy without one)"
            ) from None
        raise DocumentRefused("corrupt-document", f"corrupt PDF: {exc}") from None
    try:
        count = len(pdf)
        if count > MAX_PAGES:
            raise DocumentRefused(
                "document-too-large", f"a PDF of {count:,} pages (at most {MAX_PAGES:,} are read)"
            )
        pages: list[list[Line]] = []
        failed = 0
        for i in range(count):
            try:
                pages.append(_page_lines(pdf, i))
            except pdfium.PdfiumError:
                failed += 1  # a broken page: the others are still read
                pages.append([])
        if count and failed == count:
            raise DocumentRefused("corrupt-document", "corrupt PDF: none of its pages can be read")
        textless = [i for i, page in enumerate(pages) if _chars(page) < SCAN_CHARS]
        scanned: set[int] = set()
        if ocr is not None:
            for i in textless:
                pages[i] = ocr(pdf, i)
                scanned.update([i + 1] if pages[i] else [])
        outline = _outline(pdf)
    finally:
        pdf.close()
    chars = sum(_chars(page) for page in pages)
    if count and chars < SCAN_CHARS and failed:
        raise DocumentRefused(
            "corrupt-document",
            f"corrupt PDF: {failed} of {count} pages cannot be read and the rest hold no text",
        )
    if count and chars < SCAN_CHARS and ocr is None:
        raise DocumentRefused("needs-ocr", "no text layer: scanned pages, their text waits for OCR")
    if count and chars < SCAN_CHARS:
        raise DocumentRefused("no-text-layer", "no text layer, and OCR found no text on its pages")
    result = compose(pages, outline, scanned)
    result.waiting = 0 if ocr is not None else len(textless)
    return result


def _chars(page: list[Line]) -> int:
    return sum(len(line.text.strip()) for line in page)


def _page_lines(pdf: object, index: int) -> list[Line]:
    import pypdfium2.raw as raw

    page = pdf[index]  # type: ignore[index]
    try:
        textpage = page.get_textpage()
        try:
            count = textpage.count_chars()
            text = textpage.get_text_range(0, count) if count > 0 else ""
            lines: list[Line] = []
            for match in re.finditer(r"[^\r\n]+", text):
                start, end = match.start(), match.end() - 1
                body = _CONTROL.sub("", match.group(0).replace("\x02", "")).strip()
                if not body or start >= count:
                    continue
                first = _first_visible(match.group(0)) + start
                left, bottom, _, top = textpage.get_charbox(min(first, count - 1), loose=True)
                right = textpage.get_charbox(min(end, count - 1), loose=True)[2]
                size = raw.FPDFText_GetFontSize(textpage.raw, min(first, count - 1))
                weight = raw.FPDFText_GetFontWeight(textpage.raw, min(first, count - 1))
                lines.append(
                    Line(
                        index + 1, body, round(size * 2) / 2, int(weight), left, right, top, bottom
                    )
                )
            return lines
        finally:
            textpage.close()
    finally:
        page.close()


def _first_visible(text: str) -> int:
    return len(text) - len(text.lstrip())


def _outline(pdf: object) -> dict[int, list[tuple[int, str]]]:
    """The bookmarks by page: {page: [(level, title)]} (level 1 at the top)."""
    found: dict[int, list[tuple[int, str]]] = {}
    try:
        for item in pdf.get_toc(max_depth=6):  # type: ignore[attr-defined]
            title = " ".join((item.get_title() or "").split())
            if title and item.page_index is not None:
                found.setdefault(item.page_index + 1, []).append((item.level + 1, title))
    except Exception:  # noqa: BLE001 - a broken outline: fall back to font sizes
        return {}
    return found
