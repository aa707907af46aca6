"""The language judge: which language's passages are the less likely answer to a question
asked in one language and searched in two (see ``language.py``)."""

from __future__ import annotations

from collections.abc import Mapping

#: The passage languages the judge weighs, as ``signals.passage_language`` names them.
LANGUAGES = ("ja", "en")
#: How much nearer its nearest Japanese passage than its nearest English one a Japanese
#: question must be for its English rewrite not to be written at all.
PLAINLY_JAPANESE = 0.15
#: How far apart the judge's two sums must be for a verdict.
JUDGE_MARGIN = 0.1


def judge(own: Mapping[str, float] | None, theirs: Mapping[str, float] | None) -> str | None:
    """The language whose passages are the less likely answer ("ja" or "en"), from the
    question's leaning and its rewrite's: each side is scored by a text in its own language and
    by one in the other, so neither the model's higher same-language similarities nor one
    text's wording decides alone. None when either has no leaning."""
    if own is None or theirs is None:
        return None
    return verdict({language: own[language] + theirs[language] for language in LANGUAGES})


def verdict(near: Mapping[str, float]) -> str | None:
    """The judge's verdict on its two sums (each language's nearest passage to the question
    plus to its rewrite): the language farther by at least ``JUDGE_MARGIN`` is the unlikely
    one; None when they are closer than that."""
    gap = near["en"] - near["ja"]
    if abs(gap) < JUDGE_MARGIN:
        return None
    return "ja" if gap > 0 else "en"


def plainly_japanese(own: Mapping[str, float] | None) -> bool:
    """Whether a Japanese question leans so far toward Japanese passages that the judge would
    drop its rewrite whatever the rewrite says: the rewrite is then not written at all."""
    return own is not None and own["ja"] - own["en"] > PLAINLY_JAPANESE
