"""A workspace index over a served store: the editor's own SQLite overlay above PostgreSQL.

As with a shared base file (:mod:`groundls.index.storage.layered`), the overlay holds only the
files whose content differs from the served index, new files, and a record of the served files
deleted here; an overlaid path shadows the served version of it. Reads ask both and merge; the
overlay's keyword scores are put on the served index's scale. Vectors stay on the server.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from groundls.chunkers import MEMBERS
from groundls.index.storage.layered import OVERLAY_FIRST
from groundls.index.storage.overlay import OVERLAID_PATHS, OverlayWrites
from groundls.index.storage.reads import (
    _row_to_hit,
    chunks_of_parts,
    definition_order,
    first_definitions,
)
from groundls.index.storage.served.keyword import ITEM, phrases
from groundls.index.storage.served.reads import HIT_COLUMNS, ServedReads
from groundls.index.storage.terms import bm25_idf
from groundls.results import Hit, SearchFilters


def _served(rowid: int) -> bool:
    return rowid < OVERLAY_FIRST


class ServedStore(OverlayWrites):
    """The workspace's index as an overlay over a served store that is only read."""

    FIRST_ID = OVERLAY_FIRST

    def __init__(self, path: Path, served: ServedReads) -> None:
        self.served = served
        self._shadow: tuple[int, frozenset[int]] = (-1, frozenset())
        super().__init__(path)
        self._create_overlay_tables()

    def close(self) -> None:
        super().close()
        self.served.close()

    @property
    def problem(self) -> str:
        return self.served.problem

    # -- what the overlay hides ------------------------------------------------------------

    def _overlaid_paths(self) -> list[str]:
        return [r[0] for r in self.conn.execute(OVERLAID_PATHS).fetchall()]

    def _in_base(self, path: str) -> bool:
        return bool(self.served.run("SELECT 1 FROM files WHERE path = %s", (path,)))

    def _shadowed(self) -> frozenset[int]:
        seq = int(self.get_meta("write_seq") or 0)
        if self._shadow[0] != seq:
            self._shadow = (seq, self.served.shadowed(self._overlaid_paths()))
        return self._shadow[1]

    # -- vectors -----------------------------------------------------------------------------

    def has_chunks_in(self, space: str, schema: str = "main") -> bool:
        table = space.removesuffix("_parts")
        parts = space.endswith("_parts")
        return super().has_chunks_in(space) or self.served.has_vectors(
            f"vec_{table}_parts" if parts else f"vec_{table}"
        )

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
        found = super().knn(space, vector, k, scope, by_sentence=by_sentence)
        shadowed = self._shadowed()
        deeper = k + min(len(shadowed), 4 * k)
        if by_sentence:
            nearest = self.served.nearest(space, vector, deeper * 4, scope, parts=True)
            served = chunks_of_parts(nearest, deeper * 4)
        else:
            served = self.served.nearest(space, vector, deeper, scope, parts=False)
        found += [hit for hit in served if hit[0] not in shadowed]
        return sorted(found, key=lambda hit: hit[1])[:k]

    def chunk_vectors(self, rowid: int) -> dict[str, np.ndarray]:
        if not _served(rowid):
            return super().chunk_vectors(rowid)
        rows = self.served.rows_in("id, space", [rowid])
        out: dict[str, np.ndarray] = {}
        for space in filter(None, rows[0][1].split(",")) if rows else []:
            blob = self.served.vector_of(space, rowid)
            if blob is not None:
                out[space] = np.frombuffer(blob, dtype=np.float32)
        return out

    # -- keywords ----------------------------------------------------------------------------

    def keyword(
        self,
        expression: str,
        k: int,
        scope: SearchFilters | None = None,
        schema: str = "main",
    ) -> list[tuple[int, float]]:
        found = self.served.keyword(expression, k, scope, self._shadowed())
        found += self._overlay_keyword(expression, k, scope)
        return sorted(found, key=lambda hit: -hit[1])[:k]

    def _overlay_keyword(
        self, expression: str, k: int, scope: SearchFilters | None
    ) -> list[tuple[int, float]]:
        """The overlay's matches, each term weighed by the served index's document counts."""
        own_total = super()._chunk_total()
        if not own_total:
            return []
        served = self.served.totals().rows
        scores: dict[int, float] = {}
        for quoted in ITEM.findall(expression):
            item = f'"{quoted}"'
            hits = super().keyword(item, max(k, 1) * 4, scope)
            if not hits:
                continue
            phrase = phrases(item)
            theirs = self.served.documents(phrase[0]) if phrase else 0
            ours = super()._term_documents(quoted.replace('""', '"'))
            scale = bm25_idf(served + own_total, theirs + ours) / bm25_idf(own_total, ours)
            for rowid, score in hits:
                scores[rowid] = scores.get(rowid, 0.0) + score * scale
        return list(scores.items())

    def _term_documents(self, term: str) -> int:
        found = phrases('"' + term.replace('"', '""') + '"')
        return super()._term_documents(term) + (self.served.documents(found[0]) if found else 0)

    def _chunk_total(self) -> int:
        return super()._chunk_total() + self.served.totals().rows

    def terms_present(self, expressions: Sequence[str]) -> int:
        return sum(self._term_present(e) or self.served.term_present(e) for e in expressions)

    # -- chunks and files --------------------------------------------------------------------

    def hits_by_rowid(self, rowids: Sequence[int]) -> dict[int, Hit]:
        out = super().hits_by_rowid([r for r in rowids if not _served(r)])
        rows = self.served.rows_in(HIT_COLUMNS, [r for r in rowids if _served(r)])
        out.update({int(row[0]): _row_to_hit(row) for row in rows})
        return out

    def paths_by_rowid(self, rowids: Sequence[int]) -> dict[int, str]:
        out = super().paths_by_rowid([r for r in rowids if not _served(r)])
        rows = self.served.rows_in("id, path", [r for r in rowids if _served(r)])
        out.update({int(r): str(p) for r, p in rows})
        return out

    def symbols_by_rowid(self, rowids: Sequence[int]) -> dict[int, str]:
        out = super().symbols_by_rowid([r for r in rowids if not _served(r)])
        rows = self.served.rows_in("id, symbol", [r for r in rowids if _served(r)])
        out.update({int(r): str(s) for r, s in rows})
        return out

    def chunk_kinds(self, rowids: Sequence[int]) -> dict[int, tuple[str, str]]:
        out = super().chunk_kinds([r for r in rowids if not _served(r)])
        rows = self.served.rows_in("id, kind, left(text, 400)", [r for r in rowids if _served(r)])
        out.update({int(r): (str(kind), str(text)) for r, kind, text in rows})
        return out

    def rowids_only_in(self, space: str, rowids: Sequence[int]) -> set[int]:
        out = super().rowids_only_in(space, [r for r in rowids if not _served(r)])
        served = [r for r in rowids if _served(r)]
        out |= {int(r[0]) for r in self.served.rows_in("id", served, " AND space = %s", space)}
        return out

    def rowids_in(self, space: str, rowids: Sequence[int]) -> set[int]:
        out = super().rowids_in(space, [r for r in rowids if not _served(r)])
        served = [r for r in rowids if _served(r)]
        pattern = f"%,{space},%"
        extra = " AND ',' || space || ',' LIKE %s"
        out |= {int(r[0]) for r in self.served.rows_in("id", served, extra, pattern)}
        return out

    def chunk_texts(self, kinds: Sequence[str] = ("code", "doc")) -> list[tuple[int, str]]:
        rows = self.served.run(
            "SELECT id, text FROM chunks WHERE kind = ANY(%s) ORDER BY id", (list(kinds),)
        )
        shadowed = self._shadowed()
        served = [(int(r), str(t)) for r, t in rows if r not in shadowed]
        return served + super().chunk_texts(kinds)

    def file_paths(self) -> list[str]:
        return list(self.file_checksums())

    def file_checksums(self) -> dict[str, str]:
        overlaid = set(self._overlaid_paths())
        out = {p: c for p, c, _, _ in self.served.files() if p not in overlaid}
        out.update(super().file_checksums())
        return out

    def file_stats(self) -> dict[str, tuple[int, int]]:
        overlaid = set(self._overlaid_paths())
        local = dict(
            (
                (p, (s, m))
                for p, s, m in self.conn.execute("SELECT path, size, mtime_ns FROM base_stats")
            )
        )
        out = {p: local.get(p, (s, m)) for p, _, s, m in self.served.files() if p not in overlaid}
        out.update(super().file_stats())
        return out

    def file_checksum(self, path: str) -> str | None:
        if self._is_overlaid(path):
            return super().file_checksum(path)
        row = self.served.one("SELECT checksum FROM files WHERE path = %s", (path,))
        return None if row is None else str(row[0])

    def holds_code(self, schema: str = "main") -> bool:
        return super().holds_code() or bool(
            self.served.run("SELECT 1 FROM files WHERE kind = 'code' LIMIT 1")
        )

    def definitions(
        self, names: Sequence[str], k: int, scope: SearchFilters | None = None
    ) -> list[tuple[int, str]]:
        if not names:
            return []
        overlaid = set(self._overlaid_paths())
        served = self.served.definitions(names, k, scope, MEMBERS)
        rows = [row[:5] for row in served if row[5] not in overlaid]
        rows += self._definition_rows(names, k, scope)
        return first_definitions(sorted(rows, key=definition_order(names))[:k])

    def section_span(self, path: str, breadcrumb: Sequence[str]) -> tuple[int, int]:
        if self._is_overlaid(path):
            return super().section_span(path, breadcrumb)
        row = self.served.one(
            "SELECT min(start_line), max(end_line) FROM chunks WHERE path = %s AND breadcrumb = %s",
            (path, json.dumps(list(breadcrumb), ensure_ascii=False)),
            (0, 0),
        )
        return (row[0] or 0, row[1] or 0)

    def chunk_rowid(self, chunk_id: str) -> int | None:
        hit = self._served_hit("chunk_id = %s", (chunk_id,))
        return super().chunk_rowid(chunk_id) if hit is None else hit[0]

    def get_hit(self, chunk_id: str) -> Hit | None:
        own = super().get_hit(chunk_id)
        if own is not None:
            return own
        found = self._served_hit("chunk_id = %s", (chunk_id,))
        return None if found is None else found[1]

    def chunk_at(self, path: str, line: int) -> Hit | None:
        if self._is_overlaid(path):
            return super().chunk_at(path, line)
        found = self._served_hit(
            "path = %s AND start_line <= %s AND end_line >= %s ORDER BY end_line - start_line",
            (path, line, line),
        )
        return None if found is None else found[1]

    def _served_hit(self, where: str, params: Sequence[Any]) -> tuple[int, Hit] | None:
        rows = self.served.run(f"SELECT {HIT_COLUMNS} FROM chunks WHERE {where} LIMIT 1", params)
        if not rows or rows[0][0] in self._shadowed():
            return None
        return int(rows[0][0]), _row_to_hit(rows[0])

    def chunk_spans(self) -> list[tuple[str, int, int]]:
        overlaid = set(self._overlaid_paths())
        rows = self.served.run("SELECT path, start_line, end_line FROM chunks")
        return [tuple(r) for r in rows if r[0] not in overlaid] + super().chunk_spans()

    def stored_vector(self, space: str, content_hash: str, schema: str = "main") -> bytes | None:
        return super().stored_vector(space, content_hash)

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        totals = self.served.totals()
        overlaid = set(self._overlaid_paths())
        files = sum(1 for row in self.served.files() if row[0] not in overlaid)
        out["served"] = {"chunks": totals.rows, "files": files}
        out["chunks"] += totals.rows - len(self._shadowed())
        out["files"] += files
        return out
