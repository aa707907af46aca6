"""``index``, ``search``, ``status`` and ``stats``: the CLI face of the workspace's index."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from groundls import bench, wire
from groundls.cli import store
from groundls.cli.common import (
    CliError,
    add_common,
    add_filters,
    filters_of,
    load_config,
    open_workspace,
    run_batch,
    run_deep,
    run_index,
)
from groundls.results import Explanation, Hit, QuestionLanguage
from groundls.workspace import (
    RayPlan,
    RayUnavailable,
    describe_base,
)


def register(sub: Any) -> None:
    p = sub.add_parser("index", help="index the workspace (incremental)")
    add_common(p)
    p.add_argument("path", nargs="?", help="workspace folder (same as --workspace)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    p.add_argument(
        "--deep",
        action="store_true",
        help="also fill the deep tier (MiniLM vectors) now; the language server fills it in "
        "the background",
    )
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="chunk and embed on a Ray cluster (ADDRESS, e.g. ray://head:10001 or 'auto'; "
        "without one a local cluster); needs pip install 'groundls[ray]'",
    )
    p.add_argument(
        "--export",
        metavar="FILE",
        help="then write the index to FILE as a base for others (--base FILE, index.base)",
    )
    p.add_argument("--workers", type=int, help="Ray actors (default: the cluster's CPUs)")
    p.add_argument("--cpus-per-worker", type=float, default=1.0, help="CPUs of each Ray actor")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="hybrid search; indexes first if needed")
    add_common(p)
    add_filters(p)
    p.add_argument("query", nargs="*")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.add_argument("--batch", action="store_true", help="JSON lines {id, query} on stdin")
    p.add_argument(
        "--explain",
        action="store_true",
        help="for each hit, the lists that found it (rank, weight, share) and the signals that "
        "moved it",
    )
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("status", help="the index, its tiers and the answer engine and model")
    add_common(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("stats", help="index quality report")
    add_common(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser(
        "mcp", help="run the MCP server over stdio for coding agents (search, read, ask...)"
    )
    add_common(p)
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("bench", help="measure indexing, search and hover speed")
    add_common(p)
    p.add_argument("--synthetic", type=int, default=100_000, help="chunks in the synthetic index")
    p.add_argument("--quick", action="store_true", help="smaller synthetic index")
    p.add_argument(
        "--answers",
        metavar="FILE",
        help="instead: answer these questions (one per line, or JSON lines with a query)",
    )
    p.add_argument(
        "--load", type=int, default=0, help="with --answers: again beside 1..N busy processes"
    )
    p.set_defaults(func=cmd_bench)


def cmd_index(args: argparse.Namespace) -> int:
    if args.path:
        args.workspace = args.path
    # --store: the index is built here as always, then published to that store (without it, a
    # GROUNDLS_STORE names the store this workspace's overlay lies over, as for a search)
    publish_to, args.store = args.store or "", None
    workspace = open_workspace(args, ensure_indexed=False, own_index=bool(publish_to))
    quiet = args.quiet or not sys.stderr.isatty()
    ray = None
    if args.ray:
        # the deep tier is embedded on the cluster too; what it leaves (a model server's space)
        # is filled here afterwards
        ray = RayPlan(args.ray, args.workers, args.cpus_per_worker, deep=args.deep)
    try:
        try:
            report = run_index(workspace, quiet=quiet, ray=ray)
        except RayUnavailable as exc:
            raise CliError(str(exc)) from None
        deep = run_deep(workspace, quiet=quiet) if args.deep else 0
        filled, wanted = workspace.deep_status()
        scans = workspace.stats()["scans"]
        wanted -= 0 if scans["ocr"] else scans["files_waiting"]  # counted there as one each
        unavailable = workspace.unavailable_spaces
        manifest = workspace.export(Path(args.export)) if args.export else None
        published = store.publish(workspace, publish_to, quiet) if publish_to else None
    finally:
        workspace.close()
    if args.json:
        out = wire.report_json(report)
        out["deep"] = {"embedded": deep, "filled": filled, "wanted": wanted}
        out["scans"] = scans
        if manifest is not None:
            out["export"] = {"file": Path(args.export).name, **asdict(manifest)}
        if published is not None:
            out["published"] = asdict(published)
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(report.summary)
    _print_skipped(report.skipped_files)
    if manifest is not None:
        commit = manifest.commit[:12] or "no git commit"
        print(
            f"exported {Path(args.export).name}: {manifest.files} files, {manifest.chunks} chunks,"
            f" {commit}{' (with local changes)' if manifest.dirty else ''}"
        )
    if published is not None:
        store.print_published(published, publish_to)
    if args.deep or filled < wanted:
        later = "" if args.deep else _LATER
        print(f"deep tier: {filled} of {wanted} chunks ready{later}")
    if scans_line := _scans_line(scans):
        print(scans_line.strip())
    for error in report.errors:
        print(f"groundls: warning: {error}", file=sys.stderr)
    for space, why in unavailable.items():
        print(f"groundls: warning: the {space} space waits: {why}", file=sys.stderr)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """The MCP face; imported only here, so the other subcommands do not load the MCP SDK."""
    import logging

    from groundls.mcp.server import serve

    root = Path(args.workspace).expanduser().resolve()
    if not root.is_dir():
        raise CliError(f"workspace {args.workspace} is not a folder")
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="groundls %(levelname)s %(name)s: %(message)s",
    )
    index_dir = Path(args.index_dir).expanduser() if args.index_dir else None
    return serve(root, load_config(args), index_dir)


def _print_hits(hits: Sequence[Hit], explanations: Sequence[Explanation] = ()) -> None:
    if not hits:
        print("no relevant results in this workspace")
        return
    for i, hit in enumerate(hits, start=1):
        crumb = " > ".join(hit.breadcrumb) if hit.breadcrumb else hit.title
        print(f"{i:2}. {hit.where}  [{hit.kind}] {crumb}")
        print(f"      {hit.snippet}")
        if i <= len(explanations):
            _print_explanation(explanations[i - 1])


def _print_ranking(ranking: dict[str, Any]) -> None:
    """The list weights in force (see groundls.search.lists.weights_in_force)."""
    for language in ("english", "japanese"):
        weights = ", ".join(f"{name} {w:g}" for name, w in ranking[language].items() if w)
        print(f"ranking, {language} questions: {weights}")
    for rule in ranking["per_question"]:
        print(f"  per question: {rule}")


def _print_language(language: QuestionLanguage) -> None:
    """The language stage's decision, before the explained hits."""
    spaces = ", ".join(f"{space} {w:g}" for space, w in language.spaces.items())
    print(f"question: {language.language} ({language.script}); own words searched in: {spaces}")
    searched = f" as {language.searched_as!r}" if language.searched_as else ""
    print(f"  English rewrite: {language.rewrite}{searched}")
    translated = f" as {language.translated!r}" if language.translated else ""
    print(f"  Japanese translation: {language.translation}{translated}")
    if language.leaning:
        lean = ", ".join(f"{k} {v:.3f}" for k, v in language.leaning.items())
        print(f"  nearest passage by language: {lean}")
    if language.unlikely:
        print(f"  passages in {language.unlikely!r} count half (the unlikely answer)")
    if language.names_nothing_here:
        print("  it names nothing in this workspace")


def _print_explanation(why: Explanation) -> None:
    """``score = fused x signals``, then each list's rank, weight and share of the fused score."""
    moved = " ".join(f"{name} x{value:g}" for name, value in why.signals)
    print(f"      score {why.score:.4f} = fused {why.fused:.4f}" + (f" x {moved}" if moved else ""))
    for place in why.lists:
        print(
            f"        {place.name:<28} #{place.rank:<3} weight {place.weight:<6g}"
            f" {place.share:6.1%}"
        )


def cmd_search(args: argparse.Namespace) -> int:
    filters = filters_of(args, args.k)
    workspace = open_workspace(args)
    try:
        if args.batch:
            return run_batch(
                sys.stdin,
                sys.stdout,
                ("query",),
                lambda query: wire.search_json(
                    workspace.search(query, filters, explain=args.explain)
                ),
            )
        if not args.query:
            raise CliError("search needs a QUERY (or --batch)")
        result = workspace.search(" ".join(args.query), filters, explain=args.explain)
    finally:
        workspace.close()
    if args.json:
        print(json.dumps(wire.search_json(result), ensure_ascii=False))
    else:
        if result.language is not None:
            _print_language(result.language)
        _print_hits(result, result.explanations)
        if result:
            print(f"confidence: {result.confidence} ({result.reason})")
        if result.notice:
            print(f"note: {result.notice}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    workspace = open_workspace(args, ensure_indexed=False)
    try:
        stats = workspace.stats()
        out = {
            "workspace": workspace.root.name,
            "files": stats["files"],
            "chunks": stats["chunks"],
            "tiers": workspace.tiers(),
            "unavailable": workspace.unavailable_spaces,
            "answers": workspace.answers.status(),
            "memory": stats["memory"],
            "sends_to": workspace.sends_to(),
            "base": workspace.base_status(),
            "ranking": workspace.ranking(),
            "scans": stats["scans"],
        }
    finally:
        workspace.close()
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(f"workspace: {out['workspace']}: {out['files']} files, {out['chunks']} chunks")
    for tier in out["tiers"]:
        kind = "deep" if tier["deep"] else "fast"
        reads = "any language" if "*" in tier["reads"] else ", ".join(tier["reads"])
        print(
            f"  {kind} tier {tier['space']}: {tier['model']}, {tier['filled']} of {tier['wanted']}"
            f"; reads {reads}"
        )
    for space, why in out["unavailable"].items():
        print(f"  {space}: waiting ({why})")
    if scans := _scans_line(out["scans"]):
        print(scans)
    if out["base"]:
        print(describe_base(out["base"]))
    answers = out["answers"]
    state = "loaded" if answers["loaded"] else "not loaded (loads on the first question)"
    load = f", loaded in {answers['load_ms']:.0f} ms" if answers.get("load_ms") else ""
    print(f"answers: {answers['engine']} engine, {answers['model'] or 'no model'}: {state}{load}")
    if answers.get("notice"):
        print(f"  note: {answers['notice']}")
    memory = out["memory"]
    loaded = ", ".join(memory["embedders_loaded"]) or "none"
    print(
        f"memory (this process): resident {memory['resident_mb']} MB, private "
        f"{memory['private_mb']} MB; embedding models loaded: {loaded}"
    )
    _print_ranking(out["ranking"])
    for note in out["sends_to"]:
        print(f"privacy: {note}")
    return 0


_LATER = (
    " (search uses what is ready; `groundls index --deep` fills it now, the language server in"
    " the background)"
)


def _scans_line(scans: dict[str, Any]) -> str:
    """The OCR tier in words ("" when the workspace has nothing scanned)."""
    read, waiting = scans["pages_read"], scans["files_waiting"]
    if not read and not waiting:
        return ""
    if waiting and scans["ocr"]:
        return f"  OCR tier: {read} pages read; {waiting} files wait ({scans['ocr']})"
    line = f"  OCR tier: {read} scanned pages and images read, {waiting} files waiting"
    if scans["pages_unsure"]:
        line += (
            f"\n  {scans['pages_unsure']} read with little confidence (searched, not quoted"
            " in answers): " + ", ".join(scans["unsure"])
        )
    return line


def cmd_stats(args: argparse.Namespace) -> int:
    workspace = open_workspace(args, ensure_indexed=False)
    try:
        stats = workspace.stats()
        stats["sends_to"] = workspace.sends_to()
    finally:
        workspace.close()
    if args.json:
        print(json.dumps(stats, ensure_ascii=False, indent=2))
        return 0
    for note in stats["sends_to"]:
        print(f"privacy: {note}")
    print(f"index: {stats['index_path']} ({(stats['index_bytes'] or 0) / 1e6:.1f} MB)")
    print(f"files: {stats['files']}  {_fmt(stats['files_by_kind'])}")
    print(f"chunks: {stats['chunks']}  {_fmt(stats['chunks_by_kind'])}")
    print(f"languages: {_fmt(stats['chunks_by_language'])}")
    print(f"chunk size (chars): {_fmt(stats['chunk_chars'])}")
    if stats["documents_by_format"]:
        print(f"documents: {_fmt(stats['documents_by_format'])}")
    print(f"skipped: {_fmt(stats['skipped']) or 'none'}")
    _print_skipped([(f["path"], f["detail"]) for f in stats["skipped_files"] if f["detail"]])
    for space, model in stats["models"].items():
        extra = f", + {stats['sentence_vectors']} sentence vectors" if model.get("parts") else ""
        print(f"model[{space}]: {model['model']} ({model['version']}, dim {model['dim']}{extra})")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.answers:
        workspace = open_workspace(args)
        try:
            return bench.run_load(workspace, Path(args.answers), max(0, args.load))
        finally:
            workspace.close()
    synthetic = 10_000 if args.quick else args.synthetic
    config = load_config(args)
    store, config.index.store = config.index.store, ""  # the bench publishes to it
    return bench.run(Path(args.workspace), config, synthetic, store)


_SKIPPED_SHOWN = 20  # documents listed by name (``groundls stats --json`` has all)


def _print_skipped(files: list[tuple[str, str]]) -> None:
    """Each document left out and why, so a user can tell which one failed."""
    for path, why in files[:_SKIPPED_SHOWN]:
        print(f"  skipped {path}: {why}")
    if len(files) > _SKIPPED_SHOWN:
        print(f"  ... and {len(files) - _SKIPPED_SHOWN} more (groundls stats --json lists them)")


def _fmt(counts: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in counts.items())
