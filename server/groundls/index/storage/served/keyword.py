"""Keyword search inside PostgreSQL, scored as the SQLite index's FTS5 scores it.

A chunk's terms are the tokens FTS5 holds for it (groundls's identifier parts and CJK bigrams
through ``unicode61``), kept as a ``tsvector``: head tokens at positions 1.. with weight A, body
tokens after a gap with weight D, so a phrase never spans the two. A question's quoted terms
are tokenized by the same FTS5 tokenizer, matched with a ``tsquery`` (the GIN index finds the
rows), and scored with FTS5's BM25: each phrase's inverse document frequency over the chunks
the reader may see, its frequency weighted by column, and the chunk's length.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import sqlean

from groundls.index.storage.keyword_reads import HEAD_WEIGHT
from groundls.index.storage.terms import bm25_idf

#: FTS5's BM25 constants.
K1 = 1.2
B = 0.75
#: PostgreSQL keeps at most 256 positions of a lexeme, each at most 16383.
MAX_POSITIONS = 256
MAX_POSITION = 16383

ITEM = re.compile(r'"((?:[^"]|"")*)"')
_local = threading.local()


def tsvector(head: Sequence[tuple[int, str]], body: Sequence[tuple[int, str]]) -> tuple[int, str]:
    """(token count, ``tsvector`` text) of a chunk's (offset, term) tokens in each column."""
    positions: dict[str, list[str]] = {}
    gap = len(head) + 2
    for column, tokens, first in ((0, head, 1), (1, body, gap)):
        for offset, term in tokens:
            place = min(first + offset, MAX_POSITION)
            positions.setdefault(term, []).append(f"{place}A" if column == 0 else str(place))
    lexemes = [
        f"{_quote(term)}:{','.join(places[:MAX_POSITIONS])}" for term, places in positions.items()
    ]
    return len(head) + len(body), " ".join(lexemes)


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


@functools.lru_cache(maxsize=1 << 14)
def tokens(item: str) -> tuple[str, ...]:
    """The tokens FTS5's tokenizer makes of one quoted item (several make a phrase)."""
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = sqlean.connect(":memory:")
        conn.execute(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2')"
        )
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    conn.execute("DELETE FROM t")
    conn.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (item,))
    rows = conn.execute("SELECT term FROM v ORDER BY offset").fetchall()
    return tuple(r[0] for r in rows)


def phrases(expression: str) -> list[tuple[str, ...]]:
    """The phrases of an OR of quoted items, as FTS5 reads them (empty ones dropped)."""
    found = [tokens(item.replace('""', '"')) for item in ITEM.findall(expression)]
    return list(dict.fromkeys(p for p in found if p))


def tsquery(phrase_list: Sequence[tuple[str, ...]]) -> str:
    """A ``tsquery`` that any of the phrases matches."""
    return " | ".join("(" + " <-> ".join(map(_quote, p)) + ")" for p in phrase_list)


@dataclass(frozen=True)
class Totals:
    """What BM25 reads of the whole index: the chunks a reader sees and their tokens."""

    rows: int
    tokens: int

    @property
    def average(self) -> float:
        return self.tokens / self.rows if self.rows else 1.0


def frequency(phrase: tuple[str, ...], places: dict[str, dict[int, bool]]) -> float:
    """A phrase's frequency in one chunk, each occurrence weighted by its column.

    ``places``: each token's positions in the chunk -> whether the position is in the head."""
    first = places.get(phrase[0])
    if not first:
        return 0.0
    rest = [places.get(t) or {} for t in phrase[1:]]
    total = 0.0
    for position, in_head in first.items():
        if all(position + i + 1 in later for i, later in enumerate(rest)):
            total += HEAD_WEIGHT if in_head else 1.0
    return total


def bm25(
    phrase_list: Sequence[tuple[str, ...]],
    documents: Sequence[int],
    totals: Totals,
    length: int,
    places: dict[str, dict[int, bool]],
) -> float:
    """FTS5's BM25 of one chunk (higher better): ``documents`` holds each phrase's document
    count, ``length`` the chunk's tokens."""
    score = 0.0
    norm = K1 * (1 - B + B * length / totals.average)
    for phrase, hits in zip(phrase_list, documents, strict=True):
        f = frequency(phrase, places)
        if f:
            score += bm25_idf(totals.rows, hits) * f * (K1 + 1) / (f + norm)
    return score


def parse_places(positions: Sequence[int], weights: Sequence[str]) -> dict[int, bool]:
    return {int(p): w == "A" for p, w in zip(positions, weights, strict=True)}
