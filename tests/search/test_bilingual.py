"""A question asked in two languages: the two rankings fused, the question's own verdicts kept."""

from __future__ import annotations

from groundls.results import Explanation, Hit, SearchResult
from groundls.search.bilingual import in_two_languages
from groundls.search.fusion import RRF_K


def hit(path: str, start: int = 1, score: float = 1.0) -> Hit:
    return Hit(
        f"{start:016x}", path, start, start + 2, "doc", "markdown", "section", "t", (), "x", score
    )


def why(score: float) -> Explanation:
    return Explanation(score, (), (), score)


def test_a_place_both_rankings_found_comes_before_one_only_one_found():
    asked = SearchResult((hit("a.md"), hit("b.md"), hit("c.md")), "low", "nearest match only")
    translated = SearchResult((hit("c.md"), hit("d.ja.md"), hit("a.md")), "high", "agree")
    fused = in_two_languages(asked, translated, k=3)
    assert [h.path for h in fused] == ["a.md", "c.md", "b.md"]
    assert fused[0].score == round(1 / (RRF_K + 1) + 1 / (RRF_K + 3), 6)
    assert [h.score for h in fused] == sorted((h.score for h in fused), reverse=True)
    # what the search says about the question is the question's own
    assert (fused.confidence, fused.reason) == ("low", "nearest match only")


def test_a_place_only_the_translation_found_joins_with_its_explanation():
    asked = SearchResult((hit("a.md", score=0.9),), explanations=(why(0.9),), notice="one")
    translated = SearchResult(
        (hit("d.ja.md", score=0.5), hit("a.md")),
        explanations=(why(0.5), why(0.2)),
        notice="two",
    )
    fused = in_two_languages(asked, translated, k=10)
    assert [h.path for h in fused] == ["a.md", "d.ja.md"]
    assert len(fused.explanations) == 2
    assert [e.score for e in fused.explanations] == [h.score for h in fused]
    assert fused.notice == "one; two"
