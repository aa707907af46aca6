"""Real documents and images as the index reads them: each PDF, image or office file under the
folders given is read in the bounded child process, first as the fast index reads it (text
layers only), then as the OCR tier does, and listed with what came of it: the characters and
places read, or the reason it was refused, and the seconds each read took.

A user's workspace holds files nobody wrote for us: a manual's screenshots, a PDF exported from a
vector drawing, a scan. This shows which of them the fast index leaves to OCR and what OCR then
makes of them. Timings live here, not in the tests.

    python scripts/lab/bench_real_documents.py DIR [DIR ...] [--limit 40] [--show 120] [--save DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from groundls.index.files.documents import DocumentRefused, extract_bounded
from groundls.index.files.documents.base import Extracted, document_format
from groundls.index.files.documents.scans import MIN_IMAGE_BYTES, OCR_MEMORY, OCR_TIME_S


def _read(path: Path, rel: str, ocr: bool) -> tuple[str, float, Extracted | None]:
    """What one read made of the file, in a line, its seconds, and the read (None if refused).
    The OCR read is bounded as the OCR tier bounds it (``reading._read_by_ocr``), the fast read
    as the index run does."""
    t0 = time.perf_counter()
    try:
        if ocr:
            read = extract_bounded(
                path, rel, ocr=True, time_limit=OCR_TIME_S + 60, memory=OCR_MEMORY
            )
        else:
            read = extract_bounded(path, rel)
    except DocumentRefused as refused:
        line = f"refused ({refused.reason}): {refused.message}"
        return line, time.perf_counter() - t0, None
    # places in reading order (a sorted set put "p. 10" before "p. 2")
    places = list(dict.fromkeys(label for _, label in read.places))
    shown = ", ".join(places[:3]) + (f" … {len(places)} places" if len(places) > 3 else "")
    units = f"; {read.units} units" if read.units else ""
    waiting = f"; {read.waiting} pages wait for OCR" if read.waiting else ""
    cut = f"; cut: {read.cut}" if read.cut else ""
    line = f"{len(read.text):,} chars [{shown}]{units}{waiting}{cut}"
    return line, time.perf_counter() - t0, read


def _listed(path: Path) -> bool:
    """Whether the index lists ``path`` as a document: a small image is left out unread (an
    icon), as the walk leaves it (``walk.py``); a small PDF is read."""
    fmt = document_format(path.name)
    return fmt is not None and (fmt != "image" or path.stat().st_size >= MIN_IMAGE_BYTES)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--limit", type=int, default=40, help="files read at most")
    ap.add_argument("--show", type=int, default=0, help="print this many characters of OCR text")
    ap.add_argument("--save", type=Path, help="write each OCR read's whole text to this folder")
    args = ap.parse_args()
    files = [
        p
        for folder in args.folders
        for p in sorted(folder.rglob("*"))
        if p.is_file() and _listed(p)
    ][: args.limit]
    for path in files:
        rel = path.name
        fast, fast_s, fast_read = _read(path, rel, ocr=False)
        print(f"{path}  ({path.stat().st_size:,} bytes)", flush=True)
        print(f"  fast  {fast_s:6.1f} s  {fast}", flush=True)
        # OCR reads what the fast read left: a refused file, or a PDF's pages without text
        if fast_read is not None and not fast_read.waiting:
            continue
        deep, deep_s, deep_read = _read(path, rel, ocr=True)
        print(f"  OCR   {deep_s:6.1f} s  {deep}", flush=True)
        if args.show and deep_read is not None:
            print("  | " + " ".join(deep_read.text.split())[: args.show], flush=True)
        if args.save and deep_read is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"{path.name}.ocr.md").write_text(deep_read.text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
