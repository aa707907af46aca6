"""Ranking signals that hold for code and docs in general, applied to fused scores.

Each signal is a multiplier chosen from what is true of repositories, not fitted to a query set:
the chunk that defines a queried name is the answer to that name; a file or folder (or a document
section) named like the question is about it; tests, examples, vendored and compatibility code restate what the
real code does; a file that matches in several places is more likely about the question; and
ten hits from one file crowd out the other places a user needs to see.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from pathlib import PurePosixPath
from typing import Any

from groundls.chunkers.textrules import is_cjk, split_identifier
from groundls.index.embed.spaces import chunk_language
from groundls.results import Hit
from groundls.search.query import Query

#: A definition of a name the query is exactly about, or that a question mentions.
DEFINES_QUERIED_SYMBOL = 2.0
DEFINES_MENTIONED_SYMBOL = 1.5
#: Per query word that names the chunk's place (file and folders, or section headings), counted
#: up to PLACE_WORDS_MAX words.
PLACE_WORD = 0.25
PLACE_WORDS_MAX = 2
#: The query names every word of a source file's stem: ``syslog handler`` names
#: ``SyslogHandler.php`` whole but ``SyslogUdpHandler.php`` only in part.
NAMED_WHOLE = 0.25
#: Tests, examples and benchmarks restate what the real code does (with its names, often more
#: of them); vendored code, compat shims, type stubs, re-export files and change logs are real
#: but seldom the place a question is about.
RESTATES = 0.5
ASIDE = 0.7
#: A Japanese passage, for a rewritten Japanese question judged to be answered in English (see
#: ``Searcher._unlikely_language``), keeps half its score, as a restating test file does.
OTHER_LANGUAGE = 0.5
#: The best chunk of a file that has several candidates: per extra candidate, at most +30 %.
COHERENCE_STEP = 0.1
COHERENCE_CAP = 1.3
#: The n-th hit of the same file keeps DECAY ** (n - 1) of its score (a saturation decay).
DECAY = 0.5

_RESTATING_DIRS = frozenset(
    [
        "test",
        "tests",
        "testing",
        "spec",
        "specs",
        "__tests__",
        "__mocks__",
        "fixtures",
        "testdata",
        "example",
        "examples",
        "sample",
        "samples",
        "demo",
        "demos",
        "bench",
        "benches",
        "benchmark",
        "benchmarks",
    ]
)
_ASIDE_DIRS = frozenset(
    [
        "vendor",
        "vendored",
        "third_party",
        "thirdparty",
        "external",
        "deps",
        "compat",
        "legacy",
        "deprecated",
    ]
)
_RESTATING_FILE = re.compile(
    r"(^test_.*\.(py|c|cc|cpp|lua|dart)$|_test\.(py|go|rb|c|cc|cpp|lua|dart|exs)$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$|_spec\.(rb|lua)$"
    r"|(Tests?|Spec|Suite)\.(java|kt|cs|php|swift|scala)$|^conftest\.py$"
    r"|^mocks?[_.]|_mocks?\.|^fakes?[_.]|_fakes?\.)",
    re.IGNORECASE,
)
_CHANGE_LOG = r"^(changes|changelog|history|news|release[-_ ]?notes|releases)(\.(md|markdown|rst|txt|adoc|org))?$"
_ASIDE_FILE = re.compile(
    rf"(\.d\.ts$|^__init__\.py$|_compat\.|compat\.|{_CHANGE_LOG})", re.IGNORECASE
)
_TEST_DIRS = frozenset(["test", "tests", "testing", "spec", "specs", "__tests__"])
_TEST_FILE = re.compile(
    r"(^test_.*\.(py|c|cc|cpp|lua|dart)$|_test\.(py|go|rb|c|cc|cpp|lua|dart|exs)$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$|_spec\.(rb|lua)$|(Tests?|Spec|Suite)\.(java|kt|cs|php|swift|scala)$)",
    re.IGNORECASE,
)
_VERSION_FOLDER = re.compile(r"v(\d+)", re.IGNORECASE)
_ASKS_FOR_NOISE = frozenset(
    [
        "test",
        "tests",
        "testing",
        "spec",
        "example",
        "examples",
        "sample",
        "demo",
        "benchmark",
        "compat",
        "legacy",
        "mock",
        "mocks",
        "fake",
        "changelog",
        "changes",
        "changed",
        "history",
        "release",
        "released",
        "version",
        "versions",
    ]
)


def place_words(hit: Hit) -> set[str]:
    """Words that name a chunk's place (see ``unit``): for a source file its stem and its two
    nearest folder names, for a document section its headings (a document file is a chapter of
    many topics, its sections are each about one)."""
    if hit.kind == "code" or not hit.breadcrumb:
        pure = PurePosixPath(hit.path)
        names = [pure.stem, *[p for p in pure.parent.parts[-2:]]]
    else:
        names = [c for c in hit.breadcrumb if c]
    words = {w for name in names for w in name_words(name)}
    return words | {name.lower() for name in names if len(name) > 2 and " " not in name}


def name_words(name: str) -> set[str]:
    """The words of a file, folder or heading name that can say what it is about (identifier
    parts longer than two letters)."""
    return {w for w in split_identifier(name) if len(w) > 2}


def same_stem(a: str, b: str) -> bool:
    """Two words of one stem (``recovery``/``recoverer``, ``utility``/``utils``, ``impls``/
    ``implementations``): a shared prefix of at least four letters that leaves at most three
    letters of the shorter word."""
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < 4:
        return False
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return common >= max(4, shorter - 3)


def place_matches(query: Query, hit: Hit) -> int:
    """How many query words name the chunk's place: same stem, or two adjacent query words
    written as one name (``real IP`` -> ``realip.go``)."""
    names = place_words(hit)
    matched = {w for w in query.words if any(same_stem(w, n) for n in names)}
    return len(matched) + len(set(query.compounds) & names)


def named_whole(query: Query, hit: Hit) -> bool:
    """Whether the query names every word of a source file's stem. A module's name is chosen to
    say what it holds; a document heading is too short and generic for the same inference
    ("Parameters" is named by most questions about options)."""
    if hit.kind != "code":
        return False
    own = name_words(PurePosixPath(hit.path).stem)
    return bool(own) and all(any(same_stem(w, q) for q in query.words) for w in own)


def noise(path: str, superseded: Collection[str] = ()) -> float:
    """The factor a file's kind of place gives its chunks: RESTATES for tests and examples,
    ASIDE for vendored, compatibility, stub and re-export files and for the files of
    ``superseded`` folders (see :func:`superseded_versions`), 1.0 for the rest."""
    pure = PurePosixPath(path)
    # ``_examples``, ``__fixtures__``: a leading underscore hides a folder from some tools
    folders = {part.lower() for part in pure.parent.parts}
    folders |= {f.strip("_") for f in folders}
    if folders & _RESTATING_DIRS or _RESTATING_FILE.search(pure.name):
        return RESTATES
    if folders & _ASIDE_DIRS or _ASIDE_FILE.search(pure.name):
        return ASIDE
    if superseded and any(str(folder) in superseded for folder in pure.parents):
        return ASIDE
    return 1.0


def is_test(path: str) -> bool:
    """Whether ``path`` is a test file: in a tests folder, or named as one (``test_x.py``,
    ``x_test.go``, ``x.spec.ts``, ``XTest.java``); fixtures, mocks and examples are not."""
    pure = PurePosixPath(path)
    folders = {part.lower().strip("_") for part in pure.parent.parts}
    in_tests = bool(folders & {f.strip("_") for f in _TEST_DIRS})
    fixture = bool(folders & {"fixtures", "testdata", "mocks", "data"})
    return (in_tests and not fixture) or bool(_TEST_FILE.search(pure.name))


def is_change_log(path: str) -> bool:
    """Whether ``path`` is a change log (``CHANGES.rst``, ``docs/changelog.md``, ``NEWS``)."""
    return bool(re.search(_CHANGE_LOG, PurePosixPath(path).name, re.IGNORECASE))


def superseded_versions(paths: Iterable[str]) -> frozenset[str]:
    """The version folders of a workspace that keep an older copy of its code beside the
    current one: compatibility code under another name. A folder ``vN`` beside a later ``vM``
    (``src/v3`` beside ``src/v4``), or a ``v1`` whose modules recur in the folder around it
    (``pydantic/v1/fields.py`` beside ``pydantic/fields.py``: the unversioned code beside
    ``v1`` is the later one, while a Go module's later major versions are ``v2`` and up beside
    its unversioned first). A ``v1`` that is the only tree (a package named by its major
    version) is the current code."""
    stems: dict[str, set[str]] = defaultdict(set)
    children: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        pure = PurePosixPath(path)
        stems[str(pure.parent)].add(pure.stem)
        for folder in pure.parents:
            if folder.name:
                children[str(folder.parent)].add(folder.name)
    superseded: set[str] = set()
    for parent, names in children.items():
        versions = {name: int(m[1]) for name in names if (m := _VERSION_FOLDER.fullmatch(name))}
        for name, number in versions.items():
            folder = str(PurePosixPath(parent) / name)
            if any(other > number for other in versions.values()):
                superseded.add(folder)
            elif number == 1:
                own = stems.get(folder, set())
                if len(own & stems.get(parent, set())) >= max(2, len(own) / 2):
                    superseded.add(folder)
    return frozenset(superseded)


def multiplier(query: Query, hit: Hit, symbol: str, **options: Any) -> float:
    """The product of the per-chunk signals for one candidate (see :func:`factors`, whose
    keyword options it takes)."""
    return math.prod(factors(query, hit, symbol, **options).values())


def factors(
    query: Query,
    hit: Hit,
    symbol: str,
    *,
    other_case: bool = True,
    whole: bool = True,
    superseded: Collection[str] = (),
) -> dict[str, float]:
    """The per-chunk signals for one candidate that move its score, by name (``other_case``:
    whether a definition of a queried name in another case counts, i.e. none is spelled as
    asked; ``whole``: whether the query's words are a whole question, see
    :func:`place_matches`; ``superseded``: the workspace's older version folders, see
    :func:`superseded_versions`)."""
    out: dict[str, float] = {}
    if symbol and symbol in query.names:
        factor = DEFINES_QUERIED_SYMBOL if query.is_symbol else DEFINES_MENTIONED_SYMBOL
        if not qualified_as_asked(query, hit, symbol):
            # ``Router::route`` asked, ``PathRouter::route`` found: a namesake, one step weaker
            factor /= DEFINES_QUERIED_SYMBOL / DEFINES_MENTIONED_SYMBOL
        out["defines"] = factor
    elif other_case and symbol and symbol.lower() in query.identifiers:
        # same name in another case (``serialize`` for ``Serialize``): a weaker hint
        out["defines"] = DEFINES_MENTIONED_SYMBOL
    if whole or not is_cjk(" ".join(hit.breadcrumb)):
        # a Japanese question's words are its Latin fragments only (``Debian``, ``CORS``): they
        # can name a file (``cors.py``), but among Japanese headings they would favour each one
        # that carries the workspace's own name while the question's Japanese words take no part
        out["place"] = 1.0 + PLACE_WORD * min(place_matches(query, hit), PLACE_WORDS_MAX)
    if named_whole(query, hit):
        out["named_whole"] = 1.0 + NAMED_WHOLE
    if not (query.words & _ASKS_FOR_NOISE):
        # a question that names a version folder (``v1``) asks for that version
        asked = set(query.terms)
        older = [f for f in superseded if PurePosixPath(f).name.lower() not in asked]
        out["restates"] = noise(hit.path, older)
    return {name: value for name, value in out.items() if value != 1.0}


def passage_language(hit: Hit) -> str:
    """ "ja" for Japanese prose, "en" for the rest (see ``spaces.chunk_language``)."""
    return chunk_language(hit.kind, hit.text)


def qualified_as_asked(query: Query, hit: Hit, symbol: str) -> bool:
    """Whether a definition of ``symbol`` is the one the query means: the name is written bare,
    or every part of a qualifier it is written with is among the parts of the definition's
    qualified title (``Router::route`` means ``routing.Router.route``, not
    ``routing.PathRouter.route``; ``click.echo`` means ``click.utils.echo``)."""
    asked = query.qualifiers(symbol)
    if not asked:
        return True
    own = {part.lower() for part in hit.title.split(".")[:-1]}
    return any(all(part in own for part in qualifier) for qualifier in asked)


def unit(hit: Hit) -> str:
    """What one "place" is for coherence and spread: a source file holds one module, while a
    document file holds many independent sections (a chapter), so there it is the section."""
    if hit.kind == "code" or not hit.breadcrumb:
        return hit.path
    return hit.path + "#" + "/".join(hit.breadcrumb)


def coherence(scores: dict[int, float], paths: dict[int, str]) -> None:
    """Lift the best chunk of each source file by how many of its chunks are candidates (the
    caller passes code only: a long document section has many chunks without being more
    relevant)."""
    best: dict[str, int] = {}
    count: dict[str, int] = {}
    for rowid, path in paths.items():
        count[path] = count.get(path, 0) + 1
        if path not in best or scores[rowid] > scores[best[path]]:
            best[path] = rowid
    for path, rowid in best.items():
        extra = count[path] - 1
        if extra:
            scores[rowid] *= min(COHERENCE_CAP, 1.0 + COHERENCE_STEP * extra)


def spread(hits: Sequence[Hit]) -> list[Hit]:
    """Re-order so the n-th hit of a place (see ``unit``) counts ``DECAY ** (n - 1)``: other
    files and sections get a turn."""
    seen: dict[str, int] = {}
    decayed: list[tuple[float, int, Hit]] = []
    for order, hit in enumerate(hits):
        place = unit(hit)
        n = seen.get(place, 0)
        seen[place] = n + 1
        decayed.append((hit.score * DECAY**n, -order, hit))
    decayed.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [hit for _, _, hit in decayed]
