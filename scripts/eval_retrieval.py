"""Score groundls retrieval on the public eval sets (../shared/eval) beside the BM25 baseline.

Usage: python scripts/eval_retrieval.py [--shared ../shared] [--work /tmp/groundls-eval]
       [--set click|click-ja|ja|debref-ja]
Fetches the corpora with the eval's own scripts (PyPI/Debian only), indexes them, runs every
query through ``groundls search --batch`` and prints score.py's lenient and strict figures.

``debref-ja`` is this repository's own set (``scripts/sets``): Japanese questions about the
Debian Reference in Japanese, its raw HTML chapters; written after the public sets, as a check
on Japanese documentation that nothing was tuned on.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SETS = {
    "click": ("fetch_click.sh", "click", "queries_click.jsonl"),
    "click-ja": ("fetch_click.sh", "click", "queries_click_ja.jsonl"),
    "ja": ("fetch_maintguide_ja.sh", "maintguide_ja", "queries_maintguide_ja.jsonl"),
    "debref-ja": (
        "fetch_debian_reference_ja.sh",
        "debian_reference_ja",
        "queries_debian_reference_ja.jsonl",
    ),
}
#: Sets whose fetch script and questions live in this repository (scripts/sets).
OWN_SETS = {"debref-ja"}


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, text=True, **kw)  # type: ignore[call-overload]


def main() -> int:
    here = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(here.parent / "shared"))
    ap.add_argument("--work", default="/tmp/groundls-eval")
    ap.add_argument("--set", action="append", choices=list(SETS))
    ap.add_argument("--config", help="groundls config JSON to evaluate")
    ap.add_argument("--per-query", action="store_true")
    args = ap.parse_args()
    shared = Path(args.shared).resolve() / "eval"
    work = Path(args.work).resolve()
    groundls = [sys.executable, "-m", "groundls.cli"]
    summary = {}
    for name in args.set or list(SETS):
        fetch, folder, queries_file = SETS[name]
        sets = here / "scripts" / "sets" if name in OWN_SETS else shared
        queries = sets / queries_file
        corpus = work / "corpora" / folder
        if not (work / "corpora" / f"{folder}.fetched").exists() and not corpus.is_dir():
            corpus.parent.mkdir(parents=True, exist_ok=True)
            run(["bash", str(sets / fetch), str(corpus)])
        env = dict(os.environ, GROUNDLS_INDEX_DIR=str(work / "index"))
        extra = ["--config", args.config] if args.config else []
        started = time.perf_counter()
        run([*groundls, "index", "--quiet", "-w", str(corpus), *extra], env=env)
        index_s = time.perf_counter() - started
        lines = []
        for line in queries.read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                lines.append(json.dumps({"id": q["id"], "query": q["query"]}, ensure_ascii=False))
        started = time.perf_counter()
        out = run(
            [*groundls, "search", "--batch", "-w", str(corpus), "-k", "10", *extra],
            env=env,
            input="\n".join(lines) + "\n",
            capture_output=True,
        ).stdout
        search_s = time.perf_counter() - started
        results = work / f"results_{name}.jsonl"
        results.write_text(out, encoding="utf-8")
        score_json = work / f"score_{name}.json"
        cmd = [
            sys.executable,
            str(shared / "score.py"),
            str(queries),
            str(results),
            "--json",
            str(score_json),
        ]
        if args.per_query:
            cmd.append("--per-query")
        print(f"== {name}: index {index_s:.1f}s, {len(lines)} queries in {search_s:.1f}s")
        run(cmd)
        summary[name] = json.loads(score_json.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
