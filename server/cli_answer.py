"""The ``ask`` and ``history`` subcommands: a thin CLI face over AnswerService and Q&A history."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

Adder = Callable[[argparse.ArgumentParser], None]


def register(subparsers: Any, common: Adder | None = None, filters: Adder | None = None) -> None:
    """Add ``ask`` and ``history`` to the main parser (``common``/``filters`` add shared flags)."""
    p = subparsers.add_parser("ask", help="answer a question from the workspace, with citations")
    _common(p, common)
    if filters is not None:
        filters(p)
    p.add_argument("question", nargs="*", help="the question (omit with --batch)")
    p.add_argument("-k", type=int, default=None, help="excerpts to retrieve (default: config)")
    p.add_argument("--json", action="store_true", help="print one JSON object when done")
    p.add_argument(
        "--batch", action="store_true", help="JSON lines {id, question} on stdin, one JSON line out"
    )
    p.set_defaults(func=cmd_ask)

    p = subparsers.add_parser("history", help="list past questions and answers")
    _common(p, common)
    p.add_argument("-n", type=int, default=20, help="how many (newest first; default 20)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_history)


def _common(p: argparse.ArgumentParser, common: Adder | None) -> None:
    if common is not None:
        common(p)
        return
    p.add_argument("--workspace", "-w", default=".", help="workspace folder (default: cwd)")
    p.add_argument("--index-dir", default=os.environ.get("GROUNDLS_INDEX_DIR"))


def _error(message: str) -> Exception:
    from groundls.cli import CliError

    return CliError(message)


def answer_json(ans: Any) -> dict[str, Any]:
    """The public JSON shape of an answer (CLI --json and --batch)."""
    return {
        "answer": ans.answer,
        "found": ans.found,
        "language": ans.language,
        "mode": ans.mode,
        "model": ans.model,
        "citations": [
            {
                "n": c.n,
                "path": c.path,
                "start_line": c.start_line,
                "end_line": c.end_line,
                "chunk_id": c.chunk_id,
                "title": c.title,
                "weak": c.weak,
            }
            for c in ans.citations
        ],
        "dropped_citations": list(ans.dropped_citations),
        "cut": ans.cut,
        "notice": ans.notice,
        "timing": {
            key: ans.timing.get(key) for key in ("retrieve_ms", "first_token_ms", "total_ms")
        },
    }


def _filter_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "paths": getattr(args, "paths", None),
        "languages": getattr(args, "languages", None),
        "kinds": getattr(args, "kinds", None),
    }


def cmd_ask(args: argparse.Namespace) -> int:
    from groundls.answer import AnswerError, AnswerService
    from groundls.cli import open_engine

    question = " ".join(args.question or []).strip()
    if args.batch and question:
        raise _error("--batch reads questions from stdin; do not also give one")
    if not args.batch and not question:
        raise _error("a question is required, e.g. groundls ask 'where do we retry uploads?'")
    if args.k is not None and not 1 <= args.k <= 50:
        raise _error("-k must be from 1 to 50")
    engine = open_engine(args)
    service = AnswerService(engine, engine.config.answer)
    try:
        if args.batch:
            return _batch(service, args, sys.stdin, sys.stdout)
        try:
            if args.json:
                ans = service.ask(question, k=args.k, **_filter_kwargs(args))
                print(json.dumps(answer_json(ans), ensure_ascii=False))
                return 0
            return _interactive(service, question, args)
        except AnswerError as exc:
            raise _error(str(exc)) from exc
    finally:
        service.close()
        engine.close()


def _interactive(service: Any, question: str, args: argparse.Namespace) -> int:
    out = sys.stdout
    err = sys.stderr
    tty = err.isatty()

    def on_sources(sources: list[Any]) -> None:
        # the model needs seconds before its first word; show where the answer will come from
        if tty and sources:
            err.write("Reading: " + ", ".join(f"[{c.n}] {c.path}" for c in sources) + "\n")
            err.flush()

    def on_token(text: str) -> None:
        out.write(text)
        out.flush()

    ans = service.ask(
        question, k=args.k, on_sources=on_sources, on_token=on_token, **_filter_kwargs(args)
    )
    if not ans.answer.endswith("\n"):
        out.write("\n")
    if ans.cut and ans.notice:
        err.write(f"groundls: {ans.notice}\n")
    if ans.dropped_citations:
        dropped = ", ".join(f"[{n}]" for n in ans.dropped_citations)
        err.write(f"groundls: removed citations of excerpts that do not exist: {dropped}\n")
    if ans.mode == "llm" and ans.citations:
        out.write("\nSources:\n")
        for c in ans.citations:
            title = f"  {c.title}" if c.title else ""
            weak = "  (weak: the excerpt shares little with the sentence)" if c.weak else ""
            out.write(f"  [{c.n}] {c.path}:{c.start_line}-{c.end_line}{title}{weak}\n")
    out.flush()
    return 0


def _batch(service: Any, args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from groundls.answer import AnswerError

    failures = 0
    for lineno, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        qid: Any = None
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise ValueError("expected an object")
            qid = item.get("id")
            question = item.get("question", item.get("query"))
            if not isinstance(question, str):
                raise ValueError('missing "question" string')
            ans = service.ask(question, k=args.k, **_filter_kwargs(args))
            row = {"id": qid, **answer_json(ans)}
        except (ValueError, AnswerError) as exc:
            failures += 1
            row = {"id": qid, "error": f"line {lineno}: {exc}"}
        stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        stdout.flush()
    return 1 if failures else 0


def _when(value: Any) -> str:
    """Epoch seconds -> 'YYYY-MM-DD HH:MM' (UTC); anything else as text."""
    from datetime import datetime, timezone

    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, timezone.utc).strftime("%Y-%m-%d %H:%M")
    return str(value or "")


def cmd_history(args: argparse.Namespace) -> int:
    from groundls.cli import open_engine

    if args.n < 1:
        raise _error("-n must be at least 1")
    engine = open_engine(args, ensure_indexed=False)
    try:
        history = getattr(engine, "history", None)
        if history is None:
            raise _error("this index does not keep a question history")
        records = history(args.n)
    finally:
        engine.close()
    if args.json:
        print(json.dumps(records, ensure_ascii=False))
        return 0
    if not records:
        print("No questions asked yet.")
        return 0
    for rec in records:
        when = _when(rec.get("asked_at"))
        answer = " ".join(str(rec.get("answer", "")).split())
        if len(answer) > 160:
            answer = answer[:157] + "..."
        cites = rec.get("citations") or []
        where = ", ".join(f"{c.get('path')}:{c.get('start_line')}" for c in cites[:3])
        print(f"{when}  {rec.get('question', '')}")
        print(f"    {answer}")
        meta = [rec.get("mode") or "", rec.get("model") or ""]
        if where:
            meta.append(where)
        print("    (" + "; ".join(m for m in meta if m) + ")")
    return 0
