"""The links between a symbol and the places that name it, for the editor's own requests: the
definitions a name has, and a definition's callers, tests and doc passages (issue 70's links,
listed whole rather than as a hover's first few). Read from the symbol table and the keyword
index through the store's public reads, no model call; every list is capped and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from groundls.chunkers.reading import role_target
from groundls.index.storage.store import Store
from groundls.index.storage.terms import index_terms, match_expression
from groundls.results import Hit, SearchFilters
from groundls.search.related import mentioned_names
from groundls.search.usage import called_name, usage

#: Code chunks read for one symbol's callers and tests (the count says "at least" past it).
REFERENCE_CANDIDATES = 2000
#: Doc passages read for the ones that name a symbol.
DOC_CANDIDATES = 400
#: Code chunks and doc passages read for a code lens's counts (cheaper than references).
LENS_CANDIDATES = 200
#: Definitions of one name kept (an ambiguous name gives every candidate, up to this).
DEFINITIONS = 50

_CODE = SearchFilters(kinds=("code",))
_DOCS = SearchFilters(kinds=("doc",))
_PART = re.compile(r"[.:#/]+")


@dataclass(frozen=True)
class Places:
    """The places linked to one definition: each list whole up to its cap, with its count."""

    definition: Hit
    symbol: str
    #: the name the code calls it by (its type's for a constructor)
    name: str = ""
    callers: tuple[Hit, ...] = ()
    tests: tuple[Hit, ...] = ()
    docs: tuple[Hit, ...] = ()
    #: how many places call it (at least, when ``more``)
    called: int = 0
    #: whether more chunks name it than were read
    more: bool = False


class Links:
    """Definitions of names and the places linked to them, over one workspace's store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @staticmethod
    def name_path(text: str) -> tuple[str, ...]:
        """A name as written in a doc's code span, its parts (``~click.Context.invoke()`` ->
        ``("click", "Context", "invoke")``; ``:func:`run <cli.run>``` -> ``("cli", "run")``)."""
        text = role_target(text).strip().lstrip("~!").removesuffix("()")
        return tuple(p for p in _PART.split(text) if p)

    def symbol_of(self, hit: Hit) -> str:
        """The name ``hit`` (a stored chunk) defines, "" for none."""
        rowid = self.store.chunk_rowid(hit.chunk_id)
        return self.store.symbols_by_rowid([rowid]).get(rowid, "") if rowid is not None else ""

    def definitions(self, parts: tuple[str, ...], k: int = DEFINITIONS) -> list[Hit]:
        """The code that defines the last of ``parts``, spelled exactly so: where the
        qualifiers before it (``Context`` of ``Context.invoke``) match a definition's title,
        only those; else every definition of the name, biggest first."""
        if not parts or not parts[-1]:
            return []
        name = parts[-1]
        rows = [r for r, n in self.store.definitions([name], k, _CODE) if n == name]
        hits = self.store.hits_by_rowid(rows)
        found = [hits[r] for r in rows if r in hits]
        qualified = [h for h in found if _ends_with(h.title, parts)]
        return qualified or found

    def places(self, definition: Hit, limit: int) -> Places:
        """``definition``'s callers, tests and the doc passages that name it (``limit`` each)."""
        rowid = self.store.chunk_rowid(definition.chunk_id)
        symbol = self.symbol_of(definition)
        if rowid is None or not symbol:
            return Places(definition, symbol)
        used = usage(
            self.store, definition, rowid, symbol, candidates=REFERENCE_CANDIDATES, kept=limit
        )
        docs = self.docs_naming(definition, symbol, DOC_CANDIDATES)
        return Places(
            definition,
            symbol,
            called_name(definition, symbol) or symbol,
            used.callers,
            used.tests,
            tuple(docs[:limit]),
            used.called,
            used.more or len(docs) > limit,
        )

    def counts(self, definition: Hit) -> tuple[int, int, int, bool]:
        """(doc passages, tests, callers, whether there may be more) for a code lens."""
        rowid = self.store.chunk_rowid(definition.chunk_id)
        symbol = self.symbol_of(definition)
        if rowid is None or not symbol:
            return 0, 0, 0, False
        used = usage(
            self.store, definition, rowid, symbol, candidates=LENS_CANDIDATES, kept=LENS_CANDIDATES
        )
        docs = self.docs_naming(definition, symbol, LENS_CANDIDATES)
        return len(docs), len(used.tests), used.called, used.more

    def docs_naming(self, definition: Hit, symbol: str, candidates: int) -> list[Hit]:
        """The doc passages that name ``symbol`` as code (a span, a role, a call in an
        example), read from the first ``candidates`` passages holding the name."""
        name = called_name(definition, symbol) or symbol
        if len(name) < 2:
            return []
        # a name the workspace defines once is that definition's, even in a bare code span
        bare = [n for _, n in self.store.definitions([name], 3, _CODE)].count(name) == 1
        expression = match_expression([index_terms(name)])
        rows = [r for r, _ in self.store.keyword(expression, candidates, _DOCS)]
        hits = self.store.hits_by_rowid(rows)
        return [
            hits[r]
            for r in rows
            if r in hits and name in mentioned_names(hits[r].text, "", bare=bare, calls=True)
        ]


def _ends_with(title: str, parts: tuple[str, ...]) -> bool:
    """Whether a definition's dotted ``title`` ends with the last of ``parts`` and holds the
    others in order (``click.core.Context.invoke`` for ``click.Context.invoke``)."""
    mine = [p for p in _PART.split(title) if p]
    if not mine or mine[-1] != parts[-1]:
        return False
    rest = iter(mine[:-1])
    return all(any(p == q for q in rest) for p in parts[:-1])
