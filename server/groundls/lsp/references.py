"""``textDocument/references`` on a symbol: its callers, the tests that exercise it and the doc
passages that name it, each at its range, from the same links as the hover's notes (no model
call). The declaration is listed only when the client asks for it. A symbol named in more
places than are listed gets the first ``CAP`` and a message with the count."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types

from groundls.lsp import places

log = logging.getLogger("groundls.lsp.references")

METHODS = (types.TEXT_DOCUMENT_REFERENCES,)
SETTING = "references"
#: Locations returned at most.
CAP = 500


def references(ls: Any, params: types.ReferenceParams) -> tuple[list[types.Location], str]:
    """The locations, and a message when they are capped ("" when not)."""
    named = places.named_at(ls, params.text_document.uri, params.position)
    if named is None:
        return [], ""
    declaration = bool(params.context and params.context.include_declaration)
    listed = places.places(ls, named, CAP, declaration)
    if not listed.more and listed.total <= CAP:
        return listed.locations, ""
    count = f"{listed.total}{' or more' if listed.more else ''}"
    return listed.locations, (
        f"groundls: {listed.name} is named in {count} places; the first {len(listed.locations)}"
        " are listed"
    )


def register(server: Any) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def find_references(ls: Any, params: types.ReferenceParams) -> list[types.Location]:
        if not getattr(ls.config, SETTING, True):
            return []
        loop = asyncio.get_running_loop()
        try:
            found, message = await loop.run_in_executor(ls.query_pool, references, ls, params)
        except Exception:  # noqa: BLE001 - an editor's list gets nothing rather than an error
            log.exception("references failed at line %d", params.position.line + 1)
            return []
        if message:
            ls.show(types.MessageType.Info, message)
        return found
