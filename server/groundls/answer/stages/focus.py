"""Context compression: give the model only the lines of an excerpt that bear on the question.

Reading the prompt is most of the time to the first token on a small CPU, and a long excerpt
mostly holds lines the question is not about. Each excerpt keeps its first line (the signature or
the heading that says what it is), the lines that share words with the question, and one line of
context on either side of them; what is left out becomes a single "…" line. In prose, a long
line (a paragraph written on one line) is cut into its sentences first, so a sentence that bears
on the question is kept without the rest of its paragraph. The excerpt still stands for its whole
chunk: citations map to the chunk's full location.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from groundls.answer.text.citations import stemmed_features

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


def focus(
    text: str, terms: set[str], budget: int, count: TokenCounter, *, prose: bool = False
) -> tuple[str, bool]:
    """``text`` cut to at most ``budget`` tokens keeping what bears on ``terms``; and whether
    anything was left out. Lines that share more of the question's terms are kept first;
    ``prose``: a long line is cut into sentences first (code lines are kept whole)."""
    if count(text) <= budget:
        return text, False
    lines = text.splitlines()
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
    if costs[0] > budget:
        # a single huge first line: cut by characters, proportionally
        keep = max(1, int(len(lines[0]) * budget / max(costs[0], 1)))
        return lines[0][:keep] + "\n" + ELISION, True
    matches = [len(terms_of(line) & terms) for line in lines]
    keep: set[int] = {0}
    used = costs[0]
    order = sorted((i for i, m in enumerate(matches) if m), key=lambda i: (-matches[i], i))
    for i in order:
        window = range(max(0, i - CONTEXT_LINES), min(len(lines), i + CONTEXT_LINES + 1))
        new = [j for j in window if j not in keep and lines[j].strip()]
        cost = sum(costs[j] for j in new) + 1
        if used + cost > budget:
            if costs[i] + used + 1 <= budget and i not in keep:
                keep.add(i)
                used += costs[i] + 1
            continue
        keep.update(new)
        used += cost
    if len(keep) == 1:
        # nothing matched: the start of the excerpt, as far as the budget goes
        for j in range(1, len(lines)):
            if used + costs[j] > budget:
                break
            keep.add(j)
            used += costs[j]
    out: list[str] = []
    last = -1
    for j in sorted(keep):
        if j > last + 1:
            out.append(ELISION)
        out.append(lines[j])
        last = j
    if last < len(lines) - 1:
        out.append(ELISION)
    return "\n".join(out), True
