"""Who may read what: reader roles, and paths restricted to a group by row-level security.

A reader role gets ``SELECT`` through the group role ``groundls_reader`` and nothing else: only
the indexing role (the tables' owner) writes. A rule restricts the paths matching a glob to the
members of one role; each row keeps the group its path is restricted to, and the policies of
:mod:`.schema` hide it from everyone else, inside PostgreSQL, whatever SQL a client runs.
"""

from __future__ import annotations

import re
from typing import Any

from groundls.index.storage.served.connection import StoreUnavailable
from groundls.index.storage.served.schema import READER

_ROLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$-]{0,62}$")
_CONTENT_TABLES = ("files", "chunks", "chunk_names")


def _role(name: str) -> str:
    if not _ROLE.match(name):
        raise StoreUnavailable(f"not a role name: {name!r}")
    return '"' + name + '"'


def like_pattern(glob: str) -> str:
    """A path glob as a LIKE pattern: ``*`` and ``**`` match any characters, ``?`` one."""
    out = []
    for char in glob.strip().lstrip("/"):
        if char in "%_\\":
            out.append("\\" + char)
        elif char == "*":
            if not out or out[-1] != "%":
                out.append("%")
        elif char == "?":
            out.append("_")
        else:
            out.append(char)
    pattern = "".join(out)
    return pattern + "%" if pattern.endswith("/") else pattern


def grant(conn: Any, role: str) -> None:
    """Let an existing role read the store (and nothing else)."""
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if exists is None:
        raise StoreUnavailable(f"role {role} does not exist: create it first (CREATE ROLE)")
    conn.execute(f"GRANT {READER} TO {_role(role)}")


def restrict(conn: Any, glob: str, group: str) -> int:
    """Restrict the paths matching ``glob`` to the members of ``group``; returns how many
    indexed files that rule now covers."""
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (group,)).fetchone()
    if exists is None:
        raise StoreUnavailable(f"role {group} does not exist: create it first (CREATE ROLE)")
    pattern = like_pattern(glob)
    with conn.transaction():
        conn.execute(
            "INSERT INTO groundls_rules (pattern, grantee) VALUES (%s, %s)"
            " ON CONFLICT (pattern) DO UPDATE SET grantee = excluded.grantee",
            (pattern, group),
        )
        apply_rules(conn)
    row = conn.execute("SELECT count(*) FROM files WHERE path LIKE %s", (pattern,)).fetchone()
    return int(row[0])


def unrestrict(conn: Any, glob: str) -> bool:
    """Drop the rule of ``glob``; returns whether there was one."""
    with conn.transaction():
        gone = conn.execute(
            "DELETE FROM groundls_rules WHERE pattern = %s", (like_pattern(glob),)
        ).rowcount
        apply_rules(conn)
    return bool(gone)


def rules(conn: Any) -> list[tuple[str, str]]:
    """(LIKE pattern, group) of every rule (the indexing role only)."""
    rows = conn.execute("SELECT pattern, grantee FROM groundls_rules ORDER BY pattern")
    return [(str(p), str(g)) for p, g in rows.fetchall()]


def apply_rules(conn: Any, paths: list[str] | None = None) -> None:
    """Set each row's restricted group from the rules (of ``paths`` only, when given)."""
    where, params = ("", []) if paths is None else (" WHERE path = ANY(%s)", [paths])
    for table in (*_CONTENT_TABLES, *vector_tables(conn)):
        conn.execute(
            f"UPDATE {table} SET restricted = groundls_restriction(path){where}"
            " AND restricted IS DISTINCT FROM groundls_restriction(path)"
            if where
            else f"UPDATE {table} SET restricted = groundls_restriction(path)"
            " WHERE restricted IS DISTINCT FROM groundls_restriction(path)",
            params,
        )


def vector_tables(conn: Any) -> list[str]:
    """The store's vector tables (one per space, and one per space's sentence vectors)."""
    rows = conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        " AND tablename LIKE 'vec\\_%' ORDER BY tablename"
    )
    return [str(r[0]) for r in rows.fetchall()]
