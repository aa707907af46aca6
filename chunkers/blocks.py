"""Prose as blocks: paragraphs, lists, tables, code, quotes and headings, with their lines; a table's rows and a text's sentences."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter

# Block kinds a format parser may produce; "heading" is only used for a section's own heading.
BLOCK_KINDS = ("paragraph", "list", "table", "code", "quote", "heading")


_SENTENCE_END = re.compile(
    r"[。！？!?][」』）)\"'”’]*\s*"  # Japanese / full-width ends need no following space
    r"|[.][」』）)\"'”’]*(?=\s)\s*"  # an ASCII period only ends a sentence before whitespace
)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")


LIST_ITEM = re.compile(r"^(\s*)([-*+•]|\d{1,9}[.)]|[a-zA-Z][.)]|#\.)(\s+|$)")


def split_lines(text: str) -> list[str]:
    """Split like an editor counts lines (\\n, \\r\\n and lone \\r), so line numbers agree."""
    return _LINE_BREAK.split(text)


@dataclass
class Block:
    """A run of source lines that is one unit of meaning (paragraph, list, table, code...)."""

    start_line: int
    end_line: int
    text: str
    kind: str = "paragraph"
    #: the source line each line of ``text`` starts on, when they are not one to one (an HTML
    #: table's row or list's item is one line of text written over several source lines)
    line_starts: list[int] | None = None
    #: where the text's characters come from, when one line of ``text`` spans several source
    #: lines (an HTML paragraph, its source line breaks folded into spaces): gives (offset in
    #: ``text``, source line) at each offset where the source line changes, in order. Worked
    #: out only for a block that is split (most are not), then kept.
    locate: Callable[[], list[tuple[int, int]]] | None = None
    _located: list[tuple[int, int]] | None = field(default=None, repr=False, compare=False)

    def line_at(self, offset: int) -> int:
        """The source line of the character at ``offset`` in ``text``."""
        if self.locate is not None:
            if self._located is None:
                self._located = self.locate()
            if self._located:
                i = bisect_right(self._located, offset, key=itemgetter(0)) - 1
                return self._located[max(i, 0)][1]
        return self.line_of(self.text.count("\n", 0, offset))

    def line_of(self, n: int) -> int:
        """The source line that line ``n`` of ``text`` starts on."""
        if self.line_starts is None:
            return min(self.end_line, self.start_line + n)
        return self.line_starts[min(n, len(self.line_starts) - 1)]

    def last_line_of(self, n: int) -> int:
        """The last source line of line ``n`` of ``text`` (the line before the next one's)."""
        if self.line_starts is None:
            return self.line_of(n)
        if n + 1 >= len(self.line_starts):
            return self.end_line
        return max(self.line_starts[n], self.line_starts[n + 1] - 1)


def table_rows(text: str) -> list[list[str]]:
    """Cells of a pipe table, separator rows dropped; escaped pipes stay inside cells."""
    rows: list[list[str]] = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or TABLE_SEPARATOR.match(line) and "-" in line:
            continue
        if line.startswith("|"):
            line = line[1:]
        if line.endswith("|") and not line.endswith("\\|"):
            line = line[:-1]
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]
        rows.append(cells)
    return rows


def table_key_values(text: str, header: str | None = None) -> str:
    """Render a pipe table as one ``Header: cell; Header2: cell`` line per row (seed 003)."""
    rows = table_rows(text)
    head = table_rows(header)[0] if header and table_rows(header) else None
    if head is None:
        if len(rows) < 2:
            return "; ".join(c for c in (rows[0] if rows else []) if c)
        head, rows = rows[0], rows[1:]
    out: list[str] = []
    for row in rows:
        if row == head:
            continue
        parts = []
        for n, cell in enumerate(row):
            if not cell:
                continue
            name = head[n] if n < len(head) and head[n] else f"column {n + 1}"
            parts.append(f"{name}: {cell}")
        if parts:
            out.append("; ".join(parts))
    return "\n".join(out)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of sentences; ends at 。！？ and at . ! ? followed by whitespace."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() > pos:
            spans.append((pos, m.end()))
            pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]
