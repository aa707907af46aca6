"""Two checks on a written answer that hold for any workspace, with no list of phrases:

* **Grounded specifics.** Identifiers, commands, option flags, paths, package names, acronyms,
  numbers and quoted strings are what a reader copies and acts on, and what a small model
  invents (a licence "DFSL" no excerpt names). Each one
  an answer states must occur in the excerpts it was given (or in the question). A sentence that
  rests on one that does not is dropped (:func:`drop_unsupported`); an answer left with nothing
  becomes "not found".
* **Something to say.** An answer whose content is only the question's own words, or only talk
  about the excerpts, brings nothing from them: no content term (word, name, number) that comes
  from the excerpts and not from the question (:func:`says_nothing`). Within an answer, a
  sentence that only repeats the model's instructions ("この回答は、抜粋に書かれている事実だけを
  使って…") is dropped (:func:`drop_instruction_echoes`).
* **The reader's language.** An answer's language is that of its own sentences, its code and
  citation markers aside (:func:`written_language`): a Japanese sentence before English paragraphs
  pasted from the excerpts is an English answer. A sentence in Chinese (a small model's slip
  when asked in Japanese) is in neither reader's language: it is dropped
  (:func:`drop_chinese`), and an answer written wholly in it is not the reader's. English
  lines pasted into an answer in another language go (:func:`drop_pasted_english`).
* **About the workspace, not the prompt.** A sentence whose subject is an excerpt or the answer
  itself ("この抜粋は、…を説明しています") is meta-talk a reader cannot use: it is dropped
  (:func:`drop_meta_talk`).

Also the evidence a reader can check at a glance: the lines of a cited excerpt that share a cited
sentence's content (:func:`support_lines`).
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable

from groundls.answer.text.citations import MARKER, stemmed_features
from groundls.answer.text.language_checks import _all_meta_talk
from groundls.answer.text.sentences import (
    _FENCE,
    LIST_HEAD,
    _drop_sentences,
    code_blocks,
    sentence_units,
)
from groundls.chunkers.textrules import is_cjk

#: Content terms (words, names, numbers) an answer must take from the excerpts beyond the
#: question's to say something. One: across languages (an English answer over a Japanese guide,
#: a Japanese one over English code) a fact may share only its number or name with the excerpt
#: ("kept for 7 days", 「`get_app_dir` が決めます」); one that shares none restates the question.
MIN_NEW_TERMS = 1
#: ... and an answer in another language than the excerpts' and the rewrite's (a German answer
#: over English docs) shares no word with them at all when it names nothing: it must say at
#: least this many things the question did not.
MIN_TRANSLATED_TERMS = 3
#: A sentence repeats the model's instructions when at least this share of its content terms
#: beyond the question's are the instructions' (and none is the excerpts' own) ...
ECHO_SHARE = 0.5
#: ... and it has at least this many such terms (a two-word line is judged as a whole answer).
MIN_ECHO_TERMS = 3
#: Supporting lines shown per citation, at most.
SUPPORT_LINES = 3


_BACKTICK = re.compile(r"`([^`\n]+)`")
_QUOTED = re.compile(r'"([^"\n]{2,80})"|“([^”\n]{2,80})”|「([^」\n]{1,80})」')
# ASCII word characters only: Japanese text written right after a name (``conf.pyで``) is not
# part of it
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*", re.ASCII)
_PATH = re.compile(
    r"(?<![\w/.])(?:~|\.{1,2})?/?[\w.-]+(?:/[\w.-]+)+/?"
    r"|(?<![\w.])[\w-]+\.(?:py|js|ts|tsx|json|ya?ml|toml|md|rst|txt|cfg|ini|sh|conf|html|go|rs|"
    r"java|rb|php|c|h|cpp|cs|xml|lock|env)\b",
    re.ASCII,
)
_IDENTIFIER = re.compile(
    r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b"  # snake_case
    r"|\b[a-z]+[A-Z][A-Za-z0-9]*\b"  # camelCase
    r"|\b[A-Za-z_]\w*\(\)"  # call()
    r"|\b[A-Za-z_]\w{1,}(?:\.[A-Za-z_]\w{1,})+\b",  # dotted.name (not "e.g")
    re.ASCII,
)
_PACKAGE = re.compile(
    r"\b(?:pip3?|apt(?:-get)?|npm|yarn|pnpm|cargo|gem|brew|go)\s+(?:install|add|get)\s+([\w.@/=<>~-]+)",
    re.ASCII,
)
#: An acronym (``GPL``, ``UEFI``): written the same in an English answer and a Japanese manual.
_ACRONYM = re.compile(r"(?<![\w./-])[A-Z][A-Z0-9]+(?![\w])", re.ASCII)
_NAME_PART = re.compile(r"[a-z_][a-z0-9_]*")
_DOTTED = re.compile(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+")
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?![A-Za-z0-9_.])")

_KANJI_DIGITS = {
    "〇": 0,
    "一": 1,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_WORD_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "once": 1, "twice": 2,
}  # fmt: skip
_WORD_NUMBER = re.compile(r"\b(" + "|".join(_WORD_NUMBERS) + r")\b", re.IGNORECASE)
_KANJI_NUMBER = re.compile("[〇一二三四五六七八九十百]+")


def _kanji_value(text: str) -> int | None:
    """A kanji numeral up to the hundreds (七, 十五, 二十, 百二十三) as an int."""
    total, digit = 0, None
    for char in text:
        if char in _KANJI_DIGITS:
            digit = _KANJI_DIGITS[char]
        elif char in "十百":
            total += (digit if digit is not None else 1) * (10 if char == "十" else 100)
            digit = None
        else:
            return None
    return total + (digit or 0)


def numbers_in(text: str) -> set[str]:
    """Every number ``text`` states, as digits (also spelt out: "five", 七日, 十五; full-width
    ７ as 7)."""
    text = unicodedata.normalize("NFKC", text)
    found = {m.group(0) for m in _NUMBER.finditer(text)}
    found |= {str(_WORD_NUMBERS[m.group(1).lower()]) for m in _WORD_NUMBER.finditer(text)}
    for match in _KANJI_NUMBER.finditer(text):
        value = _kanji_value(match.group(0))
        if value is not None:
            found.add(str(value))
    return found


def specifics(sentence: str) -> tuple[set[str], set[str]]:
    """(the names, commands, flags, paths, packages, acronyms and quoted strings, the numbers) a
    sentence states; citation markers and list numbering are not specifics."""
    text = LIST_HEAD.sub("", MARKER.sub(" ", sentence))
    named: set[str] = set()
    for match in _BACKTICK.finditer(text):
        if not is_cjk(match.group(1)):  # Japanese prose between two code spans, not code
            named.add(match.group(1).strip())
    for match in _QUOTED.finditer(text):
        named.add(next(g for g in match.groups() if g).strip())
    bare = _BACKTICK.sub(" ", text)
    for pattern in (_FLAG, _PATH, _IDENTIFIER, _ACRONYM):
        named |= {m.group(0) for m in pattern.finditer(bare)}
    named |= {m.group(1) for m in _PACKAGE.finditer(text)}
    numbers = {n for n in numbers_in(bare) if n not in ("0", "1")}
    return {n.strip(" .,:;") for n in named if n.strip(" .,:;")}, numbers


def _normal(text: str) -> str:
    """Text compared as a reader reads it: one width (NFKC: ｐｉｐ and （） as pip and ()), one
    case, one space."""
    text = unicodedata.normalize("NFKC", text)
    return re.sub(r"\s+", " ", text.lower()).replace("()", "")


class Evidence:
    """What an answer may state: the excerpts (texts and labels) and the question."""

    def __init__(self, texts: Iterable[str]) -> None:
        joined = "\n".join(texts)
        self._text = _normal(joined)
        self._numbers = numbers_in(joined)
        self._names = set(_NAME_PART.findall(self._text))

    def holds(self, name: str) -> bool:
        """Whether the evidence states ``name``; a dotted name also when it states each of its
        parts (``click.testing.CliRunner`` over ``src/click/testing.py`` and ``class
        CliRunner``: a name qualified by its module, not an invented one)."""
        normal = _normal(name)
        if normal in self._text:
            return True
        parts = normal.split(".")
        return (
            len(parts) > 1
            and _DOTTED.fullmatch(normal) is not None
            and all(part in self._names for part in parts)
        )

    def unsupported(self, sentence: str) -> list[str]:
        named, numbers = specifics(sentence)
        missing = [n for n in sorted(named) if not self.holds(n)]
        return missing + sorted(numbers - self._numbers)


def drop_unsupported(answer: str, evidence: Evidence) -> tuple[str, list[str]]:
    """The answer without the sentences (and code blocks) that state a specific the evidence does
    not hold; returns it and the specifics that were missing."""
    out: list[str] = []
    missing: list[str] = []
    lines = answer.split("\n")
    numbered = zip(lines, code_blocks(lines), strict=True)
    for block, run in itertools.groupby(numbered, key=lambda line_block: line_block[1]):
        group = [line for line, _ in run]
        if block >= 0:  # a code block is judged whole: its lines between the fences
            closed = len(group) > 1 and bool(_FENCE.match(group[-1]))
            body = "\n".join(group[1:-1] if closed else group[1:])
            gone = [s for s in evidence.unsupported(body) if s not in ("```", "~~~")]
            if gone:
                missing += gone
            else:
                out += group
            continue
        for line in group:
            kept = []
            for unit in sentence_units(line):
                gone = evidence.unsupported(unit)
                if gone:
                    missing += gone
                else:
                    kept.append(unit)
            text = "".join(kept).rstrip()
            if text or not line.strip():
                out.append(text)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
    return text, missing


def says_nothing(
    answer: str,
    question: Iterable[str],
    excerpts: Iterable[str],
    paths: Iterable[str] = (),
    *,
    translated: bool = False,
) -> bool:
    """The answer's content is the question's own, or talk about the excerpts: fewer than
    :data:`MIN_NEW_TERMS` of its content terms come from the excerpts and not the question.
    The excerpts' ``paths`` (and their file names) say where, not what: "X is done in
    src/a.py [1]" restates the question beside a file name. ``translated``: an answer in a
    language the excerpts are not written in (German over English docs), whose facts are in
    other words than the excerpts': fewer than :data:`MIN_TRANSLATED_TERMS` terms beyond the
    question's is a restatement. An answer whose every sentence is about the excerpts or
    itself (:func:`talks_about_prompt`) says nothing of the workspace either."""
    if _all_meta_talk(answer):
        return True
    places = {place for path in paths for place in (path, path.rsplit("/", 1)[-1])}
    for place in sorted(places, key=len, reverse=True):  # a whole path before its file name
        answer = answer.replace(place, " ")

    def terms(text: str) -> set[str]:
        # a name counts whole as well: ``retry_upload`` answers "where do we retry uploads?"
        names = {m.group(0).lower() for m in _IDENTIFIER.finditer(text)}
        return stemmed_features(text) | numbers_in(text) | names

    said = terms(MARKER.sub(" ", answer))
    asked: set[str] = set()
    for text in question:
        asked |= terms(text)
    shown: set[str] = set()
    for text in excerpts:
        shown |= terms(text)
    if translated and not (said - asked) & shown:
        return len(said - asked) < MIN_TRANSLATED_TERMS
    return len((said - asked) & shown) < MIN_NEW_TERMS


def drop_instruction_echoes(
    answer: str, question: str, excerpts: Iterable[str], instructions: str
) -> tuple[str, int]:
    """The answer without its sentences that repeat the model's instructions ("この回答は、抜粋に
    書かれている事実だけを使って…", "The excerpt that supports this answer is [2]."), and how many
    went: a sentence whose content terms beyond the question's are mostly (at least
    :data:`ECHO_SHARE`) the instructions' and none is the excerpts' own. An answer that would be
    left with nothing keeps them (it says nothing as a whole, see :func:`says_nothing`)."""
    told = _instruction_terms(instructions)
    asked = stemmed_features(question)
    shown: set[str] = set()
    for text in excerpts:
        shown |= stemmed_features(text)

    def echoes(sentence: str) -> bool:
        if sentence.rstrip().endswith((":", "：")):
            return False  # it announces what follows
        said = stemmed_features(MARKER.sub(" ", sentence)) - asked
        if len(said) < MIN_ECHO_TERMS or (said & shown) - told:
            return False
        return len(said & told) >= ECHO_SHARE * len(said)

    return _drop_sentences(answer, echoes, keep_announcing=True)


@functools.lru_cache(maxsize=8)
def _instruction_terms(instructions: str) -> frozenset[str]:
    """The content terms of the model's instructions (a few fixed texts, stemmed once each)."""
    return frozenset(stemmed_features(instructions))


def support_lines(sentences: Iterable[str], text: str, start_line: int) -> list[tuple[int, str]]:
    """The lines of an excerpt (its first line is ``start_line``) that share the most content with
    what cites it, best first, at most :data:`SUPPORT_LINES` (each shares at least one term)."""
    wanted: set[str] = set()
    for sentence in sentences:
        wanted |= stemmed_features(MARKER.sub(" ", sentence))
    scored = []
    for i, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        shared = len(stemmed_features(line) & wanted)
        if shared:
            scored.append((-shared, i, line.strip()))
    scored.sort()
    best = sorted(scored[:SUPPORT_LINES], key=lambda s: s[1])
    return [(start_line + i, line[:240]) for _, i, line in best]
