"""HTML chunker: html.parser turns headings, paragraphs, lists, pre and tables into sections."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from html.parser import HTMLParser

from .base import ChunkOptions, Piece
from .blocks import Block
from .prose import SectionBuilder, sections_to_pieces
from .textrules import CJK_TEXT

_SKIP = {"script", "style", "nav", "noscript", "template", "svg", "head", "iframe", "object"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_PARAGRAPHS = {"p", "dt", "dd", "blockquote", "figcaption", "caption", "address", "summary"}
_CONTAINERS = {
    "div", "section", "article", "main", "aside", "header", "footer", "body", "html",
    "form", "fieldset", "details", "figure", "dl", "center",
}  # fmt: skip
_BLOCKS = {"pre", "table", "ul", "ol", "menu", "li"}
# only tags whose end tag is required: an unclosed skipped <p> would swallow the rest
_HIDEABLE = {
    "div",
    "section",
    "aside",
    "header",
    "footer",
    "ul",
    "ol",
    "span",
    "form",
    "dialog",
    "a",
}
_VOID = {
    "br",
    "hr",
    "img",
    "meta",
    "link",
    "input",
    "col",
    "area",
    "base",
    "embed",
    "source",
    "wbr",
}
# the class names documentation generators give navigation (DocBook's table of contents, lists
# of tables and page headers, Sphinx's sidebar, site navigation bars): every heading of a chapter
# listed again, so a table of contents would match every question about the chapter; and the
# permalink mark Sphinx puts after each heading ("Installation¶")
_NAVIGATION_CLASSES = frozenset(
    {
        "toc",
        "table-of-contents",
        "list-of-tables",
        "list-of-figures",
        "list-of-examples",
        "navheader",
        "navfooter",
        "navbar",
        "breadcrumb",
        "breadcrumbs",
        "sphinxsidebar",
        "headerlink",
    }
)
_SPACE = re.compile(r"[ \t\r\n\f\v]+")
_CJK_BREAK = re.compile(rf"(?<=[{CJK_TEXT}])[ \t]*\n\s*(?=[{CJK_TEXT}])")
_BR = "\x00"  # a <br> inside running text; every other source newline is just a space


class _Collector(HTMLParser):
    """Streams the document into a SectionBuilder; tolerant of unclosed and stray tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.builder = SectionBuilder()
        self.title = ""
        self._skip: list[str] = []
        self._in_title = False
        self._buf: list[str] = []
        self._buf_lines: list[int] = []  # the source line each piece of ``_buf`` starts on
        self._start = 0  # line of the first non-blank text in the buffer
        self._end = 0  # line of the last non-blank text in the buffer
        self._heading = 0
        self._pre = 0
        self._lists: list[str] = []
        self._rows: list[list[str]] | None = None
        self._row_lines: list[int] = []  # the source line each kept row starts on
        self._row_line = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._table_start = 0
        self._table_depth = 0
        self._list_block: Block | None = None

    # -- text accumulation
    def _note_text(self, data: str) -> None:
        if not data.strip():
            return
        line = self.getpos()[0]
        lead = len(data) - len(data.lstrip())
        first = line + data.count("\n", 0, lead)
        last = line + data.rstrip().count("\n")
        if not self._start:
            self._start = first
        self._end = max(self._end, last)

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data
            return
        if self._cell is not None:
            self._cell.append(data)
            self._note_text(data)
            return
        self._add(data)
        self._note_text(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skip:
            if tag == self._skip[-1] and tag not in _VOID:
                self._skip.append(tag)
            return
        if tag in _SKIP or tag in _HIDEABLE and _hidden(attrs):
            if tag not in _VOID:
                self._skip.append(tag)
            return
        if tag == "title":
            self._in_title = True
            return
        if self._pre:
            if tag == "pre":
                self._pre += 1
            return
        if self._heading and (
            tag in _HEADINGS or tag in _PARAGRAPHS or tag in _CONTAINERS or tag in _BLOCKS
        ):
            self._end_heading()  # an unclosed heading ends where the next block starts
        if tag == "br":
            if self._cell is not None:
                self._cell.append(_BR)
            else:
                self._add(_BR)
            return
        if tag == "table" or (self._rows is not None and self._table_depth == 1):
            self._start_in_table(tag)
            return
        if tag in _HEADINGS:
            self._flush()
            self._heading = _HEADINGS[tag]
            self._start = self.getpos()[0]
        elif tag == "pre":
            self._flush()
            self._pre = 1
            self._start = self.getpos()[0]
        elif tag in ("ul", "ol", "menu"):
            if not self._lists:
                self._flush()
            else:
                self._flush_list_item()
            self._lists.append(tag)
        elif tag == "li":
            self._flush_list_item()
        elif tag in _PARAGRAPHS or tag in _CONTAINERS:
            if self._lists:
                self._add(" ")
            else:
                self._flush()

    def _start_in_table(self, tag: str) -> None:
        """A table opens (a nested one only counts), or a row or cell of the outer one."""
        if tag == "table":
            self._table_depth += 1
            if self._table_depth == 1:
                self._flush()
                self._rows, self._table_start = [], self.getpos()[0]
                self._row_lines = []
        elif tag == "tr":
            self._end_row()
            self._row, self._row_line = [], self.getpos()[0]
        elif tag in ("td", "th"):
            self._end_cell()
            if self._row is None:
                self._row, self._row_line = [], self.getpos()[0]
            self._cell = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._skip:
            if tag == self._skip[-1]:
                self._skip.pop()
            return
        if tag == "title":
            self._in_title = False
            return
        if self._pre:
            if tag == "pre":
                self._pre -= 1
                if not self._pre:
                    self._flush(kind="code")
            return
        if tag == "table" and self._table_depth:
            self._table_depth -= 1
            if not self._table_depth:
                self._end_table()
            return
        if self._rows is not None and self._table_depth == 1:
            if tag in ("td", "th"):
                self._end_cell()
            elif tag == "tr":
                self._end_row()
            return
        if tag in _HEADINGS and self._heading:
            self._end_heading()
        elif tag in ("ul", "ol", "menu") and self._lists:
            self._flush_list_item()
            self._lists.pop()
            if not self._lists:
                self._list_block = None
        elif tag == "li":
            self._flush_list_item()
        elif (tag in _PARAGRAPHS or tag in _CONTAINERS) and not self._lists:
            self._flush()

    # -- block emission
    def _end_heading(self) -> None:
        text = _clean(self._text())
        start, end = self._start or self.getpos()[0], self._end or self.getpos()[0]
        if text:
            self.builder.heading(self._heading, text, Block(start, end, text, "heading"))
        self._reset()
        self._heading = 0

    def _add(self, text: str) -> None:
        self._buf.append(text)
        self._buf_lines.append(self.getpos()[0])

    def _text(self) -> str:
        return "".join(self._buf)

    def _locate(self, text: str) -> Callable[[], list[tuple[int, int]]] | None:
        """What says where the characters of ``text`` (the buffer as :func:`_clean` left it) come
        from (see ``Block.locate``); None when they are all on one source line."""
        if self._start == self._end:
            return None
        return partial(_source_lines, tuple(self._buf), tuple(self._buf_lines), text)

    def _reset(self) -> None:
        self._buf, self._buf_lines, self._start, self._end = [], [], 0, 0

    def _flush(self, kind: str = "paragraph") -> None:
        raw = self._text()
        text = raw.replace(_BR, "\n").strip("\n") if kind == "code" else _clean(raw)
        if text.strip():
            start = self._start or self.getpos()[0]
            # a paragraph's source line breaks are spaces in its text: a fragment of a long one
            # is cited at its own lines
            locate = self._locate(text) if kind != "code" else None
            self.builder.add(Block(start, max(start, self._end), text, kind, locate=locate))
            self._list_block = None
        self._reset()

    def _flush_list_item(self) -> None:
        text = _clean(self._text())
        if text:
            start = self._start or self.getpos()[0]
            end = max(start, self._end)
            depth = max(0, len(self._lists) - 1)
            item = "  " * depth + "- " + text
            block = self._list_block
            starts = [start] * (item.count("\n") + 1)
            if block is not None and self.builder.last_block is block:
                block.text += "\n" + item
                block.end_line = max(block.end_line, end)
                block.line_starts = [*(block.line_starts or []), *starts]
            else:
                block = Block(start, end, item, "list", starts)
                self.builder.add(block)
                self._list_block = block
        self._reset()

    def _end_cell(self) -> None:
        if self._cell is not None:
            if self._row is None:
                self._row = []
            self._row.append(_clean("".join(self._cell)).replace("|", "\\|"))
            self._cell = None

    def _end_row(self) -> None:
        self._end_cell()
        if self._row is not None and self._rows is not None and any(self._row):
            self._rows.append(self._row)
            self._row_lines.append(self._row_line)
        self._row = None

    def _end_table(self) -> None:
        self._end_row()
        rows, self._rows = self._rows or [], None
        if rows:
            width = max(len(r) for r in rows)
            lines = ["| " + " | ".join([*r, *[""] * (width - len(r))]) + " |" for r in rows]
            lines.insert(1, "|" + "---|" * width)
            start = self._start or self._table_start
            end = max(start, self._end, self.getpos()[0])
            # each row's first line; the separator row is written on none, so it takes the next
            rows_at = [min(max(start, n), end) for n in self._row_lines]
            starts = [rows_at[0], *rows_at[1:2], *rows_at[1:]] if len(rows_at) > 1 else rows_at * 2
            self.builder.add(Block(start, end, "\n".join(lines), "table", starts))
            self._list_block = None
        self._reset()

    def finish(self) -> None:
        if self._heading:
            self._end_heading()
        if self._rows is not None:
            self._end_table()
        if self._lists:
            self._flush_list_item()
        self._flush(kind="code" if self._pre else "paragraph")


def _hidden(attrs: list[tuple[str, str | None]]) -> bool:
    """Navigation landmarks and hidden elements are not content, whatever their tag."""
    values = dict(attrs)
    return (
        values.get("role") in ("navigation", "search", "banner")
        or "hidden" in values
        or values.get("aria-hidden") == "true"
        or bool(_NAVIGATION_CLASSES.intersection((values.get("class") or "").split()))
    )


def _clean(text: str) -> str:
    """Collapse source whitespace like a browser; a line break between CJK characters vanishes."""
    text = _CJK_BREAK.sub("", text)
    return "\n".join(s for s in (_SPACE.sub(" ", part).strip() for part in text.split(_BR)) if s)


def _source_lines(pieces: Sequence[str], starts: Sequence[int], text: str) -> list[tuple[int, int]]:
    """(offset in ``text``, source line) at each change of line, where ``text`` is the ``pieces``
    of text read, each starting on its source line in ``starts``, cleaned: :func:`_clean` only
    folds, drops or turns whitespace into line breaks, so every other letter of ``text`` is the
    next such letter of the pieces."""
    raw_letters, lines = [], []
    for piece, line in zip(pieces, starts, strict=True):
        for letter in piece:
            raw_letters.append(letter)
            lines.append(line)
            line += letter == "\n"
    raw = "".join(raw_letters)
    marks: list[tuple[int, int]] = []
    j = 0
    for i, letter in enumerate(text):
        if letter.isspace():
            continue
        j = raw.find(letter, j)
        if j < 0:  # (cannot happen for text _clean made of raw; never fail a user's file)
            break
        if not marks or marks[-1][1] != lines[j]:
            marks.append((i, lines[j]))
        j += 1
    return marks


def _tail_as_text(text: str) -> str:
    """``text`` with every ``<`` after its last ``>`` escaped. No tag can end there, so the
    parser reads those as text anyway, but it first looks for each one's end over the rest of
    the page: 10,000 characters of ``x <y`` took 0.7 s and ``<a <a`` 8 s, growing with the
    square of their length (``html.parser``'s start-tag check)."""
    last = text.rfind(">")
    tail = text[last + 1 :]
    return text if "<" not in tail else text[: last + 1] + tail.replace("<", "&lt;")


def html_pieces(path: str, text: str, options: ChunkOptions) -> list[Piece]:
    """Chunk an HTML page by its h1-h6 headings; scripts, styles and navigation are dropped."""
    parser = _Collector()
    try:
        parser.feed(_tail_as_text(text))
        parser.close()
    except (AssertionError, ValueError):  # very old html.parser versions raise on junk
        pass
    parser.finish()
    title = _clean(parser.title)
    return sections_to_pieces(path, parser.builder.result(), options, doc_title=title)
