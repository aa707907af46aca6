"""The editor's standard requests (issue 81) measured on real repositories, in process: the
functions the language server's handlers call (``lsp/references.py``, ``lsp/definition.py``,
``lsp/symbols.py``, ``lsp/lenses.py``) over a stand-in for the server that holds one folder.

Usage: python scripts/lab/surfaces_lab.py [--index-dir DIR] [--misses N]
           [--queries ROOT=QUERIES.jsonl]... REPO...
       python scripts/lab/surfaces_lab.py --timing N [--exclude GLOB]... [--queries ROOT=FILE]...
           [--index-dir DIR] ROOT

What each request should find is derived mechanically, apart from the product's rules
(``related_lab.expectations``: the public names, the doc passages that name one in a code span,
its tests), and:
- references on every public name (from its declaration): the expected doc passages listed, a
  symbol with an expected test that gets one listed, every call site listed (``name(`` outside
  its definition in a code file, not after ``def``/``class``/``func``; in the tests and outside
  them apart), the time per request;
- definition from the docs: every code span of a doc file that is a name (``Context.invoke``,
  ``:func:`~click.echo```) whose last part the workspace defines exactly once: whether the
  lookup lands on that definition;
- workspace/symbol: for each query of ``--queries ROOT=FILE`` (``{"query": ...}`` lines), whether
  its first 10 are ``groundls search``'s first 10 (the CLI itself, ``--batch --json``), and the
  time per query;
- code lenses: the time for the lenses of the repository's longest code file, and each resolve.

``--timing N`` times workspace/symbol alone on a large index (N queries: half the names of
random definitions, half the sentences of the ``--queries`` files), references on the same
names, and the lenses of the code file nearest 2,000 lines; ``--exclude`` keeps folders out of
that index (``attrs/``). Every timing is printed with the machine's load average beside it.
``--misses N`` prints up to N misses of each kind. ``--deep`` fills the deep tier before measuring
(else the measures run with it filling: the fast tier alone). ``--no-rewrite`` (with ``--timing``)
turns ``search.rewrite_questions`` off, to tell the cost of translating a question (an index that
holds Japanese prose has every English question translated by the local model) from the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import unquote, urlparse

import related_lab
from lsprotocol import types

from groundls.config import Config
from groundls.lsp import definition, places, references, symbols
from groundls.lsp.folder_set import Folders
from groundls.lsp.folders import Folder
from groundls.lsp.lenses import Lenses
from groundls.search.signals import is_test
from groundls.workspace import Workspace

#: A code span that is a name: ``Context.invoke``, ``click.echo()``, ``~click.Context``,
#: ``Command::execute``, ``title <target>`` (a role's target).
_NAME_PATH = re.compile(r"[A-Za-z_]\w*(?:(?:\.|::|#)[A-Za-z_]\w*)*")
_TARGET = re.compile(r"<([^<>]+)>\s*$")
_DEFINES = r"\b(?:def|class|func|fn|function|struct|interface|type|enum|trait)\s+"
_GROUNDLS = Path(sys.executable).with_name("groundls")


def load() -> str:
    """The machine's load average (1, 5, 15 min), printed beside every timing."""
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def p50_p95(times: list[float]) -> str:
    if not times:
        return "– / – ms"
    ordered = sorted(times)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"{statistics.median(ordered):.1f} / {p95:.1f} ms (n={len(ordered)})"


def timed(work: Callable[[], Any], times: list[float]) -> Any:
    started = time.perf_counter()
    out = work()
    times.append((time.perf_counter() - started) * 1000)
    return out


class Editor:
    """The slice of the language server the handlers read: its folders, its settings, the
    session's position encoding and open documents (none: every file is read as on disk)."""

    def __init__(self, root: Path, workspace: Workspace, config: Config) -> None:
        folder = Folder(root.name, root.as_uri(), root, config, lambda _r, _c: workspace)
        folder.workspace, folder.state = workspace, "ready"
        self.folder = folder
        self.folders = Folders()
        self.folders.add(folder)
        self.config = config
        self.workspace = SimpleNamespace(text_documents={}, position_encoding=None)
        self.shown: list[str] = []

    def show(self, kind: Any, message: str) -> None:
        self.shown.append(message)

    def uri(self, rel: str) -> str:
        return self.folder.uri_for(rel)


def rel_of(root: Path, uri: str) -> str:
    return Path(unquote(urlparse(uri).path)).relative_to(root).as_posix()


def utf16(line: str, index: int) -> int:
    return len(line[:index].encode("utf-16-le")) // 2


@dataclass
class Repo:
    """One indexed repository: its expectations, its chunks' places and its files' lines."""

    root: Path
    workspace: Workspace
    expected: related_lab.Expected
    #: chunk_id -> (path, start_line, end_line, title)
    places: dict[str, tuple[str, int, int, str]] = field(default_factory=dict)
    code_files: list[str] = field(default_factory=list)
    doc_files: list[str] = field(default_factory=list)
    #: path -> (start_line, end_line, symbol, title) of its code chunks
    code_chunks: dict[str, list[tuple[int, int, str, str]]] = field(default_factory=dict)
    _lines: dict[str, list[str]] = field(default_factory=dict)
    _names: dict[str, set[tuple[int, int]]] = field(default_factory=dict)

    @classmethod
    def open(cls, root: Path, workspace: Workspace) -> Repo:
        repo = cls(root, workspace, related_lab.expectations(workspace))
        rows = workspace.store.conn.execute(
            "SELECT chunk_id, path, start_line, end_line, title, kind, symbol FROM chunks"
        ).fetchall()
        code, docs = set(), set()
        for chunk_id, path, start, end, title, kind, symbol in rows:
            repo.places[chunk_id] = (path, start, end, title)
            (code if kind == "code" else docs if kind == "doc" else set()).add(path)
            if kind == "code":
                repo.code_chunks.setdefault(path, []).append((start, end, symbol or "", title))
        repo.code_files, repo.doc_files = sorted(code), sorted(docs)
        return repo

    def lines(self, rel: str) -> list[str]:
        if rel not in self._lines:
            try:
                text = (self.root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[rel] = text.splitlines()
        return self._lines[rel]

    def code_names(self, rel: str) -> set[tuple[int, int]]:
        """(0-based line, column) of every name token of a Python file: a match elsewhere is in
        a string or a comment (other languages: every place counts as code)."""
        if rel not in self._names:
            found: set[tuple[int, int]] = set()
            if rel.endswith(".py"):
                source = "\n".join(self.lines(rel)) + "\n"
                try:
                    for tok in tokenize.generate_tokens(StringIO(source).readline):
                        if tok.type == tokenize.NAME:
                            found.add((tok.start[0] - 1, tok.start[1]))
                except (tokenize.TokenError, IndentationError, SyntaxError):
                    found = set()
            self._names[rel] = found
        return self._names[rel]

    def in_code(self, rel: str, line0: int, col: int) -> bool:
        if not rel.endswith(".py"):
            # C-like languages (Go, Rust, JS/TS, Java, C): a line comment before the match, or a
            # line of a block/doc comment (``// ...``, ``/// ...``, `` * ...``)
            text = self.lines(rel)[line0]
            head = text[:col]
            stripped = text.lstrip()
            return not ("//" in head or stripped.startswith(("*", "/*", "//")))
        names = self.code_names(rel)
        return not names or (line0, col) in names

    def enclosing(self, rel: str, line0: int) -> tuple[int, int, str, str] | None:
        """The narrowest code chunk of ``rel`` holding 0-based line ``line0``."""
        holding = [c for c in self.code_chunks.get(rel, ()) if c[0] - 1 <= line0 <= c[1] - 1]
        return min(holding, key=lambda c: c[1] - c[0]) if holding else None

    def within(self, chunk_id: str, rel: str, line0: int) -> bool:
        path, start, end, _ = self.places[chunk_id]
        return path == rel and start - 1 <= line0 <= end - 1


@dataclass
class Site:
    """A call site the lab expects references to list."""

    path: str
    line0: int
    col: int
    text: str
    in_test: bool
    in_code: bool


def call_sites(repo: Repo, name: str, chunk_id: str) -> list[Site]:
    """Every ``name(`` of the code files outside the definition ``chunk_id`` (its lines) and
    not after a definition's keyword (``def name(``, ``func (c *T) name(``)."""
    call = re.compile(rf"(?<![\w$]){re.escape(name)}\s*\(")
    defines = re.compile(rf"{_DEFINES}(?:\([^)]*\)\s*)?{re.escape(name)}\s*\(")
    out = []
    for rel in repo.code_files:
        lines = repo.lines(rel)
        for line0, text in enumerate(lines):
            if name not in text or repo.within(chunk_id, rel, line0):
                continue
            if defines.search(text):
                continue
            for match in call.finditer(text):
                col = match.start()
                site = Site(
                    rel, line0, col, text.strip(), is_test(rel), repo.in_code(rel, line0, col)
                )
                out.append(site)
    return out


def declaration(repo: Repo, chunk_id: str, name: str) -> tuple[str, int, int] | None:
    """(path, 0-based line, UTF-16 column) of the first place the definition names ``name``."""
    path, start, end, _ = repo.places[chunk_id]
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    lines = repo.lines(path)
    for line0 in range(max(0, start - 1), min(len(lines), end)):
        match = word.search(lines[line0])
        if match:
            return path, line0, utf16(lines[line0], match.start() + 1)
    return None


@dataclass
class Misses:
    """Up to ``cap`` examples of each kind of miss, and how many there were."""

    cap: int
    seen: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, text: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        kept = self.seen.setdefault(kind, [])
        if len(kept) < self.cap:
            kept.append(text)

    def print(self) -> None:
        for kind in sorted(self.counts):
            print(f"   misses, {kind}: {self.counts[kind]}")
            for text in self.seen.get(kind, []):
                print(f"      {text}")


def measure_references(repo: Repo, ed: Editor, misses: Misses) -> dict[str, Any]:
    """References from the declaration of every public name."""
    t: dict[str, Any] = {"symbols": 0, "docs": 0, "docs_listed": 0, "doc_symbols": 0}
    t.update({"doc_symbols_all": 0, "tested": 0, "test_listed": 0, "capped": 0})
    sites = {k: [0, 0] for k in ("code", "code_in_code", "tests", "tests_in_code")}
    times: list[float] = []
    for name, chunk_id, path in repo.expected.public():
        at = declaration(repo, chunk_id, name)
        if at is None:
            misses.add("no declaration line", f"{name} ({path})")
            continue
        params = types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=ed.uri(at[0])),
            position=types.Position(line=at[1], character=at[2]),
            context=types.ReferenceContext(include_declaration=False),
        )
        found, message = timed(lambda p=params: references.references(ed, p), times)
        t["symbols"] += 1
        t["capped"] += bool(message)
        listed = {(rel_of(repo.root, loc.uri), loc.range.start.line) for loc in found}
        by_path: dict[str, set[int]] = {}
        for rel, line0 in listed:
            by_path.setdefault(rel, set()).add(line0)

        def holds(chunk: str, by_path: dict[str, set[int]] = by_path) -> bool:
            rel, start, end, _ = repo.places[chunk]
            return any(start - 1 <= n <= end - 1 for n in by_path.get(rel, ()))

        docs = repo.expected.docs.get(name, set())
        if docs:
            shown = [c for c in docs if holds(c)]
            t["docs"] += len(docs)
            t["docs_listed"] += len(shown)
            t["doc_symbols"] += 1
            t["doc_symbols_all"] += len(shown) == len(docs)
            for chunk in sorted(docs - set(shown)):
                rel, start, end, title = repo.places[chunk]
                misses.add(
                    "doc passage not listed", f"{name} ({path}): {rel}:{start}-{end} {title}"
                )
        tests = repo.expected.tests_of(name)
        if tests:
            t["tested"] += 1
            if any(holds(c) for c in tests):
                t["test_listed"] += 1
            else:
                first = sorted(repo.places[c][:2] for c in tests)[0]
                named = places.named_at(ed, params.text_document.uri, params.position)
                kinds = sorted({h.text_type for h in named.definitions}) if named else []
                misses.add(
                    "no expected test listed",
                    f"{name} ({path}; the cursor names {'/'.join(kinds) or 'nothing'}):"
                    f" e.g. {first[0]}:{first[1]}",
                )
        for site in call_sites(repo, name, chunk_id):
            kind = "tests" if site.in_test else "code"
            hit = (site.path, site.line0) in listed
            sites[kind][0] += 1
            sites[kind][1] += hit
            if site.in_code:
                sites[f"{kind}_in_code"][0] += 1
                sites[f"{kind}_in_code"][1] += hit
            if not hit:
                misses.add(
                    f"call site not listed ({kind}, {why_not_listed(repo, name, site, by_path)})",
                    f"{name} ({path}) at {site.path}:{site.line0 + 1}: {site.text[:100]}",
                )
    t["sites"] = sites
    t["times"] = times
    return t


def why_not_listed(repo: Repo, name: str, site: Site, listed: dict[str, set[int]]) -> str:
    """Where a call site references did not list stands: in a string or a comment, inside
    another definition of the name (an override that delegates), in one window of a long
    function another window of which is listed, in the code of a file listed elsewhere, or
    in code."""
    if not site.in_code:
        return "string/comment"
    around = repo.enclosing(site.path, site.line0)
    if around is not None and around[2] == name:
        return "inside another definition of the name"
    if around is not None:
        windows = [c for c in repo.code_chunks[site.path] if c[3] == around[3] and c != around]
        if any(c[0] - 1 <= n <= c[1] - 1 for c in windows for n in listed.get(site.path, ())):
            return "another window of a listed function"
    if site.path in listed:
        return "code, its file listed elsewhere"
    return "code, its file not listed"


def doc_spans(repo: Repo) -> Iterator[tuple[str, int, int, str, str]]:
    """(path, 0-based line, column of the name's last part, span text, name) of every code span
    of a doc file that is a name."""
    for rel in repo.doc_files:
        for line0, text in enumerate(repo.lines(rel)):
            for match in related_lab._SPAN.finditer(text):
                inner = match.group(1)
                target = _TARGET.search(inner)
                body = (target.group(1) if target else inner).strip().lstrip("~!")
                body = re.sub(r"\(.*\)$", "", body)
                if not _NAME_PATH.fullmatch(body):
                    continue
                last = re.split(r"\.|::|#", body)[-1]
                offset = match.start(1) + inner.rfind(last)
                yield rel, line0, offset, inner, last


def measure_definitions(repo: Repo, ed: Editor, misses: Misses) -> dict[str, Any]:
    """Definition from every doc span that names a symbol defined exactly once."""
    defined: dict[str, set[tuple[str, str]]] = {}
    ranges: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for _chunk_id, path, symbol, kind, _text, title in repo.expected.rows:
        if kind == "code" and symbol:
            defined.setdefault(symbol, set()).add((path, title))
            ranges.setdefault((path, title), []).append(repo.places[_chunk_id][1:3])
    t: dict[str, Any] = {"spans": 0, "landed": 0, "names": set()}
    times: list[float] = []
    for rel, line0, col, inner, name in doc_spans(repo):
        if len(defined.get(name, ())) != 1:
            continue
        (path, title) = next(iter(defined[name]))
        line = repo.lines(rel)[line0]
        params = types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=ed.uri(rel)),
            position=types.Position(line=line0, character=utf16(line, col + 1)),
        )
        found = timed(lambda p=params: definition.definitions(ed, p), times)
        t["spans"] += 1
        t["names"].add(name)
        landed = any(
            rel_of(repo.root, loc.uri) == path
            and any(s - 1 <= loc.range.start.line <= e - 1 for s, e in ranges[(path, title)])
            for loc in found
        )
        t["landed"] += landed
        if not landed:
            went = "; ".join(
                f"{rel_of(repo.root, loc.uri)}:{loc.range.start.line + 1}" for loc in found
            )
            misses.add(
                "definition did not land",
                f"`{inner}` at {rel}:{line0 + 1} -> {went or 'nothing'} (wanted {path} {title})",
            )
    t["times"] = times
    return t


def cli_lists(root: Path, index_dir: Path, queries: list[str]) -> list[list[tuple[str, int, int]]]:
    """``groundls search``'s first 10 for each query (the CLI, one process, ``--batch``)."""
    lines = "".join(json.dumps({"id": i, "query": q}) + "\n" for i, q in enumerate(queries))
    done = subprocess.run(
        [
            str(_GROUNDLS),
            "search",
            "--batch",
            "--json",
            "-w",
            str(root),
            "--index-dir",
            str(index_dir),
        ],
        input=lines,
        capture_output=True,
        text=True,
        check=False,
    )
    out: dict[int, list[tuple[str, int, int]]] = {}
    for line in done.stdout.splitlines():
        row = json.loads(line)
        out[row["id"]] = [(h["path"], h["start_line"], h["end_line"]) for h in row.get("hits", [])]
    if len(out) != len(queries):
        print(f"   groundls search answered {len(out)} of {len(queries)}: {done.stderr[-500:]}")
    return [out.get(i, [])[:10] for i in range(len(queries))]


def read_queries(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r["query"] for r in rows if isinstance(r.get("query"), str)]


def symbol_lists(
    root: Path, ed: Editor, queries: list[str], times: list[float]
) -> list[list[tuple[str, int, int]]]:
    """workspace/symbol's first 10 for each query, as the handler asks (``symbols.find``)."""
    k = max(1, min(symbols.CAP, ed.config.search.k))
    out = []
    for query in queries:
        cleaned = symbols.clean(query)
        found = timed(
            lambda q=cleaned: symbols.find(ed.folders.all(), q, k, threading.Event()), times
        )
        out.append(
            [
                (
                    rel_of(root, s.location.uri),
                    s.location.range.start.line + 1,
                    s.location.range.end.line,
                )
                for s in found[:10]
            ]
        )
    return out


def measure_symbols(
    repo: Repo, ed: Editor, index_dir: Path, queries: list[str], misses: Misses
) -> dict[str, Any]:
    symbols.find(ed.folders.all(), "warm up", 10, threading.Event())  # the models loaded
    times: list[float] = []
    before = load()
    mine = symbol_lists(repo.root, ed, queries, times)
    theirs = cli_lists(repo.root, index_dir, queries)
    equal = 0
    for query, a, b in zip(queries, mine, theirs, strict=True):
        if a == b:
            equal += 1
            continue
        first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        first = min(len(a), len(b)) if first is None else first
        misses.add(
            "symbol list differs from groundls search",
            f"{query[:70]!r}: from rank {first + 1}: symbol {a[first : first + 2]} / "
            f"search {b[first : first + 2]} ({len(a)} / {len(b)} listed)",
        )
    return {"queries": len(queries), "equal": equal, "times": times, "load": before}


def measure_lenses(repo: Repo, ed: Editor, path: str | None = None) -> dict[str, Any]:
    """The lenses of ``path`` (default: the longest code file) and each of them resolved."""
    if path is None:
        path = max(repo.code_files, key=lambda p: (len(repo.lines(p)), p))
    params = types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=ed.uri(path)))
    before = load()
    cold: list[float] = []
    found = timed(lambda: Lenses(ed).lenses(params), cold)
    warm: list[float] = []
    for _ in range(5):
        timed(lambda: Lenses(ed).lenses(params), warm)
    resolving = Lenses(ed)
    resolves: list[float] = []
    for lens in found:
        timed(lambda lens=lens: resolving.resolve(lens), resolves)
    return {
        "path": path,
        "lines": len(repo.lines(path)),
        "lenses": len(found),
        "cold_ms": cold[0],
        "warm_ms": statistics.median(warm),
        "resolves": resolves,
        "load": before,
    }


def share(found: int, wanted: int) -> str:
    return f"{found}/{wanted}" + (f" ({100 * found / wanted:.1f} %)" if wanted else "")


def report(repo: Repo, t: dict[str, Any], d: dict[str, Any], lenses: dict[str, Any]) -> None:
    s = t["sites"]
    print(
        f"{repo.root.name}: {t['symbols']} public names ({len(repo.places)} chunks)\n"
        f"   references: doc passages listed {share(t['docs_listed'], t['docs'])}, symbols with"
        f" every expected passage {share(t['doc_symbols_all'], t['doc_symbols'])}; an expected"
        f" test listed {share(t['test_listed'], t['tested'])}; call sites listed: outside the"
        f" tests {share(s['code'][1], s['code'][0])} (in code, not a string or comment"
        f" {share(s['code_in_code'][1], s['code_in_code'][0])}), in the tests"
        f" {share(s['tests'][1], s['tests'][0])} (in code"
        f" {share(s['tests_in_code'][1], s['tests_in_code'][0])}); capped {t['capped']};"
        f" p50 / p95 {p50_p95(t['times'])} ({t['load']})\n"
        f"   definition from docs: {share(d['landed'], d['spans'])} spans"
        f" ({len(d['names'])} names) land on the definition; p50 / p95 {p50_p95(d['times'])}\n"
        f"   code lenses: {lenses['path']} ({lenses['lines']} lines, {lenses['lenses']} lenses):"
        f" {lenses['cold_ms']:.1f} ms cold, {lenses['warm_ms']:.1f} ms warm; resolve p50 / p95"
        f" {p50_p95(lenses['resolves'])} ({lenses['load']})"
    )


def open_workspace(root: Path, config: Config, index_dir: Path, deep: bool = False) -> Workspace:
    workspace = Workspace.open(root, config, index_dir)
    started = time.perf_counter()
    workspace.index()
    print(
        f"{root.name}: indexed in {time.perf_counter() - started:.1f} s, "
        f"{workspace.store.chunk_count()} chunks ({load()})",
        flush=True,
    )
    if deep:
        started = time.perf_counter()
        while workspace.fill_deep(2000):
            pass
        print(
            f"{root.name}: deep tier filled in {time.perf_counter() - started:.1f} s"
            f" {workspace.deep_status()} ({load()})",
            flush=True,
        )
    else:
        print(f"{root.name}: deep tier (embedded, wanted) {workspace.deep_status()}", flush=True)
    return workspace


def run(
    roots: list[Path],
    query_sets: dict[Path, list[Path]],
    index_dir: Path,
    cap: int,
    deep: bool = False,
) -> None:
    """Every measure on each of ``roots``; on a root only ``query_sets`` names, only
    workspace/symbol."""
    config = Config()
    for root in [*roots, *(r for r in query_sets if r not in roots)]:
        workspace = open_workspace(root, config, index_dir, deep)
        try:
            repo = Repo.open(root, workspace)
            ed = Editor(root, workspace, config)
            misses = Misses(cap)
            if root in roots:
                before = load()
                t = measure_references(repo, ed, misses)
                t["load"] = before
                d = measure_definitions(repo, ed, misses)
                lenses = measure_lenses(repo, ed)
                report(repo, t, d, lenses)
            for file in query_sets.get(root, []):
                q = measure_symbols(repo, ed, index_dir, read_queries(file), misses)
                print(
                    f"   workspace/symbol ({file.name}): first 10 equal to groundls search's"
                    f" {q['equal']}/{q['queries']}; p50 / p95 {p50_p95(q['times'])} ({q['load']})"
                )
            misses.print()
        finally:
            workspace.close()


def timing(
    root: Path,
    query_files: list[Path],
    index_dir: Path,
    n: int,
    exclude: list[str],
    deep: bool = False,
    rewrite: bool = True,
) -> None:
    """workspace/symbol, references and lenses alone on a large index."""
    config = Config(exclude=exclude)
    config.search.rewrite_questions = rewrite
    workspace = open_workspace(root, config, index_dir, deep)
    try:
        ed = Editor(root, workspace, config)
        store = workspace.store
        rows = store.conn.execute(
            "SELECT chunk_id, path, symbol, start_line, end_line FROM chunks"
            " WHERE kind = 'code' AND symbol != '' AND length(symbol) > 2"
        ).fetchall()
        chosen = random.Random(7).sample(rows, min(n // 2, len(rows)))
        sentences = [q for f in query_files for q in read_queries(f)]
        queries = [r[2] for r in chosen] + sentences[: n - len(chosen)]
        symbols.find(ed.folders.all(), "warm up", 10, threading.Event())
        k = max(1, min(symbols.CAP, config.search.k))
        named: list[float] = []
        worded: list[float] = []
        before = load()
        for i, query in enumerate(queries):
            cleaned = symbols.clean(query)
            timed(
                lambda q=cleaned: symbols.find(ed.folders.all(), q, k, threading.Event()),
                named if i < len(chosen) else worded,
            )
        print(
            f"   workspace/symbol: all {p50_p95(named + worded)}; names {p50_p95(named)};"
            f" sentences {p50_p95(worded)} ({before} -> {load()})"
        )
        refs: list[float] = []
        before = load()
        for _chunk_id, path, symbol, start, end in chosen:
            lines, _ = workspace.read_lines(path, start, end)
            word = re.compile(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])")
            at = next(((i, m.start()) for i, s in enumerate(lines) if (m := word.search(s))), None)
            if at is None:
                continue
            params = types.ReferenceParams(
                text_document=types.TextDocumentIdentifier(uri=ed.uri(path)),
                position=types.Position(line=start - 1 + at[0], character=at[1] + 1),
                context=types.ReferenceContext(include_declaration=False),
            )
            timed(lambda p=params: references.references(ed, p), refs)
        print(f"   references on the same names: {p50_p95(refs)} ({before} -> {load()})")
        files = store.conn.execute(
            "SELECT path, max(end_line) FROM chunks WHERE kind = 'code' GROUP BY path"
        ).fetchall()
        repo = Repo(root, workspace, related_lab.Expected([]))
        repo.code_files = sorted(p for p, _ in files)
        for (path, _), what in (
            (min(files, key=lambda r: (abs(r[1] - 2000), r[0])), "nearest 2,000 lines"),
            (max(files, key=lambda r: (r[1], r[0])), "longest"),
        ):
            repo.places = {}
            lenses = measure_lenses(repo, ed, path)
            print(
                f"   code lenses, {what}: {path} ({lenses['lines']} lines, {lenses['lenses']}"
                f" lenses): {lenses['cold_ms']:.1f} ms cold, {lenses['warm_ms']:.1f} ms warm;"
                f" resolve p50 / p95 {p50_p95(lenses['resolves'])} ({lenses['load']})"
            )
    finally:
        workspace.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument(
        "--index-dir",
        type=Path,
        default=Path(os.environ.get("GROUNDLS_INDEX_DIR", "/tmp/surfaces")),
    )
    ap.add_argument("--queries", action="append", default=[], help="ROOT=QUERIES.jsonl")
    ap.add_argument("--misses", type=int, default=5, help="examples printed of each miss")
    ap.add_argument("--timing", type=int, default=0, help="time N queries on a large index")
    ap.add_argument("--exclude", action="append", default=[], help="a glob left out (--timing)")
    ap.add_argument("--deep", action="store_true", help="fill the deep tier before measuring")
    ap.add_argument(
        "--no-rewrite",
        action="store_true",
        help="(--timing, a diagnostic) search.rewrite_questions off: no question is translated",
    )
    args = ap.parse_args()
    query_sets: dict[Path, list[Path]] = {}
    for item in args.queries:
        root, _, file = item.partition("=")
        query_sets.setdefault(Path(root).resolve(), []).append(Path(file))
    roots = [r.resolve() for r in args.repos]
    if args.timing:
        files = [f for fs in query_sets.values() for f in fs]
        for root in roots:
            timing(
                root,
                files,
                args.index_dir,
                args.timing,
                args.exclude,
                args.deep,
                not args.no_rewrite,
            )
        return 0
    run(roots, query_sets, args.index_dir, args.misses, args.deep)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
