"""What the cursor names, and the places linked to it as editor locations: shared by
references, definitions, the code lenses' "show" and the code action "Show related".

The cursor names a symbol by the identifier it is on in code, or by the code span or role it
is in on a doc page (```Context.invoke```, :meth:`~click.Context.invoke`, ``<code>``). Every
place is a location at its range: a caller at its call, a test where it calls or names the
symbol, a doc passage where it names it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from groundls.lsp import positions
from groundls.lsp.folders import Folder
from groundls.results import Hit
from groundls.workspace import Links

#: Definitions of one name whose places are listed (an ambiguous name's every candidate).
DEFINITIONS = 10
#: The suffixes of doc pages, where the cursor names a symbol by a code span or a role.
DOC_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".rst", ".txt", ".html", ".htm"})


@dataclass
class Named:
    """The definitions the cursor names, in one folder."""

    folder: Folder
    parts: tuple[str, ...]
    definitions: list[Hit]
    #: whether the cursor is on one of the definitions itself
    on_definition: bool = False


@dataclass
class Listed:
    """Places as locations, capped: ``total`` is how many there are (at least, when ``more``)."""

    locations: list[types.Location] = field(default_factory=list)
    total: int = 0
    more: bool = False
    name: str = ""


@functools.lru_cache(maxsize=512)
def word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")


@functools.lru_cache(maxsize=512)
def call(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?=(?:::)?(?:<[^<>()\n]{{0,80}}>)?!?\s*\()")


@functools.lru_cache(maxsize=512)
def declared(name: str) -> re.Pattern[str]:
    """``name`` after a definition's keyword (``def``, ``class``, ``func (c *Cart)``, ...)."""
    keyword = r"\b(?:def|class|func|fn|function|struct|interface|type|enum|trait|module)"
    return re.compile(rf"{keyword}\s+(?:\([^)]{{0,80}}\)\s*)?({re.escape(name)})(?![\w$])")


_COMMENT = re.compile(r"\s*(?://|#|/\*|\*|--|\"\"\"|\'\'\')")


def is_doc(rel: str) -> bool:
    return Path(rel).suffix.lower() in DOC_SUFFIXES


def named_at(ls: Any, uri: str, position: types.Position) -> Named | None:
    """The symbol at ``position`` of ``uri`` and its definitions; None when the URI is outside
    the workspace, the position outside the file or on no name."""
    located = ls.folders.for_uri(uri)
    if located is None or located[0].workspace is None or not located[1]:
        return None
    folder, rel = located
    workspace = folder.workspace
    assert workspace is not None
    lines = positions.lines_of(ls, folder, rel, uri)
    at = positions.line_at(lines, position, positions.encoding_of(ls))
    if at is None:
        return None
    line, index = at
    span = positions.span_at(line, index) if is_doc(rel) else None
    parts = Links.name_path(span) if span else ()
    if not parts:
        name = positions.name_at(line, index)
        parts = (name,) if name else ()
    if not parts:
        return None
    links = Links(workspace.store)
    here = workspace.chunk_at(rel, position.line + 1)
    if (
        here is not None
        and here.kind == "code"
        and links.symbol_of(here) == parts[-1]
        and _declares(lines, here, position.line, parts[-1])
    ):
        return Named(folder, parts, [here], on_definition=True)
    return Named(folder, parts, links.definitions(parts, DEFINITIONS))


def _declares(lines: list[str] | None, hit: Hit, line0: int, name: str) -> bool:
    """Whether line ``line0`` is where ``hit`` declares ``name`` (its first line naming it)."""
    if lines is None:
        return False
    first = next(positions.matches_in(lines, hit, word(name)), None)
    return first is not None and first[0] == line0


class Reader:
    """Files' lines for one request, each read once."""

    def __init__(self, ls: Any, folder: Folder) -> None:
        self.ls, self.folder = ls, folder
        self.encoding = positions.encoding_of(ls)
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, rel: str) -> list[str] | None:
        if rel not in self._lines:
            uri = self.folder.uri_for(rel)
            self._lines[rel] = positions.lines_of(self.ls, self.folder, rel, uri)
        return self._lines[rel]

    def declaration(self, hit: Hit, name: str) -> types.Location:
        """Where ``hit`` declares ``name``: after its keyword, else on the first line that
        names it outside a comment, else its first line."""
        lines = self.lines(hit.path) or []
        candidates = [(declared(name), 1), (word(name), 0)]
        for pattern, group in candidates:
            for line0 in range(max(0, hit.start_line - 1), min(len(lines), hit.end_line)):
                text = lines[line0][: positions.MAX_LINE_CHARS]
                match = pattern.search(text)
                if match and (group or not _COMMENT.match(text)):
                    span = positions.lsp_range(
                        line0, text, match.start(group), match.end(group), self.encoding
                    )
                    return types.Location(uri=self.folder.uri_for(hit.path), range=span)
        return self.at(hit, word(name), first=True)[0]

    def at(self, hit: Hit, pattern: re.Pattern[str], first: bool = False) -> list[types.Location]:
        ranges = positions.located(self.lines(hit.path), hit, pattern, self.encoding)
        uri = self.folder.uri_for(hit.path)
        return [types.Location(uri=uri, range=r) for r in ranges[: 1 if first else None]]


def places(ls: Any, named: Named, cap: int, declaration: bool = False) -> Listed:
    """The callers, tests and doc passages of the definitions ``named`` holds, each at its
    range, at most ``cap`` (``declaration``: the definitions too, first)."""
    workspace = named.folder.workspace
    if workspace is None or not named.definitions:
        return Listed(name=named.parts[-1] if named.parts else "")
    links = Links(workspace.store)
    reader = Reader(ls, named.folder)
    out: list[types.Location] = []
    total, more, name = 0, False, named.parts[-1]
    for definition in named.definitions:
        found = links.places(definition, cap)
        name = found.name or name
        if declaration:
            out.append(reader.declaration(definition, found.symbol or name))
        for hit in found.callers:
            out += reader.at(hit, call(found.name))
        for hit in found.tests:
            out += reader.at(hit, word(found.name))
        for hit in found.docs:
            out += reader.at(hit, word(found.name))
        total += found.called + len(found.tests) + len(found.docs)
        more = more or found.more
    unique = list(
        {(loc.uri, loc.range.start.line, loc.range.start.character): loc for loc in out}.values()
    )
    return Listed(unique[:cap], max(total, len(unique)), more or len(unique) > cap, name)
