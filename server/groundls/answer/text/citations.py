"""Citation checks for answers: parse [n], drop invalid ones, flag weak ones, repair JSON."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Set

from groundls.chunkers.textrules import (
    STOPWORDS,
    cjk_bigrams,
    cjk_runs,
    is_cjk,
    is_hiragana_only,
    split_identifier,
)

# [1], [1, 2], [1][2], full-width ［１］ and Japanese list commas.
MARKER = re.compile(r"[\[［]\s*([0-9０-９]{1,3}(?:\s*[,，、]\s*[0-9０-９]{1,3})*)\s*[\]］]")
_NUM = re.compile(r"[0-9０-９]{1,3}")
_TERMINATORS = ".!?。！？\n"
# "." ends a sentence only before whitespace ("config.toml" does not); Japanese stops always do.
_BOUNDARY = re.compile(r"[.!?](?=\s)|[。！？\n]")
_FULLWIDTH = str.maketrans("０１２３４５６７８９", "0123456789")


def marker_numbers(group: str) -> list[int]:
    return [int(m.translate(_FULLWIDTH)) for m in _NUM.findall(group)]


def cited_numbers(text: str) -> list[int]:
    """Excerpt numbers cited inline, in order of first appearance, without duplicates."""
    seen: list[int] = []
    for m in MARKER.finditer(text):
        for n in marker_numbers(m.group(1)):
            if n not in seen:
                seen.append(n)
    return seen


def drop_invalid_markers(text: str, valid: Collection[int]) -> tuple[str, list[int]]:
    """Remove citation numbers not in ``valid`` from the text; return it and the dropped numbers."""
    dropped: list[int] = []

    def fix(m: re.Match[str]) -> str:
        nums = marker_numbers(m.group(1))
        keep = [n for n in nums if n in valid]
        for n in nums:
            if n not in valid and n not in dropped:
                dropped.append(n)
        if not keep:
            return ""
        if keep == nums:
            return m.group(0)
        return "[" + ", ".join(str(n) for n in keep) + "]"

    fixed = MARKER.sub(fix, text)
    if dropped:
        fixed = re.sub(r"[ \t]+([.,。、!?])", r"\1", fixed)
        fixed = re.sub(r"[ \t]{2,}", " ", fixed)
    return fixed, dropped


def citing_sentences(text: str) -> dict[int, list[str]]:
    """For each cited number, the sentences (markers removed) that cite it.

    A marker belongs to the sentence before it; "foo. [1]" and "foo。[1]" cite "foo". A sentence
    that only points at its sources ("This is supported by [1].") cites the sentence before it.
    """
    out: dict[int, list[str]] = {}
    for m in MARKER.finditer(text):
        end = m.start()
        before = text[:end].rstrip()
        # skip other markers directly in front (e.g. "[1][2]")
        while True:
            prev = None
            for pm in MARKER.finditer(before):
                if pm.end() == len(before):
                    prev = pm
            if prev is None:
                break
            before = before[: prev.start()].rstrip()
        core = before.rstrip(_TERMINATORS + " \t")
        start = _sentence_start(core)
        sentence = MARKER.sub(" ", core[start:]).strip()
        if _only_points_at_sources(sentence):
            # "X does Y. This is supported by [1]." cites "X does Y"
            head = core[:start].rstrip(_TERMINATORS + " \t")
            sentence = MARKER.sub(" ", head[_sentence_start(head) :]).strip() or sentence
        for n in marker_numbers(m.group(1)):
            out.setdefault(n, [])
            if sentence and sentence not in out[n]:
                out[n].append(sentence)
    return out


def vouched_sentences(text: str) -> dict[int, list[str]]:
    """For each cited number, what its markers vouch for: the sentences that cite it (see
    :func:`citing_sentences`) and, before each marker, the uncited sentences of its paragraph
    since the previous marker ("Uploads retry. The level is info [1]." vouches for both: a
    citation at a paragraph's end is how a writer sources the paragraph)."""
    out = citing_sentences(text)
    since = 0
    for m in MARKER.finditer(text):
        paragraph = text.rfind("\n\n", 0, m.start())
        start = max(since, paragraph + 2 if paragraph >= 0 else 0)
        since = m.end()
        lead = text[start : m.start()]
        lead = lead[: _sentence_start(lead.rstrip(_TERMINATORS + " \t"))]
        sentences = [MARKER.sub(" ", p).strip(_TERMINATORS + " \t") for p in _sentences(lead)]
        for n in marker_numbers(m.group(1)):
            said = out.setdefault(n, [])
            said.extend(x for x in sentences if x and x not in said)
    return out


def _sentences(text: str) -> list[str]:
    """``text`` cut after each sentence boundary (the last piece may have none)."""
    pieces: list[str] = []
    start = 0
    for b in _BOUNDARY.finditer(text):
        pieces.append(text[start : b.end()])
        start = b.end()
    if text[start:].strip():
        pieces.append(text[start:])
    return pieces


def _sentence_start(text: str) -> int:
    """Where the last sentence of ``text`` begins."""
    start = 0
    for b in _BOUNDARY.finditer(text):
        start = b.end()
    return start


#: Words of a sentence that only points at its sources ("This is supported by [1] and [2].",
#: "See [1] for details.", 「詳しくは [1] を参照してください。」); stopwords are left out by
#: :func:`features` already.
_POINTING = re.compile(
    r"\b(?:see|supports?|supported|according|sources?|excerpts?|shown|described|mentioned|"
    r"stated|explained|documented|refers?|references?|cited?|cites|based|details?|information|"
    r"found|given|provided|been)\b|詳しくは|詳細は|参照|抜粋|根拠|記載|説明|出典",
    re.IGNORECASE,
)


def _only_points_at_sources(sentence: str) -> bool:
    """Whether the sentence says nothing but where its facts come from."""
    return bool(sentence) and not features(_POINTING.sub(" ", sentence))


# --- overlap (works for English words and Japanese characters) ---------------------------------

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|[0-9]+(?:\.[0-9]+)*")
#: Words that are too general to show that an excerpt supports a sentence.
_GENERAL = STOPWORDS | frozenset(
    ["all", "more", "most", "no", "not", "only", "other", "set", "sets"]
)


def features(text: str) -> set[str]:
    """Lower-cased word parts (camelCase/snake_case split) plus CJK character bigrams."""
    feats: set[str] = set()
    for word in _WORD.findall(text):
        for part in (word.lower(), *split_identifier(word)):
            if len(part) >= 3 and part not in _GENERAL:
                feats.add(part)
    for run in cjk_runs(text):
        feats.update(g for g in cjk_bigrams(run) if not is_hiragana_only(g))
    return feats


def stem(word: str) -> str:
    """A crude stem that makes ``strip``/``stripping``/``stripped``, ``color``/``colors`` and
    ``upload``/``uploads`` one word: the first five letters of longer words."""
    return word[:5] if len(word) > 5 else word


def stemmed_features(text: str) -> set[str]:
    """:func:`features` with the English words stemmed (Japanese bigrams as they are)."""
    return {stem(f) if f.isascii() else f for f in features(text)}


def overlap(
    sentence: str, excerpt: str, *, ignore: Set[str] = frozenset(), empty: float = 1.0
) -> float:
    """Share of the sentence's features that also occur in the excerpt (0..1), counting only
    features the excerpt's script could hold: a Japanese sentence about English code is judged
    by the names and words it shares with the code, not diluted by its Japanese bigrams.
    ``ignore``: features left out (the question's own words); ``empty``: the share when no
    feature is left to check (by default 1.0: "See [1]." is no evidence of a bad citation)."""
    s = stemmed_features(sentence) - ignore
    if not cjk_runs(excerpt):
        s = {f for f in s if not is_cjk(f)}
    if not s:
        return empty
    e = stemmed_features(excerpt)
    return len(s & e) / len(s)


WEAK_OVERLAP = 0.12


def is_weak(sentences: Iterable[str], excerpt: str, threshold: float = WEAK_OVERLAP) -> bool:
    """True when no sentence citing the excerpt shares more than ``threshold`` of its content."""
    scores = [overlap(s, excerpt) for s in sentences]
    if not scores:
        return False
    return max(scores) < threshold


# --- model output --------------------------------------------------------------------------------

_NOT_FOUND = re.compile(
    r"(does not say|doesn't say|(do|does|did)(n't| not) (\w+ly )?(contain|mention|say|include|"
    r"provide|state|describe|specify|cover|address|explain)|no (information|mention|details?)|"
    r"(is|are|was|were)(n't| not) (\w+ly )?(found|mentioned|specified|covered|available|stated|"
    r"described|provided|given|defined|documented|discussed|addressed|explained|included)|"
    r"cannot (find|answer|be answered|be determined)|can't (find|answer|be determined)|"
    r"unable to (find|answer|determine)|there is no information|記載がありません|記載はありません|"
    r"記載されていません|見つかりません|情報がありません|含まれていません|書かれていません|"
    r"わかりません|分かりません)",
    re.IGNORECASE,
)


def says_not_found(text: str) -> bool:
    """Heuristic: a short reply whose wording says the excerpts do not answer the question."""
    return bool(_NOT_FOUND.search(text)) and len(text) < 400
