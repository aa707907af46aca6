"""``textDocument/references`` on a symbol: its callers, the tests that exercise it and the doc
passages that name it, each at its range, from the same links as the hover's notes (no model
call). The declaration is listed only when the client asks for it. A symbol named in more
places than are listed gets the first ``CAP`` and a message with the count."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from groundls.lsp import places
from groundls.lsp.surface import served

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
        failed = f"references failed at line {params.position.line + 1}"
        found, message = await served(ls, SETTING, ([], ""), failed, references, ls, params)
        if message:
            ls.show(types.MessageType.Info, message)
        return found
