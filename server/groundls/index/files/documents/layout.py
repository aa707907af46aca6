"""A page's lines as Markdown, however they were read (a PDF's text layer or OCR): running
headers and footers and tables of contents dropped, headings marked by size, weight or the
outline, lines that wrap inside a paragraph joined (Japanese with no space)."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass

from .base import Extracted, TextBuilder, escape_markdown_line

_PAGE_NUMBER = re.compile(
    r"^[\s\-–—(\[]*(?:page|p\.|ページ)?\s*[0-9ivxlcdm]+(?:\s*(?:/|of)\s*[0-9]+)?\s*(?:ページ)?[\s\-–—)\]]*$",
    re.IGNORECASE,
)
_LEADERS = re.compile(r"(?:\s*[.・･…‥·]){3,}\s*[0-9ivxlcdm]+\s*$", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-•●○■□◆◇▪*–]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|[①-⑳])\s")
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
_SENTENCE_END = re.compile(r"[.。!?！？:：]$")


@dataclass
class Line:
    """A line of a page as read (by its text layer or by OCR), in PDF points with the y axis
    up (``top`` > ``bottom``)."""

    page: int
    text: str
    size: float
    weight: int
    left: float
    right: float
    top: float
    bottom: float
    heading: int = 0  # level, 0 for body text


#: Sizes of OCR's lines within this ratio of each other are one size (see ``_even_sizes``).
SIZE_BAND = 1.15


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def _drop_running(pages: list[list[Line]]) -> None:
    """Remove running headers, footers and page numbers: lines among a page's first or last two
    that repeat (digits aside) on many pages, and page-number lines there."""
    edge = Counter[str]()
    for lines in pages:
        for line in {_digitless(ln.text) for ln in lines[:2] + lines[-2:]}:
            edge[line] += 1
    repeated = max(3, len(pages) * 2 // 5)
    for i, lines in enumerate(pages):
        keep = []
        for j, line in enumerate(lines):
            at_edge = j < 2 or j >= len(lines) - 2
            if at_edge and (
                _PAGE_NUMBER.match(line.text)
                or (len(pages) >= 3 and edge[_digitless(line.text)] >= repeated)
            ):
                continue
            keep.append(line)
        pages[i] = keep


def _digitless(text: str) -> str:
    return re.sub(r"[0-9]+", "#", _norm(text))


def _even_sizes(lines: list[Line]) -> None:
    """OCR's lines set in one size, given one size: a line's size is its box's height, which
    varies with its letters and the page's grain. Sizes within ``SIZE_BAND`` of the body's are
    the body's; above it, each band of sizes within ``SIZE_BAND`` of its smallest is one size
    (its commonest), so a heading style is one size and one heading level."""
    chars = Counter[float]()
    for line in lines:
        chars[line.size] += len(line.text)
    if not chars:
        return
    body = chars.most_common(1)[0][0]
    even = {size: body for size in chars if body / SIZE_BAND <= size <= body * SIZE_BAND}
    bands: list[list[float]] = []
    for size in sorted(s for s in chars if s > body * SIZE_BAND):
        if bands and size <= bands[-1][0] * SIZE_BAND:
            bands[-1].append(size)
        else:
            bands.append([size])
    for band in bands:
        even.update(dict.fromkeys(band, max(band, key=chars.__getitem__)))
    for line in lines:
        line.size = even.get(line.size, line.size)


def _mark_headings(
    lines: list[Line], outline: dict[int, list[tuple[int, str]]], body: float, bold: int
) -> None:
    if outline:
        for line in lines:
            for level, title in outline.get(line.page, ()):
                if _norm(line.text) == _norm(title) or (
                    len(line.text) <= 200 and _norm(line.text).startswith(_norm(title))
                ):
                    line.heading = level
                    break
        if any(line.heading for line in lines):
            return
    larger = sorted(
        {ln.size for ln in lines if ln.size >= body * 1.12 and _heading_like(ln.text)}, reverse=True
    )
    rank = {size: i + 1 for i, size in enumerate(larger[:4])}
    bold_level = min(len(rank) + 1, 6)
    for line in lines:
        if not _heading_like(line.text):
            continue
        if line.size in rank:
            line.heading = rank[line.size]
        elif line.weight >= bold and line.size >= body and len(line.text) <= 80:
            line.heading = bold_level


def _heading_like(text: str) -> bool:
    return 0 < len(text) <= 120 and not _LEADERS.search(text) and not _PAGE_NUMBER.match(text)


def _drop_contents(lines: list[Line]) -> list[Line]:
    """Lines of a table of contents: dot leaders and a page number, or a run of three or more
    lines that each repeat a heading of the document (a chapter's list of its sections)."""
    titles = {_norm(ln.text) for ln in lines if ln.heading}
    entry = [
        not ln.heading and (bool(_LEADERS.search(ln.text)) or _norm(ln.text) in titles)
        for ln in lines
    ]
    drop = [False] * len(lines)
    i = 0
    while i < len(lines):
        if not entry[i]:
            i += 1
            continue
        j = i
        while j < len(lines) and entry[j]:
            j += 1
        leaders = any(_LEADERS.search(lines[k].text) for k in range(i, j))
        if j - i >= 3 or leaders:
            for k in range(i, j):
                drop[k] = True
        i = j
    return [ln for ln, d in zip(lines, drop, strict=True) if not d]


def compose(
    pages: list[list[Line]],
    outline: dict[int, list[tuple[int, str]]],
    scanned: set[int] = frozenset(),  # type: ignore[assignment]
) -> Extracted:
    """The pages' lines as Markdown: running headers and footers and the table of contents
    dropped, headings marked, lines that wrap inside a paragraph joined, each page's start
    recorded."""
    _drop_running(pages)
    lines = [line for page in pages for line in page]
    _even_sizes([line for line in lines if line.page in scanned])
    sizes = Counter[float]()
    for line in lines:
        sizes[line.size] += len(line.text)
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    weights = Counter[int]()
    for line in lines:
        weights[line.weight] += len(line.text)
    # bolder than the body text by a clear step (PDFium's weights vary by producer)
    bold = (weights.most_common(1)[0][0] if weights else 400) + 150
    _mark_headings(lines, outline, body, bold)
    lines = _drop_contents(lines)
    gaps = [
        a.bottom - b.top
        for a, b in zip(lines, lines[1:], strict=False)
        if a.page == b.page and not a.heading and not b.heading and 0 < a.bottom - b.top < 3 * body
    ]
    spacing = statistics.median(gaps) if gaps else body
    right_edge: dict[int, float] = {}
    for line in lines:
        right_edge[line.page] = max(right_edge.get(line.page, 0.0), line.right)
    writer = _PageWriter(body, spacing, right_edge, scanned)
    for line in lines:
        writer.add(line)
    writer.flush()
    writer.advance(len(pages))
    result = writer.out.result()
    result.units = len(pages)
    return result


class _PageWriter:
    """Writes a PDF's lines as Markdown, one at a time: a paragraph is held until it ends."""

    def __init__(
        self, body: float, spacing: float, right_edge: dict[int, float], scanned: set[int]
    ) -> None:
        self.body, self.spacing, self.right_edge = body, spacing, right_edge
        self.scanned = scanned
        self.out = TextBuilder()
        self.page = 0
        self.paragraph: list[str] = []
        self.previous: Line | None = None

    def flush(self) -> None:
        if self.paragraph:
            self.out.block([escape_markdown_line(p) for p in self.paragraph])
            self.paragraph.clear()

    def advance(self, to: int) -> None:
        while self.page < to:
            self.page += 1
            self.out.place("scan" if self.page in self.scanned else "page", self.page)

    def add(self, line: Line) -> None:
        paragraph, previous, out = self.paragraph, self.previous, self.out
        # (a paragraph may run on over a page break: it stays at the page it began on)
        continues = (
            bool(paragraph)
            and previous is not None
            and not previous.heading
            and not line.heading
            and _continues(
                previous, line, self.right_edge, self.spacing, self.body, len(paragraph) == 1
            )
        )
        if line.page != self.page and not continues:
            self.flush()
            self.advance(line.page)
        if line.heading:
            self.flush()
            if (
                previous is not None
                and previous.heading == line.heading
                and previous.page == line.page
                and len(out.lines) >= 2
                and out.lines[-2].startswith("#")
                and line.top > previous.bottom - 2 * self.spacing
            ):
                out.lines[-2] += " " + line.text  # a heading set on two lines
            else:
                out.heading(line.heading, line.text)
        elif continues:
            paragraph[-1] = _join(paragraph[-1], line.text)
        elif (
            paragraph
            and previous is not None
            and not previous.heading
            and _same_block(previous, line, self.spacing)
        ):
            paragraph.append(line.text)
        else:
            self.flush()
            paragraph.append(line.text)
        self.previous = line


def _continues(
    previous: Line,
    line: Line,
    right_edge: dict[int, float],
    spacing: float,
    body: float,
    first: bool = False,
) -> bool:
    """Whether ``line`` carries on the sentence ``previous`` wrapped: the new line's first word
    would not have fitted at the end of the previous one (a paragraph's last line stops short
    of the margin by more than that), the two are set alike and close, the new line starts where
    the previous one did (or, after a paragraph's indented ``first`` line, a little left of it)
    and starts no list item. Japanese wraps at any character, so its first "word" is one
    character. A line set further in or out is another block: a list item, a definition, a
    path or command on its own line."""
    if _LIST_ITEM.match(line.text) or abs(previous.size - line.size) > 0.5:
        return False
    char = (previous.right - previous.left) / max(1, len(previous.text))
    shift = line.left - previous.left
    if shift > char / 2 or (shift < -char / 2 and not (first and shift >= -3 * char)):
        return False
    room = right_edge.get(previous.page, 0.0) - previous.right
    if room > _first_word_width(line) + max(body, 1.0) / 3:
        return False  # the next word would have fitted: the paragraph ended there
    if previous.page == line.page:
        gap = previous.bottom - line.top
        if gap > 1.8 * spacing or gap < -spacing:
            return False
    elif _SENTENCE_END.search(previous.text):
        return False
    return True


def _first_word_width(line: Line) -> float:
    """About how wide the line's first word is set (its share of the line's width)."""
    text = line.text
    if _CJK.match(text[:1]):
        letters = 1
    else:
        match = re.match(r"\S+", text)
        letters = len(match.group(0)) if match else 1
    return (line.right - line.left) / max(1, len(text)) * (letters + 1)


def _same_block(previous: Line, line: Line, spacing: float) -> bool:
    """Short lines set close together (a list, a table's rows): one block, line by line."""
    return previous.page == line.page and 0 <= previous.bottom - line.top <= 1.8 * spacing


def _join(left: str, right: str) -> str:
    if left.endswith("-") and right[:1].islower() and left[-2:-1].isalpha():
        return left[:-1] + right  # a word hyphenated at the line's end
    if _CJK.match(left[-1:]) or _CJK.match(right[:1]):
        return left + right
    return left + " " + right
