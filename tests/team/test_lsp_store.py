"""The language server reads a served team index named in its settings: search and hover show a
reader nothing restricted, and status names the store without its URL."""

from __future__ import annotations

import shutil

import pytest
from lsprotocol import types

from groundls.cli.main import main as cli
from tests.helpers.lsp_client import command, start_session, stop_session, wait_for_index
from tests.team.conftest import as_role, sql

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


async def test_an_editor_reads_the_served_index_its_settings_name(team_ws, tmp_path, database):
    for statement in (
        "DROP ROLE IF EXISTS carol",
        "DROP ROLE IF EXISTS billing",
        "CREATE ROLE billing NOLOGIN",
        "CREATE ROLE carol LOGIN",
    ):
        sql(database, statement)
    assert (
        cli(["index", str(team_ws), "--index-dir", str(tmp_path / "ci"), "--store", database]) == 0
    )
    assert cli(["store", "--store", database, "grant", "carol"]) == 0
    assert cli(["store", "--store", database, "restrict", "services/payments/**", "billing"]) == 0
    root = tmp_path / "carol"
    shutil.copytree(team_ws, root)
    shutil.rmtree(root / "services" / "payments")
    store = as_role(database, "carol")
    session = await start_session(
        "visual-studio-code", [root], tmp_path / "index", init_options={"index": {"store": store}}
    )
    try:
        await wait_for_index(session)
        status = await command(session, "groundls.status", {})
        base = status["folders"][0]["base"]
        assert base["store"].startswith("postgresql database") and base["overlaid"] == 0
        assert "?host=" not in str(status) and str(tmp_path) not in str(base)
        found = await command(session, "groundls.search", {"query": "settle the zorblax ledger"})
        assert found["hits"]
        assert "payments" not in str(found["hits"]) and "zorblax" not in str(found["hits"])
        catalog = next(h for h in found["hits"] if h["uri"].endswith("services/catalog/items.py"))
        hover = await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=catalog["uri"]),
                position=types.Position(line=0, character=4),
            )
        )
        assert hover is None or ("zorblax" not in hover.contents.value
                                 and "payments" not in hover.contents.value)  # fmt: skip
    finally:
        await stop_session(session)
