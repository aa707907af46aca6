"""Context compression: give the model only the lines of an excerpt that bear on the question.

Reading the prompt is most of the time to the first token on a small CPU, and a long excerpt
mostly holds lines the question is not about. Each excerpt keeps its first line (the signature or
the heading that says what it is), the lines that share words with the question, and one line of
context on either side of them; what is left out becomes a single "…" line. A line weighs by the
question's words it holds, each by how rare it is among the lines read (:func:`term_weights`): a
word on every line of a manual ("package" in a packaging guide) says nothing about which line
answers. A line that announces what follows it (it ends in a colon: "compare them as follows:")
brings the lines it announces, a list or a code block, since alone it states nothing. In prose, a
long line (a paragraph written on one line) is cut into its sentences first, so a sentence that
bears on the question is kept without the rest of its paragraph. The excerpt still stands for its
whole chunk: citations map to the chunk's full location.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from groundls.answer.text.citations import stemmed_features
from groundls.answer.text.sentences import ANNOUNCES, LIST_HEAD

TokenCounter = Callable[[str], int]

#: Lines of context kept on each side of a line that matches the question.
CONTEXT_LINES = 1
ELISION = "…"
#: A prose line that costs more than this share of the room is cut into sentences.
LONG_LINE_SHARE = 0.25
#: Where a sentence ends: after a Japanese full stop and any closing brackets or quotes after
#: it (「…します。」, （…します。）), or after . ! ? and a space before what looks like the start
#: of the next sentence.
_SENTENCE_END = re.compile(
    r"(?<=[。！？）)」』】])(?<![^。！？][）)」』】])(?![）)」』】]|$)|(?<=[.!?])\s+(?=[A-Z\"'(`])"
)


def sentences(line: str) -> list[str]:
    """``line`` cut into its sentences (itself when it holds one); indentation stays on the
    first."""
    parts = [p for p in _SENTENCE_END.split(line) if p.strip()]
    return parts or [line]


def terms_of(text: str) -> set[str]:
    """The content words of ``text`` (identifiers split, stemmed) and its Japanese bigrams: the
    citation check's features (:func:`groundls.answer.text.citations.stemmed_features`)."""
    return stemmed_features(text)


def question_terms(texts: Iterable[str]) -> set[str]:
    """The terms of a question and of any rewrite of it (an English wording of a Japanese one)."""
    out: set[str] = set()
    for text in texts:
        if text:
            out |= terms_of(text)
    return out


def term_weights(texts: Sequence[str], terms: set[str]) -> dict[str, float]:
    """Each question term's weight among the lines of ``texts``: its inverse line frequency
    (BM25's, which stays above 0), so a line is worth the rare question words it holds."""
    lines = [terms_of(line) & terms for text in texts for line in text.splitlines()]
    n = len(lines)
    df = {t: sum(1 for line in lines if t in line) for t in terms}
    return {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}


def _announced(lines: Sequence[str], i: int) -> range:
    """The lines that line ``i`` announces (it ends in a colon): the fenced block or the list
    right after it, or the one line after it."""
    if not ANNOUNCES.search(lines[i]):
        return range(0)
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j >= len(lines):
        return range(0)
    end = j + 1
    if lines[j].lstrip().startswith(("```", "~~~")):
        fence = lines[j].lstrip()[:3]
        while end < len(lines) and not lines[end].lstrip().startswith(fence):
            end += 1
        end = min(len(lines), end + 1)
    elif LIST_HEAD.match(lines[j]):
        while end < len(lines) and (LIST_HEAD.match(lines[end]) or lines[end].startswith(" ")):
            end += 1
    return range(j, end)


def _lines(text: str, count: TokenCounter, budget: int, prose: bool) -> tuple[list[str], list[int]]:
    """``text``'s lines and their costs; in ``prose``, a long line cut into its sentences."""
    lines = text.splitlines() or [""]
    costs = [count(line + "\n") for line in lines]
    if prose:
        long = budget * LONG_LINE_SHARE
        split = [
            sentences(line) if cost > long else [line]
            for line, cost in zip(lines, costs, strict=True)
        ]
        if any(len(parts) > 1 for parts in split):
            lines = [part for parts in split for part in parts]
            costs = [count(line + "\n") for line in lines]
    return lines, costs


def _shown(lines: Sequence[str], keep: set[int], cut_inside: bool = False) -> str:
    """The kept lines in order, each gap (and the rest of a line cut inside) a single "…"
    line."""
    out: list[str] = []
    last = -1
    for j in sorted(keep):
        if j > last + 1:
            out.append(ELISION)
        out.append(lines[j])
        last = j
    if last < len(lines) - 1 or cut_inside:
        out.append(ELISION)
    return "\n".join(out)


@dataclass
class _Excerpt:
    """One text being cut: its lines, their costs and scores, and the lines kept so far."""

    lines: list[str]
    costs: list[int]
    scores: list[float]
    keep: set[int] = field(default_factory=set)
    #: its first line was cut by characters (one huge line)
    cut_inside: bool = False

    def window(self, i: int) -> list[int]:
        """Line ``i``, the non-blank lines around it and what they announce, not yet kept."""
        near = range(max(0, i - CONTEXT_LINES), min(len(self.lines), i + CONTEXT_LINES + 1))
        out = [j for j in near if self.lines[j].strip()]
        out += [j for k in near for j in _announced(self.lines, k)]
        return [j for j in dict.fromkeys(out) if j not in self.keep]

    def fill(self, room: int) -> int:
        """Keep what fits in ``room`` tokens: all of it if it fits; else its first line and
        the lines that bear most on the question, each with its window (or alone where the
        window does not fit); else, when none bears on it, its start. The tokens kept."""
        if sum(self.costs) <= room:
            self.keep = set(range(len(self.lines)))
            return sum(self.costs)
        if self.costs[0] > room:  # a single huge first line: cut by characters
            share = max(1, int(len(self.lines[0]) * room / self.costs[0]))
            self.lines[0], self.cut_inside, self.keep = self.lines[0][:share], True, {0}
            return room
        self.keep, used = {0}, self.costs[0]
        order = sorted((i for i, m in enumerate(self.scores) if m), key=lambda i: -self.scores[i])
        for i in order:
            if i in self.keep:
                continue
            new = self.window(i)
            if used + sum(self.costs[j] for j in new) + 1 > room:
                new = [i]
                if used + self.costs[i] + 1 > room:
                    continue
            used += sum(self.costs[j] for j in new) + 1
            self.keep.update(new)
        if len(self.keep) == 1:  # nothing bears on the question: its start
            for j in range(1, len(self.lines)):
                if used + self.costs[j] > room:
                    break
                self.keep.add(j)
                used += self.costs[j]
        return used


def focus_all(
    texts: Sequence[str],
    terms: set[str],
    budget: int,
    count: TokenCounter,
    *,
    prose: Sequence[bool],
    openings: Sequence[int],
    share: float = 1.0,
    min_tokens: int = 0,
) -> list[tuple[str, bool] | None]:
    """``texts`` (in rank order) cut to ``budget`` tokens together, each to at most ``share``
    of it and what the texts before it left, at the cost of its ``openings`` (its header) too:
    each whole if it fits, else its first line (its heading or signature) and the lines that
    bear most on ``terms`` (each term weighed by :func:`term_weights`), each with a line of
    context on either side and what it announces; else its start. A text is left out when
    fewer than ``min_tokens`` of it would fit; the first never is. For each text, what is
    shown and whether anything was left out, or None when nothing of it is."""
    weights = term_weights(texts, terms)
    cap = max(1, int(budget * share))
    used = 0
    out: list[tuple[str, bool] | None] = []
    for n, (text, is_prose, opening) in enumerate(zip(texts, prose, openings, strict=True)):
        room = min(cap, budget - used) - opening
        if room < min_tokens:
            if n:
                out.append(None)
                continue
            room = max(room, min_tokens, 1)  # the best text is always shown, cut to fit
        lines, costs = _lines(text, count, room, is_prose)
        scores = [sum(weights[t] for t in terms_of(line) & terms) for line in lines]
        cut = _Excerpt(lines, costs, scores)
        used += opening + cut.fill(room)
        whole = len(cut.keep) == len(lines) and not cut.cut_inside
        out.append((text, False) if whole else (_shown(lines, cut.keep, cut.cut_inside), True))
    return out


def focus(
    text: str,
    terms: set[str],
    budget: int,
    count: TokenCounter,
    *,
    prose: bool = False,
) -> tuple[str, bool]:
    """``text`` alone cut to at most ``budget`` tokens keeping what bears on ``terms`` (see
    :func:`focus_all`); and whether anything was left out."""
    shown = focus_all([text], terms, budget, count, prose=[prose], openings=[0])[0]
    assert shown is not None  # the first text is always shown
    return shown
