"""Read a document in a child process with a time and memory bound.

A reader parses untrusted bytes with native code (PDFium) and unpacks containers: a hostile file
could loop, take all memory or crash. In a child process, the worst it does is get the file
listed as skipped ("document-timeout", "document-too-large", "corrupt-document"); the index run
and the language server carry on.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from .base import DocumentRefused, Extracted

log = logging.getLogger("groundls.index")

#: Seconds one document may take to read (a 300-page text PDF takes about 3 on two cores).
TIME_LIMIT_S = 120.0
#: Address space the child may use (PDFium and Python's own ~200 MB included).
MEMORY_LIMIT = 2 * 1024**3
#: The largest document read at all.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024


def extract_bounded(
    abs_path: Path,
    rel_path: str,
    *,
    time_limit: float = TIME_LIMIT_S,
    memory: int = MEMORY_LIMIT,
    ocr: bool = False,
) -> Extracted:
    """Read the document at ``abs_path`` in a child process; raises :class:`DocumentRefused`
    (with why) for a document that cannot be read, is too large or too slow. ``ocr``: its
    pages without text, or the image, are read by OCR (the OCR tier's read: its own limits,
    :data:`.scans.OCR_TIME_S` and pages, within ``time_limit``)."""
    try:
        size = os.path.getsize(abs_path)
    except OSError:
        raise DocumentRefused("unreadable", f"{rel_path} cannot be read") from None
    if size > MAX_DOCUMENT_BYTES:
        raise DocumentRefused("too-large", f"{size:,} bytes (at most {MAX_DOCUMENT_BYTES:,})")
    command = [
        sys.executable,
        "-m",
        "groundls.index.files.documents.child",
        str(abs_path),
        rel_path,
        str(memory),
        *(["--ocr"] if ocr else []),
    ]
    try:
        done = subprocess.run(command, capture_output=True, timeout=time_limit, env=_child_env())
    except subprocess.TimeoutExpired:
        raise DocumentRefused(
            "document-timeout", f"reading it took over {time_limit:.0f} s"
        ) from None
    except OSError as exc:
        # (strerror: the exception's text would name the interpreter's path)
        raise DocumentRefused(
            "unreadable", f"the reader could not start: {exc.strerror or 'failed'}"
        ) from None
    if done.returncode != 0 or not done.stdout:
        if done.returncode < 0 or done.returncode in (137, 139):  # a signal, or 128 + one
            why = "the reader ran out of memory or crashed on it"
        else:
            why = f"the reader failed (exit code {done.returncode})"
        # the child's last words (the error, not its traceback) go to the log, not the reason
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
        log.info("%s: %s: %s", rel_path, why, last[:200])
        raise DocumentRefused("corrupt-document", f"cannot read it: {why}")
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        raise DocumentRefused(
            "corrupt-document", "cannot read it: the reader's reply was cut"
        ) from None
    if "refused" in reply:
        raise DocumentRefused(reply["refused"], reply["message"])
    return Extracted.from_json(reply)


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    server = str(Path(__file__).resolve().parents[4])
    env["PYTHONPATH"] = server + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env
