"""How well the search's confidence separates answerable from unanswerable questions.

Usage: python scripts/lab/confidence_table.py NAME=QUERIES.jsonl:RESULTS.jsonl ...
RESULTS are ``groundls search --batch`` outputs (each line carries ``confidence``); a question
is unanswerable when its eval entry has no expected locations. Prints one markdown row per set.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

LEVELS = ("high", "medium", "low", "none")


def table(name: str, queries: Path, results: Path) -> str:
    answerable: dict[str, bool] = {}
    for line in queries.read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            answerable[q["id"]] = bool(q.get("expected"))
    counts = {True: Counter(), False: Counter()}
    for line in results.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            if r["id"] in answerable:
                counts[answerable[r["id"]]][r.get("confidence", "none")] += 1

    def cells(c: Counter) -> str:
        return " / ".join(str(c[level]) for level in LEVELS)

    return f"| {name} | {cells(counts[True])} | {cells(counts[False])} |"


def main(argv: list[str]) -> int:
    print(
        "| set | answerable: high / medium / low / none | unanswerable: high / medium / low / none |"
    )
    print("|---|---|---|")
    for arg in argv:
        name, paths = arg.split("=", 1)
        queries, results = paths.split(":", 1)
        print(table(name, Path(queries), Path(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
