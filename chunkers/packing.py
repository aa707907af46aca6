"""Blocks of prose split into sentence- or line-sized units and packed into budget-sized pieces.

The packing prefers breaks between blocks over breaks inside them, and never splits a table row,
a list item or a code line; Japanese and English sentences are both recognised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from groundls.chunkers.blocks import (
    LIST_ITEM,
    TABLE_SEPARATOR,
    Block,
    sentence_spans,
    table_key_values,
)

from .base import ChunkOptions
from .textrules import estimate_encoder_tokens, is_cjk_letter

_INTRO_END = (":", "：", "::")
_INF = float("inf")
_CLAUSE_BREAK = re.compile(r"[、，,；;]\s*")
_MAX_UNITS_PER_PIECE = 60  # bounds the packing search on documents of many one-line blocks


@dataclass
class Unit:
    """A block, or a budget-sized fragment of one, ready to be packed into pieces."""

    start_line: int
    end_line: int
    text: str
    kind: str
    tokens: int
    source: int = -1  # index of the block this fragment was cut from, -1 = whole block
    overlap: str = ""  # trailing text of the previous fragment, repeated at a piece border
    overlap_line: int = 0
    header: str | None = None  # a table fragment's header row, for the key:value rendering
    joiner: str = "\n"  # how this fragment continues the previous fragment of the same block


def _split_sentences(block: Block, index: int, budget: int, overlap_tokens: int) -> list[Unit]:
    text = block.text
    spans: list[tuple[int, int]] = []
    for a, b in sentence_spans(text):
        spans.extend(_hard_split(text, a, b, budget))
    units: list[Unit] = []
    cur: list[tuple[int, int]] = []
    cur_tokens = 0

    def emit() -> None:
        a, b = cur[0][0], cur[-1][1]
        overlap, overlap_line = (
            _overlap(block, prev_groups[-1], a, overlap_tokens) if units else ("", 0)
        )
        body = text[a:b].rstrip()
        lead = text[a - 1] if a > 0 else ""
        units.append(
            Unit(
                block.line_at(a),
                block.line_at(a + len(body.rstrip()) - 1 if body else a),
                body.strip(),
                block.kind,
                estimate_encoder_tokens(body),
                source=index,
                overlap=overlap,
                overlap_line=overlap_line,
                joiner="\n" if lead == "\n" else (" " if lead.isspace() else ""),
            )
        )
        prev_groups.append(list(cur))

    prev_groups: list[list[tuple[int, int]]] = []
    for span in spans:
        t = estimate_encoder_tokens(text[span[0] : span[1]])
        if cur and cur_tokens + t > budget:
            emit()
            cur, cur_tokens = [], 0
        cur.append(span)
        cur_tokens += t
    if cur:
        emit()
    return units


def _overlap(
    block: Block, prev_spans: list[tuple[int, int]], a: int, overlap_tokens: int
) -> tuple[str, int]:
    """The end of the previous unit repeated before the next one (which starts at ``a``), and
    the line it starts on: its last sentences up to ``overlap_tokens``, or, when the last
    sentence alone is too long, its closing clause."""
    text = block.text
    take: list[tuple[int, int]] = []
    used = 0
    for s in reversed(prev_spans):
        t = estimate_encoder_tokens(text[s[0] : s[1]])
        if used + t > overlap_tokens:
            break
        take.insert(0, s)
        used += t
    if take and len(take) < len(prev_spans):
        return text[take[0][0] : a], block.line_at(take[0][0])
    if not take and overlap_tokens > 0:
        last = prev_spans[-1]
        for m in _CLAUSE_BREAK.finditer(text, last[0], last[1]):
            if estimate_encoder_tokens(text[m.end() : last[1]]) <= overlap_tokens:
                return text[m.end() : a], block.line_at(m.end())
    return "", 0


def _hard_split(text: str, a: int, b: int, budget: int) -> list[tuple[int, int]]:
    """Cut one over-long sentence at spaces (or anywhere) so no fragment exceeds the budget."""
    if estimate_encoder_tokens(text[a:b]) <= budget:
        return [(a, b)]
    out: list[tuple[int, int]] = []
    pos = a
    while pos < b:
        cost = 0.0
        end = pos
        while end < b:  # same weights as estimate_encoder_tokens, counted incrementally
            step = 0.5 if is_cjk_letter(text[end]) else 0.25
            if cost + step > budget and end > pos:
                break
            cost += step
            end += 1
        if end >= b:
            out.append((pos, b))
            break
        space = text.rfind(" ", pos + 1, end)
        cut = space + 1 if space > pos + (end - pos) // 2 else end
        out.append((pos, cut))
        pos = cut
    return out


def _split_lines_block(block: Block, index: int, budget: int) -> list[Unit]:
    """Cut a list, table or code block at line boundaries (list items preferred)."""
    lines = block.text.split("\n")
    header: str | None = None
    body_start = 0
    if block.kind == "table":
        rows = [n for n, ln in enumerate(lines) if ln.strip()]
        if len(rows) > 1 and TABLE_SEPARATOR.match(lines[rows[1]]) and "-" in lines[rows[1]]:
            header = "\n".join(lines[: rows[1] + 1])
            body_start = rows[1] + 1
        elif rows:
            header = lines[rows[0]]
            body_start = rows[0] + 1
    item_indent = None
    if block.kind == "list":
        m = LIST_ITEM.match(lines[0])
        item_indent = len(m.group(1)) if m else 0
    units: list[Unit] = []
    start = 0
    tokens = 0

    def is_boundary(n: int) -> bool:
        if item_indent is None:
            return True
        m = LIST_ITEM.match(lines[n])
        return bool(m) and len(m.group(1)) <= item_indent

    last_boundary = 0
    n = 0
    while n <= len(lines):
        if n < len(lines):
            t = estimate_encoder_tokens(lines[n]) + 1
            if n > start and tokens + t > budget:
                cut = last_boundary if last_boundary > start else n
                units.append(_line_unit(block, index, lines, start, cut, header, body_start))
                start, tokens = cut, sum(estimate_encoder_tokens(x) + 1 for x in lines[cut:n])
                last_boundary = start
                continue
            if n > start and is_boundary(n):
                last_boundary = n
            tokens += t
        else:
            units.append(_line_unit(block, index, lines, start, n, header, body_start))
        n += 1
    return [u for u in units if u.text.strip()]


def _line_unit(
    block: Block,
    index: int,
    lines: list[str],
    start: int,
    end: int,
    header: str | None,
    body_start: int,
) -> Unit:
    part = lines[start:end]
    while part and not part[-1].strip():
        part.pop()
        end -= 1
    skip = 0
    while skip < len(part) and not part[skip].strip():
        skip += 1
    text = "\n".join(part[skip:])
    if header is not None and start >= body_start:
        text = f"{header}\n{text}"
    first = start + skip
    return Unit(
        block.line_of(first),
        block.last_line_of(max(first, end - 1)),
        text,
        block.kind,
        estimate_encoder_tokens(text),
        source=index,
        header=header,
    )


def _even_budget(tokens: int, budget: int) -> int:
    """Fragment size that cuts a block into evenly sized parts rather than full parts + a tail.

    Even parts leave room for the paragraph before a block (often its introduction) to share a
    piece with the first part; the margin lets cuts fall on sentence or item borders.
    """
    parts = -(-tokens // budget)
    return min(budget, int(tokens / parts * 1.15) + 1)


def units_for(blocks: list[Block], options: ChunkOptions) -> list[Unit]:
    budget = max(16, options.max_tokens)
    units: list[Unit] = []
    for index, block in enumerate(blocks):
        if not block.text.strip():
            continue
        tokens = estimate_encoder_tokens(block.text)
        if tokens <= budget or block.kind == "heading":
            text = block.text.rstrip()
            units.append(Unit(block.start_line, block.end_line, text, block.kind, tokens))
        elif block.kind in ("list", "table", "code"):
            units.extend(_split_lines_block(block, index, _even_budget(tokens, budget)))
        else:
            sentence_budget = _even_budget(tokens, max(16, budget - options.overlap_tokens))
            units.extend(_split_sentences(block, index, sentence_budget, options.overlap_tokens))
    return units


def _break_penalty(left: Unit, right: Unit) -> float:
    if left.kind == "heading":
        return _INF
    if left.source >= 0 and left.source == right.source:
        return 0.0
    if left.kind == "paragraph" and right.kind in ("list", "table", "code", "quote"):
        return 2.0 if left.text.rstrip().endswith(_INTRO_END) else 0.4
    return 0.0


def pack(units: list[Unit], max_tokens: int) -> list[tuple[int, int]]:
    """Choose piece borders: fewest, evenly filled pieces, never after a heading or an intro."""
    n = len(units)
    best = [0.0] + [_INF] * n
    back = [0] * (n + 1)
    sizes = [u.tokens + 1 for u in units]
    headings = [u.kind == "heading" for u in units]
    for j in range(1, n + 1):
        penalty = _break_penalty(units[j - 1], units[j]) if j < n else 0.0
        size = 0
        best_j, back_j = _INF, 0
        for i in range(j - 1, max(-1, j - 1 - _MAX_UNITS_PER_PIECE), -1):
            size += sizes[i]
            # over budget is only allowed for one unit plus the headings right before it
            if size > max_tokens and i < j - 1 and not headings[i]:
                break
            slack = (max_tokens - size) / max_tokens if size < max_tokens else 0.0
            cost = best[i] + 1.0 + slack * slack + penalty
            if cost < best_j:
                best_j, back_j = cost, i
        best[j], back[j] = best_j, back_j
    if best[n] == _INF:  # unreachable in practice; keep every unit on its own
        return [(k, k + 1) for k in range(n)]
    spans: list[tuple[int, int]] = []
    j = n
    while j > 0:
        spans.append((back[j], j))
        j = back[j]
    return spans[::-1]


def _join(units: list[Unit]) -> list[tuple[Unit, str]]:
    """Merge consecutive fragments of one block back into one text; keep each part's kind."""
    parts: list[tuple[Unit, str]] = []
    for u in units:
        if parts and u.source >= 0 and parts[-1][0].source == u.source:
            prev, text = parts[-1]
            if u.header is not None and text.startswith(u.header + "\n"):
                body = u.text[len(u.header) + 1 :] if u.text.startswith(u.header) else u.text
                parts[-1] = (prev, f"{text}\n{body}")
            else:
                parts[-1] = (prev, f"{text}{u.joiner}{u.text}")
        else:
            parts.append((u, u.text))
    return parts


def render(units: list[Unit], with_overlap: bool) -> tuple[str, str | None, int]:
    parts = _join(units)
    texts: list[str] = []
    search: list[str] = []
    has_table = False
    prev_end = 0
    start_line = units[0].start_line
    for n, (u, text) in enumerate(parts):
        if n == 0 and with_overlap and u.overlap:
            text = u.overlap + text
            start_line = min(start_line, u.overlap_line or start_line)
        sep = "" if n == 0 else ("\n" if u.start_line == prev_end + 1 else "\n\n")
        texts.append(sep + text)
        if u.kind == "table":
            has_table = True
            kv = table_key_values(text, u.header)
            search.append(sep + (f"{kv}\n\n{text}" if kv else text))
        else:
            search.append(sep + text)
        prev_end = max(prev_end, _last_line(units, u))
    return "".join(texts), ("".join(search) if has_table else None), start_line


def _last_line(units: list[Unit], first: Unit) -> int:
    if first.source < 0:
        return first.end_line
    return max(u.end_line for u in units if u.source == first.source)


def piece_type(units: list[Unit], whole_section: bool, headed: bool) -> str:
    kinds = {u.kind for u in units if u.kind != "heading"}
    if not kinds:
        return "heading"
    if whole_section and headed:
        return "section"
    if len(kinds) == 1:
        kind = next(iter(kinds))
        if kind in ("list", "table", "code"):
            return kind
    return "paragraph"
