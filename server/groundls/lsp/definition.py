"""``textDocument/definition`` from the docs: a code span or a role on a Markdown,
reStructuredText or HTML page (```Context.invoke```, :func:`~click.getchar`,
``<code>apply_discount</code>``) that names a symbol the workspace defines goes to its
definition, in any language the index reads; an ambiguous name gives every candidate. In code
the editor's own language server answers: groundls gives nothing there."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from groundls.lsp import places
from groundls.lsp.surface import served

METHODS = (types.TEXT_DOCUMENT_DEFINITION,)
SETTING = "definition"


def definitions(ls: Any, params: types.DefinitionParams) -> list[types.Location]:
    uri = params.text_document.uri
    located = ls.folders.for_uri(uri)
    if located is None or not places.is_doc(located[1]):
        return []
    named = places.named_at(ls, uri, params.position)
    if named is None:
        return []
    reader = places.Reader(ls, named.folder)
    return [reader.declaration(hit, named.parts[-1]) for hit in named.definitions]


def register(server: Any) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def go_to_definition(ls: Any, params: types.DefinitionParams) -> list[types.Location]:
        failed = f"definition failed at line {params.position.line + 1}"
        return await served(ls, SETTING, [], failed, definitions, ls, params)
