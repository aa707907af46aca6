"""How long the chunkers take over files written to be slow: long runs of one markup character.

A user's workspace may hold a broken page, a generated line or a file of stray brackets. A
chunker whose regular expression or parser backtracks over such a line holds up the whole index
(a Markdown heading of 10,000 backticks took 26 s, 10,000 characters of ``<a `` in an HTML page
8 s; BENCHMARKS.md). Each file type is chunked over each pattern in four shapes (one long line,
a heading of it, many short lines, under a setext title), every file about 10,000 characters;
prints the slowest and every one over ``--slow`` seconds. Timings live here, not in the tests.

    python scripts/lab/bench_hostile_files.py [--slow 0.2]
"""

from __future__ import annotations

import argparse
import time

from groundls.chunkers import chunk_file

PATTERNS = (
    "`", "[", "*", "<", "=", "#", "-", "|", ":", "_", "![", "<a ", "x <y ", "(", "\\", "'", '"',
    "..", "。", "、", " ", "a ", "::", "{", "}", "&", "&#", "<!--", "]]>", "<![CDATA[",
)  # fmt: skip
EXTENSIONS = ("md", "rst", "html", "txt", "adoc", "py", "js", "ts", "yaml", "xml", "json", "toml",
              "c", "go", "rs", "java", "rb", "php")  # fmt: skip
SIZE = 10_000


def shapes(pattern: str) -> dict[str, str]:
    """The four files a pattern is tried in, each about ``SIZE`` characters."""
    run = pattern * (SIZE // len(pattern))
    return {
        "line": run,
        "heading": "# " + run,
        "lines": (pattern * max(1, 50 // len(pattern)) + "\n") * (SIZE // 50),
        "setext": "Title\n=====\n" + run,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slow", type=float, default=0.2, help="report files slower than this (s)")
    args = ap.parse_args()
    timed: list[tuple[float, str, str, str]] = []
    started = time.perf_counter()
    for ext in EXTENSIONS:
        for pattern in PATTERNS:
            for shape, text in shapes(pattern).items():
                t0 = time.perf_counter()
                chunk_file(f"hostile.{ext}", text)
                timed.append((time.perf_counter() - t0, ext, shape, pattern))
    timed.sort(reverse=True)
    print(f"{len(timed)} files of ~{SIZE:,} characters in {time.perf_counter() - started:.1f} s")
    for seconds, ext, shape, pattern in timed:
        if seconds < args.slow and seconds < timed[min(4, len(timed) - 1)][0]:
            break
        print(f"  {seconds:7.3f} s  .{ext:<5} {shape:<8} {pattern!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
