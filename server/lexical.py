"""Keyword side of search: the terms we index and query, for English identifiers and Japanese.

FTS5's ``unicode61`` tokenizer neither splits ``camelCase``/``snake_case`` identifiers nor
Japanese (which has no spaces). We therefore index a normalised term string: lower-cased words,
the parts of each identifier, and overlapping character bigrams of every CJK run. Queries are
normalised the same way and every term is quoted, so user text never reaches MATCH unescaped.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z0-9_]+|[\u00c0-\u024f]+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f々〆ー]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_HIRAGANA = re.compile(r"^[\u3040-\u309fー]+$")
_KATAKANA_ONLY = re.compile(r"^[\u30a0-\u30ffー]+$")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "get",
        "use",
        "used",
        "using",
        "want",
        "need",
    ]
)


def split_identifier(word: str) -> list[str]:
    """``parseArgs`` -> [parse, args]; ``max_content_width`` -> [max, content, width]."""
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(m.group(0) for m in _CAMEL.finditer(piece))
    return [p.lower() for p in parts if p]


def cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def index_terms(text: str) -> str:
    """The term string stored in FTS5 for ``text``."""
    out: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower()
        out.append(lower)
        parts = split_identifier(word)
        if len(parts) > 1 or (parts and parts[0] != lower):
            out.extend(parts)
    for match in _CJK_RUN.finditer(text):
        out.extend(cjk_bigrams(match.group(0)))
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
    for match in _CJK_RUN.finditer(query):
        for gram in cjk_bigrams(match.group(0)):
            if _HIRAGANA.match(gram):
                continue  # particles and inflections: どこ, ます, ですか ...
            terms.append(gram)
    seen: set[str] = set()
    return [t for t in terms if not (t in seen or seen.add(t))]


def match_expression(terms: list[str]) -> str:
    """An FTS5 MATCH expression that ORs the quoted terms (quotes doubled inside)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def looks_like_identifier(query: str) -> bool:
    """True for queries such as ``get_terminal_size``, ``Context.invoke`` or ``parseArgs``."""
    stripped = query.strip().strip("`'\"()")
    if not stripped or " " in stripped:
        return False
    return bool(re.fullmatch(r"[A-Za-z_][\w.:#]*", stripped)) and (
        "_" in stripped or "." in stripped or bool(re.search(r"[a-z][A-Z]", stripped))
    )


def is_cjk(text: str) -> bool:
    return bool(_CJK_RUN.search(text))
