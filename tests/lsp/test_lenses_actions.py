"""Code lenses (counted on resolve, kept until the folder changes) and code actions ("Ask the
workspace about this" into a document the server opens, "Show related"), over the real server."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import links_ws
from tests.helpers.raw_lsp import RawServer, frame

pytestmark = pytest.mark.slow

LENS = re.compile(r"(\d+) docs? · (?:tested in (\d+)|untested) · (\d+)(\+?) callers?")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    yield from links_ws.serving(tmp_path_factory.mktemp("lenses"))


def lenses(server: RawServer, rel: str) -> list[dict]:
    return links_ws.ask(
        server, "textDocument/codeLens", {"textDocument": {"uri": links_ws.uri(server, rel)}}
    )


def resolved(server: RawServer, rel: str, line: int) -> dict:
    lens = next(lens for lens in lenses(server, rel) if lens["range"]["start"]["line"] == line)
    return links_ws.ask(server, "codeLens/resolve", lens)


def counts(lens: dict) -> tuple[int, int, int]:
    match = LENS.fullmatch(lens["command"]["title"])
    assert match, lens["command"]["title"]
    return int(match[1]), int(match[2] or 0), int(match[3])


def test_the_server_offers_lenses_with_resolve_and_code_actions(server: RawServer) -> None:
    capabilities = server.init_result["capabilities"]
    assert capabilities["codeLensProvider"]["resolveProvider"] is True
    assert capabilities["codeActionProvider"]


def test_each_function_method_and_class_gets_a_lens_at_its_name(server: RawServer) -> None:
    found = lenses(server, "src/shop/cart.py")
    assert {lens["range"]["start"]["line"] for lens in found} >= {3, 9, 13, 17}
    assert all("command" not in lens or lens["command"] is None for lens in found)  # lazily
    lines = (server.root / "src/shop/cart.py").read_text().splitlines()
    for lens in found:
        start, end = lens["range"]["start"], lens["range"]["end"]
        assert lines[start["line"]][start["character"] : end["character"]].isidentifier()


def test_a_resolved_lens_counts_docs_tests_and_callers(server: RawServer) -> None:
    docs, tests, callers = counts(resolved(server, "src/shop/cart.py", 17))  # apply_discount
    assert (tests, callers) == (1, 2)
    assert docs >= 2  # the guide's span and the reST role


def test_a_doc_page_gets_no_lenses(server: RawServer) -> None:
    assert lenses(server, "docs/guide.md") == []


def test_a_lens_count_is_kept_until_the_folder_changes(server: RawServer) -> None:
    before = counts(resolved(server, "src/shop/cart.py", 17))
    extra = server.root / "src/shop/refund.py"
    extra.write_text(
        "from shop.cart import apply_discount\n\n\ndef refund(cart):\n"
        "    return apply_discount(cart, 100)\n"
    )
    reindex = {"command": "groundls.reindex", "arguments": [{"uri": extra.as_uri()}]}
    try:
        links_ws.ask(server, "workspace/executeCommand", reindex)
        after = counts(resolved(server, "src/shop/cart.py", 17))
    finally:  # the workspace as the other tests expect it
        extra.unlink()
        links_ws.ask(server, "workspace/executeCommand", reindex)
    assert after[2] == before[2] + 1
    assert counts(resolved(server, "src/shop/cart.py", 17)) == before


def respond_to_show_document(server: RawServer, timeout: float = 30.0) -> dict:
    shown = server.wait_for(
        lambda m: m.get("method") == "window/showDocument" and not m.get("_taken"), timeout
    )
    shown["_taken"] = True  # each request is answered once, whatever ran before
    server.send(frame({"jsonrpc": "2.0", "id": shown["id"], "result": {"success": True}}))
    return shown


def actions(server: RawServer, rel: str, start: dict, end: dict | None = None) -> list[dict]:
    return links_ws.ask(
        server,
        "textDocument/codeAction",
        {
            "textDocument": {"uri": links_ws.uri(server, rel)},
            "range": {"start": start, "end": end or start},
            "context": {"diagnostics": []},
        },
    )


def test_the_line_under_the_cursor_is_the_question_and_a_name_shows_related(
    server: RawServer,
) -> None:
    at = links_ws.position(server, "docs/guide.md", "apply|_discount`")
    found = {a["title"]: a for a in actions(server, "docs/guide.md", at)}
    ask = found["Ask the workspace about this"]["command"]
    assert ask["command"] == "groundls.askInDocument"
    assert ask["arguments"][0]["question"].startswith("Use `apply_discount` to take a percentage")
    assert found["Show related: apply_discount"]["command"]["command"] == "groundls.related"


def test_a_selection_is_the_question(server: RawServer) -> None:
    start = links_ws.position(server, "docs/guide.md", "|A parcel's price")
    end = links_ws.position(server, "docs/guide.md", "price| comes")
    found = {a["title"]: a for a in actions(server, "docs/guide.md", start, end)}
    question = found["Ask the workspace about this"]["command"]["arguments"][0]["question"]
    assert question == "A parcel's price"


def test_asking_writes_the_answer_into_a_document_the_editor_opens(server: RawServer) -> None:
    msg_id = server.request(
        "workspace/executeCommand",
        {
            "command": "groundls.askInDocument",
            "arguments": [{"question": "How is a discount applied to a cart?"}],
        },
    )
    shown = respond_to_show_document(server)
    result = server.reply(msg_id, timeout=120)["result"]
    assert shown["params"]["uri"] == result["document"]
    text = Path(result["document"].removeprefix("file://")).read_text()
    assert text.startswith("# How is a discount applied to a cart?")
    root = server.root.as_uri()
    cited = re.findall(r"\]\((file://[^)#]+)#L(\d+)\)", text)
    assert cited and all(uri.startswith(root + "/") for uri, _ in cited), text
    assert not Path(result["document"].removeprefix("file://")).is_relative_to(server.root)


def test_show_related_lists_the_places_in_a_document_of_links(server: RawServer) -> None:
    at = links_ws.position(server, "src/shop/cart.py", "def apply|_discount")
    msg_id = server.request(
        "workspace/executeCommand",
        {
            "command": "groundls.related",
            "arguments": [{"uri": links_ws.uri(server, "src/shop/cart.py"), "position": at}],
        },
    )
    respond_to_show_document(server)
    result = server.reply(msg_id, timeout=60)["result"]
    assert result["name"] == "apply_discount"
    at_lines = {
        (loc["uri"].rsplit("/ws/", 1)[1], loc["range"]["start"]["line"])
        for loc in result["locations"]
    }
    assert ("src/shop/checkout.py", 7) in at_lines
    text = Path(result["document"].removeprefix("file://")).read_text()
    assert "checkout.py:8" in text


def test_a_bad_related_argument_is_invalid_params(server: RawServer) -> None:
    reply = server.reply(
        server.request(
            "workspace/executeCommand",
            {"command": "groundls.related", "arguments": [{"uri": 3}]},
        )
    )
    assert reply["error"]["code"] == -32602
    assert "Traceback" not in json.dumps(reply)


def test_a_file_of_ten_thousand_functions_gets_capped_lenses(tmp_path: Path) -> None:
    many = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(10_000))
    options = {"groundls": {**links_ws.INIT_OPTIONS["groundls"], "embedders": "fast"}}
    server = links_ws.start(tmp_path, init_options=options, extra={"src/many.py": many})
    try:
        found = links_ws.ask(
            server,
            "textDocument/codeLens",
            {"textDocument": {"uri": links_ws.uri(server, "src/many.py")}},
            timeout=120,
        )
        assert 0 < len(found) <= 500
        lens = links_ws.ask(server, "codeLens/resolve", found[0])
        assert LENS.fullmatch(lens["command"]["title"])
    finally:
        server.close()
