"""An answer as its lines and sentences: the one way the text checks split it, and drop the sentences they pick (code blocks kept as they are)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from groundls.answer.text.citations import MARKER

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def code_blocks(lines: Sequence[str]) -> list[int]:
    """For each line, the number of the fenced code block it belongs to (its fence lines
    included), or -1 outside code: the one reading of fences every text check shares. A block
    opens at a line of three or more backticks or tildes and closes at the next fence of the same
    character at least as long (as CommonMark reads them), so a ``~~~`` inside a ``` block is
    code; a block left open (a cut answer) runs to the end."""
    out: list[int] = []
    number, opened = -1, ""
    for line in lines:
        fence = _FENCE.match(line)
        if opened:
            out.append(number)
            if fence and fence.group(1)[0] == opened[0] and len(fence.group(1)) >= len(opened):
                opened = ""
        elif fence:
            number, opened = number + 1, fence.group(1)
            out.append(number)
        else:
            out.append(-1)
    return out


def fenced_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (see :func:`code_blocks`)."""
    return [block >= 0 for block in code_blocks(lines)]


_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]*`", re.DOTALL)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")


#: A list item's head: a bullet or a number and a space.
LIST_HEAD = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
#: A line or sentence that ends so announces what follows it ("as follows:", 「以下のとおりです:」).
ANNOUNCES = re.compile(r"[:：]\s*$")


#: A list item's number at the end of a sentence unit (the sentence split after its period).
_TRAILING_ITEM = re.compile(r"(?:^|(?<=[：:。！？.!?]))\s*\d{1,3}[.)]\s*$")


def sentence_units(line: str) -> list[str]:
    """A line as its sentences, each with the spacing that followed it (they join back as is).
    A list item's number (``2. ``, ``3) ``) goes with the sentence after it, so a dropped item
    leaves no bare number behind."""
    parts: list[str] = []
    last = 0
    for match in _SENTENCE_END.finditer(line):
        parts.append(line[last : match.end()])
        last = match.end()
    if last < len(line):
        parts.append(line[last:])
    units: list[str] = []
    carried = ""
    for part in parts:
        part = carried + part
        carried = ""
        marker = _TRAILING_ITEM.search(part)
        if marker is not None and marker.end() == len(part):
            part, carried = part[: marker.start()], marker.group(0)
        if part:
            units.append(part)
    if carried:
        units.append(carried)
    return units


def has_content(answer: str) -> bool:
    """Whether anything but citation markers and punctuation is left."""
    return bool(re.search(r"\w", MARKER.sub("", answer)))


def _kept(answer: str, lines: list[str], dropped: int) -> tuple[str, int]:
    """The answer as the ``lines`` kept of it, and how many pieces went; the answer whole when
    none went or what is left has nothing to say."""
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not dropped or not has_content(text):
        return answer, 0
    return text, dropped


def _drop_sentences(
    answer: str, goes: Callable[[str], bool], *, keep_announcing: bool = False
) -> tuple[str, int]:
    """The answer without the sentences ``goes`` picks (code blocks kept as they are), and how
    many went; an answer that would be left with nothing keeps them all. ``keep_announcing``:
    a line's last sentence before a list or a block stays, as it announces it."""
    out: list[str] = []
    dropped = 0
    lines = answer.split("\n")
    for i, (line, fenced) in enumerate(zip(lines, fenced_lines(lines), strict=True)):
        if fenced:
            out.append(line)
            continue
        units = sentence_units(line)
        after = next((rest for rest in lines[i + 1 :] if rest.strip()), "")
        announces = keep_announcing and bool(LIST_HEAD.match(after) or _FENCE.match(after))
        kept = [
            unit
            for n, unit in enumerate(units)
            if (announces and n == len(units) - 1) or not goes(unit)
        ]
        dropped += len(units) - len(kept)
        text = "".join(kept).rstrip()
        if text or not line.strip():
            out.append(text)
    return _kept(answer, out, dropped)
