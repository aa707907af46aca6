"""Fallback chunker: fixed line windows with a small overlap, for languages without a parser."""

from __future__ import annotations

from .base import ChunkOptions, Piece
from .textrules import estimate_encoder_tokens


def lines_title(start: int, end: int) -> str:
    """The title of a window that has no name of its own: its lines."""
    return f"lines {start}-{end}"


def window_pieces(
    lines: list[str],
    options: ChunkOptions,
    *,
    first_line: int = 1,
    key_prefix: str = "window",
    title: str = "",
    breadcrumb: tuple[str, ...] = (),
    context: str = "",
    text_type: str = "window",
) -> list[Piece]:
    """Split ``lines`` (which start at ``first_line``) into windows within the token budget.

    A window ends at ``options.window_lines`` lines or when the budget is reached, whichever is
    first; consecutive windows overlap by a couple of lines so a statement cut at a border is
    still found whole in one of them.
    """
    pieces: list[Piece] = []
    n = len(lines)
    start = 0
    while start < n:
        end = start
        tokens = 0
        while end < n and end - start < options.window_lines:
            line_tokens = estimate_encoder_tokens(lines[end]) + 1
            if end > start and tokens + line_tokens > options.max_tokens:
                break
            tokens += line_tokens
            end += 1
        text = "\n".join(lines[start:end])
        s, e = first_line + start, first_line + end - 1
        pieces.append(
            Piece(
                start_line=s,
                end_line=e,
                text=text,
                title=title or lines_title(s, e),
                key=f"{key_prefix}:{len(pieces)}",
                breadcrumb=breadcrumb,
                text_type=text_type,
                context=context,
            )
        )
        if end >= n:
            break
        overlap = min(2, max(0, end - start - 1))
        start = end - overlap
    return pieces
