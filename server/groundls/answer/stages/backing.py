"""A written answer backed by its lines: after it, verbatim and cited, the excerpt lines its
sentences rest on.

A small model writes poorly but points well. A sentence it writes from an excerpt draws on one
of that excerpt's lines even when it restates the line wrongly: a neighbouring command, the
wrong log level, an option turned around. So each cited sentence's line is found, the unit
(a sentence, list item, table row or code line, as :mod:`.quotes` cuts them) of the excerpt it
cites that shares most of its words besides the question's own, and shown after the answer
with what it announces, as the quote-first answer shows its picks. The reader reads the
manual's own words beside the model's, and a fact the model garbled is still there. No model
call: the lines come from what the model wrote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from groundls.answer.stages import quotes
from groundls.answer.stages.focus import question_terms, terms_of
from groundls.answer.stages.prompt import Excerpt, detect_language
from groundls.answer.text.citations import MARKER, vouched_sentences
from groundls.answer.text.sentences import LIST_HEAD

_SPACE_STOP = re.compile(r"[\s.。]+")


def cited_sentences(text: str) -> list[tuple[str, list[int]]]:
    """The answer's sentences that a citation vouches for, in the order they come, each with
    the excerpt numbers that vouch for it (a citation at a paragraph's end vouches for the
    paragraph: :func:`~groundls.answer.text.citations.vouched_sentences`)."""
    cited: dict[str, list[int]] = {}
    for n, sentences in vouched_sentences(text).items():
        for sentence in sentences:
            cited.setdefault(sentence, []).append(n)
    return sorted(cited.items(), key=lambda sc: text.find(sc[0]))


def backing_lines(
    text: str, question: str, excerpts: Sequence[Excerpt], *, searched: str = ""
) -> list[list[quotes.Unit]]:
    """For each cited sentence of ``text`` (in order, at most ``quotes.MAX_PICKS``), the unit
    of its cited excerpt that shares most of its terms besides the question's (``searched``:
    its English rewrite), with what it announces; grouped as the answer shows them."""
    return _backing(text, question_terms([question, searched]), quotes.units_of(excerpts))


def _backing(text: str, asked: set[str], units: Sequence[quotes.Unit]) -> list[list[quotes.Unit]]:
    firsts = {
        next(u for u in units if u.excerpt == n) for n in {u.excerpt for u in units if u.code}
    }
    written = _plain(text)
    language = detect_language(text)
    picks: list[quotes.Unit] = []
    for sentence, marks in cited_sentences(text):
        said = terms_of(sentence) - asked
        if not said:
            continue  # it only restates the question
        scored = [
            (len(said & terms_of(u.text)), -u.number, u)
            for u in units
            # a quote shows its signature anyway; prose in another language than the answer's
            # would make it read as one in that language (quote-first marks a translation)
            if u.excerpt in marks
            and u not in firsts
            and (u.code or detect_language(u.text) == language)
        ]
        best = max(scored, default=None, key=lambda s: s[:2])
        # a sentence that copied its line is backed already
        if best and best[0] and _plain(best[2].text) not in written and best[2] not in picks:
            picks.append(best[2])
        if len(picks) == quotes.MAX_PICKS:
            break
    if not picks:
        return []
    return quotes.in_reading_order(quotes.with_what_follows(picks, units))


def backed(text: str, question: str, excerpts: Sequence[Excerpt], *, searched: str = "") -> str:
    """What follows the answer ``text``: its backing lines, quoted and cited (see
    :func:`backing_lines`), after a blank line; "" when no sentence rests on a line."""
    units = quotes.units_of(excerpts)
    groups = _backing(text, question_terms([question, searched]), units)
    if not groups:
        return ""
    return "\n\n" + quotes.quoted(groups, units, quotes.signatures(excerpts))


def _plain(text: str) -> str:
    """Text as a copy of it is found: markers, list heads, spaces and stops out, one case."""
    return _SPACE_STOP.sub("", LIST_HEAD.sub("", MARKER.sub(" ", text))).casefold()
