"""Where an answer's facts are lost before the model writes: in the search, or in the excerpts.

Usage (from the repo, with the venv's python):
    python scripts/lab/bench_reading.py [--sets click,ja,...] [--limit N] [--index-root DIR]
        [--budget N] [--show]

For each answerable question with facts (``sets/facts/<set>.jsonl``), the question goes through
the answer service's own retrieve stage and excerpt fitting, as ``groundls ask`` would run them
(the English rewrite of a Japanese question included), but nothing is generated. Printed per set,
of the questions whose facts are written:

  in hits          every fact group is in the full text of the hits the answer may read from
  in first         ... in the first hit's full text
  in shown chunks  ... in the full text of the chunks that became excerpts
  in read          ... in the excerpts as the model reads them (cut to fit the time)
  tokens           the excerpts' tokens p50 (the budget the time allows on this machine)

``--budget N`` fits the excerpts into N tokens instead of what the time allows (the model's
measured prompt-reading speed); ``--show`` prints each question whose facts the excerpts lost,
with what the model would read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import answer_facts
import bench_answers


def read_one(workspace: Any, q: dict[str, Any], groups: list[list[str]], budget: int) -> dict:
    from groundls.answer.stages.focus import question_terms
    from groundls.answer.stages.prompt import fit_excerpts
    from groundls.answer.stages.retrieve import Asked

    service = workspace.answers
    t0 = time.perf_counter()
    got = service._retrieve(Asked.checked(q["query"], None, None, "brief"), None, t0)
    if budget:
        model = service.slot.get()
        count = model.count_tokens if model is not None and model.loaded else None
        terms = question_terms([got.question, got.found.searched_as])
        excerpts = fit_excerpts(got.hits, budget, count, terms=terms) if count else []
    else:
        excerpts = service._excerpts(got, t0)
    texts = [h.text for h in got.hits]

    def has(text: str) -> bool:
        return answer_facts.met(groups, text) == len(groups)

    return {
        "id": q["id"],
        "in_hits": has("\n".join(texts)),
        "in_first": bool(texts) and has(texts[0]),
        "in_shown": has("\n".join(e.hit.text for e in excerpts)),
        "in_read": has("\n".join(e.text for e in excerpts)),
        "tokens": sum(len(e.text) for e in excerpts),
        "read": [e.text for e in excerpts],
        "facts": groups,
        "query": q["query"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sets", default="click,click-ja,ja,requests-qa,devref-ja,installguide-ja-en")
    ap.add_argument("--limit", type=int, default=0, help="answerable questions per set (0 = all)")
    ap.add_argument("--index-root", default="/tmp/groundls-bench-index")
    ap.add_argument("--budget", type=int, default=0, help="excerpt tokens (0: as the time allows)")
    ap.add_argument("--show", action="store_true", help="print what was lost")
    ap.add_argument("--out", default="", help="write every question's row here (jsonl)")
    args = ap.parse_args(argv)
    opened = argparse.Namespace(
        context_tokens=0,
        time_limit=0,
        first_token_s=None,
        extractive=False,
        served="",
        style=None,
        deep=False,
        index_root=args.index_root,
        warm_rewrites=True,
    )
    out = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    for name in args.sets.split(","):
        facts = answer_facts.load(name)
        path = bench_answers.EVAL / bench_answers.SETS[name][0]
        queries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        queries = [q for q in queries if q["expected"] and q["id"] in facts]
        if args.limit:
            queries = queries[: args.limit]
        workspace = bench_answers.open_workspace(name, opened)
        workspace.answers.history_enabled = False
        try:
            rows = [read_one(workspace, q, facts[q["id"]], args.budget) for q in queries]
        finally:
            workspace.close()
        if out is not None:
            out.writelines(json.dumps({"set": name, **r}, ensure_ascii=False) + "\n" for r in rows)
        n = len(rows)
        counts = {
            k: sum(r[k] for r in rows) for k in ("in_hits", "in_first", "in_shown", "in_read")
        }
        tokens = statistics.median(r["tokens"] for r in rows) if rows else 0
        print(json.dumps({"set": name, "n": n, **counts, "chars_p50": tokens}), flush=True)
        if args.show:
            for r in rows:
                if r["in_shown"] and not r["in_read"]:
                    print(f"--- {r['id']} {r['query']} facts={r['facts']}")
                    for text in r["read"]:
                        print("  | " + text.replace("\n", "\n  | "))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(bench_answers.OWN.parent))
    raise SystemExit(main())
