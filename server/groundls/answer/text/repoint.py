"""Citations moved to the excerpt that says what their sentence says, and a source for an answer that cites nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from groundls.answer.text.citations import (
    MARKER,
    features,
    marker_numbers,
    overlap,
    stemmed_features,
)
from groundls.answer.text.hygiene import _any_path, _marker
from groundls.answer.text.sentences import has_content

#: A cited excerpt that shares less than this share of the sentence's words is weak ...
WEAK = 0.12


#: ... and another excerpt that shares at least this much (and twice as much) holds it instead.
STRONG = 0.35


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


_PARAGRAPH = re.compile(r"\n[ \t]*\n")


def cite_uncited_paragraphs(
    text: str, excerpts: Mapping[int, str], question: str = ""
) -> tuple[str, int]:
    """In an answer that cites something, a paragraph that cites nothing is cited at its end by
    its best source (:func:`best_source`), as a writer sources each paragraph: an uncited first
    paragraph otherwise rests on nothing and the answer's first citation is a later
    paragraph's. A code block, a line that announces what follows and a paragraph sharing less
    than ``WEAK`` of its words besides the question's with every excerpt stay as written.
    Returns the text and how many paragraphs gained a citation."""
    if not excerpts or not MARKER.search(text):
        return text, 0
    asked = stemmed_features(question)
    parts = _PARAGRAPH.split(text)
    seps = _PARAGRAPH.findall(text)
    fired, fenced = 0, False
    for i, part in enumerate(parts):
        inside, fences = fenced, part.count("```")
        fenced ^= fences % 2 == 1
        body = part.rstrip()
        if inside or fences or MARKER.search(part) or not has_content(body):
            continue
        if body.endswith((":", "：")) or body.lstrip().startswith("#"):
            continue
        n = best_source(body, excerpts)
        if n is None or overlap(body, excerpts[n], ignore=asked, empty=0.0) < WEAK:
            continue
        parts[i] = f"{body} [{n}]{part[len(body) :]}"
        fired += 1
    return "".join(p + s for p, s in zip(parts, [*seps, ""], strict=True)), fired


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
