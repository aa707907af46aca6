"""The OCR tier: images and scanned pages read after the text of everything else is searchable, a file at a time, in the bounded child process; a file is read by OCR once per content."""

from __future__ import annotations

import logging
import threading
from typing import Any

from groundls.cpu import wait_for_answers
from groundls.index.files.documents.scans import ocr_available, ocr_note

log = logging.getLogger("groundls.index")


class ScanFill:
    """The OCR tier: images and scanned pages read after the text of everything else is searchable, a file at a time, in the bounded child process; a file is read by OCR once per content."""

    def stats(self) -> dict[str, Any]:
        """The index's counts (the store's), its OCR tier's with how to install OCR where it
        is not (``scans["ocr"]``, "" where it is)."""
        stats = self.store.stats()
        stats["scans"]["ocr"] = ocr_note()
        return stats

    def scans_waiting(self) -> int:
        """Files still waiting for OCR; none while OCR is not installed (they are listed as
        skipped, with how to install it)."""
        return len(self.store.scans_waiting()) if ocr_available() else 0

    def fill_scans(self, cancel: threading.Event | None = None) -> int:
        """Read the next file waiting for OCR (its chunks replace what the index held of it);
        returns 1 when a file was read (or given up on), 0 when none waits."""
        if not ocr_available() or (cancel is not None and cancel.is_set()):
            return 0
        waiting = self.store.scans_waiting()
        if not waiting:
            return 0
        path = waiting[0]
        wait_for_answers()  # a question being answered comes first
        read = self.read_by_ocr(path)  # minutes, outside the write lock: saves go on
        if read is not None:
            self.scanning[path] = read
        try:
            report = self.index_paths([path])
        finally:
            self.scanning.pop(path, None)
        if path in self.store.scans_waiting():  # gone, excluded or unreadable now: not again
            self.store.scan_done(path)
            self.store.refuse_document(path, 0, 0, "unreadable", "", "")
        log.info("OCR: %s: %s", path, report.summary)
        return 1
