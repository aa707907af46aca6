"""What an index holds, for ``groundls stats`` and the status command."""

from __future__ import annotations

import json
from typing import Any

from groundls.index.files.documents.base import scanned_place, unsure_place

#: Files the OCR tier has still to read: images and scanned PDFs (refused as waiting for OCR),
#: then indexed PDFs with pages that have no text.
SCANS_WAITING = (
    "SELECT path FROM refused_documents WHERE reason = 'needs-ocr'"
    " UNION SELECT path FROM documents WHERE waiting > 0"
)

#: Unsure scanned pages listed by name (all are counted).
LISTED = 20


def index_stats(conn: Any, chunks: str = "chunks", files: str = "files") -> dict[str, Any]:
    """Files and chunks by kind and language, chunk sizes, sentence vectors, skipped files
    (``chunks`` and ``files``: the tables or views to count)."""
    by_kind = dict(conn.execute(f"SELECT kind, COUNT(*) FROM {chunks} GROUP BY kind").fetchall())
    by_language = dict(
        conn.execute(f"SELECT language, COUNT(*) FROM {chunks} GROUP BY language").fetchall()
    )
    # a file that gives no chunk (an empty one) has no kind
    files_by_kind = dict(
        conn.execute(
            f"SELECT COALESCE(NULLIF(kind, ''), 'empty'), COUNT(*) FROM {files} GROUP BY 1"
        ).fetchall()
    )
    skipped = dict(conn.execute("SELECT reason, COUNT(*) FROM skipped GROUP BY reason").fetchall())
    lengths = [r[0] for r in conn.execute(f"SELECT length(text) FROM {chunks}").fetchall()]
    return {
        "files": conn.execute(f"SELECT COUNT(*) FROM {files}").fetchone()[0],
        "chunks": len(lengths),
        "sentence_vectors": conn.execute(
            f"SELECT COALESCE(SUM(parts), 0) FROM {chunks}"
        ).fetchone()[0],
        "files_by_kind": files_by_kind,
        "chunks_by_kind": by_kind,
        "chunks_by_language": by_language,
        "chunk_chars": _histogram(lengths),
        "documents_by_format": dict(
            conn.execute("SELECT format, COUNT(*) FROM documents GROUP BY format").fetchall()
        ),
        "skipped": skipped,
        "scans": {
            **_scanned_pages(conn),
            "files_waiting": conn.execute(f"SELECT COUNT(*) FROM ({SCANS_WAITING})").fetchone()[0],
        },
        # documents first: a user who asks about a manual wants to know why it was left out
        "skipped_files": [
            {"path": p, "reason": r, "detail": d}
            for p, r, d in conn.execute(
                "SELECT path, reason, detail FROM skipped ORDER BY detail = '', path LIMIT 200"
            )
        ],
    }


def _scanned_pages(conn: Any) -> dict[str, Any]:
    """How many pages and images the index holds as read by OCR, and those read below the
    confidence floor ("docs/scan.pdf p. 3 (scanned, unsure)", the first ``LISTED``)."""
    read, unsure = 0, []
    for path, places in conn.execute(
        "SELECT path, places FROM documents WHERE places LIKE '%scanned%' ORDER BY path"
    ):
        labels = [label for _, label in json.loads(places) if scanned_place(label)]
        read += len(labels)
        unsure += [f"{path} {label}" for label in labels if unsure_place(label)]
    return {"pages_read": read, "pages_unsure": len(unsure), "unsure": unsure[:LISTED]}


def _histogram(lengths: list[int]) -> dict[str, int]:
    edges = [100, 250, 500, 1000, 2000, 4000]
    out: dict[str, int] = {}
    for n in lengths:
        label = next((f"<{e}" for e in edges if n < e), f">={edges[-1]}")
        out[label] = out.get(label, 0) + 1
    return {k: out[k] for k in [*(f"<{e}" for e in edges), f">={edges[-1]}"] if k in out}
