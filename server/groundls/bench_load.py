"""``groundls bench --answers FILE --load N``: the same questions answered with 0..N busy
processes beside groundls, as on a developer's laptop where a build or a browser runs too.

Each busy process spins on one core for as long as its round lasts. Printed per round: the time
to the first answer token (p50 / max), the whole answer (p50), the answers cut at the time
limit, and the threads the model used (reading / writing, see ``groundls.cpu``)."""

from __future__ import annotations

import json
import multiprocessing
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundls.cpu import physical_cores
from groundls.workspace import Workspace


def spin(stop_at: float) -> None:
    """A busy process: one core, until ``stop_at`` (or its parent stops it)."""
    while time.time() < stop_at:
        pass


def read_questions(path: Path) -> list[str]:
    """Questions from a file: one per line, or JSON lines with a ``query`` (the eval sets)."""
    questions = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("expected", True):  # an unanswerable question measures no answer
                questions.append(str(record["query"]))
        else:
            questions.append(line)
    return questions


@dataclass
class Round:
    """One load level's answers."""

    busy: int
    first_token_s: list[float] = field(default_factory=list)
    total_s: list[float] = field(default_factory=list)
    cut: int = 0
    answers: int = 0
    threads: set[str] = field(default_factory=set)

    def add(self, timing: dict[str, Any], cut: bool) -> None:
        self.answers += 1
        self.cut += int(cut)
        if timing.get("first_token_ms") is not None:
            self.first_token_s.append(timing["first_token_ms"] / 1000)
        if timing.get("total_ms") is not None:
            self.total_s.append(timing["total_ms"] / 1000)
        if timing.get("threads_batch"):
            self.threads.add(f"{timing['threads_batch']}/{timing['threads_decode']}")

    def row(self, idle: Round | None) -> str:
        first = _p50_max(self.first_token_s)
        ratio = ""
        if idle is not None and idle.first_token_s and self.first_token_s and self is not idle:
            ratio = f" ({statistics.median(self.first_token_s) / statistics.median(idle.first_token_s):.2f}x idle)"
        whole = f"{statistics.median(self.total_s):.1f} s" if self.total_s else "-"
        threads = ", ".join(sorted(self.threads)) or "-"
        return (
            f"| {self.busy} | {first}{ratio} | {whole} | {self.cut} of {self.answers} | {threads} |"
        )


def _p50_max(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.1f} / {max(values):.1f} s"


def ask_round(workspace: Workspace, questions: list[str], busy: int) -> Round:
    """Every question answered with ``busy`` busy processes beside this one."""
    got = Round(busy)
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=spin, args=(time.time() + 3600,)) for _ in range(busy)]
    for proc in procs:
        proc.start()
    try:
        time.sleep(1.0 if busy else 0.0)  # the busy processes at full speed first
        for question in questions:
            answer = workspace.answers.ask(question)
            got.add(answer.timing, answer.cut)
    finally:
        for proc in procs:
            proc.terminate()
            proc.join()
    return got


def run_load(workspace: Workspace, questions_file: Path, load: int) -> int:
    """The answer benchmark at each load from 0 to ``load`` busy processes."""
    questions = read_questions(questions_file)
    if not questions:
        print(f"no questions in {questions_file.name}")
        return 2
    print(
        f"answers under load: {len(questions)} questions from {questions_file.name}, "
        f"{physical_cores()} physical cores ({time.strftime('%Y-%m-%d')})"
    )
    workspace.answers.ask(questions[0])  # the model loaded and its fixed prompt read once
    print(
        "| busy processes | first token p50 / max | whole answer p50 | cut | threads (read/write) |"
    )
    print("|---|---|---|---|---|")
    idle: Round | None = None
    for busy in range(load + 1):
        got = ask_round(workspace, questions, busy)
        idle = idle or got
        print(got.row(idle), flush=True)
    return 0
