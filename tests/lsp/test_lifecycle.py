"""End-to-end: indexing in the background, cancellation, multi-root folders and a clean shutdown."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities

from tests.helpers.lsp_client import (
    CLIENTS,
    Session,
    command,
    command_error,
    copy_workspace,
    eventually,
    index_tokens,
    start_session,
    stop_session,
    wait_for_index,
)

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

REQUEST_CANCELLED = -32800
NOTES = 100
TOPICS = [
    "harbour cranes unload containers at night",
    "the orchard keeps bees to pollinate apple trees",
    "glaciers carve valleys over thousands of years",
    "the bakery proofs sourdough overnight in the cold room",
    "lighthouse keepers log passing ships by hand",
    "the observatory tracks comets with a wide field camera",
]


def write_notes(root: Path, count: int, version: int) -> None:
    """Many small Markdown notes, so that indexing takes a few seconds."""
    notes = root / "notes"
    notes.mkdir(exist_ok=True)
    for n in range(count):
        topic = TOPICS[n % len(TOPICS)]
        (notes / f"note_{n:03d}.md").write_text(
            f"# Note {n}\n\n## Observation\n\nRevision {version}: {topic}, entry {n}. "
            f"Field note number {n * 7 + version} records {topic.split()[1]} in detail.\n\n"
            f"## Follow-up\n\nCheck item {n} again next week (revision {version}).\n",
            encoding="utf-8",
        )


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CLIENTS)
async def session(request: pytest.FixtureRequest, tmp_path_factory) -> AsyncIterator[Session]:
    base = tmp_path_factory.mktemp(f"life-{request.param}")
    ws = copy_workspace(base, "big_ws")
    write_notes(ws, NOTES, version=1)
    s = await start_session(request.param, [ws], base / "index", wait=False)
    yield s
    if s.client._server and s.client._server.returncode is None:
        await stop_session(s)


async def test_requests_during_indexing_answer_and_say_so(session: Session) -> None:
    # indexing of its own (the session's first index may be done, whatever ran before)
    write_notes(session.root, NOTES, version=5)
    pending = asyncio.ensure_future(command(session, "groundls.reindex", {}))
    status = await eventually(lambda: _indexing_midway(session), timeout=120, every=0.05)
    assert status["indexing"] is True
    result = await command(session, "groundls.search", {"query": "bees pollinate apple trees"})
    assert result["indexing"] is True
    assert "indexing in progress" in result["message"]
    if result["hits"]:
        hit = result["hits"][0]
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=hit["uri"]),
                position=types.Position(line=hit["startLine"] - 1, character=0),
            )
        )
        assert hover is not None
        # a hover that started while the index was still being built says so; on a busy
        # machine the hover may only start once indexing is done, and then it need not
        after = await command(session, "groundls.status", {})
        if after["folders"][0]["indexing"]:
            assert "indexing in progress" in hover.contents.value, "hover waited for indexing"
    await asyncio.wait_for(pending, 120)
    await wait_for_index(session)


async def _indexing_midway(session: Session) -> dict | None:
    status = await command(session, "groundls.status", {})
    folder = status["folders"][0]
    progress = folder.get("progress")
    if folder["indexing"] and progress and 0 < progress["doneFiles"] < progress["totalFiles"]:
        return folder
    return None


async def test_cancel_request_stops_a_long_reindex(session: Session) -> None:
    write_notes(session.root, NOTES, version=2)
    msg_id = f"reindex-{session.client_name}"
    future = asyncio.ensure_future(
        session.client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="groundls.reindex", arguments=[{}]),
            msg_id=msg_id,
        )
    )
    await eventually(lambda: _indexing_midway(session), timeout=60, every=0.05)
    session.client.cancel_request(types.CancelParams(id=msg_id))
    with pytest.raises(JsonRpcException) as caught:
        await asyncio.wait_for(future, 10)
    assert caught.value.code == REQUEST_CANCELLED

    async def stopped() -> dict | None:
        status = await command(session, "groundls.status", {})
        folder = status["folders"][0]
        return folder if not folder["indexing"] else None

    folder = await eventually(stopped, timeout=30)
    assert folder["lastIndex"]["cancelled"] is True
    assert folder["lastIndex"]["files"] == NOTES + 7


async def test_workspace_folders_can_be_added_and_removed(
    session: Session, tmp_path_factory
) -> None:
    extra = copy_workspace(tmp_path_factory.mktemp("extra"), "extra_ws")
    (extra / "docs" / "ferry.md").write_text(
        "# Ferry timetable\n\nThe night ferry to the island leaves at 23:40 from pier four.\n",
        encoding="utf-8",
    )
    before = len(index_tokens(session.client))
    session.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=extra.as_uri(), name="extra_ws")], removed=[]
            )
        )
    )
    await eventually(lambda: _folder_count(session, 2), timeout=10)
    await wait_for_index(session, before + 1)

    async def ferry_found() -> dict | None:
        result = await command(session, "groundls.search", {"query": "night ferry pier"})
        hits = [h for h in result["hits"] if h["folder"] == "extra_ws"]
        return hits[0] if hits else None

    hit = await eventually(ferry_found, timeout=60)
    assert hit["path"] == "docs/ferry.md"
    assert hit["uri"] == (extra / "docs" / "ferry.md").as_uri()

    session.client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[], removed=[types.WorkspaceFolder(uri=extra.as_uri(), name="extra_ws")]
            )
        )
    )
    await eventually(lambda: _folder_count(session, 1), timeout=20)
    result = await command(session, "groundls.search", {"query": "night ferry pier"})
    assert all(h["folder"] != "extra_ws" for h in result["hits"])


async def _folder_count(session: Session, n: int) -> bool:
    status = await command(session, "groundls.status", {})
    return len(status["folders"]) == n


async def test_cancelling_the_progress_in_the_editor_stops_indexing(session: Session) -> None:
    write_notes(session.root, NOTES, version=4)
    before = set(index_tokens(session.client))
    pending = asyncio.ensure_future(command(session, "groundls.reindex", {}))
    await eventually(lambda: _indexing_midway(session), timeout=60, every=0.05)
    (token,) = set(index_tokens(session.client)) - before
    begin = session.client.progress_reports[token][0]
    assert begin.cancellable is True
    session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    result = await asyncio.wait_for(pending, 30)
    assert result["cancelled"] is True
    assert session.client.progress_reports[token][-1].message.startswith("cancelled")


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_shutdown_while_indexing_exits_cleanly_and_quickly(
    client_name: str, tmp_path: Path
) -> None:
    # a session of its own: the shared one serves the other tests in any order
    ws = copy_workspace(tmp_path, "big_ws")
    write_notes(ws, NOTES, version=1)
    session = await start_session(client_name, [ws], tmp_path / "index", wait=False)
    write_notes(session.root, NOTES, version=3)
    pending = asyncio.ensure_future(
        session.client.protocol.send_request_async(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="groundls.reindex", arguments=[{}]),
        )
    )
    await eventually(lambda: _indexing_midway(session), timeout=60, every=0.05)
    code = await stop_session(session, timeout=30)
    assert code == 0
    assert pending.done()


async def test_tcp_mode_serves_the_same_protocol(tmp_path: Path) -> None:
    ws = copy_workspace(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "GROUNDLS_INDEX_DIR": str(tmp_path / "index")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "groundls.lsp", "--tcp", f"127.0.0.1:{port}", env=env
    )
    client = LanguageClient()
    try:
        for _ in range(100):
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        await client.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=ws.as_uri())
        )
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="groundls.status", arguments=[{}])
        )
        assert result["folders"][0]["uri"] == ws.resolve().as_uri()
        await client.shutdown_async(None)
        client.exit(None)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await client.stop()


@pytest.mark.parametrize("client_name", CLIENTS)
async def test_an_index_that_cannot_be_opened_is_reported_not_fatal(
    client_name: str, tmp_path: Path
) -> None:
    ws = copy_workspace(tmp_path)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("the index directory is a file\n")
    s = await start_session(client_name, [ws], blocker, wait=False)
    try:
        errors = await eventually(
            lambda: _async_value(
                [m for m in s.client.messages if m.type == types.MessageType.Error]
            ),
            timeout=60,
        )
        assert "cannot open the index for lsp_ws" in errors[0].message
        status = await command(s, "groundls.status", {})
        assert status["folders"][0]["state"] == "error"
        assert status["folders"][0]["lastError"]
        error = await command_error(s, "groundls.search", [{"query": "invoice"}])
        assert error.code == -32803
        assert error.message.startswith("groundls.search failed: no index is available: lsp_ws")
    finally:
        assert await stop_session(s) == 0


async def _async_value(value):
    return value
