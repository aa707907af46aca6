"""Keep an index current: walk -> read -> chunk -> embed (only new content) -> store.

Every write goes through one lock, so a full run and a run for a few saved files never overlap.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from groundls.chunkers import Chunk
from groundls.config import Config
from groundls.index.deep import DeepFill
from groundls.index.embed.embedders import Embedders, EmbedderUnavailable
from groundls.index.embed.embedding import ChunkVectors, embed_chunks
from groundls.index.embed.spaces import PARTS_SPACE, SpacePolicy
from groundls.index.files.documents import (
    DocumentRefused,
    Extracted,
    document_format,
    place_at,
)
from groundls.index.files.read import Skipped, WorkspaceFile, read_text
from groundls.index.files.walk import WorkspaceWalker
from groundls.index.reading import FileReading, visible_text
from groundls.index.scan_fill import ScanFill
from groundls.index.storage.store import FileRecord, Store
from groundls.index.storage.vector_writes import SpaceInfo
from groundls.results import IndexProgress, IndexReport

log = logging.getLogger("groundls.index")

#: Seconds before a deep space whose model server was down is tried again.
UNAVAILABLE_RETRY_S = 30.0

#: Chunks gathered before one embedding call (and the writes that follow it).
EMBED_BATCH = 64

ProgressCallback = Callable[[IndexProgress], None]


@dataclass
class Built:
    """One changed file, chunked and embedded (or why it could not be chunked): what a build
    step hands back for the index to write."""

    file: WorkspaceFile
    checksum: str
    chunks: list[Chunk]
    vectors: ChunkVectors
    error: str = ""


#: A build step: changed files as (file, text, checksum) -> their chunks and vectors. The index
#: run's own is ``Indexer.build_here``; ``groundls.index.cluster`` runs one on a Ray cluster.
BuildStep = Callable[[Iterator[tuple[WorkspaceFile, str, str]], IndexReport], Iterator[Built]]


class Indexer(FileReading, DeepFill, ScanFill):
    """Brings one workspace folder's index up to date, fully or for given files."""

    def __init__(
        self, root: Path, config: Config, store: Store, policy: SpacePolicy, models: Embedders
    ) -> None:
        self.root = root
        self.config = config
        self.store = store
        self.policy = policy
        self.models = models
        self.progress: IndexProgress | None = None
        self.last_error: str | None = None
        self._write_lock = threading.Lock()
        self._running = 0
        self._spaces_ready = False
        #: per deep-tier space, the rowid up to which chunks were looked at (0 after any write)
        self._deep_after: dict[str, int] = {}
        self._deep_order: list[str] | None = None
        #: per deep space, vectors held and wanted (counted with the order, kept up by fills)
        self._deep_have: dict[str, int] = {}
        self._deep_wanted: dict[str, int] = {}
        #: per deep space, chunks searches reached that it lacks: the fill takes them first,
        #: the latest question's best-ranked first (see ``want_first``)
        self._asked: dict[str, dict[int, None]] = {}
        self._asked_lock = threading.Lock()
        #: deep spaces that cannot be used now (their model server is down), and why
        self.unavailable: dict[str, str] = {}
        self._retry_at = 0.0
        #: documents read this run and not yet written: path -> (checksum, what was read)
        self._read_documents: dict[str, tuple[str, Extracted]] = {}
        #: files the OCR tier has read (outside the write lock) and indexes now: path ->
        #: (checksum, what OCR read or why it could not)
        self.scanning: dict[str, tuple[str, Extracted | DocumentRefused]] = {}

    @property
    def running(self) -> bool:
        return self._running > 0

    def ensure_spaces(self) -> None:
        """Load the models and make their vector tables (dropping vectors of another model)."""
        if self._spaces_ready:
            return
        for space in self.policy.all_spaces:
            try:
                model = self.models.get(space)
                info = SpaceInfo(space, model.name, model.version, model.dim)
            except EmbedderUnavailable as exc:
                if space not in self.policy.deferred:
                    raise
                # a deep space that cannot be reached now (a model server that is down): the
                # rest of the index works; the space is tried again later
                self._mark_unavailable(space, str(exc))
                continue
            self.store.ensure_space(info, parts=space == PARTS_SPACE)
            if self.unavailable.pop(space, None) is not None:
                self._deep_order = None  # back: it is filled again
        self._spaces_ready = True

    def _mark_unavailable(self, space: str, why: str) -> None:
        if space not in self.unavailable:
            log.warning("the %s space is unavailable: %s", space, why)
        self.unavailable[space] = why
        self._retry_at = time.monotonic() + UNAVAILABLE_RETRY_S

    def _retry_unavailable(self) -> None:
        """Try again the deep spaces that could not be reached (at most every few seconds)."""
        if self.unavailable and time.monotonic() >= self._retry_at:
            self._spaces_ready = False
            self.ensure_spaces()

    def index(
        self,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        build: BuildStep | None = None,
    ) -> IndexReport:
        """Bring the whole index up to date with the workspace on disk; ``build`` chunks and
        embeds the changed files (default: here, the fast tier)."""
        started = time.perf_counter()
        with self._write_lock:
            self._running += 1
            try:
                self.ensure_spaces()
                files, skipped = WorkspaceWalker(self.root, self.config).walk()
                report = IndexReport(files_seen=len(files))
                present = {f.path for f in files}
                for path in set(self.store.file_checksums()) - present:
                    if self.store.remove_file(path):
                        report.files_removed += 1
                self._index_files(files, skipped, report, progress, cancel, build)
                self._record_skipped(skipped, report, replace_all=True)
                self.last_error = None
            except Exception as exc:
                self.last_error = str(exc)
                raise
            finally:
                self._running -= 1
                self.progress = None
        report.seconds = time.perf_counter() - started
        return report

    def index_paths(self, rel_paths: Iterable[str]) -> IndexReport:
        """Re-index exactly these workspace-relative files; gone or excluded ones are removed."""
        started = time.perf_counter()
        report = IndexReport()
        with self._write_lock:
            self._running += 1
            try:
                self.ensure_spaces()
                walker = WorkspaceWalker(self.root, self.config)
                files: list[WorkspaceFile] = []
                skipped: list[Skipped] = []
                for rel in dict.fromkeys(rel_paths):
                    state = walker.check(rel)
                    if isinstance(state, WorkspaceFile):
                        files.append(state)
                        continue
                    if self.store.remove_file(rel):
                        report.files_removed += 1
                    if isinstance(state, Skipped):
                        skipped.append(state)
                report.files_seen = len(files)
                self._index_files(files, skipped, report, None, None)
                self._record_skipped(skipped, report, replace_all=False)
            finally:
                self._running -= 1
        report.seconds = time.perf_counter() - started
        return report

    def changed_paths(self) -> list[str]:
        """Files whose size or modification time differs from the index's, new files and
        indexed files that are gone: a walk that only stats, no file is read."""
        files, _ = WorkspaceWalker(self.root, self.config).walk()
        stored = self.store.file_stats()
        changed = [f.path for f in files if stored.get(f.path) != (f.size, f.mtime_ns)]
        present = {f.path for f in files}
        return changed + [path for path in stored if path not in present]

    def _record_skipped(
        self, skipped: list[Skipped], report: IndexReport, *, replace_all: bool
    ) -> None:
        self.store.record_skipped(
            ((s.path, s.reason, s.detail) for s in skipped), replace_all=replace_all
        )
        for s in skipped:
            report.skipped[s.reason] = report.skipped.get(s.reason, 0) + 1
            if s.detail:
                report.skipped_files.append((s.path, s.detail))

    def _changed(
        self,
        files: Sequence[WorkspaceFile],
        skipped: list[Skipped],
        report: IndexReport,
        tick: Callable[[str], None],
        cancel: threading.Event | None,
    ) -> Iterator[tuple[WorkspaceFile, str, str]]:
        """(file, text, checksum) of each file whose content the index does not hold yet;
        unchanged files are counted and passed, unreadable ones skipped (and removed)."""
        stored = self.store.file_checksums()
        stats = self.store.file_stats()
        for file in files:
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                return
            if document_format(file.path):
                read = self._read_document(file, stored.get(file.path), stats.get(file.path))
                if read is None:
                    report.files_unchanged += 1
                    tick(file.path)
                elif isinstance(read, Skipped):
                    skipped.append(read)
                    if self.store.remove_file(file.path):
                        report.files_removed += 1
                    if read.reason != "unreadable":  # permissions change without a new time
                        # not tried again until it changes (one that timed out took minutes)
                        self.store.refuse_document(
                            file.path,
                            file.size,
                            file.mtime_ns,
                            read.reason,
                            read.detail,
                            self._document_reading(),
                        )
                    tick(file.path)
                else:
                    yield file, *read
                continue
            text = read_text(file, self.config.max_file_bytes)
            if isinstance(text, Skipped):
                skipped.append(text)
                if self.store.remove_file(file.path):
                    report.files_removed += 1
                tick(file.path)
                continue
            checksum = self._checksum(text)
            if stored.get(file.path) == checksum:
                if stats.get(file.path) != (file.size, file.mtime_ns):
                    self.store.touch_file(file.path, file.size, file.mtime_ns)
                report.files_unchanged += 1
                tick(file.path)
                continue
            yield file, text, checksum

    def _ticker(
        self, total: int, report: IndexReport, progress: ProgressCallback | None
    ) -> Callable[[str], None]:
        """Counts files done into ``self.progress`` (and the caller's callback)."""
        done = 0

        def tick(path: str) -> None:
            nonlocal done
            done += 1
            self.progress = IndexProgress(
                done, total, path, report.chunks, report.embedded, by_space=dict(report.by_space)
            )
            if progress:
                progress(self.progress)

        return tick

    def _index_files(
        self,
        files: Sequence[WorkspaceFile],
        skipped: list[Skipped],
        report: IndexReport,
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
        build: BuildStep | None = None,
    ) -> None:
        tick = self._ticker(len(files), report, progress)
        changed = self._changed(files, skipped, report, tick, cancel)
        for built in (build or self.build_here)(changed, report):
            if built.error:
                self._read_documents.pop(built.file.path, None)
                report.errors.append(f"{built.file.path}: chunking failed: {built.error}")
                skipped.append(Skipped(built.file.path, "chunker-error"))
            else:
                self.write_file(built.file, built.checksum, built.chunks, built.vectors, report)
            tick(built.file.path)

    def build_here(
        self, changed: Iterator[tuple[WorkspaceFile, str, str]], report: IndexReport
    ) -> Iterator[Built]:
        """Chunk the changed files here and embed them in batches of about ``EMBED_BATCH``
        chunks, in the fast tier's spaces (the deep tier is filled afterwards); vectors the index
        holds for the same content are reused."""
        deferred = self.policy.deferred
        pending: list[tuple[WorkspaceFile, str, list[Chunk]]] = []
        failed: list[Built] = []

        def flush() -> Iterator[Built]:
            vectors = embed_chunks(
                (chunk for _, _, chunks in pending for chunk in chunks),
                self.policy,
                self.models,
                embed=lambda space: space not in deferred,
                stored=self.store.stored_vector,
                stored_parts=self.store.stored_parts,
            )
            vectors.count_into(report)
            for file, checksum, chunks in pending:
                yield Built(file, checksum, chunks, vectors)
            yield from failed
            pending.clear()
            failed.clear()

        pending_chunks = 0
        for file, text, checksum in changed:
            try:
                chunks = self._chunk(file.path, text, report)
            except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
                failed.append(Built(file, checksum, [], ChunkVectors(), error=str(exc)))
                continue
            pending.append((file, checksum, chunks))
            pending_chunks += len(chunks)
            if pending_chunks >= EMBED_BATCH:
                yield from flush()
                pending_chunks = 0
        if pending or failed:
            yield from flush()

    def write_file(
        self,
        file: WorkspaceFile,
        checksum: str,
        chunks: Sequence[Chunk],
        vectors: ChunkVectors,
        report: IndexReport,
    ) -> None:
        """Write one file's chunks and their vectors in its own transaction (a run stopped
        between files resumes from the next one)."""
        self._deep_after.clear()  # rewritten chunks may need the deep tier again
        self._deep_order = None
        read = self._read_documents.pop(file.path, None)
        if read is not None:
            chunks = self._keep_document(file.path, *read, chunks)
        language, kind = (chunks[0].language, chunks[0].kind) if chunks else ("", "")
        per_chunk = [vectors.of(c, self.policy) for c in chunks]
        record = FileRecord(file.path, checksum, file.size, file.mtime_ns, language, kind)
        self.store.replace_file(
            record,
            chunks,
            [spaces for spaces, _, _ in per_chunk],
            [vecs for _, vecs, _ in per_chunk],
            [parts for _, _, parts in per_chunk],
        )
        report.files_indexed += 1
        report.chunks += len(chunks)

    def _keep_document(
        self, path: str, checksum: str, document: Extracted, chunks: Sequence[Chunk]
    ) -> list[Chunk]:
        """Store a document's text as read (secrets redacted, as its chunks are) so it is never
        read again, and give its chunks their places ("p. 12")."""
        visible = dataclasses.replace(
            document, text=visible_text(path, document.text, self.config)[0]
        )
        self.store.save_document(path, document_format(path) or "", checksum, visible)
        return [
            dataclasses.replace(c, place=place_at(document.places, c.start_line, c.end_line))
            for c in chunks
        ]
