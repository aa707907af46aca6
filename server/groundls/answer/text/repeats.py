"""Answers that go round in circles: a token loop at the end, a block of lines or a sentence
written again."""

from __future__ import annotations

import re

from groundls.answer.text.citations import MARKER
from groundls.answer.text.sentences import _drop_sentences, fenced_lines, sentence_units
from groundls.chunkers.textrules import display_width

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
    """Where the model began writing a block of lines, or a sentence inside a line, a third
    time, or None (see :func:`drop_repeated_lines`, :func:`drop_repeated_sentences`): it is
    going round in circles, and everything it will write from there is a copy. A block written
    twice may be a slip the model goes on from."""
    third = next((block for block, copy in _repeated_blocks(text) if copy >= 3), None)
    line = None if third is None else _line_starts(text)[third[0]]
    return min((at for at in (line, _third_sentence(text)) if at is not None), default=None)


def _third_sentence(text: str) -> int | None:
    """Where a wide sentence (outside code fences) begins its third copy, if one does."""
    copies: dict[str, int] = {}
    at = 0
    lines = text.split("\n")
    for line, fenced in zip(lines, fenced_lines(lines), strict=True):
        offset = at
        for unit in [] if fenced else sentence_units(line):
            if words := _wide_sentence(unit):
                copies[words] = copies.get(words, 0) + 1
                if copies[words] == 3:
                    return offset + len(unit) - len(unit.lstrip())
            offset += len(unit)
        at += len(line) + 1
    return None


def _wide_sentence(unit: str) -> str:
    """A sentence's words (marks and citations aside) when ``REPEATED_LINE`` columns wide or
    more, else "": a shorter one may recur on purpose."""
    words = _line_words(MARKER.sub(" ", unit))
    return words if display_width(words) >= REPEATED_LINE else ""


def drop_repeated_sentences(text: str) -> tuple[str, int]:
    """The answer without the sentences it writes again inside its lines (``REPEATED_LINE``
    columns wide or more, outside code; the first copy stays), and how many went: a small
    model can go round two sentences on one line until its length runs out."""
    seen: set[str] = set()

    def again(unit: str) -> bool:
        words = _wide_sentence(unit)
        if not words or words not in seen:
            seen.add(words)
            return False
        return True

    return _drop_sentences(text, again)


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
