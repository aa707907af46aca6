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

    def add(self, record: dict[str, Any]) -> None:
        self._conn().execute(
            "INSERT INTO history(asked_at, question, answer, found, mode, model, citations, timing)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.get("asked_at", time.time()),
                record["question"],
                record.get("answer", ""),
                int(bool(record.get("found"))),
                record.get("mode", ""),
                record.get("model", ""),
                json.dumps(record.get("citations", []), ensure_ascii=False),
                json.dumps(record.get("timing", {})),
            ),
        )

    def recent(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = (
            self._conn()
            .execute(
                "SELECT id, asked_at, question, answer, found, mode, model, citations, timing "
                "FROM history ORDER BY id DESC LIMIT ?",
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
            }
            for r in rows
        ]
