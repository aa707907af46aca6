"""A question asked in two languages: as written, and as its Japanese translation searched the
way a Japanese question is, with the question's own English words beside it.

Each ranking is one vote (Reciprocal Rank Fusion over the located hits). What the search says
about the question (its confidence, coverage and language decision) is the question's own."""

from __future__ import annotations

from dataclasses import replace

from groundls.results import Explanation, Hit, SearchResult
from groundls.search.fusion import RankedList, rrf


def in_two_languages(asked: SearchResult, translated: SearchResult, k: int) -> SearchResult:
    """The first ``k`` places of the two rankings fused; a place both found keeps the one the
    question found (and its explanation)."""
    ids: dict[tuple[str, int, int], int] = {}
    shown: list[tuple[Hit, Explanation | None]] = []
    lists = []
    for name, result in (("asked", asked), ("translated", translated)):
        explanations = result.explanations or (None,) * len(result.hits)
        ranked = []
        for hit, why in zip(result.hits, explanations, strict=True):
            place = (hit.path, hit.start_line, hit.end_line)
            if place not in ids:
                ids[place] = len(shown)
                shown.append((hit, why))
            ranked.append(ids[place])
        lists.append(RankedList(name, 1.0, ranked))
    scores = rrf(lists)
    order = sorted(scores, key=lambda i: -scores[i])[:k]
    hits = tuple(replace(shown[i][0], score=round(scores[i], 6)) for i in order)
    explained = tuple(
        _rescored(why, hit.score)
        for i, hit in zip(order, hits, strict=True)
        if (why := shown[i][1])
    )
    notices = dict.fromkeys(n for n in (asked.notice, translated.notice) if n)
    return replace(
        asked,
        hits=hits,
        explanations=explained if len(explained) == len(hits) else (),
        notice="; ".join(notices),
    )


def _rescored(why: Explanation, score: float) -> Explanation:
    """The explanation of a hit's own search, with the two rankings' fusion as one more
    multiplier, so that its parts still make the score."""
    moved = score / why.score if why.score else 1.0
    return replace(why, signals=(*why.signals, ("both languages", round(moved, 6))), score=score)
