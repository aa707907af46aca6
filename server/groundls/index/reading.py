"""Reading a workspace file as the index may hold it: secret values redacted, documents read once in a bounded child process and kept."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from groundls.chunkers import CHUNKER_VERSION, Chunk, chunk_file
from groundls.config import Config
from groundls.index.files import secrets as secrets_redaction
from groundls.index.files.documents import (
    EXTRACTOR_VERSION,
    DocumentRefused,
    Extracted,
    document_format,
    extract_bounded,
)
from groundls.index.files.documents.bounded import MAX_DOCUMENT_BYTES
from groundls.index.files.documents.scans import OCR_MEMORY, OCR_TIME_S, waiting_note
from groundls.index.files.read import Skipped, WorkspaceFile, read_text
from groundls.index.files.walk import WorkspaceWalker
from groundls.results import IndexReport

log = logging.getLogger("groundls.index")


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


class FileReading:
    """Reading a workspace file as the index may hold it: secret values redacted, documents read once in a bounded child process and kept."""

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
        Reading runs in a bounded child process (``extract_bounded``). A file the OCR tier
        indexes now (``self.scanning``) takes what OCR read, whatever the index holds."""
        reading = self._document_reading()
        same_file = stat == (file.size, file.mtime_ns)
        ocr = file.path in self.scanning
        if stored is not None and stored.startswith(reading + ":") and same_file and not ocr:
            return None  # the same bytes, read the same way: never opened again
        refused = self.store.refused_document(file.path)
        if (
            refused is not None
            and refused[:2] == (file.size, file.mtime_ns)
            and refused[4] == reading
            and not ocr
        ):
            return Skipped(file.path, refused[2], refused[3])  # as it was: not tried again
        if document_format(file.path) == "image" and not ocr:
            return Skipped(
                file.path, "needs-ocr", waiting_note("an image: its text waits for OCR")
            )  # no child yet
        try:
            with open(file.abs_path, "rb") as fh:
                data = fh.read(MAX_DOCUMENT_BYTES + 1)
        except OSError:
            return Skipped(file.path, "unreadable")
        checksum = self._document_checksum(data)
        if checksum == stored and not ocr:
            self.store.touch_file(file.path, file.size, file.mtime_ns)
            return None
        try:
            if ocr:
                read_checksum, read = self.scanning[file.path]
                if read_checksum != checksum:  # changed since OCR read it: read it again now
                    read = _read_by_ocr(file.abs_path, file.path)
                if isinstance(read, DocumentRefused):
                    raise read
                document = read
            else:
                document = extract_bounded(file.abs_path, file.path)
        except DocumentRefused as why:
            if ocr and checksum == stored:  # a PDF's text pages stay; its scans wait no more
                log.info("%s: OCR could not read its scanned pages: %s", file.path, why.message)
                self.store.scan_done(file.path)
                return None
            log.info("%s: skipped: %s", file.path, why.message)
            message = waiting_note(why.message) if why.reason == "needs-ocr" else why.message
            return Skipped(file.path, why.reason, message)
        if document.cut:
            log.info("%s: %s", file.path, document.cut)
        self._read_documents[file.path] = (checksum, document)
        return document.text, checksum

    def read_by_ocr(self, path: str) -> tuple[str, Extracted | DocumentRefused] | None:
        """A file waiting for OCR read by it, with its checksum (None when it cannot be opened):
        run by the OCR tier before it takes the write lock, so a file saved meanwhile is
        indexed at once."""
        abs_path = self.root / path
        try:
            with open(abs_path, "rb") as fh:
                data = fh.read(MAX_DOCUMENT_BYTES + 1)
        except OSError:
            return None
        return self._document_checksum(data), _read_by_ocr(abs_path, path)

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


def _read_by_ocr(abs_path: Path, rel_path: str) -> Extracted | DocumentRefused:
    """The document read with OCR in the bounded child (OCR's own time limit per file stops it
    first, with what it read), or why it could not be."""
    try:
        return extract_bounded(
            abs_path, rel_path, ocr=True, time_limit=OCR_TIME_S + 60, memory=OCR_MEMORY
        )
    except DocumentRefused as why:
        return why
