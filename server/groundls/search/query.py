"""What a search query is: its script, whether it names a symbol, its identifiers and words."""

from __future__ import annotations

import re
from dataclasses import dataclass

from groundls.chunkers.textrules import STOPWORDS, is_cjk, question_language, split_identifier
from groundls.index.storage.terms import query_terms

_SYMBOL_QUERY = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*(?:\(\))?")
_TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
#: A word as prose writes it: letters, lower case, capitalised or an acronym (not ``ZodObject``).
_PLAIN = re.compile(r"[A-Za-z][a-z]+|[A-Z]+")
#: A name written in Latin letters (``OAuth2``, ``GPU``, ``macOS``, ``C++``).
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.+#-]*[A-Za-z0-9+#]")
#: Text the user quoted: an error message, a UI string, a phrase as the code writes it.
_QUOTED = re.compile(
    r"(?<!\w)'([^']+)'(?!\w)|(?<!\w)\"([^\"]+)\"(?!\w)|“([^”]+)”|‘([^’]+)’|「([^」]+)」|『([^』]+)』"
    r"|`([^`]+)`"
)


#: Characters of a query that are analysed at all: more than any list reads (an embedding
#: model reads 256-512 tokens of it, the keyword lists ``MAX_TERMS`` terms). Agents paste whole
#: files as queries; past this a query costs no more.
MAX_QUERY_CHARS = 8_000
#: Keyword terms of a query searched, the first ones it writes: a pasted file's thousands of
#: terms made one FTS5 query that matched every chunk.
MAX_TERMS = 64


@dataclass(frozen=True)
class Query:
    """A search query, analysed once for every ranking signal."""

    text: str
    #: "cjk" when the query has Japanese letters, else "latin"
    script: str
    #: the whole query is one bare or qualified identifier (``Request``, ``Context.invoke``)
    is_symbol: bool
    #: lower-cased names that may be defined somewhere (for the definition boost)
    identifiers: frozenset[str]
    #: the same names as written (an exact-case definition is the surest)
    names: frozenset[str]
    #: lower-cased content words, identifiers split (for file and directory names)
    words: frozenset[str]
    #: FTS5 keyword terms
    terms: tuple[str, ...]
    #: two adjacent words as one name, the way file names and identifiers join them
    #: (``real IP`` -> ``realip``, ``JSON element`` -> ``jsonelement``)
    compounds: tuple[str, ...] = ()
    #: the language the query is written in (``textrules.question_language``): a question in
    #: another language than English is searched by its meaning (the multilingual spaces, its
    #: English rewrite) as a Japanese one is
    language: str = "en"
    #: quoted text of several words, searched as an exact phrase (``'did you mean'``)
    phrases: tuple[str, ...] = ()
    #: each name as written: (name, its qualifier's parts, lower-cased), ``Router::route`` ->
    #: ``("route", ("router",))``, a bare name with ``()``: which ``route`` is meant
    written: frozenset[tuple[str, tuple[str, ...]]] = frozenset()

    def qualifiers(self, name: str) -> list[tuple[str, ...]]:
        """The qualifiers ``name`` is written with (``()`` when bare); empty when not named."""
        return [qualifier for written, qualifier in self.written if written == name]


def analyse(text: str) -> Query:
    """What ``text`` asks, read from its first ``MAX_QUERY_CHARS`` characters."""
    text = text.strip()[:MAX_QUERY_CHARS].strip()
    stripped = text.strip("`'\"")
    is_symbol = bool(_SYMBOL_QUERY.fullmatch(stripped)) and " " not in stripped
    identifiers: set[str] = set()
    names: set[str] = set()
    written: set[tuple[str, tuple[str, ...]]] = set()
    for token in _TOKEN.findall(text):
        parts = re.split(r"\.|::|#|->", token)
        looks_like_code = (
            is_symbol
            or len(parts) > 1
            or "_" in token
            or bool(re.search(r"[a-z][A-Z]", token))
            or bool(re.fullmatch(r"[A-Z][a-z]+[A-Z]\w*", token))
        )
        if looks_like_code:
            # a qualified name names its last part (``Rack::Response`` is a Response); the
            # qualifiers are where it lives, which the keyword lists already match
            names.add(parts[-1])
            names.add(token)
            written.add((parts[-1], tuple(p.lower() for p in parts[:-1])))
            identifiers.update(name.lower() for name in names)
    words = {
        part
        for word in _WORD.findall(text)
        for part in split_identifier(word)
        if len(part) > 2 and part not in STOPWORDS
    }
    return Query(
        text=text,
        script="cjk" if is_cjk(text) else "latin",
        is_symbol=is_symbol,
        identifiers=frozenset(identifiers),
        names=frozenset(names),
        words=frozenset(words),
        terms=tuple(query_terms(text)[:MAX_TERMS]),
        compounds=compounds(text)[:MAX_TERMS],
        phrases=quoted_phrases(text)[:MAX_TERMS],
        written=frozenset(written),
        language=question_language(text),
    )


def compounds(text: str) -> tuple[str, ...]:
    """Each two adjacent words of ``text`` joined, when both are plain words (letters only, not
    an identifier already) and neither is a stopword."""
    sequence = [w if _PLAIN.fullmatch(w) else "" for w in _WORD.findall(text)]
    joined = [
        (a + b).lower()
        for a, b in zip(sequence, sequence[1:], strict=False)
        if a and b and a.lower() not in STOPWORDS and b.lower() not in STOPWORDS
    ]
    return tuple(dict.fromkeys(joined))


def latin_names(text: str) -> list[str]:
    """The names a (Japanese) question writes in Latin letters, each once, sorted (the first
    ``MAX_TERMS`` it writes)."""
    names = dict.fromkeys(_LATIN_NAME.findall(text[:MAX_QUERY_CHARS]))
    return sorted(list(names)[:MAX_TERMS])


#: Names a question in Latin letters writes: an acronym (``YAML``, ``IDs`` as ``ID``), a word
#: with a capital inside (``PostgreSQL``), a dotted or joined name (``crates.io``,
#: ``from_pyfile``) or a quoted one (```evolve```).
_ACRONYM = re.compile(r"\b([A-Z][A-Z0-9+#]+)s?\b")
_INNER_CAPITAL = re.compile(r"\b[A-Za-z]*[a-z][A-Z]\w*")
_JOINED = re.compile(r"\b[A-Za-z]\w*[._][A-Za-z]\w+(?:[._]\w+)*")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
#: In English a capitalised word inside a sentence is a name (``Kubernetes``, ``Flatpak``); in
#: German every noun is capitalised, so other languages' capitals say nothing.
_CAPITALISED = re.compile(r"(?<=[\w,;:)] )[A-Z][a-z]\w*")


def question_names(text: str, language: str) -> list[str]:
    """The names a question writes, each once, sorted: of a Japanese (or Chinese, Korean)
    question every word in Latin letters (:func:`latin_names`); of one in Latin letters its
    acronyms, names with a capital inside, dotted, joined or quoted names, and in English its
    capitalised words inside a sentence. A name cannot be translated away: a workspace that
    writes none of a question's names does not document what it asks about."""
    if is_cjk(text):
        return latin_names(text)
    text = text[:MAX_QUERY_CHARS]
    found = [
        *_ACRONYM.findall(text),
        *_INNER_CAPITAL.findall(text),
        *_JOINED.findall(text),
        *(n.strip() for n in _BACKTICKED.findall(text)),
        *(_CAPITALISED.findall(text) if language == "en" else ()),
    ]
    return sorted(list(dict.fromkeys(n for n in found if len(n) > 1))[:MAX_TERMS])


def name_forms(name: str) -> list[str]:
    """The ways a text may write ``name``: joined, as asked, or apart (``macOS``, ``mac OS``)."""
    return list(dict.fromkeys([name, " ".join(split_identifier(name))]))


def quoted_phrases(text: str) -> tuple[str, ...]:
    """Quoted parts of a query that hold two words or more, or a Japanese phrase (one quoted word
    is searched as a word already; stopwords inside a phrase count, since the phrase is matched
    as written)."""
    found = []
    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g is not None).strip()
        if len(_WORD.findall(inner)) >= 2 or (len(inner) >= 3 and is_cjk(inner)):
            found.append(inner)
    return tuple(dict.fromkeys(found))
