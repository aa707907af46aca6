"""Markup that reaches the reader: what the answer model reads (the excerpts), the extractive key
lines, the supporting lines and the hover's previews, over Sphinx manuals.

Usage: python scripts/lab/markup_lab.py [--index-dir DIR] [--raw] CORPUS:QUESTIONS ...

QUESTIONS is a JSON-lines file of {"query": ...}, or ``titles`` to ask each section title of the
corpus's reStructuredText as a question. For each question the search runs, its hits are fitted
into excerpts as an answer would read them, and each excerpt, key-line block and hover preview
is checked for a heading's underline, a role (``:func:``), a directive (``.. note::``), a label
(``.. _name:``) or an escape (``\\``); code blocks are left out of the check (code is kept as
written), and code excerpts are counted apart (a docstring's roles are the code as written). ``--raw`` checks the chunks' source text instead (what was shown before the reader's
text existed).
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace
from pathlib import Path

from groundls.answer.stages.extract import Fallback, extractive
from groundls.answer.stages.prompt import fit_excerpts
from groundls.config import Config
from groundls.lsp.hover import _preview
from groundls.workspace import Workspace

MARKUP = re.compile(
    r"^\s*([=~^\"'`#*+-])\1{3,}\s*$"  # an underline
    r"|:[a-z]+(:[a-z]+)*:`"  # a role
    r"|^\s*\.\. [\w:-]+::"  # a directive
    r"|^\s*\.\. _[^:]+:"  # a label
    r"|\\[^\s\\nrtx0'\"]",  # an escape
    re.M,
)


def _prose(text: str) -> str:
    """``text`` without its code blocks (indented after ``::``, fenced, or a code directive's)."""
    out, code, indent = [], False, 0
    for line in text.split("\n"):
        stripped = line.strip()
        if code and (not stripped or len(line) - len(line.lstrip()) > indent):
            continue
        code = False
        if stripped.endswith("::") or stripped.startswith("```"):
            code, indent = True, len(line) - len(line.lstrip())
        out.append(line)
    return "\n".join(out)


def _questions(corpus: Path, spec: str) -> list[str]:
    if spec == "titles":
        titles = []
        for path in sorted(corpus.rglob("*.rst")):
            lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
            for a, b in zip(lines, lines[1:], strict=False):
                if a.strip() and re.fullmatch(r"([=~^\"'`#*+-])\1{3,}", b.strip()):
                    titles.append(a.strip())
        return titles
    return [json.loads(line)["query"] for line in Path(spec).read_text().splitlines() if line]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", nargs="+", metavar="CORPUS:QUESTIONS")
    ap.add_argument("--index-dir", default="/tmp/groundls-markup-lab")
    ap.add_argument("--raw", action="store_true")
    ap.add_argument("--limit", type=int, default=20)
    args = ap.parse_args()
    for spec in args.sets:
        corpus, questions = spec.split(":", 1)
        ws = Workspace.open(Path(corpus), Config(), Path(args.index_dir))
        try:
            ws.index()
            asked = _questions(Path(corpus), questions)[: args.limit]
            shown = {k: [0, 0] for k in ("doc excerpts", "code excerpts", "key lines", "hovers")}
            for question in asked:
                hits = list(ws.search(question))[:5]
                if args.raw:
                    hits = [replace(h, language="text") for h in hits]
                excerpts = fit_excerpts(hits, 900)
                lines = extractive(excerpts, "en", Fallback("missing"), None, 0.0).answer
                docs = [e for e in excerpts if e.hit.kind != "code"]
                for name, texts in (
                    ("doc excerpts", [e.text for e in docs]),
                    ("code excerpts", [e.text for e in excerpts if e.hit.kind == "code"]),
                    ("key lines", [lines]),
                    ("hovers", [_preview(h) for h in hits[:3]]),
                ):
                    for text in texts:
                        shown[name][1] += 1
                        shown[name][0] += bool(MARKUP.search(_prose(text)))
            summary = ", ".join(f"{k} with markup {v[0]}/{v[1]}" for k, v in shown.items())
            print(f"{Path(corpus).name}: {len(asked)} questions; {summary}")
        finally:
            ws.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
