"""Measure grounded answers on the eval questions: speed, hygiene, citations, language, not-found.

Usage (from the repo, with the venv's python):
    python scripts/lab/bench_answers.py [--sets click,click-ja,ja] [--limit N] [--ids a,b]
        [--context-tokens N] [--style quote|text|json] [--extractive] [--cancel N]
        [--index-root DIR] [--out results.jsonl]
    python scripts/lab/bench_answers.py --prefill    # prompt reading by tokens per compute call

Corpora are the ones scripts/lab/eval_retrieval.py fetched (GROUNDLS_EVAL_WORK, default
/tmp/groundls-eval). Each corpus is indexed once (under --index-root), every question is asked
through the workspace's answer service with the real default model, as a user's question would be
(search, the English rewrite of a Japanese question, excerpts, generation, repairs). Printed per set:

  ttft p50/p95           time to first answer token from the question (model answers only), and
                         the prompt tokens p50/p95 it read
  cut / fallback         answers cut (time, length, loop) / replaced by excerpts at the time limit
  echoed labels          answers whose model output echoed an excerpt label (repaired) / final
                         answers still holding one (must be 0)
  pasted                 answers with >= 60% of their 20-character shingles copied from excerpts
  cited in text          model answers (found) whose text holds an [n] citation
  first citation         answerable questions answered whose first citation overlaps an expected
                         location, over the questions whose expected location was among the
                         excerpts shown (what the model could cite)
  language match         answer language == question language
  not found              unanswerable questions answered "not found"; answerable ones refused
  facts                  answerable questions by the facts they must state (sets/facts/<set>.jsonl,
                         see answer_facts.py): correct / partial / wrong / refused, the share whose
                         excerpts as the model read them held every fact, and of those answered,
                         how many stated them (the answer stage's own figure)
  hedged                 answers that begin "Likely:"/「推測ですが」 (search confidence low), of the
                         answerable and of the unanswerable questions

A Japanese question about an English workspace is rewritten as English search words by the answer
model before the search (``retrieve_ms`` holds that); the rewrites start from an empty cache, as a
new user's questions would (``--warm-rewrites``: from the user cache, as a repeated question).

--new-process N also asks the first N answerable questions each with a new `groundls ask --json`
process, as a CLI user does (the model is loaded for every question), and reports its first-token
time.

--cancel N also asks the first N answerable questions again and cancels each while the model reads
the prompt (1 s after the search returned), reporting how long the stop took and whether anything
was generated after the cancel.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import answer_facts

#: The shared eval sets beside the project, and corpora fetched by scripts/lab/eval_retrieval.py.
EVAL = Path(
    os.environ.get("GROUNDLS_EVAL", Path(__file__).resolve().parents[3] / "shared" / "eval")
)
CORPORA = Path(os.environ.get("GROUNDLS_EVAL_WORK", "/tmp/groundls-eval")) / "corpora"
OWN = Path(__file__).resolve().parent / "sets"
SETS = {
    "click": ("queries_click.jsonl", "click"),
    "click-ja": ("queries_click_ja.jsonl", "click"),
    # click's questions asked in Chinese, Korean, German, French and Spanish (34th session)
    "click-langs": (str(OWN / "queries_click_langs.jsonl"), "click"),
    "ja": ("queries_maintguide_ja.jsonl", "maintguide_ja"),
    # held out (twenty-first session): never used to choose a rule or a constant; fetch with
    # scripts/lab/sets/fetch_developers_reference_ja.sh and fetch_requests_src.sh into the corpora
    "devref-ja": (str(OWN / "queries_developers_reference_ja.jsonl"), "developers_reference_ja"),
    "requests-qa": (str(OWN / "queries_requests_qa.jsonl"), "requests_src"),
    # held out (34th): requests-qa's questions in Chinese, Korean, German, French and Spanish
    "requests-langs": (str(OWN / "queries_requests_langs.jsonl"), "requests_src"),
    # a development set (twenty-eighth session): questions in a user's own words about a manual
    # half left in English; fetch with scripts/lab/sets/fetch_aptitude_ja.sh
    "aptitude-ja": (str(OWN / "queries_aptitude_ja.jsonl"), "aptitude_ja"),
    # another (twenty-ninth): the Debian Policy in Japanese, three chapters translated and the
    # rest English; fetch with scripts/lab/sets/fetch_policy_ja.sh
    "policy-ja": (str(OWN / "queries_policy_ja.jsonl"), "policy_ja"),
    # across languages (39th): the same manuals asked in English, Chinese and Korean, and
    # unanswerable questions about click in English and Japanese (development); held out: the
    # Installation Guide and debmake-doc asked in English
    "ja-en": (str(OWN / "queries_maintguide_en.jsonl"), "maintguide_ja"),
    "ja-zh": (str(OWN / "queries_maintguide_zh.jsonl"), "maintguide_ja"),
    "ja-ko": (str(OWN / "queries_maintguide_ko.jsonl"), "maintguide_ja"),
    "policy-ja-en": (str(OWN / "queries_policy_ja_en.jsonl"), "policy_ja"),
    "aptitude-ja-en": (str(OWN / "queries_aptitude_ja_en.jsonl"), "aptitude_ja"),
    "click-qa": (str(OWN / "queries_click_qa.jsonl"), "click"),
    "installguide-ja-en": (
        str(OWN / "queries_installation_guide_ja_en.jsonl"),
        "installation_guide_ja",
    ),
    "debmake-ja-en": (str(OWN / "queries_debmake_doc_ja_en.jsonl"), "debmake_doc_ja"),
    # near misses (44th), in English and Japanese: what another tool does, in the library's
    # own words (a command as a daemon, a session's rate limit); click's for development,
    # requests' held out
    "click-near": (str(OWN / "queries_click_nearmiss.jsonl"), "click"),
    "requests-near": (str(OWN / "queries_requests_nearmiss.jsonl"), "requests_src"),
}
HELD_OUT = ("devref-ja", "requests-qa", "installguide-ja-en", "debmake-ja-en", "requests-near")
PASTED = 0.6
_LABEL = re.compile(r"[\w./-]+\.\w+:\d+-\d+")


def echoes_label(written: str, paths: set[str]) -> bool:
    """Whether an answer still holds an excerpt label: ``path:12-30``, an excerpt's path with a
    line number or a bracketed section path after it, an excerpt number before an excerpt's path
    (``処理は [1] src/a.py にある``), or a path header (``1. [1] guide.md``) (checked
    independently of the repair in ``groundls.answer.text.hygiene``, which must have removed them)."""
    if _LABEL.search(written):
        return True
    if any(re.search(re.escape(p) + r"(:\d|\s*[(（][^)）\n]*>)", written) for p in paths):
        return True
    if any(re.search(r"[\[［][\d\s,，、]+[\]］]\s*[*`]*" + re.escape(p), written) for p in paths):
        return True
    # a path header: an excerpt's path alone under a list number, excerpt number or heading mark
    for line in written.splitlines():
        head = re.match(r"[\s>*-]*(\d+[.)]\s+|#+\s*|(?=\[))(\[\d+\]\s*)?", line)
        if head and head.group(0).strip() and line[head.end() :].strip(" *`:") in paths:
            return True
    return False


#: Where a sentence lost a word and kept its frame ("コマンド  を実行します", "「」", "the ``
#: option"): two spaces inside a line, an empty quote or bracket, a particle with nothing
#: before it or a sentence ending on one (independent of the checks in ``groundls.answer``).
_HOLE = re.compile(
    r"(?<=\S) {2,}(?=\S)|「\s*」|“\s*”|[(（]\s*[)）]|(?<![`\w])`\s+`(?!`)"
    r"|[、。]\s*[をはがにでと](?=[\s、。])|[をはがの][。.]\s*$"
)
_CODE_SPAN = re.compile(r"```.*?(?:```|$)|``[^`\n]*``|`[^`\n]*`", re.DOTALL)


def holes(written: str) -> list[str]:
    """The places in an answer's prose (code, indented lines and markers aside) where a sentence
    has a hole, each with a few characters around it."""
    from groundls.answer.text.citations import MARKER

    found = []
    for line in _CODE_SPAN.sub("x", written).splitlines():
        if line.startswith(("    ", "\t", "|")):  # code, and a table's (empty) cells
            continue
        line = MARKER.sub("[n]", line).rstrip()
        found += [line[max(0, m.start() - 12) : m.end() + 12] for m in _HOLE.finditer(line)]
    return found


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


def open_workspace(name: str, args: argparse.Namespace) -> Any:
    from groundls.config import Config
    from groundls.workspace import Workspace

    config, _ = Config.from_dict({})
    if args.context_tokens:
        config.answer.context_tokens = args.context_tokens
    if args.time_limit:
        config.answer.time_limit_s = args.time_limit
    if args.first_token_s is not None:
        config.answer.first_token_s = args.first_token_s
    if args.extractive:
        config.answer.use_packaged_model = False
        config.answer.model_path = ""
    if args.served:
        # the same questions through a model server (e.g. python -m groundls.answer.model.llama_server)
        config.answer.engine = "openai"
        config.answer.base_url = args.served
        config.answer.model = args.served_model
    workspace = Workspace.open(CORPORA / SETS[name][1], config, Path(args.index_root) / name)
    t0 = time.perf_counter()
    report = workspace.index()
    deep = workspace.fill_deep() if args.deep else 0
    print(
        f"[{name}] index: {report.files_indexed} files indexed, {report.chunks} chunks, "
        f"{time.perf_counter() - t0:.1f} s (deep tier: {deep} embedded)",
        file=sys.stderr,
    )
    if args.style:
        workspace.answers.style = args.style
    if args.extractive:
        workspace.model.resolved = True  # no model at all, even if one is installed
        workspace.model.note = "benchmark: extractive mode"
    workspace.answers.history_enabled = False
    if not args.warm_rewrites:
        from groundls.answer.stages.rewrite import QueryRewriter

        workspace.translations.rewriter = QueryRewriter(None)  # empty: each question is new
    return workspace


def ask_one(
    workspace: Any, q: dict[str, Any], facts: list[list[str]] | None = None
) -> dict[str, Any]:
    from groundls.answer.stages.prompt import detect_language
    from groundls.answer.text.citations import MARKER
    from groundls.answer.text.hygiene import pasted_share, says_hedge
    from groundls.answer.text.language_checks import talks_about_prompt, written_language

    shown: list[dict[str, Any]] = []
    read = _reading(workspace)
    backing = _backing()
    ans = workspace.answers.ask(
        q["query"], on_sources=lambda cs: shown.extend(asdict(c) for c in cs)
    )
    cites = [asdict(c) for c in ans.citations]
    written = model_part(ans.answer)
    texts = [h.text for c in shown if (h := workspace.get_chunk(c["chunk_id"])) is not None]
    row = {
        "id": q["id"],
        "lang": q["lang"],
        "kind": q["kind"],
        "answerable": bool(q["expected"]),
        "found": ans.found,
        "mode": ans.mode,
        "answer": ans.answer,
        "citations": cites,
        "dropped": ans.dropped_citations,
        "repairs": ans.repairs,
        # a "not found" lists the places to look by design: only a found answer can echo one
        "label_left": echoes_label(written, {c["path"] for c in shown})
        and ans.mode == "llm"
        and ans.found,
        "pasted": round(pasted_share(written, texts), 3) if ans.mode == "llm" else None,
        "cited_in_text": bool(MARKER.search(written)),
        # sentences with a hole, and sentences about the excerpts or the answer (meta-talk)
        "holes": holes(written) if ans.mode == "llm" and ans.found else [],
        "meta_talk": [
            s
            for line in written.splitlines()
            for s in re.split(r"(?<=[。.!?])\s*", line)
            if talks_about_prompt(s)
        ]
        if ans.mode == "llm" and ans.found
        else [],
        "first_expected": bool(cites) and overlaps(cites[0], q["expected"]),
        "retrieval_ok": any(overlaps(c, q["expected"]) for c in shown),
        # which excerpts (1-based) hold an expected location: where the first citation should go
        "expected_at": [i for i, c in enumerate(shown, 1) if overlaps(c, q["expected"])],
        "shown": [c["chunk_id"] for c in shown],
        # the excerpt the model chose before writing (None: nothing chosen)
        "chosen": ans.chosen,
        "question_lang": detect_language(q["query"]),
        # an extractive answer's own words are its label; the lines below it are the excerpts'
        "answer_lang": detect_language(written.split("\n", 1)[0])
        if ans.mode == "extractive"
        else written_language(written),
        "cut": ans.cut,
        "fallback": ans.mode == "extractive" and ans.cut,
        "confidence": ans.confidence,
        "hedged": ans.found and ans.mode == "llm" and says_hedge(ans.answer),
        "notice": ans.notice,
        "timing": ans.timing,
        # a "not found" whose places to look hold an expected location points the reader there
        "pointed": not ans.found and any(overlaps(p, q["expected"]) for p in places(ans.answer)),
        "decided_by": ans.verdict.get("decided_by", ""),
        "cannot_stand": ans.verdict.get("evidence", {}).get("cannot_stand", ""),  # type: ignore[union-attr]
    }
    row["read"] = list(read)
    if facts:
        row.update(answer_facts.judge(row, facts, read))
        # the model's own words, without the lines they rest on quoted after them
        words = ans.answer.replace(backing[0], "") if backing and backing[0] else ans.answer
        row["facts_in_words"] = answer_facts.grade(facts, ans.found, words)
    return row


def _backing() -> list[str]:
    """The backing lines quoted after the next answer (see ``stages/backing.py``)."""
    from groundls.answer import service

    seen: list[str] = []
    back = service.backed.__wrapped__ if hasattr(service.backed, "__wrapped__") else service.backed

    def spy(*args: Any, **kwargs: Any) -> str:
        out = back(*args, **kwargs)
        seen[:] = [out]
        return out

    spy.__wrapped__ = back  # type: ignore[attr-defined]
    service.backed = spy
    return seen


def _reading(workspace: Any) -> list[str]:
    """The excerpts' texts as the model reads them (cut to the question's lines), filled in as
    the next answer fits them."""
    read: list[str] = []
    service = workspace.answers
    fit = type(service)._excerpts

    def spy(got: Any, t0: float) -> Any:
        excerpts = fit(service, got, t0)
        read[:] = [e.text for e in excerpts]
        return excerpts

    service._excerpts = spy
    return read


_PLACE = re.compile(r"([\w./-]+):(\d+)(?:-(\d+))?")


def places(answer: str) -> list[dict[str, Any]]:
    """The ``path:start-end`` places an answer names (a "not found"'s places to look)."""
    return [
        {"path": m[1], "start_line": int(m[2]), "end_line": int(m[3] or m[2])}
        for m in _PLACE.finditer(answer)
    ]


def model_part(answer: str) -> str:
    """What the model wrote: an answer cut before it cited anything is followed by labelled
    excerpts (by design, not echoed by the model)."""
    from groundls.answer.text.wording import EXTRACTIVE_HEAD

    for head in EXTRACTIVE_HEAD["uncited"].values():
        answer = answer.split(head)[0]
    return answer


def run_set(name: str, args: argparse.Namespace, rows: list[dict[str, Any]]) -> None:
    queries = [
        json.loads(line) for line in (EVAL / SETS[name][0]).read_text().splitlines() if line.strip()
    ]
    if args.ids:
        wanted = set(args.ids.split(","))
        queries = [q for q in queries if q["id"] in wanted]
    if args.unanswerable_only:
        queries = [q for q in queries if not q["expected"]]
    if args.limit:
        # keep the mix: answerable first N, plus every unanswerable one
        answerable = [q for q in queries if q["expected"]][: args.limit]
        queries = answerable + [q for q in queries if not q["expected"]]
    workspace = open_workspace(name, args)
    facts = answer_facts.load(name)
    try:
        if not args.no_votes:
            take_pool_votes(name, workspace, queries)
        for q in queries:
            row = {"set": name, **ask_one(workspace, q, facts.get(q["id"]))}
            rows.append(row)
            t = row["timing"]
            print(
                f"{q['id']:12s} found={int(row['found'])} first={int(row['first_expected'])} "
                f"retr={int(row['retrieval_ok'])} at={row['expected_at']} chose={row['chosen']} "
                f"ttft={t.get('first_token_ms')} "
                f"prompt={t.get('prompt_tokens')} reused={t.get('reused_tokens')} "
                f"paste={row['pasted']} facts={row.get('facts')}/{int(row.get('facts_read', 0))} "
                f"| {' '.join(row['answer'].split())[:100]}",
                file=sys.stderr,
                flush=True,
            )
        if args.cancel:
            rows.extend(measure_cancel(name, workspace, queries, args.cancel))
    finally:
        workspace.close()
    if args.new_process:
        rows.extend(measure_new_process(name, args, queries, args.new_process))


def take_pool_votes(name: str, workspace: Any, queries: list[dict[str, Any]]) -> None:
    """The off-topic pool's votes in each language the set asks in, before its questions (a
    user's editor takes them in the background after the first answer; kept in the cache)."""
    from groundls.answer.stages.prompt import detect_language

    answers = workspace.answers
    model = answers.slot.get()
    if model is None:
        return
    for language in sorted({detect_language(q["query"]) for q in queries}):
        if answers.votes.taken(model.name, language):
            continue
        t0 = time.perf_counter()
        n = answers.votes.calibrate(model.name, language, lambda q: answers.pool_vote(model, q))
        took = time.perf_counter() - t0
        print(f"[{name}] pool votes ({language}): {n} in {took:.0f} s", file=sys.stderr)


def measure_new_process(
    name: str, args: argparse.Namespace, queries: list[dict[str, Any]], n: int
) -> list[dict[str, Any]]:
    """Ask the first ``n`` answerable questions each with a new ``groundls ask --json`` process,
    as a CLI user does: the model is loaded (during the search) for every question."""
    out: list[dict[str, Any]] = []
    for q in [q for q in queries if q["expected"]][:n]:
        command = [sys.executable, "-m", "groundls.cli", "ask", "--json"]
        command += ["-w", str(CORPORA / SETS[name][1])]
        command += ["--index-dir", str(Path(args.index_root) / name), q["query"]]
        t0 = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, timeout=600)
        wall_ms = (time.perf_counter() - t0) * 1000
        try:
            timing = json.loads(proc.stdout)["timing"]
        except (ValueError, KeyError):
            print(f"new process {q['id']}: no answer ({proc.returncode})", file=sys.stderr)
            continue
        out.append(
            {
                "set": name,
                "id": q["id"],
                "new_process_ttft_ms": timing.get("first_token_ms"),
                "new_process_wall_ms": round(wall_ms, 1),
            }
        )
        print(
            f"new process {q['id']}: first token {timing.get('first_token_ms')} ms "
            f"(search {timing.get('retrieve_ms')} ms), process {wall_ms:.0f} ms",
            file=sys.stderr,
            flush=True,
        )
    return out


def measure_cancel(
    name: str, workspace: Any, queries: list[dict[str, Any]], n: int
) -> list[dict[str, Any]]:
    """Cancel answers while the model reads the prompt; how long until ask() returns."""
    out: list[dict[str, Any]] = []
    for q in [q for q in queries if q["expected"]][:n]:
        stop_ms, after = cancel_one(workspace, q["query"])
        out.append(
            {"set": name, "id": q["id"], "cancel_stop_ms": stop_ms, "cancel_tokens_after": after}
        )
        print(
            f"cancel {q['id']}: stopped {stop_ms and round(stop_ms)} ms after the cancel, "
            f"{after} pieces after it",
            file=sys.stderr,
            flush=True,
        )
    return out


def cancel_one(workspace: Any, question: str) -> tuple[float | None, int]:
    """Ask, cancel 1 s after the sources are known (while the prompt is read); (ms from the
    cancel to ask() returning, text pieces streamed after the cancel)."""
    cancel = threading.Event()
    cancelled_at: list[float] = []
    after: list[str] = []

    def fire() -> None:
        cancelled_at.append(time.perf_counter())
        cancel.set()

    def on_sources(_: Any) -> None:
        timer = threading.Timer(1.0, fire)
        timer.daemon = True
        timer.start()

    def on_token(text: str) -> None:
        if cancelled_at:
            after.append(text)

    workspace.answers.ask(question, on_sources=on_sources, on_token=on_token, cancel=cancel)
    returned = time.perf_counter()
    return ((returned - cancelled_at[0]) * 1000 if cancelled_at else None), len(after)


def summarise(rows: list[dict[str, Any]], label: str) -> dict[str, Any]:
    from groundls.answer.text import passes

    cancels = [r for r in rows if "cancel_stop_ms" in r]
    processes = [r for r in rows if "new_process_ttft_ms" in r]
    rows = [r for r in rows if "cancel_stop_ms" not in r and "new_process_ttft_ms" not in r]
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    retr_ok = [r for r in answerable if r["retrieval_ok"]]
    llm = [r for r in rows if r["mode"] == "llm"]
    ttft = [r["timing"]["first_token_ms"] for r in llm if r["timing"].get("first_token_ms")]
    prompt = [r["timing"]["prompt_tokens"] for r in llm if r["timing"].get("prompt_tokens")]
    tps = [
        r["timing"]["generated_tokens"] / (r["timing"]["generate_ms"] / 1000)
        for r in llm
        if r["timing"].get("generate_ms") and r["timing"].get("generated_tokens")
    ]
    stops = [r["cancel_stop_ms"] for r in cancels if r["cancel_stop_ms"] is not None]
    out = {
        "label": label,
        "questions": len(rows),
        "model_answers": len(llm),
        "ttft_ms_p50_p95": (pct(ttft, 0.5), pct(ttft, 0.95)),
        "prompt_tokens_p50_p95": (pct(prompt, 0.5), pct(prompt, 0.95)),
        "tok_per_s_p50": round(statistics.median(tps), 1) if tps else None,
        "cut": share(sum(1 for r in rows if r["cut"]), len(rows)),
        "fallback": share(sum(1 for r in rows if r["fallback"]), len(rows)),
        # the excerpts' key lines instead of the model's text (a cut, content-free or
        # other-language answer), of the questions answered
        "extractive": share(
            sum(1 for r in rows if r["mode"] == "extractive"),
            sum(1 for r in rows if r["found"]),
        ),
        "with_holes": sum(1 for r in rows if r.get("holes")),
        "meta_talk_answers": sum(1 for r in rows if r.get("meta_talk")),
        "echoed_labels_repaired": sum(1 for r in rows if r["repairs"].get("echoed_labels")),
        "echoed_labels_left": sum(1 for r in rows if r["label_left"]),
        "moved_citations": sum(r["repairs"].get("moved_citations", 0) for r in rows),
        "pasted": share(
            sum(1 for r in llm if (r["pasted"] or 0) >= PASTED and r["found"]),
            sum(1 for r in llm if r["found"]),
        ),
        "cited_in_text": share(
            sum(1 for r in llm if r["found"] and r.get("cited_in_text")),
            sum(1 for r in llm if r["found"]),
        ),
        "first_citation_of_retrieval_ok": share(
            sum(1 for r in retr_ok if r["found"] and r["first_expected"]), len(retr_ok)
        ),
        # where the search put the expected place among the excerpts: first, or a later one
        # the model read; how often the answer cites it first (the choose step's figure)
        "first_citation_when_expected_first": share(
            sum(1 for r in retr_ok if 1 in r["expected_at"] and r["found"] and r["first_expected"]),
            sum(1 for r in retr_ok if 1 in r["expected_at"]),
        ),
        "first_citation_when_expected_later": share(
            sum(
                1
                for r in retr_ok
                if 1 not in r["expected_at"] and r["found"] and r["first_expected"]
            ),
            sum(1 for r in retr_ok if 1 not in r["expected_at"]),
        ),
        "chose_a_later_excerpt": sum(1 for r in llm if (r.get("chosen") or 1) > 1),
        "first_citation_of_answerable": share(
            sum(1 for r in answerable if r["found"] and r["first_expected"]), len(answerable)
        ),
        "language_match": share(
            sum(1 for r in rows if r["answer_lang"] == r["question_lang"]), len(rows)
        ),
        "not_found_on_unanswerable": share(
            sum(1 for r in unanswerable if not r["found"]), len(unanswerable)
        ),
        "answerable_refused": share(sum(1 for r in answerable if not r["found"]), len(answerable)),
        # of those, the ones whose places to look hold the answer: pointed, not refused
        "answerable_pointed": share(
            sum(1 for r in answerable if not r["found"] and r.get("pointed")), len(answerable)
        ),
        "not_found_decided_by": {
            by: sum(1 for r in rows if not r["found"] and r.get("decided_by") == by)
            for by in sorted({r.get("decided_by", "") for r in rows if not r["found"]})
        },
        "hedged_answerable_unanswerable": (
            share(sum(1 for r in answerable if r["hedged"]), len(answerable)),
            share(sum(1 for r in unanswerable if r["hedged"]), len(unanswerable)),
        ),
        "valid_citations": share(
            sum(1 for r in rows if r["found"] and not r["dropped"]),
            sum(1 for r in rows if r["found"]),
        ),
    }
    out.update(answer_facts.summary(rows))
    # how many answers each repair pass fired on (answer/text/passes.py), and the verdicts after them
    out["passes_fired"] = passes.tally([r["repairs"] for r in llm])
    out["verdicts"] = {
        name: sum(1 for r in rows if r["repairs"].get(name))
        for name in ("grounded_away", "unsupported", "content_free")
    }
    if processes:
        firsts = [r["new_process_ttft_ms"] for r in processes if r["new_process_ttft_ms"]]
        out["new_process_ttft_ms_p50_p95"] = (pct(firsts, 0.5), pct(firsts, 0.95))
    if cancels:
        out["cancel_stop_ms_p50_max"] = (pct(stops, 0.5), max(stops) if stops else None)
        out["cancel_generated_after"] = sum(r["cancel_tokens_after"] for r in cancels)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sets", default="click,click-ja,ja,devref-ja,requests-qa")
    ap.add_argument("--deep", action="store_true", help="fill the deep tier before asking")
    ap.add_argument("--served", default="", help="answer through this OpenAI-compatible URL")
    ap.add_argument("--served-model", default="qwen", help="the model name it serves")
    ap.add_argument("--style", default=None, choices=["quote", "text", "json"])
    ap.add_argument("--limit", type=int, default=0, help="answerable questions per set (0 = all)")
    ap.add_argument("--ids", default="", help="comma-separated query ids only")
    ap.add_argument("--unanswerable-only", action="store_true", help="only the questions without")
    ap.add_argument("--context-tokens", type=int, default=0, help="answer.contextTokens")
    ap.add_argument("--first-token-s", type=float, default=None, help="answer.firstTokenS")
    ap.add_argument("--extractive", action="store_true")
    ap.add_argument(
        "--no-focus",
        action="store_true",
        help="excerpts cut at the budget from their start, not to the lines the question is about",
    )
    ap.add_argument("--cancel", type=int, default=0, help="questions per set to cancel")
    ap.add_argument("--time-limit", type=float, default=0, help="seconds (default: config)")
    ap.add_argument(
        "--warm-rewrites",
        action="store_true",
        help="read Japanese questions' English rewrites from the user cache (default: every "
        "question is rewritten afresh, as a new question would be, and the time counts)",
    )
    ap.add_argument(
        "--new-process",
        type=int,
        default=0,
        help="answerable questions per set also asked each by a new `groundls ask` process "
        "(a Japanese question's rewrite comes from the user cache if a run left it there)",
    )
    ap.add_argument("--index-root", default="/tmp/groundls-bench-index")
    ap.add_argument("--no-votes", action="store_true", help="without the model's pool votes")
    ap.add_argument("--out", default="")
    ap.add_argument(
        "--prefill", action="store_true", help="only measure prompt reading by batch size"
    )
    args = ap.parse_args(argv)
    if args.prefill:
        prefill_rates()
        return 0
    names = args.sets.split(",")
    if unknown := [n for n in names if n not in SETS]:
        print(f"unknown set {unknown[0]!r}; choose from {', '.join(SETS)}", file=sys.stderr)
        return 2
    import platform

    print(
        f"machine: {_cpu()} | {os.cpu_count()} CPUs | {platform.python_version()} | "
        f"{time.strftime('%Y-%m-%d')}",
        file=sys.stderr,
    )
    if args.no_focus:
        from groundls.answer import service

        service.question_terms = lambda texts: set()
    rows: list[dict[str, Any]] = []
    for name in names:
        run_set(name, args, rows)
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    summaries = [summarise(rows, "all")] if len(names) > 1 else []
    summaries += [summarise([r for r in rows if r["set"] == n], n) for n in names]
    for s in summaries:
        print(json.dumps(s, ensure_ascii=False))
    return 0


def prefill_rates() -> None:
    """Prompt-reading speed of the default model on this machine by tokens per compute call
    (what cpu_buffers.UBATCH is chosen from)."""
    from llama_cpp import Llama

    from groundls.answer.model import cpu_buffers, model_files

    spec, note = model_files.resolve_model("", True)
    if spec is None:
        print(f"no model: {note}", file=sys.stderr)
        return
    path = model_files.gguf_path(spec)
    with cpu_buffers.model_params(use_extra_bufts=cpu_buffers.use_extra_buffers(path)):
        llm = Llama(
            model_path=str(path),
            n_ctx=2048,
            n_threads=os.cpu_count() or 2,
            n_threads_batch=os.cpu_count() or 2,
            n_batch=512,
            n_ubatch=512,
            verbose=False,
        )
    text = "def retry_upload(path): return send(path)  # the quick brown fox jumps\n" * 60
    tokens = llm.tokenize(text.encode())[:384]
    llm.eval(tokens[:32])
    for size in (8, 16, 32, 64, 128, 384):
        llm.reset()
        t0 = time.perf_counter()
        for i in range(0, len(tokens), size):
            llm.eval(tokens[i : i + size])
        seconds = time.perf_counter() - t0
        print(
            f"{len(tokens)} prompt tokens in calls of {size:3d}: {len(tokens) / seconds:5.1f} tok/s, "
            f"{seconds * size / len(tokens):.2f} s per call"
        )
    llm.close()


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    raise SystemExit(main())
