"""The record stage of an answer: what the history keeps of it."""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from typing import Any

from groundls.answer.stages import followup
from groundls.results import Answer, AnswerError

log = logging.getLogger("groundls.answer")


def earlier_turn(workspace: Any, thread: int | None) -> followup.Turn | None:
    """The last turn of a history thread, or None for a new question."""
    if thread is None:
        return None
    turns = workspace.history_thread(thread)
    if not turns:
        raise AnswerError(f"no thread {thread} in this workspace's history")
    last = turns[-1]
    return followup.Turn(last["question"], last["answer"])


def record(workspace: Any, kept: dict[str, Any], ans: Answer) -> None:
    """Keep the answer's record in the history (``ans.thread`` then names its thread)."""
    try:
        record_id = workspace.add_history(kept)
        ans.thread = kept["thread"] if kept["thread"] is not None else record_id
    except Exception as exc:  # history is a convenience; never fail an answer over it
        log.warning("could not store the answer in history: %s", exc)


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
