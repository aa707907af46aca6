"""The repairs a written answer goes through: an ordered list of named passes, run by one loop.

Each pass takes the draft (the answer's text and what it was written from), may change its
text, and says how many times it fired. The counts travel with the answer (``Answer.repairs``),
so a benchmark run reports how often each pass fired: a pass that never fires is a candidate
for deletion.

The order matters: text that is not the answer goes first (repeated lines, echoed labels, a
lead-in word, scaffolding, sentences that repeat the instructions, sentences in Chinese), then
citations are checked and moved to the excerpt that says what their sentence says, then every
specific must be in the excerpts, and an answer left citing nothing gets its source.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from groundls.answer.stages.prompt import (
    Excerpt,
    excerpt_label,
    excerpt_name,
    header_sections,
    instructions,
)
from groundls.answer.text import citations as cit
from groundls.answer.text import (
    grounding,
    hygiene,
    labels,
    language_checks,
    repeats,
    repoint,
    sentences,
)


@dataclass
class Draft:
    """An answer between the model and the reader: its text and what it was written from."""

    text: str
    question: str
    language: str
    excerpts: Sequence[Excerpt]
    #: whether the model said it found the answer, and the numbers it cited outside its text
    #: (a JSON reply's citations array, an echoed label's number)
    found: bool = True
    model_numbers: Sequence[int] = ()
    #: the answer was cut (time, length, cancel, loop): nothing is added to its end
    cut: bool = False
    #: shows text appended to the end of the answer while it is still on screen
    show: Callable[[str], None] = lambda _text: None
    # what the passes found
    dropped: list[int] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    added: int | None = None

    @cached_property
    def bodies(self) -> dict[int, str]:
        """What a citation is checked against: each excerpt's whole chunk and its label."""
        return {e.n: e.hit.text + "\n" + excerpt_label(e.hit) for e in self.excerpts}

    @cached_property
    def texts(self) -> dict[int, str]:
        """Each excerpt's text alone (code is quoted from it; a path copied from a label says
        which file the answer means, not which lines it read)."""
        return {e.n: e.hit.reading for e in self.excerpts}

    @cached_property
    def paths(self) -> set[str]:
        return {e.hit.path for e in self.excerpts}

    @cached_property
    def sections(self) -> set[str]:
        """The sections the excerpts' headers named (what an echoed header has after a path)."""
        return header_sections(self.excerpts)

    def valid(self, n: int) -> bool:
        return 1 <= n <= len(self.excerpts)

    def cited(self) -> list[int]:
        """The excerpts the answer cites: in its text first, then the model's other numbers (none
        when it was cut before citing anything: the excerpts follow it instead)."""
        numbers = cit.cited_numbers(self.text)
        if self.cut and self.found and self.text.strip() and not numbers:
            return []
        others = [n for n in self.model_numbers if self.valid(n) and n not in numbers]
        return numbers + others


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Draft], int]


def _text_pass(repair: Callable[[str], tuple[str, int]]) -> Callable[[Draft], int]:
    def run(draft: Draft) -> int:
        draft.text, fired = repair(draft.text)
        return fired

    return run


def _lead_in(draft: Draft) -> int:
    before = draft.text
    draft.text = hygiene.drop_lead_in(before)
    return int(draft.text != before)


def _echoed_labels(draft: Draft) -> int:
    draft.text, fired = labels.strip_labels(draft.text, draft.paths, draft.sections)
    return fired


def _scaffolding(draft: Draft) -> int:
    names = (
        {excerpt_name(e.hit) for e in draft.excerpts}
        | {e.hit.title.strip() for e in draft.excerpts}
        | header_sections(draft.excerpts)
    )
    draft.text, fired = hygiene.drop_scaffolding(
        draft.text, draft.question, list(draft.texts.values()), names - {""}
    )
    return fired


def _instruction_echoes(draft: Draft) -> int:
    draft.text, fired = grounding.drop_instruction_echoes(
        draft.text, draft.question, draft.texts.values(), instructions(draft.language)
    )
    return fired


def _chinese_sentences(draft: Draft) -> int:
    """Sentences that slipped into Chinese go, unless Chinese was asked for."""
    if draft.language == "zh":
        return 0
    draft.text, fired = language_checks.drop_chinese(draft.text)
    return fired


def _pasted_english(draft: Draft) -> int:
    """English lines pasted into an answer in another language go."""
    draft.text, fired = language_checks.drop_pasted_english(draft.text, draft.language)
    return fired


def _invalid_citations(draft: Draft) -> int:
    draft.text, dropped = cit.drop_invalid_markers(draft.text, range(1, len(draft.excerpts) + 1))
    dropped += [n for n in draft.model_numbers if not draft.valid(n) and n not in dropped]
    draft.dropped = dropped
    return len(dropped)


def _path_citations(draft: Draft) -> int:
    draft.text, fired = repoint.cite_named_paths(
        draft.text, {e.n: e.hit.path for e in draft.excerpts}
    )
    return fired


def _moved_citations(draft: Draft) -> int:
    draft.text, moves = repoint.repoint_citations(draft.text, draft.bodies)
    return len(moves)


def _better_ranked(draft: Draft) -> int:
    draft.text, fired = repoint.cite_better_ranked(draft.text, draft.bodies, draft.question)
    return fired


def _unsupported_specifics(draft: Draft) -> int:
    """Every identifier, command, flag, path, package, number and quoted string must be in the
    excerpts (or the question): a sentence resting on one that is not goes; an answer left with
    nothing to say is emptied (the service then says "not found", with places to look)."""
    evidence = grounding.Evidence([*draft.bodies.values(), draft.question])
    draft.text, draft.unsupported = grounding.drop_unsupported(draft.text, evidence)
    if draft.unsupported and not sentences.has_content(draft.text):
        draft.text = ""
    return len(draft.unsupported)


def _paragraph_citations(draft: Draft) -> int:
    draft.text, fired = repoint.cite_uncited_paragraphs(draft.text, draft.bodies, draft.question)
    return fired


def _added_citation(draft: Draft) -> int:
    """An answer whose text cites nothing is cited at its end (so what was streamed stays the
    start of the answer): the excerpt whose label it echoed (the label went, its number is the
    model's own), else the one it shares the most words with."""
    if not draft.found or draft.cut or not draft.text.strip() or cit.cited_numbers(draft.text):
        return 0
    others = [n for n in draft.model_numbers if draft.valid(n)]
    added = others[0] if others else repoint.best_source(draft.text, draft.bodies)
    if added is None:
        return 0
    marker = f" [{added}]"
    draft.text = draft.text.rstrip() + marker
    draft.show(marker)
    draft.added = added
    return 1


#: The passes, in the order they run. Names are the keys of ``Answer.repairs``.
PASSES: tuple[Pass, ...] = (
    Pass("repeated_lines", _text_pass(repeats.drop_repeated_lines)),
    Pass("repeated_sentences", _text_pass(repeats.drop_repeated_sentences)),
    Pass("echoed_labels", _echoed_labels),
    Pass("lead_in", _lead_in),
    Pass("scaffolding_lines", _scaffolding),
    Pass("instruction_echoes", _instruction_echoes),
    Pass("chinese_sentences", _chinese_sentences),
    Pass("pasted_english", _pasted_english),
    Pass("meta_talk", _text_pass(language_checks.drop_meta_talk)),
    Pass("invalid_citations", _invalid_citations),
    Pass("path_citations", _path_citations),
    Pass("moved_citations", _moved_citations),
    Pass("better_ranked_citations", _better_ranked),
    Pass("citation_lines", _text_pass(hygiene.citations_to_line_ends)),
    Pass("unsupported_specifics", _unsupported_specifics),
    Pass("paragraph_citations", _paragraph_citations),
    Pass("added_citations", _added_citation),
)


def run_passes(draft: Draft, passes: Sequence[Pass] = PASSES) -> dict[str, int]:
    """Run every pass over ``draft`` in order; how many times each one fired (only those that
    did)."""
    fired: dict[str, int] = {}
    for each in passes:
        count = each.run(draft)
        if count:
            fired[each.name] = count
    return fired


def pass_names() -> list[str]:
    return [each.name for each in PASSES]


def tally(repairs: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """How many answers each pass fired on (every pass listed, zeros included)."""
    return {name: sum(1 for r in repairs if r.get(name)) for name in pass_names()}
