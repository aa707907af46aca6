"""What language an answer is written in, and the sentences that are not the answer: talk about the prompt or the excerpts, English pasted into another language, Chinese."""

from __future__ import annotations

import re

from groundls.answer.stages.prompt import Language, detect_language
from groundls.answer.text.citations import MARKER
from groundls.answer.text.sentences import (
    _CODE,
    _drop_sentences,
    _kept,
    fenced_lines,
    sentence_units,
)
from groundls.chunkers.textrules import english_words, reads_chinese


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


#: ... unless it says the excerpts do not hold something (how a model says "not found"). A
#: Japanese sentence says so in its predicate, at its end: a negation inside it may be the
#: question's own words (「書き漏れがないか確かめたいという質問に対して、…提供しています。」).
_NEGATED = re.compile(
    r"(?:ません|ない|なかった)[^。、，,]{0,8}?\s*(?:\[[\d,\s]+\])?\s*[。.!！]?\s*$"
    r"|\bnot\b|\bno\b|n't\b",
    re.IGNORECASE,
)


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
    units = [
        u for line in _CODE.sub(" ", answer).split("\n") for u in sentence_units(line) if u.strip()
    ]
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
    lines = answer.split("\n")
    for line, fenced in zip(lines, fenced_lines(lines), strict=True):
        if fenced:
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
                out[-1] = "".join(sentence_units(out[-1])[:-1]).rstrip()
                if not out[-1]:
                    out.pop()
            continue
        out.append(line)
    return _kept(answer, out, dropped)


def drop_chinese(answer: str) -> tuple[str, int]:
    """The answer without its sentences that read Chinese, and how many went. An answer that
    would be left with nothing keeps them all: it is not in the reader's language as a whole
    (see :func:`written_language`)."""
    return _drop_sentences(answer, lambda sentence: reads_chinese(_prose(sentence)))
