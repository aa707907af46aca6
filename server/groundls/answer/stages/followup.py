"""Follow-up questions: "and in Japanese?", "what does it return?" stand alone only with the turn
before them. The answer model rewrites a follow-up as one standalone question for the search; the
rewrite is checked (one line, the follow-up's script, the follow-up's own content words kept, the
earlier question's words brought in) and, when it fails, the earlier question and the follow-up
are searched together."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from groundls.answer.model.thinking import without_thinking
from groundls.answer.stages.focus import terms_of
from groundls.chunkers.textrules import is_cjk

INSTRUCTION = (
    "Rewrite the follow-up question as one standalone question, using the earlier question and "
    "answer only to say what the follow-up refers to. Reply with the question alone, on one "
    "line, in the language of the follow-up."
)
#: Characters of the earlier answer shown to the rewrite and to the answer model.
EARLIER_ANSWER_CHARS = 300
MAX_TOKENS = 80


@dataclass(frozen=True)
class Turn:
    """The turn a follow-up continues."""

    question: str
    answer: str


@dataclass(frozen=True)
class Standalone:
    text: str
    #: "rewritten" (the model's, checked) or "joined" (the earlier question and the follow-up)
    how: str


def joined(earlier: Turn, follow_up: str) -> Standalone:
    return Standalone(f"{earlier.question} {follow_up}", "joined")


def valid(reply: str, earlier: Turn, follow_up: str) -> bool:
    """A rewrite that keeps what the follow-up asks and says what it refers to."""
    if not reply or "\n" in reply or len(reply) > 2 * (len(earlier.question) + len(follow_up)) + 40:
        return False
    if is_cjk(follow_up) != is_cjk(reply):
        return False
    said = terms_of(reply)
    own = terms_of(follow_up)
    if own and not said & own:
        return False
    # it must bring something of the earlier question the follow-up itself lacks
    context = terms_of(earlier.question) - own
    return not context or bool(said & context)


def standalone(
    model: Any, earlier: Turn, follow_up: str, cancel: threading.Event | None = None
) -> Standalone:
    """The follow-up as a standalone question for the search (see the module's docstring)."""
    if model is None or getattr(model, "busy", False):
        return joined(earlier, follow_up)
    messages = [
        {"role": "system", "content": INSTRUCTION},
        {
            "role": "user",
            "content": (
                f"Earlier question: {earlier.question}\n"
                f"Earlier answer: {earlier.answer[:EARLIER_ANSWER_CHARS]}\n"
                f"Follow-up: {follow_up}"
            ),
        },
    ]
    text = ""
    try:
        for piece in without_thinking(
            model.stream(messages, max_tokens=MAX_TOKENS, temperature=0.0, cancel=cancel)
        ):
            text += piece
            if "\n" in text.strip():
                break
    except Exception:  # noqa: BLE001 - a broken model must not break the follow-up
        return joined(earlier, follow_up)
    lines = [line.strip() for line in text.strip().split("\n") if line.strip()]
    reply = lines[0].strip("`\"'「」 ") if lines else ""
    for prefix in ("Question:", "Standalone question:", "質問:", "質問："):
        if reply.startswith(prefix):
            reply = reply[len(prefix) :].strip()
    if valid(reply, earlier, follow_up):
        return Standalone(reply, "rewritten")
    return joined(earlier, follow_up)


def in_context(question: str, earlier: Turn) -> str:
    """The question as the answer model reads it: the earlier turn first, briefly."""
    answer = " ".join(earlier.answer.split())[:EARLIER_ANSWER_CHARS]
    return f"(Earlier: {earlier.question} — {answer})\n{question}"
