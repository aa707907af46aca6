"""Questions and answers asked of a workspace, kept in its index file (``history`` table)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any


class History:
    """The Q&A history of one index; ``conn`` gives the calling thread's connection."""

    def __init__(self, conn: Callable[[], Any]) -> None:
        self._conn = conn

    def add(self, record: dict[str, Any]) -> int:
        """Store a record; returns its id. ``thread``: the id of the thread's first record (None
        starts a thread: the record's own id becomes it)."""
        conn = self._conn()
        cursor = conn.execute(
            "INSERT INTO history(asked_at, question, answer, found, mode, model, citations, timing,"
            " thread, searched) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.get("asked_at", time.time()),
                record["question"],
                record.get("answer", ""),
                int(bool(record.get("found"))),
                record.get("mode", ""),
                record.get("model", ""),
                json.dumps(record.get("citations", []), ensure_ascii=False),
                json.dumps(record.get("timing", {})),
                record.get("thread"),
                record.get("searched", ""),
            ),
        )
        record_id = int(cursor.lastrowid)
        if record.get("thread") is None:
            conn.execute("UPDATE history SET thread = ? WHERE id = ?", (record_id, record_id))
        return record_id

    def thread(self, thread: int) -> list[dict[str, Any]]:
        """The records of one thread, oldest first."""
        rows = (
            self._conn()
            .execute(
                "SELECT id FROM history WHERE thread = ? OR id = ? ORDER BY id", (thread, thread)
            )
            .fetchall()
        )
        by_id = {r["id"]: r for r in self.recent(10_000)}
        return [by_id[r[0]] for r in rows if r[0] in by_id]

    def delete_thread(self, thread: int) -> int:
        """Forget a thread: its first record ``thread`` and every follow-up; how many went (0:
        no such thread)."""
        conn = self._conn()
        cursor = conn.execute("DELETE FROM history WHERE thread = ? OR id = ?", (thread, thread))
        return int(cursor.rowcount)

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = (
            self._conn()
            .execute(
                "SELECT id, asked_at, question, answer, found, mode, model, citations, timing,"
                " thread, searched FROM history ORDER BY id DESC LIMIT ?",
                (limit,),
            )
            .fetchall()
        )
        return [
            {
                "id": r[0],
                "asked_at": r[1],
                "question": r[2],
                "answer": r[3],
                "found": bool(r[4]),
                "mode": r[5],
                "model": r[6],
                "citations": json.loads(r[7]),
                "timing": json.loads(r[8]),
                "thread": r[9] if r[9] is not None else r[0],
                "searched": r[10],
            }
            for r in rows
        ]
