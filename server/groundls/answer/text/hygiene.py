"""Repairs for what a small model gets wrong in a grounded answer (run in order by
``answer/text/passes.py``, which counts how often each fires).

- It echoes an excerpt's location label ("[1] src/a.py:10-24 (Retry > upload)") as a heading
  (also after a lead-in such as "答え:") or inline: the label lines are dropped, an inline label
  becomes its bare path; a lead-in word at the answer's start is dropped.
- It cites a neighbouring excerpt: a sentence whose cited excerpt shares almost none of its words,
  while another excerpt holds most of them, is re-pointed at that excerpt.
- It cites a lower-ranked excerpt for what a better-ranked one says as well (a guide restating
  the code, a passage repeated in two chapters): the better-ranked one is cited first.
- It lists an excerpt's path as a header (``1. [1] docs/guide.rst``, ``## guide.md``): such a
  line is dropped, unless the answer is nothing else.
- It goes round in circles: a token loop (:func:`loop_start`) cuts the answer; a paragraph,
  list item or sentence written again is dropped (:func:`drop_repeated_lines`,
  :func:`drop_repeated_sentences`), and once one is being written a third time
  (:func:`third_copy_start`) the answer stops there, whole.
- It copies the prompt's scaffolding: the question restated as a title line above the answer,
  an excerpt's breadcrumb or Markdown heading, the ``---`` between excerpts, a reST heading's
  ``=====`` underline, the ``…`` that stands for elided lines. Those lines are dropped
  (:func:`drop_scaffolding`).
- It answers without citing anything: the answer is cited, at its end, to the excerpt that
  shares most of its words (the first one when none shares more).
- It pastes an excerpt instead of answering: :func:`pasted_share` measures it (the benchmarks
  report it; the prompt asks for the model's own words).
- Asked to hedge, a 1.5B model writes only the hedge: the service adds it instead, unless the
  answer already begins with one (:func:`says_hedge`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from difflib import SequenceMatcher

from groundls.answer.text.citations import MARKER, cited_numbers
from groundls.answer.text.sentences import fenced_lines
from groundls.answer.text.wording import HEDGE

#: ``path:12-30`` with an optional ``(breadcrumb > title)`` after it: the excerpt label format.
_LABEL = re.compile(
    r"(?P<path>(?=[^\s:]*[A-Za-z])[^\s:()\[\]\"'`]+):(?P<start>\d+)-(?P<end>\d+)"
    r"(?:[ \t]*\([^)\n]*\))?"
)
#: A word a model writes before its answer ("答え:", "Answer:").
_LEAD_IN = r"(?:answer|回答|答え)[*]*[ \t]*[:：][*]*"
#: What may stand before a label on its line: quoting, list or heading marks, a word such as
#: "Source" or "答え:", the excerpt's number, bold or code quotes.
_LINE_HEAD = re.compile(
    rf"^[ \t>*#`-]*(?:\d+[.)][ \t]+)?(?:(?:excerpt|source|抜粋|{_LEAD_IN})[ \t]*)?"
    r"(?:[\[［]\s*\d+\s*[\]］][ \t:：]*)?[*`]*",
    re.IGNORECASE,
)
#: A line that is nothing but a label.
_LABEL_LINE = re.compile(
    _LINE_HEAD.pattern + _LABEL.pattern + r"[*`]*[ \t:：]*$", re.IGNORECASE | re.MULTILINE
)


#: The start of a line that may still become a label's head (the model writes "[" and "1]" as
#: separate tokens, and a Japanese answer may begin "答え: [1] …").
_HEAD_START = re.compile(
    r"[ \t>*#`-]*(?:\d+[.)]?[ \t]*)?(?:(?:答え?|回答?)[ \t]*[:：]?[ \t]*)?(?:[\[［]\s*\d*\s*[\]］]?)?[ \t:：*`]*"
)


#: The answer begins with a lead-in word ("答え: …"), which says nothing.
_LEADING_LEAD_IN = re.compile(rf"^\s*[*]*{_LEAD_IN}[ \t]*", re.IGNORECASE)


def drop_lead_in(text: str) -> str:
    """The answer without a lead-in word at its start (``答え: 手順は…`` -> ``手順は…``); an
    answer that is nothing else stays."""
    m = _LEADING_LEAD_IN.match(text)
    return text[m.end() :].lstrip() if m and text[m.end() :].strip() else text


#: A line that is nothing but citations (and perhaps a full stop).
_CITATION_LINE = re.compile(rf"[ \t]*(?:{MARKER.pattern}[ \t,，、]*)+[.。]?[ \t]*")
#: Citations opening a line, after its list or quote marks: (marks, citations).
_LEADING_CITATIONS = re.compile(
    r"^(?P<marks>[ \t>*-]*(?:\d+[.)][ \t]+)?)"
    rf"(?P<cites>(?:{MARKER.pattern}[ \t]*)+)[:：]?[ \t]*(?=[^\s,，、])"
)
_STOP = (".", "。", "!", "?", "！", "？")


def citations_to_line_ends(text: str) -> tuple[str, int]:
    """Citations moved to the end of the prose line they source (before its full stop), where
    they vouch for its paragraph as a writer's closing citation does: a line that is only a
    citation (``…比較されます。\n\n[1]``) gives it to the prose line above it (``…比較されます
    [1]。``), and a line that opens with one (``1. [1] `debian/source/local-options` に…。``)
    carries it at its end instead (``1. `debian/source/local-options` に… [1]。``). Code (in a
    fence) is left as it is. Returns the text and how many lines changed."""
    lines = text.split("\n")
    fenced = fenced_lines(lines)
    moved = 0
    for i, line in enumerate(lines):
        if fenced[i] or not line.strip():
            continue
        if _CITATION_LINE.fullmatch(line):
            above = next((j for j in range(i - 1, -1, -1) if lines[j].strip()), None)
            if above is None or fenced[above] or _CITATION_LINE.fullmatch(lines[above]):
                continue
            lines[above] = _cite_at_end(lines[above], cited_numbers(line))
            lines[i] = ""
            moved += 1
        elif (m := _LEADING_CITATIONS.match(line)) and _begins_sentence(
            line[m.end() :], spaced=line[m.end() - 1].isspace()
        ):
            lines[i] = _cite_at_end(
                m.group("marks") + line[m.end() :], cited_numbers(m.group("cites"))
            )
            moved += 1
    if not moved:
        return text, 0
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip(), moved


def _begins_sentence(rest: str, *, spaced: bool) -> bool:
    """Whether what follows a line's opening citation reads as a sentence without it. Not when
    the citation is the sentence's subject or object: a particle or word written onto it
    (「[1] によると、…」, "[1]에서 …", "[1] says …"), which moving it to the end would leave with
    a hole."""
    first = rest[:1]
    if re.match(r"[\u3041-\u309f]|[a-z]+ [a-z]", rest):  # hiragana, a lower-case word (a verb)
        return False
    return not (re.match(r"[\uac00-\ud7a3]", first) and not spaced)  # Hangul written onto it


def _cite_at_end(line: str, numbers: Sequence[int]) -> str:
    """``line`` citing ``numbers`` at its end, before its full stop (numbers it already cites
    are not written again)."""
    prose = line.rstrip()
    own = set(cited_numbers(prose))
    new = [n for n in numbers if n not in own]
    if not new:
        return prose
    if prose.endswith(_STOP):
        return f"{prose[:-1].rstrip()} {_marker(new)}{prose[-1]}"
    return f"{prose} {_marker(new)}"


#: Words an answer that hedges begins with: the answer stage's own hedge in each language
#: (``wording.HEDGE``) and the model's.
_HEDGE_WORDS = {
    *(h.strip(" :：、,").lower() for h in HEDGE.values()),
    *[
        "probably",
        "推測",
        "おそらく",
        "恐らく",
        "たぶん",
        "多分",
        "可能是",
        "아마",
        "wahrscheinlich",
    ],
}
# the longest first, so that "probablemente" is not read as "probablement" and a letter
_HEDGED = re.compile(
    r"^\W*(" + "|".join(map(re.escape, sorted(_HEDGE_WORDS, key=len, reverse=True))) + ")",
    re.IGNORECASE,
)


def says_hedge(text: str) -> bool:
    """Whether an answer already begins by saying it is an inference."""
    return bool(_HEDGED.match(text))


def _any_path(paths: Collection[str]) -> str:
    """A regular expression alternative matching any of ``paths`` (the longest first)."""
    return "|".join(re.escape(p) for p in sorted(paths, key=len, reverse=True))


#: A paragraph with at least this share of its shingles copied is pasted (as the benchmark counts).
PASTED = 0.6


def paragraphs(text: str) -> list[str]:
    """``text`` split at its blank lines, except inside a fenced code block."""
    blocks: list[list[str]] = [[]]
    lines = text.split("\n")
    for line, fenced in zip(lines, fenced_lines(lines), strict=True):
        if not line.strip() and not fenced:
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append(line)
    return ["\n".join(b) for b in blocks if b]


#: A line that only separates excerpts (``---``), stands for elided lines (``…``) or underlines
#: a reST heading it copied (``=====``, ``^^^^^``).
_SEPARATOR_LINE = re.compile(r"[ \t]*(?:-{3,}|\*{3,}|_{3,}|={3,}|\^{3,}|…+|\.{3,}|⋯+)[ \t]*")
#: What a title line may hold besides the question's letters.
_NOT_LETTERS = re.compile(r"[\W_]+")
#: A restated question: this share of the line's letters, in order, are the question's.
RESTATED = 0.8


def restates(line: str, question: str) -> bool:
    """Whether ``line`` is the question written again as a title: no citation, no sentence end
    (nor a colon, which opens what follows), and at least ``RESTATED`` of its letters (spaces,
    punctuation and a leading hedge word aside) the question's, in order, covering most of it."""
    if MARKER.search(line) or re.search(r"[。！？!?:：]\s*$|\.\s*$", line.strip()):
        return False
    body = _HEDGED.sub("", line.strip()).lstrip("、,: ")
    a = _NOT_LETTERS.sub("", body).lower()
    b = _NOT_LETTERS.sub("", question).lower()
    if len(a) < 4 or not b:
        return False
    same = sum(m.size for m in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return same >= RESTATED * len(a) and same >= 0.6 * len(b)


_LIST_ITEM = re.compile(r"^(?:[-*•]|\d+[.)])\s+")


def drop_scaffolding(
    text: str, question: str, sources: Sequence[str], names: Collection[str] = ()
) -> tuple[str, int]:
    """The answer without the prompt's scaffolding it copied: a first line that restates the
    question (:func:`restates`); outside fenced code, lines that only separate excerpts or stand
    for elided ones, an excerpt's Markdown heading (``## 4.1. control``, a line an excerpt
    holds) and an excerpt's name as its label shows it (``click > parser > OptionParser``,
    ``names``). Returns the text and how many lines went; an answer that would be left empty is
    kept."""
    lines = text.split("\n")
    keep: list[str] = []
    dropped = 0
    first = True
    for line, fenced in zip(lines, fenced_lines(lines), strict=True):
        stripped = line.strip()
        if not fenced and stripped:
            # as written, without bold marks, without code quotes too (a name may itself end in
            # code quotes: ``第5章 … > 5.5. `dirs` ``)
            bare = {stripped, stripped.strip("*"), stripped.strip("*`")}
            bare |= {_LIST_ITEM.sub("", b, count=1) for b in bare}
            if (
                (first and restates(stripped, question))
                or _SEPARATOR_LINE.fullmatch(stripped)
                or not bare.isdisjoint(names)
                or (stripped.startswith("#") and _heading_of(stripped, sources, names))
            ):
                dropped += 1
                continue
        if stripped:
            first = False
        keep.append(line)
    if not dropped:
        return text, 0
    out = re.sub(r"\n{3,}", "\n\n", "\n".join(keep)).strip()
    if not out:
        return text, 0
    return out, dropped


def _heading_of(line: str, sources: Sequence[str], names: Collection[str]) -> bool:
    """Whether a Markdown heading line names an excerpt: its title is an excerpt's name, or a
    heading of one (whatever its level)."""
    title = line.lstrip("#").strip()
    if not title:
        return False
    return title in names or any(
        source_line.lstrip().startswith("#") and source_line.lstrip("#").strip() == title
        for source in sources
        for source_line in source.splitlines()
    )


def pasted_share(answer: str, sources: Sequence[str], width: int = 20) -> float:
    """Share of the answer's ``width``-character shingles (whitespace collapsed, citation markers
    removed) that occur verbatim in the sources: 1.0 is a paste, an own-words answer is low."""
    flat = " ".join(MARKER.sub(" ", answer).split())
    if len(flat) < width:
        return 0.0
    corpus = "\n".join(" ".join(s.split()) for s in sources)
    shingles = [flat[i : i + width] for i in range(len(flat) - width + 1)]
    return sum(1 for s in shingles if s in corpus) / len(shingles)


def _marker(numbers: Sequence[int]) -> str:
    """A citation marker as the repairs write it: ``[2, 1]``."""
    return "[" + ", ".join(map(str, numbers)) + "]"
