"""The same model in-process and behind llama.cpp's server on loopback: do the answers match, and
how does the time to first token compare? (issue 34; BENCHMARKS.md)

    python scripts/bench_served.py CORPUS QUESTIONS.jsonl [--index-dir DIR] [--limit 8]

Starts ``python -m groundls.answer.llama_server`` with the packaged model, asks each answerable
question of QUESTIONS through the local engine and the ``openai`` engine over the same index (the
excerpt budget fixed, ``answer.firstTokenS`` 0, so both read the same prompt), alternating which
goes first, and prints the time to first token of each and whether the answers are the same.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from groundls.config import Config
from groundls.workspace import Workspace


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("questions", type=Path)
    ap.add_argument("--index-dir", default="/tmp/groundls-served-bench")
    ap.add_argument("--limit", type=int, default=8)
    args = ap.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "groundls.answer.llama_server", "--host", "127.0.0.1",
         "--port", str(port), "--model_alias", "qwen", "--n_ctx", "4096"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(360):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        base = {"answer": {"firstTokenS": 0, "timeLimitS": 120}, "search": {"k": 10}}
        local_cfg, _ = Config.from_dict(base)
        served_cfg, _ = Config.from_dict(
            {**base, "answer": {**base["answer"], "engine": "openai",
                                "baseUrl": f"http://127.0.0.1:{port}/v1", "model": "qwen"}}
        )  # fmt: skip
        local = Workspace.open(args.corpus, local_cfg, args.index_dir)
        local.index()
        served = Workspace.open(args.corpus, served_cfg, args.index_dir)
        questions = [
            json.loads(line)
            for line in args.questions.read_text().splitlines()
            if line.strip() and json.loads(line).get("expected")
        ][: args.limit]
        for ws in (local, served):  # load the model and warm both before timing
            ws.answers.ask("warm up: what is this project?")
        times: dict[str, list[float]] = {"local": [], "served": []}
        same = 0
        for i, q in enumerate(questions):
            order = [("local", local), ("served", served)]
            if i % 2:
                order.reverse()
            answers = {}
            for name, ws in order:
                ans = ws.answers.ask(q["query"])
                answers[name] = ans.answer
                if ans.timing.get("first_token_ms") is not None:
                    times[name].append(ans.timing["first_token_ms"])
            same += answers["local"] == answers["served"]
            print(f"{q['id']}: same={answers['local'] == answers['served']}", flush=True)
            if answers["local"] != answers["served"]:
                for name in ("local", "served"):
                    print(f"   {name}: {' '.join(answers[name].split())[:160]}")
        for name, values in times.items():
            print(f"{name}: first token p50 {statistics.median(values):.0f} ms over {len(values)}")
        print(f"identical answers: {same}/{len(questions)}")
        local.close()
        served.close()
    finally:
        server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
