"""The MCP face end to end: the MCP SDK's own stdio client starts ``groundls mcp`` on a real
workspace (real models), lists the tools and calls each one with good and bad arguments."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mcp import Client

from tests.helpers import mcp_client

FIXTURE = Path(__file__).parents[1] / "fixtures" / "search_ws"
CLI = [sys.executable, "-m", "groundls.cli.main"]

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("mcp")
    root = base / "ws"
    shutil.copytree(FIXTURE, root)
    index_dir = base / "index"
    # the deep tier filled up front, so the command line and the server search the same index
    subprocess.run(
        [*CLI, "index", "--deep", "--quiet", str(root), "--index-dir", str(index_dir)],
        check=True,
        capture_output=True,
    )
    return root, index_dir


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(workspace: tuple[Path, Path]) -> AsyncIterator[Client]:
    root, index_dir = workspace
    params = mcp_client.server("--workspace", str(root), "--index-dir", str(index_dir))
    # anyio's task group must be left by the task that entered it: one task owns the session
    ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()

    async def own() -> None:
        async with Client(params) as session:
            ready.set_result(session)
            await done.wait()

    owner = asyncio.create_task(own())
    yield await ready
    done.set()
    await owner


def _text(result) -> str:
    return "\n".join(block.text for block in result.content)


def _leaks(text: str) -> bool:
    return "Traceback" in text or sys.prefix in text or "site-packages" in text


async def test_the_five_tools_are_listed_with_typed_input_schemas(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"search", "related", "read", "ask", "status"}
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert {"k", "paths", "languages", "kinds"} <= set(search["properties"])
    assert "slower" in tools["ask"].description.lower()
    assert tools["search"].output_schema is not None


async def test_search_finds_the_retry_function_with_a_confidence(client: Client) -> None:
    result = await client.call_tool("search", {"query": "upload with retry", "k": 5})
    assert not result.is_error
    text = _text(result)
    assert text.startswith("confidence: ")
    assert "src/storage/uploads.py:" in text and "upload_with_retry" in text
    hits = result.structured_content["hits"]
    assert len(hits) <= 5 and hits[0]["path"].startswith("src/storage/")
    assert not any(h["path"].startswith("/") for h in hits)


def _cli_search(
    root: Path, index_dir: Path, query: str, *options: str
) -> subprocess.CompletedProcess[str]:
    """``groundls search --json`` over the same index, as a user would run it."""
    command = [*CLI, "search", "--json", *options, "--workspace", str(root)]
    return subprocess.run(
        [*command, "--index-dir", str(index_dir), query],
        check=True,
        capture_output=True,
        text=True,
    )


async def test_search_explains_why_each_hit_ranks_there_as_the_command_line_does(
    client: Client, workspace: tuple[Path, Path]
) -> None:
    root, index_dir = workspace
    query = "upload with retry"
    result = await client.call_tool("search", {"query": query, "k": 3, "explain": True})
    assert "= fused" in _text(result) and "keyword" in _text(result)
    hits = result.structured_content["hits"]
    cli = _cli_search(root, index_dir, query, "-k", "3", "--explain")
    expected = json.loads(cli.stdout)["hits"]
    assert [h["explain"] for h in hits] == [h["explain"] for h in expected]
    assert hits[0]["explain"]["lists"][0]["rank"] >= 1


async def test_search_through_mcp_ranks_as_the_command_line_does(
    client: Client, workspace: tuple[Path, Path]
) -> None:
    root, index_dir = workspace
    for query in ("upload with retry", "ログレベルの変更", "offline install"):
        cli = _cli_search(root, index_dir, query, "-k", "8")
        expected = [(h["path"], h["start_line"]) for h in json.loads(cli.stdout)["hits"]]
        result = await client.call_tool("search", {"query": query, "k": 8})
        got = [(h["path"], h["start_line"]) for h in result.structured_content["hits"]]
        assert got == expected, query


async def test_related_and_read_take_a_place_or_a_chunk_id(client: Client) -> None:
    found = await client.call_tool("search", {"query": "upload with retry", "k": 3})
    chunk_id = found.structured_content["hits"][0]["chunk_id"]
    by_id = await client.call_tool("related", {"target": chunk_id, "k": 3})
    by_place = await client.call_tool("related", {"target": "src/storage/uploads.py:16"})
    assert not by_id.is_error and not by_place.is_error
    related = by_id.structured_content["related"]
    assert related and {r["relation"] for r in related} <= {"doc", "code", "test", "caller"}
    assert by_place.structured_content["called"] >= 0
    read = await client.call_tool("read", {"target": chunk_id})
    assert not read.is_error
    record = read.structured_content
    assert record["path"] == found.structured_content["hits"][0]["path"]
    ranged = await client.call_tool("read", {"target": "src/storage/uploads.py:1-3"})
    assert ranged.structured_content["start_line"] == 1
    assert ranged.structured_content["end_line"] == 3
    assert _text(ranged).splitlines()[1].startswith("1  ")


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("search", {"query": "  "}, "must not be empty"),
        ("search", {"query": "x", "k": 0}, "greater than or equal to 1"),
        ("search", {"query": "x", "kinds": ["bogus"]}, "unknown kind"),
        ("search", {}, "query"),
        ("related", {"target": "nowhere"}, "chunk id or path:line"),
        ("related", {"target": "0123456789abcdef"}, "no chunk"),
        ("read", {"target": "../../../etc/passwd:1-3"}, "outside the workspace"),
        ("read", {"target": "/etc/passwd"}, "outside the workspace"),
        ("read", {"target": ".env"}, "not an indexed file"),
        ("read", {"target": "src/storage/uploads.py:9-2"}, "ends before it starts"),
        ("read", {"target": "src/storage/uploads.py:5000"}, "past its end"),
        ("ask", {"question": ""}, "must not be empty"),
    ],
)
async def test_bad_arguments_are_readable_tool_errors(
    client: Client, tool: str, arguments: dict, says: str
) -> None:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    text = _text(result)
    assert says in text
    assert not _leaks(text) and "/etc/passwd" not in text.replace("../../../etc/passwd", "")


async def test_a_file_edited_between_calls_is_searched_and_read_as_it_is_now(
    client: Client, workspace: tuple[Path, Path]
) -> None:
    root, _ = workspace
    target = root / "src" / "storage" / "quota.py"
    target.write_text(
        "def enforce_bucket_quota(bucket, used_bytes, limit_bytes):\n"
        '    """Refuse an upload that would take a bucket over its quota."""\n'
        "    return used_bytes <= limit_bytes\n"
    )
    result = await client.call_tool("search", {"query": "enforce bucket quota", "k": 3})
    assert result.structured_content["hits"][0]["path"] == "src/storage/quota.py"
    target.write_text("def enforce_bucket_quota(bucket):\n    return True\n")
    read = await client.call_tool("read", {"target": "src/storage/quota.py"})
    assert read.structured_content["total_lines"] == 2
    target.unlink()
    gone = await client.call_tool("search", {"query": "enforce bucket quota", "k": 5})
    assert all(h["path"] != "src/storage/quota.py" for h in gone.structured_content["hits"])


async def test_ask_answers_with_citations_or_says_not_found(client: Client) -> None:
    result = await client.call_tool("ask", {"question": "How often is a failed upload retried?"})
    assert not result.is_error
    record = result.structured_content
    assert record["mode"] in {"llm", "extractive", "not_found"}
    if record["found"]:
        assert record["citations"]
        assert all(c["path"].startswith(("src/", "docs/")) for c in record["citations"])
        assert "[" in _text(result)


async def test_status_reports_tiers_models_and_what_confidence_means(client: Client) -> None:
    result = await client.call_tool("status", {})
    text = _text(result)
    assert "tier static" in text and "tier minilm" in text and "confidence: high" in text
    assert not _leaks(text)


async def test_an_agent_searches_a_workspace_that_reads_a_shared_base(
    workspace: tuple[Path, Path], tmp_path: Path
) -> None:
    root, index_dir = workspace
    base = tmp_path / "team.groundls"
    subprocess.run(
        [*CLI, "index", "--quiet", str(root), "--index-dir", str(index_dir), "--export", str(base)],
        check=True,
        capture_output=True,
    )
    mine = tmp_path / "mine"
    shutil.copytree(root, mine)
    (mine / "docs" / "glacier.md").write_text("# Glacier\n\nmarmot_narwhal_drum tiers.\n")
    params = mcp_client.server(
        "--workspace", str(mine), "--index-dir", str(tmp_path / "i"), "--base", str(base)
    )
    async with Client(params) as session:
        found = await session.call_tool("search", {"query": "marmot_narwhal_drum"})
        assert found.structured_content["hits"][0]["path"] == "docs/glacier.md"
        older = await session.call_tool("search", {"query": "upload with retry", "k": 3})
        assert older.structured_content["hits"][0]["path"].startswith("src/storage/")
        status = _text(await session.call_tool("status", {}))
        assert "base: team.groundls" in status and "1 file(s) differ from it" in status
        assert not _leaks(status) and str(tmp_path) not in status
