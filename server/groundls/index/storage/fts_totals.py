"""The keyword table's BM25 statistics, kept true after rows are deleted.

``chunks_fts`` is a contentless FTS5 table with ``contentless_delete=1``: a row is deleted by its
rowid alone. SQLite then drops the row from its terms' lists and from ``chunks_fts_docsize``, but
it does not take the row out of the table's totals, the "averages" record (row 1 of
``chunks_fts_data``: the row count, then each column's token count) that BM25 reads for its
inverse document frequency and its average length. Every chunk that re-indexing replaced left
its tokens there: after a chunker change every file is chunked again and BM25 counts rows that
are gone; editing files moves the totals the same way, save after save.

So the store reads a row's sizes from ``chunks_fts_docsize`` before deleting it and takes them
off the totals once the deleting transaction has committed (FTS5 writes the totals it holds in
memory when a transaction commits, so a correction inside it would be overwritten). An index
whose totals disagree with its rows (written before this, or stopped between the two commits)
has them worked out again from ``chunks_fts_docsize`` when it is opened for writing.

Both records are sequences of SQLite varints (``sqlite3Fts5PutVarint``: big-endian groups of 7
bits, the high bit set on all but the last, a ninth byte of 8 bits).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from groundls.index.storage.db import transaction

#: The averages record's id in ``chunks_fts_data``.
_AVERAGES = 1
#: The keyword table's columns (head, body).
COLUMNS = 2


@dataclass
class Removed:
    """Rows taken out of the keyword table and their tokens per column."""

    rows: int = 0
    tokens: list[int] = field(default_factory=lambda: [0] * COLUMNS)

    def __bool__(self) -> bool:
        return self.rows > 0


def decode(blob: bytes) -> list[int]:
    """The varints of ``blob`` (a last one cut short is read as far as it goes)."""
    values: list[int] = []
    i = 0
    while i < len(blob):
        value = 0
        for n in range(9):
            if i == len(blob):
                break
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
    return values


def encode(values: Iterable[int]) -> bytes:
    out = bytearray()
    for value in values:
        if value < 0 or value >= 1 << 56:
            raise ValueError(f"not a keyword-table total: {value}")
        groups = [value & 0x7F]
        value >>= 7
        while value:
            groups.append((value & 0x7F) | 0x80)
            value >>= 7
        out.extend(reversed(groups))
    return bytes(out)


def note_removal(conn: Any, rowid: int, removed: Removed) -> None:
    """Add the sizes of keyword row ``rowid`` (about to be deleted) to ``removed``."""
    row = conn.execute("SELECT sz FROM chunks_fts_docsize WHERE id = ?", (rowid,)).fetchone()
    if row is None or row[0] is None:
        return
    sizes = decode(row[0])
    removed.rows += 1
    for column in range(min(COLUMNS, len(sizes))):
        removed.tokens[column] += sizes[column]


def totals(conn: Any, schema: str = "main") -> list[int] | None:
    """The averages record: [rows, tokens of each column]; None before the first row."""
    row = conn.execute(
        f"SELECT block FROM {schema}.chunks_fts_data WHERE id = ?", (_AVERAGES,)
    ).fetchone()
    return decode(row[0]) if row and row[0] else None


def stale(conn: Any, schema: str = "main") -> bool:
    """Whether the totals count other rows than the table holds (an index updated in place
    before they were kept true; a shared base read in place cannot be repaired)."""
    now = totals(conn, schema)
    (rows,) = conn.execute(f"SELECT count(*) FROM {schema}.chunks_fts_docsize").fetchone()
    return now is not None and now[0] != rows


def subtract(conn: Any, removed: Removed) -> None:
    """Take ``removed`` off the totals (after the transaction that deleted the rows)."""
    if not removed:
        return
    with transaction(conn):
        now = totals(conn)
        if now is None:
            return
        counts = [removed.rows, *removed.tokens]
        fixed = [
            max(0, value - (counts[i] if i < len(counts) else 0)) for i, value in enumerate(now)
        ]
        conn.execute(
            "UPDATE chunks_fts_data SET block = ? WHERE id = ?", (encode(fixed), _AVERAGES)
        )


def repair(conn: Any) -> bool:
    """Work the totals out again from the rows' sizes when their row count is not the table's;
    return whether they were rewritten."""
    with transaction(conn):
        if not stale(conn):
            return False
        rows, tokens = 0, [0] * COLUMNS
        for (blob,) in conn.execute("SELECT sz FROM chunks_fts_docsize"):
            rows += 1
            for column, size in enumerate(decode(blob or b"")[:COLUMNS]):
                tokens[column] += size
        conn.execute(
            "UPDATE chunks_fts_data SET block = ? WHERE id = ?",
            (encode([rows, *tokens]), _AVERAGES),
        )
    return True
