"""Shared fixtures: fixture workspaces and the fake embedders for fast logic tests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundls.config import Config
from groundls.workspace import Workspace
from tests.helpers.fakes import FakeEmbedder

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def search_ws(tmp_path: Path) -> Path:
    """A writable copy of tests/fixtures/search_ws."""
    dest = tmp_path / "ws"
    shutil.copytree(FIXTURES / "search_ws", dest)
    return dest


@pytest.fixture
def fake_embedders() -> dict[str, FakeEmbedder]:
    return {"static": FakeEmbedder("fake-static", 64), "use": FakeEmbedder("fake-use", 48)}


@pytest.fixture
def indexed_search_ws(search_ws: Path, tmp_path: Path, fake_embedders) -> Iterator[Workspace]:
    """The search fixture workspace indexed with the fake embedders."""
    workspace = Workspace.open(search_ws, Config(), tmp_path / "index", embedders=fake_embedders)
    workspace.index()
    yield workspace
    workspace.close()
