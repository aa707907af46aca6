"""Keep an index current: walk -> read -> chunk -> embed (only new content) -> store.

Every write goes through one lock, so a full run and a run for a few saved files never overlap.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from groundls.chunkers import CHUNKER_VERSION, Chunk, chunk_file
from groundls.config import Config
from groundls.index.embed.embedders import Embedders, EmbedderUnavailable
from groundls.index.embed.embedding import ChunkVectors, blob_of, embed_chunks
from groundls.index.embed.spaces import PARTS_SPACE, SpacePolicy
from groundls.index.files import secrets as secrets_redaction
from groundls.index.files.documents import (
    EXTRACTOR_VERSION,
    DocumentRefused,
    Extracted,
    document_format,
    extract_bounded,
    place_at,
)
from groundls.index.files.documents.bounded import MAX_DOCUMENT_BYTES
from groundls.index.files.walk import Skipped, WorkspaceFile, WorkspaceWalker, read_text
from groundls.index.storage.store import FileRecord, SpaceInfo, Store
from groundls.results import IndexProgress, IndexReport

log = logging.getLogger("groundls.index")

#: Seconds before a deep space whose model server was down is tried again.
UNAVAILABLE_RETRY_S = 30.0

#: Chunks gathered before one embedding call (and the writes that follow it).
EMBED_BATCH = 64
#: Deep-tier chunks embedded in one model call (about two seconds of MiniLM on two cores), so
#: ``fill_deep`` checks its cancel event at least that often.
DEEP_BATCH = 32
#: Chunks that searches reached and a deep space still lacks, kept per space for the fill to take
#: first (the oldest are forgotten past this many).
ASKED_KEPT = 2000

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


def visible_text(path: str, text: str, config: Config) -> tuple[str, int]:
    """A file's text as the index may hold and show it: secret values redacted (unless the user
    opted in to indexing secrets); and how many were."""
    if config.index_secrets:
        return text, 0
    redacted = secrets_redaction.redact(path, text)
    if redacted.count:
        log.info("%s: %d secret value(s) redacted", path, redacted.count)
    return redacted.text, redacted.count


def chunk_visible(path: str, text: str, config: Config) -> tuple[list[Chunk], int]:
    """A file's chunks as the index may hold them (see ``visible_text``), and how many secret
    values were redacted."""
    text, redacted = visible_text(path, text, config)
    return chunk_file(path, text, config.chunk_options), redacted


class Indexer:
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

    def _checksum(self, text: str) -> str:
        """What a file's stored checksum says: its text as chunked by this chunker version with
        these options (so a new chunker or other options make its chunks again)."""
        secrets = "kept" if self.config.index_secrets else secrets_redaction.VERSION
        digest = hashlib.sha256(
            f"{CHUNKER_VERSION}\0{self.config.chunk_options}\0{secrets}\0".encode()
        )
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def _document_reading(self) -> str:
        """What reads a document here (reader, chunker, options, secrets), as a short digest:
        the first part of its stored checksum, so a new reader reads every document again
        without a document being opened to find out."""
        secrets = "kept" if self.config.index_secrets else secrets_redaction.VERSION
        key = f"{CHUNKER_VERSION}\0{EXTRACTOR_VERSION}\0{self.config.chunk_options}\0{secrets}"
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    def _document_checksum(self, data: bytes) -> str:
        """A document's stored checksum: how it is read, then its bytes."""
        return f"{self._document_reading()}:{hashlib.sha256(data).hexdigest()}"

    def _read_document(
        self, file: WorkspaceFile, stored: str | None, stat: tuple[int, int] | None
    ) -> tuple[str, str] | Skipped | None:
        """(text as read, checksum) of a document that changed; None when unchanged (same size
        and time, or same bytes: never read again); Skipped, with why, when it cannot be read.
        Reading runs in a bounded child process (``extract_bounded``)."""
        reading = self._document_reading()
        same_file = stat == (file.size, file.mtime_ns)
        if stored is not None and stored.startswith(reading + ":") and same_file:
            return None  # the same bytes, read the same way: never opened again
        refused = self.store.refused_document(file.path)
        if (
            refused is not None
            and refused[:2] == (file.size, file.mtime_ns)
            and refused[4] == reading
        ):
            return Skipped(file.path, refused[2], refused[3])  # as it was: not tried again
        try:
            with open(file.abs_path, "rb") as fh:
                data = fh.read(MAX_DOCUMENT_BYTES + 1)
        except OSError:
            return Skipped(file.path, "unreadable")
        checksum = self._document_checksum(data)
        if checksum == stored:
            self.store.touch_file(file.path, file.size, file.mtime_ns)
            return None
        try:
            document = extract_bounded(file.abs_path, file.path)
        except DocumentRefused as why:
            log.info("%s: skipped: %s", file.path, why.message)
            return Skipped(file.path, why.reason, why.message)
        self._read_documents[file.path] = (checksum, document)
        return document.text, checksum

    def _stored_document(self, path: str) -> Extracted | None:
        """A document's text as indexed (secrets redacted), when the index holds this file."""
        stored = self.store.document(path)
        if stored is None or stored[0] != self.store.file_checksum(path):
            return None
        return stored[1]

    def document(self, path: str) -> Extracted | None:
        """A document's text as indexed, with its places (the walk's rules as for
        ``read_visible``); None for a text file or a document the index does not hold."""
        state = WorkspaceWalker(self.root, self.config).check(path)
        if not isinstance(state, WorkspaceFile) or not document_format(path):
            return None
        return self._stored_document(path)

    def read_visible(self, path: str) -> str | None:
        """The text of an indexable workspace file (the walk's rules: inside the workspace, not
        ignored, excluded, secret-named or unreadable), secrets redacted; None otherwise. A
        document's is its text as read when indexed (PDF pages, slides, ...)."""
        if document_format(path):
            document = self.document(path)
            return document.text if document is not None else None
        state = WorkspaceWalker(self.root, self.config).check(path)
        if not isinstance(state, WorkspaceFile):
            return None
        text = read_text(state, self.config.max_file_bytes)
        return None if isinstance(text, Skipped) else visible_text(path, text, self.config)[0]

    def _chunk(self, path: str, text: str, report: IndexReport | None = None) -> list[Chunk]:
        """The file's chunks, secret values redacted first (unless the user opted in)."""
        chunks, redacted = chunk_visible(path, text, self.config)
        if report is not None:
            report.secrets_redacted += redacted
        return chunks

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

    # -- the deep tier -------------------------------------------------------------------------

    def deep_counts(self, space: str) -> tuple[int, int]:
        """(chunks holding a ``space`` vector, chunks that want one)."""
        have = self.store.count_in(space)
        lacking, after = 0, 0
        while rows := self.store.chunks_without(space, after, 2000):
            after = rows[-1][0]
            lacking += sum(space in self.policy.spaces_of(r[4], r[5]) for r in rows)
        return have, have + lacking

    def deep_status(self) -> tuple[int, int]:
        """(vectors the deep tier holds, vectors it should hold), summed over its spaces: equal
        when the deep tier is complete (also when the policy has none)."""
        self.ensure_spaces()
        filled = wanted = 0
        for space in self.policy.deferred:
            if space in self.unavailable:
                continue
            have, want = self.deep_counts(space)
            filled += have
            wanted += want
        return filled, wanted

    def deep_order(self) -> list[str]:
        """The deep spaces in the order they are filled: the one more of this workspace's chunks
        want first, so a Japanese manual gets its multilingual vectors before MiniLM's and a code
        repository MiniLM's first; ties keep the policy's order. Worked out again after the
        index changes."""
        if self._deep_order is None:
            self.ensure_spaces()
            counts = {
                space: self.deep_counts(space)
                for space in self.policy.deferred
                if space not in self.unavailable
            }
            self._deep_have = {space: have for space, (have, _) in counts.items()}
            self._deep_wanted = {space: wanted for space, (_, wanted) in counts.items()}
            self._deep_order = sorted(counts, key=lambda s: -self._deep_wanted[s])
        return self._deep_order

    def fill_fraction(self, space: str) -> float:
        """How much of ``space`` is filled (1.0 for a space of the fast index, 0.0 for one that
        cannot be used now). Search weighs a deep space's list by it: a list over the few chunks
        filled so far would otherwise lift exactly those."""
        if space not in self.policy.deferred:
            return 1.0
        if space in self.unavailable:
            return 0.0
        self.deep_order()  # counts kept since the index last changed
        wanted = self._deep_wanted.get(space, 0)
        return min(1.0, self._deep_have.get(space, 0) / wanted) if wanted else 1.0

    def fill_deep(
        self,
        max_chunks: int | None = None,
        cancel: threading.Event | None = None,
        spaces: Collection[str] | None = None,
    ) -> int:
        """Embed chunks of the deep tier that have no vector yet, at most ``max_chunks`` (None:
        all), checking ``cancel`` between slices; ``spaces``: only these of its spaces. Returns
        how many were embedded (0: complete).

        The embed text is rebuilt by chunking the file again (chunkers are pure); a file that
        changed since it was indexed is left to the next index run."""
        self.ensure_spaces()
        self._retry_unavailable()
        done = 0
        deep = [s for s in self.deep_order() if spaces is None or s in spaces]
        # every space's asked chunks (``want_first``) first, then each space in turn
        order = [(space, False) for space in deep] + [(space, True) for space in deep]
        for space, scan in order:
            if space in self.unavailable:
                continue
            model = self.models.get(space)
            while max_chunks is None or done < max_chunks:
                if cancel is not None and cancel.is_set():
                    return done
                room = DEEP_BATCH if max_chunks is None else min(DEEP_BATCH, max_chunks - done)
                todo = self._deep_todo(space, room, scan=scan)
                if not todo:
                    break
                texts = {h: t for _, h, t in todo}
                blobs = {h: self.store.stored_vector(space, h) for h in texts}
                hashes = [h for h, blob in blobs.items() if blob is None]
                try:
                    vectors = model.embed([texts[h] for h in hashes])
                except EmbedderUnavailable as exc:
                    self._mark_unavailable(space, str(exc))  # nothing written, nothing lost
                    break
                for h, vector in zip(hashes, vectors, strict=True):
                    blobs[h] = blob_of(vector)
                rows = [(rowid, h, blobs[h]) for rowid, h, _ in todo]
                with self._write_lock:
                    self.store.add_vectors(space, rows)
                self._deep_have[space] = self._deep_have.get(space, 0) + len(rows)
                done += len(hashes)
        return done

    def want_first(self, space: str, rowids: Sequence[int]) -> None:
        """Chunks a search reached (best first) that ``space`` lacks: the fill embeds them before
        the rest, so the questions people ask get the deep tier's ranking long before the whole
        workspace is filled (search weighs a deep list by how many of the question's own
        candidates it holds)."""
        with self._asked_lock:
            queue = self._asked.setdefault(space, {})
            for rowid in reversed(rowids):  # taken from the end: the best-ranked first
                queue.pop(rowid, None)
                queue[rowid] = None
            while len(queue) > ASKED_KEPT:
                del queue[next(iter(queue))]

    def _take_asked(self, space: str, limit: int) -> list[int]:
        with self._asked_lock:
            queue = self._asked.get(space, {})
            taken = list(reversed(list(queue)[-limit:])) if queue else []
            for rowid in taken:
                del queue[rowid]
        return taken

    def _deep_todo(
        self, space: str, limit: int, *, scan: bool = True
    ) -> list[tuple[int, str, str]]:
        """Up to ``limit`` chunks that need a ``space`` vector: (rowid, content hash, embed text);
        the chunks searches reached first (``want_first``), then (``scan``) the rest in rowid
        order."""
        walker = WorkspaceWalker(self.root, self.config)
        todo: list[tuple[int, str, str]] = []
        while len(todo) < limit and (asked := self._take_asked(space, limit - len(todo))):
            rank = {rowid: i for i, rowid in enumerate(asked)}
            rows = sorted(self.store.chunks_without_among(space, asked), key=lambda r: rank[r[0]])
            todo += self._embed_texts(walker, [r for r in rows if self._wants(space, r)])
        while scan and len(todo) < limit:
            after = self._deep_after.get(space, 0)
            rows = self.store.chunks_without(space, after, limit)
            if not rows:
                break
            have = {rowid for rowid, _, _ in todo}
            wanted = [r for r in rows if self._wants(space, r) and r[0] not in have]
            taken = wanted[: limit - len(todo)]
            # look again after the last row taken, or past every row read when all were taken
            last = taken[-1][0] if len(taken) < len(wanted) else rows[-1][0]
            todo += self._embed_texts(walker, taken)
            self._deep_after[space] = last
        return todo

    def _wants(self, space: str, row: tuple[int, str, str, str, str, str]) -> bool:
        return space in self.policy.spaces_of(row[4], row[5])

    def _embed_texts(
        self, walker: WorkspaceWalker, rows: Sequence[tuple[int, str, str, str, str, str]]
    ) -> list[tuple[int, str, str]]:
        """(rowid, content hash, embed text) of chunk rows, the file chunked again; rows whose
        file changed since it was indexed are left to the next index run."""
        by_path: dict[str, list[tuple[int, str, str, str, str, str]]] = {}
        for row in rows:
            by_path.setdefault(row[1], []).append(row)
        out: list[tuple[int, str, str]] = []
        for path, chunk_rows in by_path.items():
            chunks = self._current_chunks(walker, path)
            for rowid, _, chunk_id, h, _, _ in chunk_rows:
                chunk = chunks.get(chunk_id)
                if chunk is not None and chunk.content_hash == h:
                    out.append((rowid, h, chunk.embed_text))
        if len(by_path) > 1:  # grouped by file above: back to the order asked
            order = {row[0]: i for i, row in enumerate(rows)}
            out.sort(key=lambda t: order[t[0]])
        return out

    def _current_chunks(self, walker: WorkspaceWalker, path: str) -> dict[str, Chunk]:
        """The chunks of a file as indexed, or {} when it changed or cannot be read now."""
        state = walker.check(path)
        if not isinstance(state, WorkspaceFile):
            return {}
        if document_format(path):
            document = self._stored_document(path)
            if document is None:
                return {}
            # the stored text is redacted already: chunked as the index run chunked it
            return {c.id: c for c in chunk_file(path, document.text, self.config.chunk_options)}
        text = read_text(state, self.config.max_file_bytes)
        if isinstance(text, Skipped):
            return {}
        checksum = self._checksum(text)
        if self.store.file_checksum(path) != checksum:
            return {}
        try:
            return {c.id: c for c in self._chunk(path, text)}
        except Exception:  # noqa: BLE001 - the index run reports chunking errors
            return {}

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
