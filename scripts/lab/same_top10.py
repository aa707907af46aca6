"""Whether two runs of ``rank_lab.py --dump`` ranked every query's top 10 the same.

    python scripts/lab/rank_lab.py ... --dump before.json     # on the old code
    python scripts/lab/rank_lab.py ... --dump after.json      # on the new code, same indexes
    python scripts/lab/same_top10.py before.json after.json

A query is unchanged when its hits are the same places (path and lines) in the same order; the
one difference allowed is a swap of two neighbours whose scores differ by less than ``TIE``.
Prints each changed query and the count; exits 1 when any changed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

#: Two scores this close are a tie: their order may swap.
TIE = 1e-6


def _place(hit: dict[str, Any]) -> tuple[str, int, int]:
    return (str(hit["path"]), int(hit["start_line"]), int(hit["end_line"]))


def same(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> bool:
    """The same places in the same order, up to swapped neighbours that tie."""
    if len(before) != len(after):
        return False
    a, b = list(before), list(after)
    i = 0
    while i < len(a):
        if _place(a[i]) == _place(b[i]):
            i += 1
            continue
        swapped = (
            i + 1 < len(a)
            and _place(a[i]) == _place(b[i + 1])
            and _place(a[i + 1]) == _place(b[i])
            and abs(float(a[i]["score"]) - float(a[i + 1]["score"])) < TIE
        )
        if not swapped:
            return False
        i += 2
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    args = ap.parse_args()
    before = json.loads(args.before.read_text(encoding="utf-8"))
    after = json.loads(args.after.read_text(encoding="utf-8"))
    changed = [key for key in before if not same(before[key], after.get(key, []))]
    missing = [key for key in after if key not in before]
    for key in changed:
        print(f"changed: {key}")
        print("  before: " + ", ".join(":".join(map(str, _place(h))) for h in before[key]))
        print("  after:  " + ", ".join(":".join(map(str, _place(h))) for h in after.get(key, [])))
    for key in missing:
        print(f"only after: {key}")
    sets = sorted({key.partition("/")[0] for key in before})
    print(
        f"{len(before)} queries over {len(sets)} sets ({', '.join(sets)}): {len(changed)} changed"
    )
    return 1 if changed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
