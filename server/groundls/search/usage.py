"""Where a symbol is tested and where it is used: read from the keyword index and the symbol
table, no model call.

A test exercises a function when it calls it, or when it is named after it and names it in its
body (``test_evolve_keeps_fields`` for ``evolve``, ``TestEvolve`` in Go, ``testEvolve`` in Java).
A caller is code outside the tests that calls it (``evolve(``, ``.evolve(``, ``evolve::<T>(``,
``new Evolve(``). Both are found the same way in every language: the chunks whose words hold the
name (the keyword index), read for a call or the test's name.

A name is not a type: ``f.read()`` calls a file's ``read``, not ``EchoingStdin.read``. A name of
one word (``read``, ``setup``, ``update``) is one many types share, so a call of it written on an
object (``x.read(``) counts only from a file that names the symbol's owner (its class, or its
module for a function) or that sits beside the definition (a Go package, a Rust file's own
tests), and a test named after it must call it, not only name it (``progress`` the variable); a
name of several words (``make_context``, ``timePerIteration``) is its own. A chunk that defines
the name itself (a test's own ``class TagDict``) calls its own.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from groundls.chunkers.textrules import split_identifier
from groundls.index.storage.store import Store
from groundls.index.storage.terms import index_terms, match_expression
from groundls.results import Hit, SearchFilters
from groundls.search.signals import is_test

#: Code chunks read for the tests and callers of one name (the count of callers says "or more"
#: when every one of them calls it).
USE_CANDIDATES = 200
#: Code chunks read for the files that name a symbol's owner (its class or module).
REACH_CANDIDATES = 5000
#: Tests and callers kept (the hover shows the first of each; agents get them all).
KEPT = 5


@dataclass(frozen=True)
class Usage:
    """The tests that exercise a symbol, and the places that call it."""

    tests: tuple[Hit, ...] = ()
    callers: tuple[Hit, ...] = ()
    #: how many places call it (at least; see ``more``)
    called: int = 0
    #: whether more places may call it than were read
    more: bool = False


@functools.lru_cache(maxsize=1024)
def _call(name: str) -> re.Pattern[str]:
    """A call of ``name``: ``name(``, ``obj.name(``, ``name::<T>(``, ``name<T>(``, ``name!(``;
    not its definition (``def name(``, ``fn name(``, ``func name(``, ``function name(``)."""
    return re.compile(
        rf"(?<!def )(?<!fn )(?<!func )(?<!function )(?<![\w$]){re.escape(name)}"
        r"(?:::)?(?:<[^<>()\n]{0,80}>)?!?\s*\("
    )


@functools.lru_cache(maxsize=1024)
def _bare_call(name: str) -> re.Pattern[str]:
    """A call of ``name`` not written on an object (``name(``, not ``x.name(``)."""
    return re.compile(rf"(?<![\w$.]){re.escape(name)}(?:::)?(?:<[^<>()\n]{{0,80}}>)?!?\s*\(")


@functools.lru_cache(maxsize=1024)
def _definition(name: str) -> re.Pattern[str]:
    """A definition of ``name`` (``def name``, ``class name``, ``func name``, ``fn name`` ...)."""
    keywords = "def|class|func|fn|function|struct|interface|type|enum|trait"
    return re.compile(rf"\b(?:{keywords})\s+{re.escape(name)}(?![\w$])")


@functools.lru_cache(maxsize=1024)
def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")


def calls(text: str, name: str) -> bool:
    """Whether ``text`` calls ``name``."""
    return bool(_call(name).search(text))


def named_after(test_name: str, name: str) -> bool:
    """Whether a test's name holds ``name`` as a run of its words (``test_evolve_keeps`` and
    ``TestEvolve`` for ``evolve``; ``test_evolved`` is not)."""
    mine = [w.lower() for w in split_identifier(name)]
    theirs = [w.lower() for w in split_identifier(test_name)]
    if not mine or len(theirs) <= len(mine):
        return False
    return any(theirs[i : i + len(mine)] == mine for i in range(len(theirs) - len(mine) + 1))


def _test_shaped(name: str) -> bool:
    """Whether a function's name says it is a test (``test_x``, ``TestX``, ``testX``)."""
    return "test" in (w.lower() for w in split_identifier(name))


def called_name(own: Hit, symbol: str) -> str:
    """The name a symbol is called by: its own, or its type's for a constructor (``__init__``,
    ``constructor``, ``new``)."""
    if symbol in ("__init__", "__new__", "constructor", "new", "init", "New"):
        parts = [p for p in re.split(r"[.:#]+", own.title) if p]
        return parts[-2] if len(parts) >= 2 else ""
    if symbol.startswith("__") and symbol.endswith("__"):
        return ""  # an operator method is called by syntax, not by name
    return symbol


def owners(own: Hit, name: str) -> tuple[str, ...]:
    """The names one of which a file must hold to reach ``name`` on an object: the class that
    defines it (the title's part before it), or for a function of a module, the module and its
    packages (``click.utils.echo`` is reached as ``click.echo`` and ``utils.echo``)."""
    parts = [p for p in re.split(r"[.:#/]+", own.title) if p]
    if len(parts) < 2 or parts[-1] != name:
        return ()
    stem = own.path.rsplit("/", 1)[-1].split(".", 1)[0]
    if parts[-2] in (stem, _folder(own.path).rsplit("/", 1)[-1]):
        return tuple(p for p in parts[:-1] if len(p) >= 2)
    return (parts[-2],)


def _reaching(store: Store, names: tuple[str, ...]) -> set[str]:
    """The code files that name one of ``names`` (the keyword index matches a name as a whole:
    its terms in order)."""
    expression = match_expression([index_terms(n) for n in names])
    rows = [
        r for r, _ in store.keyword(expression, REACH_CANDIDATES, SearchFilters(kinds=("code",)))
    ]
    return set(store.paths_by_rowid(rows).values())


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def usage(
    store: Store,
    own: Hit,
    rowid: int,
    symbol: str,
    *,
    candidates: int = USE_CANDIDATES,
    kept: int = KEPT,
) -> Usage:
    """Where the code chunk ``own`` (chunk ``rowid``, defining ``symbol``) is tested and used:
    of the first ``candidates`` code chunks that hold its name, ``kept`` tests and callers."""
    name = called_name(own, symbol)
    if own.kind != "code" or len(name) < 2:
        return Usage()
    expression = match_expression([index_terms(name)])
    found = store.keyword(expression, candidates, SearchFilters(kinds=("code",)))
    rows = [r for r, _ in found if r != rowid]
    reaching: set[str] | None = None  # read once, when a call on an object needs it
    # a type is called by its own name, and a name of several words is seldom another's
    specific = own.text_type == "class" or len(split_identifier(name)) >= 2

    def reaches(hit: Hit) -> bool:
        nonlocal reaching
        if specific or _bare_call(name).search(hit.text) or _folder(hit.path) == _folder(own.path):
            return True
        if reaching is None:
            held = owners(own, name)
            reaching = _reaching(store, held) if held else set()
        return hit.path in reaching

    hits = store.hits_by_rowid(rows)
    symbols = store.symbols_by_rowid(rows)
    named: list[Hit] = []
    calling: list[Hit] = []
    helpers: list[Hit] = []  # fixtures and helpers of the tests that call it
    callers: list[Hit] = []
    for r in rows:
        hit = hits.get(r)
        if hit is None or symbols.get(r) == name or _definition(name).search(hit.text):
            continue  # gone, or another definition of the name (an override, a test's own)
        test = is_test(hit.path)
        test_name = symbols.get(r) or hit.title
        if (
            test
            and _test_shaped(test_name)
            and named_after(test_name, name)
            and (_word if specific else _call)(name).search(hit.text)
            and reaches(hit)
        ):
            named.append(hit)
        elif calls(hit.text, name) and reaches(hit):
            if not test:
                callers.append(hit)
            else:
                (calling if _test_shaped(test_name) else helpers).append(hit)
    callers = _one_each(callers)
    tests = _one_each(named + calling + helpers)
    more = len(found) >= candidates and bool(callers)
    return Usage(tuple(tests[:kept]), tuple(callers[:kept]), len(callers), more)


def _one_each(hits: list[Hit]) -> list[Hit]:
    """One hit a place: the windows of one long function or test are one test, one caller."""
    seen: set[tuple[str, str]] = set()
    out = []
    for hit in hits:
        if (hit.path, hit.title) not in seen:
            seen.add((hit.path, hit.title))
            out.append(hit)
    return out
