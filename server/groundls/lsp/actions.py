"""``textDocument/codeAction``: "Ask the workspace about this" (the selection, or the line,
becomes the question; the answer streams into a Markdown document the server opens with
``window/showDocument``) and "Show related" (the places ``textDocument/references`` lists, in
a document of links). Both run as commands any client can execute, so no editor needs glue:
``groundls.askInDocument`` and ``groundls.related`` (the code lenses' command too)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from groundls import wire
from groundls.lsp import places, positions
from groundls.lsp.documents import Documents, answer_markdown, link
from groundls.lsp.folders import uri_to_path
from groundls.lsp.lenses import RELATED
from groundls.lsp.surface import served
from groundls.results import AnswerError, Cancelled

METHODS = (types.TEXT_DOCUMENT_CODE_ACTION,)
SETTING = "code_actions"
ASK = "groundls.askInDocument"
#: The longest question a selection makes.
MAX_QUESTION_CHARS = 2000
#: Places a "related" document lists.
CAP = 200
_KIND = types.CodeActionKind.Empty


def _question(ls: Any, params: types.CodeActionParams) -> str:
    """The selected text, or the line under the cursor, as one line of at most
    ``MAX_QUESTION_CHARS`` characters ("" for nothing to ask)."""
    located = ls.folders.for_uri(params.text_document.uri)
    if located is None or not located[1]:
        return ""
    lines = positions.lines_of(ls, located[0], located[1], params.text_document.uri)
    start, end = params.range.start, params.range.end
    if lines is None or not 0 <= start.line < len(lines):
        return ""
    encoding = positions.encoding_of(ls)
    if (start.line, start.character) == (end.line, end.character):
        picked = [lines[start.line]]
    else:
        picked = lines[start.line : min(end.line, len(lines) - 1) + 1]
        last = picked[-1]
        picked[-1] = last[: positions.char_index(last, end.character, encoding)]
        first = picked[0]
        picked[0] = first[positions.char_index(first, start.character, encoding) :]
    text = " ".join(" ".join(picked)[: MAX_QUESTION_CHARS * 4].split())
    return "".join(ch for ch in text if ch.isprintable())[:MAX_QUESTION_CHARS].strip()


def code_actions(ls: Any, params: types.CodeActionParams) -> list[types.CodeAction]:
    only = params.context.only if params.context else None
    if only and _KIND not in only:
        return []
    uri = params.text_document.uri
    out = []
    question = _question(ls, params)
    if question:
        args = [{"question": question, "uri": uri}]
        title = "Ask the workspace about this"
        out.append(
            types.CodeAction(title, kind=_KIND, command=types.Command(title, ASK, arguments=args))
        )
    named = places.named_at(ls, uri, params.range.start)
    if named is not None and named.definitions:
        position = {"line": params.range.start.line, "character": params.range.start.character}
        title = f"Show related: {named.parts[-1]}"
        command = types.Command(title, RELATED, arguments=[{"uri": uri, "position": position}])
        out.append(types.CodeAction(title, kind=_KIND, command=command))
    return out


def _argument(params: types.ExecuteCommandParams, usage: str) -> dict[str, Any]:
    args = params.arguments or []
    if len(args) != 1 or not isinstance(args[0], dict):
        raise JsonRpcInvalidParams(message=f"{params.command}: expected one argument: {usage}")
    return args[0]


def related(ls: Any, docs: Documents, arg: dict[str, Any]) -> dict[str, Any]:
    """The places linked to the symbol at ``arg``'s position, and a document listing them."""
    uri, at = arg.get("uri"), arg.get("position")
    if not isinstance(uri, str) or not isinstance(at, dict):
        raise JsonRpcInvalidParams(message=f"{RELATED}: expected {{uri, position}}")
    try:
        position = types.Position(line=int(at["line"]), character=int(at["character"]))
    except (KeyError, TypeError, ValueError):
        raise JsonRpcInvalidParams(message=f"{RELATED}: position is {{line, character}}") from None
    named = places.named_at(ls, uri, position)
    if named is None:
        return {"name": "", "locations": [], "total": 0, "more": False}
    listed = places.places(ls, named, CAP)
    folder = named.folder
    lines = [f"# Related: {listed.name}", ""]
    for loc in listed.locations:
        rel = folder.rel_path(uri_to_path(loc.uri)) or loc.uri
        line = loc.range.start.line + 1
        lines.append(f"- {link(folder, rel, line, f'{rel}:{line}')}")
    if listed.more or listed.total > len(listed.locations):
        count = f"{listed.total}{' or more' if listed.more else ''}"
        lines += ["", f"_{count} places; the first {len(listed.locations)} are listed._"]
    document = docs.new(f"related-{listed.name}", "\n".join(lines) + "\n")
    shown = arg.get("show", True) is not False and docs.show(document)
    return {
        "name": listed.name,
        "locations": [wire.camel(types_json(loc)) for loc in listed.locations],
        "total": listed.total,
        "more": listed.more,
        "document": document.as_uri(),
        "shown": shown,
    }


def types_json(loc: types.Location) -> dict[str, Any]:
    r = loc.range
    return {
        "uri": loc.uri,
        "range": {
            "start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character},
        },
    }


def ask(ls: Any, docs: Documents, arg: dict[str, Any], cancel: threading.Event) -> dict[str, Any]:
    """Answer ``arg["question"]`` into a new document the editor opens; the answer's JSON."""
    question, uri = arg.get("question"), arg.get("uri")
    if not isinstance(question, str) or not question.strip():
        raise JsonRpcInvalidParams(message=f'{ASK}: expected {{"question": "...", "uri"?: "..."}}')
    located = ls.folders.for_uri(uri) if isinstance(uri, str) else None
    folders = [located[0]] if located else ls.folders.all()
    folder = next((f for f in folders if f.workspace is not None), None)
    if folder is None or folder.workspace is None:
        raise JsonRpcInvalidParams(message=f"{ASK}: no index is open yet")
    question = question[:MAX_QUESTION_CHARS]
    document = docs.new(question, answer_markdown(question, None, folder))
    docs.show(document)
    text: list[str] = []
    last = [time.monotonic()]

    def on_token(piece: str) -> None:
        text.append(piece)
        if time.monotonic() - last[0] >= 0.5:
            last[0] = time.monotonic()
            partial = {"answer": "".join(text) + " ...", "citations": []}
            docs.replace(document, answer_markdown(question, partial, folder))

    try:
        answer = folder.workspace.answers.ask(question, on_token=on_token, cancel=cancel)
    except AnswerError as exc:
        raise JsonRpcInvalidParams(message=f"{ASK}: {exc}") from None
    record = wire.answer_json(answer, folder)
    docs.replace(document, answer_markdown(question, record, folder), final=True)
    return {**record, "document": document.as_uri()}


def register(server: Any) -> None:
    docs = Documents(server)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[_KIND])
    )
    async def code_action(ls: Any, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await served(ls, SETTING, [], "code actions failed", code_actions, ls, params)

    @server.command(RELATED)
    async def show_related(ls: Any, params: types.ExecuteCommandParams, msg_id: Any) -> Any:
        arg = _argument(params, "{uri, position}")
        return await asyncio.get_running_loop().run_in_executor(
            ls.query_pool, related, ls, docs, arg
        )

    @server.command(ASK)
    async def ask_in_document(ls: Any, params: types.ExecuteCommandParams, msg_id: Any) -> Any:
        arg = _argument(params, '{"question": "...", "uri"?: "..."}')
        cancel = threading.Event()
        if msg_id is not None:
            ls.protocol.cancel_events[msg_id] = cancel
        try:
            return await asyncio.get_running_loop().run_in_executor(
                ls.query_pool, ask, ls, docs, arg, cancel
            )
        except Cancelled:
            return {"cancelled": True}
        finally:
            if msg_id is not None:
                ls.protocol.cancel_events.pop(msg_id, None)
