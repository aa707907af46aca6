"""A question asked in two languages: as written, and as its Japanese translation searched the
way a Japanese question is, with the question's own English words beside it.

Each ranking is one vote (Reciprocal Rank Fusion over the located hits). What the search says
about the question (its confidence, coverage and language decision) is the question's own."""

from __future__ import annotations

from dataclasses import replace

from groundls.results import Explanation, Hit, SearchResult
from groundls.search.fusion import RRF_K


def in_two_languages(asked: SearchResult, translated: SearchResult, k: int) -> SearchResult:
    """The first ``k`` places of the two rankings fused; a place both found keeps the one the
    question found (and its explanation)."""
    scores: dict[tuple[str, int, int], float] = {}
    shown: dict[tuple[str, int, int], tuple[Hit, Explanation | None]] = {}
    for result in (asked, translated):
        explanations = result.explanations or (None,) * len(result.hits)
        for rank, (hit, why) in enumerate(zip(result.hits, explanations, strict=True), start=1):
            place = _place(hit)
            scores[place] = scores.get(place, 0.0) + 1.0 / (RRF_K + rank)
            shown.setdefault(place, (hit, why))
    order = sorted(scores, key=lambda place: -scores[place])[:k]
    hits = tuple(replace(shown[p][0], score=round(scores[p], 6)) for p in order)
    explained = tuple(_rescored(why, h.score) for h in hits if (why := shown[_place(h)][1]))
    notices = dict.fromkeys(n for n in (asked.notice, translated.notice) if n)
    return replace(
        asked,
        hits=hits,
        explanations=explained if len(explained) == len(hits) else (),
        notice="; ".join(notices),
    )


def _place(hit: Hit) -> tuple[str, int, int]:
    return hit.path, hit.start_line, hit.end_line


def _rescored(why: Explanation, score: float) -> Explanation:
    """The explanation of a hit's own search, with the two rankings' fusion as one more
    multiplier, so that its parts still make the score."""
    moved = score / why.score if why.score else 1.0
    return replace(why, signals=(*why.signals, ("both languages", round(moved, 6))), score=score)
