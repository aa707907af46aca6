"""Quote first: the model picks, by number, the lines of its excerpts that answer the question;
the answer shows them verbatim, each cited.

A small model writes poorly but points well: asked to write, the packaged 1.5B model stated the
facts of the excerpts it read in half of its answers, and some of the rest said something false
while citing the right section. Asked to point, it can only be wrong about *which* line answers,
never about what the line says. Each excerpt is split into units (a prose sentence, a list item,
a table row, a line of code), the units are numbered across the excerpts, and the model's reply
is constrained by a grammar to a JSON array of those numbers (empty: none answers).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from groundls.answer.model.runtime import GenerationStats
from groundls.answer.stages.prompt import Excerpt, Prompt, excerpt_header
from groundls.answer.text.citations import MARKER
from groundls.answer.text.sentences import ANNOUNCES, LIST_HEAD, sentence_units
from groundls.chunkers.textrules import CJK_TEXT

#: The most lines a reply may pick: an answer is a few lines, not a section.
MAX_PICKS = 4
#: Tokens the picks may take: an array of at most ``MAX_PICKS`` two- or three-digit numbers.
PICK_TOKENS = 24
#: A unit with fewer letters or digits than this says nothing on its own (``}``, ``…``, ``end``).
MIN_UNIT_CHARS = 4

_TABLE_ROW = re.compile(r"^\s*\|")
_HEADING = re.compile(r"^#{1,6}\s")
_WIDE = re.compile(f"[{CJK_TEXT}]")
_SPACES = re.compile(r"[ \t]{2,}")
#: The units a pick that announces a list brings with it, at most.
FOLLOWING = 6
_LETTERS = re.compile(r"[^\W_]", re.UNICODE)


@dataclass(frozen=True)
class Unit:
    """One line of an excerpt the model may pick: its number (from 1, across the excerpts), the
    excerpt it belongs to, its text, whether it is code, and whether it is a list item or table
    row (what a sentence ending in a colon announces)."""

    number: int
    excerpt: int
    text: str
    code: bool
    item: bool = False


def units_of(excerpts: Sequence[Excerpt]) -> list[Unit]:
    """The excerpts' units in order: a line of code, a table row or list item whole, a prose
    paragraph (its lines joined, as a wrapped manual writes them) split into its sentences;
    headings, the "…" between an excerpt's focused parts and lines that say nothing on their
    own are left out."""
    units: list[Unit] = []
    for e in excerpts:
        code = e.hit.kind == "code"
        headings = {_plain(c) for c in (*e.hit.breadcrumb, e.hit.title) if c.strip()}
        for part, item in _parts(e.text, code):
            if not code:  # a footnote's [18] would read as a citation of an excerpt
                part = _SPACES.sub(" ", MARKER.sub("", part)).strip()
            if len(_LETTERS.findall(part)) < MIN_UNIT_CHARS:
                continue
            if not code and (_plain(part) in headings or _HEADING.match(part)):
                continue  # a heading names the section; the citation already does
            units.append(Unit(len(units) + 1, e.n, part, code, item))
    return units


def _plain(text: str) -> str:
    return " ".join(text.strip().strip("#¶ ").split()).casefold()


def _parts(text: str, code: bool) -> list[tuple[str, bool]]:
    """An excerpt's text as (unit, is an item): code line by line, table rows and list items
    whole, prose by sentence within its paragraphs."""
    if code:
        return [
            (line.rstrip(), False) for line in text.splitlines() if line.strip() not in ("", "…")
        ]
    out: list[tuple[str, bool]] = []
    for block, item in _paragraphs(text):
        if item:
            out.append((block, True))
        else:
            out += [(u.strip(), False) for u in sentence_units(block) if u.strip()]
    return out


def _paragraphs(text: str) -> list[tuple[str, bool]]:
    """Prose as its paragraphs, a wrapped line joined to the one before (with a space between
    Latin letters, none between Japanese ones); a list item or table row is a paragraph of its
    own, and a list item's wrapped lines join it."""
    out: list[tuple[str, bool]] = []
    open_ = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line == "…" or _HEADING.match(line):
            open_ = False
            if line:
                out.append((line, False))
            continue
        if _TABLE_ROW.match(line):
            out.append((line, True))
            open_ = False
        elif LIST_HEAD.match(line):
            out.append((line, True))
            open_ = True
        elif open_ and out:
            before, item = out[-1]
            glue = "" if _WIDE.match(before[-1:]) and _WIDE.match(line[:1]) else " "
            out[-1] = (before + glue + line, item)
        else:
            out.append((line, False))
            open_ = True
    return out


# --- the prompt ---------------------------------------------------------------------------------

_SYSTEM = {
    "en": (
        "You are groundls. Each question comes with numbered excerpts of the user's workspace, "
        "and every line of the excerpts has a number too.\n"
        "Reply with the numbers of the lines that state the answer to the question: at most "
        f"{MAX_PICKS}, the line that answers most directly first, as a JSON array, for example "
        "[12, 13].\nPick only lines that say what the question asks (the command, option, "
        "name, value or step), not lines that merely share its words. Reply [] when no line "
        "answers the question."
    ),
    "ja": (
        "あなたは groundls です。質問ごとに、ユーザーのワークスペースから番号付きの抜粋が与え"
        "られ、抜粋の各行にも番号が付いています。\n"
        f"質問の答えを述べている行の番号を、最も直接答えている行から順に最大 {MAX_PICKS} つ、"
        "JSON の配列で答えてください (例: [12, 13])。\n"
        "質問が尋ねていること (コマンド、オプション、名前、値、手順) を述べている行だけを選び、"
        "質問と同じ言葉を含むだけの行は選ばないでください。答えている行がなければ [] と答えて"
        "ください。"
    ),
}

_USER = {
    "en": {
        "excerpts": "Source excerpts:",
        "question": "Question:",
        "reminder": "The numbers of the lines that answer the question, as a JSON array "
        "([] if none does):",
    },
    "ja": {
        "excerpts": "抜粋:",
        "question": "質問:",
        "reminder": "質問に答えている行の番号 (JSON の配列、なければ []):",
    },
}


def render(excerpts: Sequence[Excerpt], units: Sequence[Unit]) -> str:
    """The excerpts as the model reads them to pick: each header, then its numbered units."""
    blocks = []
    for e in excerpts:
        lines = [excerpt_header(e.n, e.hit)]
        lines += [f"{u.number}| {u.text}" for u in units if u.excerpt == e.n]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


@dataclass(frozen=True)
class QuotePrompt(Prompt):
    """The answer's prompt when the model picks lines instead of writing (``style`` "quote"):
    the same question and excerpts, each excerpt's lines numbered. The choose step, the vote and
    the off-topic pool's votes read it as they read the written answer's prompt."""

    @property
    def system(self) -> str:  # type: ignore[override]
        return _SYSTEM["ja" if self.language == "ja" else "en"]

    def user(self, excerpts: Sequence[Excerpt] = (), chosen: int = 1) -> str:
        words = _USER["ja" if self.language == "ja" else "en"]
        context = render(excerpts, units_of(excerpts))
        return (
            f"{words['excerpts']}\n\n{context}\n\n{words['question']}\n{self.question.strip()}"
            f"\n\n{words['reminder']}"
        )


def pick_schema(count: int) -> dict[str, Any]:
    """The grammar of a reply: an array of at most ``MAX_PICKS`` of the ``count`` unit numbers."""
    return {
        "type": "array",
        "items": {"type": "integer", "enum": list(range(1, count + 1))},
        "maxItems": MAX_PICKS,
    }


def read_picks(reply: str, count: int) -> list[int]:
    """The unit numbers of a reply, each once, in its order (a reply cut short, or a server that
    ignored the grammar, still yields the numbers it holds)."""
    try:
        got = json.loads(reply)
        numbers = got if isinstance(got, list) else []
    except ValueError:
        numbers = [int(n) for n in re.findall(r"\d+", reply)]
    out: list[int] = []
    for n in numbers:
        if isinstance(n, int) and 1 <= n <= count and n not in out:
            out.append(n)
    return out[:MAX_PICKS]


def pick(
    model: Any,
    messages: list[dict[str, str]],
    units: Sequence[Unit],
    *,
    cancel: threading.Event | None = None,
    deadline: float | None = None,
    stats: GenerationStats | None = None,
) -> list[Unit]:
    """The units the model picks as the answer, most direct first; [] when none answers (or
    the model was stopped before it picked)."""
    if not units:
        return []
    reply = "".join(
        model.stream(
            messages,
            max_tokens=PICK_TOKENS,
            schema=pick_schema(len(units)),
            cancel=cancel,
            deadline=deadline,
            stats=stats,
            temperature=0.0,
        )
    )
    by_number = {u.number: u for u in units}
    return [by_number[n] for n in read_picks(reply, len(units))]


def with_what_follows(picks: Sequence[Unit], units: Sequence[Unit]) -> list[Unit]:
    """The picks, each that announces what follows it (it ends in a colon) with the list items
    after it in its excerpt, or the one sentence after it when no list follows (up to
    :data:`FOLLOWING`): "the rules are as follows:" alone states no rule."""
    out = list(picks)
    for pick in picks:
        if pick.code or not ANNOUNCES.search(pick.text):
            continue
        after = [u for u in units if u.excerpt == pick.excerpt and u.number > pick.number]
        items = list(itertools.takewhile(lambda u: u.item, after))[:FOLLOWING]
        out += [u for u in (items or after[:1]) if u not in out]
    return out


def in_reading_order(picks: Sequence[Unit]) -> list[list[Unit]]:
    """The picks as the answer shows them: grouped by excerpt (the excerpt of the first pick
    first), in each excerpt in the order its lines come, adjacent lines of one excerpt kept
    together."""
    order = list(dict.fromkeys(u.excerpt for u in picks))
    return [sorted((u for u in picks if u.excerpt == n), key=lambda u: u.number) for n in order]


def signatures(excerpts: Sequence[Excerpt]) -> dict[int, str]:
    """Each code excerpt's chunk's first line: the function or class its quoted lines are of."""
    return {
        e.n: next((ln.rstrip() for ln in e.hit.text.splitlines() if ln.strip()), "")
        for e in excerpts
        if e.hit.kind == "code"
    }


def quoted(
    groups: Sequence[Sequence[Unit]],
    units: Sequence[Unit] = (),
    signatures: dict[int, str] | None = None,
) -> str:
    """The picks verbatim, each excerpt's cited once at its end: prose as a paragraph, code as
    a fenced block that begins with its chunk's first line (``signatures`` by excerpt: the
    function or class the lines belong to, which the reader needs to know) and marks each gap
    with "…"."""
    signatures = signatures or {}
    blocks = []
    for group in groups:
        n = group[0].excerpt
        if group[0].code:
            first = next((u for u in units if u.excerpt == n), group[0])
            lines, last = [], first.number - 1
            for u in sorted({first, *group}, key=lambda u: u.number):
                if u.number > last + 1:
                    lines.append("    …")
                lines.append(u.text)
                last = u.number
            signature = signatures.get(n, "")
            if signature and signature.strip() != lines[0].strip():
                lines.insert(0, signature if lines[0].strip() == "…" else signature + "\n    …")
            body = "\n".join(lines)
            blocks.append(f"```\n{body}\n```\n[{n}]")
        else:
            blocks.append(" ".join(u.text for u in group) + f" [{n}]")
    return "\n\n".join(blocks)
