"""The record stage of an answer: what the history keeps of it."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from groundls.results import Answer


def history_record(
    question: str, ans: Answer, thread: int | None = None, searched: str = ""
) -> dict[str, Any]:
    """The history's record of an answer (``searched``: the standalone question a follow-up
    was searched as, kept when it differs from the question)."""
    return {
        "question": question,
        "thread": thread,
        "searched": searched if searched != question else "",
        "answer": ans.answer,
        "found": ans.found,
        "language": ans.language,
        "mode": ans.mode,
        "model": ans.model,
        "citations": [asdict(c) for c in ans.citations],
        "timing": dict(ans.timing),
        "cut": ans.cut,
        "asked_at": time.time(),
    }
