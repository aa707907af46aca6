"""The writes of an index that lies over a shared one it only reads (a base file, or a served
store): the overlay holds the files that differ, new files, the shared files deleted here, and
the size and time a shared file has here.

Used by :class:`~groundls.index.storage.layered.LayeredStore` and
:class:`~groundls.index.storage.served.store.ServedStore`, which say whether the shared index
holds a path (``_in_base``).
"""

from __future__ import annotations

from collections.abc import Sequence

from groundls.chunkers import Chunk
from groundls.index.storage.store import FileRecord, Store

#: The paths the overlay holds or deleted: the shared index's versions of them are shadowed.
OVERLAID_PATHS = "SELECT path FROM main.files UNION ALL SELECT path FROM main.base_removed"


class OverlayWrites(Store):
    """Writes always go to the overlay; a deletion of a shared file is recorded."""

    def _create_overlay_tables(self) -> None:
        for sql in (
            # the shared index's files deleted in the workspace
            "CREATE TABLE IF NOT EXISTS base_removed (path TEXT PRIMARY KEY)",
            # the size and time a shared file has here (a clone's files are newer than its)
            "CREATE TABLE IF NOT EXISTS base_stats"
            " (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL)",
        ):
            self.conn.execute(sql)

    def _in_base(self, path: str) -> bool:
        """Whether the shared index holds ``path``."""
        raise NotImplementedError

    def overlaid(self) -> int:
        """Files that differ from the shared index: changed, new or deleted."""
        row = self.conn.execute(
            "SELECT (SELECT count(*) FROM main.files) + (SELECT count(*) FROM main.base_removed)"
        ).fetchone()
        return int(row[0])

    def _is_overlaid(self, path: str) -> bool:
        sql = f"SELECT 1 FROM ({OVERLAID_PATHS}) WHERE path = ? LIMIT 1"
        return self.conn.execute(sql, (path,)).fetchone() is not None

    def replace_file(
        self,
        record: FileRecord,
        chunks: Sequence[Chunk],
        spaces: Sequence[Sequence[str]],
        vectors: Sequence[dict[str, bytes]],
        parts: Sequence[dict[str, list[bytes]]] | None = None,
    ) -> None:
        self.conn.execute("DELETE FROM main.base_removed WHERE path = ?", (record.path,))
        super().replace_file(record, chunks, spaces, vectors, parts)

    def remove_file(self, path: str) -> bool:
        removed = super().remove_file(path)
        if (
            self._in_base(path)
            and self.conn.execute(
                "INSERT OR IGNORE INTO main.base_removed(path) VALUES (?)", (path,)
            ).rowcount
        ):
            self._bump_write_seq()
            return True
        return removed

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        if self.conn.execute("SELECT 1 FROM main.files WHERE path = ?", (path,)).fetchone():
            super().touch_file(path, size, mtime_ns)
            return
        self.conn.execute(
            "INSERT OR REPLACE INTO main.base_stats(path, size, mtime_ns) VALUES (?, ?, ?)",
            (path, size, mtime_ns),
        )

    def _base_stats(self) -> dict[str, tuple[int, int]]:
        """The size and time each shared file has here, where they differ from the shared
        index's record."""
        rows = self.conn.execute("SELECT path, size, mtime_ns FROM main.base_stats")
        return {path: (size, mtime) for path, size, mtime in rows}
