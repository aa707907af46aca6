"""The real server over stdio against a hostile client: every request answered, nothing leaked.

Each case was a probe that crashed, wedged or leaked before (issue 31). The peer is raw bytes
(tests/helpers/raw_lsp.py), since a well-behaved client library cannot send these frames.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.raw_lsp import RawServer, frame

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "ws"
    root.mkdir()
    (root / "app.py").write_text("def upload(path):\n    return retry(path)\n")
    return root


@pytest.fixture
def server(workspace: Path, tmp_path: Path) -> Iterator[RawServer]:
    peer = RawServer(tmp_path / "index", cwd=tmp_path)
    try:
        yield peer
    finally:
        peer.close()


def _machine_paths(text: str) -> list[str]:
    """Absolute paths of this machine's install or Python in ``text``."""
    roots = {sys.prefix, sys.base_prefix, str(Path(__file__).parents[2])}
    return [r for r in roots if r and r in text] + re.findall(r"site-packages|/etc/\w+", text)


def _everything_sent(server: RawServer) -> str:
    return json.dumps(server.seen)


@pytest.mark.parametrize(
    "length", ["1099511627776", "18446744073709551616", "2147483648", "67108865"]
)
def test_an_oversized_frame_is_refused_and_the_next_frame_still_served(
    server: RawServer, workspace: Path, length: str
) -> None:
    server.send(f"Content-Length: {length}\r\n\r\n{{}}".encode())
    error = server.error(PARSE_ERROR)
    assert "over the limit" in error["error"]["message"]
    server.initialize(workspace)  # resynchronised on the next frame
    assert server.alive()


def test_an_overlong_header_line_is_refused_without_reading_it_all(
    server: RawServer, workspace: Path
) -> None:
    server.send(b"X-Junk: " + b"a" * 100_000 + b"\r\n\r\n")
    assert server.error(PARSE_ERROR)
    server.initialize(workspace)
    assert server.alive()


def test_malformed_messages_each_get_the_error_the_spec_names(
    server: RawServer, workspace: Path
) -> None:
    server.initialize(workspace)
    server.send(frame(b'\xff\xfe{"jsonrpc"'))
    assert "not UTF-8" in server.error(PARSE_ERROR)["error"]["message"]
    server.send(frame('{"jsonrpc": "2.0", "id": 5, "meth'))
    assert "not JSON" in server.error(PARSE_ERROR)["error"]["message"]
    server.send(frame('[{"jsonrpc": "2.0", "id": 9, "method": "shutdown"}]'))
    assert "batch" in server.error(INVALID_REQUEST)["error"]["message"]
    server.send(frame({"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover"}))
    assert server.error(INVALID_REQUEST)
    for msg_id, message in [
        (6, {"jsonrpc": "1.0", "id": 6, "method": "textDocument/hover"}),
        (7, {"id": 7, "method": "textDocument/hover"}),
        (8, {"jsonrpc": "2.0", "id": 8, "method": 5}),
        (9, {"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": 3}),
    ]:
        server.send(frame(message))
        assert server.reply(msg_id)["error"]["code"] == INVALID_REQUEST
    assert server.alive()


def test_a_lowercase_content_length_header_is_read(server: RawServer, workspace: Path) -> None:
    server.initialize(workspace)
    message = {"jsonrpc": "2.0", "id": 31, "method": "workspace/executeCommand"}
    message["params"] = {"command": "groundls.status", "arguments": []}
    server.send(frame(message, header="content-length"))
    assert "result" in server.reply(31, timeout=60)


def test_hover_and_commands_with_bad_params_are_answered_invalid_params(
    server: RawServer, workspace: Path
) -> None:
    server.initialize(workspace)
    uri = (workspace / "app.py").as_uri()
    bad = [
        (
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": -1, "character": 0}},
        ),
        ("textDocument/hover", {"textDocument": {"uri": uri}}),
        ("textDocument/hover", None),
        ("workspace/executeCommand", [1, 2]),
        ("workspace/executeCommand", None),
    ]
    for method, params in bad:
        msg_id = server.request(method, params)
        if params is None:  # "params": null, sent explicitly
            server.send(frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": None}))
        reply = server.reply(msg_id)
        assert reply["error"]["code"] == INVALID_PARAMS, (method, params, reply)
    assert server.alive()


def test_every_request_after_shutdown_is_invalid_and_exit_still_ends_the_process(
    server: RawServer, workspace: Path
) -> None:
    server.initialize(workspace)
    assert server.reply(server.request("shutdown"), timeout=60).get("result") is None
    uri = (workspace / "app.py").as_uri()
    hover = server.request(
        "textDocument/hover",
        {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}},
    )
    assert server.reply(hover)["error"]["code"] == INVALID_REQUEST
    again = server.request("shutdown")
    assert server.reply(again)["error"]["code"] == INVALID_REQUEST
    server.notify("exit")
    assert server.proc.wait(timeout=30) == 0


def test_a_failing_command_and_a_bad_id_leak_no_path_or_traceback(
    server: RawServer, workspace: Path
) -> None:
    server.initialize(workspace)
    searched = server.request(
        "workspace/executeCommand",
        {"command": "groundls.search", "arguments": [{"query": "abc\ud800def upload"}]},
    )
    assert "result" in server.reply(searched, timeout=120)  # a lone surrogate is only text
    outside = server.request(
        "workspace/executeCommand",
        {
            "command": "groundls.reindex",
            "arguments": [{"uri": Path(sys.prefix, "lib", "secret.py").as_uri()}],
        },
    )
    error = server.reply(outside)["error"]
    assert error["code"] == INVALID_PARAMS
    assert "<path>" in error["message"]
    server.send(frame({"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover"}))
    server.error(INVALID_REQUEST)
    sent = _everything_sent(server)
    assert _machine_paths(sent) == []
    assert "traceback" not in sent.lower()


def test_file_events_outside_the_workspace_are_neither_walked_nor_named(
    server: RawServer, workspace: Path
) -> None:
    server.initialize(workspace)
    server.wait_for(lambda m: "indexed" in m.get("params", {}).get("message", ""), timeout=120)
    server.notify(
        "workspace/didChangeWatchedFiles",
        {
            "changes": [
                {"uri": workspace.as_uri() + "/../../../../etc", "type": 2},
                {"uri": workspace.as_uri() + "/../../../../etc/passwd", "type": 2},
                {"uri": "file:///", "type": 2},
                {"uri": "file:///proc/1/cwd", "type": 1},
                {"uri": (workspace / "app.py").as_uri(), "type": 2},
            ]
        },
    )
    # the batch is re-indexed together: its log line says what it took in
    server.wait_for(lambda m: "re-indexed" in m.get("params", {}).get("message", ""), timeout=60)
    sent = _everything_sent(server)
    assert "passwd" not in sent and "/etc" not in sent and "/proc" not in sent
    assert server.alive()
