"""Why each hit ranks where it does: the lists that placed it and the signals that moved it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from groundls.results import Explanation, Hit, ListPlace
from groundls.search.fusion import RankedList


def explained(
    kept: Sequence[Hit],
    hits: Mapping[int, Hit],
    lists: Sequence[RankedList],
    scores: Mapping[int, float],
    moved: Mapping[int, Mapping[str, float]],
    k: int,
) -> tuple[Explanation, ...]:
    """Each kept hit's explanation: the lists that placed its chunk (rank, weight, and their
    part of its fused score, ``weight / (k + rank)`` each) and the signals that moved it."""
    rowids = {hit.chunk_id: rowid for rowid, hit in hits.items()}
    places = [(ranked, {r: i for i, r in enumerate(ranked.ids, start=1)}) for ranked in lists]
    out = []
    for hit in kept:
        rowid = rowids.get(hit.chunk_id)
        found = [
            (ranked, rank[rowid]) for ranked, rank in places if ranked.weight > 0 and rowid in rank
        ]
        fused = sum(ranked.weight / (k + place) for ranked, place in found)
        found.sort(key=lambda pair: -pair[0].weight / (k + pair[1]))
        out.append(
            Explanation(
                fused=round(fused, 6),
                lists=tuple(
                    ListPlace(
                        ranked.name,
                        place,
                        round(ranked.weight, 4),
                        round(ranked.weight / (k + place) / fused, 3) if fused else 0.0,
                    )
                    for ranked, place in found
                ),
                signals=_moved_by(hit, moved.get(rowid, {}), scores.get(rowid)),
                score=hit.score,
            )
        )
    return tuple(out)


def _moved_by(
    hit: Hit, factors: Mapping[str, float], ranked: float | None
) -> tuple[tuple[str, float], ...]:
    """The signals that moved a hit, and ``spread``: what showing it after better hits of the
    same place took off its ranked score."""
    out = [(name, round(value, 3)) for name, value in factors.items()]
    if ranked and abs(hit.score - ranked) > 1e-6:
        out.append(("spread", round(hit.score / ranked, 3)))
    return tuple(out)
