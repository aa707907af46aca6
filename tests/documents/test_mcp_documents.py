"""Documents through the MCP face (the MCP SDK's own stdio client): a hit names its slide or
page, and ``read`` gives the document's text as the index read it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from tests.helpers import mcp_client

CLI = [sys.executable, "-m", "groundls.cli.main"]

pytestmark = [pytest.mark.slow, pytest.mark.asyncio]


async def test_an_agent_finds_a_slide_and_reads_the_page_it_cites(
    documents: Path, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    for name in ("review.pptx", "manual-ja.pdf"):
        (root / "docs").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(documents / name, root / "docs" / name)
    index_dir = tmp_path / "index"
    subprocess.run(
        [*CLI, "index", "--quiet", str(root), "--index-dir", str(index_dir)],
        check=True,
        capture_output=True,
    )
    params = mcp_client.server("--workspace", str(root), "--index-dir", str(index_dir))
    async with Client(params) as client:
        found = await client.call_tool(
            "search", {"query": "who migrates the billing database", "k": 3}
        )
        assert not found.is_error
        hit = found.structured_content["hits"][0]
        assert (hit["path"], hit["place"]) == ("docs/review.pptx", "slide 2")
        assert "docs/review.pptx slide 2" in found.content[0].text
        read = await client.call_tool("read", {"target": "docs/manual-ja.pdf:1-200"})
        assert not read.is_error
        assert "# 第1章 はじめに" in read.structured_content["text"]
