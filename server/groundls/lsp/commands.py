"""The ``groundls.*`` workspace commands: what each one does, over the folders' workspaces.

Everything here is plain, blocking Python that the server runs on worker threads. Arguments are
checked in :mod:`groundls.lsp.args`; results are shaped by :mod:`groundls.wire`. A command is one
handler here plus one entry in :data:`COMMANDS` (and its arguments in ``args``).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from groundls import wire
from groundls.lsp import args as a
from groundls.lsp.args import ArgError
from groundls.lsp.calls import (
    Call,
    NotFound,
    _all_folders,
    _folder_of,
    _indexing_note,
    _ready,
    _ready_or_fail,
)
from groundls.lsp.folders import Folder
from groundls.results import (
    CONFIDENCE_LEVELS,
    AnswerError,
    Citation,
    Hit,
    IndexReport,
    SearchResult,
)
from groundls.workspace import NotReadable, best_of

log = logging.getLogger("groundls.lsp.commands")


def search(call: Call, args: a.SearchArgs) -> dict[str, Any]:
    folders = _all_folders(call)
    filters = replace(args.filters, k=args.filters.k or call.default_k)
    # the index as the search reads it: indexing that ends during a slow search left it partial
    note = _indexing_note(folders)
    groups = [
        (folder, folder.workspace.search(args.query, filters, call.cancel, explain=args.explain))
        for folder in _ready_or_fail(folders)
        if folder.workspace is not None
    ]
    hits = best_of(groups, filters.k or call.default_k)
    surest = min(
        (result for _, result in groups),
        key=lambda r: CONFIDENCE_LEVELS.index(r.confidence),
        default=SearchResult(),
    )
    why = {
        (folder.name, hit.chunk_id): explanation
        for folder, result in groups
        for hit, explanation in zip(result, result.explanations, strict=False)
    }
    records = []
    for folder, hit in hits:
        record = wire.hit_json(hit, folder)
        if (folder.name, hit.chunk_id) in why:
            record["explain"] = wire.camel(wire.explanation_json(why[folder.name, hit.chunk_id]))
        records.append(record)
    languages = {
        folder.name: wire.language_json(result.language, folder)
        for folder, result in groups
        if result.language is not None
    }
    return {
        "hits": records,
        "confidence": surest.confidence,
        "confidenceReason": surest.reason,
        **({"language": languages} if languages else {}),
        **note,
    }


def _find_chunk(call: Call, chunk_id: str) -> tuple[Folder, Hit]:
    for folder in _ready_or_fail(call.folders.all()):
        if folder.workspace is None:
            continue
        hit = folder.workspace.get_chunk(chunk_id)
        if hit is not None:
            return folder, hit
    raise NotFound(f"chunk not found: {chunk_id} (not in the index; re-run groundls.search)")


def similar(call: Call, args: a.SimilarArgs) -> dict[str, Any]:
    _all_folders(call)
    k = args.k or call.default_k
    if args.chunk_id is not None:
        folder, source = _find_chunk(call, args.chunk_id)
    else:
        assert args.uri is not None
        folder, rel = _folder_of(call, a.SIMILAR, args.uri)
        if not _ready([folder], wait_s=2.0) or folder.workspace is None:
            return {"hits": [], "source": None, **_indexing_note([folder])}
        found = folder.workspace.chunk_at(rel, args.line + 1)
        if found is None:
            return {
                "hits": [],
                "source": None,
                "message": f"nothing indexed at {rel}:{args.line + 1}",
                **_indexing_note([folder]),
            }
        source = found
    workspace = folder.workspace
    if workspace is None:
        raise NotFound(f"chunk not found: {source.chunk_id} (its folder closed)")
    try:
        hits = workspace.similar(source.chunk_id, k=k)
    except KeyError as exc:
        raise NotFound(f"chunk not found: {source.chunk_id}") from exc
    return {
        "source": wire.hit_json(source, folder),
        "hits": [wire.hit_json(h, folder) for h in hits],
        **_indexing_note([folder]),
    }


def _doc_id(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]


def _structured(folder: Folder, hit: Hit) -> dict[str, Any]:
    """Seed 003's StructuredChunk, LSP-style, with a location and no filesystem path."""
    path = wire.relative(folder, hit.path)
    out: dict[str, Any] = {
        "chunkId": hit.chunk_id,
        "docId": _doc_id(path),
        "textType": hit.text_type,
        "content": hit.reading,
        "sectionPath": [{"level": i + 1, "title": title} for i, title in enumerate(hit.breadcrumb)],
        "display": {"title": hit.title, "breadcrumb": list(hit.breadcrumb)},
        "uri": folder.uri_for(path),
        "range": wire.lsp_range(hit.start_line, hit.end_line),
        "startLine": hit.start_line,
        "endLine": hit.end_line,
        "kind": hit.kind,
        "language": hit.language,
    }
    if hit.place:
        out["place"] = hit.place
    if hit.kind == "code":
        out["contentMd"] = f"```{hit.language}\n{hit.text.rstrip()}\n```"
    elif hit.text_type in ("table", "list", "code"):
        out["contentMd"] = hit.reading
    return out


def reference(call: Call, args: a.ReferenceArgs) -> dict[str, Any]:
    folder, hit = _find_chunk(call, args.chunk_id)
    assert folder.workspace is not None  # _find_chunk only returns open folders
    path = wire.relative(folder, hit.path)
    related = folder.workspace.section_neighbours(hit)
    title = hit.breadcrumb[0] if hit.kind == "doc" and hit.breadcrumb else Path(path).name
    return {
        "reference": {
            "doc": {"id": _doc_id(path), "title": title, "path": path},
            "chunk": _structured(folder, hit),
            "relatedChunks": [_structured(folder, r) for r in related],
        }
    }


def reindex(call: Call, args: a.ReindexArgs) -> dict[str, Any]:
    folders = _all_folders(call)
    uri, token = args.uri, None
    if uri is not None:
        folder, rel = _folder_of(call, a.REINDEX, uri)
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
        per_folder.append({"folder": folder.name, **wire.report_json(report, folder)})
        total.merge(report)
    return {**wire.report_json(total, folders[0]), "folders": per_folder}


def _index_location(folder: Folder) -> dict[str, Any]:
    if folder.workspace is None:
        return {}
    path = folder.workspace.index_path
    size = 0
    with contextlib.suppress(OSError):
        size = path.stat().st_size
    location = wire.scrub(str(path.parent), folder)
    return {"index": {"file": path.name, "location": location, "sizeBytes": size}}


def status(call: Call, _args: a.StatusArgs | None = None) -> dict[str, Any]:
    out = []
    for folder in call.folders.all():
        entry: dict[str, Any] = {
            "name": folder.name,
            "uri": folder.uri,
            "state": folder.state,
            "indexing": folder.indexing,
            "lastError": folder.last_error,
            "deepTier": folder.deep_message(),
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
            entry["lastIndex"] = wire.report_json(folder.last_report, folder)
        if folder.workspace is not None:
            stats = wire.camel(wire.scrub(folder.workspace.stats(), folder))
            entry["files"] = stats.get("files")
            entry["chunks"] = stats.get("chunks")
            entry["model"] = stats.get("models")
            entry["sendsTo"] = folder.workspace.sends_to()
            answers = folder.workspace.answers.status()
            entry["answers"] = wire.camel(
                {
                    k: answers.get(k)
                    for k in ("engine", "mode", "model", "loaded", "load_ms", "notice")
                }
            )
            entry["tiers"] = folder.workspace.tiers()
            # the shared base read in place (its file name, commit, files overlaid), or null
            entry["base"] = wire.camel(folder.workspace.base_status())
            entry["unavailableSpaces"] = folder.workspace.unavailable_spaces
            # the list weights in force, and how a question moves them (see --explain)
            entry["ranking"] = wire.camel(folder.workspace.ranking())
            entry.update(_index_location(folder))
            entry["stats"] = {k: v for k, v in stats.items() if "path" not in k.lower()}
            # each file left out and why (documents first), each with its place to open
            entry["skippedFiles"] = [
                {**item, "uri": folder.uri_for(item["path"])}
                for item in stats.get("skippedFiles", [])
            ]
        out.append(entry)
    return {"folders": out}


def delete_history(call: Call, args: a.DeleteHistoryArgs) -> dict[str, Any]:
    """Forget a thread of past questions (in the folder ``uri`` names, else wherever it is)."""
    folders = call.folders.all()
    if args.uri is not None:
        folders = [_folder_of(call, a.DELETE_HISTORY, args.uri)[0]]
    deleted = 0
    for folder in _ready(folders):
        if folder.workspace is not None:
            deleted += folder.workspace.delete_history(args.thread)
            if deleted:
                break
    if not deleted:
        raise NotFound(f"no history thread {args.thread} (see groundls.history)")
    return {"thread": args.thread, "deleted": deleted}


def document_text(call: Call, args: a.DocumentTextArgs) -> dict[str, Any]:
    """A document's extracted text and where its pages (slides, sheets, cells) begin, so an
    editor can show a citation of ``manual.pdf p. 12`` at its place, read-only."""
    folder, rel = _folder_of(call, a.DOCUMENT_TEXT, args.uri)
    if not _ready([folder], wait_s=2.0) or folder.workspace is None:
        raise NotFound(f"{rel}: the index is not ready ({folder.progress_message()})")
    try:
        document = folder.workspace.document_text(rel)
    except NotReadable as exc:
        raise NotFound(str(exc)) from None
    return {
        "path": rel,
        "uri": folder.uri_for(rel),
        "text": document.text,
        "places": [{"line": line, "place": label} for line, label in document.places],
    }


def history(call: Call, args: a.HistoryArgs) -> dict[str, Any]:
    limit = args.limit
    entries = []
    for folder in _ready(call.folders.all()):
        if folder.workspace is None:
            continue
        for record in folder.workspace.history(limit=limit):
            entry = wire.located(wire.camel(wire.scrub(wire.history_json(record), folder)), folder)
            entries.append({"folder": folder.name, **entry})
    return {"entries": entries[:limit]}


def ask(call: Call, args: a.AskArgs) -> dict[str, Any]:
    folders = _all_folders(call)
    if args.uri is not None:
        folders = [_folder_of(call, a.ASK, args.uri)[0]]
    ready = _ready(folders, wait_s=5.0)
    if not ready or ready[0].workspace is None:
        raise RuntimeError(
            "no index is open yet: " + "; ".join(f.progress_message() for f in folders)
        )
    folder = ready[0]
    text: list[str] = []
    last = [0.0]

    def on_sources(citations: list[Citation]) -> None:
        call.report(f"Found {len(citations)} source(s); answering...")

    def on_token(piece: str) -> None:
        text.append(piece)
        now = time.monotonic()
        if now - last[0] >= 0.05:
            last[0] = now
            call.report("".join(text))

    note = _indexing_note(folders)  # the index as the answer's search reads it
    try:
        answer = folder.workspace.answers.ask(
            args.question,
            args.filters,
            on_sources=on_sources,
            on_token=on_token,
            cancel=call.cancel,
            thread=args.thread,
            detail=args.detail,
        )
    except AnswerError as exc:
        raise ArgError(f"{a.ASK}: {exc}") from exc
    if text:
        call.report(answer.answer)
    return {**wire.answer_json(answer, folder), **note}


@dataclass(frozen=True)
class Command:
    """One ``groundls.*`` command: its argument class, its handler and its progress title."""

    args: type[Any]
    run: Callable[[Call, Any], dict[str, Any]]
    title: str

    @property
    def name(self) -> str:
        return str(self.args.COMMAND)


#: Every command, in the order ``executeCommandProvider`` lists them. A new command is its
#: argument class in ``args``, its handler above and one line here.
COMMANDS = (
    Command(a.SearchArgs, search, "groundls: searching"),
    Command(a.SimilarArgs, similar, "groundls: finding similar chunks"),
    Command(a.AskArgs, ask, "groundls: answering"),
    Command(a.ReindexArgs, reindex, "groundls: re-indexing"),
    Command(a.ReferenceArgs, reference, "groundls: reference"),
    Command(a.StatusArgs, status, "groundls: status"),
    Command(a.HistoryArgs, history, "groundls: history"),
    Command(a.DocumentTextArgs, document_text, "groundls: document text"),
    Command(a.DeleteHistoryArgs, delete_history, "groundls: deleting a history thread"),
)
