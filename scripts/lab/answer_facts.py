"""Answers judged by the facts they must state (``sets/facts/<set>.jsonl``).

Each answerable question has one to three groups of alternative strings, written from the
manual's or the code's own text at the expected place (never from an answer): an answer meets a
group when it holds any one of its strings (case and runs of spaces aside, one width), and it is
correct when it meets every group. Verdicts:

  correct   found, every group met
  partial   found, some groups met
  wrong     found, no group met (a false or unrelated statement given as the answer)
  refused   "not found" to an answerable question

Beside them, the answer stage's own figure, apart from retrieval: of the answers whose excerpts
(as the model read them) held every group, how many stated them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

FACTS = Path(__file__).resolve().parent / "sets" / "facts"
VERDICTS = ("correct", "partial", "wrong", "refused")


def load(name: str) -> dict[str, list[list[str]]]:
    """The fact groups of a set's questions by id ({} when the set has none written)."""
    path = FACTS / f"{name}.jsonl"
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {r["id"]: r["facts"] for r in rows}


def normal(text: str) -> str:
    """Text as the facts are matched in it: one width, one case, one space; citation markers
    and code fences out (``[1]`` between two words is not part of either)."""
    text = re.sub(r"\[\d+(?:\s*[,，、]\s*\d+)*\]|```\w*", " ", text)
    text = unicodedata.normalize("NFKC", text)
    return re.sub(r"\s+", " ", text.casefold())


def met(groups: list[list[str]], text: str) -> int:
    """How many of the groups ``text`` meets."""
    seen = normal(text)
    return sum(1 for group in groups if any(normal(alt).strip() in seen for alt in group))


def grade(groups: list[list[str]], found: bool, answer: str) -> str:
    """One answer's verdict (see the module's docstring)."""
    if not found:
        return "refused"
    hit = met(groups, answer)
    if hit == len(groups):
        return "correct"
    return "partial" if hit else "wrong"


def judge(row: dict[str, Any], groups: list[list[str]], read: list[str]) -> dict[str, Any]:
    """The facts' fields of a benchmark row: its verdict, and whether the excerpts the model
    read held every group."""
    return {
        "facts": grade(groups, row["found"], row["answer"]),
        "facts_read": met(groups, "\n".join(read)) == len(groups),
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-verdict counts over the answerable questions with facts, the share whose facts were
    in the excerpts read, and the answer stage's own figure."""
    judged = [r for r in rows if r.get("facts")]
    if not judged:
        return {}
    counts = {v: sum(1 for r in judged if r["facts"] == v) for v in VERDICTS}
    there = [r for r in judged if r["facts_read"]]
    answered_there = [r for r in there if r["found"]]
    stated = sum(1 for r in answered_there if r["facts"] == "correct")
    n = len(judged)
    return {
        "facts_judged": n,
        **{f"facts_{v}": f"{c}/{n} ({100 * c / n:.0f}%)" for v, c in counts.items()},
        "facts_in_read_excerpts": f"{len(there)}/{n} ({100 * len(there) / n:.0f}%)",
        "states_them_given_there": (
            f"{stated}/{len(answered_there)} ({100 * stated / len(answered_there):.0f}%)"
            if answered_there
            else "n/a"
        ),
        # the same verdicts of the model's own words, without the lines quoted after them
        **{
            f"words_{v}": f"{sum(1 for r in judged if r.get('facts_in_words') == v)}/{n}"
            for v in VERDICTS
            if any("facts_in_words" in r for r in judged)
        },
    }
