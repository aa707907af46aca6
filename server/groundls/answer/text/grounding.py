"""Two checks on a written answer that hold for any workspace, with no list of phrases:

* **Grounded specifics.** Identifiers, commands, option flags, paths, package names, numbers and
  quoted strings are what a reader copies and acts on, and what a small model invents. Each one
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
import re
import unicodedata
from collections.abc import Callable, Iterable

from groundls.answer.stages.prompt import Language, detect_language
from groundls.answer.text.citations import MARKER, stemmed_features
from groundls.chunkers.textrules import english_words, is_cjk, reads_chinese

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

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]*`", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")
_LIST_HEAD = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
#: A list item's number at the end of a sentence unit (the sentence split after its period).
_TRAILING_ITEM = re.compile(r"(?:^|(?<=[：:。！？.!?]))\s*\d{1,3}[.)]\s*$")

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
    """(the names, commands, flags, paths, packages and quoted strings, the numbers) a sentence
    states; citation markers and list numbering are not specifics."""
    text = _LIST_HEAD.sub("", MARKER.sub(" ", sentence))
    named: set[str] = set()
    for match in _BACKTICK.finditer(text):
        if not is_cjk(match.group(1)):  # Japanese prose between two code spans, not code
            named.add(match.group(1).strip())
    for match in _QUOTED.finditer(text):
        named.add(next(g for g in match.groups() if g).strip())
    bare = _BACKTICK.sub(" ", text)
    for pattern in (_FLAG, _PATH, _IDENTIFIER):
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


def _units(line: str) -> list[str]:
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


def drop_unsupported(answer: str, evidence: Evidence) -> tuple[str, list[str]]:
    """The answer without the sentences (and code blocks) that state a specific the evidence does
    not hold; returns it and the specifics that were missing."""
    out: list[str] = []
    missing: list[str] = []
    block: list[str] | None = None
    for line in answer.split("\n"):
        if _FENCE.match(line):
            if block is None:
                block = [line]
                continue
            block.append(line)
            body = "\n".join(block[1:-1])
            gone = [s for s in evidence.unsupported(body) if s not in ("```", "~~~")]
            if gone:
                missing += gone
            else:
                out += block
            block = None
            continue
        if block is not None:
            block.append(line)
            continue
        kept = []
        for unit in _units(line):
            gone = evidence.unsupported(unit)
            if gone:
                missing += gone
            else:
                kept.append(unit)
        text = "".join(kept).rstrip()
        if text or not line.strip():
            out.append(text)
    if block is not None:  # an unclosed block (a cut answer): judged as it is
        body = "\n".join(block[1:])
        if evidence.unsupported(body):
            missing += evidence.unsupported(body)
        else:
            out += block
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
    return text, missing


def has_content(answer: str) -> bool:
    """Whether anything but citation markers and punctuation is left."""
    return bool(re.search(r"\w", MARKER.sub("", answer)))


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


def _prose(text: str) -> str:
    """``text`` without its code (blocks and inline) and citation markers."""
    return MARKER.sub(" ", _CODE.sub(" ", text))


#: Common English words past which an answer to a German, French or Spanish question reads
#: English (a sentence of ten words has three or four).
ENGLISH_PLAINLY = 4


#: Common English words that make a line of an answer in another language a pasted English one
#: (a wrapped line of a paragraph has a handful; a list of names has none).
PASTED_ENGLISH = 3


def written_language(answer: str) -> Language:
    """The language of an answer's own sentences, its code and citation markers aside (a
    Japanese answer that quotes a command is still Japanese): "zh" when they read Chinese."""
    prose = _prose(answer)
    return "zh" if reads_chinese(prose) else detect_language(prose)


def written_in(answer: str, language: Language) -> bool:
    """Whether an answer reads as written in ``language``. German, French and Spanish are told
    from English by their common words, which a short answer full of names may not have: such
    an answer counts as written in them unless it reads English plainly."""
    written = written_language(answer)
    if written == language:
        return True
    if language in ("de", "fr", "es") and written == "en":
        return english_words(_prose(answer)) < ENGLISH_PLAINLY
    return False


#: A sentence whose subject is the prompt's own parts, not the workspace: an excerpt ("この抜粋は、
#: …を説明しています", "The excerpt describes …"), or this answer or question ("この回答は、…
#: 情報を提供しています"). The nouns are the ones the model's prompt uses (``prompt.py``).
_META_SUBJECT = re.compile(
    r"^[\s>*#-]*(?:\d+[.)]\s+)?(?:"
    r"(?:この|その|これらの|上記の?|以下の|各)?\s*抜粋\s*(?:\[[\d,\s]+\]\s*)?(?:は|では|には|が|も)"
    r"|(?:この|上記の?)\s*(?:回答|答え|質問)\s*(?:は|では|が)"
    r"|(?:this|the|these|each|above)\s+(?:(?:provided|given|source|above)\s+)?excerpts?\b"
    r"(?:\s*\[[\d,\s]+\])?\s+(?!(?:does|do)\s+not\b|doesn't\b|don't\b)[a-z]+"
    r"|this\s+(?:answer|question|response)\s+[a-z]+"
    r")",
    re.IGNORECASE,
)
#: ... unless it says the excerpts do not hold something (how a model says "not found").
_NEGATED = re.compile(r"ません|ない|\bnot\b|\bno\b|n't\b", re.IGNORECASE)


def talks_about_prompt(sentence: str) -> bool:
    """Whether ``sentence`` is about the excerpts or the answer rather than the workspace (see
    :data:`_META_SUBJECT`): meta-talk, which a reader cannot use."""
    text = MARKER.sub(" ", sentence).strip()
    return bool(_META_SUBJECT.match(text)) and not _NEGATED.search(text)


#: "The excerpt shows that …": the clause after "that" is the sentence's fact.
_META_THAT = re.compile(
    r"(?m)(?<![^\s>*-])(?:this|the|these)\s+(?:(?:provided|given|source|above)\s+)?excerpts?"
    r"(?:\s*\[[\d,\s]+\])?\s+(?:shows?|says?|states?|explains?|mentions?|notes?|indicates?)"
    r"\s+that\s+(?P<first>\w)",
    re.IGNORECASE,
)


def _all_meta_talk(answer: str) -> bool:
    units = [u for line in _CODE.sub(" ", answer).split("\n") for u in _units(line) if u.strip()]
    return bool(units) and all(talks_about_prompt(u) for u in units)


def drop_meta_talk(answer: str) -> tuple[str, int]:
    """The answer without its sentences about the excerpts or itself (:func:`talks_about_prompt`),
    and how many went; "The excerpt shows that uploads are retried" keeps its fact ("Uploads
    are retried"). An answer that would be left with nothing keeps them (it says nothing as a
    whole, see :func:`says_nothing`)."""
    answer, rewritten = _META_THAT.subn(lambda m: m.group("first").upper(), answer)
    kept, dropped = _drop_sentences(answer, talks_about_prompt)
    return kept, dropped + rewritten


def drop_pasted_english(answer: str, language: Language) -> tuple[str, int]:
    """An answer in another language than English without its lines that read plainly English
    (at least :data:`PASTED_ENGLISH` common English words, and as a whole English), and how
    many went: a small model pastes an English excerpt's paragraph after its own sentence.
    Code blocks and indented lines stay; the sentence that announced the dropped lines (ending
    in ":") goes with them. An answer that would be left with nothing keeps them all (it is not
    in the reader's language as a whole, see :func:`written_language`)."""
    if language == "en":
        return answer, 0
    out: list[str] = []
    dropped = 0
    in_block = False
    for line in answer.split("\n"):
        if _FENCE.match(line) or in_block:
            in_block = in_block != bool(_FENCE.match(line))
            out.append(line)
            continue
        prose = _prose(line)
        if (
            not line.startswith(("    ", "\t"))
            and english_words(prose) >= PASTED_ENGLISH
            and detect_language(prose) == "en"
        ):
            dropped += 1
            while out and not out[-1].strip():
                out.pop()
            if out and out[-1].rstrip().endswith((":", "：")):
                # the sentence that announced it goes too; the line's others stay
                out[-1] = "".join(_units(out[-1])[:-1]).rstrip()
                if not out[-1]:
                    out.pop()
            continue
        out.append(line)
    return _kept(answer, out, dropped)


def _kept(answer: str, lines: list[str], dropped: int) -> tuple[str, int]:
    """The answer as the ``lines`` kept of it, and how many pieces went; the answer whole when
    none went or what is left has nothing to say."""
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    if not dropped or not has_content(text):
        return answer, 0
    return text, dropped


def drop_chinese(answer: str) -> tuple[str, int]:
    """The answer without its sentences that read Chinese, and how many went. An answer that
    would be left with nothing keeps them all: it is not in the reader's language as a whole
    (see :func:`written_language`)."""
    return _drop_sentences(answer, lambda sentence: reads_chinese(_prose(sentence)))


def _drop_sentences(
    answer: str, goes: Callable[[str], bool], *, keep_announcing: bool = False
) -> tuple[str, int]:
    """The answer without the sentences ``goes`` picks (code blocks kept as they are), and how
    many went; an answer that would be left with nothing keeps them all. ``keep_announcing``:
    a line's last sentence before a list or a block stays, as it announces it."""
    out: list[str] = []
    dropped = 0
    in_block = False
    lines = answer.split("\n")
    for i, line in enumerate(lines):
        if _FENCE.match(line) or in_block:
            in_block = in_block != bool(_FENCE.match(line))
            out.append(line)
            continue
        units = _units(line)
        after = next((rest for rest in lines[i + 1 :] if rest.strip()), "")
        announces = keep_announcing and bool(_LIST_HEAD.match(after) or _FENCE.match(after))
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
