"""How sure a search is about its first hit, from evidence that means the same for every model
and corpus."""

from __future__ import annotations

from collections.abc import Sequence

from groundls.chunkers.textrules import has_hiragana, is_cjk
from groundls.index.storage.terms import index_terms
from groundls.results import Hit
from groundls.search.query import Query

#: The share of the question's words the first hit must hold to count as holding "most".
MOST_WORDS = 0.5
#: How far down the keyword list the first hit may be for keyword and meaning to agree.
KEYWORD_AGREES = 10
#: The reason of a search whose question names things the workspace never mentions.
NAMES_NOTHING = "names nothing in this workspace"
#: The reason's start of a search whose question names something the workspace never mentions.
NAMES_ABSENT = "names what the workspace never mentions:"


def confidence(
    q: Query,
    top: int | None,
    hits: dict[int, Hit],
    symbols: dict[int, str],
    keyword_ids: list[int],
    vector_tops: dict[str, int],
    words: set[str],
    rarity: dict[str, float],
) -> tuple[str, str]:
    """The confidence (high / medium / low / none) and its reason: the top hit defines the
    queried name; keyword and vector search agree on it (it is among the first keyword hits and
    is the nearest chunk of a space that reads the query's script); it holds most of the
    query's ``words`` (those it could hold, see :func:`words_it_can_hold`).

    A word counts 1, or its ``rarity`` where given: the inverse document frequency of a Japanese
    term, a character bigram. Bigrams are fragments of words, and a common word's fragments are
    in most passages; an English term is a whole word with the function words left out."""
    if top is None:
        return "none", ""
    hit = hits[top]
    if symbols.get(top, "").lower() in q.identifiers and symbols.get(top):
        return "high", "defines the queried name"
    agree = top in keyword_ids[:KEYWORD_AGREES] and top in vector_tops.values()
    have = set(index_terms(f"{hit.path} {hit.title} {hit.text}").split())
    weight = {t: rarity.get(t, 1.0) for t in words}
    total = sum(weight.values())
    coverage = sum(w for t, w in weight.items() if t in have) / total if total else 0.0
    if agree and coverage >= MOST_WORDS:
        return "high", "keyword and meaning agree"
    if agree or coverage >= MOST_WORDS:
        return "medium", "keyword and meaning agree" if agree else "holds most query words"
    return "low", "nearest match only"


def named_elsewhere(
    absent: Sequence[str], coverage: float | None, *, everything: bool
) -> tuple[str, str, float | None]:
    """The confidence, reason and coverage of a search whose question names ``absent`` things
    the workspace never mentions (``everything``: all it names). A name cannot be put another
    way: whatever its other words found, what it names is not documented here."""
    if everything:
        return "low", NAMES_NOTHING, 0.0
    return "low", f"{NAMES_ABSENT} {', '.join(absent)}", coverage


def words_it_can_hold(hit: Hit, q: Query, asked: Query, japanese: Query | None = None) -> set[str]:
    """The query words a hit could hold: a Japanese passage holds the question's Japanese words
    (its own, or its translation's), not its English rewrite's; and of Japanese character
    bigrams only those of kanji and katakana count (one with a kana in it mostly straddles a
    particle: の大, 則で)."""
    terms = (japanese or asked).terms if is_cjk(hit.text) else q.terms
    return {t for t in terms if not has_hiragana(t)}
