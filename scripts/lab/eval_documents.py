"""A manual printed to PDF against the same manual indexed from its HTML (or Markdown), scored
by content: a hit counts for an expected section when most of the shorter of the two texts is
shared (character 5-grams), so the PDF, whose lines are not the HTML's, is scored the same way
as the HTML it was printed from.

Usage: python scripts/lab/eval_documents.py --work /tmp/ge --set devref-ja [--set ...] [--deep]
       [--scan]

With ``--scan`` the printed PDF is also "scanned": each page rendered at 200 dpi, turned by up to
1.5 degrees, blurred, grained, greyed and saved as a JPEG in a PDF with no text layer. That copy
is indexed with its OCR tier filled and scored on the same questions (``scan``, and its nDCG@10
over the PDF's), and every ``--cer-every``-th page is read by the product's OCR engine in this
process: characters wrong against the printed PDF's text layer (edit distance, whitespace left
out, after NFKC) and seconds a page.

The PDF is one file per set: the set's pages in name order, their bodies joined and printed by
Chromium with its running header and footer (date, title, address, page numbers), as a browser
prints a manual. The HTML side is the set's own corpus. Both are indexed and searched here,
in-process, through the same workspace API the CLI uses; nDCG@10 with binary gain, each
expected section credited once (as ``score.py``).
"""

from __future__ import annotations

import argparse
import html
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval  # noqa: E402

from groundls.config import Config  # noqa: E402
from groundls.results import SearchFilters  # noqa: E402
from groundls.workspace import Workspace  # noqa: E402

_BODY = re.compile(r"<body[^>]*>(.*?)</body\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_SCRIPT = re.compile(r"<(script|style)[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_MARKUP = re.compile(r"[#|*`>\-_=]+")
_BULLET = re.compile(r"^[ \t]*[•・◦▪●■-][ \t]*", re.MULTILINE)
#: Share of the shorter text's 5-grams the two must have in common to count as the same place.
SHARED = 0.5


def _plain(text: str) -> str:
    """Text without tags, markup or spaces: what a reader sees, comparable across formats."""
    text = html.unescape(_TAG.sub(" ", _SCRIPT.sub(" ", text)))
    return re.sub(r"\s+", "", _MARKUP.sub(" ", text))


def _grams(text: str, n: int = 5) -> set[str]:
    plain = _plain(text)
    return {plain[i : i + n] for i in range(max(0, len(plain) - n + 1))}


def _same_place(hit: set[str], expected: set[str]) -> bool:
    if not hit or not expected:
        return False
    return len(hit & expected) / min(len(hit), len(expected)) >= SHARED


def build_pdf(corpus: Path, out: Path) -> Path:
    """The corpus's pages (HTML, or Markdown through pandoc) as one PDF printed by Chromium."""
    if out.exists():
        return out
    bodies = []
    for page in sorted(corpus.rglob("*")):
        if page.suffix in (".html", ".htm"):
            source = page.read_text(encoding="utf-8", errors="replace")
            match = _BODY.search(source)
            bodies.append(_SCRIPT.sub("", match.group(1) if match else source))
        elif page.suffix == ".md":
            done = subprocess.run(
                ["pandoc", "-f", "markdown", "-t", "html", str(page)],
                check=True,
                capture_output=True,
                text=True,
            )
            bodies.append(done.stdout)
    style = (
        "body{font-family:'IPAPGothic','IPAGothic',sans-serif;font-size:11pt}"
        ".page{page-break-before:always}pre{white-space:pre-wrap}"
    )
    joined = "".join(f'<div class="page">{b}</div>' for b in bodies)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "manual.html"
        src.write_text(
            f'<!doctype html><html><head><meta charset="utf-8"><title>manual</title>'
            f"<style>{style}</style></head><body>{joined}</body></html>",
            encoding="utf-8",
        )
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--print-to-pdf={out}",
                src.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=1800,
            env={**os.environ, "HOME": tmp},
        )
    return out


def scan_pdf(pdf: Path, out: Path, dpi: int = 200, seed: int = 3) -> Path:
    """``pdf`` as a scanner makes it: every page an image at ``dpi`` (tilted, blurred, grained,
    on grey paper, JPEG quality 60) in a PDF with no text layer."""
    if out.exists():
        return out
    import random

    import numpy as np
    import pypdfium2 as pdfium
    from PIL import Image, ImageFilter

    rng = random.Random(seed)
    grain = np.random.default_rng(seed)
    document = pdfium.PdfDocument(pdf)
    pages = []
    try:
        for page in document:
            image = page.render(scale=dpi / 72).to_pil().convert("L")
            turn = rng.uniform(0.3, 1.5) * rng.choice((-1, 1))
            image = image.rotate(turn, resample=Image.BICUBIC, fillcolor=255)
            grey = np.asarray(image.filter(ImageFilter.GaussianBlur(0.7)), dtype=np.float32)
            grey = np.clip((grey + grain.normal(0, 10, grey.shape)) * 0.92 + 10, 0, 255)
            jpeg = io.BytesIO()
            Image.fromarray(grey.astype(np.uint8)).save(jpeg, "JPEG", quality=60)
            pages.append(Image.open(io.BytesIO(jpeg.getvalue())).convert("RGB"))
    finally:
        document.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    pages[0].save(out, save_all=True, append_images=pages[1:], resolution=dpi)
    return out


def _letters(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (two rows)."""
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, start=1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def _aligned_edits(read: str, truth: str) -> int:
    """Edits that turn ``read`` into ``truth`` along difflib's alignment: Levenshtein's distance
    or a little more, in seconds where the exact distance of two long texts takes minutes."""
    import difflib

    matcher = difflib.SequenceMatcher(None, read, truth, autojunk=False)
    return sum(
        max(a2 - a1, b2 - b1) for op, a1, a2, b1, b2 in matcher.get_opcodes() if op != "equal"
    )


def _pages(read: object) -> dict[str, str]:
    """A document's text as the index holds it, by place label ("p. 3"), markup, the
    "(scanned)" note and list bullets left out (a printed list's bullets are drawn, not text:
    OCR reads them, the text layer has none)."""
    lines = read.text.splitlines()  # type: ignore[attr-defined]
    places = read.places  # type: ignore[attr-defined]
    out = {}
    for (start, label), (end, _) in zip(places, [*places[1:], (len(lines) + 1, "")], strict=True):
        text = _BULLET.sub("", "\n".join(lines[start - 1 : end - 1]))
        out[label.replace(" (scanned)", "")] = _letters(re.sub(r"[#*|\\`>]", "", text))
    return out


def character_errors(pdf: Path, scan: Path, every: int) -> dict:  # type: ignore[type-arg]
    """Every ``every``-th page of ``scan`` and of ``pdf`` (together, so running headers repeat
    as they do in the whole), each read as the index reads it, the scan by the product's OCR
    engine: the share of characters wrong against the text layer's reading, page by page, and
    the seconds a page took."""
    import pypdfium2 as pdfium

    from groundls.index.files.documents.pdf import read_pdf
    from groundls.index.files.documents.scans import Ocr

    def sample(path: Path) -> bytes:
        whole, part = pdfium.PdfDocument(path), pdfium.PdfDocument.new()
        try:
            part.import_pages(whole, list(range(0, len(whole), every)))
            out = io.BytesIO()
            part.save(out)
            return out.getvalue()
        finally:
            part.close()
            whole.close()

    ocr = Ocr(time_s=1e9, max_pages=10**6)
    truth = _pages(read_pdf(sample(pdf)))
    started = time.perf_counter()
    read = _pages(read_pdf(sample(scan), ocr.pdf_page))
    seconds = time.perf_counter() - started
    # the whole sample at once: a paragraph run on over a page break stays at the page it began
    # on in one reading and not in the other, which is no error of the characters
    errors = _aligned_edits("".join(read.values()), "".join(truth.values()))
    chars = sum(len(text) for text in truth.values())
    return {
        "pages": len(truth),
        "cer": round(errors / max(1, chars), 4),
        "s_per_page": round(seconds / max(1, len(truth)), 2),
        "confidence": round(min(ocr.confidence.values(), default=0.0), 3),
    }


def _expected_texts(corpus: Path, query: dict) -> list[set[str]]:  # type: ignore[type-arg]
    out = []
    for e in query["expected"]:
        lines = (corpus / e["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
        out.append(_grams("\n".join(lines[e["start_line"] - 1 : e["end_line"]])))
    return out


def _ndcg(ranked: list[set[str]], expected: list[set[str]], k: int = 10) -> tuple[float, bool]:
    """nDCG@k, binary gain, each expected section credited once; and whether rank 1 is right."""
    credited: set[int] = set()
    dcg = 0.0
    first = False
    for rank, hit in enumerate(ranked[:k], start=1):
        for i, wanted in enumerate(expected):
            if i not in credited and _same_place(hit, wanted):
                credited.add(i)
                dcg += 1 / math.log2(rank + 1)
                first = first or rank == 1
                break
    ideal = sum(1 / math.log2(r + 1) for r in range(1, min(k, len(expected)) + 1))
    return dcg / ideal, first


def score(root: Path, index: Path, queries: list[dict], corpus: Path, deep: bool) -> dict:  # type: ignore[type-arg]
    config, _ = Config.from_dict({})
    workspace = Workspace.open(root, config, index)
    try:
        started = time.perf_counter()
        report = workspace.index()
        index_s = time.perf_counter() - started
        if deep:
            workspace.fill_deep()
        figures, firsts, per = [], [], {}
        for q in queries:
            if not q["expected"]:
                continue
            hits = workspace.search(q["query"], SearchFilters(k=10)).hits
            ndcg, first = _ndcg([_grams(h.text) for h in hits], _expected_texts(corpus, q))
            figures.append(ndcg)
            firsts.append(first)
            per[q["id"]] = round(ndcg, 3)
        return {
            "ndcg@10": round(sum(figures) / len(figures), 3),
            "first": round(sum(firsts) / len(firsts), 3),
            "queries": len(figures),
            "chunks": workspace.stats()["chunks"],
            "index_s": round(index_s, 1),
            "files_indexed": report.files_indexed,
            "per_query": per,
        }
    finally:
        workspace.close()


def main() -> int:
    here = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(here.parent / "shared"))
    ap.add_argument("--work", default="/tmp/groundls-eval")
    ap.add_argument("--set", action="append", choices=list(eval_retrieval.SETS), required=True)
    ap.add_argument("--deep", action="store_true", help="fill the deep tier before searching")
    ap.add_argument("--per-query", action="store_true", help="each question's nDCG@10 too")
    ap.add_argument("--scan", action="store_true", help="a scanned copy too (see the docstring)")
    ap.add_argument("--cer-every", type=int, default=5, help="OCR every N-th page for the CER")
    args = ap.parse_args()
    shared = Path(args.shared).resolve() / "eval"
    work = Path(args.work).resolve()
    for name in args.set:
        corpus, queries_file = eval_retrieval._fetched(
            name, work, shared, here / "scripts" / "lab" / "sets"
        )
        queries = [
            json.loads(line)
            for line in queries_file.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        pdf = build_pdf(corpus, work / "pdf" / name / "manual.pdf")
        index = work / "index"
        source = score(corpus, index, queries, corpus, args.deep)
        printed = score(pdf.parent, index, queries, corpus, args.deep)
        figures = {"set": name, "deep": args.deep, "source": source, "pdf": printed}
        if args.scan:
            scan = scan_pdf(pdf, work / "scan" / name / "manual.pdf")
            figures["scan"] = score(scan.parent, index, queries, corpus, True)
            figures["scan"]["of_pdf"] = round(
                figures["scan"]["ndcg@10"] / max(1e-9, printed["ndcg@10"]), 3
            )
            figures["ocr"] = character_errors(pdf, scan, args.cer_every)
        for side in ("source", "pdf", "scan"):
            if side in figures and not args.per_query:
                figures[side].pop("per_query")
        print(json.dumps(figures, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
