"""The child process of :mod:`.bounded`: read one document, print it as JSON on stdout."""

from __future__ import annotations

import contextlib
import json
import os
import sys

from .base import DocumentRefused
from .read import extract


def bound_self(memory: int) -> None:
    """Hold this process to ``memory`` bytes of address space (where the system can: Linux and
    the BSDs; macOS and Windows keep only the time bound) and below the editor's priority. Set
    here, not in the parent between fork and exec, which is unsafe in a threaded server."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass
    with contextlib.suppress(AttributeError, OSError):
        os.nice(5)


def main(argv: list[str]) -> int:
    abs_path, rel_path = argv[1], argv[2]
    if len(argv) > 3 and argv[3].isdigit():
        bound_self(int(argv[3]))
    ocr = "--ocr" in argv[4:]
    try:
        with open(abs_path, "rb") as fh:
            data = fh.read()
        reply = extract(rel_path, data, ocr=ocr).to_json()
    except DocumentRefused as exc:
        reply = {"refused": exc.reason, "message": exc.message}
    except MemoryError:
        reply = {"refused": "document-too-large", "message": "reading it needs too much memory"}
    except OSError as exc:
        reply = {"refused": "unreadable", "message": f"cannot be read: {exc.strerror or exc}"}
    except RecursionError:
        reply = {"refused": "corrupt-document", "message": "cannot read it: nested too deeply"}
    except Exception as exc:  # noqa: BLE001 - a reader's failure on a hostile file is a refusal
        # named by its kind only: its text may name paths; the parent logs nothing more
        reply = {"refused": "corrupt-document", "message": f"cannot read it: {type(exc).__name__}"}
    sys.stdout.write(json.dumps(reply, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
