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
- It goes round in circles: a token loop (:func:`loop_start`) cuts the answer; a paragraph or
  list item written again is dropped (:func:`drop_repeated_lines`), and once one is being
  written a third time (:func:`third_copy_start`) the answer stops there, whole.
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
from collections.abc import Callable, Collection, Mapping, Sequence
from difflib import SequenceMatcher

from groundls.answer.text.citations import (
    MARKER,
    cited_numbers,
    features,
    marker_numbers,
    overlap,
    stemmed_features,
)
from groundls.answer.text.wording import HEDGE
from groundls.chunkers.textrules import display_width

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


class LabelFilter:
    """Streams answer text without echoed label lines: the start of each line is held back
    until it is clear that the line is not an excerpt label (its first word is not a
    ``path:12-30``); a label line is dropped whole.

    ``paths``: the excerpts' paths, when known (``sections``: what their headers named). A line
    can only echo one of them, so its start is let through as soon as it cannot begin any of
    them; and a looser echo of one of them (``[1] guide.md:17 (Intro) The answer …``) loses the
    label and keeps ``[1] The answer …``.
    Without them a line waits for the end of its first word, which in Japanese text (no spaces)
    can be the whole sentence."""

    def __init__(self, paths: Collection[str] = (), sections: Collection[str] = ()) -> None:
        self._line = ""
        self._passing = False  # the current line is known not to be a label
        self._paths = tuple(paths)
        loose = _loose_label(self._paths, sections)
        self._loose = re.compile(_LINE_HEAD.pattern + f"(?:{loose.pattern})") if loose else None
        self._header = _path_header(self._paths)
        self.dropped = 0

    def feed(self, piece: str) -> str:
        out: list[str] = []
        self._line += piece
        while "\n" in self._line:
            line, self._line = self._line.split("\n", 1)
            if self._passing:
                out.append(line + "\n")
            else:
                kept = self._without_label(line, complete=True)
                if kept is None:
                    self.dropped += 1
                else:
                    out.append(kept + "\n")
            self._passing = False
        if self._line and not self._passing:
            kept = self._without_label(self._line, complete=False)
            if kept is not None:
                out.append(kept)
                self._line = ""
                self._passing = True
        elif self._line:
            out.append(self._line)
            self._line = ""
        return "".join(out)

    def finish(self) -> str:
        """What is still held back at the end of the answer."""
        line, self._line = self._line, ""
        if not line or self._passing:
            return line
        kept = self._without_label(line, complete=True)
        if kept is None:
            self.dropped += 1
            return ""
        return kept

    def _without_label(self, text: str, *, complete: bool) -> str | None:
        """``text`` (a line, or the start of one) as it may be shown: None while it may still
        be a label (``complete``: the line is whole, so a label line is dropped: None too)."""
        if complete and (
            _LABEL_LINE.fullmatch(text) or (self._header and self._header.fullmatch(text))
        ):
            return None
        loose = self._loose.match(text) if self._loose is not None else None
        if loose is not None:
            rest = text[loose.end() :]
            head = text[: _LINE_HEAD.match(text).end()]  # type: ignore[union-attr]
            if not rest.strip():
                return None  # a label line, or not known yet
            if not complete and (rest[:1] in ":-0123456789" or rest.lstrip()[:1] in "(（"):
                return None  # the label may go on ("guide.md:17-2", "(Intro …")
            self.dropped += 1
            if not _begins_sentence(rest.lstrip(), spaced=True):
                # the path is the sentence's own (「… で登録します」): it stays, bare
                rest = f"{loose.group('path')} {rest.lstrip()}"
            return head.rstrip() + " " + rest.lstrip() if head.strip() else rest.lstrip()
        if complete or not self._may_be_label(text):
            return text
        return None

    def _may_be_label(self, partial: str) -> bool:
        if _HEAD_START.fullmatch(partial):
            return True  # "[", "[1", "**[2]": the excerpt's number may come before a label
        rest = partial[_LINE_HEAD.match(partial).end() :]  # type: ignore[union-attr]
        if len(partial) > 300:
            return False
        if not rest:
            return True
        if self._paths and not any(p.startswith(rest) or rest.startswith(p) for p in self._paths):
            return False  # the line does not begin with an excerpt's path
        if not re.search(r"\s", rest):
            return True  # still on the first word
        if self._paths and any(rest.startswith(p) for p in self._paths) and "(" in rest:
            return ")" not in rest and "）" not in rest  # a bracketed section path may follow
        return bool(_LABEL.match(rest))


#: A cited excerpt that shares less than this share of the sentence's words is weak ...
WEAK = 0.12
#: ... and another excerpt that shares at least this much (and twice as much) holds it instead.
STRONG = 0.35


def _path_header(paths: Collection[str]) -> re.Pattern[str] | None:
    """A line that is nothing but an excerpt's path under a list number, an excerpt number or a
    heading mark (``1. [1] docs/guide.rst``, ``## guide.md``): a path header, not an answer. A
    bare path alone on its line may be the answer to "which file …?" and is not matched."""
    if not paths:
        return None
    names = _any_path(paths)
    return re.compile(
        r"^[ \t>*-]*(?:#+[ \t]*|\d+[.)][ \t]+|(?=[\[［]))"
        rf"(?:[\[［]\s*\d+\s*[\]］][ \t:：]*)?[*`]*(?:{names})[*`]*[ \t:：]*(?:\n|\Z)",
        re.MULTILINE,
    )


def _any_path(paths: Collection[str]) -> str:
    """A regular expression alternative matching any of ``paths`` (the longest first)."""
    return "|".join(re.escape(p) for p in sorted(paths, key=len, reverse=True))


def _loose_label(paths: Collection[str], sections: Collection[str] = ()) -> re.Pattern[str] | None:
    """An excerpt's path with what a model writes after it when it echoes the label loosely:
    one line number (``guide.md:17``) and/or the section in brackets."""
    if not paths:
        return None
    names = _any_path(paths)
    # a bracket after the bare path must hold a section path ("A > B") or a section an excerpt's
    # header named to be the label's ("formatting.py (the help formatter)" is the answer's own)
    shown = "".join(f"|{re.escape(s)}" for s in sorted(sections, key=len, reverse=True) if s)
    return re.compile(
        rf"(?P<path>{names})(?::\d+(?:-\d+)?(?:[ \t]*[(（][^)）\n]*[)）])?"
        rf"|(?P<mark>[ \t]*[\[［][\d\s,，、]+[\]］])?[ \t]*[(（](?:[^)）\n]*>[^)）\n]*{shown})[)）])"
    )


def _marker_before_path(paths: Collection[str]) -> re.Pattern[str]:
    """An excerpt number written before an excerpt's path, as its label has it (``処理は、[1]
    src/click/formatting.py にある``): the path is the sentence's, the number its citation,
    which follows what it cites (``src/click/formatting.py [1] にある``)."""
    return re.compile(
        rf"(?P<marker>{MARKER.pattern})"
        rf"[ \t]*(?P<path>[*`]*(?:{_any_path(paths)})[*`]*)(?![\w/-]|\.\w)"
    )


def strip_labels(
    text: str, paths: Collection[str] = (), sections: Collection[str] = ()
) -> tuple[str, int]:
    """The answer without echoed excerpt labels, and how many were removed. With the excerpts'
    ``paths`` (and the ``sections`` their headers named), looser echoes of them count too:
    ``[1] guide.md:17 (Intro) text`` keeps ``[1] text``; an inline one keeps the bare path, with
    an excerpt number before it moved after it (see ``_marker_before_path``)."""
    count = 0

    def drop_line(_m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return ""

    text = _LABEL_LINE.sub(drop_line, text)
    header = _path_header(paths)

    def without_headers(text: str) -> str:
        nonlocal count
        if header is None:
            return text
        headless, headers = header.subn("", text)
        if not headless.strip():  # (an answer that is only paths stays)
            return text
        count += headers
        return headless

    text = without_headers(text)

    def bare(m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        # a citation the model wrote between the path and the section stays after the path
        mark = m.groupdict().get("mark")
        return m.group("path") + (mark or "")

    text = _LABEL.sub(bare, text)
    loose = _loose_label(paths, sections)
    if loose is not None:

        def lead(m: re.Match[str]) -> str:
            nonlocal count
            count += 1
            rest = m.string[m.end() :].split("\n", 1)[0]
            if not rest.strip():
                return ""  # a label line goes whole
            if _begins_sentence(rest, spaced=True):
                return m.group("head")
            return m.group(0)  # the path is the sentence's own (「… で登録します」): kept below

        # a label at the start of a line, after the excerpt's number: the line's text follows
        text = re.sub(
            rf"^(?P<head>[ \t>*#-]*(?:\d+[.)][ \t]+)?[\[［]\s*\d+\s*[\]］][ \t:：]*)[*`]*"
            rf"(?:{loose.pattern})[*`]*[ \t:：]*",
            lead,
            text,
            flags=re.MULTILINE,
        )
        text = loose.sub(bare, text)
        # a header that was a label with its section: 「1. [1] pkgs.html (5.9. …)」
        text = without_headers(text)
        text, moved = _marker_before_path(paths).subn(r"\g<path> \g<marker>", text)
        count += moved
        # a label the length limit cut off in its bracket, at the very end of the answer
        cut = re.search(rf"(?:{_any_path(paths)})(?::\d+(?:-\d+)?)?[ \t]*[(（][^)）\n]*$", text)
        if cut is not None:
            count += 1
            text = text[: cut.start()].rstrip()
    if count:
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text, count


#: A paragraph with at least this share of its shingles copied is pasted (as the benchmark counts).
PASTED = 0.6


def fenced_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (its ``` lines included)."""
    out: list[bool] = []
    inside = False
    for line in lines:
        marker = line.lstrip().startswith("```")
        if marker:
            inside = not inside
        out.append(inside or marker)
    return out


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


def repoint_citations(text: str, excerpts: Mapping[int, str]) -> tuple[str, list[tuple[int, int]]]:
    """Re-point each weak citation at the excerpt that holds its sentence; returns the text and
    the (from, to) moves made. A citation is moved only when the evidence is clear: the cited
    excerpt shares under ``WEAK`` of the sentence's words, another shares at least ``STRONG``
    and at least twice as much."""
    moves: list[tuple[int, int]] = []

    def fix(nums: list[int], sentence: str) -> list[int]:
        fixed: list[int] = []
        for n in nums:
            target = _better(sentence, n, excerpts)
            if target != n:
                moves.append((n, target))
            if target not in fixed:
                fixed.append(target)
        return fixed

    return _each_citation(text, fix), moves


def _each_citation(text: str, fix: Callable[[list[int], str], list[int]]) -> str:
    """``text`` with each citation marker's numbers replaced by ``fix(numbers, sentence)``
    (``sentence``: what the marker cites, see :func:`_sentence_around`); a marker whose numbers
    stay is kept as written."""
    out: list[str] = []
    last = 0
    for m in MARKER.finditer(text):
        nums = marker_numbers(m.group(1))
        fixed = fix(nums, _sentence_around(text, m.start(), m.end()))
        out.append(text[last : m.start()])
        out.append(m.group(0) if fixed == nums else _marker(fixed))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def _marker(numbers: Sequence[int]) -> str:
    """A citation marker as the repairs write it: ``[2, 1]``."""
    return "[" + ", ".join(map(str, numbers)) + "]"


def cite_named_paths(text: str, paths: Mapping[int, str]) -> tuple[str, int]:
    """A citation written right after an excerpt's path (``docs/commands.rst [1, 2]``) cites
    that path's excerpt first: the sentence points at that file, and the first number is the one
    the reader checks. ``paths``: each excerpt's path by number; a path that no excerpt has, or
    a citation that already begins with one of the path's excerpts, stays. Returns the text and
    how many citations changed."""
    if not paths:
        return text, 0
    by_path: dict[str, list[int]] = {}
    for n, path in sorted(paths.items()):
        by_path.setdefault(path, []).append(n)
    named = re.compile(
        rf"(?<![\w/.-])[*`]*(?P<path>{_any_path(by_path)})[*`]*[ \t]*(?P<marker>{MARKER.pattern})"
    )
    fired = 0

    def first(m: re.Match[str]) -> str:
        nonlocal fired
        own = by_path[m.group("path")]
        nums = marker_numbers(m.group("marker")[1:-1])
        if not nums or nums[0] in own:
            return m.group(0)
        fired += 1
        ordered = [n for n in nums if n in own] or own[:1]
        ordered += [n for n in nums if n not in ordered]
        return m.group(0)[: m.start("marker") - m.start()] + _marker(ordered)

    return named.sub(first, text), fired


def cite_better_ranked(
    text: str, excerpts: Mapping[int, str], question: str = ""
) -> tuple[str, int]:
    """Put a better-ranked excerpt first in each citation when it holds the cited sentence at
    least as well (``STRONG`` or more of the sentence's words that are not the question's own,
    which every excerpt the search found tends to share). Returns the text and how many
    citations gained an excerpt."""
    asked = stemmed_features(question)
    added = 0

    def fix(nums: list[int], sentence: str) -> list[int]:
        nonlocal added
        first = nums[0] if nums else 0
        if first not in excerpts:
            return nums
        own = overlap(sentence, excerpts[first], ignore=asked, empty=0.0)
        better = next(
            (
                n
                for n in sorted(excerpts)
                if n < first
                and n not in nums
                and (share := overlap(sentence, excerpts[n], ignore=asked, empty=0.0)) >= STRONG
                and share >= own
            ),
            None,
        )
        if better is None:
            return nums
        added += 1
        return [better, *nums]

    return _each_citation(text, fix), added


def best_source(text: str, excerpts: Mapping[int, str]) -> int | None:
    """The excerpt an uncited answer comes from: the one sharing the largest share of its words
    (see :func:`overlap`); on a tie the better-ranked (lower-numbered) one. None without
    excerpts."""
    if not excerpts:
        return None
    return max(sorted(excerpts), key=lambda n: (overlap(text, excerpts[n]), -n))


_END = re.compile(r"[.!?](?=\s|$)|[。！？\n]")


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence the marker at ``start:end`` cites, markers removed: the one it stands in
    ("It is [1] stripped …"), ends ("… stripped [1]."), begins ("[1] 文字列は …") or follows
    ("… stripped. [1]" at the end of a line)."""
    bounds = [m.end() for m in _END.finditer(text, 0, start)]
    head = bounds[-1] if bounds else 0
    after = _END.search(text, end)
    before, rest = text[head:start], text[end : after.start() if after else len(text)]
    if before.strip():
        return _clean(before + " " + rest if rest.strip() else before)
    if rest.strip():
        return _clean(rest)
    return _clean(text[bounds[-2] if len(bounds) > 1 else 0 : head])


def _clean(sentence: str) -> str:
    return MARKER.sub(" ", sentence).strip()


def _better(sentence: str, n: int, excerpts: Mapping[int, str]) -> int:
    if n not in excerpts or not features(sentence):
        return n
    own = overlap(sentence, excerpts[n])
    if own >= WEAK:
        return n
    best, score = n, own
    for other, body in excerpts.items():
        s = overlap(sentence, body)
        if s > score:
            best, score = other, s
    return best if score >= STRONG and score >= 2 * own else n


#: A unit of 6..80 characters repeated 4+ times at the end of the text: a token loop.
_REPEAT = re.compile(r"(.{6,80}?)\1{3,}$", re.DOTALL)
#: What may stand before a line's words without being part of them: quoting, list and heading
#: marks, a list number, the excerpt numbers cited.
_LINE_MARKS = re.compile(
    r"^[ \t>*#-]*(?:\d+[.)][ \t]+)?(?:[\[［]\s*\d+(?:\s*,\s*\d+)*\s*[\]］][ \t:：]*)?"
)
#: A line this wide (besides its marks; in display columns, a Japanese character is two)
#: written twice is the model going round in circles: a shorter one may be a list's recurring
#: item ("- Default: none").
REPEATED_LINE = 40


def loop_start(text: str, window: int = 600) -> int | None:
    """Where a token loop starts, or None: the text ends in 4+ repeats of one 6..80-character
    unit (kept once)."""
    tail = text[-window:]
    m = _REPEAT.search(tail)
    if m is None or not m.group(1).strip():
        return None
    return len(text) - len(tail) + m.start() + len(m.group(1))


def third_copy_start(text: str) -> int | None:
    """Where the model began writing a block of lines a third time, or None (see
    :func:`drop_repeated_lines`): it is going round in circles, and everything it will write
    from there is a copy. A block written twice may be a slip the model goes on from."""
    third = next((block for block, copy in _repeated_blocks(text) if copy >= 3), None)
    return None if third is None else _line_starts(text)[third[0]]


def drop_repeated_lines(text: str) -> tuple[str, int]:
    """The answer without the lines it writes again: a line ``REPEATED_LINE`` columns wide or
    more (outside code fences) that repeats an earlier one, with the lines before it that
    repeat the lines before the earlier one (list numbers aside: a numbered header above a
    repeated item goes too). Returns the text and how many lines were dropped."""
    lines = text.split("\n")
    drop: set[int] = set()
    for (first, last), _copy in _repeated_blocks(text + "\n"):
        drop.update(range(first, last + 1))
    if not drop:
        return text, 0
    kept = "\n".join(line for i, line in enumerate(lines) if i not in drop)
    return re.sub(r"\n{3,}", "\n\n", kept).strip(), sum(1 for i in drop if lines[i].strip())


def _line_words(line: str) -> str:
    return " ".join(line[_LINE_MARKS.match(line).end() :].split())  # type: ignore[union-attr]


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def _repeated_blocks(text: str) -> list[tuple[tuple[int, int], int]]:
    """Each repeat of a wide line among the text's complete lines: the block of line indexes it
    ends (walked back over the lines before it that repeat too) and which copy it is (2 for the
    first repeat)."""
    lines = text.split("\n")[:-1]  # complete lines only
    seen: dict[str, list[int]] = {}
    blocks: list[tuple[tuple[int, int], int]] = []
    for i, (line, fenced) in enumerate(zip(lines, fenced_lines(lines), strict=True)):
        if fenced:
            continue
        words = _line_words(line)
        if display_width(words) < REPEATED_LINE:
            continue
        copies = seen.setdefault(words, [])
        copies.append(i)
        if len(copies) == 1:
            continue
        previous = copies[-2]
        back = 1
        while (
            previous - back >= 0
            and i - back > previous
            and (_line_words(lines[previous - back]) == _line_words(lines[i - back]))
        ):
            back += 1
        blocks.append(((i - back + 1, i), len(copies)))
    return blocks
