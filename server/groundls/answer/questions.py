"""Questions a passage answers, written by the local answer model for calibration.

The ranking measures how well each of its lists finds a chunk from a question asked about it
(see :mod:`groundls.search.calibration`). The questions must read as a user's: in the language
the user asks in, in everyday words rather than the passage's own headings and names (a reader
who had the passage's words would not need to ask). One short line out, a few seconds each.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from groundls.answer.thinking import without_thinking

_LANGUAGES = {"ja": "Japanese", "en": "English"}
#: Said again in the language itself: asked in English only, the small model writes an English
#: passage's question in English about half the time.
_IN_LANGUAGE = {"ja": "質問は日本語で書いてください。", "en": ""}

INSTRUCTION = (
    "Write one question that a user of this project could ask and that the passage answers. "
    "Write it in {language}, as someone who has not read the passage would ask it: in your own "
    "everyday words, not the passage's headings, names or phrases. Reply with the question only."
)
MAX_TOKENS = 48
#: A question ends at its question mark: generation stops there (what a small model adds after
#: it is an answer or a second question, seconds of generation on 2 cores).
_ENDS = ("?", "？", "\n")


def _first_question(pieces: Iterator[str]) -> str:
    """The generated text up to its first question mark or line break (leading blanks aside)."""
    text = ""
    try:
        for piece in pieces:
            text += piece
            body = text.lstrip()
            if any(end in body for end in _ENDS):
                cut = min(body.index(end) for end in _ENDS if end in body)
                return body[: cut + 1].strip()
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
    return text.strip()


def write_question(
    model: Any, passage: str, kind: str, cancel: threading.Event | None = None
) -> str | None:
    """A question in ``kind``'s language ("ja" or "en") that ``passage`` answers, as the model
    wrote it (its first line); None without a model, while it answers a user, or on failure."""
    if model is None or getattr(model, "busy", False):
        return None
    messages = [
        {
            "role": "system",
            "content": (INSTRUCTION.format(language=_LANGUAGES[kind]) + " " + _IN_LANGUAGE[kind]),
        },
        {"role": "user", "content": passage},
    ]
    try:
        return _first_question(
            without_thinking(
                model.stream(messages, max_tokens=MAX_TOKENS, temperature=0.0, cancel=cancel)
            )
        )
    except Exception:  # noqa: BLE001 - a broken model leaves the default weights in force
        return None
