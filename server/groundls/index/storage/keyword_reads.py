"""Reading the keyword index: BM25 matches under the search's filters, which terms occur at all, and how rare a term is."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from groundls.index.storage.terms import bm25_idf, match_expression
from groundls.results import SearchFilters

log = logging.getLogger("groundls.index")

#: BM25 weight of the head column (path, title, symbol, breadcrumb) against the body.
HEAD_WEIGHT = 3.0


def _kinds_languages(
    scope: SearchFilters | None,
) -> tuple[Sequence[str] | None, Sequence[str] | None]:
    if scope is None:
        return None, None
    return scope.kinds or None, scope.languages or None


def scope_sql(scope: SearchFilters | None, prefix: str = "") -> tuple[str, list[Any]]:
    """`` AND kind IN (...) AND language IN (...)`` for the filters given, and its parameters."""
    sql, params = "", []
    for column, values in zip(("kind", "language"), _kinds_languages(scope), strict=True):
        if values:
            sql += f" AND {prefix}{column} IN ({','.join('?' * len(values))})"
            params.extend(values)
    return sql, params


class KeywordReads:
    """Reading the keyword index: BM25 matches under the search's filters, which terms occur at all, and how rare a term is."""

    def keyword(
        self,
        expression: str,
        k: int,
        scope: SearchFilters | None = None,
        schema: str = "main",
    ) -> list[tuple[int, float]]:
        """(chunk rowid, BM25 score, higher better) of the ``k`` best matches of an FTS5
        ``expression`` in ``schema``'s keyword table."""
        sql = (
            f"SELECT chunks_fts.rowid, bm25(chunks_fts, {HEAD_WEIGHT}, 1.0) AS s"
            f" FROM {schema}.chunks_fts JOIN {schema}.chunks c ON c.id = chunks_fts.rowid"
            " WHERE chunks_fts MATCH ?"
        )
        where, filter_params = scope_sql(scope, "c.")
        sql += f"{where} ORDER BY s LIMIT ?"
        params: list[Any] = [expression, *filter_params, k]
        return [(int(r), -float(s)) for r, s in self.conn.execute(sql, params).fetchall()]

    def terms_present(self, expressions: Sequence[str]) -> int:
        """How many of the (one-term) MATCH expressions occur anywhere in the workspace."""
        return sum(self._term_present(e) for e in expressions)

    def term_rarity(self, terms: Iterable[str]) -> dict[str, float]:
        """Each keyword term's inverse document frequency over the workspace's chunks, as BM25
        weighs it: a term most chunks hold says little (パッケージ in a packaging manual), one
        that no chunk holds the most. Kept until the index changes."""
        seq = self.get_meta("write_seq") or ""
        if self._rarity[0] != seq:
            self._rarity = (seq, {})
        known = self._rarity[1]
        wanted = [t for t in dict.fromkeys(terms) if t not in known]
        if wanted:
            total = self._chunk_total()
            for term in wanted:
                known[term] = bm25_idf(total, self._term_documents(term))
        return {t: known[t] for t in terms}

    def _term_documents(self, term: str) -> int:
        """How many chunks hold the keyword term ``term``."""
        sql = "SELECT count(*) FROM main.chunks_fts WHERE chunks_fts MATCH ?"
        return int(self.conn.execute(sql, (match_expression([term]),)).fetchone()[0])

    def _chunk_total(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM main.chunks").fetchone()[0])

    def _term_present(self, expression: str, schema: str = "main") -> bool:
        sql = f"SELECT 1 FROM {schema}.chunks_fts WHERE chunks_fts MATCH ? LIMIT 1"
        return self.conn.execute(sql, (expression,)).fetchone() is not None
