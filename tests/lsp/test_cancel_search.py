"""Cancelling a search stops its work, not only its reply (the real server over stdio)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from groundls.answer.model import model_files
from groundls.index.embed.embedders import QueryFirst
from groundls.results import Cancelled, SearchFilters
from tests.helpers.raw_lsp import RawServer, frame

REQUEST_CANCELLED = -32800


def test_a_search_cancelled_before_it_starts_embeds_nothing(tmp_path, fake_embedders):
    from tests.test_workspace import open_workspace

    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def upload(path):\n    return retry(path)\n")
    workspace = open_workspace(root, tmp_path, fake_embedders)
    workspace.index()
    calls = {name: len(model.calls) for name, model in fake_embedders.items()}
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        workspace.search("where are uploads retried", SearchFilters(), cancel)
    assert {name: len(model.calls) for name, model in fake_embedders.items()} == calls


def test_a_query_never_waits_for_a_fill_batch_and_holds_the_next_one_back():
    gate = QueryFirst()
    order: list[str] = []
    running = threading.Event()
    release = threading.Event()
    query_done = threading.Event()

    def batch(n: int) -> None:
        order.append(f"fill{n} starts")
        running.set()
        if n == 0:
            release.wait(10)  # the first batch is still running when the query comes

    def fill() -> None:
        for n in range(3):
            gate.run(lambda n=n: batch(n), query=False)

    worker = threading.Thread(target=fill)
    worker.start()
    running.wait(5)

    def query() -> None:
        order.append("query")
        release.set()  # the running batch ends while the query still runs
        time.sleep(0.05)
        order.append("query ends")

    gate.run(query, query=True)
    query_done.set()
    worker.join(10)
    assert order == [
        "fill0 starts",
        "query",
        "query ends",
        "fill1 starts",
        "fill2 starts",
    ]


needs_model = pytest.mark.skipif(
    not model_files.llama_available() or model_files.packaged_parts() is None,
    reason="the answer model is not installed (GROUNDLS_NO_LLM=1)",
)


@pytest.mark.slow
@needs_model
def test_cancelling_a_japanese_search_stops_its_rewrite(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "uploads.py").write_text(
        "def retry_upload(path, attempts=3):\n"
        '    """Upload a file again when the connection drops."""\n'
        "    return send(path)\n"
    )
    server = RawServer(tmp_path / "index", cwd=tmp_path)
    try:
        server.initialize(root)
        server.wait_for(lambda m: "indexed" in m.get("params", {}).get("message", ""), 120)
        # a question never asked before: the answer model writes its English words (seconds)
        question = f"接続が切れたときアップロードを再試行する関数はどこ {time.time_ns()}"
        msg_id = server.request(
            "workspace/executeCommand",
            {"command": "groundls.search", "arguments": [{"query": question}]},
        )
        time.sleep(0.5)
        server.send(
            frame({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": msg_id}})
        )
        assert server.reply(msg_id, timeout=30)["error"]["code"] == REQUEST_CANCELLED
        stopped = server.wait_for(
            lambda m: "groundls.search stopped: cancelled" in json.dumps(m), timeout=30
        )
        assert stopped["method"] == "window/logMessage"
    finally:
        server.close()
