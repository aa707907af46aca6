"""Every public retrieval set scored in one process, from indexes that already exist.

A ranking change is kept only when it helps overall and hurts no set beyond noise, so each
variant has to be measured on all sets together; re-indexing for every variant would take
minutes, while the searches themselves take seconds. This script opens the indexes built by
``../shared/eval/semble/run.sh`` and ``scripts/lab/eval_retrieval.py``, runs every query through
``Workspace.search`` and prints one row per set (SEMBLE-PUB with its repositories).

    python scripts/lab/rank_lab.py --semble-work /tmp/sw --eval-work /tmp/groundls-eval
    python scripts/lab/rank_lab.py ... --set signals.DECAY=0.5 --set searcher.CANDIDATES=80

``--set MODULE.NAME=VALUE`` overrides a constant of ``groundls.search.MODULE`` (or of a dotted
module path) for that run only: a quick way to try a variant before writing it as code.

``--lists e5+use`` keeps only those lists (by model: ``e5``, ``use``, ``minilm``, ``static``,
``served``, or ``keyword`` for the keyword, phrase and definition lists), to set the full
ranking beside its single lists. ``--weights e5=2,keyword=0.5`` multiplies the weights of those
models' lists instead (what any weighting of the lists can reach: see ``--search-weights``).

``--search-weights`` looks for the list weights that score best on the sets asked, by
coordinate ascent over each model's multiplier (0, ¼, ½, 1, 2, 4), starting from 1: the best
any fixed weighting of today's lists could do on those very questions (an optimistic bound for
a learned weighting, fitted and scored on the same questions).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from statistics import mean
from types import ModuleType
from typing import Any

from groundls.config import Config
from groundls.results import SearchFilters
from groundls.search.fusion import RankedList
from groundls.search.searcher import Searcher
from groundls.workspace import Workspace

K = 10
SETS = {
    "click": ("click", "queries_click.jsonl"),
    "click-ja": ("click", "queries_click_ja.jsonl"),
    "ja": ("maintguide_ja", "queries_maintguide_ja.jsonl"),
    "debref-ja": ("debian_reference_ja", "queries_debian_reference_ja.jsonl"),
    "devref-ja": ("developers_reference_ja", "queries_developers_reference_ja.jsonl"),
    "requests-qa": ("requests_src", "queries_requests_qa.jsonl"),
    "aptitude-ja": ("aptitude_ja", "queries_aptitude_ja.jsonl"),
    "policy-ja": ("policy_ja", "queries_policy_ja.jsonl"),
    "debmake-ja": ("debmake_doc_ja", "queries_debmake_doc_ja.jsonl"),
    "installguide-ja": ("installation_guide_ja", "queries_installation_guide_ja.jsonl"),
    "installguide-en": ("installation_guide_en", "queries_installation_guide_en.jsonl"),
    "ddskk-ja": ("ddskk_ja", "queries_ddskk_ja.jsonl"),
    "click-langs": ("click", "queries_click_langs.jsonl"),
    "requests-langs": ("requests_src", "queries_requests_langs.jsonl"),
    "ja-en": ("maintguide_ja", "queries_maintguide_en.jsonl"),
    "installguide-ja-en": ("installation_guide_ja", "queries_installation_guide_ja_en.jsonl"),
    "policy-ja-en": ("policy_ja", "queries_policy_ja_en.jsonl"),
    "aptitude-ja-en": ("aptitude_ja", "queries_aptitude_ja_en.jsonl"),
    "debmake-ja-en": ("debmake_doc_ja", "queries_debmake_doc_ja_en.jsonl"),
    "ja-zh": ("maintguide_ja", "queries_maintguide_zh.jsonl"),
    "ja-ko": ("maintguide_ja", "queries_maintguide_ko.jsonl"),
    "ddskk-ja-en": ("ddskk_ja", "queries_ddskk_ja_en.jsonl"),
    "flask-docs": ("flask_docs", "queries_flask_docs.jsonl"),
    "flask-docs-ja": ("flask_docs", "queries_flask_docs_ja.jsonl"),
}
#: Sets never tuned on (BENCHMARKS.md): a veto, never a guide.
HELD_OUT = {
    "debref-ja",
    "devref-ja",
    "requests-qa",
    "debmake-ja",
    "installguide-ja",
    "installguide-en",
    "ddskk-ja",
    "requests-langs",
    "installguide-ja-en",
    "debmake-ja-en",
    "ddskk-ja-en",
    "flask-docs",
    "flask-docs-ja",
}
#: The language of each set's documents (code counts as English).
DOC_LANGUAGE = {
    "click": "en",
    "click-ja": "en",
    "requests-qa": "en",
    "installguide-en": "en",
    "click-langs": "en",
    "requests-langs": "en",
    "flask-docs": "en",
    "flask-docs-ja": "en",
}
#: Sets whose questions live in this repository (scripts/lab/sets), not in ../shared/eval.
OWN_SETS = {
    "debref-ja",
    "devref-ja",
    "requests-qa",
    "aptitude-ja",
    "policy-ja",
    "debmake-ja",
    "installguide-ja",
    "installguide-en",
    "ddskk-ja",
    "click-langs",
    "requests-langs",
    "ja-en",
    "installguide-ja-en",
    "policy-ja-en",
    "aptitude-ja-en",
    "debmake-ja-en",
    "ja-zh",
    "ja-ko",
    "ddskk-ja-en",
    "flask-docs",
    "flask-docs-ja",
}
OWN_DIR = Path(__file__).resolve().parent / "sets"


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _override(assignment: str) -> None:
    target, _, value = assignment.partition("=")
    module_name, _, const = target.rpartition(".")
    if "." not in module_name:
        module_name = f"groundls.search.{module_name}"
    module = importlib.import_module(module_name)
    if not hasattr(module, const):
        raise SystemExit(f"{module_name} has no {const}")
    setattr(module, const, ast.literal_eval(value))


#: the models whose lists are kept (empty: all), see ``--lists``
KEEP: frozenset[str] = frozenset()


def _model_of(list_name: str) -> str:
    kind, _, rest = list_name.partition(":")
    return rest.partition(":")[0] if kind == "vector" else "keyword"


_RANK = Searcher._rank


#: each model's multiplier of its lists' weights, see ``--weights``
WEIGHTS: dict[str, float] = {}


def _rank_kept(self: Searcher, q: Any, lists: Any, *args: Any) -> Any:
    """``Searcher._rank`` with every list that ``--lists`` does not keep at weight 0, and each
    model's lists' weights multiplied as ``--weights`` says."""
    kept = [
        RankedList(
            r.name,
            r.weight * WEIGHTS.get(_model_of(r.name), 1.0)
            if not KEEP or _model_of(r.name) in KEEP
            else 0.0,
            r.ids,
        )
        for r in lists
    ]
    return _RANK(self, q, kept, *args)


MULTIPLIERS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
MODELS = ("keyword", "use", "e5", "static", "minilm")


def search_weights(run: Callable[[], dict[str, float]]) -> dict[str, float]:
    """Coordinate ascent over each model's multiplier, by the mean of ``run``'s figures."""
    best = mean(run().values())
    print(f"start: {best:.3f}", flush=True)
    for _ in range(2):
        moved = False
        for model in MODELS:
            keep = WEIGHTS.get(model, 1.0)
            for m in MULTIPLIERS:
                if m == keep:
                    continue
                WEIGHTS[model] = m
                got = mean(run().values())
                if got > best + 1e-4:
                    best, keep, moved = got, m, True
                    print(f"  {model}={m}: {got:.3f}", flush=True)
            WEIGHTS[model] = keep
        if not moved:
            break
    print(f"best {best:.3f} at " + ",".join(f"{k}={v}" for k, v in WEIGHTS.items()))
    return WEIGHTS


#: every query's top hits by "set/query id", kept for ``--dump``
SERVED = ""
DUMPED: dict[str, list[dict[str, object]]] = {}


def _hits(ws: Workspace, query: str) -> list[dict[str, object]]:
    found = ws.search(query, SearchFilters(k=K))
    return [
        {"path": h.path, "start_line": h.start_line, "end_line": h.end_line, "score": h.score}
        for h in found
    ]


def _queries(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


#: every scored query's nDCG@10 by (question language, document language, held out), for
#: ``--pairs``
PAIRS: dict[tuple[str, str, bool], list[float]] = {}


def _language(q: dict[str, Any]) -> str:
    """A question's language: its set says so, else its script."""
    if q.get("lang"):
        return str(q["lang"])
    return "ja" if any("\u3040" <= ch <= "\u9fff" for ch in str(q["query"])) else "en"


#: Scores one query from its hits: nDCG@10 and what to print beside it when it is below 1.
Score = Callable[[dict[str, Any], list[dict[str, object]]], tuple[float, str]]


def _mean_ndcg(
    corpus: Path,
    index: Path,
    queries: list[dict[str, Any]],
    score: Score,
    per_query: bool,
    label: str = "",
) -> float | None:
    """The mean score of ``queries`` searched in one index (None when the index is empty or
    stale: a model change dropped what the old model embedded)."""
    ws = _served(corpus, index, label) if SERVED else Workspace.open(corpus, index_dir=index)
    try:
        if not ws.has_current_index:
            return None
        scores = []
        for q in queries:
            hits = _hits(ws, str(q["query"]))
            DUMPED[f"{label}/{q['id']}"] = hits
            value, detail = score(q, hits)
            if value != value:  # NaN: a question without an answer, searched but not scored
                continue
            scores.append(value)
            set_name = label.partition("/")[0]
            if set_name in SETS:
                pair = (_language(q), DOC_LANGUAGE.get(set_name, "ja"), set_name in HELD_OUT)
                PAIRS.setdefault(pair, []).append(value)
            if per_query and value < 1:
                print(f"  {q['id']:<26}{value:6.3f} {detail}  {q['query']}")
        return mean(scores) if scores else None
    finally:
        ws.close()


def _served(corpus: Path, index: Path, label: str) -> Workspace:
    """The workspace read from a served store: one database per index, published from it."""
    import re

    import psycopg

    database = "s_" + re.sub(r"[^a-z0-9]+", "_", label.partition("/")[0].lower())
    with psycopg.connect(SERVED, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone():
            conn.execute(f"CREATE DATABASE {database}")
    url = SERVED.replace("/postgres?", f"/{database}?")
    own = Workspace.open(corpus, index_dir=index)
    try:
        own.publish(url)
    finally:
        own.close()
    config = Config()
    config.index.store = url
    return Workspace.open(corpus, config, index_dir=index / "served-overlay")


def _answerable(score: Score) -> Score:
    """``score`` for a question that has an answer; NaN for one that has none."""

    def scored(q: dict[str, Any], hits: list[dict[str, object]]) -> tuple[float, str]:
        return score(q, hits) if q["expected"] else (float("nan"), "")

    return scored


def semble(work: Path, eval_dir: Path, names: list[str], per_query: bool) -> dict[str, float]:
    scorer = _module(eval_dir / "semble" / "score_semble.py", "score_semble")

    def score(q: dict[str, Any], hits: list[dict[str, object]]) -> tuple[float, str]:
        s = scorer.score_query(q, hits, K, False)
        return s["ndcg10"], f"{s['ranks']}/{s['n_rel']}"

    out: dict[str, float] = {}
    for repo_dir in sorted((eval_dir / "semble" / "repos").iterdir()):
        name = repo_dir.name
        index = work / "index" / name
        if (names and name not in names) or not index.is_dir():
            continue
        queries = _queries(repo_dir / "queries.jsonl")
        got = _mean_ndcg(work / "corpora" / name, index, queries, score, per_query, name)
        if got is not None:
            out[name] = got
    return out


def public(work: Path, eval_dir: Path, which: list[str], per_query: bool) -> dict[str, float]:
    scorer = _module(eval_dir / "score.py", "score_public")

    def score(q: dict[str, Any], hits: list[dict[str, object]]) -> tuple[float, str]:
        got = scorer.eval_query(q["expected"], hits, False)
        return got["ndcg"], f"rank {got['rank']}"

    out: dict[str, float] = {}
    for name in which:
        if name == "mixed-ja":
            # built by ``eval_retrieval.py --set mixed-ja``; one figure per set asked there
            questions = [q for q in _queries(work / "queries_mixed_ja.jsonl") if q["expected"]]
            for kind in dict.fromkeys(q["kind"] for q in questions):
                asked = [q for q in questions if q["kind"] == kind]
                got = _mean_ndcg(
                    work / "corpora" / "mixed_ja", work / "index", asked, score, per_query, "mixed"
                )
                if got is not None:
                    out[f"mixed:{kind}"] = got
            continue
        folder, queries_file = SETS[name]
        questions_file = (OWN_DIR if name in OWN_SETS else eval_dir) / queries_file
        # every question, the unanswerable ones too, is searched; only the answerable are scored
        every = _queries(questions_file)
        corpus = work / "corpora" / folder
        got = _mean_ndcg(corpus, work / "index", every, _answerable(score), per_query, name)
        if got is not None:
            out[name] = got
    return out


def pairs(sets: list[str], work: Path, eval_dir: Path) -> None:
    """Prints one row per (question language -> document language, development or held out):
    the full ranking's nDCG@10 beside each model's list alone (same signals after it)."""
    global KEEP
    Searcher._rank = _rank_kept  # type: ignore[method-assign]
    table: dict[tuple[str, str, bool], dict[str, float]] = {}
    for keep in ("", *MODELS):
        KEEP = frozenset([keep] if keep else [])
        PAIRS.clear()
        public(work, eval_dir, sets, False)
        for pair, scores in PAIRS.items():
            table.setdefault(pair, {})[keep or "full"] = mean(scores)
    counts = {pair: len(scores) for pair, scores in PAIRS.items()}
    print("| pair | set | n | full | best list | " + " | ".join(MODELS) + " |")
    print("|---|---|---|---|---|" + "---|" * len(MODELS))
    for (asked, docs, held), row in sorted(table.items(), key=lambda kv: (kv[0][2], kv[0][:2])):
        best = max(MODELS, key=lambda m: row.get(m, 0.0))
        cells = " | ".join(f"{row.get(m, 0.0):.3f}" for m in MODELS)
        kind = "held-out" if held else "development"
        n = counts[(asked, docs, held)]
        print(
            f"| {asked} → {docs} | {kind} | {n} | {row['full']:.3f} | {best} {row[best]:.3f} | "
            f"{cells} |"
        )


def main() -> int:
    here = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=str(here.parent / "shared"))
    ap.add_argument("--semble-work", help="WORK of ../shared/eval/semble/run.sh")
    ap.add_argument("--eval-work", help="--work of scripts/lab/eval_retrieval.py")
    ap.add_argument("--repo", action="append", default=[], help="only these SEMBLE-PUB repos")
    ap.add_argument("--sets", default="click,click-ja,ja", help=f"of {', '.join(SETS)}, mixed-ja")
    ap.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    ap.add_argument("--per-query", action="store_true")
    ap.add_argument("--lists", default="", help="keep only these lists, e.g. e5+use")
    ap.add_argument("--weights", default="", help="multiply models' lists, e.g. e5=2,keyword=0.5")
    ap.add_argument("--search-weights", action="store_true")
    ap.add_argument(
        "--pairs",
        action="store_true",
        help="score every (question language, document language) pair: the full ranking "
        "beside each model's list alone",
    )
    ap.add_argument("--served", help="read each index from a served store (a postgres URL)")
    ap.add_argument("--dump", type=Path, help="write every query's top 10 here (same_top10.py)")
    args = ap.parse_args()
    global KEEP, SERVED
    SERVED = args.served or ""
    KEEP = frozenset(m for m in args.lists.split("+") if m)
    for pair in filter(None, args.weights.split(",")):
        model, _, value = pair.partition("=")
        WEIGHTS[model] = float(value)
    if KEEP or WEIGHTS or args.search_weights:
        Searcher._rank = _rank_kept  # type: ignore[method-assign]
    for assignment in args.set:
        _override(assignment)
    eval_dir = Path(args.shared).resolve() / "eval"
    started = time.perf_counter()
    row: dict[str, float] = {}
    if args.semble_work:
        per_repo = semble(Path(args.semble_work), eval_dir, args.repo, args.per_query)
        print("  ".join(f"{n} {v:.3f}" for n, v in per_repo.items()))
        if per_repo:
            row["SEMBLE-PUB"] = mean(per_repo.values())
    if args.eval_work and args.pairs:
        pairs([s for s in args.sets.split(",") if s], Path(args.eval_work), eval_dir)
        return 0
    if args.eval_work:
        sets = [s for s in args.sets.split(",") if s]
        if args.search_weights:
            work = Path(args.eval_work)
            search_weights(lambda: public(work, eval_dir, sets, False))
        row.update(public(Path(args.eval_work), eval_dir, sets, args.per_query))
    label = (
        " ".join(
            [
                *args.set,
                *([f"lists={args.lists}"] if KEEP else []),
                *([",".join(f"{k}={v}" for k, v in WEIGHTS.items())] if WEIGHTS else []),
            ]
        )
        or "default"
    )
    print(f"{label}: " + "  ".join(f"{n} {v:.3f}" for n, v in row.items()))
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.dump:
        args.dump.write_text(json.dumps(DUMPED, ensure_ascii=False, indent=0), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
