"""The served store's tables, in numbered migrations run by the indexing role.

Every row that holds a path's content (files, chunks, names, vectors) carries the path and its
``restricted`` group: "" for everyone, else the role whose members alone may read it. Row-level
security shows a reader only the rows it may see, whatever SQL it runs (see :mod:`.access`).
Keyword terms are computed by groundls (identifier parts, CJK bigrams) and kept as a
``tsvector`` whose positions carry each term's column: weight A for a chunk's head (path, title,
symbol), D for its body. Vectors are ``halfvec`` columns with HNSW indexes, one table per space.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from groundls.index.storage.served.connection import StoreUnavailable

#: The group role every reader is made a member of (``groundls store grant``).
READER = "groundls_reader"
#: HNSW build parameters (pgvector's defaults) and the candidates a search explores.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
EF_SEARCH = 100
#: The vectors' column type: ``halfvec`` (2 bytes a dimension) or ``vector`` (4).
VECTOR_TYPE = "halfvec"

_SPACE = re.compile(r"^[a-z][a-z0-9_]*$")


def _policy(table: str) -> str:
    return (
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;"
        f" CREATE POLICY {table}_visible ON {table} FOR SELECT"
        " USING (restricted = '' OR pg_has_role(current_user, restricted, 'MEMBER'));"
        f" GRANT SELECT ON {table} TO {READER};"
    )


def m001_tables(conn: Any) -> None:
    conn.execute(
        f"""
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{READER}') THEN
                CREATE ROLE {READER} NOLOGIN;
            END IF;
        END $$;
        CREATE TABLE groundls_rules (pattern TEXT PRIMARY KEY, grantee NAME NOT NULL);
        REVOKE ALL ON groundls_rules FROM PUBLIC;
        CREATE FUNCTION groundls_restriction(p TEXT) RETURNS NAME LANGUAGE sql STABLE AS $f$
            SELECT coalesce((SELECT grantee FROM groundls_rules WHERE p LIKE pattern
                             ORDER BY length(pattern) DESC LIMIT 1), '')
        $f$;
        REVOKE ALL ON FUNCTION groundls_restriction(TEXT) FROM PUBLIC;
        GRANT SELECT ON groundls_meta TO {READER};
        CREATE TABLE files (
            path TEXT PRIMARY KEY, checksum TEXT NOT NULL, size BIGINT NOT NULL,
            mtime_ns BIGINT NOT NULL, language TEXT NOT NULL, kind TEXT NOT NULL,
            signature TEXT NOT NULL, restricted NAME NOT NULL DEFAULT ''
        );
        CREATE TABLE chunks (
            id BIGINT PRIMARY KEY, chunk_id TEXT NOT NULL, path TEXT NOT NULL, ord INT NOT NULL,
            start_line INT NOT NULL, end_line INT NOT NULL, language TEXT NOT NULL,
            kind TEXT NOT NULL, text_type TEXT NOT NULL, title TEXT NOT NULL,
            breadcrumb TEXT NOT NULL, symbol TEXT NOT NULL, signature TEXT NOT NULL,
            text TEXT NOT NULL, content_hash TEXT NOT NULL, space TEXT NOT NULL,
            parts INT NOT NULL DEFAULT 0, place TEXT NOT NULL DEFAULT '',
            tokens INT NOT NULL, terms TSVECTOR NOT NULL,
            restricted NAME NOT NULL DEFAULT ''
        );
        CREATE UNIQUE INDEX chunks_by_chunk_id ON chunks (chunk_id);
        CREATE INDEX chunks_by_path ON chunks (path, start_line);
        CREATE INDEX chunks_by_symbol ON chunks (lower(symbol));
        CREATE INDEX chunks_by_hash ON chunks (content_hash);
        CREATE INDEX chunks_by_terms ON chunks USING gin (terms);
        CREATE TABLE chunk_names (
            chunk BIGINT NOT NULL, name TEXT NOT NULL, path TEXT NOT NULL,
            restricted NAME NOT NULL DEFAULT ''
        );
        CREATE INDEX chunk_names_by_name ON chunk_names (lower(name));
        CREATE INDEX chunk_names_by_chunk ON chunk_names (chunk);
        {_policy("files")} {_policy("chunks")} {_policy("chunk_names")}
        """
    )


#: Migration n is ``MIGRATIONS[n - 1]``; the version is kept in ``groundls_meta``.
MIGRATIONS: list[Callable[[Any], None]] = [m001_tables]


def version(conn: Any) -> int:
    """The store's schema version: 0 for a database groundls has not set up."""
    found = conn.execute("SELECT to_regclass('groundls_meta')").fetchone()[0]
    if found is None:
        return 0
    row = conn.execute("SELECT value FROM groundls_meta WHERE key = 'schema'").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: Any) -> None:
    """Bring the store's tables to this groundls's schema (the indexing role, in one
    transaction per migration)."""
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS groundls_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    current = version(conn)
    if current > len(MIGRATIONS):
        raise StoreUnavailable(_newer(current))
    for number, step in enumerate(MIGRATIONS[current:], current + 1):
        with conn.transaction():
            step(conn)
            conn.execute(
                "INSERT INTO groundls_meta (key, value) VALUES ('schema', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(number),),
            )


def check(conn: Any) -> None:
    """Refuse a store this groundls cannot read: not set up, or of another schema version."""
    current = version(conn)
    if current == 0:
        raise StoreUnavailable(
            "the store holds no groundls index: build it with `groundls index --store URL`"
        )
    if current > len(MIGRATIONS):
        raise StoreUnavailable(_newer(current))
    if current < len(MIGRATIONS):
        raise StoreUnavailable(
            f"the store has schema version {current}, this groundls reads {len(MIGRATIONS)}:"
            " publish it again with this version"
        )


def _newer(current: int) -> str:
    return (
        f"the store has schema version {current}, newer than this groundls reads"
        f" ({len(MIGRATIONS)}): upgrade groundls"
    )


def vector_table(space: str, parts: bool = False) -> str:
    """The table of a space's vectors (or of its sentence vectors)."""
    if not _SPACE.match(space):
        raise ValueError(f"not a space name: {space!r}")
    return f"vec_{space}_parts" if parts else f"vec_{space}"


def ensure_vectors(conn: Any, space: str, dim: int, parts: bool = False) -> str:
    """Create a space's vector table and its policy unless it exists (its HNSW index is made
    by :func:`index_vectors` once the first vectors are in: a graph built over them all is
    faster to make than one grown row by row)."""
    table = vector_table(space, parts)
    if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is not None:
        return table
    key = "part BIGINT PRIMARY KEY, chunk BIGINT NOT NULL" if parts else "chunk BIGINT PRIMARY KEY"
    with conn.transaction():
        conn.execute(
            f"CREATE TABLE {table} ({key}, path TEXT NOT NULL, kind TEXT NOT NULL,"
            f" language TEXT NOT NULL, embedding {VECTOR_TYPE}({int(dim)}) NOT NULL,"
            " restricted NAME NOT NULL DEFAULT '')"
        )
        conn.execute(f"CREATE INDEX {table}_by_path ON {table} (path)")
        conn.execute(_policy(table))
    return table


def index_vectors(conn: Any, table: str) -> None:
    """The HNSW index of a vector table, unless it has one."""
    conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} USING hnsw"
        f" (embedding {VECTOR_TYPE}_cosine_ops)"
        f" WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
    )
