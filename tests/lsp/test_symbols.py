"""workspace/symbol is groundls search in the editor's own symbol picker (the real server over
stdio): ranked as the search ranks, an exact name's definition first, doc hits by their heading
path, superseded and cancelled queries answered without their work, bad queries bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import links_ws
from tests.helpers.raw_lsp import RawServer, frame

pytestmark = pytest.mark.slow

REQUEST_CANCELLED = -32800


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    yield from links_ws.serving(tmp_path_factory.mktemp("symbols"))


def symbols(server: RawServer, query: str) -> list[dict]:
    return links_ws.ask(server, "workspace/symbol", {"query": query})


def test_the_server_offers_workspace_symbols(server: RawServer) -> None:
    assert server.init_result["capabilities"]["workspaceSymbolProvider"]


def test_an_exact_name_lists_its_definition_first(server: RawServer) -> None:
    found = symbols(server, "apply_discount")
    first = found[0]
    assert first["name"] == "apply_discount"
    assert first["kind"] == 12  # Function
    assert links_ws.rel_of(server, first["location"]) == "src/shop/cart.py"
    assert first["location"]["range"]["start"]["line"] == 17


def test_a_qualified_name_finds_the_method_of_that_class(server: RawServer) -> None:
    first = symbols(server, "Cart.add_item")[0]
    assert first["name"] == "Cart.add_item"
    assert first["kind"] == 6  # Method


def test_a_question_lists_the_searchs_own_ranking_code_and_docs_alike(server: RawServer) -> None:
    query = "take a percentage off the total"
    links_ws.settled(server)
    cli = subprocess.run(
        [str(Path(sys.executable).parent / "groundls"), "search", "--json", query],
        cwd=server.root,  # type: ignore[attr-defined]
        env={**os.environ, "GROUNDLS_INDEX_DIR": str(server.index_dir)},  # type: ignore[attr-defined]
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    searched = json.loads(cli.stdout)["hits"]
    found = symbols(server, query)
    assert [
        (links_ws.rel_of(server, s["location"]), s["location"]["range"]["start"]["line"] + 1)
        for s in found
    ] == [(h["path"], h["start_line"]) for h in searched]
    docs = [s for s in found if s["location"]["uri"].endswith("docs/guide.md")]
    assert docs and docs[0]["name"] == "Guide › Discounts"
    assert docs[0]["containerName"] == "docs/guide.md"
    assert docs[0]["kind"] == 15  # String: a heading, not code


def test_a_huge_query_gets_a_bounded_answer(server: RawServer) -> None:
    found = symbols(server, "discount " * 12_000)
    assert 0 < len(found) <= 10


@pytest.mark.parametrize("query", ["", "   ", "\x00\x01\x1b\x7f\x08" * 500, "\u200b\u2028"])
def test_a_query_of_nothing_readable_gets_an_empty_list(server: RawServer, query: str) -> None:
    assert symbols(server, query) == []


def test_typing_cancels_each_query_and_every_request_is_answered(server: RawServer) -> None:
    word = "percentage off the cart total"
    ids = []
    for n in range(1, len(word) + 1, max(1, len(word) // 20)):
        if ids:
            server.send(
                frame({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": ids[-1]}})
            )
        ids.append(server.request("workspace/symbol", {"query": word[:n]}))
    last = server.request("workspace/symbol", {"query": word})
    replies = [server.reply(i, timeout=60) for i in ids]
    for reply in replies:
        assert "result" in reply or reply["error"]["code"] == REQUEST_CANCELLED
    final = server.reply(last, timeout=60)
    assert final["result"], "the last query, which nobody cancelled, has its answer"


def test_a_query_left_open_is_still_answered_when_a_newer_one_comes(server: RawServer) -> None:
    first = server.request("workspace/symbol", {"query": "where is the shipping cost computed"})
    second = server.request("workspace/symbol", {"query": "ShippingCost"})
    assert "result" in server.reply(first, timeout=60)  # answered, perhaps with nothing
    found = server.reply(second, timeout=60)["result"]
    assert found[0]["name"] == "ShippingCost"
