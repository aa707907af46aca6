"""Plain-text chunker: blank-line paragraphs, with cheap heading detection where it is safe."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from .base import ChunkOptions, Piece
from .blocks import Block, split_lines
from .prose import SectionBuilder, blank_separated_blocks, sections_to_pieces

_UNDERLINE = re.compile(r"^\s*([=\-~^*#])\1{2,}\s*$")
_NUMBERED = re.compile(r"^\s{0,3}((?:\d{1,3}\.)*\d{1,3})\.?\s+(\S.{0,78})$")
_CHAPTER_JA = re.compile(r"^\s*(第[0-9０-９一二三四五六七八九十百]+[章節部編])\s*\S.{0,60}$")
_ADOC = re.compile(r"^(={1,6})\s+(\S.*)$")
_ORG = re.compile(r"^(\*{1,6})\s+(\S.*)$")
_SENTENCE_TAIL = re.compile(r"[.。,、:：;!?！？]\s*$")


def text_pieces(path: str, text: str, options: ChunkOptions) -> list[Piece]:
    """Chunk plain text into paragraphs grouped under any headings the text visibly has."""
    lines = split_lines(text)
    suffix = PurePosixPath(path).suffix.lower()
    marker = _ADOC if suffix == ".adoc" else _ORG if suffix == ".org" else None
    builder = SectionBuilder()
    styles: list[str] = []  # heading styles in order of first appearance give the levels
    for block in blank_separated_blocks(lines):
        for part in _split_marked(block, marker) if marker else [block]:
            heading = _heading(part, marker)
            if heading is None:
                builder.add(part)
                continue
            style, title, head_lines = heading
            if style not in styles:
                styles.append(style)
            level = styles.index(style) + 1
            head = Block(part.start_line, part.start_line + head_lines - 1, "", "heading")
            head.text = "\n".join(part.text.split("\n")[:head_lines])
            builder.heading(level, title, head)
            rest = part.text.split("\n")[head_lines:]
            if rest:
                builder.add(
                    Block(part.start_line + head_lines, part.end_line, "\n".join(rest), part.kind)
                )
    return sections_to_pieces(path, builder.result(), options)


def _split_marked(block: Block, marker: re.Pattern[str]) -> list[Block]:
    """Asciidoc/Org headings need no blank line after them: cut a block before each one."""
    lines = block.text.split("\n")
    out: list[Block] = []
    start = 0
    for n in range(1, len(lines)):
        if marker.match(lines[n]):
            out.append(
                Block(block.start_line + start, block.start_line + n - 1, "\n".join(lines[start:n]))
            )
            start = n
    out.append(Block(block.start_line + start, block.end_line, "\n".join(lines[start:])))
    for b in out:
        b.kind = block.kind if b.start_line == block.start_line else "paragraph"
    return out


def _heading(block: Block, marker: re.Pattern[str] | None) -> tuple[str, str, int] | None:
    """(style, title, number of heading lines) if the block opens with a heading."""
    lines = block.text.split("\n")
    first = lines[0].strip()
    if marker is not None:
        m = marker.match(lines[0])
        return (f"mark{len(m.group(1))}", m.group(2).strip(), 1) if m else None
    underlined = len(lines) >= 2 and bool(_UNDERLINE.match(lines[1]))
    if underlined and first and len(first) <= 100 and not _UNDERLINE.match(lines[0]):
        return "under" + lines[1].strip()[0], first, 2
    if len(lines) == 1 and not _SENTENCE_TAIL.search(first):
        m = _NUMBERED.match(lines[0])
        if m:
            return f"num{m.group(1).count('.')}", first, 1
        if _CHAPTER_JA.match(lines[0]):
            return "chapter", first, 1
    return None
