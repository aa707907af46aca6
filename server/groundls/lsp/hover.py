"""Hover "Related in this workspace": chunks from other places related to the one under the cursor.

``workspace.related`` reuses the stored vectors of the chunk under the cursor and the keyword
index and symbol table (the doc passages that name a function as code, the code a passage names),
so no model call is made and the hover stays fast; it returns None when there is nothing useful
to show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from groundls.lsp.folders import Folder
from groundls.results import Hit
from groundls.wire import lsp_range, relative

HEADING = "**Related in this workspace**"
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
PREVIEW_CHARS = 100


@dataclass
class Related:
    markdown: str
    range: dict[str, Any]
    hits: list[Hit]


def _escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _preview(hit: Hit) -> str:
    """First line that says something: not blank, not a Markdown heading, not the title again."""
    text = ""
    for line in hit.reading.splitlines():
        line = " ".join(line.split())
        if not line or line.strip("#").strip() == hit.title or line.startswith("#"):
            continue
        text = line
        break
    text = text or " ".join(hit.snippet.split())
    if len(text) > PREVIEW_CHARS:
        text = text[: PREVIEW_CHARS - 3].rstrip() + "..."
    return text


def _label(hit: Hit) -> str:
    parts = [p for p in hit.breadcrumb if p]
    if parts:
        return " › ".join(parts[-3:])
    return hit.title or hit.path


def _overlaps(a: Hit, path: str, start: int, end: int) -> bool:
    return a.path == path and a.start_line <= end and start <= a.end_line


def related(folder: Folder, rel_path: str, line0: int, count: int) -> Related | None:
    """The hover for 0-based ``line0`` of ``rel_path``, or None when nothing useful is found."""
    workspace = folder.workspace
    if workspace is None or count <= 0:
        return None
    # the index as the hover reads it: indexing that ends during a slow hover left it partial
    partial = folder.progress_message() if folder.indexing else None
    here = workspace.chunk_at(rel_path, line0 + 1)
    if here is None:
        return None
    try:
        candidates = workspace.related(here.chunk_id, k=count * 3 + 2)
    except KeyError:
        return None
    chosen: list[Hit] = []
    for hit in candidates:
        if hit.chunk_id == here.chunk_id or _overlaps(
            hit, here.path, here.start_line, here.end_line
        ):
            continue
        if any(_overlaps(hit, c.path, c.start_line, c.end_line) for c in chosen):
            continue
        chosen.append(hit)
        if len(chosen) == count:
            break
    if not chosen:
        return None
    lines = [HEADING, ""]
    for n, hit in enumerate(chosen, 1):
        path = relative(folder, hit.path)
        link = f"{folder.uri_for(path)}#L{hit.start_line}"
        shown = f"{path} {hit.place}" if hit.place else f"{path}:{hit.start_line}"
        lines.append(f"{n}. [{_escape(_label(hit))}]({link}) `{shown}`  ")
        preview = _preview(hit)
        lines.append(f"   {_escape(preview)}" if preview else "   ")
    if partial is not None:
        lines += ["", f"_{_escape(partial)}; results may be incomplete._"]
    return Related(
        markdown="\n".join(lines),
        range=lsp_range(here.start_line, here.end_line),
        hits=chosen,
    )
