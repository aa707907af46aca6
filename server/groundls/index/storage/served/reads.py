"""The queries search makes of the served store, as the reader's role sees it.

Each method answers one of :class:`~groundls.index.storage.reads.StoreReads`'s questions for
the served rows; :class:`.store.ServedStore` merges the answers with the editor's own overlay.
Row-level security applies to every statement: a restricted row is never read, counted or
scored.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from groundls.index.storage.keyword_reads import _kinds_languages
from groundls.index.storage.reads import PART_STRIDE
from groundls.index.storage.served import keyword, schema
from groundls.index.storage.served.connection import StoreUnavailable, connect, describe, reason
from groundls.index.storage.served.meta import Manifest, read_manifest
from groundls.results import SearchFilters

log = logging.getLogger("groundls.index")

#: Seconds before a served store that stopped answering is asked again.
RETRY_S = 10.0
#: Below this many vectors a table is searched exactly (a scan costs less than a graph's
#: misses; BENCHMARKS.md).
EXACT_BELOW = 20_000
#: Seconds a reader trusts that the store was not published again.
SEQ_CHECK_S = 1.0
HIT_COLUMNS = (
    "id, chunk_id, path, start_line, end_line, kind, language, text_type, title, breadcrumb,"
    " text, place"
)


def scope_sql(scope: SearchFilters | None, prefix: str = "") -> tuple[str, list[Any]]:
    """`` AND kind = ANY(…) AND language = ANY(…)`` for the filters given, and its parameters."""
    sql, params = "", []
    for column, values in zip(("kind", "language"), _kinds_languages(scope), strict=True):
        if values:
            sql += f" AND {prefix}{column} = ANY(%s)"
            params.append(list(values))
    return sql, params


def prepare(conn: Any) -> None:
    """A reader's session: HNSW searches explore ``EF_SEARCH`` candidates, and go on past
    rows the reader may not see until they have ``k`` in exact order."""
    conn.execute(f"SET hnsw.ef_search = {schema.EF_SEARCH}")
    conn.execute("SET hnsw.iterative_scan = strict_order")


class ServedReads:
    """Reads of one served store: a connection per thread, totals kept per publish."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[Any] = []
        self._cached: tuple[int, dict[str, Any]] = (-1, {})
        self._seq_read_at = -SEQ_CHECK_S
        #: why the last read failed ("" while the server answers), and when to try again
        self.problem = ""
        self._retry_at = 0.0
        try:
            conn = self.conn
            schema.check(conn)
            manifest = read_manifest(conn)
        except StoreUnavailable:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - the driver's errors: no right to read, …
            self.close()
            raise StoreUnavailable(f"{describe(url)} cannot be read: {reason(exc)}") from None
        if manifest is None:
            self.close()
            raise StoreUnavailable("the store holds no published index")
        self.manifest: Manifest = manifest

    @property
    def conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            conn = connect(self.url)
            prepare(conn)
            self._local.conn = conn
            self._local.ef = schema.EF_SEARCH
            with self._lock:
                self._all.append(conn)
        return conn

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of one statement; none while the server does not answer (``problem`` says
        why, and the next try waits ``RETRY_S``), so searches go on from the overlay."""
        if self.problem and time.monotonic() < self._retry_at:
            return []
        try:
            cursor = self.conn.execute(sql, params or None)
            rows = cursor.fetchall() if cursor.description else []
        except Exception as exc:  # noqa: BLE001 - a server gone, a refused login, a lost role
            why = str(exc) if isinstance(exc, StoreUnavailable) else reason(exc)
            self.problem = f"the served store failed ({why}): results from this editor's files only"
            self._retry_at = time.monotonic() + RETRY_S
            log.warning("%s", self.problem)
            self._local.conn = None
            return []
        self.problem = ""
        return rows

    def one(self, sql: str, params: Sequence[Any] = (), default: Any = None) -> Any:
        """The first row of one statement, or ``default``."""
        rows = self.run(sql, params)
        return rows[0] if rows else default

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                with contextlib.suppress(Exception):  # closing at shutdown
                    conn.close()
            self._all.clear()

    def _per_publish(self) -> dict[str, Any]:
        """A cache emptied when the store is published again (looked at once a second)."""
        now = time.monotonic()
        if now - self._seq_read_at > SEQ_CHECK_S:
            row = self.one("SELECT value::json->>'seq' FROM groundls_meta WHERE key = 'manifest'")
            if row is None:
                return {}  # not kept while the server does not answer
            self._seq_read_at = now
            if self._cached[0] != int(row[0]):
                self._cached = (int(row[0]), {})
        return self._cached[1]

    # -- vectors -----------------------------------------------------------------------------

    def has_vectors(self, table: str) -> bool:
        cache = self._per_publish()
        key = f"has:{table}"
        if key not in cache:
            exists = self.one("SELECT to_regclass(%s)", (table,), (None,))[0] is not None
            cache[key] = exists and bool(self.run(f"SELECT 1 FROM {table} LIMIT 1"))
        return bool(cache[key])

    def nearest(
        self, space: str, vector: np.ndarray, k: int, scope: SearchFilters | None, *, parts: bool
    ) -> list[tuple[int, float]]:
        """(id, cosine distance) of the ``k`` nearest rows, nearest first."""
        table = schema.vector_table(space, parts)
        if not self.has_vectors(table):
            return []
        key = "part" if parts else "chunk"
        where, params = scope_sql(scope)
        text = "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"
        distance = f"embedding <=> %s::{schema.VECTOR_TYPE}"
        if self.vector_count(table) < EXACT_BELOW:
            # every vector compared, as the SQLite index does up to its graph's size
            sql = (
                f"SELECT * FROM (SELECT {key}, {distance} AS d FROM {table} WHERE true{where})"
                " v ORDER BY d + 0 LIMIT %s"
            )
        else:
            self._explore(k)
            sql = (
                f"SELECT {key}, {distance} AS d FROM {table} WHERE true{where} ORDER BY d LIMIT %s"
            )
        rows = self.run(sql, [text, *params, k])
        return [(int(r), float(d)) for r, d in rows]

    def _explore(self, k: int) -> None:
        """HNSW explores at least twice the neighbours a search asks for."""
        wanted = max(schema.EF_SEARCH, 2 * k)
        if getattr(self._local, "ef", None) != wanted:
            self.run(f"SET hnsw.ef_search = {int(wanted)}")
            self._local.ef = wanted

    def vector_count(self, table: str) -> int:
        cache = self._per_publish()
        if f"count:{table}" not in cache:
            cache[f"count:{table}"] = int(self.one(f"SELECT count(*) FROM {table}", (), (0,))[0])
        return int(cache[f"count:{table}"])

    def vector_of(self, space: str, rowid: int) -> bytes | None:
        table = schema.vector_table(space)
        if not self.has_vectors(table):
            return None
        rows = self.run(f"SELECT embedding::text FROM {table} WHERE chunk = %s", (rowid,))
        if not rows:
            return None
        return np.asarray(json.loads(rows[0][0]), dtype=np.float32).tobytes()

    # -- keywords ----------------------------------------------------------------------------

    def totals(self) -> keyword.Totals:
        cache = self._per_publish()
        if "totals" not in cache:
            sql = "SELECT count(*), coalesce(sum(tokens), 0) FROM chunks"
            rows, tokens = self.one(sql, (), (0, 0))
            cache["totals"] = keyword.Totals(int(rows), int(tokens))
        return cache["totals"]

    def documents(self, phrase: tuple[str, ...]) -> int:
        """How many chunks the reader sees hold a phrase."""
        cache = self._per_publish()
        key = "docs:" + "\x1f".join(phrase)
        if key not in cache:
            sql = "SELECT count(*) FROM chunks WHERE terms @@ %s::tsquery"
            found = self.one(sql, (keyword.tsquery([phrase]),), (0,))
            cache[key] = int(found[0])
        return int(cache[key])

    def keyword(
        self, expression: str, k: int, scope: SearchFilters | None, skip: frozenset[int]
    ) -> list[tuple[int, float]]:
        """(chunk, BM25 score, higher better) of the ``k`` best matches, as FTS5 scores them."""
        phrase_list = keyword.phrases(expression)
        if not phrase_list:
            return []
        where, params = scope_sql(scope, "c.")
        wanted = sorted({t for p in phrase_list for t in p})
        rows = self.run(
            "SELECT c.id, c.tokens, u.lexeme, u.positions, u.weights FROM chunks c"
            " CROSS JOIN LATERAL unnest(c.terms) u"
            f" WHERE c.terms @@ %s::tsquery AND u.lexeme = ANY(%s){where}",
            [keyword.tsquery(phrase_list), wanted, *params],
        )
        chunks: dict[int, tuple[int, dict[str, dict[int, bool]]]] = {}
        for rowid, length, lexeme, positions, weights in rows:
            if rowid in skip:
                continue
            entry = chunks.setdefault(int(rowid), (int(length), {}))
            entry[1][lexeme] = keyword.parse_places(positions or [], weights or [])
        if not chunks:
            return []
        totals = self.totals()
        documents = [self.documents(p) for p in phrase_list]
        scored = [
            (rowid, keyword.bm25(phrase_list, documents, totals, length, places))
            for rowid, (length, places) in chunks.items()
        ]
        scored = [hit for hit in scored if hit[1] > 0]
        return sorted(scored, key=lambda hit: (-hit[1], hit[0]))[:k]

    def term_present(self, expression: str) -> bool:
        return any(self.documents(p) for p in keyword.phrases(expression))

    # -- chunks and files --------------------------------------------------------------------

    def rows_in(
        self, columns: str, rowids: Sequence[int], extra: str = "", *params: Any
    ) -> list[Any]:
        ids = [int(r) for r in rowids if 0 < int(r) < PART_STRIDE << 40]
        if not ids:
            return []
        return self.run(f"SELECT {columns} FROM chunks WHERE id = ANY(%s){extra}", [ids, *params])

    def shadowed(self, paths: Sequence[str]) -> frozenset[int]:
        if not paths:
            return frozenset()
        rows = self.run("SELECT id FROM chunks WHERE path = ANY(%s)", (list(paths),))
        return frozenset(int(r[0]) for r in rows)

    def files(self) -> list[tuple[str, str, int, int]]:
        return self.run("SELECT path, checksum, size, mtime_ns FROM files")

    def definitions(
        self, names: Sequence[str], k: int, scope: SearchFilters | None, members: str
    ) -> list[tuple[int, str, int, int, bool, str]]:
        """(chunk, name, binding, size, extension, path) of the chunks that define a name."""
        where, params = scope_sql(scope, "c.")
        lower = [n.lower() for n in names]
        rows = self.run(
            "SELECT * FROM (SELECT c.id, c.symbol AS name, 0 AS binding, length(c.text) AS size,"
            " c.text_type = 'extension' AS extension, c.path FROM chunks c"
            f" WHERE lower(c.symbol) = ANY(%s) AND c.text_type != %s{where}"
            " UNION ALL SELECT c.id, n.name, 1, length(c.text), false, c.path"
            f" FROM chunk_names n JOIN chunks c ON c.id = n.chunk WHERE lower(n.name) = ANY(%s)"
            f"{where}) d ORDER BY name = ANY(%s) DESC, binding, extension, size DESC LIMIT %s",
            [lower, members, *params, lower, *params, list(names), k],
        )
        return [(int(a), str(b), int(c), int(d), bool(e), str(f)) for a, b, c, d, e, f in rows]
