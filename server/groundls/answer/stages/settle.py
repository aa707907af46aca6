"""After the check: the answer as the reader gets it. A checked answer stands, with a note when
it was cut; one that cannot stand alone gets the excerpts' key lines after it or in its place
(see :mod:`groundls.answer.stages.extract`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from groundls.answer.stages.check import places_to_look
from groundls.answer.stages.extract import Fallback, extractive
from groundls.answer.stages.verdict import Verdict
from groundls.answer.text import wording
from groundls.answer.text.wording import say
from groundls.answer.timing import ms_since
from groundls.config import AnswerConfig
from groundls.results import Answer, SearchResult


def settled(
    config: AnswerConfig,
    model: Any,
    written: Any,
    checked: Any,
    language: str,
    timing: dict[str, float | None],
    t0: float,
    started: bool,
    chosen: int | None,
) -> Answer:
    """The checked answer, with a note when it was cut (an unsupported answer was replaced
    whole: nothing of it is shown to be cut)."""
    text, notice = checked.text, ""
    if written.cut and not checked.repairs.get("unsupported"):
        why = {
            "cancel": "cancelled",
            "time": f"time limit {config.time_limit_s:g} s",
            "length": f"max {config.max_tokens} tokens",
            "loop": "repetition",
        }[written.stats.stop_reason]
        notice = f"answer cut ({why})"
        text = text.rstrip() + say(wording.CUT_NOTE, language).format(why=why)
    if timing["first_token_ms"] is None:
        timing["first_token_ms"] = ms_since(t0) if text else None
    return Answer(
        text.strip(),
        checked.found,
        language,
        "llm",
        citations=checked.citations,
        model=model.name,
        timing=timing,
        cut=written.cut,
        dropped_citations=checked.dropped,
        notice="; ".join(n for n in (notice, getattr(model, "remote_note", "")) if n),
        answer_started=started,
        repairs={k: v for k, v in checked.repairs.items() if v},
        chosen=chosen,
    )


def cannot_stand(
    ans: Answer, language: str, cancel: threading.Event | None, time_limit_s: float
) -> Fallback | None:
    """Why a written answer cannot stand alone, or None: cut by the time limit while the
    model was still reading (the excerpts are more useful than an empty answer), stopped
    without a word of its own (an empty reply, or only an echoed excerpt label), or cut
    before it cited anything (a partial sentence alone leaves nothing to check)."""
    cancelled = cancel is not None and cancel.is_set()
    if ans.mode != "llm":
        return None  # already the excerpts (the check found it a restatement)
    if ans.cut and not ans.answer_started and not cancelled:
        why = f"no answer within the time limit of {time_limit_s:g} s"
        return Fallback("failed", why)
    if not ans.cut and not ans.answer.strip():
        return Fallback("failed", say(wording.NO_ANSWER, language))
    if ans.cut and ans.found and not ans.citations and not cancelled:
        return Fallback("uncited")
    return None


def in_place_of(
    ans: Answer, extract: Answer, fallback: Fallback, timing: dict[str, float | None]
) -> Answer:
    """The excerpts' key lines where the model's answer could not stand: after a cut answer's
    words when it only lacked citations, else in their place (the model named, a cut kept)."""
    if fallback.kind == "uncited":
        ans.answer = f"{ans.answer}\n\n{extract.answer}".strip()
        ans.citations = extract.citations
        return ans
    extract.model = ans.model
    if ans.cut:
        timing.update({k: v for k, v in ans.timing.items() if k != "first_token_ms"})
        extract.cut = True
    return extract


def key_lines(
    excerpts: list[Any],
    language: str,
    fallback: Fallback,
    on_token: Callable[[str], None] | None,
    t0: float,
    timing: dict[str, float | None],
    written: Answer | None = None,
) -> Answer:
    """The excerpts' key lines where an answer over a sure search cannot stand: after the
    ``written`` answer's words when it was cut before citing, else in their place."""
    if fallback.kind == "uncited" and written is not None and on_token is not None:
        on_token("\n\n")
    ans = extractive(excerpts, language, fallback, on_token, t0)
    if written is not None:
        return in_place_of(written, ans, fallback, timing)
    # the reader saw the model's first words as they streamed, then this instead
    shown = {"first_token_ms": timing["first_token_ms"]} if timing.get("first_token_ms") else {}
    ans.timing = {**ans.timing, "replaced_ms": ms_since(t0), **shown}
    return ans


def timed(timing: dict[str, float | None], stats: Any) -> None:
    """The written answer's token counts and times, into the answer's timing."""
    timing["prompt_tokens"] = stats.prompt_tokens
    timing["reused_tokens"] = stats.reused_tokens
    timing["prefill_ms"] = round(stats.prefill_ms, 1)
    timing["generated_tokens"] = stats.generated_tokens
    timing["generate_ms"] = round(stats.generate_ms, 1)
    if stats.threads_batch:
        timing["threads_batch"] = stats.threads_batch
        timing["threads_decode"] = stats.threads_decode
    if stats.load_ms:
        timing["load_ms"] = round(stats.load_ms, 1)


def not_found_text(verdict: Verdict, language: str) -> str:
    """What a "not found" says, in ``language``, for the reason the ``verdict`` gave."""
    if verdict.said == "never_mentions":
        names = ", ".join(verdict.evidence.absent_names)
        return say(wording.NEVER_MENTIONS, language).format(names=names)
    table = {"nothing": wording.NOT_FOUND, "few_words": wording.FEW_WORDS}
    return say(table.get(verdict.said, wording.NOT_SAID), language)


def unsure(
    found: SearchResult,
    places: list[Any],
    language: str,
    why: str,
    timing: dict[str, float | None],
    t0: float,
) -> Answer:
    """ "Not found" where the model's answer could not stand over an unsure search, with the
    places to look and ``why`` (the verdict's: the excerpts' key lines would read as an answer
    the search was not sure the workspace holds)."""
    text = say(wording.NOT_SAID, language)
    return _not_found(found, text, places, language, timing, t0, notice=f"not found: {why}")


def not_found(
    found: SearchResult,
    places: list[Any],
    language: str,
    timing: dict[str, float | None],
    t0: float,
    verdict: Verdict,
) -> Answer:
    """ "Not found" before the model read, saying why as the ``verdict`` decided, with where a
    reader would still look: the ``places`` the search found nearest that can hold an
    answer."""
    return _not_found(found, not_found_text(verdict, language), places, language, timing, t0)


def _not_found(
    found: SearchResult,
    text: str,
    places: list[Any],
    language: str,
    timing: dict[str, float | None],
    t0: float,
    notice: str = "",
) -> Answer:
    """``text`` and the places to look as a "not found" answer, timed (its first token is its
    whole text unless the model's words were shown before it)."""
    timing["total_ms"] = ms_since(t0)
    if timing.get("first_token_ms") is None:
        timing["first_token_ms"] = timing["total_ms"]
    text += places_to_look(places, language)
    return Answer(
        text, False, language, "not_found", timing=timing, confidence=found.confidence,
        notice=notice,
    )  # fmt: skip
