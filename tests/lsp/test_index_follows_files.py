"""End-to-end: settings and file changes reach the index. Each test mutates its workspace, so
each gets its own server and workspace copy (no test depends on another's order)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.helpers.lsp_client import (
    CLIENTS,
    Session,
    command,
    copy_workspace,
    eventually,
    hover,
    index_tokens,
    start_session,
    stop_session,
    wait_for_index,
)

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="function")]


@pytest_asyncio.fixture(loop_scope="function")
async def session(tmp_path) -> AsyncIterator[Session]:
    ws = copy_workspace(tmp_path)
    s = await start_session(
        CLIENTS[-1],
        [ws],
        tmp_path / "index",
        init_options={"groundls": {"answer": {"usePackagedModel": False, "modelPath": ""}}},
    )
    yield s
    code = await stop_session(s)
    assert code == 0, f"server exit code {code}"


async def test_configuration_change_turns_hover_off_and_on(session: Session) -> None:
    client = session.client
    client.set_configuration({"hover": {"enabled": False}}, section="groundls")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"groundls": {"hover": {"enabled": False}}})
    )
    await eventually(lambda: _hover_is(session, None), timeout=10)
    client.set_configuration({"hover": {"count": 1}}, section="groundls")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    result = await eventually(lambda: _hover_is(session, "some"), timeout=10)
    notes = [line for line in result.contents.value.splitlines() if line[:1].isdigit()]
    assert len(notes) == 1 and notes[0].startswith("1. [")  # one note (then tests, callers)


async def _hover_is(session: Session, expect: str | None) -> types.Hover | bool | None:
    result = await hover(session, "src/billing/invoice.py", 17)
    if expect is None:
        return result is None
    return result


# -- the index follows the files ------------------------------------------------------------


async def test_saving_a_file_reindexes_it(session: Session) -> None:
    rel = "src/billing/refunds.py"
    path = session.root / rel
    path.write_text(
        'def zorblat_refund(amount: float) -> float:\n    """Give a zorblat refund."""\n'
        "    return -amount\n",
        encoding="utf-8",
    )
    uri = session.uri(rel)
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=path.read_text()
            )
        )
    )
    session.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )

    async def indexed() -> bool:
        result = await command(session, "groundls.search", {"query": "zorblat_refund"})
        return any(h["path"] == rel for h in result["hits"])

    await eventually(indexed, timeout=30)


async def test_watched_file_delete_removes_its_chunks(session: Session) -> None:
    rel = "docs/auth.md"
    before = await command(session, "groundls.search", {"query": "session expires sign in"})
    assert any(h["path"] == rel for h in before["hits"]), "the file is found before the delete"
    (session.root / rel).unlink()
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri(rel), type=types.FileChangeType.Deleted)]
        )
    )

    async def gone() -> bool:
        result = await command(session, "groundls.search", {"query": "session expires sign in"})
        return all(h["path"] != rel for h in result["hits"])

    await eventually(gone, timeout=30)


async def test_a_burst_of_watched_changes_ends_with_the_last_state_on_disk(
    session: Session,
) -> None:
    rel = "docs/burst.md"
    path = session.root / rel
    uri = session.uri(rel)
    for n in range(5):
        path.write_text(f"# Burst\n\nThe quokka counter is at version {n} of the burst.\n")
        kind = types.FileChangeType.Created if n == 0 else types.FileChangeType.Changed
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=kind)])
        )

    async def latest() -> bool:
        result = await command(session, "groundls.search", {"query": "quokka counter version"})
        texts = [h["snippet"] for h in result["hits"] if h["path"] == rel]
        ref = [h for h in result["hits"] if h["path"] == rel]
        if not ref:
            return False
        chunk = await command(session, "groundls.reference", {"chunkId": ref[0]["chunkId"]})
        return "version 4" in chunk["reference"]["chunk"]["content"] or bool(
            texts and "version 4" in texts[0]
        )

    await eventually(latest, timeout=30)


async def test_changing_exclude_reindexes_without_those_files(session: Session) -> None:
    tokens = len(index_tokens(session.client))
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"groundls": {"exclude": ["docs/**"]}})
    )
    await wait_for_index(session, tokens + 1)
    result = await command(session, "groundls.search", {"query": "discount percentage"})
    assert result["hits"]
    assert all(not h["path"].startswith("docs/") for h in result["hits"])
