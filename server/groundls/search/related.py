"""What is related to a chunk: what its vectors are near, and the other side of a mention.

Docs name the code they describe as code (``lookup_default``, :func:`click.getchar`,
``Context.invoke()``). A function is related to the doc passages that name it so, and a doc
passage to the definitions of the names it writes so; vector neighbours alone mostly find more
of the same kind (other ``__call__`` methods for a middleware's ``__call__``). Neither side needs
a model call: the mentions come from the keyword index and the symbol table.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

import numpy as np

from groundls.chunkers.reading import role_target
from groundls.index.storage.store import Store
from groundls.index.storage.terms import index_terms, match_expression
from groundls.results import Hit, Note, Related, SearchFilters
from groundls.search.fusion import RankedList, rrf
from groundls.search.signals import is_change_log, is_test, noise
from groundls.search.usage import usage

#: Doc passages (or definitions) read for mentions of one chunk.
MENTION_CANDIDATES = 20
#: The mention list counts as much as all the vector lists together (one list a space).
MENTIONS_WEIGHT = 1.0
#: Related candidates read, per note asked for (repeats, the file being read and tests are
#: passed over).
CANDIDATES = 4

# a code span: `x`, ``x``, :role:`x` (reST, Markdown); its text must look like a name or a path
# to one, perhaps called (``click.Context.invoke()``, ``~click.getchar``, ``Rack::Request``)
_SPAN = re.compile(r"(:[a-z:]+:)?`+([^`\n]{1,120}?)`+")
_NAME_PATH = re.compile(r"~?[A-Za-z_][\w.:#]*(?:\(\))?")
_CALLED = re.compile(r"\b([A-Za-z_][\w.]*)\(")
_PART = re.compile(r"[.:#]+")
# a name no prose word could be: ``lookup_default``, ``SessionMiddleware``, ``getHeader``
_CODE_SHAPED = re.compile(r"\w+_\w+|[A-Za-z][a-z0-9]*[A-Z]\w*")
_TITLE_WORD = re.compile(r"[A-Za-z_][\w.:#]*")


def mentioned_names(
    text: str, title: str = "", *, bare: bool = False, calls: bool = True
) -> list[str]:
    """The names ``text`` (a doc passage under the heading ``title``) names as code, each as its
    last part (``click.Context.invoke()`` -> ``invoke``), in order of first mention. A bare word
    in a code span (```path```) is often a parameter or a value, so it counts only when its
    shape is a code name's, it is a path to a name, it is called, or a reST role names it; or
    when ``bare`` (the name is known to be the workspace's one definition of it). ``calls``:
    also the names called in the passage's examples (``click.echo(...)``)."""
    names: list[str] = []
    for word in _TITLE_WORD.findall(title):
        if _CODE_SHAPED.fullmatch(_PART.split(word)[-1]):
            names.append(_PART.split(word)[-1])
    for role, span in _SPAN.findall(text):
        # a role with a title names its target (:func:`run <cli.run_command>`)
        span = (role_target(span) if role else span).strip()
        if not _NAME_PATH.fullmatch(span):
            continue
        name = _PART.split(span.lstrip("~").removesuffix("()"))[-1]
        if bare or role or span.lstrip("~") != name or _CODE_SHAPED.fullmatch(name):
            names.append(name)
    for called in _CALLED.findall(text) if calls else ():
        names.append(_PART.split(called)[-1])
    return [n for n in dict.fromkeys(names) if len(n) > 1]


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def own_names(hit: Hit, symbol: str) -> list[str]:
    """What docs would call a code chunk: its symbol, and the type or module holding it (a
    ``__call__`` is known by its class only)."""
    names = [symbol] if symbol and not _dunder(symbol) else []
    parts = [p for p in _PART.split(hit.title) if p]
    if symbol and len(parts) >= 2 and parts[-1] == symbol:
        names.append(parts[-2])
    return [n for n in dict.fromkeys(names) if len(n) > 1]


def mentions(
    store: Store, hit: Hit, symbol: str, hit_vectors: dict[str, np.ndarray]
) -> dict[int, int]:
    """The other side of a mention, best first, each with its tier (0 first): for code, the doc
    passages that name it as code (tier 0) and then those whose examples call it (tier 1); for
    a doc passage, the definitions of the names it writes as code (tier 0)."""
    if hit.kind == "doc":
        names = mentioned_names(hit.text, hit.title)
        found = dict(store.definitions(names, MENTION_CANDIDATES, SearchFilters(kinds=("code",))))
        # a passage names its subject first, as a rule
        order = {n: i for i, n in enumerate(names)}
        return dict.fromkeys(sorted(found, key=lambda r: order.get(found[r], len(order))), 0)
    if hit.kind != "code":
        return {}
    out: dict[int, int] = {}
    docs = SearchFilters(kinds=("doc",))
    code = SearchFilters(kinds=("code",))
    for name in own_names(hit, symbol):
        # a name the workspace defines once is that definition's, even in a bare code span
        # (```echo```); one defined in several places only in a span shaped as code
        bare = [n for _, n in store.definitions([name], 3, code)].count(name) == 1
        expression = match_expression([index_terms(name)])
        rows = [r for r, _ in store.keyword(expression, MENTION_CANDIDATES, docs)]
        texts = store.hits_by_rowid(rows)
        described = [r for r in rows if r in texts and _names(texts[r], name, bare, calls=False)]
        called = [
            r
            for r in rows
            if r in texts and r not in described and _names(texts[r], name, bare, calls=True)
        ]
        # the passages that write the symbol itself as code first, then the examples that call
        # it, then the same for its type
        for tier, rows_of_tier in enumerate((described, called)):
            for r in _nearest_first(store, hit_vectors, rows_of_tier):
                out.setdefault(r, tier)
    return out


def _names(passage: Hit, name: str, bare: bool, *, calls: bool) -> bool:
    """Whether ``passage`` names ``name`` as code (see :func:`mentioned_names`)."""
    return name in mentioned_names(passage.text, passage.title, bare=bare, calls=calls)


def _nearest_first(store: Store, own: dict[str, np.ndarray], rows: list[int]) -> list[int]:
    """``rows`` by their cosine to ``own`` in a space both have (a short change-log line that
    names a function says less about it than the guide's section on it)."""

    def similarity(r: int) -> float:
        theirs = store.chunk_vectors(r)
        shared = [s for s in own if s in theirs]
        if not shared:
            return -1.0
        a, b = own[shared[0]], theirs[shared[0]]
        return float(a @ b / ((np.linalg.norm(a) * np.linalg.norm(b)) or 1.0))

    return sorted(rows, key=similarity, reverse=True)


def neighbours(
    store: Store, rowid: int, vectors: dict[str, np.ndarray], k: int
) -> list[RankedList]:
    """The chunks nearest to chunk ``rowid``'s stored ``vectors``, one list a space, itself
    excluded."""
    return [
        RankedList(space, 1.0, [r for r, _ in store.knn(space, vec, k * 3 + 5) if r != rowid])
        for space, vec in vectors.items()
    ]


def related(
    store: Store, own: Hit, rowid: int, symbol: str, k: int, superseded: Collection[str] = ()
) -> tuple[list[tuple[Hit, float]], dict[str, int]]:
    """The chunks related to chunk ``rowid`` (``own``, defining ``symbol``) and their scores,
    best first, itself excluded: its nearest chunks in each embedding space fused with what it
    mentions or is mentioned by (``superseded``: the workspace's older version folders, as in
    search); and the chunk ids of the mentions with their tiers (see :func:`mentions`)."""
    vectors = store.chunk_vectors(rowid)
    lists = neighbours(store, rowid, vectors, k)
    tiers = {r: t for r, t in mentions(store, own, symbol, vectors).items() if r != rowid}
    named = list(tiers)
    lists.append(RankedList("mentions", MENTIONS_WEIGHT * max(1, len(lists)), named))
    scores = rrf(lists)
    hits = store.hits_by_rowid(list(scores))
    if noise(own.path, superseded) == 1.0:
        # as in search: tests, examples and change logs restate or aside, seldom the note wanted
        for r, hit in hits.items():
            scores[r] *= noise(hit.path, superseded)
    return best_first(scores, hits), {hits[r].chunk_id: t for r, t in tiers.items() if r in hits}


def related_to(
    store: Store, own: Hit, rowid: int, k: int, superseded: Collection[str] = ()
) -> Related:
    """What relates to chunk ``rowid`` (``own``): ``k`` notes from other places (see
    :func:`notes`), and for a symbol where it is tested and who calls it (see
    :mod:`groundls.search.usage`)."""
    symbol = store.symbols_by_rowid([rowid]).get(rowid, "")
    # more candidates than notes: repeats, the file being read and tests are passed over;
    # where they were all of those, deeper once (a Go package's other files)
    for depth in (CANDIDATES * k, CANDIDATES**2 * k):
        scored, mentioned = related(store, own, rowid, symbol, depth, superseded)
        chosen = notes(own, symbol, scored, mentioned, k)
        if len(chosen) == k and all(n.hit.path != own.path for n in chosen):
            break
    found = usage(store, own, rowid, symbol)
    return Related(tuple(chosen), found.tests, found.callers, found.called, found.more)


def notes(
    own: Hit, symbol: str, scored: list[tuple[Hit, float]], mentioned: Mapping[str, int], k: int
) -> list[Note]:
    """The ``k`` notes worth a glance beside ``own``: other places, the other side of a mention
    first (the doc passages that name a function as code, then those whose examples call it;
    the definitions a passage names), then the nearest in meaning. One note a symbol or
    section; nothing that overlaps ``own``; tests only beside a test (the hover lists them
    apart); a change log only when no other passage names it; the file being read only when
    nothing else relates."""
    others = [(h, s) for h, s in scored if not h.overlaps(own)]
    last = max(mentioned.values(), default=0) + 1
    # stable: within a tier, as scored
    ordered = sorted(others, key=lambda p: mentioned.get(p[0].chunk_id, last))
    # a change log names what changed: a note only when no other passage names the symbol
    only_logs = not any(
        h.chunk_id in mentioned
        and not is_change_log(h.path)
        and (not symbol or symbol in mentioned_names(h.text, h.title, bare=True))
        for h, _ in ordered
    )
    chosen: list[Note] = []
    same_file: list[Note] = []
    seen: set[tuple[str, ...]] = set()
    beside_test = is_test(own.path)
    for hit, score in ordered:
        key = (hit.path, hit.title, *hit.breadcrumb)
        if key in seen or (is_test(hit.path) and not beside_test):
            continue
        if is_change_log(hit.path) and not (only_logs and hit.chunk_id in mentioned):
            continue
        seen.add(key)
        note = Note(hit.scored(score), _kind(hit), hit.chunk_id in mentioned)
        (same_file if hit.path == own.path else chosen).append(note)
    return (chosen or same_file)[:k]


def _kind(hit: Hit) -> str:
    return "code" if hit.kind == "code" else "doc"


def best_first(scores: dict[int, float], hits: dict[int, Hit]) -> list[tuple[Hit, float]]:
    """The scored chunks that still exist, best first."""
    ordered = sorted(scores, key=scores.__getitem__, reverse=True)
    return [(hits[r], scores[r]) for r in ordered if r in hits]
