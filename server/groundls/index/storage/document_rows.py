"""The store's record of documents and skipped files: what a document reader read (so it is never read again), what it refused and why, and each file left out with its reason."""

from __future__ import annotations

import json
from collections.abc import Iterable

from groundls.index.files.documents.base import Extracted
from groundls.index.storage.stats import SCANS_WAITING


class DocumentRows:
    """The store's record of documents and skipped files: what a document reader read (so it is never read again), what it refused and why, and each file left out with its reason."""

    def record_skipped(self, skipped: Iterable[tuple[str, str, str]], *, replace_all: bool) -> None:
        """Files left out: (path, reason, what a user can do about it in words)."""
        conn = self.conn
        with self._write():
            if replace_all:
                conn.execute("DELETE FROM skipped")
            conn.executemany(
                "INSERT OR REPLACE INTO skipped(path, reason, detail) VALUES (?, ?, ?)",
                list(skipped),
            )

    def save_document(self, path: str, fmt: str, checksum: str, document: Extracted) -> None:
        with self._write():
            self.conn.execute("DELETE FROM refused_documents WHERE path = ?", (path,))
            self.conn.execute(
                "INSERT OR REPLACE INTO documents"
                "(path, format, checksum, text, places, units, waiting)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    path,
                    fmt,
                    checksum,
                    document.text,
                    json.dumps(document.places, ensure_ascii=False),
                    document.units,
                    document.waiting,
                ),
            )

    def refuse_document(
        self, path: str, size: int, mtime_ns: int, reason: str, detail: str, reading: str
    ) -> None:
        """Remember a document that could not be read, as it was and by what reader (see
        ``refused_document``)."""
        with self._write():
            self.conn.execute(
                "INSERT OR REPLACE INTO refused_documents"
                "(path, size, mtime_ns, reason, detail, reading) VALUES (?, ?, ?, ?, ?, ?)",
                (path, size, mtime_ns, reason, detail, reading),
            )

    def refused_document(self, path: str) -> tuple[int, int, str, str, str] | None:
        """(size, time, reason, detail, reader) of a document last refused, or None."""
        row = self.conn.execute(
            "SELECT size, mtime_ns, reason, detail, reading FROM refused_documents WHERE path = ?",
            (path,),
        ).fetchone()
        return (int(row[0]), int(row[1]), row[2], row[3], row[4]) if row else None

    def scans_waiting(self) -> list[str]:
        """Files the OCR tier has still to read (``SCANS_WAITING``), by path."""
        rows = self.conn.execute(f"{SCANS_WAITING} ORDER BY path").fetchall()
        return [row[0] for row in rows]

    def scan_done(self, path: str) -> None:
        """An indexed PDF whose pages without text OCR could not read: it waits no more."""
        with self._write():
            self.conn.execute("UPDATE documents SET waiting = 0 WHERE path = ?", (path,))

    def document(self, path: str) -> tuple[str, Extracted] | None:
        """(checksum, extracted text and places) of a document as indexed, or None."""
        row = self.conn.execute(
            "SELECT checksum, text, places, units FROM documents WHERE path = ?", (path,)
        ).fetchone()
        if row is None:
            return None
        places = [(int(line), str(label)) for line, label in json.loads(row[2])]
        return row[0], Extracted(row[1], "", places, int(row[3]))
