"""The ``ask`` and ``history`` subcommands: a thin CLI face over the workspace's answers."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import shutil
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

from groundls import wire
from groundls.cli.common import (
    CliError,
    add_common,
    add_filters,
    filters_of,
    open_workspace,
    run_batch,
)
from groundls.results import MAX_ASK_K, AnswerError, Citation, SearchFilters
from groundls.workspace import Workspace, display_width


def register(sub: Any) -> None:
    p = sub.add_parser("ask", help="answer a question from the workspace, with citations")
    add_common(p)
    add_filters(p)
    p.add_argument("question", nargs="*", help="the question (omit with --batch)")
    p.add_argument("-k", type=int, default=None, help="excerpts to retrieve (default: config)")
    p.add_argument("--json", action="store_true", help="print one JSON object when done")
    p.add_argument(
        "--explain",
        action="store_true",
        help="after the answer, say whether the workspace answers it and which evidence decided",
    )
    p.add_argument(
        "--batch", action="store_true", help="JSON lines {id, question} on stdin, one JSON line out"
    )
    p.add_argument(
        "--follow-up",
        action="store_true",
        help="continue the workspace's last conversation (a new question starts a new one)",
    )
    p.add_argument(
        "--detail",
        choices=["brief", "full"],
        help="brief: a few sentences; full: steps and code from the excerpts (default: config)",
    )
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("history", help="list past questions and answers")
    add_common(p)
    p.add_argument("-n", type=int, default=20, help="how many (newest first; default 20)")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--delete", type=int, metavar="THREAD", help="forget a thread (its id in --json: thread)"
    )
    p.set_defaults(func=cmd_history)


def cmd_ask(args: argparse.Namespace) -> int:
    question = " ".join(args.question or []).strip()
    if args.batch and question:
        raise CliError("--batch reads questions from stdin; do not also give one")
    if not args.batch and not question:
        raise CliError("a question is required, e.g. groundls ask 'where do we retry uploads?'")
    filters = filters_of(args, args.k, MAX_ASK_K)
    if args.batch and args.follow_up:
        raise CliError("--follow-up continues one conversation; it does not take --batch")
    workspace = open_workspace(args)
    try:
        thread = _last_thread(workspace) if args.follow_up else None
        if args.batch:
            return run_batch(
                sys.stdin,
                sys.stdout,
                ("question", "query"),
                lambda question: wire.answer_json(
                    workspace.answers.ask(question, filters, detail=args.detail)
                ),
            )
        try:
            if args.json:
                ans = workspace.answers.ask(question, filters, thread=thread, detail=args.detail)
                print(json.dumps(wire.answer_json(ans), ensure_ascii=False))
                return 0
            return _interactive(workspace, question, filters, thread, args.detail, args.explain)
        except AnswerError as exc:
            raise CliError(str(exc)) from exc
    finally:
        workspace.close()


def _last_thread(workspace: Workspace) -> int:
    last = workspace.history(1)
    if not last:
        raise CliError("--follow-up: no earlier question in this workspace (ask one first)")
    return int(last[0]["thread"])


def _interactive(
    workspace: Workspace,
    question: str,
    filters: SearchFilters,
    thread: int | None = None,
    detail: str | None = None,
    explain: bool = False,
) -> int:
    out = sys.stdout
    err = sys.stderr
    live = out.isatty()

    def on_sources(sources: list[Citation]) -> None:
        # the model needs seconds before its first word; show where the answer will come from
        if err.isatty() and sources:
            err.write("Reading: " + ", ".join(f"[{c.n}] {c.path}" for c in sources) + "\n")
            err.flush()

    streamed: list[str] = []

    def on_token(text: str) -> None:
        # on a terminal the answer is shown as it is written; elsewhere only the checked one
        streamed.append(text)
        if live:
            out.write(text)
            out.flush()

    with _held_log(live) as held:
        ans = workspace.answers.ask(
            question,
            filters,
            on_sources=on_sources,
            on_token=on_token,
            thread=thread,
            detail=detail,
        )
    shown = "".join(streamed) if live else ""
    if not _same_text(shown, ans.answer):
        # the service checks the reply once it is written (citations re-pointed, an echoed label
        # dropped, or judged unsupported): the checked answer replaces what was shown
        out.write(_replacement(shown, ans.answer) if shown else ans.answer)
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
            out.write(f"  [{c.n}] {c.where}{title}{weak}\n")
    if explain and ans.verdict:
        out.write("\n" + explained_verdict(ans.verdict))
    out.flush()
    for record in held:
        err.write(f"groundls: {record.getMessage()}\n")
    return 0


def explained_verdict(verdict: dict[str, Any]) -> str:
    """The verdict for ``--explain``: the outcome, what decided it and the evidence read."""
    evidence = verdict.get("evidence", {})
    lines = [
        f"Verdict: {verdict['outcome']} (decided by {verdict['decided_by']}: {verdict['why']})"
    ]
    lines.append(f"  search: {evidence.get('confidence')} ({evidence.get('reason') or '-'})")
    if "coverage" in evidence:
        lines.append(f"  the question's words in the workspace: {evidence['coverage']:.0%}")
    standing = evidence.get("standing")
    if standing:
        near = ", ".join(f"{s} {v:.3f}" for s, v in standing["nearness"].items())
        lines.append(
            f"  nearer than {standing['percentile']:.0%} of {standing['pool']} off-topic "
            f"questions ({standing['language']}; nearest chunk: {near})"
        )
    voted = evidence.get("vote")
    if voted:
        lines.append(
            f"  the model's vote that its excerpts answer: {voted['vote']:.2f}, above "
            f"{voted['percentile']:.0%} of its votes on {voted['pool']} off-topic questions"
        )
    if evidence.get("absent_names"):
        lines.append(f"  names the workspace never mentions: {', '.join(evidence['absent_names'])}")
    if "model" in evidence:
        lines.append(f"  the model: {evidence['model']}")
    if "cannot_stand" in evidence:
        lines.append(f"  the answer could not stand: {evidence['cannot_stand']}")
    return "\n".join(lines) + "\n"


class _Held(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def _held_log(holding: bool) -> Iterator[list[logging.LogRecord]]:
    """Warnings logged while the answer streams, kept to be printed after it: a line written
    among the streamed rows would leave the checked answer replacing the wrong rows."""
    if not holding:
        yield []
        return
    logger = logging.getLogger("groundls")
    handler = _Held()
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _same_text(a: str, b: str) -> bool:
    return a.split() == b.split()


def _replacement(shown: str, answer: str) -> str:
    """What to write after ``shown`` so the terminal holds ``answer`` instead: the cursor goes
    back to where ``shown`` began and clears the screen below, when all of ``shown`` is still on
    the screen; otherwise the answer follows below it."""
    size = shutil.get_terminal_size()
    rows = _rows(shown, size.columns)
    if rows >= size.lines:
        return "\n\n" + answer
    up = f"\x1b[{rows - 1}A" if rows > 1 else ""
    return f"\r{up}\x1b[J{answer}"


def _rows(text: str, columns: int) -> int:
    """How many terminal rows ``text`` takes when lines wrap at ``columns`` (East Asian wide
    characters take two columns)."""
    rows = 0
    for line in text.split("\n"):
        width = display_width(line)
        rows += max(1, -(-width // max(columns, 1)))
    return rows


def _when(value: Any) -> str:
    """Epoch seconds -> 'YYYY-MM-DD HH:MM' (UTC); anything else as text."""
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, timezone.utc).strftime("%Y-%m-%d %H:%M")
    return str(value or "")


def cmd_history(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise CliError("-n must be at least 1")
    workspace = open_workspace(args, ensure_indexed=False)
    try:
        if args.delete is not None:
            gone = workspace.delete_history(args.delete)
            if not gone:
                raise CliError(f"no history thread {args.delete} (see groundls history --json)")
            print(f"deleted thread {args.delete} ({gone} question(s))")
            return 0
        records = workspace.history(args.n)
    finally:
        workspace.close()
    if args.json:
        print(json.dumps([wire.history_json(r) for r in records], ensure_ascii=False))
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
