"""The ``groundls`` command line: a thin face over the engine (index, search, similar, stats...)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from groundls import __version__


class CliError(Exception):
    """An error reported as one line on stderr with a non-zero exit."""


def _common(p: argparse.ArgumentParser) -> None:
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


def _filters(p: argparse.ArgumentParser) -> None:
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


def load_config(args: argparse.Namespace) -> Any:
    from groundls.config import Config

    data: dict[str, Any] = {}
    if getattr(args, "config", None):
        try:
            data = json.loads(Path(args.config).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read config {args.config}: {exc}") from exc
    config, warnings = Config.from_dict(data)
    for warning in warnings:
        print(f"groundls: warning: {warning}", file=sys.stderr)
    return config


def open_engine(args: argparse.Namespace, *, ensure_indexed: bool = True) -> Any:
    """Open the workspace's engine; index it first if the index is empty."""
    from groundls.engine import Engine, WorkspaceError

    try:
        engine = Engine.open(args.workspace, load_config(args), args.index_dir)
    except WorkspaceError as exc:
        raise CliError(str(exc)) from exc
    if ensure_indexed and not engine.store.file_checksums():
        _run_index(engine, quiet=not sys.stderr.isatty())
    return engine


def _run_index(engine: Any, quiet: bool) -> Any:
    if quiet:
        return engine.index()
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("[bold]indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[chunks]} chunks · {task.fields[rate]} emb/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=__import__("rich.console").console.Console(stderr=True),
    ) as bar:
        task = bar.add_task("index", total=None, chunks=0, rate="-")
        import time

        started = time.perf_counter()

        def on_progress(p: Any) -> None:
            elapsed = max(time.perf_counter() - started, 1e-6)
            bar.update(
                task,
                total=p.total_files,
                completed=p.done_files,
                chunks=p.chunks,
                rate=f"{p.embedded / elapsed:.0f}",
            )

        return engine.index(progress=on_progress)


def cmd_index(args: argparse.Namespace) -> int:
    if args.path:
        args.workspace = args.path
    engine = open_engine(args, ensure_indexed=False)
    try:
        report = _run_index(engine, quiet=args.quiet or not sys.stderr.isatty())
    finally:
        engine.close()
    if args.json:
        print(json.dumps(report.__dict__, ensure_ascii=False))
        return 0
    skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(report.skipped.items())) or "none"
    sentences = f" (+{report.embedded_parts} sentences)" if report.embedded_parts else ""
    print(
        f"indexed {report.files_indexed} files ({report.files_unchanged} unchanged, "
        f"{report.files_removed} removed), {report.chunks} chunks, embedded {report.embedded}"
        f"{sentences}, "
        f"reused {report.reused}, skipped: {skipped}, {report.seconds:.1f}s"
    )
    for error in report.errors:
        print(f"groundls: warning: {error}", file=sys.stderr)
    return 0


def _hit_json(hit: Any) -> dict[str, Any]:
    return {
        "path": hit.path,
        "start_line": hit.start_line,
        "end_line": hit.end_line,
        "score": hit.score,
        "chunk_id": hit.chunk_id,
        "kind": hit.kind,
        "language": hit.language,
        "title": hit.title,
        "breadcrumb": list(hit.breadcrumb),
    }


def _print_hits(hits: Sequence[Any]) -> None:
    if not hits:
        print("no relevant results in this workspace")
        return
    for i, hit in enumerate(hits, start=1):
        crumb = " > ".join(hit.breadcrumb) if hit.breadcrumb else hit.title
        print(f"{i:2}. {hit.path}:{hit.start_line}-{hit.end_line}  [{hit.kind}] {crumb}")
        print(f"      {hit.snippet}")


def cmd_search(args: argparse.Namespace) -> int:
    engine = open_engine(args)
    try:
        if args.batch:
            for line in sys.stdin:
                line = line.strip()
                if not line:
                    continue
                try:
                    item = json.loads(line)
                    query = item["query"]
                except (ValueError, KeyError, TypeError) as exc:
                    raise CliError(f"bad batch line (want {{'id', 'query'}}): {line[:80]}") from exc
                hits = engine.search(
                    query, k=args.k, paths=args.paths, languages=args.languages, kinds=args.kinds
                )
                out = {"id": item.get("id"), "hits": [_hit_json(h) for h in hits]}
                print(json.dumps(out, ensure_ascii=False), flush=True)
            return 0
        if not args.query:
            raise CliError("search needs a QUERY (or --batch)")
        hits = engine.search(
            " ".join(args.query),
            k=args.k,
            paths=args.paths,
            languages=args.languages,
            kinds=args.kinds,
        )
    finally:
        engine.close()
    if args.json:
        print(json.dumps({"hits": [_hit_json(h) for h in hits]}, ensure_ascii=False))
    else:
        _print_hits(hits)
    return 0


def cmd_similar(args: argparse.Namespace) -> int:
    target = args.target
    path, _, line = target.rpartition(":")
    if not path or not line.isdigit():
        raise CliError(f"expected PATH:LINE, got {target!r}")
    engine = open_engine(args)
    try:
        rel = _relative(engine.workspace, path)
        chunk = engine.chunk_at(rel, int(line))
        if chunk is None:
            raise CliError(f"no indexed chunk at {rel}:{line}")
        hits = engine.similar(chunk.chunk_id, k=args.k)
    finally:
        engine.close()
    if args.json:
        print(
            json.dumps(
                {"chunk": _hit_json(chunk), "hits": [_hit_json(h) for h in hits]},
                ensure_ascii=False,
            )
        )
    else:
        print(f"similar to {chunk.path}:{chunk.start_line}-{chunk.end_line} {chunk.title}")
        _print_hits(hits)
    return 0


def _relative(workspace: Path, path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(workspace).as_posix()
        except ValueError as exc:
            raise CliError(f"{path} is outside the workspace {workspace}") from exc
    return Path(os.path.normpath(p)).as_posix()


def cmd_stats(args: argparse.Namespace) -> int:
    engine = open_engine(args, ensure_indexed=False)
    try:
        stats = engine.stats()
    finally:
        engine.close()
    if args.json:
        print(json.dumps(stats, ensure_ascii=False, indent=2))
        return 0
    print(f"index: {stats['index_path']} ({(stats['index_bytes'] or 0) / 1e6:.1f} MB)")
    print(f"files: {stats['files']}  {_fmt(stats['files_by_kind'])}")
    print(f"chunks: {stats['chunks']}  {_fmt(stats['chunks_by_kind'])}")
    print(f"languages: {_fmt(stats['chunks_by_language'])}")
    print(f"chunk size (chars): {_fmt(stats['chunk_chars'])}")
    print(f"skipped: {_fmt(stats['skipped']) or 'none'}")
    for space, model in stats["models"].items():
        extra = f", + {stats['sentence_vectors']} sentence vectors" if model.get("parts") else ""
        print(f"model[{space}]: {model['model']} ({model['version']}, dim {model['dim']}{extra})")
    return 0


def _fmt(counts: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in counts.items())


def cmd_bench(args: argparse.Namespace) -> int:
    from groundls.bench import main as bench_main

    return bench_main(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="groundls", description="Index a workspace offline and search or ask it."
    )
    parser.add_argument("--version", action="version", version=f"groundls {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("index", help="index the workspace (incremental)")
    _common(p)
    p.add_argument("path", nargs="?", help="workspace folder (same as --workspace)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="hybrid search; indexes first if needed")
    _common(p)
    _filters(p)
    p.add_argument("query", nargs="*")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.add_argument("--batch", action="store_true", help="JSON lines {id, query} on stdin")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("similar", help="chunks most similar to the chunk at PATH:LINE")
    _common(p)
    p.add_argument("target", metavar="PATH:LINE")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_similar)

    p = sub.add_parser("stats", help="index quality report")
    _common(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    # Listed for --help only: main() hands `serve ...` to the language server's own parser.
    sub.add_parser("serve", help="run the language server (`groundls serve --help` for options)")

    p = sub.add_parser("bench", help="measure indexing, search and hover speed")
    _common(p)
    p.add_argument("--synthetic", type=int, default=100_000, help="chunks in the synthetic index")
    p.add_argument("--quick", action="store_true", help="smaller synthetic index")
    p.set_defaults(func=cmd_bench)

    try:
        from groundls.cli_answer import register
    except ImportError:
        pass
    else:
        register(sub, _common, _filters)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["serve"]:
        # The language server parses its own options (--stdio, --tcp, --index-dir, ...).
        from groundls.lsp import main as lsp_main

        return int(lsp_main(args_list[1:]) or 0)
    parser = build_parser()
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"groundls: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("groundls: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI prints one line, never a traceback
        print(f"groundls: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("GROUNDLS_DEBUG"):
            raise
        return 1


if __name__ == "__main__":
    sys.exit(main())
