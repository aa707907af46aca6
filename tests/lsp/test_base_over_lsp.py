"""The real server over stdio with a shared base index (setting ``index.base``): the status names
the base and the files overlaid, search and hover read base and overlay, an edit goes to the overlay,
and a base that cannot be used is a clear error for its folder, not a crash."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from groundls.config import Config
from groundls.workspace import Workspace
from tests.helpers.lsp_client import (
    command,
    copy_workspace,
    eventually,
    hover,
    start_session,
    stop_session,
)

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]

EXTRACTIVE = {"usePackagedModel": False, "modelPath": ""}


def exported_base(tmp_path: Path) -> tuple[Path, Path]:
    """A CI machine's checkout indexed and exported; returns (the checkout, the base file)."""
    ci = copy_workspace(tmp_path / "ci")
    ws = Workspace.open(ci, Config(), tmp_path / "ci-index")
    ws.index()
    base = tmp_path / "shared" / "ws.groundls"
    ws.export(base)
    ws.close()
    return ci, base


async def test_a_workspace_over_a_base_reports_it_searches_it_and_overlays_edits(tmp_path):
    ci, base = exported_base(tmp_path)
    mine = tmp_path / "me" / "lsp_ws"
    shutil.copytree(ci, mine)
    session = await start_session(
        "visual-studio-code",
        [mine],
        tmp_path / "my-index",
        init_options={"groundls": {"index": {"base": str(base)}, "answer": EXTRACTIVE}},
    )
    try:
        (folder,) = (await command(session, "groundls.status", {}))["folders"]
        assert folder["state"] == "ready"
        assert folder["base"]["file"] == "ws.groundls" and folder["base"]["overlaid"] == 0
        result = await command(session, "groundls.search", {"query": "sales tax rate", "k": 5})
        assert {"docs/billing.md", "src/billing/invoice.py"} & {h["path"] for h in result["hits"]}
        # hover's related notes over a chunk read from the base
        note = await hover(session, "src/billing/invoice.py", 17)
        assert note is not None and note.contents.value.startswith("**Related in this workspace**")
        assert "docs/billing.md" in note.contents.value or "web/src/cart.ts" in note.contents.value

        (mine / "docs" / "glacier.md").write_text("# Glacier\n\nmarmot_narwhal_drum tiers.\n")
        await command(session, "groundls.reindex", {"uri": session.uri("docs/glacier.md")})
        found = await command(session, "groundls.search", {"query": "marmot_narwhal_drum"})
        assert found["hits"][0]["path"] == "docs/glacier.md"

        async def overlaid() -> bool:
            (entry,) = (await command(session, "groundls.status", {}))["folders"]
            return entry["base"]["overlaid"] == 1

        assert await eventually(overlaid)
    finally:
        assert await stop_session(session) == 0


async def test_a_missing_base_is_a_clear_error_for_the_folder(tmp_path):
    ws = copy_workspace(tmp_path)
    session = await start_session(
        "neovim",
        [ws],
        tmp_path / "index",
        init_options={
            "groundls": {"index": {"base": str(tmp_path / "nope.groundls")}, "answer": EXTRACTIVE}
        },
        wait=False,
    )
    try:

        async def failed() -> dict | None:
            (entry,) = (await command(session, "groundls.status", {}))["folders"]
            return entry if entry["lastError"] else None

        entry = await eventually(failed)
        assert entry["lastError"].endswith("base index not found: nope.groundls")
        assert "Traceback" not in entry["lastError"] and str(tmp_path) not in entry["lastError"]
    finally:
        assert await stop_session(session) == 0
