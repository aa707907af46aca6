"""Reading order for a scanned page's text boxes: a stretch set in two columns is read column by
column, everything else row by row.

A page's boxes are split at its gutter: the x in the middle half of the text's width that the
fewest boxes cross. A box that crosses it (a title, a full-width paragraph) ends a stretch. A
stretch is two columns when each side of the gutter is a column of text: several lines, most of
them filling the column, and long enough to be prose, not a table's cells. A table of short cells
or a one-column page keeps its row order, so its rows stay rows.
"""

from __future__ import annotations

import statistics

#: A box: top, bottom, left, right (pixels, y down) and its text.
Span = tuple[float, float, float, float, str]

#: Lines one side of a gutter needs to be a column.
COLUMN_LINES = 4
#: A line "fills" its column when it is at least this share of the column's widest line.
FULL_LINE = 0.6
#: Characters a column's median line holds: prose, not a table's cells.
PROSE_CHARS = 12


def reading_blocks(spans: list[Span]) -> list[list[Span]]:
    """``spans`` as blocks read one after another, each then read row by row: each two-column
    stretch as its left column, then its right; the rest, in page order, between them."""
    if len(spans) < 2 * COLUMN_LINES:
        return [spans]
    gutter = _gutter(spans)
    blocks: list[list[Span]] = []
    rows: list[Span] = []  # read row by row: crossing boxes and stretches that are no columns
    stretch: list[Span] = []

    def close_stretch() -> None:
        nonlocal rows
        left = [s for s in stretch if s[3] <= gutter]
        right = [s for s in stretch if s[2] >= gutter]
        if _column(left) and _column(right):
            if rows:
                blocks.append(rows)
                rows = []
            blocks.extend([left, right])
        else:
            rows.extend(stretch)
        stretch.clear()

    for span in sorted(spans, key=lambda s: (s[0] + s[1]) / 2):
        if span[2] < gutter < span[3]:
            close_stretch()
            rows.append(span)
        else:
            stretch.append(span)
    close_stretch()
    if rows:
        blocks.append(rows)
    return blocks


def _gutter(spans: list[Span]) -> float:
    """The x in the middle half of the text's width crossed by the fewest boxes (nearest the
    middle among equals)."""
    left, right = min(s[2] for s in spans), max(s[3] for s in spans)
    width = right - left
    middle = left + width / 2
    edges = sorted({s[2] for s in spans} | {s[3] for s in spans} | {middle})
    candidates = [x for x in edges if abs(x - middle) <= width / 4]

    def crossing(x: float) -> int:
        return sum(1 for s in spans if s[2] < x < s[3])

    return min(candidates, key=lambda x: (crossing(x), abs(x - middle)))


def _column(side: list[Span]) -> bool:
    """Whether boxes on one side of a gutter read as a column of prose."""
    if len(side) < COLUMN_LINES:
        return False
    widths = [s[3] - s[2] for s in side]
    full = sum(1 for w in widths if w >= FULL_LINE * max(widths))
    return 2 * full >= len(side) and statistics.median(len(s[4]) for s in side) >= PROSE_CHARS
