"""Score groundls retrieval on the public eval sets (../shared/eval) beside the BM25 baseline.

Usage: python scripts/lab/eval_retrieval.py [--shared ../shared] [--work /tmp/groundls-eval]
       [--set click|click-ja|ja|debref-ja]
Fetches the corpora with the eval's own scripts (PyPI/Debian only), indexes them, runs every
query through ``groundls search --batch`` and prints score.py's lenient and strict figures.

``debref-ja`` is this repository's own set (``scripts/lab/sets``): Japanese questions about the
Debian Reference in Japanese, its raw HTML chapters; written after the public sets, as a check
on Japanese documentation that nothing was tuned on. ``mixed-ja`` puts click (English code and
docs) and maint-guide-ja (a Japanese guide) in one workspace, as a Japanese team's repository
holds both, and asks all three public sets' questions there (expected paths prefixed ``click/``
or ``guide/``; score.py's ``kind=`` rows are the sets).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

SETS = {
    "click": ("fetch_click.sh", "click", "queries_click.jsonl"),
    "click-ja": ("fetch_click.sh", "click", "queries_click_ja.jsonl"),
    # this repository's: click's questions asked in Chinese, Korean, German, French and Spanish
    "click-langs": ("fetch_click.sh", "click", "queries_click_langs.jsonl"),
    # held out: requests-qa's questions asked in the same five languages
    "requests-langs": ("fetch_requests_src.sh", "requests_src", "queries_requests_langs.jsonl"),
    "ja": ("fetch_maintguide_ja.sh", "maintguide_ja", "queries_maintguide_ja.jsonl"),
    "debref-ja": (
        "fetch_debian_reference_ja.sh",
        "debian_reference_ja",
        "queries_debian_reference_ja.jsonl",
    ),
    "devref-ja": (
        "fetch_developers_reference_ja.sh",
        "developers_reference_ja",
        "queries_developers_reference_ja.jsonl",
    ),
    "aptitude-ja": ("fetch_aptitude_ja.sh", "aptitude_ja", "queries_aptitude_ja.jsonl"),
    "policy-ja": ("fetch_policy_ja.sh", "policy_ja", "queries_policy_ja.jsonl"),
    "debmake-ja": ("fetch_debmake_doc_ja.sh", "debmake_doc_ja", "queries_debmake_doc_ja.jsonl"),
    "installguide-ja": (
        "fetch_installation_guide_ja.sh",
        "installation_guide_ja",
        "queries_installation_guide_ja.jsonl",
    ),
    "installguide-en": (
        "fetch_installation_guide_en.sh",
        "installation_guide_en",
        "queries_installation_guide_en.jsonl",
    ),
    "ddskk-ja": ("fetch_ddskk_ja.sh", "ddskk_ja", "queries_ddskk_ja.jsonl"),
    # across languages: English questions on Japanese manuals (development: maint-guide-ja's
    # questions in English; held out: installguide-en's questions on the Japanese guide)
    "ja-en": ("fetch_maintguide_ja.sh", "maintguide_ja", "queries_maintguide_en.jsonl"),
    "installguide-ja-en": (
        "fetch_installation_guide_ja.sh",
        "installation_guide_ja",
        "queries_installation_guide_ja_en.jsonl",
    ),
    "policy-ja-en": ("fetch_policy_ja.sh", "policy_ja", "queries_policy_ja_en.jsonl"),
    "aptitude-ja-en": ("fetch_aptitude_ja.sh", "aptitude_ja", "queries_aptitude_ja_en.jsonl"),
    "debmake-ja-en": (
        "fetch_debmake_doc_ja.sh",
        "debmake_doc_ja",
        "queries_debmake_doc_ja_en.jsonl",
    ),
    "ja-zh": ("fetch_maintguide_ja.sh", "maintguide_ja", "queries_maintguide_zh.jsonl"),
    # Sphinx manuals read as text (issue 71), held out: ddskk's Japanese manual asked in English,
    # Flask's English manual asked in English and in Japanese
    "ddskk-ja-en": ("fetch_ddskk_ja.sh", "ddskk_ja", "queries_ddskk_ja_en.jsonl"),
    "flask-docs": ("fetch_flask_docs.sh", "flask_docs", "queries_flask_docs.jsonl"),
    "flask-docs-ja": ("fetch_flask_docs.sh", "flask_docs", "queries_flask_docs_ja.jsonl"),
    "ja-ko": ("fetch_maintguide_ja.sh", "maintguide_ja", "queries_maintguide_ko.jsonl"),
    # behaviour questions about code, without its names, each in English and Japanese (issue 82):
    # development s2util (Java, Japanese Javadoc) and cobra (Go); held out cubby (a Java web
    # framework, Japanese Javadoc) and chi (Go)
    "s2util-code": ("fetch_s2util.sh", "s2util", "queries_s2util_behaviour.jsonl"),
    "cobra-code": ("fetch_cobra.sh", "cobra", "queries_cobra_behaviour.jsonl"),
    "cubby-code": ("fetch_cubby.sh", "cubby", "queries_cubby_behaviour.jsonl"),
    "chi-code": ("fetch_chi.sh", "chi", "queries_chi_behaviour.jsonl"),
}
#: Sets whose fetch script and questions live in this repository (scripts/lab/sets).
OWN_SETS = {
    "click-langs",
    "requests-langs",
    "debref-ja",
    "devref-ja",
    "aptitude-ja",
    "policy-ja",
    "debmake-ja",
    "installguide-ja",
    "installguide-en",
    "ddskk-ja",
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
    "s2util-code",
    "cobra-code",
    "cubby-code",
    "chi-code",
}
#: The mixed workspace: folder name -> (public set whose corpus it is, its questions).
MIXED = {
    "click": ("click", ["click", "click-ja"]),
    "guide": ("ja", ["ja"]),
}


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, text=True, **kw)  # type: ignore[call-overload]


def _fetched(name: str, work: Path, shared: Path, own: Path) -> tuple[Path, Path]:
    """The corpus of one set (fetched by its script once) and its questions."""
    fetch, folder, queries_file = SETS[name]
    sets = own if name in OWN_SETS else shared
    corpus = work / "corpora" / folder
    if not (work / "corpora" / f"{folder}.fetched").exists() and not corpus.is_dir():
        corpus.parent.mkdir(parents=True, exist_ok=True)
        run(["bash", str(sets / fetch if (sets / fetch).exists() else shared / fetch), str(corpus)])
    return corpus, sets / queries_file


def _mixed(work: Path, shared: Path) -> tuple[Path, Path]:
    """The mixed workspace (see the module docstring) and its questions, made from the public
    sets' corpora."""
    corpus = work / "corpora" / "mixed_ja"
    lines = []
    for folder, (corpus_set, question_sets) in MIXED.items():
        source, _ = _fetched(corpus_set, work, shared, shared)
        if not (corpus / folder).is_dir():
            shutil.copytree(source, corpus / folder)
        for name in question_sets:
            for line in (shared / SETS[name][2]).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    q = json.loads(line)
                    q["id"], q["kind"] = f"{name}:{q['id']}", name
                    for e in q["expected"]:
                        e["path"] = f"{folder}/{e['path']}"
                    lines.append(json.dumps(q, ensure_ascii=False))
    queries = work / "queries_mixed_ja.jsonl"
    queries.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return corpus, queries


def main() -> int:
    here = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(here.parent / "shared"))
    ap.add_argument("--work", default="/tmp/groundls-eval")
    ap.add_argument("--set", action="append", choices=[*SETS, "mixed-ja"])
    ap.add_argument("--config", help="groundls config JSON to evaluate")
    ap.add_argument("--per-query", action="store_true")
    ap.add_argument("--deep", action="store_true", help="fill the deep tier before searching")
    args = ap.parse_args()
    shared = Path(args.shared).resolve() / "eval"
    work = Path(args.work).resolve()
    groundls = [sys.executable, "-m", "groundls.cli"]
    summary = {}
    for name in args.set or list(SETS):
        if name == "mixed-ja":
            corpus, queries = _mixed(work, shared)
        else:
            corpus, queries = _fetched(name, work, shared, here / "scripts" / "lab" / "sets")
        env = dict(os.environ, GROUNDLS_INDEX_DIR=str(work / "index"))
        extra = ["--config", args.config] if args.config else []
        started = time.perf_counter()
        deep = ["--deep"] if args.deep else []
        run([*groundls, "index", "--quiet", *deep, "-w", str(corpus), *extra], env=env)
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
