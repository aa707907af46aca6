"""A team index served from PostgreSQL: published from a local index, searched as that index
ranks, overlaid by an editor's own edits, republished by what changed; a clear line for bad
input, and an editor that keeps working from its overlay when the server goes away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundls.cli.main import main as cli
from groundls.config import Config
from groundls.index.storage.served.connection import StoreUnavailable
from groundls.workspace import Workspace
from tests.team.conftest import sql, start_server, url

pytestmark = pytest.mark.slow

QUERIES = [
    "where are thumbnails cached",
    "install without network access",
    "upload size limit",
    "ログの設定",
    "settle the ledger",
    "catalog items cheapest first",
    "UploadStore",
]


def reading(store: str) -> Config:
    config = Config()
    config.index.store = store
    return config


def places(workspace: Workspace, query: str) -> list[tuple[str, int, int]]:
    return [(h.path, h.start_line, h.end_line) for h in workspace.search(query).hits]


def publish(root: Path, index: Path, store: str) -> Workspace:
    own = Workspace.open(root, Config(), index)
    own.index()
    own.publish(store)
    return own


def test_a_served_index_ranks_as_the_local_index_it_was_published_from(team_ws, tmp_path, database):
    own = publish(team_ws, tmp_path / "ci", database)
    editor = Workspace.open(team_ws, reading(database), tmp_path / "editor")
    try:
        assert editor.has_current_index  # nothing to index: every file is served as it is
        assert editor.refresh() is None
        assert editor.store.overlaid() == 0
        assert [n for n in editor.sends_to() if "postgresql database" in n]  # the user sees it
        assert own.sends_to() == []
        for query in QUERIES:
            mine, theirs = own.search(query), editor.search(query)
            assert places(editor, query) == places(own, query), query
            assert theirs.confidence == mine.confidence, query
        served = sql(database, "SELECT count(*) FROM chunks")[0][0]
        assert served == own.stats()["chunks"] and editor.stats()["chunks"] == served
        assert not list((tmp_path / "editor").glob("*.usearch"))  # no vectors kept here
    finally:
        own.close()
        editor.close()


def test_an_edited_file_shadows_its_served_version_and_a_deleted_one_is_gone(
    team_ws, tmp_path, database
):
    publish(team_ws, tmp_path / "ci", database).close()
    (team_ws / "services" / "catalog" / "items.py").write_text(
        "def list_catalog_items(shelf):\n"
        '    """Every catalog item on a shelf, grouped by the quuxwing supplier."""\n'
        "    return group_by_supplier(shelf.items)\n",
        encoding="utf-8",
    )
    (team_ws / "services" / "payments" / "README.md").unlink()
    editor = Workspace.open(team_ws, reading(database), tmp_path / "editor")
    try:
        editor.refresh()
        assert editor.store.overlaid() == 2
        hits = editor.search("grouped by the quuxwing supplier").hits
        assert hits[0].path == "services/catalog/items.py"
        assert "quuxwing" in hits[0].text
        texts = [h.text for h in editor.search("catalog items cheapest first").hits]
        assert not any("cheapest first" in t for t in texts)  # the served version is shadowed
        paths = {h.path for h in editor.search("zorblax ledger settles card payments").hits}
        assert "services/payments/README.md" not in paths
        assert "services/payments/README.md" not in editor.store.file_checksums()
        status = editor.base_status()
        assert status is not None and status["overlaid"] == 2
        assert "postgresql://" not in json.dumps(status) and "host" not in json.dumps(status)
    finally:
        editor.close()


def test_publishing_again_writes_only_what_changed(team_ws, tmp_path, database):
    own = publish(team_ws, tmp_path / "ci", database)
    try:
        (team_ws / "docs" / "guide.md").write_text("# Guide\n\nA new guide.\n", encoding="utf-8")
        own.index()
        again = own.publish(database)
        assert (again.files, again.removed, again.replaced_all) == (1, 0, False)
        assert own.publish(database).files == 0
        rows = sql(database, "SELECT text FROM chunks WHERE path = 'docs/guide.md'")
        assert any("A new guide" in r[0] for r in rows)
    finally:
        own.close()


def test_the_cli_publishes_with_index_store_and_searches_with_store(
    team_ws, tmp_path, database, capsys
):
    assert (
        cli(["index", str(team_ws), "--index-dir", str(tmp_path / "ci"), "--store", database]) == 0
    )
    assert "published to postgresql database" in capsys.readouterr().out
    assert (
        cli(
            [
                "search",
                "-w",
                str(team_ws),
                "--index-dir",
                str(tmp_path / "ed"),
                "--store",
                database,
                "--json",
                "settle the zorblax ledger",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["hits"][0]["path"].startswith("services/payments/")


@pytest.mark.parametrize(
    ("store", "expected"),
    [
        ("postgresql://postgres:secret@/db?host=/tmp", "PGPASSWORD or ~/.pgpass"),
        ("mysql://postgres@/db", "must be a postgresql:// URL"),
        ("postgresql://postgres@/postgres?host=/nonexistent/socket", "cannot be reached"),
    ],
)
def test_a_bad_store_url_is_one_clear_line_without_the_url(tmp_path, search_ws, store, expected):
    with pytest.raises(StoreUnavailable) as caught:
        Workspace.open(search_ws, reading(store), tmp_path / "editor")
    message = str(caught.value)
    assert expected in message and "\n" not in message
    assert "secret" not in message and "/nonexistent" not in message


def test_a_refused_login_an_empty_database_or_another_version_is_refused_clearly(
    team_ws, tmp_path, database, postgres
):
    with pytest.raises(StoreUnavailable, match="cannot be reached: .*role"):
        Workspace.open(team_ws, reading(url(postgres, "nobody")), tmp_path / "a")
    with pytest.raises(StoreUnavailable, match="holds no groundls index"):
        Workspace.open(team_ws, reading(database), tmp_path / "b")
    publish(team_ws, tmp_path / "ci", database).close()
    sql(database, "UPDATE groundls_meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreUnavailable, match="newer than this groundls reads"):
        Workspace.open(team_ws, reading(database), tmp_path / "c")
    sql(database, "UPDATE groundls_meta SET value = '1' WHERE key = 'schema'")
    sql(
        database,
        "UPDATE groundls_meta SET value = jsonb_set(value::jsonb,"
        " '{spaces,static,model}', '\"another-model\"')::text WHERE key = 'manifest'",
    )
    with pytest.raises(StoreUnavailable, match="built with another-model"):
        Workspace.open(team_ws, reading(database), tmp_path / "d")


def test_a_server_gone_mid_search_leaves_the_overlay_and_says_so(team_ws, tmp_path):
    server = start_server(tmp_path / "pg-gone")
    store = url(str(tmp_path / "pg-gone"))
    publish(team_ws, tmp_path / "ci", store).close()
    (team_ws / "services" / "catalog" / "items.py").write_text(
        "def list_catalog_items(shelf):\n    return quuxwing_order(shelf)\n", encoding="utf-8"
    )
    editor = Workspace.open(team_ws, reading(store), tmp_path / "editor")
    try:
        editor.refresh()
        assert editor.search("quuxwing order").notice == ""
        server.cleanup()  # the server goes away
        result = editor.search("quuxwing order")
        assert result.hits and result.hits[0].path == "services/catalog/items.py"
        assert "served store failed" in result.notice
        assert "this editor's files only" in result.notice
        assert str(tmp_path) not in result.notice
        assert "served store failed" in (editor.base_status() or {})["problem"]
    finally:
        editor.close()


def test_a_ray_build_publishes_the_same_index(team_ws, tmp_path, database, capsys):
    ray = pytest.importorskip("ray", reason="needs groundls[ray] (scripts/test.sh installs it)")
    pytest.importorskip("ray.data", reason="needs groundls[ray] (scripts/test.sh installs it)")
    args = ["index", str(team_ws), "--index-dir", str(tmp_path / "ray"), "--store", database]
    try:
        assert cli([*args, "--ray", "--workers", "1"]) == 0
    finally:
        ray.shutdown()  # the command ran in this process: its local cluster goes with it
    assert "published to postgresql database" in capsys.readouterr().out
    own = Workspace.open(team_ws, Config(), tmp_path / "local")
    own.index()
    editor = Workspace.open(team_ws, reading(database), tmp_path / "editor")
    try:
        for query in QUERIES:
            assert places(editor, query) == places(own, query), query
    finally:
        own.close()
        editor.close()
