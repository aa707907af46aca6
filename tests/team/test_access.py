"""Who may read what: a reader role only reads, and a path restricted to a group is invisible to
everyone else in every face and every result field, and to SQL the reader runs itself."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import psycopg
import pytest
from mcp import Client

from groundls.cli.main import main as cli
from groundls.config import Config
from groundls.workspace import Workspace
from tests.helpers import mcp_client
from tests.team.conftest import as_role, sql

pytestmark = pytest.mark.slow

SECRET = "zorblax"
RESTRICTED = "services/payments/"


@pytest.fixture
def restricted_store(team_ws: Path, tmp_path: Path, database: str) -> str:
    """The monorepo published, ``services/payments/**`` restricted to the payments group:
    alice is in it, bob is not. Both may read the store."""
    for statement in (
        "DROP ROLE IF EXISTS alice",
        "DROP ROLE IF EXISTS bob",
        "DROP ROLE IF EXISTS payments",
        "CREATE ROLE payments NOLOGIN",
        "CREATE ROLE alice LOGIN IN ROLE payments",
        "CREATE ROLE bob LOGIN",
    ):
        sql(database, statement)
    assert (
        cli(
            [
                "index",
                str(team_ws),
                "--deep",
                "--index-dir",
                str(tmp_path / "ci"),
                "--store",
                database,
            ]
        )
        == 0
    )
    for role in ("alice", "bob"):
        assert cli(["store", "--store", database, "grant", role]) == 0
    assert cli(["store", "--store", database, "restrict", "services/payments/**", "payments"]) == 0
    return database


def bob_checkout(team_ws: Path, tmp_path: Path) -> Path:
    """Bob's sparse checkout: the monorepo without the payments service."""
    root = tmp_path / "bob"
    shutil.copytree(team_ws, root)
    shutil.rmtree(root / "services" / "payments")
    return root


def reading(store: str) -> Config:
    config = Config()
    config.index.store = store
    # a model server that is not there: every answer is the excerpts' key lines, at once
    config.answer.engine, config.answer.model = "openai", "m"
    config.answer.base_url = "http://127.0.0.1:1/v1"
    return config


def test_a_restricted_path_is_invisible_to_sql_a_reader_runs_itself(restricted_store):
    bob, alice = as_role(restricted_store, "bob"), as_role(restricted_store, "alice")
    tables = [r[0] for r in sql(restricted_store, "SELECT tablename FROM pg_tables"
              " WHERE schemaname = 'public' AND tablename IN ('files', 'chunks', 'chunk_names')"
              " OR tablename LIKE 'vec\\_%'")]  # fmt: skip
    assert len(tables) >= 5
    totals: dict[str, int] = {}
    for table in tables:
        restricted = f"SELECT count(*) FROM {table} WHERE path LIKE 'services/payments/%'"
        totals[table] = sql(restricted_store, restricted)[0][0]
        assert sql(alice, restricted)[0][0] == totals[table], table
        assert sql(bob, restricted)[0][0] == 0, table
    assert totals["files"] and totals["chunks"]
    assert sum(n for table, n in totals.items() if table.startswith("vec_")) > 0
    assert sql(bob, "SELECT count(*) FROM chunks WHERE terms @@ %s::tsquery", (SECRET,))[0][0] == 0
    assert sql(bob, "SELECT count(*) FROM chunks WHERE text LIKE %s", (f"%{SECRET}%",))[0][0] == 0
    for statement in (
        "SELECT * FROM groundls_rules",
        "INSERT INTO files (path, checksum, size, mtime_ns, language, kind, signature)"
        " VALUES ('x', '', 0, 0, '', '', '')",
        "UPDATE chunks SET text = ''",
        "DELETE FROM chunks",
        "UPDATE groundls_meta SET value = ''",
    ):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            sql(bob, statement)
    with psycopg.connect(bob, autocommit=True) as conn:
        conn.execute("SET row_security = off")
        with pytest.raises(psycopg.Error, match="row-level security"):
            conn.execute("SELECT count(*) FROM chunks").fetchall()


def _no_secret(text: str) -> None:
    assert SECRET not in text and RESTRICTED not in text and "ledger" not in text.lower()


def test_search_similar_hover_and_answers_never_show_a_restricted_path(
    restricted_store, team_ws, tmp_path
):
    bob = Workspace.open(
        bob_checkout(team_ws, tmp_path), reading(as_role(restricted_store, "bob")), tmp_path / "b"
    )
    alice = Workspace.open(team_ws, reading(as_role(restricted_store, "alice")), tmp_path / "a")
    try:
        assert alice.search("settle the zorblax ledger").hits[0].path.startswith(RESTRICTED)
        bob.refresh()
        assert bob.store.overlaid() == 0  # the files bob lacks are not deleted for him
        for query in ("settle the zorblax ledger", "payments", "zorblax", "card payments nightly"):
            result = bob.search(query, explain=True)
            _no_secret(json.dumps([h.__dict__ for h in result.hits], default=str))
            _no_secret(json.dumps([e.__dict__ for e in result.explanations], default=str))
        catalog = bob.chunk_at("services/catalog/items.py", 1)
        assert catalog is not None
        related = [hit for _, hit in bob.related(catalog.chunk_id, k=50).entries()]
        for hit in [*bob.similar(catalog.chunk_id, k=50), *related]:
            _no_secret(hit.path + hit.text + hit.title)
        theirs = alice.chunk_at("services/payments/ledger.py", 1)
        assert theirs is not None and bob.get_chunk(theirs.chunk_id) is None
        assert bob.chunk_at("services/payments/ledger.py", 1) is None
        assert not any(p.startswith(RESTRICTED) for p in bob.store.file_checksums())
        answer = bob.answers.ask("How is the zorblax ledger settled?")
        _no_secret(json.dumps([c.__dict__ for c in [*answer.citations, *answer.sources]]))
        _no_secret(answer.answer)
    finally:
        bob.close()
        alice.close()


def test_the_cli_and_the_mcp_server_show_a_reader_nothing_restricted(
    restricted_store, team_ws, tmp_path, capsys
):
    root = bob_checkout(team_ws, tmp_path)
    store = as_role(restricted_store, "bob")
    args = ["-w", str(root), "--index-dir", str(tmp_path / "cli"), "--store", store]
    assert cli(["search", *args, "--json", "--explain", "settle the zorblax ledger"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hits"]
    _no_secret(json.dumps(out["hits"]))  # the rest restates the question
    assert cli(["status", *args]) == 0
    status = capsys.readouterr().out
    assert "served store: postgresql database" in status and "?host=" not in status

    async def through_mcp() -> list[str]:
        params = mcp_client.server(
            "--workspace", str(root), "--index-dir", str(tmp_path / "mcp"), "--store", store
        )
        async with Client(params) as session:
            found = await session.call_tool("search", {"query": "zorblax ledger", "k": 20})
            status = await session.call_tool("status", {})
            read = await session.call_tool("read", {"target": "services/payments/ledger.py"})
            return [json.dumps(found.structured_content["hits"]), _text(status), _text(read)]

    found, status, read = asyncio.run(through_mcp())
    _no_secret(found)
    assert "served store" in status and "?host=" not in status
    _no_secret(read.replace("services/payments/ledger.py", ""))


def _text(result) -> str:
    return "\n".join(block.text for block in result.content)
