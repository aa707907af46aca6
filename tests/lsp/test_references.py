"""textDocument/references and textDocument/definition over the links between code, tests and
docs (the real server over stdio): references list the callers at their calls, the tests and
the doc passages that name a symbol; definition goes from a doc's code span or role to the code."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers import links_ws
from tests.helpers.raw_lsp import RawServer

pytestmark = pytest.mark.slow

#: a file with one function called from 600 places, in 600 files
CROWD = {
    "src/crowd/core.py": "def popular_helper(x):\n    return x + 1\n",
    **{
        f"src/crowd/user_{n}.py": f"from crowd.core import popular_helper\n\n\n"
        f"def use_{n}(v):\n    return popular_helper(v) * {n}\n"
        for n in range(600)
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    yield from links_ws.serving(tmp_path_factory.mktemp("references"), extra=CROWD)


def references(server: RawServer, rel: str, needle: str, declaration: bool = False) -> list:
    return links_ws.ask(
        server,
        "textDocument/references",
        {
            "textDocument": {"uri": links_ws.uri(server, rel)},
            "position": links_ws.position(server, rel, needle),
            "context": {"includeDeclaration": declaration},
        },
    )


def places(server: RawServer, found: list) -> set[tuple[str, int]]:
    return {(links_ws.rel_of(server, loc), loc["range"]["start"]["line"]) for loc in found}


def test_the_server_offers_references_and_definitions(server: RawServer) -> None:
    capabilities = server.init_result["capabilities"]
    assert capabilities["referencesProvider"] and capabilities["definitionProvider"]


def test_references_list_every_call_the_tests_and_the_doc_passages(server: RawServer) -> None:
    found = references(server, "src/shop/cart.py", "def apply|_discount")
    at = places(server, found)
    assert {("src/shop/checkout.py", 7), ("src/shop/checkout.py", 11)} <= at  # the calls
    calls_on_11 = [
        loc
        for loc in found
        if loc["uri"].endswith("checkout.py") and loc["range"]["start"]["line"] == 11
    ]
    assert len(calls_on_11) == 2  # both calls on the line, each at its range
    assert ("tests/test_cart.py", 6) in at  # the test that calls it
    assert {("docs/guide.md", 4), ("docs/api.rst", 6)} <= at  # the doc spans that name it
    assert ("src/shop/cart.py", 17) not in at  # the declaration only when asked for
    call = next(loc for loc in found if loc["uri"].endswith("checkout.py"))
    line = (server.root / "src/shop/checkout.py").read_text().splitlines()[7]
    start, end = call["range"]["start"]["character"], call["range"]["end"]["character"]
    assert line[start:end] == "apply_discount"


def test_the_declaration_is_listed_when_the_client_asks(server: RawServer) -> None:
    found = references(server, "src/shop/cart.py", "def apply|_discount", declaration=True)
    assert ("src/shop/cart.py", 17) in places(server, found)


def test_references_from_a_call_reach_the_same_places(server: RawServer) -> None:
    from_call = places(
        server, references(server, "src/shop/checkout.py", "apply|_discount(cart, 5")
    )
    from_definition = places(server, references(server, "src/shop/cart.py", "def apply|_discount"))
    assert from_call == from_definition


def test_a_symbol_named_in_hundreds_of_places_gets_a_capped_list_and_a_count(
    server: RawServer,
) -> None:
    found = references(server, "src/crowd/core.py", "def popular|_helper")
    assert 0 < len(found) <= 500
    shown = server.wait_for(
        lambda m: (
            m.get("method") == "window/showMessage" and "popular_helper" in m["params"]["message"]
        ),
        timeout=30,
    )
    assert "places" in shown["params"]["message"]


@pytest.mark.parametrize(
    "position", [{"line": 9999, "character": 0}, {"line": 0, "character": 99999}]
)
def test_a_position_outside_the_file_gets_an_empty_list(server: RawServer, position) -> None:
    found = links_ws.ask(
        server,
        "textDocument/references",
        {
            "textDocument": {"uri": links_ws.uri(server, "src/shop/cart.py")},
            "position": position,
            "context": {"includeDeclaration": True},
        },
    )
    assert found == [] or all(loc["uri"].startswith(server.root.as_uri()) for loc in found)


def test_a_uri_outside_the_workspace_gets_nothing(server: RawServer, tmp_path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("def apply_discount():\n    pass\n")
    for method in ("textDocument/references", "textDocument/definition"):
        found = links_ws.ask(
            server,
            method,
            {
                "textDocument": {"uri": outside.as_uri()},
                "position": {"line": 0, "character": 6},
                "context": {"includeDeclaration": True},
            },
        )
        assert not found


def definition(server: RawServer, rel: str, needle: str, nth: int = 0) -> list:
    return links_ws.ask(
        server,
        "textDocument/definition",
        {
            "textDocument": {"uri": links_ws.uri(server, rel)},
            "position": links_ws.position(server, rel, needle, nth),
        },
    )


@pytest.mark.parametrize(
    ("rel", "needle", "target"),
    [
        ("docs/guide.md", "apply_discount`", ("src/shop/cart.py", 17)),
        ("docs/guide.md", "cart_total()`", ("src/shop/cart.py", 13)),
        ("docs/guide.md", "add_item``", ("src/shop/cart.py", 9)),
        ("docs/guide.md", "ShippingCost`", ("src/shop/shipping.go", 3)),
        ("docs/api.rst", "apply_discount`", ("src/shop/cart.py", 17)),
        ("docs/api.rst", "add_item`", ("src/shop/cart.py", 9)),
        ("docs/page.html", "apply_discount<", ("src/shop/cart.py", 17)),
    ],
)
def test_a_code_span_or_role_in_the_docs_goes_to_its_definition(
    server: RawServer, rel: str, needle: str, target: tuple[str, int]
) -> None:
    found = definition(server, rel, needle)
    assert [(links_ws.rel_of(server, loc), loc["range"]["start"]["line"]) for loc in found] == [
        target
    ]


def test_a_span_naming_nothing_the_workspace_defines_goes_nowhere(server: RawServer) -> None:
    assert definition(server, "docs/guide.md", "Guide") == []
