"""A teammate's first search against a shared base index (issue 35; BENCHMARKS.md).

    python scripts/lab/bench_base.py CHECKOUT [--work DIR]

CHECKOUT is a git work tree (the CI machine's). It is indexed (the fast tier) and exported as a
base; a second clone (other paths and modification times, as a teammate's) opens with that base
and searches: the time from opening the workspace to the first search's results. Its search
latency and results are compared with the CI machine's own whole index of the same commit. Then
one file is edited, one added and one deleted, and the overlay is checked by searching for each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from groundls.config import Config
from groundls.workspace import Workspace


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--query", default="how are database connections pooled")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="groundls-base-"))
    base = work / "shared" / f"{args.checkout.name}.groundls"

    started = time.perf_counter()
    ci = Workspace.open(args.checkout, Config(), work / "ci-index")
    report = ci.index()
    built = time.perf_counter() - started
    started = time.perf_counter()
    manifest = ci.export(base)
    exported = time.perf_counter() - started
    ci.close()
    print(f"CI: {report.files_indexed} files, {report.chunks} chunks indexed in {built:.0f} s; "
          f"exported {base.stat().st_size / 1e6:.0f} MB in {exported:.1f} s "
          f"(commit {manifest.commit[:12]})")  # fmt: skip

    mine = work / "teammate" / args.checkout.name
    if mine.exists():
        shutil.rmtree(mine)
    subprocess.run(["git", "clone", "-q", str(args.checkout), str(mine)], check=True)
    # the teammate in a fresh process: models, index and copies loaded from nothing
    return subprocess.run(
        [
            sys.executable,
            __file__,
            "--teammate",
            str(mine),
            str(base),
            str(work),
            args.query,
            str(args.checkout),
        ]
    ).returncode


QUESTIONS = (
    "how are database connections pooled",
    "where are routes matched to controllers",
    "render a partial with local variables",
    "validates uniqueness of an attribute",
    "ActiveJob retry_on",
    "how are cookies encrypted",
    "has_many through association",
    "send an email with an attachment",
)


def p50_ms(ws: Workspace, runs: int = 3) -> tuple[float, list[list[str]]]:
    """Search p50 (the questions asked ``runs`` times, the first round not timed) and each
    question's best ten chunk ids."""
    found = [[h.chunk_id for h in ws.search(q).hits[:10]] for q in QUESTIONS]
    took = []
    for _ in range(runs):
        for q in QUESTIONS:
            started = time.perf_counter()
            ws.search(q)
            took.append((time.perf_counter() - started) * 1000)
    return statistics.median(took), found


def teammate(mine: Path, base: Path, work: Path, query: str, checkout: Path) -> int:
    config = Config()
    config.index.base = str(base)
    started = time.perf_counter()
    ws = Workspace.open(mine, config, work / "my-index")
    opened = time.perf_counter() - started
    refreshed = ws.refresh()
    ready = time.perf_counter() - started
    hits = ws.search(query).hits
    first = time.perf_counter() - started
    print(f"teammate (a fresh process): opened (base attached, models loaded and checked) in "
          f"{opened:.1f} s; files checked against the base in {ready - opened:.1f} s "
          f"({refreshed.files_indexed if refreshed else 0} re-indexed); first search results "
          f"{first:.1f} s after opening (target <= 10 s): {hits[0].path if hits else '-'}")  # fmt: skip
    layered_ms, layered_found = p50_ms(ws)
    whole = Workspace.open(checkout, Config(), work / "ci-index")
    whole_ms, whole_found = p50_ms(whole)
    whole.close()
    same = sum(a == b for a, b in zip(layered_found, whole_found, strict=True))
    print(f"search p50 {layered_ms:.1f} ms over the base against {whole_ms:.1f} ms over the CI "
          f"machine's whole index; the same ten results for {same}/{len(QUESTIONS)} questions")  # fmt: skip

    # an edit, a new file and a deleted one
    ruby = sorted(p for p in mine.rglob("*.rb") if ".git" not in p.parts)
    victim, edited = ruby[0], ruby[-1]
    edited_rel = edited.relative_to(mine).as_posix()
    victim_rel = victim.relative_to(mine).as_posix()
    edited.write_text(edited.read_text() + "\ndef quokka_lantern_sift\n  :edited\nend\n")
    (mine / "OVERLAY_NOTES.md").write_text("# Overlay\n\nmarmot_narwhal_drum lives here.\n")
    victim.unlink()
    started = time.perf_counter()
    again = ws.refresh()
    took = time.perf_counter() - started
    edit_hits = [h.path for h in ws.search("quokka_lantern_sift").hits]
    new_hits = [h.path for h in ws.search("marmot_narwhal_drum").hits]
    still = ws.store.file_checksum(victim_rel) is not None
    status = ws.base_status() or {}
    ws.close()
    overlay = sum(p.stat().st_size for p in ws.index_path.parent.glob(ws.index_path.name + "*"))
    checks = {
        "edited file first": edit_hits[:1] == [edited_rel],
        "new file first": new_hits[:1] == ["OVERLAY_NOTES.md"],
        "deleted file gone": not still,
    }
    print(f"overlay after an edit, a new file and a deletion: refreshed in {took:.1f} s "
          f"({again.files_indexed if again else 0} indexed, "
          f"{again.files_removed if again else 0} removed); {status.get('overlaid')} files differ "
          f"from the base; {checks}; the workspace's own index {overlay / 1e6:.2f} MB beside "
          f"the {os.path.getsize(base) / 1e6:.0f} MB base")  # fmt: skip
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--teammate"]:
        sys.exit(
            teammate(
                Path(sys.argv[2]),
                Path(sys.argv[3]),
                Path(sys.argv[4]),
                sys.argv[5],
                Path(sys.argv[6]),
            )
        )
    sys.exit(main())
