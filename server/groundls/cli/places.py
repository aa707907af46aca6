"""``similar`` and ``related``: the places near one place (``PATH:LINE``), no model call."""

from __future__ import annotations

import argparse
import json
from typing import Any

from groundls import wire
from groundls.cli.common import CliError, add_common, checked_k, open_workspace, relative_path
from groundls.results import Hit
from groundls.workspace import Workspace


def register(sub: Any) -> None:
    p = sub.add_parser("similar", help="chunks most similar to the chunk at PATH:LINE")
    add_common(p)
    p.add_argument("target", metavar="PATH:LINE")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_similar)

    p = sub.add_parser(
        "related",
        help="what relates to the code or passage at PATH:LINE: the docs that name it (or the "
        "code it names), where it is tested and who calls it",
    )
    add_common(p)
    p.add_argument("target", metavar="PATH:LINE")
    p.add_argument("-k", type=int, default=3, help="notes from other places (default 3)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_related)


def _place(target: str) -> tuple[str, int]:
    """``PATH:LINE``, checked before anything is opened."""
    path, _, line = target.rpartition(":")
    if not path or not line.isdigit():
        raise CliError(f"expected PATH:LINE, got {target!r}")
    return path, int(line)


def _chunk(workspace: Workspace, target: str) -> Hit:
    path, line = _place(target)
    rel = relative_path(workspace.root, path)
    chunk = workspace.chunk_at(rel, line)
    if chunk is None:
        raise CliError(f"no indexed chunk at {rel}:{line}")
    return chunk


def cmd_similar(args: argparse.Namespace) -> int:
    _place(args.target)
    checked_k(args.k)
    workspace = open_workspace(args)
    try:
        chunk = _chunk(workspace, args.target)
        hits = workspace.similar(chunk.chunk_id, k=args.k)
    finally:
        workspace.close()
    if args.json:
        out = {"chunk": wire.hit_json(chunk), "hits": [wire.hit_json(h) for h in hits]}
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"similar to {chunk.where} {chunk.title}")
    if not hits:
        print("no relevant results in this workspace")
    for i, hit in enumerate(hits, start=1):
        print(f"{i:2}. {hit.where}  [{hit.kind}] {_crumb(hit)}")
        print(f"      {hit.snippet}")
    return 0


def cmd_related(args: argparse.Namespace) -> int:
    _place(args.target)
    checked_k(args.k)
    workspace = open_workspace(args)
    try:
        chunk = _chunk(workspace, args.target)
        found = workspace.related(chunk.chunk_id, k=args.k)
    finally:
        workspace.close()
    if args.json:
        print(
            json.dumps(
                {"chunk": wire.hit_json(chunk), **wire.related_json(found)}, ensure_ascii=False
            )
        )
        return 0
    print(f"related to {chunk.where} {chunk.title}")
    if not found.entries():
        print("nothing related found in this workspace")
    for i, note in enumerate(found.notes, start=1):
        print(f"{i:2}. {note.hit.where}  [{note.kind}] {_crumb(note.hit)}")
        print(f"      {note.hit.snippet}")
    if found.tests:
        print("tested in:")
        for hit in found.tests:
            print(f"      {hit.where}  {hit.title}")
    if found.callers:
        print(f"called from {found.call_count}, first:")
        print(f"      {found.callers[0].where}  {found.callers[0].title}")
    return 0


def _crumb(hit: Hit) -> str:
    return " > ".join(hit.breadcrumb) if hit.breadcrumb else hit.title
