"""Results as JSON, for both faces: the CLI's snake_case and the LSP's camelCase with uri/range.

Every result type is turned into a plain record here once; the CLI prints the record as it is,
the language server passes ``folder`` (a :class:`Locator`) and gets camelCase keys plus the
``uri`` and ``range`` an editor needs to open the place.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

from groundls.results import (
    Answer,
    Citation,
    Explanation,
    Hit,
    IndexReport,
    QuestionLanguage,
    Related,
    SearchResult,
)


class Locator(Protocol):
    """Where a workspace folder is: its name, URIs of its files, paths inside it."""

    name: str

    def uri_for(self, rel_path: str) -> str: ...

    def rel_path(self, path: Path) -> str | None: ...


def lsp_range(start_line: int, end_line: int) -> dict[str, Any]:
    """1-based inclusive lines -> LSP range (0-based; the end is the start of the next line)."""
    start = max(0, start_line - 1)
    end = max(start + 1, end_line)
    return {"start": {"line": start, "character": 0}, "end": {"line": end, "character": 0}}


def relative(folder: Locator | None, path: str) -> str:
    """Make sure a path leaving the process is workspace-relative (never absolute)."""
    if folder is not None and (path.startswith("/") or (len(path) > 1 and path[1] == ":")):
        rel = folder.rel_path(Path(path))
        return rel if rel is not None else Path(path).name
    return path


def camel(value: Any) -> Any:
    """snake_case keys -> camelCase, recursively."""
    if isinstance(value, dict):
        return {_camel_key(k): camel(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [camel(v) for v in value]
    return value


def _camel_key(key: Any) -> Any:
    if not isinstance(key, str) or "_" not in key.strip("_"):
        return key
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _for(folder: Locator | None, record: dict[str, Any]) -> dict[str, Any]:
    """The record as the face wants it: as is for the CLI, located camelCase for the LSP."""
    if folder is None:
        return record
    path = relative(folder, record["path"])
    located = {
        "uri": folder.uri_for(path),
        "range": lsp_range(record["start_line"], record["end_line"]),
    }
    return {**located, **camel({**record, "path": path})}


def related_json(found: Related, folder: Locator | None = None) -> dict[str, Any]:
    """What relates to a place: each place with its relation ("doc", "code", "test",
    "caller"), and how many places call the symbol (``called_more``: at least that many)."""
    return {
        "related": [{**hit_json(hit, folder), "relation": kind} for kind, hit in found.entries()],
        "called": found.called,
        "called_more": found.more,
    }


def hit_json(hit: Hit, folder: Locator | None = None, *, with_text: bool = False) -> dict[str, Any]:
    record: dict[str, Any] = {
        "chunk_id": hit.chunk_id,
        "path": hit.path,
        "start_line": hit.start_line,
        "end_line": hit.end_line,
        "kind": hit.kind,
        "language": hit.language,
        "text_type": hit.text_type,
        "title": hit.title,
        "breadcrumb": list(hit.breadcrumb),
        "snippet": hit.snippet,
        "score": round(float(hit.score), 4),
    }
    if hit.place:
        record["place"] = hit.place  # the page, slide, sheet or cell of a document
    if with_text:
        record["text"] = hit.text
    out = _for(folder, record)
    if folder is not None:
        out["folder"] = folder.name
    return out


def explanation_json(explanation: Explanation) -> dict[str, Any]:
    """Why a hit ranks where it does (see :class:`groundls.results.Explanation`); the same keys
    for both faces."""
    return {
        "score": explanation.score,
        "fused": explanation.fused,
        "lists": [
            {"list": p.name, "rank": p.rank, "weight": p.weight, "share": p.share}
            for p in explanation.lists
        ],
        "signals": dict(explanation.signals),
    }


def search_json(result: SearchResult, folder: Locator | None = None) -> dict[str, Any]:
    """Hits with the search's confidence (``high``/``medium``/``low``/``none``) and its reason;
    each hit with its ``explain`` when the search was asked to explain."""
    hits = [hit_json(h, folder) for h in result]
    for record, explanation in zip(hits, result.explanations, strict=False):
        record["explain"] = explanation_json(explanation)
    return {
        "hits": hits,
        "confidence": result.confidence,
        ("confidence_reason" if folder is None else "confidenceReason"): result.reason,
        ("searched_as" if folder is None else "searchedAs"): result.searched_as,
        "coverage": None if result.coverage is None else round(result.coverage, 3),
        "notice": result.notice,
    } | ({"language": language_json(result.language, folder)} if result.language else {})


def language_json(language: QuestionLanguage, folder: Locator | None = None) -> dict[str, Any]:
    """What the search decided about a question's language (``explain``)."""
    camel = folder is not None
    return {
        "script": language.script,
        "language": language.language,
        "spaces": language.spaces,
        "rewrite": language.rewrite,
        ("searchedAs" if camel else "searched_as"): language.searched_as,
        "unlikely": language.unlikely,
        "leaning": {k: round(v, 4) for k, v in language.leaning.items()},
        ("rewriteLeaning" if camel else "rewrite_leaning"): {
            k: round(v, 4) for k, v in language.rewrite_leaning.items()
        },
        ("namesNothingHere" if camel else "names_nothing_here"): language.names_nothing_here,
        "translation": language.translation,
        "translated": language.translated,
    }


def history_json(record: dict[str, Any]) -> dict[str, Any]:
    """A history record as the faces give it: each citation's supporting lines as
    ``{"line", "text"}`` objects, as in an answer (the record keeps them as pairs)."""
    citations = [
        {
            **c,
            "support": [
                {"line": s[0], "text": s[1]} if isinstance(s, list | tuple) else s
                for s in c.get("support") or []
            ],
        }
        if isinstance(c, dict)
        else c
        for c in record.get("citations") or []
    ]
    return {**record, "citations": citations}


def citation_json(citation: Citation, folder: Locator | None = None) -> dict[str, Any]:
    record = asdict(citation)
    record["support"] = [{"line": line, "text": text} for line, text in citation.support]
    return _for(folder, record)


def answer_json(answer: Answer, folder: Locator | None = None) -> dict[str, Any]:
    """The public shape of an answer (CLI --json and --batch, the LSP's groundls.ask)."""
    record = {
        "answer": answer.answer,
        "found": answer.found,
        "language": answer.language,
        "mode": answer.mode,
        "confidence": answer.confidence,
        "model": answer.model,
        "citations": [citation_json(c, folder) for c in answer.citations],
        # every excerpt the model read, by its rank (n), and the one it chose before writing
        "sources": [citation_json(c, folder) for c in answer.sources],
        "chosen": answer.chosen,
        "dropped_citations": list(answer.dropped_citations),
        "repairs": dict(answer.repairs),
        "cut": answer.cut,
        "notice": answer.notice,
        # whether the workspace answers it, and the evidence that decided
        "verdict": answer.verdict,
        "thread": answer.thread,
        "timing": {k: answer.timing.get(k) for k in ("retrieve_ms", "first_token_ms", "total_ms")},
    }
    if folder is None:
        return record
    timing = record.pop("timing")  # its keys stay snake_case: clients read them as they are
    return {**camel(record), "timing": timing}


def report_json(report: IndexReport, folder: Locator | None = None) -> dict[str, Any]:
    """An index run: every counter for the CLI; the LSP's summary shape for editors."""
    if folder is None:
        return asdict(report)
    return {
        "files": report.files_seen,
        "filesIndexed": report.files_indexed,
        "filesUnchanged": report.files_unchanged,
        "filesRemoved": report.files_removed,
        "chunks": report.chunks,
        "embedded": report.embedded,
        "embeddedParts": report.embedded_parts,
        "reused": report.reused,
        "skipped": sum(report.skipped.values()),
        "skippedByReason": dict(report.skipped),
        "skippedFiles": [{"path": path, "why": why} for path, why in report.skipped_files],
        "seconds": round(report.seconds, 3),
        "cancelled": report.cancelled,
        "errors": list(report.errors),
        "summary": report.summary,
    }


def scrub(value: Any, folder: Locator) -> Any:
    """Replace absolute paths in free-form data (stats, history) by relative or ~ forms."""
    if isinstance(value, dict):
        return {k: scrub(v, folder) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, folder) for v in value]
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, str) and value.startswith("/") and "\n" not in value:
        rel = folder.rel_path(Path(value))
        if rel is not None:
            return rel
        home = str(Path.home())
        if value.startswith(home + "/"):
            return "~" + value[len(home) :]
        return Path(value).name
    return value


def located(record: Any, folder: Locator) -> Any:
    """Add ``uri`` + ``range`` to every dict that has a path and 1-based start/end lines."""
    if isinstance(record, list):
        return [located(r, folder) for r in record]
    if not isinstance(record, dict):
        return record
    out = {k: located(v, folder) for k, v in record.items()}
    path, start, end = out.get("path"), out.get("startLine"), out.get("endLine")
    if isinstance(path, str) and isinstance(start, int) and isinstance(end, int):
        out.setdefault("uri", folder.uri_for(path))
        out.setdefault("range", lsp_range(start, end))
    return out
