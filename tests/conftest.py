"""Shared fixtures: fixture workspaces and the fake embedders for fast logic tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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
