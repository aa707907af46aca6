"""``textDocument/codeLens`` over each function, method and class of a code file:
``2 docs · tested in 3 · 5 callers``. The lenses come first without their counts, at each
definition's name; ``codeLens/resolve`` counts one when the editor shows it, and the count is
kept until an index job changes the folder (the file or what links to it). Clicking a lens
lists those places (``groundls.related``). A file with thousands of functions gets its first
``CAP`` lenses, never a timeout."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from lsprotocol import types

from groundls.lsp import places
from groundls.lsp.folders import Folder
from groundls.lsp.surface import served
from groundls.results import Hit
from groundls.workspace import Links

METHODS = (types.TEXT_DOCUMENT_CODE_LENS, types.CODE_LENS_RESOLVE)
SETTING = "code_lens"
#: Lenses of one file at most.
CAP = 500
#: The chunk kinds a lens stands over.
DEFINITIONS = frozenset({"function", "method", "class", "struct", "interface", "trait", "enum"})
#: Counts kept (one a definition shown lately).
KEPT = 5000
#: The command a lens runs: the places it counts (see lsp/actions.py).
RELATED = "groundls.related"


def definitions(folder: Folder, rel: str, last: int) -> list[Hit]:
    """The definitions of ``rel`` (``last`` lines long) that get a lens, in file order (one a
    long function's windows), at most ``CAP``: its narrowest chunks, walked line by line."""
    workspace = folder.workspace
    if workspace is None:
        return []
    out: list[Hit] = []
    seen: set[str] = set()
    line = 1
    while len(out) < CAP and line <= last:
        hit = workspace.chunk_at(rel, line)
        if hit is None:
            line += 1
            continue
        if hit.kind == "code" and hit.text_type in DEFINITIONS and hit.title not in seen:
            seen.add(hit.title)
            out.append(hit)
        line = max(line + 1, hit.end_line + 1)
    return out


def title(docs: int, tests: int, callers: int, more: bool) -> str:
    """``2 docs · tested in 3 · 5 callers``."""
    parts = [
        f"{docs} doc{'' if docs == 1 else 's'}",
        f"tested in {tests}" if tests else "untested",
        f"{callers}{'+' if more else ''} caller{'' if callers == 1 and not more else 's'}",
    ]
    return " · ".join(parts)


class Lenses:
    """The server's lenses and their counts, kept per definition until its folder changes."""

    def __init__(self, ls: Any) -> None:
        self.ls = ls
        self._counts: OrderedDict[tuple[str, str], tuple[int, str]] = OrderedDict()
        self._lock = threading.Lock()

    def lenses(self, params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        located = self.ls.folders.for_uri(uri)
        if located is None or not located[1] or places.is_doc(located[1]):
            return []
        folder, rel = located
        reader = places.Reader(self.ls, folder)
        out = []
        for hit in definitions(folder, rel, len(reader.lines(rel) or ())):
            name = hit.title.replace(":", ".").split(".")[-1]
            at = reader.declaration(hit, name)
            start = at.range.start
            data = {"uri": uri, "chunk": hit.chunk_id, "line": start.line, "at": start.character}
            out.append(types.CodeLens(range=at.range, data=data))
        return out

    def resolve(self, lens: types.CodeLens) -> types.CodeLens:
        data = lens.data if isinstance(lens.data, dict) else {}
        uri, chunk = data.get("uri"), data.get("chunk")
        located = self.ls.folders.for_uri(uri) if isinstance(uri, str) else None
        if located is None or located[0].workspace is None or not isinstance(chunk, str):
            return lens
        folder = located[0]
        key = (folder.uri, chunk)
        with self._lock:
            kept = self._counts.get(key)
        if kept is None or kept[0] != folder.generation:
            generation = folder.generation
            text = self._count(folder, chunk)
            kept = (generation, text)
            with self._lock:
                self._counts[key] = kept
                self._counts.move_to_end(key)
                while len(self._counts) > KEPT:
                    self._counts.popitem(last=False)
        position = {"line": data.get("line", 0), "character": data.get("at", 0)}
        lens.command = types.Command(
            title=kept[1], command=RELATED, arguments=[{"uri": uri, "position": position}]
        )
        return lens

    def _count(self, folder: Folder, chunk: str) -> str:
        workspace = folder.workspace
        hit = workspace.get_chunk(chunk) if workspace is not None else None
        if workspace is None or hit is None:
            return "not indexed (re-indexing)"
        return title(*Links(workspace.store).counts(hit))


def register(server: Any) -> None:
    lenses = Lenses(server)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    async def code_lens(ls: Any, params: types.CodeLensParams) -> list[types.CodeLens]:
        return await served(ls, SETTING, [], "code lenses failed", lenses.lenses, params)

    @server.feature(types.CODE_LENS_RESOLVE)
    async def resolve(ls: Any, lens: types.CodeLens) -> types.CodeLens:
        return await served(ls, None, lens, "resolving a code lens failed", lenses.resolve, lens)
