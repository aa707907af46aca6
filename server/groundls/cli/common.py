"""What every subcommand shares: flags, config, opening (and first indexing) the workspace."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from groundls.config import Config
from groundls.results import MAX_K, IndexProgress, IndexReport, SearchFilters, WorkspaceError
from groundls.workspace import RayPlan, Workspace, store_url

#: Deep-tier chunks embedded between progress-bar updates.
DEEP_STEP = 64


class CliError(Exception):
    """An error reported as one line on stderr with a non-zero exit."""


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workspace", "-w", default=".", help="workspace folder (default: current directory)"
    )
    p.add_argument(
        "--index-dir",
        default=os.environ.get("GROUNDLS_INDEX_DIR"),
        help="folder for index files (default: user cache dir; env GROUNDLS_INDEX_DIR)",
    )
    p.add_argument(
        "--config", help="JSON file with settings (same keys as the LSP 'groundls' section)"
    )
    p.add_argument(
        "--base",
        metavar="FILE",
        help="read this shared base index in place (`groundls index --export`); only the files "
        "that differ are indexed here (setting index.base)",
    )
    p.add_argument(
        "--store",
        metavar="URL",
        help="read the team index served from PostgreSQL (postgresql://user@host/db; the "
        "password from PGPASSWORD or ~/.pgpass); `index --store` publishes to it (setting "
        "index.store, env GROUNDLS_STORE)",
    )


def add_filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--path", action="append", dest="paths", help="path glob filter (repeatable)")
    p.add_argument(
        "--language", action="append", dest="languages", help="language filter (repeatable)"
    )
    p.add_argument(
        "--kind",
        action="append",
        dest="kinds",
        choices=["code", "doc", "config"],
        help="kind filter",
    )


def filters_of(args: argparse.Namespace, k: int | None, most: int = MAX_K) -> SearchFilters:
    """The search filters given on the command line (``-k`` from 1 to ``most``)."""
    checked_k(k, most)
    return SearchFilters.of(
        k,
        getattr(args, "paths", None),
        getattr(args, "languages", None),
        getattr(args, "kinds", None),
    )


def checked_k(k: int | None, most: int = MAX_K) -> None:
    """A clear error for ``-k`` out of range (1 to ``most``)."""
    if k is not None and not 1 <= k <= most:
        raise CliError(f"-k must be from 1 to {most}, got {k}")


def load_config(args: argparse.Namespace) -> Config:
    data: dict[str, Any] = {}
    if getattr(args, "config", None):
        try:
            data = json.loads(Path(args.config).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read config {args.config}: {exc}") from exc
    config, warnings = Config.from_dict(data)
    for warning in warnings:
        print(f"groundls: warning: {warning}", file=sys.stderr)
    if getattr(args, "base", None):
        config.index.base = args.base
    config.index.store = store_url(getattr(args, "store", None) or config.index.store)
    return config


def open_workspace(
    args: argparse.Namespace, *, ensure_indexed: bool = True, own_index: bool = False
) -> Workspace:
    """Open the workspace; index it first if it has no index yet, or a model change left files
    to index again (searching first would find nothing of theirs). ``own_index``: its own
    index even where a served store is named (the one that publishes to it)."""
    config = load_config(args)
    if own_index:
        config.index.store = ""
    try:
        workspace = Workspace.open(args.workspace, config, args.index_dir)
    except WorkspaceError as exc:
        raise CliError(str(exc)) from exc
    if ensure_indexed and (workspace.base is not None or workspace.served):
        workspace.refresh()  # files that differ from the base (a stat-only walk when none do)
    elif ensure_indexed and not workspace.has_current_index:
        run_index(workspace, quiet=not sys.stderr.isatty())
    return workspace


def _bar(label: str, counts: str) -> Progress:
    """A transient progress bar on stderr: ``label``, bar, done/total ``counts``, times."""
    return Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(counts),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=Console(stderr=True),
    )


def run_index(workspace: Workspace, quiet: bool, ray: RayPlan | None = None) -> IndexReport:
    """Index with a progress bar on a terminal (files done, chunks, embeddings per second; on a
    Ray cluster, vectors per space)."""
    if quiet:
        return workspace.index(ray=ray)
    with _bar("indexing", "files · {task.fields[chunks]} chunks · {task.fields[rate]}") as bar:
        task = bar.add_task("index", total=None, chunks=0, rate="-")
        started = time.perf_counter()

        def on_progress(p: IndexProgress) -> None:
            elapsed = max(time.perf_counter() - started, 1e-6)
            rate = f"{p.embedded / elapsed:.0f} emb/s"
            if p.by_space:
                rate = " ".join(f"{s} {n}" for s, n in p.by_space.items())
            bar.update(
                task, total=p.total_files, completed=p.done_files, chunks=p.chunks, rate=rate
            )

        return workspace.index(progress=on_progress, ray=ray)


def run_deep(workspace: Workspace, quiet: bool) -> int:
    """Fill the deep tier now, with a progress bar on a terminal; returns chunks embedded."""
    if quiet:
        return workspace.fill_deep()
    filled, wanted = workspace.deep_status()
    done = 0
    with _bar("deep tier", "chunks") as bar:
        task = bar.add_task("deep", total=wanted, completed=filled)
        while step := workspace.fill_deep(max_chunks=DEEP_STEP):
            done += step
            bar.update(task, completed=min(wanted, filled + done))
    return done


def relative_path(root: Path, path: str) -> str:
    """A command-line path as a workspace-relative POSIX path."""
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(root).as_posix()
        except ValueError as exc:
            raise CliError(f"{path} is outside the workspace {root}") from exc
    return Path(os.path.normpath(p)).as_posix()


def run_batch(
    stdin: TextIO,
    stdout: TextIO,
    fields: tuple[str, ...],
    handle: Callable[[str], dict[str, Any]],
) -> int:
    """JSON lines ``{"id": …, "query": "…"}`` from ``stdin`` (the text under the first of
    ``fields`` present), one JSON line out for each: ``{"id": …, **handle(text)}``, or
    ``{"id": …, "error": "line N: …"}`` for a line that is not such an object or whose text
    ``handle`` refuses (ValueError, as AnswerError is) — the other lines still run. Returns the
    exit status: 1 when any line failed."""
    failures = 0
    for lineno, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        qid: Any = None
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise ValueError("expected a JSON object")
            qid = item.get("id")
            text = next((item[f] for f in fields if f in item), None)
            if not isinstance(text, str):
                raise ValueError(f'missing "{fields[0]}" string')
            row = {"id": qid, **handle(text)}
        except ValueError as exc:
            failures += 1
            row = {"id": qid, "error": f"line {lineno}: {exc}"}
        stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        stdout.flush()
    return 1 if failures else 0
