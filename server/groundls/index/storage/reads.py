"""The queries search makes of an index: nearest vectors, keyword matches, chunks by id or place.

:class:`StoreReads` is the read half of :class:`groundls.index.storage.store.Store`; large vector tables
are answered from their in-memory copies (:mod:`groundls.index.storage.vector_copies`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from groundls.chunkers import MEMBERS
from groundls.index.storage.ann import ANN_FROM, AnnCopy
from groundls.index.storage.db import connect
from groundls.index.storage.keyword_reads import KeywordReads, _kinds_languages, scope_sql
from groundls.index.storage.vector_copies import LARGE_INDEX, VectorCopies, VectorMatrix
from groundls.results import Hit, SearchFilters

log = logging.getLogger("groundls.index")

#: A chunk's sentence vectors have the ids ``chunk * PART_STRIDE + i`` in ``vec_<space>_parts``.
PART_STRIDE = 1024

_HIT_COLUMNS = (
    "c.id, c.chunk_id, c.path, c.start_line, c.end_line, c.kind, c.language, c.text_type, "
    "c.title, c.breadcrumb, c.text, c.place"
)


def _row_to_hit(row: Sequence[Any], score: float = 0.0) -> Hit:
    """A row of ``_HIT_COLUMNS`` as a hit (its columns in ``Hit``'s order, the id first)."""
    return Hit(*row[1:9], tuple(json.loads(row[9])), row[10], score, row[11])


class StoreReads(KeywordReads):
    """Read queries over the index tables, a connection per thread (WAL mode).

    ``CHUNKS``, ``FILES`` and ``NAMES`` are what reads see as the chunk, file and name tables;
    a store over a shared base reads views that merge the two (:mod:`groundls.index.storage.layered`).
    Keyword and vector reads take the ``schema`` (``main``, or ``base`` where one is attached)
    whose full-text and vector tables they search.
    """

    CHUNKS = "chunks"
    FILES = "files"
    NAMES = "chunk_names"

    _parts_spaces: set[str]

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self._copies = VectorCopies()
        #: (the index's write_seq, each keyword term's rarity) of ``term_rarity``
        self._rarity: tuple[str, dict[str, float]] = ("", {})

    @property
    def conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._on_connect(conn)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @property
    def problem(self) -> str:
        """Why some of the index cannot be read now ("" when all of it can)."""
        return ""

    def _on_connect(self, conn: Any) -> None:
        """Prepare a new connection (a store over a base attaches it here)."""

    def _close_connections(self) -> None:
        with self._lock:
            for conn in self._all:
                # closing a connection made by another thread may fail; harmless at shutdown
                with contextlib.suppress(Exception):
                    conn.close()
            self._all.clear()
        self._local = threading.local()

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def warm(self, space: str) -> None:
        """Load the in-memory copies of a large space (and of its sentence vectors) now."""
        self._matrix(space)
        if space in self._parts_spaces:
            self._matrix(f"{space}_parts")

    def _copies_of(self, schema: str) -> VectorCopies:
        return self._copies

    def _matrix(self, table: str, schema: str = "main") -> VectorMatrix | AnnCopy | None:
        """The in-memory copy of a large vector table (``space`` or ``space_parts``): every
        vector, or past ``ANN_FROM`` vectors a graph over int8 copies of them."""
        copies = self._copies_of(schema)
        row = self.conn.execute(
            f"SELECT value FROM {schema}.meta WHERE key = 'write_seq'"
        ).fetchone()
        seq = int(row[0]) if row else 0
        matrix = copies.current(table, seq)
        if matrix is not None:
            return matrix
        count = self.conn.execute(f"SELECT COUNT(*) FROM {schema}.vec_{table}").fetchone()[0]
        if count < LARGE_INDEX:
            return None
        space = table.removesuffix("_parts")
        dim = int(json.loads(self.get_meta(f"space:{space}") or "{}").get("dim", 0))
        rows = self.conn.execute(
            f"SELECT {_key_column(table)}, embedding, kind, language FROM {schema}.vec_{table}"
        )
        if count < ANN_FROM:
            return copies.put(table, VectorMatrix.from_rows(rows.fetchall(), dim), seq)

        def fetch(ids: Sequence[int]) -> np.ndarray:
            return self.vectors_by_id(table, ids, dim, schema)

        path = self.ann_path(table, schema)
        copy = AnnCopy.load(path, seq, count, fetch)
        if copy is None:
            copy = AnnCopy.build(rows, dim, fetch)
            try:
                copy.save(path, seq)
            except OSError as exc:  # a read-only place: built again next time
                log.info("the vector graph of %s was not saved: %s", table, exc)
        return copies.put(table, copy, seq)

    def ann_path(self, table: str, schema: str = "main") -> Path:
        """Where the vector graph of a large table is kept: beside the index file."""
        middle = "" if schema == "main" else f".{schema}"
        return self.path.with_name(f"{self.path.stem}{middle}.{table}.usearch")

    def vectors_by_id(
        self, table: str, ids: Sequence[int], dim: int, schema: str = "main"
    ) -> np.ndarray:
        """The float32 vectors of these rows of ``vec_<table>``, in the order given (one point
        lookup each: vec0 answers ``key = ?`` from its index but scans every row for
        ``key IN (...)``, 357 ms at 1M rows against 4 ms for 100 lookups)."""
        sql = f"SELECT embedding FROM {schema}.vec_{table} WHERE {_key_column(table)} = ?"
        out = np.zeros((len(ids), dim), dtype=np.float32)
        for i, rowid in enumerate(ids):
            row = self.conn.execute(sql, (int(rowid),)).fetchone()
            if row is not None:
                out[i] = np.frombuffer(row[0], dtype=np.float32)
        return out

    def knn(
        self,
        space: str,
        vector: np.ndarray,
        k: int,
        scope: SearchFilters | None = None,
        *,
        by_sentence: bool = False,
        schema: str = "main",
    ) -> list[tuple[int, float]]:
        """(chunk rowid, cosine distance) of the ``k`` nearest chunks, nearest first.

        ``by_sentence``: rank chunks by their nearest sentence vector (spaces that keep them).
        """
        if not by_sentence:
            return self._nearest(space, vector, k, scope, schema)
        if space not in self._parts_spaces:
            return []
        # a chunk usually has several sentences among the nearest
        return chunks_of_parts(self._nearest(f"{space}_parts", vector, k * 4, scope, schema), k)

    def _nearest(
        self,
        table: str,
        vector: np.ndarray,
        k: int,
        scope: SearchFilters | None,
        schema: str = "main",
    ) -> list[tuple[int, float]]:
        """(id, cosine distance) of the ``k`` nearest rows of ``vec_<table>``, nearest first."""
        matrix = self._matrix(table, schema)
        if matrix is not None:
            found = matrix.search(vector, k, *_kinds_languages(scope))
            if found is not None:
                return found
            # a filter the graph's candidates could not meet: the exact scan below
        where, params = scope_sql(scope)
        sql = (
            f"SELECT {_key_column(table)}, distance FROM {schema}.vec_{table}"
            f" WHERE embedding MATCH ? AND k = ?{where}"
        )
        params = [np.asarray(vector, dtype=np.float32).tobytes(), k, *params]
        return [(int(r), float(d)) for r, d in self.conn.execute(sql, params).fetchall()]

    def chunk_count(self) -> int:
        """How many chunks the index holds."""
        return self._chunk_total()

    def holds_code(self, schema: str = "main") -> bool:
        """Whether any indexed file is source code (a workspace of manuals and notes holds
        none)."""
        sql = f"SELECT 1 FROM {schema}.files WHERE kind = 'code' LIMIT 1"
        return self.conn.execute(sql).fetchone() is not None

    def _rows_in(self, select: str, rowids: Sequence[int], *params: Any) -> list[Any]:
        """Rows of ``select`` whose ``{ids}`` placeholder becomes the list of ``rowids``."""
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        return self.conn.execute(select.format(ids=marks), [*params, *rowids]).fetchall()

    def hits_by_rowid(self, rowids: Sequence[int]) -> dict[int, Hit]:
        rows = self._rows_in(
            f"SELECT {_HIT_COLUMNS} FROM {self.CHUNKS} c WHERE c.id IN ({{ids}})", rowids
        )
        return {row[0]: _row_to_hit(row) for row in rows}

    def chunk_texts(self, kinds: Sequence[str] = ("code", "doc")) -> list[tuple[int, str]]:
        """(rowid, text) of every chunk of ``kinds``, in row order."""
        marks = ",".join("?" * len(kinds))
        sql = f"SELECT id, text FROM {self.CHUNKS} WHERE kind IN ({marks})"
        return [(int(r), str(t)) for r, t in self.conn.execute(sql + " ORDER BY id", kinds)]

    def file_paths(self) -> list[str]:
        """Every indexed file's workspace-relative path."""
        return [row[0] for row in self.conn.execute(f"SELECT path FROM {self.FILES}")]

    def paths_by_rowid(self, rowids: Sequence[int]) -> dict[int, str]:
        return dict(
            self._rows_in(f"SELECT id, path FROM {self.CHUNKS} WHERE id IN ({{ids}})", rowids)
        )

    def symbols_by_rowid(self, rowids: Sequence[int]) -> dict[int, str]:
        return dict(
            self._rows_in(f"SELECT id, symbol FROM {self.CHUNKS} WHERE id IN ({{ids}})", rowids)
        )

    def definitions(
        self, names: Sequence[str], k: int, scope: SearchFilters | None = None
    ) -> list[tuple[int, str]]:
        """(chunk, the name it defines) for the chunks that define one of ``names``: the symbol
        table of the index, definitions and module-level bindings. Names spelled exactly as
        asked come first, then the same names in another case; definitions before bindings.
        An extension of a type (a Rust ``impl``, a Swift ``extension``, a C# ``partial`` class
        or a reopened Ruby class outside its own file) counts only when nothing in the workspace
        defines the name itself, spelled the same.
        The later parts of a long type's outline (text type ``members``) list its members; they
        do not define it."""
        if not names:
            return []
        return first_definitions(self._definition_rows(names, k, scope))

    def _definition_rows(
        self, names: Sequence[str], k: int, scope: SearchFilters | None
    ) -> list[tuple[int, str, int, int, int]]:
        """The ``k`` best (chunk, name, binding, size, extension) rows in ``definition_order``."""
        where, params = scope_sql(scope, "c.")
        marks = ",".join("?" * len(names))
        sql = (
            f"SELECT id, name, binding, size, extension FROM ("
            f" SELECT c.id, c.symbol AS name, 0 AS binding, length(c.text) AS size,"
            f" c.text_type = 'extension' AS extension FROM {self.CHUNKS} c"
            f" WHERE c.symbol COLLATE NOCASE IN ({marks}) AND c.text_type != '{MEMBERS}'{where}"
            f" UNION ALL"
            f" SELECT c.id, n.name, 1, length(c.text), 0 FROM {self.NAMES} n"
            f" JOIN {self.CHUNKS} c ON c.id = n.chunk WHERE n.name COLLATE NOCASE IN ({marks}){where})"
            f" ORDER BY name IN ({marks}) DESC, binding, extension, size DESC LIMIT ?"
        )
        return self.conn.execute(sql, [*names, *params, *names, *params, *names, k]).fetchall()

    def section_span(self, path: str, breadcrumb: Sequence[str]) -> tuple[int, int]:
        row = self.conn.execute(
            f"SELECT MIN(start_line), MAX(end_line) FROM {self.CHUNKS} WHERE path = ? AND breadcrumb = ?",
            (path, json.dumps(list(breadcrumb), ensure_ascii=False)),
        ).fetchone()
        return (row[0] or 0, row[1] or 0)

    def has_chunks_in(self, space: str, schema: str = "main") -> bool:
        """Whether any chunk is embedded in ``space`` (a deep tier not yet filled has none),
        cheap enough for every search: one row of sqlite-vec's rowid table for the space. (A
        row of the vec0 table itself costs a scan of its vectors: 25 ms at 100k chunks.)"""
        tables = {
            row[0]
            for row in self.conn.execute(
                f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table' AND name IN (?, ?)",
                (f"vec_{space}", f"vec_{space}_rowids"),
            )
        }
        if f"vec_{space}" not in tables:
            return False
        table = f"vec_{space}_rowids" if f"vec_{space}_rowids" in tables else f"vec_{space}"
        return self.conn.execute(f"SELECT 1 FROM {schema}.{table} LIMIT 1").fetchone() is not None

    def rowids_only_in(self, space: str, rowids: Sequence[int]) -> set[int]:
        """The chunks among ``rowids`` embedded in ``space`` and in no other space."""
        sql = f"SELECT id FROM {self.CHUNKS} WHERE space = ? AND id IN ({{ids}})"
        return {r[0] for r in self._rows_in(sql, rowids, space)}

    def rowids_in(self, space: str, rowids: Sequence[int]) -> set[int]:
        """The chunks among ``rowids`` that hold a vector in ``space``."""
        sql = f"SELECT id FROM {self.CHUNKS} WHERE ',' || space || ',' LIKE ? AND id IN ({{ids}})"
        return {r[0] for r in self._rows_in(sql, rowids, f"%,{space},%")}

    def chunk_kinds(self, rowids: Sequence[int]) -> dict[int, tuple[str, str]]:
        """Each chunk's kind and the first 400 characters of its text (what decides its
        spaces, see ``SpacePolicy.spaces_of``)."""
        sql = f"SELECT id, kind, substr(text, 1, 400) FROM {self.CHUNKS} WHERE id IN ({{ids}})"
        return {r[0]: (r[1], r[2]) for r in self._rows_in(sql, rowids)}

    def chunk_rowid(self, chunk_id: str) -> int | None:
        row = self.conn.execute(
            f"SELECT id FROM {self.CHUNKS} WHERE chunk_id = ?", (chunk_id,)
        ).fetchone()
        return row[0] if row else None

    def get_hit(self, chunk_id: str) -> Hit | None:
        row = self.conn.execute(
            f"SELECT {_HIT_COLUMNS} FROM {self.CHUNKS} c WHERE c.chunk_id = ?", (chunk_id,)
        ).fetchone()
        return _row_to_hit(row) if row else None

    def chunk_at(self, path: str, line: int) -> Hit | None:
        """The narrowest chunk of ``path`` that contains ``line``."""
        row = self.conn.execute(
            f"SELECT {_HIT_COLUMNS} FROM {self.CHUNKS} c WHERE c.path = ? AND c.start_line <= ? "
            "AND c.end_line >= ? ORDER BY (c.end_line - c.start_line) LIMIT 1",
            (path, line, line),
        ).fetchone()
        return _row_to_hit(row) if row else None

    def chunk_spans(self) -> list[tuple[str, int, int]]:
        """(path, start line, end line) of every chunk (benchmarks sample positions from it)."""
        return self.conn.execute(f"SELECT path, start_line, end_line FROM {self.CHUNKS}").fetchall()

    def chunk_vectors(self, rowid: int) -> dict[str, np.ndarray]:
        """A chunk's vector in each space it is embedded in."""
        row = self.conn.execute(
            f"SELECT space FROM {self.CHUNKS} WHERE id = ?", (rowid,)
        ).fetchone()
        if not row:
            return {}
        out: dict[str, np.ndarray] = {}
        for space in filter(None, row[0].split(",")):
            vec = self._vector_of(space, rowid)
            if vec is not None:
                out[space] = np.frombuffer(vec, dtype=np.float32)
        return out

    def _vector_of(self, space: str, rowid: int, schema: str = "main") -> bytes | None:
        row = self.conn.execute(
            f"SELECT embedding FROM {schema}.vec_{space} WHERE chunk = ?", (rowid,)
        ).fetchone()
        return row[0] if row else None


def definition_order(names: Sequence[str]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """Definition rows' order: names as asked, definitions, a type before its extensions, longest."""
    exact = set(names)
    return lambda row: (row[1] not in exact, row[2], row[4], -row[3])


def first_definitions(rows: Sequence[Sequence[Any]]) -> list[tuple[int, str]]:
    """(chunk, name) of definition rows, each chunk once; a type's extension gives way to the
    type's definition, not to a namesake in another case (``helpers`` beside ``Helpers``)."""
    defined = {row[1] for row in rows if not row[4]}
    seen: dict[int, str] = {}
    for rowid, name, _, _, extension in rows:
        if not (extension and name in defined):
            seen.setdefault(rowid, name)
    return list(seen.items())


def chunks_of_parts(found: Sequence[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """The ``k`` chunks of sentence vectors ``found`` nearest first, at their best's distance."""
    best: dict[int, float] = {}
    for part, distance in found:  # nearest first: the first part seen is the chunk's best
        best.setdefault(part // PART_STRIDE, distance)
    return list(best.items())[:k]


def _key_column(table: str) -> str:
    """The id column of ``vec_<table>``: chunk vectors are keyed by chunk, sentences by part."""
    return "part" if table.endswith("_parts") else "chunk"
