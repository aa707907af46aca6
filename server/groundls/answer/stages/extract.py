"""The extractive answer: the excerpts' key lines, quoted with their citations and labelled as not
an answer. Every cause reaches it the same way, as a :class:`Fallback`: no model, a model or
server that failed, an answer cut before it said anything or cited anything, a restatement of
the question, an answer in another language than the reader's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from groundls.answer.model.model_files import INSTALL_HINT
from groundls.answer.stages.check import PLACES, citation_of
from groundls.answer.stages.prompt import Excerpt, excerpt_label
from groundls.answer.text import wording
from groundls.answer.text.wording import say
from groundls.answer.timing import ms_since
from groundls.results import Answer

#: Lines of each excerpt quoted.
EXTRACT_LINES = 6

#: Why an answer is the excerpts' key lines, for the notice beside it (``why`` when one is given).
NOTICES = {
    "missing": f"no language model; run `{INSTALL_HINT}`",
    "failed": "the language model could not be used",
    "content_free": "the model's answer only restated the question or described the excerpts",
    "other_language": "the model's answer was not in the reader's language",
    "uncited": "the answer was cut before it cited anything",
    "unnamed": "what the answer cites never names what the question asks about",
}


@dataclass(frozen=True)
class Fallback:
    """Why an answer is the excerpts' key lines instead of the model's words."""

    #: a key of ``NOTICES`` (and of ``wording.EXTRACTIVE_HEAD``)
    kind: str
    #: the particular reason, shown in the head and the notice ("" = the kind's own)
    why: str = ""
    #: the excerpt the model chose, shown first
    chosen: int | None = None


def extractive(
    excerpts: list[Excerpt],
    language: str,
    fallback: Fallback,
    on_token: Callable[[str], None] | None,
    t0: float,
) -> Answer:
    """The best excerpts, quoted with their citations, clearly labelled as not an answer."""
    head = say(wording.EXTRACTIVE_HEAD[fallback.kind], language).format(
        why=fallback.why, hint=INSTALL_HINT
    )
    lines = [head, ""]
    chosen = _chosen_first(excerpts, fallback.chosen)[:PLACES]
    for e in chosen:
        lines.append(f"[{e.n}] {excerpt_label(e.hit)}")
        body = [ln.rstrip() for ln in e.text.splitlines() if ln.strip()][:EXTRACT_LINES]
        lines.extend("    " + ln for ln in body)
        lines.append("")
    text = "\n".join(lines).rstrip() + "\n"
    if on_token is not None:
        on_token(text)
    return Answer(
        text,
        True,
        language,
        "extractive",
        citations=[citation_of(e) for e in chosen],
        timing={"first_token_ms": ms_since(t0)},
        notice=fallback.why or NOTICES[fallback.kind],
    )


def _chosen_first(excerpts: list[Excerpt], chosen: int | None) -> list[Excerpt]:
    """The excerpts with the one the model chose first."""
    return sorted(excerpts, key=lambda e: e.n != chosen) if chosen else excerpts
