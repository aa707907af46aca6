"""reStructuredText chunker: adorned section titles into prose sections, directives kept whole."""

from __future__ import annotations

import re

from .base import ChunkOptions, Piece
from .blocks import Block, split_lines
from .prose import SectionBuilder, blank_separated_blocks, sections_to_pieces
from .reading import read_rst

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^\.\.\s+([\w:.+-]+)::")
_CODE_DIRECTIVES = {"code", "code-block", "sourcecode", "literalinclude", "highlight", "doctest"}
_LIST_ITEM = re.compile(r"^([-*+•]|\d{1,9}[.)]|#\.|\(\d+\))\s+")
_GRID_TABLE = re.compile(r"^\s*\+[-=+]+\+\s*$")
_SIMPLE_TABLE = re.compile(r"^\s*=+(\s+=+)+\s*$")


def rst_pieces(path: str, text: str, options: ChunkOptions) -> list[Piece]:
    """Chunk a reST document by section titles; level follows the order adornments first appear."""
    lines = split_lines(text)
    builder = SectionBuilder()
    styles: list[tuple[str, str]] = []
    doc_title = ""
    pending_start = 0  # first body line (index) since the last title
    n = 0
    total = len(lines)

    def flush(upto: int) -> None:
        if upto > pending_start:
            for block in _blocks(lines[pending_start:upto], pending_start + 1):
                builder.add(block)

    while n < total:
        title = _title_at(lines, n)
        if title is None:
            n += 1
            continue
        style, title_text, end = title
        flush(n)
        if style not in styles:
            styles.append(style)
        level = styles.index(style) + 1
        if not doc_title and level == 1:
            doc_title = title_text
        start_line = n + 1
        builder.heading(
            level, title_text, Block(start_line, end + 1, "\n".join(lines[n : end + 1]), "")
        )
        n = end + 1
        pending_start = n
    flush(total)
    return sections_to_pieces(path, builder.result(), options, doc_title=doc_title)


def _title_at(lines: list[str], n: int) -> tuple[tuple[str, str], str, int] | None:
    """(style, title, last line index) if a section title starts at line ``n``."""
    line = lines[n]
    prev_blank = n == 0 or not lines[n - 1].strip()
    over = _ADORNMENT.match(line)
    if over and prev_blank and n + 2 < len(lines):
        text, under = lines[n + 1], _ADORNMENT.match(lines[n + 2])
        if (
            text.strip()
            and not _ADORNMENT.match(text)
            and under
            and under.group(1) == over.group(1)
            and not _GRID_TABLE.match(line)
        ):
            return ("over", over.group(1)), read_rst(text.strip()), n + 2
    if not line.strip() or line[:1].isspace() or _ADORNMENT.match(line) or not prev_blank:
        return None
    if n + 1 < len(lines):
        under = _ADORNMENT.match(lines[n + 1])
        if under and not _SIMPLE_TABLE.match(lines[n + 1]):
            return ("under", under.group(1)), read_rst(line.strip()), n + 1
    return None


def _blocks(lines: list[str], first_line: int) -> list[Block]:
    """Blank-line blocks, with literal blocks (after ``::``) and directive bodies kept whole."""
    raw = blank_separated_blocks(lines, first_line, merge_lists=False)
    out: list[Block] = []
    for block in raw:
        first = block.text.split("\n", 1)[0]
        prev = out[-1] if out else None
        indented = first[:1].isspace()
        if prev is not None and indented and _opens_indented_body(prev):
            prev.text = "\n".join(
                lines[prev.start_line - first_line : block.end_line - first_line + 1]
            )
            prev.end_line = block.end_line
            continue
        if prev is not None and indented and prev.text.rstrip().endswith("::"):
            out.append(Block(block.start_line, block.end_line, block.text, "code"))
            continue
        if prev is not None and prev.kind == "code" and indented and prev.text[:1].isspace():
            prev.text = "\n".join(
                lines[prev.start_line - first_line : block.end_line - first_line + 1]
            )
            prev.end_line = block.end_line
            continue
        directive = _DIRECTIVE.match(first)
        if directive:
            kind = "code" if directive.group(1).lower() in _CODE_DIRECTIVES else "paragraph"
            out.append(Block(block.start_line, block.end_line, block.text, kind))
            continue
        if _GRID_TABLE.match(first) or _SIMPLE_TABLE.match(first):
            out.append(Block(block.start_line, block.end_line, block.text, "table"))
            continue
        if _LIST_ITEM.match(first):
            if prev is not None and prev.kind == "list":
                prev.text = "\n".join(
                    lines[prev.start_line - first_line : block.end_line - first_line + 1]
                )
                prev.end_line = block.end_line
                continue
            out.append(Block(block.start_line, block.end_line, block.text, "list"))
            continue
        if prev is not None and prev.kind == "list" and indented:
            prev.text = "\n".join(
                lines[prev.start_line - first_line : block.end_line - first_line + 1]
            )
            prev.end_line = block.end_line
            continue
        out.append(block)
    return out


def _opens_indented_body(block: Block) -> bool:
    """A directive (``.. name::``) owns the indented blocks that follow it."""
    return bool(_DIRECTIVE.match(block.text)) and not block.text[:1].isspace()
