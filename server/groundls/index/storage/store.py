"""The index store: files, chunks, FTS5 terms and sqlite-vec vectors in one SQLite file.

Every file is written in one transaction, so an interrupted run leaves a consistent index.
Vectors live in one ``vec0`` table per embedding space, keyed on the chunk's integer id; the
model that made them is recorded in ``meta`` and a model change drops that space's vectors.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlean

from groundls.chunkers import Chunk
from groundls.index.storage import fts_totals
from groundls.index.storage.ann import AnnCopy
from groundls.index.storage.db import migrate, transaction
from groundls.index.storage.document_rows import DocumentRows
from groundls.index.storage.history import History
from groundls.index.storage.reads import PART_STRIDE, StoreReads, log
from groundls.index.storage.stats import index_stats
from groundls.index.storage.terms import index_terms
from groundls.index.storage.vector_writes import VectorWrites


@dataclass(frozen=True)
class FileRecord:
    path: str
    checksum: str
    size: int
    mtime_ns: int
    language: str
    kind: str


# what a chunk's row says about it besides its text; a newer chunker may say it differently
_FACTS = "kind, text_type, title, breadcrumb, symbol, signature"
_NAMES = (
    "(SELECT group_concat(name, char(31) ORDER BY name) FROM chunk_names WHERE chunk = chunks.id)"
)


def _facts(chunk: Chunk) -> tuple[str, ...]:
    breadcrumb = json.dumps(list(chunk.breadcrumb), ensure_ascii=False)
    return (chunk.kind, chunk.text_type, chunk.title, breadcrumb, chunk.symbol, chunk.signature)


def _names(chunk: Chunk) -> str | None:
    return "\x1f".join(sorted(chunk.names)) or None


class Store(DocumentRows, VectorWrites, StoreReads):
    """Thread-safe access to one index file (a connection per thread, WAL mode): the writes here,
    the reads in :class:`~groundls.index.storage.reads.StoreReads`."""

    #: the id the first chunk gets (a store over a base numbers its own chunks after the base's)
    FIRST_ID = 1

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        super().__init__(path)
        self.history = History(lambda: self.conn)
        migrate(self.conn)
        fts_totals.repair(self.conn)
        #: the keyword totals could not be brought up to date after a write (see ``_write``)
        self._totals_stale = False
        #: spaces that keep sentence vectors (recorded with the space's model in ``meta``)
        self._parts_spaces = {n for n, spec in self.spaces().items() if spec.get("parts")}

    @contextlib.contextmanager
    def _write(self) -> Iterator[Any]:
        """A write transaction (see :func:`transaction`); the keyword rows it deletes are taken
        off the keyword table's totals once it has committed (see ``fts_totals``)."""
        self._local.terms_removed = removed = fts_totals.Removed()
        try:
            with transaction(self.conn) as conn:
                yield conn
        finally:
            self._local.terms_removed = None
        try:
            if self._totals_stale:
                self._totals_stale = False
                fts_totals.repair(self.conn)
            else:
                fts_totals.subtract(self.conn, removed)
        except (sqlite3.Error, sqlean.Error) as exc:
            # the write itself is committed: the totals are worked out again after the next one
            self._totals_stale = True
            log.warning("keyword totals left to the next write: %s", exc)

    def _delete_terms(self, rowid: int) -> None:
        """Delete a chunk's keyword row, noting its sizes for the totals (inside ``_write``)."""
        removed = getattr(self._local, "terms_removed", None)
        if removed is None:
            raise RuntimeError("keyword rows are deleted inside Store._write")
        fts_totals.note_removal(self.conn, rowid, removed)
        self.conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (rowid,))

    def close(self) -> None:
        # a vector graph changed by this process's writes is kept for the next one
        for table in self._copies.tables:
            copy = self._copies.latest(table)
            if isinstance(copy, AnnCopy) and copy.dirty:
                with contextlib.suppress(OSError, RuntimeError):
                    copy.save(self.ann_path(table), copy.seq)
        self._close_connections()

    # -- meta and spaces ------------------------------------------------------------------

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def save_meta(self, key: str, value: str) -> None:
        """``set_meta`` in a transaction of its own (outside an index run's writes)."""
        with transaction(self.conn):
            self.set_meta(key, value)

    # -- files ------------------------------------------------------------------------------

    def file_checksums(self) -> dict[str, str]:
        return dict(self.conn.execute(f"SELECT path, checksum FROM {self.FILES}").fetchall())

    def file_stats(self) -> dict[str, tuple[int, int]]:
        """Each indexed file's (size, mtime_ns) as it was when indexed."""
        rows = self.conn.execute(f"SELECT path, size, mtime_ns FROM {self.FILES}").fetchall()
        return {path: (size, mtime) for path, size, mtime in rows}

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Record a new size and mtime for a file whose content is as indexed."""
        with self._write() as conn:
            conn.execute(
                "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path)
            )

    def file_checksum(self, path: str) -> str | None:
        row = self.conn.execute(
            f"SELECT checksum FROM {self.FILES} WHERE path = ?", (path,)
        ).fetchone()
        return row[0] if row else None

    def replace_file(
        self,
        record: FileRecord,
        chunks: Sequence[Chunk],
        spaces: Sequence[Sequence[str]],
        vectors: Sequence[dict[str, bytes]],
        parts: Sequence[dict[str, list[bytes]]] | None = None,
    ) -> None:
        """Atomically bring a file's chunks, keyword terms and vectors to ``chunks``.

        ``parts`` holds each chunk's sentence vectors by space (for spaces made with
        ``parts=True``). Chunks whose id and content hash are unchanged keep their rows, terms
        and vectors (only their position is updated), so editing one function rewrites one
        chunk, not the file.
        """
        conn = self.conn
        added: list[tuple[str, int, bytes, str, str]] = []
        removed: list[int] = []
        removed_parts: list[int] = []
        with self._write():
            file_id = self._upsert_file(record)
            old = {
                cid: (rowid, chash, space, facts)
                for rowid, cid, chash, space, *facts in conn.execute(
                    f"SELECT id, chunk_id, content_hash, space, {_FACTS}, {_NAMES} FROM chunks"
                    " WHERE file_id = ?",
                    (file_id,),
                )
            }
            new_ids = {c.id for c in chunks}
            for cid, (rowid, _, space, _) in old.items():
                if cid not in new_ids:
                    removed_parts += self._delete_chunk(rowid, space)
                    removed.append(rowid)
            all_parts = parts if parts is not None else [{} for _ in chunks]
            for ordinal, (chunk, chunk_spaces, chunk_vectors, chunk_parts) in enumerate(
                zip(chunks, spaces, vectors, all_parts, strict=True)
            ):
                space_list = ",".join(chunk_spaces)
                previous = old.get(chunk.id)
                if previous and previous[1] == chunk.content_hash and previous[2] == space_list:
                    self._keep_chunk(previous[0], ordinal, chunk, previous[3])
                    continue
                if previous:
                    removed_parts += self._delete_chunk(previous[0], previous[2])
                    removed.append(previous[0])
                rowid = self._insert_chunk(file_id, ordinal, chunk, space_list)
                added += self._insert_vectors(
                    rowid, chunk, chunk_spaces, chunk_vectors, chunk_parts
                )
            conn.execute("DELETE FROM skipped WHERE path = ?", (record.path,))
            seq = self._bump_write_seq()
        self._patch_matrices(seq, removed, added, removed_parts)

    def _keep_chunk(self, rowid: int, ordinal: int, chunk: Chunk, facts: Sequence[Any]) -> None:
        """An unchanged chunk keeps its row, terms and vectors: only its place is updated, and
        its description when a newer chunker describes the same text anew."""
        self.conn.execute(
            "UPDATE chunks SET ord = ?, start_line = ?, end_line = ?, text = ?,"
            " place = ? WHERE id = ?",
            (ordinal, chunk.start_line, chunk.end_line, chunk.text, chunk.place, rowid),
        )
        if tuple(facts) != (*_facts(chunk), _names(chunk)):
            self._describe_chunk(rowid, chunk, replace=True)

    def _insert_vectors(
        self,
        rowid: int,
        chunk: Chunk,
        chunk_spaces: Sequence[str],
        chunk_vectors: dict[str, bytes],
        chunk_parts: dict[str, list[bytes]],
    ) -> list[tuple[Any, ...]]:
        """A new chunk's vectors in each of its spaces (and its sentence vectors where its space
        keeps them); returns the rows added, for the in-memory copies."""
        conn = self.conn
        added: list[tuple[Any, ...]] = []
        for space in chunk_spaces:
            conn.execute(
                f"INSERT INTO vec_{space}(chunk, embedding, kind, language) VALUES (?, ?, ?, ?)",
                (rowid, chunk_vectors[space], chunk.kind, chunk.language),
            )
            added.append((space, rowid, chunk_vectors[space], chunk.kind, chunk.language))
            blobs = chunk_parts.get(space, [])
            if not blobs or space not in self._parts_spaces:
                continue
            if len(blobs) >= PART_STRIDE:
                raise ValueError(f"{chunk.path}: too many sentence vectors ({len(blobs)})")
            conn.execute("UPDATE chunks SET parts = ? WHERE id = ?", (len(blobs), rowid))
            rows = [
                (rowid * PART_STRIDE + i, blob, chunk.kind, chunk.language)
                for i, blob in enumerate(blobs)
            ]
            conn.executemany(
                f"INSERT INTO vec_{space}_parts(part, embedding, kind, language) "
                "VALUES (?, ?, ?, ?)",
                rows,
            )
            added.extend((f"{space}_parts", *row) for row in rows)
        return added

    def _upsert_file(self, record: FileRecord) -> int:
        values = (
            record.checksum,
            record.size,
            record.mtime_ns,
            record.language,
            record.kind,
            time.time(),
        )
        row = self.conn.execute("SELECT id FROM files WHERE path = ?", (record.path,)).fetchone()
        if row:
            self.conn.execute(
                "UPDATE files SET checksum = ?, size = ?, mtime_ns = ?, language = ?, kind = ?,"
                " indexed_at = ? WHERE id = ?",
                (*values, row[0]),
            )
            return int(row[0])
        cur = self.conn.execute(
            "INSERT INTO files(checksum, size, mtime_ns, language, kind, indexed_at, path)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (*values, record.path),
        )
        return int(cur.lastrowid)

    def _insert_chunk(self, file_id: int, ordinal: int, chunk: Chunk, space_list: str) -> int:
        rowid: int | None = None  # SQLite's next id
        if self.FIRST_ID > 1:
            last = self.conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
            rowid = max(self.FIRST_ID, (last or 0) + 1)
        cur = self.conn.execute(
            "INSERT INTO chunks(id, chunk_id, file_id, path, ord, start_line, end_line, language,"
            " kind, text_type, title, breadcrumb, symbol, signature, text, content_hash, space,"
            " place) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                rowid,
                chunk.id,
                file_id,
                chunk.path,
                ordinal,
                chunk.start_line,
                chunk.end_line,
                chunk.language,
                chunk.kind,
                chunk.text_type,
                chunk.title,
                json.dumps(list(chunk.breadcrumb), ensure_ascii=False),
                chunk.symbol,
                chunk.signature,
                chunk.text,
                chunk.content_hash,
                space_list,
                chunk.place,
            ),
        )
        rowid = int(cur.lastrowid)
        self._describe_chunk(rowid, chunk, replace=False)
        return rowid

    def _describe_chunk(self, rowid: int, chunk: Chunk, *, replace: bool) -> None:
        """Write what a chunk is (its kind, names and keyword terms) beside its text."""
        conn = self.conn
        if replace:
            conn.execute(
                f"UPDATE chunks SET ({_FACTS}) = (?, ?, ?, ?, ?, ?) WHERE id = ?",
                (*_facts(chunk), rowid),
            )
            conn.execute("DELETE FROM chunk_names WHERE chunk = ?", (rowid,))
            self._delete_terms(rowid)
        if chunk.names:
            conn.executemany(
                "INSERT INTO chunk_names(chunk, name) VALUES (?, ?)",
                [(rowid, name) for name in chunk.names],
            )
        head = " ".join([chunk.path, chunk.title, chunk.symbol, *chunk.breadcrumb, *chunk.names])
        conn.execute(
            "INSERT INTO chunks_fts(rowid, head, body) VALUES (?, ?, ?)",
            (
                rowid,
                index_terms(head),
                index_terms(" ".join([chunk.embed_text, *chunk.read_words])),
            ),
        )

    def _delete_chunk(self, rowid: int, space_list: str) -> list[int]:
        """Delete a chunk's rows; return the ids of its sentence vectors that were deleted."""
        conn = self.conn
        spaces = [s for s in space_list.split(",") if s]
        n_parts = 0
        if any(space in self._parts_spaces for space in spaces):
            row = conn.execute("SELECT parts FROM chunks WHERE id = ?", (rowid,)).fetchone()
            n_parts = row[0] if row else 0
        gone: list[int] = []
        self._delete_terms(rowid)
        for space in spaces:
            conn.execute(f"DELETE FROM vec_{space} WHERE chunk = ?", (rowid,))
            if n_parts and space in self._parts_spaces:
                ids = [rowid * PART_STRIDE + i for i in range(n_parts)]
                conn.executemany(
                    f"DELETE FROM vec_{space}_parts WHERE part = ?", [(i,) for i in ids]
                )
                gone.extend(ids)
        conn.execute("DELETE FROM chunk_names WHERE chunk = ?", (rowid,))
        conn.execute("DELETE FROM chunks WHERE id = ?", (rowid,))
        return gone

    def remove_file(self, path: str) -> bool:
        with self._write():
            file_removed, removed, removed_parts = self._delete_file(path)
            seq = self._bump_write_seq()
        self._patch_matrices(seq, removed, [], removed_parts)
        return file_removed

    def _delete_file(self, path: str) -> tuple[bool, list[int], list[int]]:
        """Delete a file's rows; return whether it was indexed, its chunk and part row ids."""
        rows = self.conn.execute("SELECT id, space FROM chunks WHERE path = ?", (path,)).fetchall()
        parts: list[int] = []
        for rowid, space_list in rows:
            parts += self._delete_chunk(rowid, space_list)
        cur = self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM documents WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM refused_documents WHERE path = ?", (path,))
        return cur.rowcount > 0, [r[0] for r in rows], parts

    # -- large-index vector copies ------------------------------------------------------------

    def _bump_write_seq(self) -> int:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES ('write_seq', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        return int(self.get_meta("write_seq") or 0)

    # -- documents (PDF, Word, ...): their text as read, so they are never read twice ----------

    def stats(self) -> dict[str, Any]:
        return index_stats(self.conn, self.CHUNKS, self.FILES)
