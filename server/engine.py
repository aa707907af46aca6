"""The engine every face uses: keeps a workspace's index current and answers searches from it.

Data flows one way: walk -> read -> chunk -> embed (only new content) -> store -> search.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs
from groundls.chunkers import Chunk, chunk_file, sentence_parts
from groundls.chunkers.base import CHUNK_ID_RE
from groundls.config import Config
from groundls.embed import CachedQueryEmbedder, Embedder, load_embedder
from groundls.lexical import is_cjk, looks_like_identifier, match_expression, query_terms
from groundls.results import Hit, IndexProgress, IndexReport
from groundls.search import RankedList, cap_per_file, query_identifiers, rrf
from groundls.store import FileRecord, SpaceInfo, Store
from groundls.walk import Skipped, WorkspaceFile, WorkspaceWalker, read_text

EMBED_BATCH = 64
CANDIDATES = 50
#: Doc hits widen to their whole section when it spans at most this many lines.
SECTION_LINES = 60

#: How much each embedding space's list counts in the fusion, by the script of the query.
#: MiniLM understands English only; USE is multilingual (measured on ../shared/eval).
SPACE_WEIGHTS = {
    "latin": {"minilm": 1.0, "use": 0.3},
    "cjk": {"minilm": 0.5, "use": 1.0},
}
#: Japanese questions lean more on the bigram keyword side: on the Japanese eval set keyword-only
#: ranking beat USE-only (nDCG@10 0.72 vs 0.66), and 1.5x gave the best fusion.
KEYWORD_BOOST = {"latin": 1.0, "cjk": 1.5}
#: Extra weight, for Latin-script queries, of the chunks only this space holds.
UNIQUE_BOOST = {"use": 1.0}
#: The space that also keeps one vector per sentence of its Japanese prose (see sentence_parts):
#: USE is a sentence encoder, and ranking a passage by its best sentence lifted Japanese
#: nDCG@10 from 0.77 to 0.81 (BENCHMARKS.md). English prose has MiniLM beside it and gained
#: nothing, so it is left out (half the extra embedding work).
PARTS_SPACE = "use"


class InvalidChunkId(ValueError):
    """A chunk id that is not of the form groundls makes (16 lowercase hex digits)."""


class WorkspaceError(ValueError):
    """The workspace path does not exist or is not a directory."""


@dataclass(frozen=True)
class SpacePolicy:
    """Which embedding spaces a chunk is embedded in (by kind and script)."""

    name: str

    def spaces_for(self, chunk: Chunk) -> tuple[str, ...]:
        if self.name in ("minilm", "use"):
            return (self.name,)
        if self.name == "both":
            return ("minilm", "use")
        # default: code -> MiniLM (best on code); prose and config -> USE (multilingual),
        # and English prose also -> MiniLM, which is the stronger English embedder.
        if chunk.kind == "code":
            return ("minilm",)
        if is_cjk(chunk.text):
            return ("use",)
        return ("minilm", "use")

    def has_parts(self, chunk: Chunk) -> bool:
        """Whether the chunk also gets sentence vectors in ``PARTS_SPACE``."""
        return chunk.kind != "code" and is_cjk(chunk.text) and PARTS_SPACE in self.spaces_for(chunk)

    @property
    def all_spaces(self) -> tuple[str, ...]:
        return (self.name,) if self.name in ("minilm", "use") else ("minilm", "use")


def default_index_path(workspace: Path, index_dir: Path | None = None) -> Path:
    """Per-workspace index file: ``<index dir>/<folder name>-<hash of the absolute path>.sqlite``."""
    base = index_dir or (
        Path(os.environ["GROUNDLS_INDEX_DIR"])
        if os.environ.get("GROUNDLS_INDEX_DIR")
        else Path(platformdirs.user_cache_dir("groundls")) / "indexes"
    )
    digest = hashlib.sha1(str(workspace.resolve()).encode()).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", workspace.resolve().name or "root")
    return base / f"{name}-{digest}.sqlite"


class Engine:
    """One workspace folder's index: indexing, search, similar chunks, lookups, history."""

    def __init__(
        self,
        workspace: Path,
        config: Config,
        index_path: Path,
        embedders: dict[str, Embedder] | None = None,
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.index_path = index_path
        self.store = Store(index_path)
        self.policy = SpacePolicy(config.embedders)
        self._embedders: dict[str, Embedder] = dict(embedders or {})
        self._query: dict[str, CachedQueryEmbedder] = {}
        self._write_lock = threading.Lock()
        self._model_lock = threading.Lock()
        self._indexing = 0
        self.last_error: str | None = None
        self.progress: IndexProgress | None = None
        self._spaces_ready = False

    @classmethod
    def open(
        cls,
        workspace: Path | str,
        config: Config | None = None,
        index_dir: Path | str | None = None,
        embedders: dict[str, Embedder] | None = None,
    ) -> Engine:
        root = Path(workspace).expanduser()
        if not root.is_dir():
            raise WorkspaceError(f"workspace not found or not a directory: {workspace}")
        root = root.resolve()
        path = default_index_path(root, Path(index_dir).expanduser() if index_dir else None)
        return cls(root, config or Config(), path, embedders)

    # -- models ------------------------------------------------------------------------------

    def embedder(self, space: str) -> Embedder:
        with self._model_lock:
            if space not in self._embedders:
                self._embedders[space] = load_embedder(space)
            return self._embedders[space]

    def _ensure_spaces(self) -> None:
        if self._spaces_ready:
            return
        for space in self.policy.all_spaces:
            model = self.embedder(space)
            info = SpaceInfo(space, model.name, model.version, model.dim)
            self.store.ensure_space(info, parts=space == PARTS_SPACE)
        self._spaces_ready = True

    def _query_vector(self, space: str, text: str) -> np.ndarray:
        embedder = self.embedder(space)
        with self._model_lock:
            if space not in self._query:
                self._query[space] = CachedQueryEmbedder(embedder)
            cached = self._query[space]
        return cached.embed_one(text)

    def warm(self) -> None:
        """Load what the first search would otherwise wait for: the query models (USE reads its
        tokenizer on first use, ~2 s) and, on large indexes, the in-memory vector copies."""
        self._ensure_spaces()
        for space in self.policy.all_spaces:
            self._query_vector(space, "warm up")
            self.store.warm(space)

    # -- indexing ----------------------------------------------------------------------------

    @property
    def is_indexing(self) -> bool:
        return self._indexing > 0

    def index(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexReport:
        """Bring the whole index up to date with the workspace on disk."""
        started = time.perf_counter()
        with self._write_lock:
            self._indexing += 1
            try:
                self._ensure_spaces()
                walker = WorkspaceWalker(self.workspace, self.config)
                files, skipped = walker.walk()
                report = IndexReport(files_seen=len(files))
                present = {f.path for f in files}
                for path in set(self.store.file_checksums()) - present:
                    if self.store.remove_file(path):
                        report.files_removed += 1
                self._index_files(files, skipped, report, progress, cancel)
                self.store.record_skipped(((s.path, s.reason) for s in skipped), replace_all=True)
                for s in skipped:
                    report.skipped[s.reason] = report.skipped.get(s.reason, 0) + 1
                self.last_error = None
            except Exception as exc:
                self.last_error = str(exc)
                raise
            finally:
                self._indexing -= 1
                self.progress = None
        report.seconds = time.perf_counter() - started
        return report

    def index_paths(self, rel_paths: Iterable[str]) -> IndexReport:
        """Re-index exactly these workspace-relative files; gone or excluded ones are removed."""
        started = time.perf_counter()
        report = IndexReport()
        with self._write_lock:
            self._indexing += 1
            try:
                self._ensure_spaces()
                walker = WorkspaceWalker(self.workspace, self.config)
                files: list[WorkspaceFile] = []
                skipped: list[Skipped] = []
                for rel in dict.fromkeys(rel_paths):
                    state = walker.check(rel)
                    if isinstance(state, WorkspaceFile):
                        files.append(state)
                    else:
                        if self.store.remove_file(rel):
                            report.files_removed += 1
                        if isinstance(state, Skipped):
                            skipped.append(state)
                report.files_seen = len(files)
                self._index_files(files, skipped, report, None, None)
                self.store.record_skipped(((s.path, s.reason) for s in skipped), replace_all=False)
                for s in skipped:
                    report.skipped[s.reason] = report.skipped.get(s.reason, 0) + 1
            finally:
                self._indexing -= 1
        report.seconds = time.perf_counter() - started
        return report

    def _index_files(
        self,
        files: Sequence[WorkspaceFile],
        skipped: list[Skipped],
        report: IndexReport,
        progress: Callable[[IndexProgress], None] | None,
        cancel: threading.Event | None,
    ) -> None:
        stored = self.store.file_checksums()
        total = len(files)
        pending: list[tuple[WorkspaceFile, str, list[Chunk]]] = []
        pending_chunks = 0
        done = 0

        def tick(path: str) -> None:
            nonlocal done
            done += 1
            self.progress = IndexProgress(done, total, path, report.chunks, report.embedded)
            if progress:
                progress(self.progress)

        for file in files:
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
            text = read_text(file, self.config.max_file_bytes)
            if isinstance(text, Skipped):
                skipped.append(text)
                if self.store.remove_file(file.path):
                    report.files_removed += 1
                tick(file.path)
                continue
            checksum = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
            if stored.get(file.path) == checksum:
                report.files_unchanged += 1
                tick(file.path)
                continue
            try:
                chunks = chunk_file(file.path, text, self.config.chunk_options)
            except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
                report.errors.append(f"{file.path}: chunking failed: {exc}")
                skipped.append(Skipped(file.path, "chunker-error"))
                tick(file.path)
                continue
            pending.append((file, checksum, chunks))
            pending_chunks += len(chunks)
            if pending_chunks >= EMBED_BATCH:
                self._flush(pending, report, tick)
                pending, pending_chunks = [], 0
        if pending:
            self._flush(pending, report, tick)

    def _flush(
        self,
        pending: list[tuple[WorkspaceFile, str, list[Chunk]]],
        report: IndexReport,
        tick: Callable[[str], None],
    ) -> None:
        """Embed what has no stored vector yet, then write each file in its own transaction."""
        found: dict[tuple[str, str], bytes] = {}
        missing: dict[str, dict[str, str]] = {}
        found_parts: dict[str, list[bytes]] = {}
        missing_parts: dict[str, list[str]] = {}
        for _, _, chunks in pending:
            for chunk in chunks:
                if self.policy.has_parts(chunk) and chunk.content_hash not in found_parts:
                    stored = self.store.stored_parts(PARTS_SPACE, chunk.content_hash)
                    if stored is not None:
                        found_parts[chunk.content_hash] = stored
                    else:
                        missing_parts.setdefault(chunk.content_hash, sentence_parts(chunk))
                for space in self.policy.spaces_for(chunk):
                    key = (space, chunk.content_hash)
                    if key in found or chunk.content_hash in missing.get(space, {}):
                        continue
                    blob = self.store.stored_vector(space, chunk.content_hash)
                    if blob is None:
                        missing.setdefault(space, {})[chunk.content_hash] = chunk.embed_text
                    else:
                        found[key] = blob
                        report.reused += 1
        for space, texts in missing.items():
            hashes = list(texts)
            vectors = self.embedder(space).embed([texts[h] for h in hashes])
            for h, vec in zip(hashes, vectors, strict=True):
                found[(space, h)] = np.asarray(vec, dtype=np.float32).tobytes()
            report.embedded += len(hashes)
        if missing_parts:
            texts = [t for part_texts in missing_parts.values() for t in part_texts]
            vectors_iter = iter(self.embedder(PARTS_SPACE).embed(texts))
            for h, part_texts in missing_parts.items():
                found_parts[h] = [
                    np.asarray(next(vectors_iter), dtype=np.float32).tobytes() for _ in part_texts
                ]
            report.embedded_parts += len(texts)
        for file, checksum, chunks in pending:
            language, kind = (chunks[0].language, chunks[0].kind) if chunks else ("", "")
            spaces = [self.policy.spaces_for(c) for c in chunks]
            vectors = [
                {s: found[(s, c.content_hash)] for s in sp}
                for c, sp in zip(chunks, spaces, strict=True)
            ]
            parts = [
                {PARTS_SPACE: found_parts[c.content_hash]} if self.policy.has_parts(c) else {}
                for c in chunks
            ]
            record = FileRecord(file.path, checksum, file.size, file.mtime_ns, language, kind)
            self.store.replace_file(record, chunks, spaces, vectors, parts)
            report.files_indexed += 1
            report.chunks += len(chunks)
            tick(file.path)

    # -- search ------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int | None = None,
        paths: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[Hit]:
        """Hybrid search; ``[]`` means nothing in the workspace is relevant enough."""
        query = query.strip()
        if not query:
            return []
        k = k or self.config.search.k
        self._ensure_spaces()
        cfg = self.config.search
        candidates = CANDIDATES * (4 if paths else 1)
        lists: list[RankedList] = []
        best_similarity = 0.0
        script = "cjk" if is_cjk(query) else "latin"
        for space in self.policy.all_spaces:
            weight = cfg.vector_weight * SPACE_WEIGHTS[script].get(space, 1.0)
            if weight <= 0:
                continue
            vector = self._query_vector(space, query)
            found = self.store.knn(space, vector, candidates, kinds, languages)
            if found:
                best_similarity = max(best_similarity, 1.0 - found[0][1])
            lists.append(RankedList(f"vector:{space}", weight, [r for r, _ in found]))
            if script == "latin" and space in UNIQUE_BOOST:
                # What only this space holds (Japanese prose) has no MiniLM list to rank it:
                # give those chunks a full-weight list so English questions reach Japanese docs.
                only_here = self.store.rowids_only_in(space, [r for r, _ in found])
                unique = [r for r, _ in found if r in only_here]
                lists.append(RankedList(f"vector:{space}:unique", UNIQUE_BOOST[space], unique))
            if space == PARTS_SPACE:
                # Japanese prose by its best sentence, weighted as that prose's own list is
                by_sentence = self.store.knn_parts(space, vector, candidates, kinds, languages)
                parts_weight = weight if script == "cjk" else UNIQUE_BOOST.get(space, weight)
                lists.append(
                    RankedList(
                        f"vector:{space}:sentences", parts_weight, [r for r, _ in by_sentence]
                    )
                )
        terms = query_terms(query)
        identifier_query = looks_like_identifier(query)
        keyword_weight = cfg.keyword_weight * KEYWORD_BOOST[script]
        if identifier_query:
            keyword_weight *= 2.0
        keyword_ids: list[int] = []
        if terms:
            found_kw = self.store.keyword(match_expression(terms), candidates, kinds, languages)
            keyword_ids = [r for r, _ in found_kw]
            lists.append(RankedList("keyword", keyword_weight, keyword_ids))
        scores = rrf(lists)
        if not scores:
            return []
        exact_identifier = identifier_query and bool(keyword_ids)
        if best_similarity < cfg.min_similarity and not exact_identifier:
            return []  # nothing is close enough: say so rather than return noise
        identifiers = query_identifiers(query)
        if identifiers:
            symbols = self.store.symbols_by_rowid(list(scores))
            for rowid, symbol in symbols.items():
                if symbol and symbol.lower() in identifiers:
                    scores[rowid] *= 1.5  # a definition beats a mention
        ordered = sorted(scores, key=scores.__getitem__, reverse=True)
        hits = self.store.hits_by_rowid(ordered[: max(candidates, k * 8)])
        ranked = [(r, hits[r].path) for r in ordered if r in hits and _path_ok(hits[r].path, paths)]
        merged = merge_adjacent([_with_score(hits[r], scores[r]) for r, _ in ranked])
        if SECTION_LINES:
            merged = merge_adjacent([self._expand_section(h) for h in merged])
        by_id = {h.chunk_id: h for h in merged}
        kept = cap_per_file([(h.chunk_id, h.path) for h in merged], cfg.max_per_file)[:k]
        return [by_id[c] for c in kept]

    def _expand_section(self, hit: Hit) -> Hit:
        """A doc hit reports its whole section when the section is short (small-to-big)."""
        if hit.kind != "doc" or not hit.breadcrumb:
            return hit
        start, end = self.store.section_span(hit.path, hit.breadcrumb)
        if end - start + 1 > SECTION_LINES or (start, end) == (hit.start_line, hit.end_line):
            return hit
        return replace(hit, start_line=min(start, hit.start_line), end_line=max(end, hit.end_line))

    def similar(self, chunk_id: str, k: int = 10) -> list[Hit]:
        """Chunks nearest to a stored chunk's own vectors (no model call), excluding itself."""
        self._check_id(chunk_id)
        rowid = self.store.chunk_rowid(chunk_id)
        if rowid is None:
            raise KeyError(chunk_id)
        vectors = self.store.chunk_vectors(rowid)
        own = self.store.hits_by_rowid([rowid])[rowid]
        lists = [
            RankedList(
                space, 1.0, [r for r, _ in self.store.knn(space, vec, k * 3 + 5) if r != rowid]
            )
            for space, vec in vectors.items()
        ]
        scores = rrf(lists)
        ordered = sorted(scores, key=scores.__getitem__, reverse=True)
        hits = self.store.hits_by_rowid(ordered)
        out = [
            _with_score(hits[r], scores[r])
            for r in ordered
            if r in hits and not _overlaps(hits[r], own)
        ]
        return out[:k]

    def chunk_at(self, rel_path: str, line: int) -> Hit | None:
        return self.store.chunk_at(rel_path, line)

    def get_chunk(self, chunk_id: str) -> Hit | None:
        self._check_id(chunk_id)
        return self.store.get_hit(chunk_id)

    @staticmethod
    def _check_id(chunk_id: str) -> None:
        if not isinstance(chunk_id, str) or not CHUNK_ID_RE.match(chunk_id):
            raise InvalidChunkId(f"malformed chunk id {chunk_id!r}: expected 16 hex digits")

    # -- reporting ---------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        stats = self.store.stats()
        stats["models"] = self.store.spaces()
        stats["index_path"] = str(self.index_path)
        try:
            stats["index_bytes"] = sum(
                p.stat().st_size for p in self.index_path.parent.glob(self.index_path.name + "*")
            )
        except OSError:
            stats["index_bytes"] = None
        return stats

    def add_history(self, record: dict[str, Any]) -> None:
        self.store.add_history(record)

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        return self.store.history(limit)

    def close(self) -> None:
        self.store.close()


def merge_adjacent(hits: list[Hit], gap: int = 2, max_lines: int = 80) -> list[Hit]:
    """Fold a hit into a better-ranked one from the same section when their lines touch.

    Parts of one split function or one long section then come back as one located hit
    instead of crowding the list with neighbours.
    """
    out: list[Hit] = []
    for hit in hits:
        for i, kept in enumerate(out):
            if (
                kept.path == hit.path
                and kept.breadcrumb == hit.breadcrumb
                and hit.start_line <= kept.end_line + gap
                and kept.start_line <= hit.end_line + gap
                and max(kept.end_line, hit.end_line) - min(kept.start_line, hit.start_line)
                < max_lines
            ):
                first, second = (kept, hit) if kept.start_line <= hit.start_line else (hit, kept)
                out[i] = replace(
                    kept,
                    start_line=min(kept.start_line, hit.start_line),
                    end_line=max(kept.end_line, hit.end_line),
                    text=first.text + "\n" + second.text,
                )
                break
        else:
            out.append(hit)
    return out


def _path_ok(path: str, globs: Sequence[str] | None) -> bool:
    if not globs:
        return True
    for pattern in globs:
        pattern = pattern.lstrip("/")
        if fnmatch.fnmatch(path, pattern) or path.startswith(pattern.rstrip("/") + "/"):
            return True
    return False


def _overlaps(a: Hit, b: Hit) -> bool:
    return a.path == b.path and a.start_line <= b.end_line and b.start_line <= a.end_line


def _with_score(hit: Hit, score: float) -> Hit:
    return replace(hit, score=round(score, 6))
