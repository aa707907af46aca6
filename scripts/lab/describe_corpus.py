"""The upper bound of model-written descriptions of code (issue 82): a copy of a corpus in which
each function and method outside the tests carries, as a comment line just above it, one
sentence the packaged model wrote on what it does; and the question set with its expected lines
moved to match. Index the copy as any corpus: both the English models (its text) and e5 (its
gloss) read the description.

Usage: python scripts/lab/describe_corpus.py CORPUS QUERIES.jsonl DEST QUERIES_OUT.jsonl
Prints the time per chunk and the total. Nothing here is part of the index.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from describe_cost import PROMPT
from groundls.chunkers import chunk_file
from groundls.chunkers.languages import classify

from groundls.answer.model.model_files import resolve_model
from groundls.answer.model.runtime import GenerationStats, LocalLLM

MARK = {"python": "#", "ruby": "#", "shell": "#"}
TESTS = ("_test.go", "/test/", "/tests/", "test_", "Test.java", ".spec.", ".test.")


def main() -> int:
    corpus, queries, dest, queries_out = map(Path, sys.argv[1:5])
    spec, problem = resolve_model()
    if spec is None:
        print(f"no model: {problem}", file=sys.stderr)
        return 2
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(corpus, dest)
    model = LocalLLM(spec, n_ctx=2048)
    model.load()
    moved: dict[str, list[int]] = {}  # path -> the old line numbers a description went above
    took, n = time.perf_counter(), 0
    for path in sorted(corpus.rglob("*")):
        rel = path.relative_to(corpus).as_posix()
        kind = classify(rel) if path.is_file() else None
        if kind is None or kind[1] != "code" or any(t in rel for t in TESTS):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        chunks = [c for c in chunk_file(rel, text) if c.text_type in ("function", "method")]
        lines = text.split("\n")
        above: dict[int, str] = {}
        for chunk in chunks:
            messages = [
                {"role": "system", "content": PROMPT},
                {"role": "user", "content": chunk.text[:2400]},
            ]
            said = "".join(
                model.stream(messages, max_tokens=60, stats=GenerationStats(), temperature=0.0)
            )
            said = " ".join(said.split())
            if said:
                above[chunk.start_line] = said
            n += 1
        if not above:
            continue
        mark = MARK.get(kind[0], "//")
        out = []
        for number, line in enumerate(lines, 1):
            if number in above:
                indent = line[: len(line) - len(line.lstrip())]
                out.append(f"{indent}{mark} {above[number]}")
            out.append(line)
        (dest / rel).write_text("\n".join(out), encoding="utf-8")
        moved[rel] = sorted(above)
        print(f"{rel}: {len(above)} described", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - took
    print(f"{n} chunks described in {seconds:.0f} s ({seconds / max(n, 1):.2f} s a chunk)")

    def at(rel: str, line: int, end: bool) -> int:
        # a description above line L belongs to L's chunk: a range starting at L starts at it
        return line + sum(1 for a in moved.get(rel, []) if a < line or (a == line and end))

    rows = []
    for raw in queries.read_text(encoding="utf-8").splitlines():
        if raw.strip():
            q = json.loads(raw)
            for e in q["expected"]:
                e["start_line"] = at(e["path"], e["start_line"], False)
                e["end_line"] = at(e["path"], e["end_line"], True)
            rows.append(json.dumps(q, ensure_ascii=False))
    queries_out.write_text("\n".join(rows) + "\n", encoding="utf-8")
    model.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
