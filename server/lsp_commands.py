"""The ``groundls.*`` workspace commands: argument checking, engine calls and LSP-style JSON.

Everything here is plain, blocking Python that the server runs on worker threads; it raises
:class:`ArgError` for bad arguments (InvalidParams) and :class:`NotFound` for unknown ids.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundls.chunkers.base import CHUNK_ID_RE, KINDS
from groundls.lsp_folders import Folder, Folders, summary
from groundls.results import Hit, IndexReport

log = logging.getLogger("groundls.lsp.commands")

SEARCH = "groundls.search"
SIMILAR = "groundls.similar"
ASK = "groundls.ask"
REINDEX = "groundls.reindex"
REFERENCE = "groundls.reference"
STATUS = "groundls.status"
HISTORY = "groundls.history"

#: Every command, in the order ``executeCommandProvider`` lists them.
COMMANDS = (SEARCH, SIMILAR, ASK, REINDEX, REFERENCE, STATUS, HISTORY)

MAX_K = 100
MAX_ASK_K = 50


class ArgError(ValueError):
    """A command argument is missing, unknown or of the wrong type (JSON-RPC InvalidParams)."""


class NotFound(LookupError):
    """A well-formed id that is not in any index (seed 003's 404)."""


# -- argument checking ------------------------------------------------------------------------


@dataclass
class Filters:
    k: int | None = None
    paths: list[str] | None = None
    languages: list[str] | None = None
    kinds: list[str] | None = None


@dataclass
class SearchArgs:
    query: str
    filters: Filters = field(default_factory=Filters)


@dataclass
class SimilarArgs:
    chunk_id: str | None = None
    uri: str | None = None
    line: int = 0
    k: int | None = None


@dataclass
class AskArgs:
    question: str
    filters: Filters = field(default_factory=Filters)
    uri: str | None = None


_USAGE = {
    SEARCH: '{"query": "...", "k"?: 10, "paths"?: ["src/**"], "languages"?: [...], '
    '"kinds"?: [...]}',
    SIMILAR: '{"uri": "file:///...", "position": {"line": 0, "character": 0}} or {"chunkId": "..."}'
    ', "k"?: 10',
    ASK: '{"question": "...", "k"?: 6, "paths"?: [...], "languages"?: [...], "kinds"?: [...]}',
    REINDEX: '{} for every folder, or {"uri": "file:///..."} for one file or folder',
    REFERENCE: '{"chunkId": "<16 hex digits>"}',
    STATUS: "{} (no arguments)",
    HISTORY: '{"limit"?: 50}',
}


def usage(command: str) -> str:
    return f"{command} takes one object argument: {_USAGE[command]}"


def one_object(command: str, arguments: list[Any] | tuple[Any, ...] | None) -> dict[str, Any]:
    """The single object argument every command takes (none at all means ``{}``)."""
    args = list(arguments or [])
    if not args:
        return {}
    if len(args) > 1:
        raise ArgError(f"{command}: expected one argument, got {len(args)}. {usage(command)}")
    if args[0] is None or args[0] == []:
        # Lua clients (Neovim) encode an empty table {} as the JSON array [].
        return {}
    if not isinstance(args[0], dict):
        raise ArgError(
            f"{command}: the argument must be an object, got {_type(args[0])}. {usage(command)}"
        )
    return args[0]


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _only(command: str, args: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise ArgError(
            f"{command}: unknown argument(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(sorted(allowed)) or 'none'}. {usage(command)}"
        )


def _text(command: str, args: dict[str, Any], key: str) -> str:
    if key not in args or args[key] is None:
        raise ArgError(f'{command}: "{key}" is required. {usage(command)}')
    value = args[key]
    if not isinstance(value, str):
        raise ArgError(f'{command}: "{key}" must be a string, got {_type(value)}')
    if not value.strip():
        raise ArgError(f'{command}: "{key}" must not be empty')
    return value


def _opt_int(command: str, args: dict[str, Any], key: str, low: int, high: int) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ArgError(f'{command}: "{key}" must be an integer, got {_type(value)}')
    if not low <= value <= high:
        raise ArgError(f'{command}: "{key}" must be between {low} and {high}, got {value}')
    return value


def _opt_strings(command: str, args: dict[str, Any], key: str) -> list[str] | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ArgError(f'{command}: "{key}" must be an array of non-empty strings')
    return list(value) or None


def _filters(command: str, args: dict[str, Any]) -> Filters:
    kinds = _opt_strings(command, args, "kinds")
    if kinds:
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            raise ArgError(
                f"{command}: unknown kind(s) {', '.join(map(repr, bad))}; use {', '.join(KINDS)}"
            )
    return Filters(
        k=_opt_int(command, args, "k", 1, MAX_K),
        paths=_opt_strings(command, args, "paths"),
        languages=_opt_strings(command, args, "languages"),
        kinds=kinds,
    )


def _chunk_id(command: str, args: dict[str, Any]) -> str:
    value = _text(command, args, "chunkId")
    if not CHUNK_ID_RE.match(value):
        raise ArgError(
            f'{command}: "chunkId" must be 16 lowercase hex digits (as returned by '
            f"groundls.search), got {value!r}"
        )
    return value


def _uri(command: str, args: dict[str, Any], required: bool) -> str | None:
    if args.get("uri") is None:
        if required:
            raise ArgError(f'{command}: "uri" is required. {usage(command)}')
        return None
    value = _text(command, args, "uri")
    if not value.startswith("file:"):
        raise ArgError(f'{command}: "uri" must be a file: URI, got {value!r}')
    return value


def parse_search(args: dict[str, Any]) -> SearchArgs:
    _only(SEARCH, args, {"query", "k", "paths", "languages", "kinds"})
    return SearchArgs(query=_text(SEARCH, args, "query"), filters=_filters(SEARCH, args))


def parse_similar(args: dict[str, Any]) -> SimilarArgs:
    _only(SIMILAR, args, {"uri", "position", "chunkId", "k"})
    k = _opt_int(SIMILAR, args, "k", 1, MAX_K)
    if args.get("chunkId") is not None:
        if args.get("uri") is not None or args.get("position") is not None:
            raise ArgError(f'{SIMILAR}: give either "chunkId" or "uri" + "position", not both')
        return SimilarArgs(chunk_id=_chunk_id(SIMILAR, args), k=k)
    if args.get("uri") is None:
        raise ArgError(f'{SIMILAR}: "uri" + "position" or "chunkId" is required. {usage(SIMILAR)}')
    uri = _uri(SIMILAR, args, required=True)
    pos = args.get("position")
    if not isinstance(pos, dict):
        raise ArgError(
            f'{SIMILAR}: "position" must be an object {{"line": 0, "character": 0}}, '
            f"got {_type(pos)}"
        )
    line = pos.get("line")
    if isinstance(line, bool) or not isinstance(line, int) or line < 0:
        raise ArgError(f'{SIMILAR}: "position.line" must be an integer >= 0 (0-based)')
    return SimilarArgs(uri=uri, line=line, k=k)


def parse_ask(args: dict[str, Any]) -> AskArgs:
    _only(ASK, args, {"question", "k", "paths", "languages", "kinds", "uri"})
    filters = _filters(ASK, args)
    if filters.k is not None and filters.k > MAX_ASK_K:
        raise ArgError(f'{ASK}: "k" must be between 1 and {MAX_ASK_K}, got {filters.k}')
    return AskArgs(
        question=_text(ASK, args, "question"),
        filters=filters,
        uri=_uri(ASK, args, required=False),
    )


def parse_reindex(args: dict[str, Any]) -> str | None:
    _only(REINDEX, args, {"uri"})
    return _uri(REINDEX, args, required=False)


def parse_reference(args: dict[str, Any]) -> str:
    _only(REFERENCE, args, {"chunkId", "docId"})
    if args.get("docId") is not None and not isinstance(args["docId"], str):
        raise ArgError(f'{REFERENCE}: "docId" must be a string, got {_type(args["docId"])}')
    return _chunk_id(REFERENCE, args)


def parse_status(args: dict[str, Any]) -> None:
    _only(STATUS, args, set())


def parse_history(args: dict[str, Any]) -> int:
    _only(HISTORY, args, {"limit"})
    return _opt_int(HISTORY, args, "limit", 1, 1000) or 50


# -- JSON shapes --------------------------------------------------------------------------------


def lsp_range(start_line: int, end_line: int) -> dict[str, Any]:
    """1-based inclusive lines -> LSP range (0-based; the end is the start of the next line)."""
    start = max(0, start_line - 1)
    end = max(start + 1, end_line)
    return {"start": {"line": start, "character": 0}, "end": {"line": end, "character": 0}}


def safe_rel(folder: Folder, path: str) -> str:
    """Make sure a path leaving the server is workspace-relative (never absolute)."""
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        rel = folder.rel_path(Path(path))
        return rel if rel is not None else Path(path).name
    return path


def hit_json(folder: Folder, hit: Hit, *, with_text: bool = False) -> dict[str, Any]:
    path = safe_rel(folder, hit.path)
    out: dict[str, Any] = {
        "chunkId": hit.chunk_id,
        "uri": folder.uri_for(path),
        "range": lsp_range(hit.start_line, hit.end_line),
        "path": path,
        "startLine": hit.start_line,
        "endLine": hit.end_line,
        "kind": hit.kind,
        "language": hit.language,
        "textType": hit.text_type,
        "title": hit.title,
        "breadcrumb": list(hit.breadcrumb),
        "snippet": hit.snippet,
        "score": round(float(hit.score), 4),
        "folder": folder.name,
    }
    if with_text:
        out["text"] = hit.text
    return out


def report_json(report: IndexReport) -> dict[str, Any]:
    return {
        "files": report.files_seen,
        "filesIndexed": report.files_indexed,
        "filesUnchanged": report.files_unchanged,
        "filesRemoved": report.files_removed,
        "chunks": report.chunks,
        "embedded": report.embedded,
        "reused": report.reused,
        "skipped": sum(report.skipped.values()),
        "skippedByReason": dict(report.skipped),
        "seconds": round(report.seconds, 3),
        "cancelled": report.cancelled,
        "errors": list(report.errors),
        "summary": summary(report),
    }


def scrub(value: Any, folder: Folder) -> Any:
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


def camel(value: Any) -> Any:
    """snake_case keys -> camelCase, recursively (LSP-style JSON for engine dictionaries)."""
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


def _locate(folder: Folder, record: Any) -> Any:
    """Add ``uri`` + ``range`` to every dict that has a path and 1-based start/end lines."""
    if isinstance(record, list):
        return [_locate(folder, r) for r in record]
    if not isinstance(record, dict):
        return record
    out = {k: _locate(folder, v) for k, v in record.items()}
    path, start, end = out.get("path"), out.get("startLine"), out.get("endLine")
    if isinstance(path, str) and isinstance(start, int) and isinstance(end, int):
        out.setdefault("uri", folder.uri_for(path))
        out.setdefault("range", lsp_range(start, end))
    return out


# -- the commands -------------------------------------------------------------------------------


@dataclass
class Call:
    """What a running command may use besides its arguments."""

    folders: Folders
    cancel: threading.Event = field(default_factory=threading.Event)
    #: Streams a progress message (ask: the answer text so far) to the request's work-done token.
    report: Callable[[str], None] = lambda message: None
    default_k: int = 10
    answer_service: Callable[[Folder], Any] | None = None


def _indexing_note(folders: list[Folder]) -> dict[str, Any]:
    busy = [f for f in folders if f.indexing]
    out: dict[str, Any] = {"indexing": bool(busy)}
    notes = []
    if busy:
        notes.append(
            "; ".join(f.progress_message() for f in busy)
            + " - results come from what is indexed so far."
        )
    notes += [f"{f.name} has no index: {f.last_error}" for f in folders if f.state == "error"]
    if notes:
        out["message"] = " ".join(notes)
    return out


def _ready(folders: list[Folder], wait_s: float = 0.0) -> list[Folder]:
    """Folders whose engine is open (optionally waiting a little for ones still opening)."""
    deadline = time.monotonic() + wait_s
    for folder in folders:
        folder.opened.wait(max(0.0, deadline - time.monotonic()))
    return [f for f in folders if f.engine is not None]


def _ready_or_fail(folders: list[Folder], wait_s: float = 2.0) -> list[Folder]:
    """Like :func:`_ready`, but an error when no index can be opened at all."""
    ready = _ready(folders, wait_s)
    broken = [f for f in folders if f.state == "error"]
    if not ready and broken:
        raise RuntimeError(
            "no index is available: " + "; ".join(f"{f.name}: {f.last_error}" for f in broken)
        )
    return ready


def no_folders() -> ArgError:
    return ArgError("no workspace folder is open: open a folder (or set rootUri) first")


def search(call: Call, args: SearchArgs) -> dict[str, Any]:
    folders = call.folders.all()
    if not folders:
        raise no_folders()
    k = args.filters.k or call.default_k
    hits: list[tuple[Folder, Hit]] = []
    for folder in _ready_or_fail(folders):
        assert folder.engine is not None
        found = folder.engine.search(
            args.query,
            k=k,
            paths=args.filters.paths,
            languages=args.filters.languages,
            kinds=args.filters.kinds,
        )
        hits.extend((folder, h) for h in found)
    hits.sort(key=lambda fh: -fh[1].score)
    return {"hits": [hit_json(f, h) for f, h in hits[:k]], **_indexing_note(folders)}


def _find_chunk(call: Call, chunk_id: str) -> tuple[Folder, Hit]:
    for folder in _ready_or_fail(call.folders.all()):
        assert folder.engine is not None
        hit = folder.engine.get_chunk(chunk_id)
        if hit is not None:
            return folder, hit
    raise NotFound(f"chunk not found: {chunk_id} (not in the index; re-run groundls.search)")


def similar(call: Call, args: SimilarArgs) -> dict[str, Any]:
    folders = call.folders.all()
    if not folders:
        raise no_folders()
    k = args.k or call.default_k
    if args.chunk_id is not None:
        folder, source = _find_chunk(call, args.chunk_id)
    else:
        assert args.uri is not None
        located = call.folders.for_uri(args.uri)
        if located is None:
            raise ArgError(f'{SIMILAR}: "uri" {args.uri!r} is not inside an open workspace folder')
        folder, rel = located
        if not _ready([folder], wait_s=2.0):
            return {"hits": [], "source": None, **_indexing_note([folder])}
        assert folder.engine is not None
        found = folder.engine.chunk_at(rel, args.line + 1)
        if found is None:
            return {
                "hits": [],
                "source": None,
                "message": f"nothing indexed at {rel}:{args.line + 1}",
                **_indexing_note([folder]),
            }
        source = found
    assert folder.engine is not None
    try:
        hits = folder.engine.similar(source.chunk_id, k=k)
    except KeyError as exc:
        raise NotFound(f"chunk not found: {source.chunk_id}") from exc
    return {
        "source": hit_json(folder, source),
        "hits": [hit_json(folder, h) for h in hits],
        **_indexing_note([folder]),
    }


def _doc_id(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]


def _structured(folder: Folder, hit: Hit) -> dict[str, Any]:
    """Seed 003's StructuredChunk, LSP-style, with a location and no filesystem path."""
    out: dict[str, Any] = {
        "chunkId": hit.chunk_id,
        "docId": _doc_id(safe_rel(folder, hit.path)),
        "textType": hit.text_type,
        "content": hit.text,
        "sectionPath": [{"level": i + 1, "title": title} for i, title in enumerate(hit.breadcrumb)],
        "display": {"title": hit.title, "breadcrumb": list(hit.breadcrumb)},
        "uri": folder.uri_for(safe_rel(folder, hit.path)),
        "range": lsp_range(hit.start_line, hit.end_line),
        "startLine": hit.start_line,
        "endLine": hit.end_line,
        "kind": hit.kind,
        "language": hit.language,
    }
    if hit.kind == "code":
        out["contentMd"] = f"```{hit.language}\n{hit.text.rstrip()}\n```"
    elif hit.text_type in ("table", "list", "code"):
        out["contentMd"] = hit.text
    return out


def reference(call: Call, chunk_id: str) -> dict[str, Any]:
    folder, hit = _find_chunk(call, chunk_id)
    assert folder.engine is not None
    path = safe_rel(folder, hit.path)
    related: list[Hit] = []
    parent = hit.breadcrumb[:-1]
    # seed 003: related chunks are the supporting chunks of the same section (e.g. body + table).
    for line in (hit.start_line - 1, hit.end_line + 1):
        if line < 1:
            continue
        near = folder.engine.chunk_at(path, line)
        if (
            near is not None
            and near.chunk_id != hit.chunk_id
            and near.breadcrumb[:-1] == parent
            and all(r.chunk_id != near.chunk_id for r in related)
        ):
            related.append(near)
    title = hit.breadcrumb[0] if hit.kind == "doc" and hit.breadcrumb else Path(path).name
    return {
        "reference": {
            "doc": {"id": _doc_id(path), "title": title, "path": path},
            "chunk": _structured(folder, hit),
            "relatedChunks": [_structured(folder, r) for r in related],
        }
    }


def reindex(call: Call, uri: str | None, token: Any = None) -> dict[str, Any]:
    folders = call.folders.all()
    if not folders:
        raise no_folders()
    if uri is not None:
        located = call.folders.for_uri(uri)
        if located is None:
            raise ArgError(f'{REINDEX}: "uri" {uri!r} is not inside an open workspace folder')
        folder, rel = located
        if rel == "":
            futures = [(folder, folder.request_full(token=token))]
        else:
            futures = [(folder, folder.request_paths([rel], urgent=True))]
    else:
        futures = [(f, f.request_full(token=token)) for f in folders]
    per_folder = []
    total = IndexReport()
    for folder, fut in futures:
        while True:
            try:
                report = fut.result(timeout=0.1)
                break
            except FutureTimeout:
                if call.cancel.is_set():
                    folder.cancel_current()
            except Exception as exc:  # noqa: BLE001 - re-raised with the folder's name
                raise RuntimeError(f"re-indexing {folder.name} failed: {exc}") from exc
        per_folder.append({"folder": folder.name, **report_json(report)})
        total.files_seen += report.files_seen
        total.files_indexed += report.files_indexed
        total.files_unchanged += report.files_unchanged
        total.files_removed += report.files_removed
        total.chunks += report.chunks
        total.embedded += report.embedded
        total.reused += report.reused
        for reason, n in report.skipped.items():
            total.skipped[reason] = total.skipped.get(reason, 0) + n
        total.seconds += report.seconds
        total.cancelled = total.cancelled or report.cancelled
        total.errors.extend(report.errors)
    return {**report_json(total), "folders": per_folder}


def _index_location(folder: Folder) -> dict[str, Any]:
    engine = folder.engine
    if engine is None:
        return {}
    path = Path(getattr(engine, "index_path", ""))
    size = 0
    with contextlib.suppress(OSError):
        size = path.stat().st_size
    return {
        "index": {"file": path.name, "location": scrub(str(path.parent), folder), "sizeBytes": size}
    }


def status(call: Call) -> dict[str, Any]:
    out = []
    for folder in call.folders.all():
        entry: dict[str, Any] = {
            "name": folder.name,
            "uri": folder.uri,
            "state": folder.state,
            "indexing": folder.indexing,
            "lastError": folder.last_error,
        }
        p = folder.progress
        if folder.indexing and p is not None:
            pct = round(100 * p.done_files / p.total_files) if p.total_files else 0
            entry["progress"] = {
                "doneFiles": p.done_files,
                "totalFiles": p.total_files,
                "percentage": pct,
                "message": folder.progress_message(),
            }
        if folder.last_report is not None:
            entry["lastIndex"] = report_json(folder.last_report)
        if folder.engine is not None:
            stats = camel(scrub(folder.engine.stats(), folder))
            entry["files"] = stats.get("files")
            entry["chunks"] = stats.get("chunks")
            entry["model"] = stats.get("model") or stats.get("models")
            entry.update(_index_location(folder))
            entry["stats"] = {k: v for k, v in stats.items() if "path" not in k.lower()}
        out.append(entry)
    return {"folders": out}


def history(call: Call, limit: int) -> dict[str, Any]:
    entries = []
    for folder in _ready(call.folders.all()):
        assert folder.engine is not None
        for record in folder.engine.history(limit=limit):
            entry = _locate(folder, camel(scrub(record, folder)))
            entries.append({"folder": folder.name, **entry})
    return {"entries": entries[:limit]}


def _citation_json(folder: Folder, c: Any) -> dict[str, Any]:
    path = safe_rel(folder, c.path)
    return {
        "n": c.n,
        "chunkId": c.chunk_id,
        "uri": folder.uri_for(path),
        "range": lsp_range(c.start_line, c.end_line),
        "path": path,
        "startLine": c.start_line,
        "endLine": c.end_line,
        "title": getattr(c, "title", ""),
        "weak": bool(getattr(c, "weak", False)),
    }


def ask(call: Call, args: AskArgs) -> dict[str, Any]:
    folders = call.folders.all()
    if not folders:
        raise no_folders()
    if args.uri is not None:
        located = call.folders.for_uri(args.uri)
        if located is None:
            raise ArgError(f'{ASK}: "uri" {args.uri!r} is not inside an open workspace folder')
        folders = [located[0]]
    ready = _ready(folders, wait_s=5.0)
    if not ready:
        raise RuntimeError(
            "no index is open yet: " + "; ".join(f.progress_message() for f in folders)
        )
    folder = ready[0]
    assert folder.engine is not None
    service = call.answer_service(folder) if call.answer_service else None
    if service is None:
        return {**_extractive(call, folder, args), **_indexing_note(folders)}
    text: list[str] = []
    last = [0.0]

    def on_sources(citations: list[Any]) -> None:
        call.report(f"Found {len(citations)} source(s); answering...")

    def on_token(piece: str) -> None:
        text.append(piece)
        now = time.monotonic()
        if now - last[0] >= 0.05:
            last[0] = now
            call.report("".join(text))

    try:
        from groundls.answer import AnswerError
    except ImportError:  # pragma: no cover - the service came from somewhere else
        AnswerError = ValueError  # noqa: N806
    try:
        answer = service.ask(
            args.question,
            k=args.filters.k,
            paths=args.filters.paths,
            languages=args.filters.languages,
            kinds=args.filters.kinds,
            on_sources=on_sources,
            on_token=on_token,
            cancel=call.cancel,
        )
    except AnswerError as exc:
        raise ArgError(f"{ASK}: {exc}") from exc
    if text:
        call.report(answer.answer)
    return {
        "answer": answer.answer,
        "found": answer.found,
        "language": getattr(answer, "language", None),
        "citations": [_citation_json(folder, c) for c in answer.citations],
        "mode": answer.mode,
        "model": answer.model,
        "timing": dict(answer.timing),
        "cut": bool(getattr(answer, "cut", False)),
        "notice": getattr(answer, "notice", ""),
        **_indexing_note(folders),
    }


def _extractive(call: Call, folder: Folder, args: AskArgs) -> dict[str, Any]:
    """Without an answer service: the retrieved excerpts, clearly marked as not generated."""
    assert folder.engine is not None
    started = time.perf_counter()
    hits = folder.engine.search(
        args.question,
        k=args.filters.k or 3,
        paths=args.filters.paths,
        languages=args.filters.languages,
        kinds=args.filters.kinds,
    )
    ms = round((time.perf_counter() - started) * 1000, 1)
    if not hits:
        return {
            "answer": "No matching chunks were found in this workspace.",
            "found": False,
            "citations": [],
            "mode": "not_found",
            "model": "",
            "timing": {"retrieve_ms": ms},
        }
    lines = ["(extractive: the most relevant excerpts, not a generated answer)"]
    citations = []
    for n, hit in enumerate(hits, 1):
        lines.append(f"[{n}] {hit.snippet}")
        path = safe_rel(folder, hit.path)
        citations.append(
            {
                "n": n,
                "chunkId": hit.chunk_id,
                "uri": folder.uri_for(path),
                "range": lsp_range(hit.start_line, hit.end_line),
                "path": path,
                "startLine": hit.start_line,
                "endLine": hit.end_line,
                "title": hit.title,
                "weak": False,
            }
        )
    return {
        "answer": "\n".join(lines),
        "found": True,
        "citations": citations,
        "mode": "extractive",
        "model": "",
        "timing": {"retrieve_ms": ms, "total_ms": ms},
    }
