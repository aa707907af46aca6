"""The child process of :mod:`.bounded`: read one document, print it as JSON on stdout."""

from __future__ import annotations

import json
import sys

from .base import DocumentRefused
from .read import extract


def main(argv: list[str]) -> int:
    abs_path, rel_path = argv[1], argv[2]
    try:
        with open(abs_path, "rb") as fh:
            data = fh.read()
        reply = extract(rel_path, data).to_json()
    except DocumentRefused as exc:
        reply = {"refused": exc.reason, "message": exc.message}
    except MemoryError:
        reply = {"refused": "document-too-large", "message": "reading it needs too much memory"}
    except OSError as exc:
        reply = {"refused": "unreadable", "message": f"cannot be read: {exc.strerror or exc}"}
    except RecursionError:
        reply = {"refused": "corrupt-document", "message": "cannot read it: nested too deeply"}
    sys.stdout.write(json.dumps(reply, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
