"""Publishing a workspace's index to the served store: what changed since the last publish.

The index is built as always (locally or on Ray) in its SQLite file; publishing then copies the
files whose content or spaces differ from the served copy, and deletes the files that are gone,
one transaction in all, so readers see the old index or the new one. A store last published
from another index file, or with other models, is replaced whole.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from groundls import __version__
from groundls.chunkers import CHUNKER_VERSION
from groundls.index.storage.base import source_commit
from groundls.index.storage.db import connect as connect_sqlite
from groundls.index.storage.db import transaction
from groundls.index.storage.reads import PART_STRIDE
from groundls.index.storage.served import access, schema
from groundls.index.storage.served.connection import StoreUnavailable, connect, describe, reason
from groundls.index.storage.served.keyword import tsvector
from groundls.index.storage.served.meta import Manifest, read_manifest, write_manifest

#: The meta key of a local index that names it to the stores it is published to.
SOURCE_KEY = "publish_id"
_CHUNK_COLUMNS = (
    "id, chunk_id, path, ord, start_line, end_line, language, kind, text_type, title,"
    " breadcrumb, symbol, signature, text, content_hash, space, parts, place"
)


@dataclass(frozen=True)
class Published:
    """What one publish did."""

    files: int
    removed: int
    chunks: int
    replaced_all: bool


def publish(index_path: Path, conn: Any, commit: str = "") -> Published:
    """Bring the served store at ``conn`` (the indexing role) to the index at ``index_path``."""
    local = connect_sqlite(index_path)
    try:
        source = _source_id(local)
        spaces = {
            key.removeprefix("space:"): json.loads(value)
            for key, value in local.execute("SELECT key, value FROM meta WHERE key LIKE 'space:%'")
        }
        schema.migrate(conn)
        served = read_manifest(conn)
        replace_all = served is None or served.source != source or served.spaces != spaces
        with conn.transaction():
            if replace_all:
                _clear(conn)
            signatures = _signatures(local)
            theirs = dict(conn.execute("SELECT path, signature FROM files").fetchall())
            changed = sorted(p for p, sig in signatures.items() if theirs.get(p) != sig)
            removed = sorted(set(theirs) - set(signatures))
            _delete(conn, [*changed, *removed])
            for space, spec in spaces.items():
                schema.ensure_vectors(conn, space, int(spec["dim"]))
                if spec.get("parts"):
                    schema.ensure_vectors(conn, space, int(spec["dim"]), parts=True)
            chunks = _copy_files(local, conn, changed, signatures, spaces)
            access.apply_rules(conn, changed)
            seq = (served.seq if served and not replace_all else 0) + 1
            write_manifest(
                conn,
                Manifest(
                    groundls=__version__,
                    chunker=CHUNKER_VERSION,
                    spaces=spaces,
                    source=source,
                    commit=commit,
                    seq=seq,
                ),
            )
        if changed or removed:
            # the rows a bulk copy left in the keyword index's pending list, and fresh
            # statistics, so the planner reaches for the indexes
            conn.execute("SELECT gin_clean_pending_list('chunks_by_terms')")
            conn.execute("ANALYZE")
        return Published(len(changed), len(removed), chunks, replace_all)
    finally:
        local.close()


def publish_to(url: str, index_path: Path, root: Path) -> Published:
    """Publish the index at ``index_path`` of the workspace at ``root`` to the store at
    ``url``."""
    conn = connect(url)
    try:
        return publish(index_path, conn, source_commit(root)[0])
    except StoreUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - the driver's errors: no right to write, …
        raise StoreUnavailable(f"publishing to {describe(url)} failed: {reason(exc)}") from None
    finally:
        conn.close()


def _source_id(local: Any) -> str:
    """The local index's own id, made on its first publish."""
    row = local.execute("SELECT value FROM meta WHERE key = ?", (SOURCE_KEY,)).fetchone()
    if row:
        return str(row[0])
    made = uuid.uuid4().hex
    with transaction(local):
        local.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (SOURCE_KEY, made))
    return made


def _signatures(local: Any) -> dict[str, str]:
    """Each file's checksum and its chunks' ids and spaces: a deep tier filled since the last
    publish changes it as much as an edit does."""
    spaces: dict[str, list[str]] = defaultdict(list)
    for path, rowid, space in local.execute("SELECT path, id, space FROM chunks ORDER BY path, id"):
        spaces[path].append(f"{rowid}:{space}")
    out = {}
    for path, checksum in local.execute("SELECT path, checksum FROM files"):
        digest = hashlib.sha256("\n".join(spaces.get(path, [])).encode()).hexdigest()[:16]
        out[path] = f"{checksum}:{digest}"
    return out


def _clear(conn: Any) -> None:
    for table in ("files", "chunks", "chunk_names"):
        conn.execute(f"TRUNCATE {table}")
    for table in access.vector_tables(conn):
        conn.execute(f"DROP TABLE {table}")


def _delete(conn: Any, paths: Sequence[str]) -> None:
    if not paths:
        return
    for table in ("files", "chunks", "chunk_names", *access.vector_tables(conn)):
        conn.execute(f"DELETE FROM {table} WHERE path = ANY(%s)", (list(paths),))


def _copy_files(
    local: Any,
    conn: Any,
    paths: Sequence[str],
    signatures: dict[str, str],
    spaces: dict[str, dict[str, Any]],
) -> int:
    """Copy these files' rows; returns how many chunks were copied."""
    if not paths:
        return 0
    wanted = set(paths)
    with conn.cursor().copy(
        "COPY files (path, checksum, size, mtime_ns, language, kind, signature) FROM STDIN"
    ) as copy:
        for row in local.execute(
            "SELECT path, checksum, size, mtime_ns, language, kind FROM files"
        ):
            if row[0] in wanted:
                copy.write_row((*row, signatures[row[0]]))
    path_of = {
        int(rowid): str(path)
        for rowid, path in local.execute("SELECT id, path FROM chunks")
        if path in wanted
    }
    _copy_chunks(local, conn, path_of)
    with conn.cursor().copy("COPY chunk_names (chunk, name, path) FROM STDIN") as copy:
        for chunk, name in local.execute("SELECT chunk, name FROM chunk_names"):
            if chunk in path_of:
                copy.write_row((chunk, name, path_of[chunk]))
    for space, spec in spaces.items():
        for parts in (False, True) if spec.get("parts") else (False,):
            _copy_vectors(local, conn, space, path_of, parts=parts)
            schema.index_vectors(conn, schema.vector_table(space, parts))
    return len(path_of)


def _copy_chunks(local: Any, conn: Any, path_of: dict[int, str]) -> None:
    """Copy the chunks in ``path_of`` with their keyword terms, both read in id order."""
    terms = _terms_by_chunk(local)
    pending = next(terms, None)
    with conn.cursor().copy(f"COPY chunks ({_CHUNK_COLUMNS}, tokens, terms) FROM STDIN") as copy:
        for row in local.execute(f"SELECT {_CHUNK_COLUMNS} FROM chunks ORDER BY id"):
            rowid = int(row[0])
            if rowid not in path_of:
                continue
            while pending is not None and pending[0] < rowid:
                pending = next(terms, None)
            head, body = pending[1:] if pending is not None and pending[0] == rowid else ([], [])
            copy.write_row((*row[:16], row[16] or 0, row[17] or "", *tsvector(head, body)))


def _terms_by_chunk(local: Any) -> Iterator[tuple[int, list, list]]:
    """Each chunk's keyword tokens as FTS5 holds them, in chunk order: (chunk, head, body),
    each a list of (offset, term). SQLite groups them on disk, so memory stays flat."""
    local.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_instances"
        " USING fts5vocab(main, chunks_fts, 'instance')"
    )
    for doc, packed in local.execute(
        "SELECT doc, group_concat(col || char(31) || offset || char(31) || term, char(30))"
        " FROM temp.fts_instances GROUP BY doc ORDER BY doc"
    ):
        head: list[tuple[int, str]] = []
        body: list[tuple[int, str]] = []
        for item in packed.split("\x1e"):
            column, offset, term = item.split("\x1f")
            (head if column == "head" else body).append((int(offset), term))
        yield int(doc), head, body


def _copy_vectors(
    local: Any, conn: Any, space: str, path_of: dict[int, str], *, parts: bool
) -> None:
    table = schema.vector_table(space, parts)
    key = "part, chunk" if parts else "chunk"
    source = "part" if parts else "chunk"
    with conn.cursor().copy(
        f"COPY {table} ({key}, path, kind, language, embedding) FROM STDIN"
    ) as copy:
        for rowid, blob, kind, language in local.execute(
            f"SELECT {source}, embedding, kind, language FROM vec_{table.removeprefix('vec_')}"
        ):
            chunk = rowid // PART_STRIDE if parts else rowid
            if chunk not in path_of:
                continue
            ids = (rowid, chunk) if parts else (rowid,)
            copy.write_row((*ids, path_of[chunk], kind, language, vector_text(blob)))


def vector_text(blob: bytes) -> str:
    """A float32 vector as pgvector's text form."""
    values = np.frombuffer(blob, dtype=np.float32)
    return "[" + ",".join(map(repr, values.tolist())) + "]"
