"""Does a question's standing among the off-topic pool (``groundls.search.offtopic``) separate
the questions a workspace answers from those it does not? Measured on the sets' answerable and
unanswerable questions, beside the search's own confidence; no model call.

Usage: python scripts/lab/null_lab.py --index-dir DIR CORPUS QUERIES.jsonl [CORPUS QUERIES ...]

For each set: the standing (percentile) of every question, and at percentiles 0.5 / 0.75 / 0.9
as the bar, how many unanswerable questions fall below it (would be "not found") and how many
answerable ones do (would be refused or pointed); the same for a "low" search confidence.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from groundls.chunkers.textrules import question_language

from groundls.config import Config
from groundls.workspace import Workspace

BARS = (0.5, 0.75, 0.9)


def measure(corpus: Path, queries: Path, index_dir: Path, verbose: bool) -> None:
    config = Config()
    config.answer.use_packaged_model = False  # no model call: no translations either
    workspace = Workspace.open(corpus, config, index_dir)
    try:
        workspace.index()
        rows = []
        started = time.perf_counter()
        first = None
        for line in queries.read_text().splitlines():
            q = json.loads(line)
            language = question_language(q["query"])
            t = time.perf_counter()
            standing = workspace.standing(q["query"], language)
            first = first if first is not None else time.perf_counter() - t
            found = workspace.search(q["query"])
            top3 = [h for h in found][:3]
            pointed = any(
                h.path == e["path"]
                and h.start_line <= e["end_line"]
                and e["start_line"] <= h.end_line
                for h in top3
                for e in q.get("expected") or []
            )
            rows.append((bool(q.get("expected")), standing, found.confidence, q, pointed))
        took = time.perf_counter() - started
        ans = [r for r in rows if r[0] and r[1]]
        una = [r for r in rows if not r[0] and r[1]]
        print(
            f"== {queries.name} on {corpus.name}: {len(ans)} answerable, {len(una)} unanswerable"
            f" (first standing {first:.1f} s, all {took:.1f} s)"
        )
        if not ans and not una:
            print("   no multilingual space holds vectors")
            return
        for who, group in (("answerable", ans), ("unanswerable", una)):
            ps = [r[1].percentile for r in group]
            if ps:
                print(
                    f"   {who}: percentile median {statistics.median(ps):.2f}, "
                    f"min {min(ps):.2f}, max {max(ps):.2f}"
                )
        for bar in BARS:
            below_u = sum(r[1].percentile < bar for r in una)
            below_a = sum(r[1].percentile < bar for r in ans)
            both_u = sum(r[1].percentile < bar and r[2] == "low" for r in una)
            low_a = [r for r in ans if r[1].percentile < bar and r[2] == "low"]
            print(
                f"   bar {bar:.2f}: unanswerable below {below_u}/{len(una)}, "
                f"answerable below {below_a}/{len(ans)}; and a low confidence: "
                f"{both_u}/{len(una)}, {len(low_a)}/{len(ans)} "
                f"(of them pointed: the right place in the first three {sum(r[4] for r in low_a)})"
            )
        low_u = sum(r[2] == "low" for r in una)
        low_a = sum(r[2] == "low" for r in ans)
        print(f"   confidence low: unanswerable {low_u}/{len(una)}, answerable {low_a}/{len(ans)}")
        if verbose:
            for answerable, standing, conf, q, _ in rows:
                if standing is not None:
                    print(
                        f"   {'A' if answerable else 'U'} {standing.percentile:.2f} "
                        f"{conf:6} {q['query'][:70]}"
                    )
    finally:
        workspace.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("pairs", nargs="+", help="CORPUS QUERIES pairs")
    ap.add_argument("--index-dir", required=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if len(args.pairs) % 2:
        print("give CORPUS QUERIES pairs", file=sys.stderr)
        return 2
    for corpus, queries in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        measure(Path(corpus).resolve(), Path(queries), Path(args.index_dir), args.verbose)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
