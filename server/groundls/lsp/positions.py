"""Positions for the editor's requests: a document's lines, the name or code span under the
cursor, and ranges in UTF-16 code units (the LSP's default), each bounded: a position outside
the file, a line of a megabyte or a URI outside the workspace get None, never an error."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lsprotocol import types

from groundls.lsp.folders import Folder
from groundls.results import Hit, NotReadable

#: The longest line read for a name or a span under the cursor (a minified file's one line).
MAX_LINE_CHARS = 20_000
#: Lines of a file read at most (a file longer than this is read to here).
MAX_LINES = 200_000

_NAME = re.compile(r"[A-Za-z_$][\w$]*")
# a code span (`x`, ``x``), a role (:func:`x`, {py:func}`x`) or an HTML <code>x</code>
_SPANS = re.compile(
    r"(?:\{[\w:.-]+\}|:[\w:.-]+:)?(`+)(?P<tick>[^`\n]{1,200}?)\1"
    r"|<code[^>]{0,80}>(?P<html>[^<\n]{1,200})</code>",
    re.IGNORECASE,
)


#: The position encoding the server and client agreed on (pygls chooses it at initialize).
ENCODING = "utf-16"


def _units(ch: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(ch) > 0xFFFF else 1


def char_index(line: str, character: int, encoding: str = ENCODING) -> int:
    """The string index of column ``character`` of ``line`` (clamped to the line)."""
    units = 0
    for i, ch in enumerate(line):
        if units >= character:
            return i
        units += _units(ch, encoding)
    return len(line)


def column(line: str, index: int, encoding: str = ENCODING) -> int:
    """The column of string index ``index`` of ``line``."""
    if line[:index].isascii():
        return index
    return sum(_units(ch, encoding) for ch in line[:index])


def encoding_of(ls: Any) -> str:
    """The position encoding of this session ("utf-16" unless the client chose another)."""
    chosen = getattr(ls.workspace, "position_encoding", None) or ENCODING
    return str(getattr(chosen, "value", chosen))


def lines_of(ls: Any, folder: Folder, rel: str, uri: str) -> list[str] | None:
    """The lines of a workspace file: the editor's copy when it is open, else the file as the
    index would read it (never a file the index refuses: ignored, secret, outside)."""
    document = ls.workspace.text_documents.get(uri)
    if document is not None:
        return document.source.splitlines()[:MAX_LINES]
    workspace = folder.workspace
    if workspace is None:
        return None
    try:
        lines, _ = workspace.read_lines(rel, 1, MAX_LINES)
    except (NotReadable, OSError):
        return None
    return lines


def line_at(
    lines: list[str] | None, position: types.Position, encoding: str = ENCODING
) -> tuple[str, int] | None:
    """The line under ``position`` and the cursor's index in it; None outside the file."""
    if lines is None or not 0 <= position.line < len(lines) or position.character < 0:
        return None
    line = lines[position.line][:MAX_LINE_CHARS]
    return line, char_index(line, position.character, encoding)


def name_at(line: str, index: int) -> str | None:
    """The identifier the cursor is on or just after."""
    for match in _NAME.finditer(line):
        if match.start() <= index <= match.end():
            return match.group()
    return None


def span_at(line: str, index: int) -> str | None:
    """The text of the code span, role or ``<code>`` element the cursor is in."""
    for match in _SPANS.finditer(line):
        if match.start() <= index <= match.end():
            return match.group("tick") or match.group("html")
    return None


def lsp_range(line0: int, line: str, start: int, end: int, encoding: str = ENCODING) -> types.Range:
    """Characters ``start``..``end`` of ``line`` (line ``line0``, 0-based) as an LSP range."""
    return types.Range(
        start=types.Position(line=line0, character=column(line, start, encoding)),
        end=types.Position(line=line0, character=column(line, end, encoding)),
    )


def hit_range(hit: Hit) -> types.Range:
    """A chunk's lines as an LSP range (its first line's start to the end of its last)."""
    return types.Range(
        start=types.Position(line=max(0, hit.start_line - 1), character=0),
        end=types.Position(line=max(0, hit.end_line), character=0),
    )


def matches_in(
    lines: list[str], hit: Hit, pattern: re.Pattern[str]
) -> Iterator[tuple[int, int, int]]:
    """(0-based line, start, end) of each match of ``pattern`` in the chunk's lines."""
    for line0 in range(max(0, hit.start_line - 1), min(len(lines), hit.end_line)):
        text = lines[line0][:MAX_LINE_CHARS]
        for match in pattern.finditer(text):
            yield line0, match.start(), match.end()


def located(
    lines: list[str] | None, hit: Hit, pattern: re.Pattern[str], encoding: str = ENCODING
) -> list[types.Range]:
    """The ranges in the chunk ``hit`` where ``pattern`` matches, or its first line when it
    matches nowhere (the file changed since it was indexed)."""
    if lines is not None:
        found = [
            lsp_range(n, lines[n], s, e, encoding) for n, s, e in matches_in(lines, hit, pattern)
        ]
        if found:
            return found
    start = max(0, hit.start_line - 1)
    return [types.Range(start=types.Position(start, 0), end=types.Position(start, 0))]
