"""Tokens an agent reads to reach the target place: ``groundls mcp`` search against grep-and-read.

For every SEMBLE-PUB query (``../shared/eval/semble``), two agents look for the target:

* **groundls mcp**: the real MCP SDK client calls ``search`` (k=10) on the real server and reads
  its whole output; if a hit is on a target (semble's hit test: same path, and overlapping lines
  when the target has a span), it then calls ``read`` on that hit's chunk id. Tokens: the
  search output plus that read. When no hit is on a target, the agent falls back to the
  grep-and-read loop below and pays for both.
* **grep-and-read**: ``grep -rilE`` for the query's words (three letters or more, common words
  left out), the matching files listed best first (most distinct words, then most matching
  lines: kinder than a real agent's order), then each file read whole, in that order, until a
  target file has been read (at most 10 files). Tokens: the file list plus every file read.

Tokens are counted with one real tokenizer for both (MiniLM's WordPiece, vendored in the
package); the ratio is what matters. Usage, after ``run.sh`` built the corpora and indexes:

    python scripts/lab/bench_agent_tokens.py WORK [NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from tokenizers import Tokenizer

HERE = Path(__file__).resolve().parent
SEMBLE = HERE.parents[2] / "shared" / "eval" / "semble"
TOKENIZER = (
    HERE.parents[1] / "server" / "groundls" / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"
)
REPOS = [
    "click", "express", "redux", "cobra", "chi", "commons-lang",
    "sinatra", "rack", "monolog", "serde", "libuv", "newtonsoft-json",
]  # fmt: skip
STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "how",
        "what",
        "where",
        "when",
        "which",
        "with",
        "from",
        "into",
        "that",
        "this",
        "does",
        "its",
        "use",
        "used",
        "using",
        "via",
        "can",
        "not",
        "all",
        "any",
        "per",
        "one",
        "each",
        "their",
        "them",
        "then",
        "than",
        "been",
        "being",
        "have",
        "has",
        "was",
        "who",
        "why",
        "way",
        "get",
        "set",
    ]
)
MAX_FILES_READ = 10
LIST_CAP = 50

_tokenizer = Tokenizer.from_file(str(TOKENIZER))
_tokenizer.no_truncation()


def tokens(text: str) -> int:
    return len(_tokenizer.encode(text, add_special_tokens=False).ids) if text else 0


def same_path(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def on_target(path: str, start: int, end: int, expected: list[dict]) -> bool:
    for t in expected:
        if not same_path(path, t["path"]):
            continue
        if t.get("file_level", True) or not (end < t["start_line"] or start > t["end_line"]):
            return True
    return False


def grep_and_read(
    corpus: Path, query: str, expected: list[dict], files: dict[str, str]
) -> tuple[int, bool]:
    words = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", query.lower()) if w not in STOP]
    if not words:
        words = re.findall(r"\w+", query.lower())
    pattern = re.compile("|".join(re.escape(w) for w in dict.fromkeys(words)), re.IGNORECASE)
    ranked = []
    for path, text in files.items():
        found = pattern.findall(text)
        if found:
            lines = sum(1 for line in text.splitlines() if pattern.search(line))
            ranked.append((-len({f.lower() for f in found}), -lines, path))
    ranked.sort()
    listing = "\n".join(p for _, _, p in ranked[:LIST_CAP])
    spent = tokens(f"$ grep -rilE '{pattern.pattern}' .\n{listing}")
    for _, _, path in ranked[:MAX_FILES_READ]:
        spent += tokens(files[path])
        if on_target(path, 1, files[path].count("\n") + 1, expected):
            return spent, True
    return spent, False


async def run_repo(name: str, work: Path, groundls: str) -> list[dict]:
    corpus = work / "corpora" / name
    files = {
        p.relative_to(corpus).as_posix(): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(corpus.rglob("*"))
        if p.is_file()
    }
    queries = [json.loads(line) for line in (SEMBLE / "repos" / name / "queries.jsonl").open()]
    params = StdioServerParameters(
        command=groundls,
        args=["mcp", "--workspace", str(corpus), "--index-dir", str(work / "index" / name)],
    )
    rows = []
    async with Client(params) as client:
        for q in queries:
            found = await client.call_tool("search", {"query": q["query"], "k": 10})
            body = "\n".join(block.text for block in found.content)
            spent = tokens(body)
            rank = None
            for n, hit in enumerate(found.structured_content["hits"], 1):
                if on_target(hit["path"], hit["start_line"], hit["end_line"], q["expected"]):
                    read = await client.call_tool("read", {"target": hit["chunk_id"]})
                    spent += tokens("\n".join(block.text for block in read.content))
                    rank = n
                    break
            grep_spent, grep_found = grep_and_read(corpus, q["query"], q["expected"], files)
            rows.append(
                {
                    "id": q["id"],
                    "repo": name,
                    "mcp_tokens": spent if rank else spent + grep_spent,
                    "mcp_rank": rank,
                    "grep_tokens": grep_spent,
                    "grep_found": grep_found,
                }
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path, help="run.sh's WORK folder (corpora/ and index/)")
    parser.add_argument("names", nargs="*", default=REPOS)
    parser.add_argument("--groundls", default=str(Path(sys.executable).with_name("groundls")))
    parser.add_argument("--json", type=Path, help="write every query's figures here")
    args = parser.parse_args()
    rows: list[dict] = []
    print(
        f"{'repo':16} {'q':>3} {'mcp hit@10':>10} {'mcp tokens':>11} {'grep tokens':>12} {'ratio':>7}"
    )
    for name in args.names:
        got = asyncio.run(run_repo(name, args.work, args.groundls))
        rows += got
        mcp = sum(r["mcp_tokens"] for r in got)
        grep = sum(r["grep_tokens"] for r in got)
        hits = sum(r["mcp_rank"] is not None for r in got)
        print(
            f"{name:16} {len(got):3} {hits:>6}/{len(got):<3} {mcp:11,} {grep:12,} {mcp / grep:7.1%}"
        )
    mcp = sum(r["mcp_tokens"] for r in rows)
    grep = sum(r["grep_tokens"] for r in rows)
    per_query = [r["mcp_tokens"] / r["grep_tokens"] for r in rows if r["grep_tokens"]]
    hits = sum(r["mcp_rank"] is not None for r in rows)
    grep_found = sum(r["grep_found"] for r in rows)
    print(
        f"\nall {len(rows)} queries: groundls mcp {mcp:,} tokens, grep-and-read {grep:,} tokens:"
        f" {mcp / grep:.1%} of the baseline (median per query {statistics.median(per_query):.1%});"
        f" target reached in the top 10 by mcp search {hits}/{len(rows)},"
        f" by grep-and-read within {MAX_FILES_READ} files {grep_found}/{len(rows)}"
    )
    if args.json:
        args.json.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
