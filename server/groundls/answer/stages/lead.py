"""The lead of a quoted answer: one sentence in the question's language written from the picked
lines only, or their translation when they are in another language than the question. It is kept
only when every specific it states (a name, command, option, path, number) is in the picks or
the question, it reads in the question's language and says more than the question: otherwise
the quotes stand alone."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from groundls.answer.model.runtime import GenerationStats
from groundls.answer.model.thinking import without_thinking
from groundls.answer.stages.prompt import Language, detect_language
from groundls.answer.stages.quotes import Unit
from groundls.answer.text.citations import MARKER
from groundls.answer.text.grounding import Evidence, says_nothing
from groundls.answer.text.language_checks import written_in
from groundls.answer.text.wording import LANGUAGE_NAMES

#: Tokens a lead may take: one sentence (Japanese takes about a token a letter).
LEAD_TOKENS = 90

_SYSTEM = (
    "You answer questions about a software workspace from quoted lines of its files, and from "
    "nothing else. Name the command, option, function, file or value the lines state. Never "
    "add a name, command or number the lines do not hold."
)
_ANSWER = "Answer the question in one short {language} sentence, from the quoted lines only:"
_TRANSLATE = (
    "Translate the quoted lines into {language}, in one or two sentences, keeping every "
    "command, name, option and number exactly as written:"
)

#: How the answer marks a translation, by the reader's language.
TRANSLATION_MARK = {"en": "Translation:", "ja": "訳:", "zh": "译文:", "ko": "번역:"}


@dataclass(frozen=True)
class Lead:
    """What the model wrote around the quotes: a lead that answers, or a translation."""

    text: str
    translation: bool


def sources_language(picks: Sequence[Unit]) -> Language:
    """The language the picked prose is written in (code reads as English)."""
    prose = " ".join(u.text for u in picks if not u.code)
    return detect_language(prose) if prose.strip() else "en"


def write_lead(
    model: Any,
    question: str,
    language: Language,
    picks: Sequence[Unit],
    *,
    cancel: threading.Event | None = None,
    deadline: float | None = None,
) -> Lead | None:
    """The lead over ``picks`` (a translation when they are in another language than the
    question), or None when what the model wrote cannot stand (see the module's rules)."""
    translation = sources_language(picks) != language
    name = LANGUAGE_NAMES.get(language, "English")
    ask = (_TRANSLATE if translation else _ANSWER).replace("{language}", name)
    lines = "\n".join(f"- {u.text}" for u in picks)
    messages = [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": f"Quoted lines:\n{lines}\n\nQuestion:\n{question}\n\n{ask}"},
    ]
    stats = GenerationStats()
    pieces = model.stream(
        messages,
        max_tokens=LEAD_TOKENS,
        cancel=cancel,
        deadline=deadline,
        stats=stats,
        temperature=0.0,
        no_leading_bracket=True,
    )
    text = _one_paragraph("".join(without_thinking(pieces)))
    if stats.stop_reason not in ("stop", ""):
        return None  # cut: half a sentence is not a lead
    if not stands(text, question, language, picks, translation=translation):
        return None
    return Lead(text, translation)


def _shingles(text: str, width: int = 12) -> set[str]:
    """The text's ``width``-letter runs, spaces and case aside (a repeat in other spacing is
    still a repeat)."""
    flat = "".join(text.casefold().split()).rstrip(".。")
    return {flat[i : i + width] for i in range(max(1, len(flat) - width + 1))}


def _one_paragraph(text: str) -> str:
    """The reply's first paragraph, without citation markers or a list mark."""
    first = text.strip().split("\n\n", 1)[0]
    first = MARKER.sub("", first).strip().lstrip("-*• ").strip()
    return " ".join(first.split())


def stands(
    text: str,
    question: str,
    language: Language,
    picks: Sequence[Unit],
    *,
    translation: bool = False,
) -> bool:
    """Whether a lead may be shown: it says something of the picks, in the question's language,
    that the question does not already say, and every specific it states is in the picks or the
    question."""
    if not text or not written_in(text, language):
        return False
    if says_nothing(text, [question], [u.text for u in picks], translated=translation):
        return False
    if any(_shingles(text) <= _shingles(u.text) for u in picks):
        return False  # a pick said again: the quote already says it
    return not Evidence([*(u.text for u in picks), question]).unsupported(text)
