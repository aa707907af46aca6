"""A workspace index over a shared base index that is read in place.

The base (``groundls index --export``) is attached read-only to every connection as the
``base`` schema; the workspace's own index file holds only the overlay: the files whose content
differs from the base, new files, a record of the base's files that were deleted, and the deep
vectors that this machine added to the base's chunks. The overlay numbers its chunks from
``OVERLAY_FIRST`` on, so a chunk's id says which file holds it.

An overlaid path shadows the base's version of it: the views that reads see (``CHUNKS``,
``FILES``, ``NAMES``) leave the base's chunks of such paths out, and the keyword and vector
lists of the base are searched a little deeper and filtered. Keyword scores of the overlay are
put on the base's scale (its BM25 weight of each term comes from the base's document counts),
so an edited file ranks as it would in one index of the whole workspace.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from groundls.index.storage import fts_totals
from groundls.index.storage.base import BaseRefused
from groundls.index.storage.keyword_reads import HEAD_WEIGHT, scope_sql
from groundls.index.storage.overlay import OVERLAID_PATHS, OverlayWrites
from groundls.index.storage.reads import log
from groundls.index.storage.terms import bm25_idf
from groundls.index.storage.vector_copies import VectorCopies
from groundls.index.storage.vector_writes import DEEP_ROW
from groundls.results import SearchFilters

#: The overlay's first chunk id: far above any base's, far below the sentence-vector ids'
#: limit (``chunk * PART_STRIDE`` stays within SQLite's 64-bit ids).
OVERLAY_FIRST = 1 << 40
#: How many shadowed base chunks a keyword or vector list reads past ``k`` at most.
SHADOW_DEPTH = 4

_CHUNK_COLUMNS = (
    "id, chunk_id, file_id, path, ord, start_line, end_line, language, kind, text_type, title,"
    " breadcrumb, symbol, signature, text, content_hash"
)
_ITEM = re.compile(r'"((?:[^"]|"")*)"')


class LayeredStore(OverlayWrites):
    """The workspace's index as an overlay over a base index file that is only read."""

    CHUNKS = "temp.layered_chunks"
    FILES = "temp.layered_files"
    NAMES = "temp.layered_names"
    FIRST_ID = OVERLAY_FIRST

    def __init__(self, path: Path, base: Path) -> None:
        self.base_path = base
        self._base_copies = VectorCopies()
        self._shadow: tuple[int, frozenset[int]] = (-1, frozenset())
        #: how many base chunks hold a word (the base never changes)
        self._base_hits_of: dict[str, int] = {}
        super().__init__(path)
        conn = self.conn
        self._create_overlay_tables()
        # the spaces this machine embedded a base chunk in
        conn.execute(
            "CREATE TABLE IF NOT EXISTS base_spaces (chunk INTEGER PRIMARY KEY, space TEXT NOT NULL)"
        )
        self._base_total = int(conn.execute("SELECT count(*) FROM base.chunks").fetchone()[0])
        #: the base's keyword totals count other chunks than it holds (see ``fts_totals``): it
        #: was exported from an index updated in place before they were kept true
        self.base_totals_stale = fts_totals.stale(conn, "base")
        if self.base_totals_stale:
            log.warning("base %s: its keyword statistics are out of date", base.name)

    def _on_connect(self, conn: Any) -> None:
        try:
            conn.execute(
                "ATTACH DATABASE ? AS base", (f"{self.base_path.resolve().as_uri()}?mode=ro",)
            )
            conn.execute("SELECT 1 FROM base.chunks LIMIT 1")
        except Exception as exc:  # noqa: BLE001 - gone, unreadable or not an index
            conn.close()
            why = str(exc).split(":")[0]  # SQLite's reason without the file's full path
            raise BaseRefused(f"base index {self.base_path.name} cannot be read: {why}") from None
        # a base made before documents were read has no places
        base_columns = {row[1] for row in conn.execute("PRAGMA base.table_info(chunks)")}
        base_place = "c.place" if "place" in base_columns else "''"
        conn.execute(
            f"CREATE TEMP VIEW layered_chunks AS SELECT {_CHUNK_COLUMNS}, space, parts, place"
            " FROM main.chunks UNION ALL"
            f" SELECT {', '.join('c.' + c.strip() for c in _CHUNK_COLUMNS.split(','))},"
            f" trim(c.space || ',' || coalesce(s.space, ''), ','), c.parts, {base_place}"
            " FROM base.chunks c LEFT JOIN main.base_spaces s ON s.chunk = c.id"
            f" WHERE c.path NOT IN ({OVERLAID_PATHS})"
        )
        conn.execute(
            "CREATE TEMP VIEW layered_files AS"
            " SELECT path, checksum, size, mtime_ns, language, kind FROM main.files UNION ALL"
            " SELECT f.path, f.checksum, coalesce(t.size, f.size), coalesce(t.mtime_ns,"
            " f.mtime_ns), f.language, f.kind FROM base.files f"
            " LEFT JOIN main.base_stats t ON t.path = f.path"
            f" WHERE f.path NOT IN ({OVERLAID_PATHS})"
        )
        # a name's chunk is always joined with the chunks above, which drop the shadowed ones
        conn.execute(
            "CREATE TEMP VIEW layered_names AS SELECT chunk, name FROM main.chunk_names"
            " UNION ALL SELECT chunk, name FROM base.chunk_names"
        )
        conn.execute(
            "CREATE VIRTUAL TABLE temp.base_terms USING fts5vocab(base, chunks_fts, 'row')"
        )

    def _copies_of(self, schema: str) -> VectorCopies:
        return self._base_copies if schema == "base" else self._copies

    # -- what the overlay hides ----------------------------------------------------------------

    def _shadowed(self) -> frozenset[int]:
        """The base's chunks of the paths the overlay holds or deleted."""
        seq = int(self.get_meta("write_seq") or 0)
        if self._shadow[0] != seq:
            rows = self.conn.execute(
                f"SELECT id FROM base.chunks WHERE path IN ({OVERLAID_PATHS})"
            ).fetchall()
            self._shadow = (seq, frozenset(r[0] for r in rows))
        return self._shadow[1]

    def _in_base(self, path: str) -> bool:
        sql = "SELECT 1 FROM base.files WHERE path = ?"
        return self.conn.execute(sql, (path,)).fetchone() is not None

    # -- reads -------------------------------------------------------------------------------

    def warm(self, space: str) -> None:
        super().warm(space)
        self._matrix(space, "base")

    def has_chunks_in(self, space: str, schema: str = "main") -> bool:
        return super().has_chunks_in(space, "main") or super().has_chunks_in(space, "base")

    def holds_code(self, schema: str = "main") -> bool:
        return super().holds_code("main") or super().holds_code("base")

    def knn(
        self,
        space: str,
        vector: np.ndarray,
        k: int,
        scope: SearchFilters | None = None,
        *,
        by_sentence: bool = False,
        schema: str = "main",
    ) -> list[tuple[int, float]]:
        shadowed = self._shadowed()
        deeper = k + min(len(shadowed), SHADOW_DEPTH * k)
        table = f"{space}_parts" if by_sentence else space
        found: list[tuple[int, float]] = []
        for layer in ("main", "base"):
            if not super().has_chunks_in(table, layer):
                continue
            nearest = super().knn(
                space, vector, deeper, scope, by_sentence=by_sentence, schema=layer
            )
            found += [hit for hit in nearest if hit[0] not in shadowed]
        return sorted(found, key=lambda hit: hit[1])[:k]

    def keyword(
        self,
        expression: str,
        k: int,
        scope: SearchFilters | None = None,
        schema: str = "main",
    ) -> list[tuple[int, float]]:
        shadowed = self._shadowed()
        deeper = k + min(len(shadowed), SHADOW_DEPTH * k)
        found = [
            hit
            for hit in super().keyword(expression, deeper, scope, "base")
            if hit[0] not in shadowed
        ]
        found += self._overlay_keyword(expression, scope).items()
        return sorted(found, key=lambda hit: -hit[1])[:k]

    def _overlay_keyword(self, expression: str, scope: SearchFilters | None) -> dict[int, float]:
        """The overlay's matches of an OR of quoted terms, scored as the base would score them:
        each term's BM25 part, weighed by the base's inverse document frequency instead of the
        overlay's own (a term in one of three overlay files is not a rare term)."""
        overlay_total = super()._chunk_total()
        if not overlay_total:
            return {}
        where, params = scope_sql(scope, "c.")
        scores: dict[int, float] = {}
        for item in _ITEM.findall(expression):
            term = f'"{item}"'
            rows = self.conn.execute(
                f"SELECT chunks_fts.rowid, bm25(chunks_fts, {HEAD_WEIGHT}, 1.0)"
                " FROM main.chunks_fts JOIN main.chunks c ON c.id = chunks_fts.rowid"
                f" WHERE chunks_fts MATCH ?{where}",
                [term, *params],
            ).fetchall()
            if not rows:
                continue
            word = item.replace('""', '"')
            overlay_hits = super()._term_documents(word)  # the overlay's own, without the base's
            scale = bm25_idf(self._base_total, self._base_hits(word)) / bm25_idf(
                overlay_total, overlay_hits
            )
            for rowid, score in rows:
                scores[rowid] = scores.get(rowid, 0.0) - score * scale
        return scores

    def _base_hits(self, item: str) -> int:
        """How many of the base's chunks hold a term (a phrase: its rarest word, at most)."""
        counts = []
        for word in item.lower().split():
            if word not in self._base_hits_of:
                row = self.conn.execute(
                    "SELECT doc FROM temp.base_terms WHERE term = ?", (word,)
                ).fetchone()
                self._base_hits_of[word] = int(row[0]) if row else 0
            counts.append(self._base_hits_of[word])
        return min(counts, default=0)

    def _term_documents(self, term: str) -> int:
        return super()._term_documents(term) + self._base_hits(term)

    def _chunk_total(self) -> int:
        return super()._chunk_total() + self._base_total

    def terms_present(self, expressions: Sequence[str]) -> int:
        return sum(
            self._term_present(e, "main") or self._term_present(e, "base") for e in expressions
        )

    def _vector_of(self, space: str, rowid: int, schema: str = "main") -> bytes | None:
        found = super()._vector_of(space, rowid)  # the overlay's own, or one it added
        if found is None and rowid < OVERLAY_FIRST:
            found = super()._vector_of(space, rowid, "base")
        return found

    def stored_vector(self, space: str, content_hash: str, schema: str = "main") -> bytes | None:
        found = super().stored_vector(space, content_hash)
        return found if found is not None else super().stored_vector(space, content_hash, "base")

    def stored_parts(
        self, space: str, content_hash: str, schema: str = "main"
    ) -> list[bytes] | None:
        found = super().stored_parts(space, content_hash)
        return found if found is not None else super().stored_parts(space, content_hash, "base")

    def chunks_without(
        self, space: str, after: int = 0, limit: int = 500
    ) -> list[tuple[int, str, str, str, str, str]]:
        """As :meth:`Store.chunks_without`: the base's chunks first, then the overlay's, each
        read in its own id order (the merged view would sort both on every call)."""
        rows: list[tuple[int, str, str, str, str, str]] = []
        if after < OVERLAY_FIRST:
            rows = self.conn.execute(
                f"SELECT {DEEP_ROW} FROM (SELECT * FROM base.chunks) c"
                " LEFT JOIN main.base_spaces s ON s.chunk = c.id WHERE c.id > ?"
                " AND ',' || c.space || ',' || coalesce(s.space, '') || ',' NOT LIKE ?"
                f" AND c.path NOT IN ({OVERLAID_PATHS}) ORDER BY c.id LIMIT ?",
                (after, f"%,{space},%", limit),
            ).fetchall()
        if len(rows) < limit:
            rows += self.conn.execute(
                f"SELECT {DEEP_ROW} FROM main.chunks"
                " WHERE id > ? AND ',' || space || ',' NOT LIKE ? ORDER BY id LIMIT ?",
                (after, f"%,{space},%", limit - len(rows)),
            ).fetchall()
        return rows

    # -- writes: to the overlay (``OverlayWrites``) -------------------------------------------

    def _record_space(self, rowid: int, spaces: str, space: str) -> None:
        """A base chunk's new space is noted in the overlay (the base is only read)."""
        if rowid >= OVERLAY_FIRST:
            super()._record_space(rowid, spaces, space)
            return
        self.conn.execute(
            "INSERT INTO main.base_spaces(chunk, space) VALUES (?, ?) ON CONFLICT(chunk)"
            " DO UPDATE SET space = space || ',' || excluded.space",
            (rowid, space),
        )
