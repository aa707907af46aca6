"""Shared fixtures: fixture workspaces and the fake embedders for fast logic tests; the guards
that keep every test off the user's cache and every logic test off the packaged answer model."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from groundls import cache
from groundls.answer.model import shared
from groundls.config import Config
from groundls.workspace import Workspace
from tests.helpers import user_cache
from tests.helpers.fakes import FakeEmbedder

FIXTURES = Path(__file__).parent / "fixtures"

# -- the user's cache: never written by a test -----------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    """Point every cache the product keeps at a folder of this run (unless the caller already
    gave one, as scripts/test.sh does) and snapshot the real one."""
    given = os.environ.get(cache.ENV)
    if not given or Path(given).resolve() == user_cache.real_cache().resolve():
        folder = Path(tempfile.mkdtemp(prefix="groundls-test-cache."))
        user_cache.isolate(folder)
        os.environ[cache.ENV] = str(folder)
        config.stash[_OWN_CACHE] = folder
    config.stash[_CACHE_BEFORE] = user_cache.snapshot()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when any test wrote under the user's real cache."""
    found = user_cache.changes(session.config.stash[_CACHE_BEFORE], user_cache.snapshot())
    if found:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        for line in found:
            message = f"a test wrote to the user's cache {user_cache.real_cache()}: {line}"
            if reporter is not None:
                reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_OWN_CACHE, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


_OWN_CACHE = pytest.StashKey[Path]()
_CACHE_BEFORE = pytest.StashKey[dict[str, str]]()

# -- the packaged answer model: only in tests that use the real models -----------------------


@pytest.fixture(autouse=True)
def _logic_tests_never_load_the_answer_model(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """A test not marked ``slow`` runs as on a machine with no answer model (its result must not
    depend on the model's words); one that reaches for the model fails, naming the fix."""
    if request.node.get_closest_marker("slow") is not None:
        yield
        return
    reached: list[str] = []

    def refuse(spec: Any, **_: Any) -> None:
        reached.append(spec.name)
        return None

    monkeypatch.setattr(shared, "acquire_shared", refuse)
    yield
    assert not reached, (
        f"this logic test loaded the answer model {reached[0]}: give it a fake model "
        "(ModelSlot(config, llm=...)) or a Config without the packaged model, or mark it slow"
    )


def no_model(config: Config | None = None) -> Config:
    """A config that answers and translates without a model (as an install without one)."""
    config = config or Config()
    config.answer.use_packaged_model = False
    return config


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
    workspace = Workspace.open(search_ws, no_model(), tmp_path / "index", embedders=fake_embedders)
    workspace.index()
    yield workspace
    workspace.close()
