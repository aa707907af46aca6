"""``workspace/symbol`` as search by meaning: the editor's own symbol picker (Neovim's
``vim.lsp.buf.workspace_symbol``, Telescope, Emacs ``xref-find-apropos``, Helix) becomes groundls
search, ranked as ``groundls search`` ranks, code and doc hits alike.

A picker asks on every keystroke, so a query is worth answering only while someone waits for
it: a request the client cancels (``$/cancelRequest``) or that a newer query supersedes stops
at the search's next step, and one still queued behind it does no work at all (the searches
run one at a time). A query that is a symbol's exact name lists that definition first.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsprotocol import types

from groundls.lsp.folders import Folder
from groundls.lsp.positions import hit_range
from groundls.results import Cancelled, Hit, SearchFilters
from groundls.workspace import Links, best_of

log = logging.getLogger("groundls.lsp.symbols")

METHODS = (types.WORKSPACE_SYMBOL,)
SETTING = "symbols"
#: The longest query read (a picker's query is a few words; the rest of a pasted page is not).
MAX_QUERY_CHARS = 1000
#: Symbols returned at most (the search returns ``search.k`` of them, as ``groundls search``).
CAP = 50
#: Definitions of an exact name listed first, at most.
EXACT = 5

_KINDS = {
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "class": types.SymbolKind.Class,
    "module": types.SymbolKind.Module,
    "interface": types.SymbolKind.Interface,
    "struct": types.SymbolKind.Struct,
    "enum": types.SymbolKind.Enum,
    "trait": types.SymbolKind.Interface,
    "type": types.SymbolKind.Class,
    "constant": types.SymbolKind.Constant,
    "variable": types.SymbolKind.Variable,
}


def clean(query: str) -> str:
    """The query a search can read: control and format characters as spaces, at most
    ``MAX_QUERY_CHARS`` characters, trimmed ("" when nothing is left)."""
    text = query[: MAX_QUERY_CHARS * 4] if isinstance(query, str) else ""
    kept = "".join(" " if unicodedata.category(ch)[0] in "CZ" else ch for ch in text)
    return " ".join(kept.split())[:MAX_QUERY_CHARS].strip()


def symbol_name(hit: Hit) -> str:
    """What the picker shows: a definition's own name (a method with its type's,
    ``Cart.add_item``), a module's dotted name, a doc passage's heading path."""
    if hit.kind != "code":
        parts = [p for p in hit.breadcrumb if p]
        return " › ".join(parts) if parts else hit.title or Path(hit.path).name
    parts = [p for p in re.split(r"[.:#/]+", hit.title) if p]
    if hit.text_type == "module" or not parts:
        return hit.title or Path(hit.path).name
    return ".".join(parts[-2:] if hit.text_type == "method" else parts[-1:])


def information(folder: Folder, hit: Hit) -> types.SymbolInformation:
    container = hit.path + (f" {hit.place}" if hit.place else "")
    kind = _KINDS.get(hit.text_type, types.SymbolKind.Object)
    return types.SymbolInformation(
        name=symbol_name(hit),
        kind=kind if hit.kind == "code" else types.SymbolKind.String,
        location=types.Location(uri=folder.uri_for(hit.path), range=hit_range(hit)),
        container_name=container,
    )


def find(folders: list[Folder], query: str, k: int, cancel: threading.Event) -> list[Any]:
    """The symbols for ``query``: the exact name's definitions, then the search's ``k`` hits
    (ranked as ``groundls search`` ranks them: a search's depth follows its ``k``)."""
    if cancel.is_set():
        raise Cancelled()
    ready = [f for f in folders if f.workspace is not None]
    parts = Links.name_path(query) if " " not in query else ()
    exact: list[tuple[Folder, Hit]] = []
    for folder in ready if parts else ():
        assert folder.workspace is not None
        links = Links(folder.workspace.store)
        exact += [(folder, h) for h in links.definitions(parts, EXACT) if h.kind == "code"]
    groups = []
    for folder in ready:
        assert folder.workspace is not None
        found = folder.workspace.search(query, SearchFilters(k=k), cancel)
        groups.append((folder, found))
    exact = list({(f.name, h.path, h.title): (f, h) for f, h in exact}.values())[:EXACT]
    seen = {(f.name, h.chunk_id) for f, h in exact}
    # one folder: in the search's own order; several: best score first
    merged = [(groups[0][0], h) for h in groups[0][1]] if len(groups) == 1 else best_of(groups, k)
    ranked = [(f, h) for f, h in merged[:k] if (f.name, h.chunk_id) not in seen]
    return [information(f, h) for f, h in (exact + ranked)[:CAP]]


class SymbolSearch:
    """The server's symbol queries: one at a time, the newest superseding the rest."""

    def __init__(self, ls: Any) -> None:
        self.ls = ls
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="groundls-symbols")
        self.latest: threading.Event | None = None

    async def __call__(self, params: types.WorkspaceSymbolParams) -> list[Any]:
        ls = self.ls
        query = clean(params.query)
        if not getattr(ls.config, SETTING, True) or not query:
            return []
        cancel = threading.Event()
        msg_id = ls.protocol.msg_id
        if msg_id is not None:
            ls.protocol.cancel_events[msg_id] = cancel
        previous, self.latest = self.latest, cancel
        if previous is not None:
            previous.set()  # superseded: nobody waits for it any more
        loop = asyncio.get_running_loop()
        k = max(1, min(CAP, ls.config.search.k))
        try:
            return await loop.run_in_executor(self.pool, find, ls.folders.all(), query, k, cancel)
        except Cancelled:
            return []
        except Exception:  # noqa: BLE001 - a picker gets nothing rather than an error
            log.exception("workspace/symbol failed for a query of %d characters", len(query))
            return []
        finally:
            if msg_id is not None:
                ls.protocol.cancel_events.pop(msg_id, None)


def register(server: Any) -> None:
    search = SymbolSearch(server)

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(ls: Any, params: types.WorkspaceSymbolParams) -> list[Any]:
        return await search(params)
