"""Check: what the model wrote, held to its excerpts before the reader gets it.

The repair passes (``passes.py``) mend and count; then each citation is mapped to its excerpt's
file and lines with the lines that support it, and the verdicts are given: an answer that rested
on nothing the excerpts hold is "not found"; one that only restates the question or is not in
the reader's language falls back to the excerpts' key lines (the service writes those).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from groundls.answer.stages.prompt import Excerpt
from groundls.answer.stages.write import Written
from groundls.answer.text import citations as cit
from groundls.answer.text import grounding, hygiene, language_checks, output, passes, wording
from groundls.answer.text.wording import say
from groundls.chunkers.textrules import question_language
from groundls.index.storage.terms import index_terms
from groundls.results import Citation, Hit
from groundls.search.query import name_forms, question_names

log = logging.getLogger("groundls.answer")

#: Places named when an answer is not found, and excerpts an extractive answer quotes.
PLACES = 3


def citation_of(
    excerpt: Excerpt, weak: bool = False, support: tuple[tuple[int, str], ...] = ()
) -> Citation:
    """An excerpt as a citation: its file, lines and place, and what the answer rests on it."""
    h = excerpt.hit
    return Citation(
        excerpt.n, h.chunk_id, h.path, h.start_line, h.end_line, h.title, weak, support, h.place
    )


def places_to_look(hits: Sequence[Hit], language: str, after: Sequence[Hit] = ()) -> str:
    """Where to look when the answer is not found: the first ``PLACES`` places of ``hits`` and
    then of ``after``, each once. A "not found" after the model read its excerpts names them
    first (an excerpt is only part of its chunk) and then the search's next places: a question
    whose excerpts fitted only two still gets three places to look."""
    first = dict.fromkeys(h.where for h in [*hits, *after])
    places = ", ".join(list(first)[:PLACES])
    return say(wording.LOOK, language).format(places=places) if places else ""


def not_said(excerpts: list[Excerpt], language: str, after: Sequence[Hit] = ()) -> str:
    """The answer "not found" after the model (``wording.NOT_SAID``), with the excerpts' places
    and then the search's next ones (``after``)."""
    read = [e.hit for e in excerpts]
    return say(wording.NOT_SAID, language) + places_to_look(read, language, after)


@dataclass
class Checked:
    """The answer as the reader gets it, or why its text cannot stand (``fallback``)."""

    text: str
    found: bool
    citations: list[Citation] = field(default_factory=list)
    #: citation numbers that pointed at no excerpt
    dropped: list[int] = field(default_factory=list)
    #: what each repair pass and verdict did (``passes.tally`` counts them over answers)
    repairs: dict[str, int] = field(default_factory=dict)
    #: "content_free" or "other_language": the excerpts' key lines instead of this text
    fallback: str = ""


def check(
    written: Written,
    question: str,
    language: str,
    excerpts: list[Excerpt],
    *,
    style: str,
    hedge: str,
    show: Callable[[str], None],
    after: Sequence[Hit] = (),
) -> Checked:
    """``written`` held to ``excerpts``: repaired, its citations mapped and judged. ``hedge``
    begins an answer that was found over an unsure search; ``show`` streams what a repair pass
    adds (a code block an answer announced); ``after``: the search's hits, for the places to
    look beyond the excerpts."""
    parsed = output.parse_output(written.raw, style)
    if style == "json" and not parsed.answer and "".join(written.shown):
        parsed.answer = "".join(written.shown).strip()
    draft = passes.Draft(
        parsed.answer,
        question,
        language,
        excerpts,
        found=parsed.found,
        model_numbers=parsed.numbers,
        cut=written.cut,
        show=show,
    )
    repairs = passes.run_passes(draft)
    if draft.unsupported:
        log.info("dropped sentences resting on %s", ", ".join(draft.unsupported[:8]))
    answer_text, dropped = draft.text, draft.dropped
    grounded_away = bool(draft.unsupported) and not answer_text.strip()
    numbers = draft.cited()
    by_n = {e.n: e for e in excerpts}
    sentences = cit.vouched_sentences(answer_text)
    found = parsed.found and bool(answer_text.strip())
    if grounded_away or not parsed.found:
        # everything it said rested on something the excerpts do not hold, or it said "not
        # found" itself: said as every other "not found" is
        answer_text = not_said(excerpts, language, after)
        repairs["grounded_away"] = int(parsed.found)

    citations = _judged(draft, numbers, answer_text, sentences, by_n) if found else []
    if found and hedge and citations and all(c.weak for c in citations):
        # the search was unsure (``hedge``) and nothing the answer cites says what the answer
        # says: the model answered from outside the excerpts, so the workspace does not say
        # (seed 000 rule 1)
        found, citations = False, []
        answer_text = not_said(excerpts, language, after)
        repairs["unsupported"] = 1
    checked = Checked(answer_text, found, citations, dropped, repairs)
    checked.fallback = _cannot_stand(
        checked, question, language, excerpts, cut=written.cut, unsure=bool(hedge)
    )
    if not checked.fallback and found and hedge and not hygiene.says_hedge(answer_text):
        checked.text = hedge + answer_text.lstrip()
    if checked.fallback:
        repairs[checked.fallback] = 1
    return checked


def names_unseen(question: str, cited: list[Excerpt]) -> bool:
    """Whether the question names things (:func:`question_names`) and none of the ``cited``
    excerpts mentions one of them, joined or apart (:func:`name_forms`), in its path, title or
    text."""
    names = question_names(question, question_language(question))
    if not names or not cited:
        return False
    forms = [set(index_terms(form).split()) for name in names for form in name_forms(name)]
    for e in cited:
        words = set(index_terms(f"{e.hit.path} {e.hit.title} {e.hit.reading}").split())
        if any(form <= words for form in forms):
            return False
    return True


def _judged(
    draft: passes.Draft,
    numbers: list[int],
    answer_text: str,
    sentences: dict[int, list[str]],
    by_n: dict[int, Excerpt],
) -> list[Citation]:
    """The answer's citations, each with the lines of its excerpt that support what it is cited
    for, and weak when its excerpt shares almost nothing with that. An added citation vouches
    for the whole answer, not its last paragraph."""
    citations: list[Citation] = []
    whole = [cit.MARKER.sub(" ", answer_text)]
    for n in numbers:
        e = by_n[n]
        said = whole if n == draft.added else sentences.get(n) or whole
        weak = cit.is_weak(said, draft.bodies[n])
        support = grounding.support_lines(said, e.hit.reading, e.hit.start_line)
        citations.append(citation_of(e, weak, tuple(support)))
    return citations


def _cannot_stand(
    checked: Checked,
    question: str,
    language: str,
    excerpts: list[Excerpt],
    *,
    cut: bool,
    unsure: bool,
) -> str:
    """Why a found answer's text cannot stand ("" when it can): over an ``unsure`` search, what
    it cites never names what the question names ("unnamed": an HTML template answered from a
    progress bar's code); it restates the question or talks about the excerpts
    ("content_free"); or it is not in the reader's language (a Japanese sentence, then English
    paragraphs pasted from the excerpts; "other_language")."""
    if not checked.found:
        return ""
    by_n = {e.n: e for e in excerpts}
    if unsure and names_unseen(question, [by_n[c.n] for c in checked.citations if c.n in by_n]):
        return "unnamed"
    if not cut and grounding.says_nothing(
        checked.text,
        [question],
        [e.hit.reading for e in excerpts],
        [e.hit.path for e in excerpts],
        translated=language not in ("en", "ja"),
    ):
        return "content_free"
    if not language_checks.written_in(checked.text, language):
        return "other_language"
    return ""
