"""The store's vector tables: one per embedding space (and one of per-sentence vectors), made for a model and dropped for another, filled a slice at a time."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from groundls.index.storage.reads import PART_STRIDE


@dataclass(frozen=True)
class SpaceInfo:
    name: str
    model: str
    version: str
    dim: int


#: A chunk as the deep-tier fill reads it: rowid, path, chunk id, content hash, kind, and the
#: first 400 characters of its text (what ``SpacePolicy.spaces_of`` looks at).
DEEP_ROW = "id, path, chunk_id, content_hash, kind, substr(text, 1, 400)"


class VectorWrites:
    """The store's vector tables: one per embedding space (and one of per-sentence vectors), made for a model and dropped for another, filled a slice at a time."""

    def ensure_space(self, info: SpaceInfo, parts: bool = False) -> bool:
        """Create the vector tables of a space; return True if older vectors were dropped.

        ``parts``: the space also keeps sentence vectors (``vec_<space>_parts``). A change of
        model, version, dimension or of ``parts`` drops the space's vectors and re-embeds.
        """
        key = f"space:{info.name}"
        recorded = self.get_meta(key)
        spec = {"model": info.model, "version": info.version, "dim": info.dim}
        wanted = json.dumps({**spec, "parts": True} if parts else spec)
        if recorded == wanted:
            if parts:
                self._parts_spaces.add(info.name)
            return False
        conn = self.conn
        with self._write():
            for table in (f"vec_{info.name}", f"vec_{info.name}_parts"):
                conn.execute(f"DROP TABLE IF EXISTS main.{table}")
            conn.execute(
                f"CREATE VIRTUAL TABLE vec_{info.name} USING vec0("
                f"chunk integer primary key, embedding float[{info.dim}] distance_metric=cosine, "
                "kind text, language text)"
            )
            if parts:
                conn.execute(
                    f"CREATE VIRTUAL TABLE vec_{info.name}_parts USING vec0("
                    f"part integer primary key, embedding float[{info.dim}] "
                    "distance_metric=cosine, kind text, language text)"
                )
            if recorded is not None:
                # Vectors of another model must not mix with new ones: drop the chunks that used
                # this space (their vectors are gone) and re-process every file.
                rows = conn.execute(
                    "SELECT id, space FROM chunks WHERE ',' || space || ',' LIKE ?",
                    (f"%,{info.name},%",),
                ).fetchall()
                for rowid, space_list in rows:
                    others = ",".join(s for s in space_list.split(",") if s != info.name)
                    self._delete_chunk(rowid, others)
                conn.execute("UPDATE files SET checksum = ''")
            self.set_meta(key, wanted)
            self._bump_write_seq()
        if parts:
            self._parts_spaces.add(info.name)
        else:
            self._parts_spaces.discard(info.name)
        return recorded is not None

    def spaces(self) -> dict[str, dict[str, Any]]:
        rows = self.conn.execute("SELECT key, value FROM meta WHERE key LIKE 'space:%'").fetchall()
        return {k.split(":", 1)[1]: json.loads(v) for k, v in rows}

    def stored_vector(self, space: str, content_hash: str, schema: str = "main") -> bytes | None:
        """A vector already stored in ``space`` for this content (in ``schema``'s tables), or
        None."""
        row = self.conn.execute(
            f"SELECT v.embedding FROM {schema}.chunks c JOIN {schema}.vec_{space} v"
            " ON v.chunk = c.id WHERE c.content_hash = ? LIMIT 1",
            (content_hash,),
        ).fetchone()
        return row[0] if row else None

    def stored_parts(
        self, space: str, content_hash: str, schema: str = "main"
    ) -> list[bytes] | None:
        """The sentence vectors already stored for this content (in ``schema``'s tables), or
        None."""
        row = self.conn.execute(
            f"SELECT id, parts FROM {schema}.chunks WHERE content_hash = ? AND parts > 0 "
            "AND ',' || space || ',' LIKE ? LIMIT 1",
            (content_hash, f"%,{space},%"),
        ).fetchone()
        if not row:
            return None
        base = row[0] * PART_STRIDE
        blobs = [
            self.conn.execute(
                f"SELECT embedding FROM {schema}.vec_{space}_parts WHERE part = ?", (base + i,)
            ).fetchone()
            for i in range(row[1])
        ]
        return [b[0] for b in blobs] if all(blobs) else None

    def chunks_without(
        self, space: str, after: int = 0, limit: int = 500
    ) -> list[tuple[int, str, str, str, str, str]]:
        """Chunks with no vector in ``space``, in rowid order after ``after``: (rowid, path,
        chunk id, content hash, kind, the first 400 characters of the text)."""
        return self.conn.execute(
            f"SELECT {DEEP_ROW} FROM {self.CHUNKS} "
            "WHERE id > ? AND ',' || space || ',' NOT LIKE ? ORDER BY id LIMIT ?",
            (after, f"%,{space},%", limit),
        ).fetchall()

    def chunks_without_among(
        self, space: str, rowids: Sequence[int]
    ) -> list[tuple[int, str, str, str, str, str]]:
        """Of ``rowids``, the chunks with no vector in ``space``, as :meth:`chunks_without`."""
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        return self.conn.execute(
            f"SELECT {DEEP_ROW} FROM {self.CHUNKS} "
            f"WHERE id IN ({marks}) AND ',' || space || ',' NOT LIKE ? ORDER BY id",
            (*rowids, f"%,{space},%"),
        ).fetchall()

    def count_in(self, space: str) -> int:
        """How many chunks have a vector in ``space``."""
        row = self.conn.execute(
            f"SELECT count(*) FROM {self.CHUNKS} WHERE ',' || space || ',' LIKE ?",
            (f"%,{space},%",),
        ).fetchone()
        return int(row[0])

    def count_of_kind(self, kind: str) -> int:
        """How many chunks are of ``kind`` (code, doc, config)."""
        row = self.conn.execute(f"SELECT count(*) FROM {self.CHUNKS} WHERE kind = ?", (kind,))
        return int(row.fetchone()[0])

    def add_vectors(self, space: str, rows: Sequence[tuple[int, str, bytes]]) -> int:
        """Add ``space`` vectors to stored chunks: (rowid, content hash, vector). A chunk that
        was replaced or removed meanwhile (its hash differs) is left alone. Returns how many
        were added."""
        conn = self.conn
        added: list[tuple[str, int, bytes, str, str]] = []
        with self._write():
            for rowid, content_hash, blob in rows:
                row = conn.execute(
                    f"SELECT space, kind, language FROM {self.CHUNKS}"
                    " WHERE id = ? AND content_hash = ?",
                    (rowid, content_hash),
                ).fetchone()
                if row is None or space in row[0].split(","):
                    continue
                conn.execute(
                    f"INSERT INTO main.vec_{space}(chunk, embedding, kind, language)"
                    " VALUES (?, ?, ?, ?)",
                    (rowid, blob, row[1], row[2]),
                )
                self._record_space(rowid, row[0], space)
                added.append((space, rowid, blob, row[1], row[2]))
            seq = self._bump_write_seq()
        self._patch_matrices(seq, [], added)
        return len(added)

    def _record_space(self, rowid: int, spaces: str, space: str) -> None:
        """Note that a chunk embedded in ``spaces`` (comma-separated) now has ``space`` too."""
        space_list = ",".join(s for s in (*spaces.split(","), space) if s)
        self.conn.execute("UPDATE main.chunks SET space = ? WHERE id = ?", (space_list, rowid))

    def _patch_matrices(
        self,
        seq: int,
        removed: list[int],
        added: list[tuple[str, int, bytes, str, str]],
        removed_parts: list[int] | None = None,
    ) -> None:
        self._copies.patch(seq, removed, added, removed_parts or [])
