"""Keyword terms: what the FTS5 index stores and what a question is matched with.

FTS5's ``unicode61`` tokenizer neither splits ``camelCase``/``snake_case`` identifiers nor
Japanese (which has no spaces). We therefore index a normalised term string: lower-cased words,
the parts of each identifier, and overlapping character bigrams of every CJK run. Queries are
normalised the same way and every term is quoted, so user text never reaches MATCH unescaped.
"""

from __future__ import annotations

import functools
import math
import re

from groundls.chunkers.textrules import (
    STOPWORDS,
    cjk_bigrams,
    cjk_runs,
    is_hiragana_only,
    katakana_stems,
    split_identifier,
)

_WORD = re.compile(r"[A-Za-z0-9_]+|[\u00c0-\u024f]+")


@functools.lru_cache(maxsize=1 << 16)
def _word_terms(word: str) -> str:
    """A word and, when it is an identifier of several parts, its parts."""
    lower = word.lower()
    parts = split_identifier(word)
    if len(parts) > 1 or (parts and parts[0] != lower):
        return " ".join([lower, *parts])
    return lower


def index_terms(text: str) -> str:
    """The term string stored in FTS5 for ``text``."""
    out = [_word_terms(word) for word in _WORD.findall(text)]
    for run in cjk_runs(text):
        out.extend(cjk_bigrams(run))
    return " ".join(out)


def query_terms(query: str) -> list[str]:
    """Distinct search terms of a question; stopwords and kana-only function bigrams dropped."""
    terms: list[str] = []
    for match in _WORD.finditer(query):
        word = match.group(0)
        lower = word.lower()
        if lower not in STOPWORDS and len(lower) > 1:
            terms.append(lower)
        parts = split_identifier(word)
        if len(parts) > 1:
            terms.extend(p for p in parts if p not in STOPWORDS and len(p) > 1)
    # the question's katakana words stemmed: a stem's bigrams occur in either spelling
    for run in cjk_runs(katakana_stems(query)):
        terms.extend(g for g in cjk_bigrams(run) if not is_hiragana_only(g))
    return list(dict.fromkeys(terms))


def match_expression(terms: list[str]) -> str:
    """An FTS5 MATCH expression that ORs the quoted terms (quotes doubled inside)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def bm25_idf(total: int, hits: int) -> float:
    """FTS5's BM25 inverse document frequency of a term that ``hits`` of ``total`` chunks hold
    (its floor keeps a common term above zero)."""
    return max(math.log((total - hits + 0.5) / (hits + 0.5)), 1e-6)
