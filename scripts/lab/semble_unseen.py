"""Score groundls on repositories of semble's benchmark that ../shared does not hold.

The public SEMBLE-PUB set has 12 of semble's 63 repositories; the ranking was measured on them.
This script takes any others, straight from semble's own benchmark files, as a check on
repositories nothing here was measured on: it reads ``benchmarks/repos.json`` and
``benchmarks/annotations/NAME.json`` from a ``fetch`` mirror of semble, extracts each pinned
revision's ``benchmark_root`` (code files only, as semble indexes it) with
``../shared/eval/semble/materialize.sh``, converts the annotations with its
``tools/convert_annotations.py``, indexes with the default configuration and scores with
``score_semble.py`` (semble's chunk protocol, NDCG@10, mean over repositories).

    python scripts/lab/semble_unseen.py --work /tmp/unseen ktor plug lazy.nvim bats-core zig-clap aeson

Each repository must have been fetched first (``fetch github:OWNER/NAME``; the mirror folder is
``MIRROR/OWNER+NAME/repo``). A repository whose pinned commit the mirror lacks is skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import mean
from typing import Any

from groundls.results import SearchFilters
from groundls.workspace import Workspace

HERE = Path(__file__).resolve().parents[2]


def _git_show(git_dir: Path, spec: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", spec], check=True, capture_output=True
    ).stdout


def _published(semble_git: Path) -> dict[str, float]:
    """semble's own NDCG@10 per repository (its hybrid result file)."""
    names = _git_show(semble_git, "HEAD:benchmarks/results/").decode().split()
    hybrid = sorted(n for n in names if n.startswith("semble-hybrid-"))
    if not hybrid:
        return {}
    rows = json.loads(_git_show(semble_git, f"HEAD:benchmarks/results/{hybrid[-1]}"))["repos"]
    return {r["repo"]: r["ndcg10"] for r in rows}


def _prepare(name: str, repo: dict[str, Any], args: argparse.Namespace, shared: Path) -> bool:
    owner_name = repo["url"].removeprefix("https://github.com/").removesuffix(".git")
    mirror = Path(args.mirror) / owner_name.replace("/", "+") / "repo"
    corpus, queries = args.work / "corpora" / name, args.work / "queries" / f"{name}.jsonl"
    annotation = args.work / "annotations" / f"{name}.json"
    if corpus.is_dir() and queries.is_file():
        return True
    if not mirror.is_dir():
        print(f"{name}: no mirror at {mirror} (fetch github:{owner_name})", file=sys.stderr)
        return False
    for folder in (corpus.parent, queries.parent, annotation.parent):
        folder.mkdir(parents=True, exist_ok=True)
    annotation.write_bytes(
        _git_show(Path(args.semble_git), f"HEAD:benchmarks/annotations/{name}.json")
    )
    root = [repo["benchmark_root"]] if repo.get("benchmark_root") else []
    made = subprocess.run(
        [str(shared / "materialize.sh"), str(mirror), repo["revision"], str(corpus), *root],
        env={**os.environ, "CODE_ONLY": "1"},
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        print(f"{name}: {made.stderr.strip()}", file=sys.stderr)
        return False
    repos_json = args.work / "repos.json"
    converted = subprocess.run(
        [
            sys.executable,
            str(shared / "tools" / "convert_annotations.py"),
            str(annotation),
            str(repos_json),
            name,
            str(mirror),
            str(queries),
        ],
        capture_output=True,
        text=True,
    )
    if converted.returncode != 0:
        print(f"{name}: {converted.stdout.strip()} {converted.stderr.strip()}", file=sys.stderr)
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="+", help="repository names as in semble's repos.json")
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--mirror", default="/work/.mirror", help="folder of the fetch mirrors")
    ap.add_argument("--semble-git", help="semble mirror (default MIRROR/michalfedyna+semble/repo)")
    ap.add_argument("--shared", type=Path, default=HERE.parent / "shared")
    ap.add_argument("--per-query", action="store_true")
    args = ap.parse_args()
    args.semble_git = args.semble_git or f"{args.mirror}/michalfedyna+semble/repo"
    shared = args.shared.resolve() / "eval" / "semble"
    spec = importlib.util.spec_from_file_location("score_semble", shared / "score_semble.py")
    assert spec and spec.loader
    scorer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    args.work.mkdir(parents=True, exist_ok=True)
    repos_json = _git_show(Path(args.semble_git), "HEAD:benchmarks/repos.json")
    (args.work / "repos.json").write_bytes(repos_json)
    repos = {r["name"]: r for r in json.loads(repos_json)}
    published = _published(Path(args.semble_git))
    ours: dict[str, float] = {}
    for name in args.names:
        if name not in repos or not _prepare(name, repos[name], args, shared):
            continue
        index = args.work / "index" / name
        started = time.perf_counter()
        ws = Workspace.open(args.work / "corpora" / name, index_dir=index)
        try:
            ws.index()
            took = time.perf_counter() - started
            scores = []
            for line in (args.work / "queries" / f"{name}.jsonl").read_text().splitlines():
                q = json.loads(line)
                found = ws.search(q["query"], SearchFilters(k=10))
                hits = [
                    {"path": h.path, "start_line": h.start_line, "end_line": h.end_line}
                    for h in found
                ]
                got = scorer.score_query(q, hits, 10, False)
                scores.append(got["ndcg10"])
                if args.per_query and got["ndcg10"] < 1:
                    print(f"  {q['id']:<26}{got['ndcg10']:6.3f} {got['ranks']}  {q['query']}")
        finally:
            ws.close()
        ours[name] = mean(scores)
        semble = published.get(name)
        beside = f"   semble {semble:.3f}" if semble is not None else ""
        print(f"{name:<16} {repos[name]['language']:<10} {ours[name]:.3f}{beside}   ({took:.1f} s)")
    if ours:
        both = [n for n in ours if n in published]
        line = f"mean of {len(ours)}: {mean(ours.values()):.3f}"
        if both:
            line += f"   semble on the same: {mean(published[n] for n in both):.3f}"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
