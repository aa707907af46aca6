"""Measure grounded answers on the eval questions: citations, not-found, language, speed.

Usage (from the repo, with the venv's python):
    python scripts/bench_answers.py [--sets click,ja] [--style text|json] [--limit N]
        [--context-tokens N] [--extractive] [--index-root DIR] [--out results.jsonl]

Indexes each corpus once (under --index-root), asks every question through AnswerService with the
real default model (or extractive mode), and prints:
  valid-citations share      answers whose citations all point at given excerpts (nothing dropped)
  found+first-expected       answerable questions answered (found) whose first citation overlaps
                             an expected location; also over the questions retrieval got right
                             (an expected location among the excerpts shown to the model)
  not-found on unanswerable  unanswerable questions answered "not found"
  language match             answer language == question language
  TTFT, tok/s p50/p95        time to first answer token (from the question) and generation speed
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

#: The shared eval sets beside the project, and corpora fetched by scripts/eval_retrieval.py.
EVAL = Path(
    os.environ.get("GROUNDLS_EVAL", Path(__file__).resolve().parents[2] / "shared" / "eval")
)
CORPORA = Path(os.environ.get("GROUNDLS_EVAL_WORK", "/tmp/groundls-eval")) / "corpora"
SETS = {
    "click": ("queries_click.jsonl", "click"),
    "ja": ("queries_maintguide_ja.jsonl", "maintguide_ja"),
}


def overlaps(c: dict[str, Any], expected: list[dict[str, Any]]) -> bool:
    return any(
        c["path"] == e["path"]
        and c["start_line"] <= e["end_line"]
        and e["start_line"] <= c["end_line"]
        for e in expected
    )


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    idx = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[idx]


def share(num: int, den: int) -> str:
    return f"{num}/{den} ({100 * num / den:.0f}%)" if den else "n/a"


def run_set(name: str, args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    from groundls.answer.prompt import detect_language
    from groundls.answer.service import AnswerService
    from groundls.config import Config
    from groundls.workspace import Workspace

    qfile, corpus = SETS[name]
    queries = [json.loads(line) for line in (EVAL / qfile).read_text().splitlines() if line.strip()]
    if args.ids:
        wanted = set(args.ids.split(","))
        queries = [q for q in queries if q["id"] in wanted]
    if args.limit:
        # keep the mix: answerable first N, plus every unanswerable one
        answerable = [q for q in queries if q["expected"]][: args.limit]
        queries = answerable + [q for q in queries if not q["expected"]]
    config, _ = Config.from_dict({})
    if args.context_tokens:
        config.answer.context_tokens = args.context_tokens
    if args.time_limit:
        config.answer.time_limit_s = args.time_limit
    if args.extractive:
        config.answer.use_packaged_model = False
        config.answer.model_path = ""
    index_dir = Path(args.index_root) / name
    workspace = Workspace.open(CORPORA / corpus, config, index_dir)
    t0 = time.perf_counter()
    report = workspace.index()
    print(
        f"[{name}] index: {report.files_indexed} files indexed, {report.chunks} chunks, "
        f"{time.perf_counter() - t0:.1f} s",
        file=sys.stderr,
    )
    service = AnswerService(workspace, config.answer, style=args.style, history=False)
    if args.extractive:
        service._resolved = True  # no model at all, even if one is installed
        service._note = "benchmark: extractive mode"
    try:
        for q in queries:
            model = service._llm
            if args.no_prefix_cache and model is not None and model.loaded:
                model._llm.reset()
            shown: list[dict[str, Any]] = []
            ans = service.ask(
                q["query"],
                on_sources=lambda cs, shown=shown: shown.extend(c.to_dict() for c in cs),
            )
            cites = [c.to_dict() for c in ans.citations]
            row = {
                "set": name,
                "id": q["id"],
                "lang": q["lang"],
                "kind": q["kind"],
                "answerable": bool(q["expected"]),
                "found": ans.found,
                "mode": ans.mode,
                "answer": ans.answer,
                "citations": cites,
                "dropped": ans.dropped_citations,
                "weak": sum(1 for c in cites if c["weak"]),
                "first_expected": bool(cites) and overlaps(cites[0], q["expected"]),
                "any_expected": any(overlaps(c, q["expected"]) for c in cites),
                "retrieval_ok": any(overlaps(c, q["expected"]) for c in shown),
                "question_lang": detect_language(q["query"]),
                "answer_lang": detect_language(ans.answer),
                "cut": ans.cut,
                "timing": ans.timing,
            }
            rows.append(row)
            t = ans.timing
            print(
                f"{q['id']:10s} found={int(ans.found)} first_exp={int(row['first_expected'])} "
                f"retr={int(row['retrieval_ok'])} drop={ans.dropped_citations} "
                f"ttft={t.get('first_token_ms')} prompt={t.get('prompt_tokens')} "
                f"reused={t.get('reused_tokens')} gen={t.get('generated_tokens')} "
                f"| {' '.join(ans.answer.split())[:110]}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        service.close()
        workspace.close()


def summarise(rows: list[dict[str, Any]], label: str) -> dict[str, Any]:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    cited = [r for r in rows if r["found"]]
    retr_ok = [r for r in answerable if r["retrieval_ok"]]
    ttft = [r["timing"]["first_token_ms"] for r in rows if r["timing"].get("first_token_ms")]
    ttft_llm = [
        r["timing"]["first_token_ms"]
        for r in rows
        if r["mode"] == "llm" and r["timing"].get("first_token_ms")
    ]
    tps = [
        r["timing"]["generated_tokens"] / (r["timing"]["generate_ms"] / 1000)
        for r in rows
        if r["timing"].get("generate_ms") and r["timing"].get("generated_tokens")
    ]
    prompt = [r["timing"]["prompt_tokens"] for r in rows if r["timing"].get("prompt_tokens")]
    out = {
        "label": label,
        "questions": len(rows),
        "valid_citations": share(sum(1 for r in cited if not r["dropped"]), len(cited)),
        "found_first_expected": share(
            sum(1 for r in answerable if r["found"] and r["first_expected"]), len(answerable)
        ),
        "found_first_expected_of_retrieval_ok": share(
            sum(1 for r in retr_ok if r["found"] and r["first_expected"]), len(retr_ok)
        ),
        "found_any_expected": share(
            sum(1 for r in answerable if r["found"] and r["any_expected"]), len(answerable)
        ),
        "answerable_found": share(sum(1 for r in answerable if r["found"]), len(answerable)),
        "not_found_on_unanswerable": share(
            sum(1 for r in unanswerable if not r["found"]), len(unanswerable)
        ),
        "language_match": share(
            sum(1 for r in rows if r["answer_lang"] == r["question_lang"]), len(rows)
        ),
        "weak_citations": sum(r["weak"] for r in rows),
        "cut": sum(1 for r in rows if r["cut"]),
        "ttft_ms_p50_p95": (pct(ttft, 0.5), pct(ttft, 0.95)),
        "ttft_llm_ms_p50_p95": (pct(ttft_llm, 0.5), pct(ttft_llm, 0.95)),
        "tok_per_s_p50_p95": (
            round(pct(tps, 0.5), 1) if tps else None,
            round(pct(tps, 0.05), 1) if tps else None,  # the slow tail
        ),
        "prompt_tokens_p50": statistics.median(prompt) if prompt else None,
    }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sets", default="click,ja")
    ap.add_argument("--style", default=None, choices=["text", "json"])
    ap.add_argument("--limit", type=int, default=0, help="answerable questions per set (0 = all)")
    ap.add_argument("--ids", default="", help="comma-separated query ids only")
    ap.add_argument("--context-tokens", type=int, default=0)
    ap.add_argument("--extractive", action="store_true")
    ap.add_argument(
        "--no-prefix-cache",
        action="store_true",
        help="clear the model's KV cache before each question (measures the prefix-cache gain)",
    )
    ap.add_argument("--time-limit", type=float, default=0, help="seconds (default: config)")
    ap.add_argument("--index-root", default="/tmp/groundls-bench-index")
    ap.add_argument("--out", default="")
    args = ap.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for name in args.sets.split(","):
        if name not in SETS:
            print(f"unknown set {name!r}; choose from {', '.join(SETS)}", file=sys.stderr)
            return 2
        run_set(name, args, rows)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    summaries = [summarise(rows, "all")]
    for name in args.sets.split(","):
        summaries.append(summarise([r for r in rows if r["set"] == name], name))
    for s in summaries:
        print(json.dumps(s, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
