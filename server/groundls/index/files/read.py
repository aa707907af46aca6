"""Reading one workspace file's text: binary, too large, undecodable and machine-written files refused with a reason, overlong lines cut."""

from __future__ import annotations

import codecs
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

SKIP_REASONS = (
    "binary",
    "too-large",
    "invalid-utf8",
    "unreadable",
    "secret",
    "symlink-outside",
    "minified",
    "unsupported-document",
    "encrypted",
    "no-text-layer",
    "needs-ocr",
    "corrupt-document",
    "document-too-large",
    "document-timeout",
    "chunker-error",
)


_BINARY_PROBE = 8192


#: Machine-written text (minified scripts and styles, drawings, data on one line): a file over
#: MINIFIED_MIN_CHARS whose lines average over MINIFIED_LINE characters. People write shorter
#: lines: the longest average among the ~11,700 files of the eval corpora and Rails is 937, while
#: Rails' SVG drawings average 44,000-99,000 and minified scripts 4,500-28,000. Smaller files pass
#: (a one-paragraph note, an icon).
MINIFIED_LINE = 1000


MINIFIED_MIN_CHARS = 10_000


#: A longer line in a written file (a data URI, an embedded asset) is cut there, so that one line
#: cannot make a chunk of hundreds of kilobytes.
LONG_LINE = 10_000


_LONG_LINE = re.compile(f"[^\n]{{{LONG_LINE + 1},}}")


@dataclass(frozen=True)
class WorkspaceFile:
    """A file to index: ``path`` is workspace-relative POSIX, ``abs_path`` only for reading it."""

    path: str
    abs_path: Path
    size: int
    mtime_ns: int


@dataclass
class Skipped:
    """A file that would have been indexed but was not, and why (one of ``SKIP_REASONS``).

    ``path`` names a directory instead when a whole directory could not be listed
    ("unreadable") or is a symlink leading out of the workspace ("symlink-outside").
    """

    path: str
    reason: str
    #: what happened and what a user can do, in words ("encrypted: the PDF needs a password")
    detail: str = ""


def read_text(file: WorkspaceFile, max_bytes: int) -> str | Skipped:
    """Return the text (BOM stripped, CRLF and lone CR made LF) or why it was not read.

    Binary means a NUL byte in the first 8 KB; the decode is strict UTF-8; machine-written
    text (see ``MINIFIED_LINE``) is skipped and a line over ``LONG_LINE`` characters cut. Never
    raises for files that vanish, are not regular files or cannot be opened: those come back
    "unreadable"."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(file.abs_path, flags)
    except (OSError, ValueError):
        return Skipped(file.path, "unreadable")
    try:
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                return Skipped(file.path, "unreadable")
            if info.st_size > max_bytes:
                return Skipped(file.path, "too-large")
            data = fh.read(max_bytes + 1)
    except OSError:
        return Skipped(file.path, "unreadable")
    if len(data) > max_bytes:
        return Skipped(file.path, "too-large")
    if b"\0" in data[:_BINARY_PROBE]:
        return Skipped(file.path, "binary")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Skipped(file.path, "invalid-utf8")
    if "\r" in text:
        # LSP counts "\r\n", "\n" and a lone "\r" as line ends; keep our line numbers the same.
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > MINIFIED_MIN_CHARS and len(text) > MINIFIED_LINE * (text.count("\n") + 1):
        return Skipped(file.path, "minified")
    return _LONG_LINE.sub(lambda m: m.group(0)[:LONG_LINE] + " …", text)


def _display(name: str) -> str:
    """A name that is safe to show: undecodable bytes become U+FFFD."""
    return os.fsencode(name).decode("utf-8", "replace")


def _undecodable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
