"""SQLite connections with sqlite-vec loaded, FTS5 available and numbered migrations applied."""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlean
import sqlite_vec

from groundls.cache import cache_dir


class IndexError_(Exception):
    """The index file cannot be opened or is not a groundls index."""


def connect(path: Path | str, *, readonly: bool = False) -> Any:
    """Open (creating if needed) an index database with sqlite-vec loaded and WAL on; with
    ``readonly``, an existing one that is only read (a shared base index).

    The stdlib ``sqlite3`` of some Python builds cannot load extensions, so we use
    ``sqlean.py``, which bundles a recent SQLite with FTS5 and allows loading sqlite-vec.
    """
    try:
        if readonly:
            uri = f"{Path(path).resolve().as_uri()}?mode=ro"
            conn = sqlean.connect(uri, uri=True, timeout=30.0, check_same_thread=False)
        else:
            conn = sqlean.connect(str(path), timeout=30.0, check_same_thread=False)
        conn.isolation_level = None  # explicit BEGIN/COMMIT only
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        if readonly:
            return conn
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
    except (sqlite3.Error, sqlean.Error, OSError) as exc:
        raise IndexError_(f"cannot open index {path}: {exc}") from exc
    return conn


@contextmanager
def transaction(conn: Any) -> Iterator[Any]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` when the block raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _script(conn: Any, sql: str) -> None:
    """Run statements one by one: ``executescript`` would commit the migration's transaction."""
    for statement in sql.split(";"):
        if statement.strip():
            conn.execute(statement)


def m001_initial(conn: Any) -> None:
    _script(
        conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            checksum TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            language TEXT NOT NULL,
            kind TEXT NOT NULL,
            indexed_at REAL NOT NULL
        );
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            chunk_id TEXT NOT NULL UNIQUE,
            file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            ord INTEGER NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            language TEXT NOT NULL,
            kind TEXT NOT NULL,
            text_type TEXT NOT NULL,
            title TEXT NOT NULL,
            breadcrumb TEXT NOT NULL,
            symbol TEXT NOT NULL,
            signature TEXT NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            space TEXT NOT NULL
        );
        CREATE INDEX chunks_by_file ON chunks(file_id, start_line);
        CREATE INDEX chunks_by_path ON chunks(path, start_line);
        CREATE INDEX chunks_by_hash ON chunks(content_hash);
        CREATE TABLE skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            head, body, content='', contentless_delete=1,
            tokenize='unicode61 remove_diacritics 2'
        );
        """,
    )


def m002_history(conn: Any) -> None:
    _script(
        conn,
        """
        CREATE TABLE history (
            id INTEGER PRIMARY KEY,
            asked_at REAL NOT NULL,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            found INTEGER NOT NULL,
            mode TEXT NOT NULL,
            model TEXT NOT NULL,
            citations TEXT NOT NULL,
            timing TEXT NOT NULL
        );
        """,
    )


def m003_sentence_parts(conn: Any) -> None:
    # how many sentence vectors (``vec_<space>_parts``) a chunk has; see Store.replace_file
    conn.execute("ALTER TABLE chunks ADD COLUMN parts INTEGER NOT NULL DEFAULT 0")


def m004_symbol_table(conn: Any) -> None:
    # the definition boost looks chunks up by the name they define, whatever its case
    conn.execute("CREATE INDEX chunks_by_symbol ON chunks(symbol COLLATE NOCASE)")


def m005_module_names(conn: Any) -> None:
    # names a chunk binds at module level besides its symbol (``g = LocalProxy(...)``)
    _script(
        conn,
        """
        CREATE TABLE chunk_names (chunk INTEGER NOT NULL, name TEXT NOT NULL);
        CREATE INDEX chunk_names_by_name ON chunk_names(name COLLATE NOCASE);
        CREATE INDEX chunk_names_by_chunk ON chunk_names(chunk);
        """,
    )


def m006_history_threads(conn: Any) -> None:
    """Follow-up questions: each record names its thread (the id of the thread's first record;
    NULL for records made before threads) and the question searched (a follow-up made to stand
    alone)."""
    _script(
        conn,
        """
        ALTER TABLE history ADD COLUMN thread INTEGER;
        ALTER TABLE history ADD COLUMN searched TEXT NOT NULL DEFAULT ''
        """,
    )


def m007_documents(conn: Any) -> None:
    """Documents read by a reader (PDF, Word, ...): their extracted text and places, so that an
    unchanged document is never read again; each chunk's place in its document; and why each
    skipped file was skipped, in words."""
    _script(
        conn,
        """
        CREATE TABLE documents (
            path TEXT PRIMARY KEY,
            format TEXT NOT NULL,
            checksum TEXT NOT NULL,
            text TEXT NOT NULL,
            places TEXT NOT NULL,
            units INTEGER NOT NULL
        );
        ALTER TABLE chunks ADD COLUMN place TEXT NOT NULL DEFAULT '';
        ALTER TABLE skipped ADD COLUMN detail TEXT NOT NULL DEFAULT ''
        """,
    )


def m008_refused_documents(conn: Any) -> None:
    """Documents that could not be read, by size and time: not tried again until they change (a
    document that took two minutes to time out must not take them on every run)."""
    _script(
        conn,
        """
        CREATE TABLE refused_documents (
            path TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            reason TEXT NOT NULL,
            detail TEXT NOT NULL
        )
        """,
    )


def m009_refusal_reading(conn: Any) -> None:
    """Which reader refused a document: a new one tries it again."""
    _script(conn, "ALTER TABLE refused_documents ADD COLUMN reading TEXT NOT NULL DEFAULT ''")


def m010_scanned_pages(conn: Any) -> None:
    """A document's pages without text that the OCR tier has not read yet."""
    _script(conn, "ALTER TABLE documents ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0")


MIGRATIONS: list[Callable[[Any], None]] = [
    m001_initial,
    m002_history,
    m003_sentence_parts,
    m004_symbol_table,
    m005_module_names,
    m006_history_threads,
    m007_documents,
    m008_refused_documents,
    m009_refusal_reading,
    m010_scanned_pages,
]


def migrate(conn: Any) -> int:
    """Apply the migrations not yet applied, each in its own transaction; return the version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise IndexError_(
            f"index schema version {version} is newer than this groundls ({len(MIGRATIONS)}); "
            "upgrade groundls or delete the index"
        )
    for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        with transaction(conn):
            migration(conn)
            conn.execute(f"PRAGMA user_version = {number}")
    return len(MIGRATIONS)


def default_index_path(workspace: Path, index_dir: Path | None = None) -> Path:
    """Per-workspace index file: ``<index dir>/<folder name>-<hash of the absolute path>.sqlite``."""
    base = index_dir or (
        Path(os.environ["GROUNDLS_INDEX_DIR"])
        if os.environ.get("GROUNDLS_INDEX_DIR")
        else cache_dir() / "indexes"
    )
    digest = hashlib.sha1(str(workspace.resolve()).encode()).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", workspace.resolve().name or "root")
    return base / f"{name}-{digest}.sqlite"
