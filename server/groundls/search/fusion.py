"""Hybrid ranking: Reciprocal Rank Fusion of vector and keyword lists, then small ranking signals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from groundls.chunkers.windows import lines_title
from groundls.results import Hit

#: Reciprocal Rank Fusion's k for an English question (the RRF paper's) ...
RRF_K = 60
#: ... and for a Japanese question. Its lists are many (USE by passage and by sentence, e5, the
#: keyword bigrams, and its English rewrite's three) and each is broad: a bigram or a loose
#: cross-language match reaches a little of every section. At k = 60 a section that is middling
#: in most of them outranks the one that two of them rank first; at 1-10 the first places count.
RRF_K_CJK = 5

#: Candidates taken from each list before fusion.
CANDIDATES = 50
#: How much deeper a list searches when it is split by passage language or filtered by path.
DEEPER = 4

T = TypeVar("T")


@dataclass(frozen=True)
class RankedList:
    """One candidate list (best first) and its weight in the fusion."""

    name: str
    weight: float
    ids: Sequence[int]


def rrf(lists: Sequence[RankedList], k: int | None = None) -> dict[int, float]:
    """Weighted Reciprocal Rank Fusion: sum of ``weight / (k + rank)`` over the lists (rank from
    1; ``k`` defaults to ``RRF_K``)."""
    k = RRF_K if k is None else k
    scores: dict[int, float] = {}
    for ranked in lists:
        if ranked.weight <= 0:
            continue
        for rank, item in enumerate(ranked.ids, start=1):
            scores[item] = scores.get(item, 0.0) + ranked.weight / (k + rank)
    return scores


def cap_per_file(ordered: Sequence[tuple[int, str]], max_per_file: int) -> list[int]:
    """Keep at most ``max_per_file`` items per path, preserving order. Items are (id, path)."""
    if max_per_file <= 0:
        return [item for item, _ in ordered]
    counts: dict[str, int] = {}
    kept: list[int] = []
    for item, path in ordered:
        if counts.get(path, 0) < max_per_file:
            counts[path] = counts.get(path, 0) + 1
            kept.append(item)
    return kept


def merge_adjacent(hits: list[Hit], gap: int = 2, max_lines: int = 80) -> list[Hit]:
    """Fold a hit into a better-ranked one from the same section when their lines touch.

    Parts of one split function or one long section then come back as one located hit
    instead of crowding the list with neighbours.
    """
    out: list[Hit] = []
    for hit in hits:
        for i, kept in enumerate(out):
            if (
                kept.path == hit.path
                and kept.breadcrumb == hit.breadcrumb
                and hit.start_line <= kept.end_line + gap
                and kept.start_line <= hit.end_line + gap
                and max(kept.end_line, hit.end_line) - min(kept.start_line, hit.start_line)
                < max_lines
            ):
                first, second = (kept, hit) if kept.start_line <= hit.start_line else (hit, kept)
                start, end = min(kept.start_line, hit.start_line), max(kept.end_line, hit.end_line)
                # a window without a name of its own is titled by its lines: say the merged ones
                untitled = kept.title == lines_title(kept.start_line, kept.end_line)
                out[i] = replace(
                    kept,
                    start_line=start,
                    end_line=end,
                    text=first.text + "\n" + second.text,
                    title=lines_title(start, end) if untitled else kept.title,
                )
                break
        else:
            out.append(hit)
    return out


def best_of(groups: Sequence[tuple[T, Sequence[Hit]]], k: int) -> list[tuple[T, Hit]]:
    """Several indexes' results (one group per workspace folder) as one list, best score first."""
    merged = [(owner, hit) for owner, hits in groups for hit in hits]
    merged.sort(key=lambda pair: -pair[1].score)
    return merged[:k]
