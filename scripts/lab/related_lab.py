"""The hover's related notes, measured on real repositories with code, docs and tests.

Usage: python scripts/lab/related_lab.py [--index-dir DIR] [--deep] [--sample N] REPO...

For every public function or class of a repository (code outside the tests, a name defined once)
the expected links are derived mechanically, without the product's own rules:
- a doc passage that names it in a code span, and apart, one that names it as code (a span or a
  call in an example) (```evolve```, ``:func:`evolve```, ```Context.invoke()```:
  the span's last name part);
- a test that is named after it (its words hold the name's words) and names it, or that calls
  it (``name(``, not ``def name(``).

Then ``Workspace.related(chunk, 3)`` (what the hover shows) is read for each and scored: a doc
passage that names it among the three notes, notes from the file being read, repeats (two notes
of one symbol or section), "tested in" naming one of its tests, and the time per call (p50, p95).
``--sample N`` prints N symbols with their first test, to check by hand that it exercises them.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from groundls.chunkers.textrules import split_identifier

from groundls.config import Config
from groundls.search.signals import is_change_log, is_test
from groundls.workspace import Workspace

_SPAN = re.compile(r"`+([^`\n]{1,120}?)`+")
_NAME = re.compile(r"[A-Za-z_][\w]*")


def _span_names(text: str) -> set[str]:
    """The last name part of every code span of ``text``."""
    out = set()
    for span in _SPAN.findall(text):
        names = _NAME.findall(span.split("(")[0])
        if names:
            out.add(names[-1])
    return out


_CALL = re.compile(r"([A-Za-z_][\w.]*)\(")


def _called_names(text: str) -> set[str]:
    """The last name part of every call in ``text`` (``app.config.from_envvar(`` in an example)."""
    return {call.rsplit(".", 1)[-1] for call in _CALL.findall(text)}


def _words(name: str) -> list[str]:
    return [w.lower() for w in split_identifier(name)]


def _named_after(test: str, name: str) -> bool:
    mine, theirs = _words(name), _words(test)
    return bool(mine) and any(
        theirs[i : i + len(mine)] == mine for i in range(len(theirs) - len(mine) + 1)
    )


class _Before:
    """What the hover showed before the 42nd session: the first three hits that do not
    overlap the chunk, and no tests."""

    def __init__(self, hits: list, chunk_id: str) -> None:
        self.notes = [_Note(h) for h in hits[:3] if h.chunk_id != chunk_id]
        self.tests: list = []


class _Note:
    def __init__(self, hit) -> None:
        self.hit = hit


@dataclass
class Expected:
    """What a repository's index should link, derived from its chunks by the lab's own rules."""

    #: (chunk_id, path, symbol, kind, text, title) of every chunk
    rows: list[tuple[str, str, str, str, str, str]]
    #: a public name (outside the tests, no leading "_", 3+ characters): its (chunk_id, path)s
    defined: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: a name: the doc passages that name it in a code span
    docs: dict[str, set[str]] = field(default_factory=dict)
    #: the change-log passages
    logs: set[str] = field(default_factory=set)
    #: a name: the doc passages that name it as code (a span, or a call in an example)
    as_code: dict[str, set[str]] = field(default_factory=dict)
    #: (chunk_id, symbol or title, text) of every test chunk
    tests: list[tuple[str, str, str]] = field(default_factory=list)

    def public(self) -> Iterator[tuple[str, str, str]]:
        """(name, chunk_id, path) of every public name defined in one file, by name."""
        for name, places in sorted(self.defined.items()):
            if len({p for _, p in places}) > 1:
                continue  # a name defined in several files: no single expected place
            chunk_id, path = places[0]
            yield name, chunk_id, path

    def tests_of(self, name: str) -> set[str]:
        """The tests named after ``name`` that name it, or that call it."""
        # a call, not a definition (an override in a test's class)
        call = re.compile(
            rf"(?<!def )(?<!fn )(?<!func )(?<!function )(?<![\w$]){re.escape(name)}"
            r"(?:<[^<>()\n]*>)?\s*\("  # a generic's type arguments: new Pair<>(
        )
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
        return {
            t
            for t, tname, text in self.tests
            if (_named_after(tname, name) and word.search(text)) or call.search(text)
        }


def expectations(workspace: Workspace) -> Expected:
    """The links a workspace's index should hold, read from its chunks (not its rules)."""
    rows = workspace.store.conn.execute(
        "SELECT chunk_id, path, symbol, kind, text, title FROM chunks"
    ).fetchall()
    out = Expected(rows)
    for chunk_id, path, symbol, kind, text, title in rows:
        if kind == "doc":
            if is_change_log(path):
                out.logs.add(chunk_id)
            for name in _span_names(text):
                out.docs.setdefault(name, set()).add(chunk_id)
            for name in _span_names(text) | _called_names(text):
                out.as_code.setdefault(name, set()).add(chunk_id)
        elif kind == "code" and is_test(path):
            out.tests.append((chunk_id, symbol or title, text))
        elif kind == "code" and symbol and not symbol.startswith("_") and len(symbol) > 2:
            out.defined.setdefault(symbol, []).append((chunk_id, path))
    return out


def measure(
    root: Path, index_dir: Path, deep: bool, sample: int, misses: bool = False
) -> dict[str, float]:
    workspace = Workspace.open(root, Config(), index_dir)
    try:
        workspace.index()
        while deep and workspace.fill_deep(2000):
            pass
        expected = expectations(workspace)
        rows, docs, logs, as_code = expected.rows, expected.docs, expected.logs, expected.as_code
        tests = expected.tests
        table = {"symbols": 0, "with_doc": 0, "doc_in_notes": 0, "with_test": 0, "tested": 0}
        table.update({"with_code_doc": 0, "code_doc_in_notes": 0})
        table.update({"with_ruled_doc": 0, "ruled_doc_in_notes": 0})
        table.update({"wrong_test": 0, "notes": 0, "own_file": 0, "repeats": 0})
        times: list[float] = []
        checks: list[tuple[str, str]] = []
        for name, chunk_id, path in expected.public():
            expected_tests = expected.tests_of(name)
            expected_docs = docs.get(name, set())
            if not expected_docs and not expected_tests:
                continue
            started = time.perf_counter()
            found = workspace.related(chunk_id, k=3)
            times.append((time.perf_counter() - started) * 1000)
            table["symbols"] += 1
            if isinstance(found, list):  # the code before the 42nd session: hits, no tests
                found = _Before(found, chunk_id)
            notes = [n.hit for n in found.notes]
            table["notes"] += len(notes)
            table["own_file"] += sum(h.path == path for h in notes)
            keys = [(h.path, h.title, *h.breadcrumb) for h in notes]
            table["repeats"] += len(keys) - len(set(keys))
            # the rule: a change log counts only when no other passage names it as code
            others = {c for c in as_code.get(name, set()) if c not in logs}
            ruled = {c for c in expected_docs if c not in logs} if others else expected_docs
            if ruled or others:
                table["with_ruled_doc"] += 1
                table["ruled_doc_in_notes"] += any(h.chunk_id in (ruled or others) for h in notes)
            if name in as_code:
                table["with_code_doc"] += 1
                table["code_doc_in_notes"] += any(h.chunk_id in as_code[name] for h in notes)
            if expected_docs:
                table["with_doc"] += 1
                table["doc_in_notes"] += any(h.chunk_id in expected_docs for h in notes)
                if misses and not any(h.chunk_id in expected_docs for h in notes):
                    shown = "; ".join(f"{h.path} {h.title}" for h in notes)
                    want = "; ".join(
                        f"{row[1]} {row[5]}" for row in rows if row[0] in expected_docs
                    )
                    print(f"   no doc shown: {name} ({path}) -> {shown}\n      expected: {want}")
            if expected_tests:
                table["with_test"] += 1
                table["tested"] += bool(found.tests) and found.tests[0].chunk_id in expected_tests
                if misses and not found.tests:
                    first = next(t for t, _, _ in tests if t in expected_tests)
                    print(f"   no test shown: {name} ({path}), expected e.g. {first}")
            table["wrong_test"] += sum(t.chunk_id not in expected_tests for t in found.tests)
            if misses:
                for t in found.tests:
                    if t.chunk_id not in expected_tests:
                        print(f"   not its test by the lab's rule: {name} ({path}) -> {t.title}")
            if found.tests:
                checks.append(
                    (f"{name} ({path})", f"{found.tests[0].where} {found.tests[0].title}")
                )
        for what, test in random.Random(7).sample(checks, min(sample, len(checks))):
            print(f"   check by hand: {what} -> {test}")
        table["p50_ms"] = statistics.median(times) if times else 0.0
        table["p95_ms"] = sorted(times)[int(0.95 * (len(times) - 1))] if times else 0.0
        table["chunks"] = len(rows)
        return table
    finally:
        workspace.close()


def timing(root: Path, index_dir: Path, n: int) -> None:
    """The hover's time alone on a large index: ``n`` random symbols' related notes."""
    workspace = Workspace.open(root, Config(), index_dir)
    try:
        workspace.index()
        ids = [
            r[0]
            for r in workspace.store.conn.execute(
                "SELECT chunk_id FROM chunks WHERE kind = 'code' AND symbol != ''"
            )
        ]
        chosen = random.Random(7).sample(ids, min(n, len(ids)))
        times = []
        for chunk_id in chosen:
            started = time.perf_counter()
            workspace.related(chunk_id, k=3)
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(
            f"{root.name}: {workspace.store.chunk_count()} chunks, {len(times)} symbols; related "
            f"p50 {statistics.median(times):.1f} ms, p95 {times[int(0.95 * (len(times) - 1))]:.1f}"
            " ms"
        )
    finally:
        workspace.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="+")
    ap.add_argument("--index-dir", default="/tmp/groundls-related-lab")
    ap.add_argument("--deep", action="store_true")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--misses", action="store_true", help="print symbols shown no test")
    ap.add_argument("--timing", type=int, default=0, help="only time N random symbols")
    args = ap.parse_args()
    if args.timing:
        for repo in args.repos:
            timing(Path(repo).resolve(), Path(args.index_dir), args.timing)
        return 0
    for repo in args.repos:
        t = measure(Path(repo).resolve(), Path(args.index_dir), args.deep, args.sample, args.misses)
        notes = t["notes"] or 1
        print(
            f"{Path(repo).name}: {t['symbols']} symbols ({t['chunks']} chunks); doc that names it "
            f"in a span in the notes {t['doc_in_notes']}/{t['with_doc']}, as code (a span or a "
            f"call) {t['code_doc_in_notes']}/{t['with_code_doc']}, a span or else a call, a change"
            f" log only when nothing else names it {t['ruled_doc_in_notes']}/{t['with_ruled_doc']};"
            f" tested in names a test "
            f"{t['tested']}/{t['with_test']}, tests that are not its {t['wrong_test']}; notes "
            f"from the file read {t['own_file']}/{t['notes']} ({100 * t['own_file'] / notes:.0f} %);"
            f" repeats {t['repeats']}; related p50 {t['p50_ms']:.1f} ms, p95 {t['p95_ms']:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
