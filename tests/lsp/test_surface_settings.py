"""Each standard surface can be turned off: off in the initializationOptions, the server does
not offer it; off later (workspace/didChangeConfiguration), it answers with nothing."""

from __future__ import annotations

import pytest

from tests.helpers import links_ws

pytestmark = pytest.mark.slow

OFF = {
    "symbols": False,
    "references": False,
    "definition": False,
    "codeLens": False,
    "codeActions": False,
}
PROVIDERS = (
    "workspaceSymbolProvider",
    "referencesProvider",
    "definitionProvider",
    "codeLensProvider",
    "codeActionProvider",
)


def test_surfaces_turned_off_at_start_are_not_offered(tmp_path) -> None:
    options = {"groundls": {**links_ws.INIT_OPTIONS["groundls"], **OFF}}
    server = links_ws.start(tmp_path, init_options=options)
    try:
        capabilities = server.init_result["capabilities"]
        assert [p for p in PROVIDERS if capabilities.get(p)] == []
        assert capabilities["hoverProvider"]  # the rest still served
    finally:
        server.close()


def test_a_surface_turned_off_later_answers_with_nothing(tmp_path) -> None:
    server = links_ws.start(tmp_path)
    try:
        assert all(server.init_result["capabilities"].get(p) for p in PROVIDERS)
        assert links_ws.ask(server, "workspace/symbol", {"query": "apply_discount"})
        server.notify("workspace/didChangeConfiguration", {"settings": {"groundls": OFF}})
        assert links_ws.ask(server, "workspace/symbol", {"query": "apply_discount"}) == []
        cart = links_ws.uri(server, "src/shop/cart.py")
        assert links_ws.ask(server, "textDocument/codeLens", {"textDocument": {"uri": cart}}) == []
    finally:
        server.close()
