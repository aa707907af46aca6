"""The quote-first answer (``answer.style`` "quote"): the model picks the excerpts' lines that
answer (:mod:`.quotes`), the reader is shown them at once, verbatim and cited, and then a lead in
the question's language, or a translation, written from the picks only and kept only where it
stands (:mod:`.lead`). No pick: the model found no line that answers, and the caller says "not
found" with the places to look."""

from __future__ import annotations

import threading
import time
from typing import Any

from groundls.answer.model.runtime import GenerationStats
from groundls.answer.stages import lead as leads
from groundls.answer.stages import quotes
from groundls.answer.stages.check import citation_of
from groundls.answer.stages.prompt import Excerpt
from groundls.answer.stages.retrieve import Retrieved
from groundls.answer.stages.settle import timed
from groundls.answer.stages.write import Shown
from groundls.answer.text.grounding import support_lines
from groundls.answer.text.wording import say
from groundls.answer.timing import ms_since
from groundls.results import Answer, Citation


def quote_first(
    model: Any,
    got: Retrieved,
    excerpts: list[Excerpt],
    messages: list[dict[str, str]],
    show: Shown,
    *,
    cancel: threading.Event | None = None,
    deadline: float | None = None,
) -> Answer | None:
    """The answer as the picked lines, verbatim and cited, after a lead that stands; None when
    the model picked nothing (or was stopped before it picked)."""
    stats = GenerationStats()
    units = quotes.units_of(excerpts)
    picks = quotes.pick(model, messages, units, cancel=cancel, deadline=deadline, stats=stats)
    timed(got.timing, stats)
    got.timing["pick_ms"] = round(stats.prefill_ms + stats.generate_ms, 1)
    if not picks:
        return None
    groups = quotes.in_reading_order(quotes.with_what_follows(picks, units))
    body = quotes.quoted(groups, units, quotes.signatures(excerpts))
    show(_hedged(show.hedge, body))
    started = time.perf_counter()
    lead = None
    if not (cancel is not None and cancel.is_set()):
        lead = leads.write_lead(
            model,
            got.question,
            got.language,
            [u for group in groups for u in group],
            cancel=cancel,
            deadline=deadline,
        )
    got.timing["lead_ms"] = ms_since(started)
    text = _with_lead(body, lead, groups[0][0].excerpt, got.language)
    if lead is not None:
        show("\n\n" + (_marked(lead, got.language) if lead.translation else lead.text))
    return Answer(
        _hedged(show.hedge, text),
        True,
        got.language,
        "llm",
        citations=_citations(excerpts, groups),
        model=getattr(model, "name", ""),
        timing=got.timing,
        repairs={"quoted_lines": len(picks), "lead": int(lead is not None)},
        chosen=groups[0][0].excerpt,
    )


def _hedged(hedge: str, text: str) -> str:
    """``text`` after the hedge of an unsure search, on a line of its own before a code block (a
    fence opens only at a line's start)."""
    if not hedge:
        return text
    return f"{hedge.rstrip()}\n\n{text}" if text.startswith("```") else hedge + text


def _with_lead(body: str, lead: leads.Lead | None, first: int, language: str) -> str:
    """The answer's text: a lead before the quotes, a translation after them."""
    if lead is None:
        return body
    if lead.translation:
        return f"{body}\n\n{_marked(lead, language)}"
    return f"{lead.text} [{first}]\n\n{body}"


def _marked(lead: leads.Lead, language: str) -> str:
    return f"{say(leads.TRANSLATION_MARK, language)} {lead.text}"


def _citations(excerpts: list[Excerpt], groups: list[list[quotes.Unit]]) -> list[Citation]:
    """One citation per quoted excerpt, with the lines the quotes came from as its support."""
    by_n = {e.n: e for e in excerpts}
    out = []
    for group in groups:
        e = by_n[group[0].excerpt]
        support = support_lines([u.text for u in group], e.hit.text, e.hit.start_line)
        out.append(citation_of(e, support=tuple(support)))
    return out
