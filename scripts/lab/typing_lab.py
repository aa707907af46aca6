"""A symbol picker that asks on every keystroke, against the real ``groundls serve`` over stdio
(issue 81's typing test): each query of a file is typed at 20 requests a second, each request
cancelling the one before (``$/cancelRequest``), as VS Code's and Telescope's pickers do.

For every typed query it prints how long the last request's answer took after the last
request was sent, and whether every request was answered (a result, or "cancelled"); at the end
the p50 and p95 of that wait, with the machine's load average. Run once while the deep tier
fills (``--cold``: right after the first index) and once when it is filled.

    python scripts/lab/typing_lab.py ROOT QUERIES.jsonl [--index-dir DIR] [--limit 30]
        [--rate 20] [--cold]

QUERIES.jsonl holds ``{"query": ...}`` lines. The index lives in ``--index-dir`` (a fresh one
by default), never the user's cache; set ``GROUNDLS_CACHE_DIR`` for the models' cache too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.helpers.raw_lsp import RawServer, frame  # noqa: E402

REQUEST_CANCELLED = -32800


def start(root: Path, index_dir: Path) -> RawServer:
    index_dir.mkdir(parents=True, exist_ok=True)
    server = RawServer(index_dir, cwd=index_dir)
    msg_id = server.request(
        "initialize",
        {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": {"workspace": {"symbol": {}, "workspaceFolders": True}},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": {"groundls": {"answer": {"usePackagedModel": False}}},
        },
    )
    server.reply(msg_id, timeout=120)
    server.notify("initialized", {})
    server.wait_for(lambda m: "indexed" in m.get("params", {}).get("message", ""), 3600)
    return server


def settle(server: RawServer, timeout: float = 3600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = server.reply(
            server.request("workspace/executeCommand", {"command": "groundls.status"}), 60
        )
        folders = reply["result"]["folders"]
        if all(not f["indexing"] and not f["deepTier"] for f in folders):
            return
        time.sleep(1)
    raise TimeoutError("the deep tier did not fill")


def typed(server: RawServer, query: str, rate: float) -> tuple[float, bool, int]:
    """Type ``query`` as prefixes at ``rate`` requests a second (at most 20 of them): the wait
    for the last answer after the last request (ms), whether all were answered, the count."""
    step = max(1, len(query) // 20)
    prefixes = [query[:n] for n in range(step, len(query), step)][:19] + [query]
    ids: list[Any] = []
    for prefix in prefixes:
        if ids:
            cancel = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": ids[-1]}}
            server.send(frame(cancel))
        ids.append(server.request("workspace/symbol", {"query": prefix}))
        sent = time.perf_counter()
        if prefix is not query:
            time.sleep(1 / rate)
    last = server.reply(ids[-1], timeout=60)
    wait_ms = (time.perf_counter() - sent) * 1000
    answered = "result" in last
    for msg_id in ids[:-1]:
        reply = server.reply(msg_id, timeout=60)
        answered &= "result" in reply or reply["error"]["code"] == REQUEST_CANCELLED
    return wait_ms, answered, len(ids)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("queries", type=Path)
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--limit", type=int, default=30)
    ap.add_argument("--rate", type=float, default=20.0)
    ap.add_argument("--cold", action="store_true", help="type while the deep tier fills")
    args = ap.parse_args()
    lines = args.queries.read_text(encoding="utf-8").splitlines()
    queries = [json.loads(line)["query"] for line in lines if line.strip()][: args.limit]
    index_dir = args.index_dir or Path(tempfile.mkdtemp(prefix="typing-lab-"))
    server = start(args.root.resolve(), index_dir)
    try:
        if not args.cold:
            settle(server)
        waits, unanswered = [], 0
        for query in queries:
            wait_ms, answered, count = typed(server, query, args.rate)
            waits.append(wait_ms)
            unanswered += not answered
            print(
                f"{wait_ms:7.1f} ms  {count:2d} requests  {'ok' if answered else 'LOST'}  {query}"
            )
        p95 = statistics.quantiles(waits, n=20)[-1] if len(waits) > 1 else waits[0]
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"{'cold' if args.cold else 'filled'}: {len(waits)} typed queries, last answer "
            f"p50 {statistics.median(waits):.1f} ms, p95 {p95:.1f} ms, max {max(waits):.1f} ms; "
            f"{unanswered} with a request left unanswered; load {load}"
        )
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
