"""Shared prose chunking: headed sections of blocks in, budget-sized pieces with breadcrumbs out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from .base import ChunkOptions, Piece, is_meaningful
from .blocks import LIST_ITEM, Block
from .packing import Unit, pack, piece_type, render, units_for


@dataclass
class Section:
    """Everything under one heading, up to the next heading of any level."""

    path: tuple[str, ...]
    heading: Block | None
    blocks: list[Block] = field(default_factory=list)
    level: int = 0  # heading level, 0 for text before the first heading

    @property
    def title(self) -> str:
        return self.path[-1] if self.path else ""


class SectionBuilder:
    """Collects headings and blocks in document order and keeps the heading chain."""

    def __init__(self) -> None:
        self.sections: list[Section] = [Section((), None)]
        self._stack: list[tuple[int, str]] = []

    def heading(self, level: int, title: str, block: Block) -> None:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title.strip() or "(untitled)"))
        block.kind = "heading"
        self.sections.append(Section(tuple(t for _, t in self._stack), block, level=level))

    def add(self, block: Block) -> None:
        self.sections[-1].blocks.append(block)

    @property
    def last_block(self) -> Block | None:
        blocks = self.sections[-1].blocks
        return blocks[-1] if blocks else None

    def result(self) -> list[Section]:
        return [s for s in self.sections if s.heading is not None or s.blocks]


def blank_separated_blocks(
    lines: list[str], first_line: int = 1, *, merge_lists: bool = True
) -> list[Block]:
    """Paragraph blocks separated by blank lines; consecutive list paragraphs become one list."""
    blocks: list[Block] = []
    start: int | None = None
    for i, line in enumerate([*lines, ""]):
        if line.strip():
            if start is None:
                start = i
            continue
        if start is not None:
            body = lines[start:i]
            kind = "list" if LIST_ITEM.match(body[0]) else "paragraph"
            block = Block(first_line + start, first_line + i - 1, "\n".join(body), kind)
            prev = blocks[-1] if blocks else None
            if (
                merge_lists
                and prev is not None
                and prev.kind == "list"
                and (kind == "list" or body[0][:1].isspace())
            ):
                prev.text = "\n".join(lines[prev.start_line - first_line : i])
                prev.end_line = block.end_line
            else:
                blocks.append(block)
            start = None
    return blocks


def sections_to_pieces(
    path: str,
    sections: list[Section],
    options: ChunkOptions,
    *,
    doc_title: str = "",
) -> list[Piece]:
    """Turn sections into pieces: one per short section, split by block then sentence otherwise."""
    pieces: list[Piece] = []
    carried: list[Block] = []  # headings of empty sections, given to the next (child) section
    for n, section in enumerate(sections):
        body = [b for b in section.blocks if is_meaningful(b.text)]
        nxt = sections[n + 1] if n + 1 < len(sections) else None
        if section.heading is not None and not body and nxt is not None and _is_child(section, nxt):
            carried.append(section.heading)
            continue
        blocks = [*carried, *([section.heading] if section.heading else []), *section.blocks]
        carried = []
        pieces.extend(_section_pieces(path, section, blocks, options, doc_title))
    return pieces


def _is_child(parent: Section, child: Section) -> bool:
    return len(child.path) > len(parent.path) and child.path[: len(parent.path)] == parent.path


def _section_pieces(
    path: str, section: Section, blocks: list[Block], options: ChunkOptions, doc_title: str
) -> list[Piece]:
    units = units_for(blocks, options)
    if not units:
        return []
    max_tokens = max(16, options.max_tokens)
    total = sum(u.tokens + 1 for u in units)
    spans = [(0, len(units))] if total <= max_tokens else pack(units, max_tokens)
    spans = _merge_small(units, spans, options.min_chars)
    breadcrumb = section.path or ((doc_title,) if doc_title else ())
    trail = " > ".join(breadcrumb)
    title = section.title or doc_title or PurePosixPath(path).name
    headed = section.heading is not None
    pieces: list[Piece] = []
    for i, j in spans:
        part = units[i:j]
        if not any(is_meaningful(u.text) for u in part):
            continue
        with_overlap = i > 0 and part[0].source >= 0 and units[i - 1].source == part[0].source
        text, search, start_line = render(part, with_overlap)
        text_type = piece_type(part, len(spans) == 1, headed)
        key = f"doc:{trail}" + (":table" if text_type == "table" else "")
        pieces.append(
            Piece(
                start_line=start_line,
                end_line=max(u.end_line for u in part),
                text=text,
                title=title,
                key=key,
                breadcrumb=breadcrumb,
                text_type=text_type,
                context=f"{path}: {trail}" if trail else path,
                search_text=search,
            )
        )
    return pieces


def _merge_small(
    units: list[Unit], spans: list[tuple[int, int]], min_chars: int
) -> list[tuple[int, int]]:
    """Fold pieces shorter than ``min_chars`` into a neighbour of the same section."""
    spans = list(spans)
    k = 0
    while len(spans) > 1 and k < len(spans):
        i, j = spans[k]
        chars = sum(len(u.text.strip()) for u in units[i:j])
        if chars >= min_chars:
            k += 1
            continue
        if k > 0:
            spans[k - 1] = (spans[k - 1][0], j)
        else:
            spans[k + 1] = (i, spans[k + 1][1])
        del spans[k]
    return spans
