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
class Hover:
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


def related(folder: Folder, rel_path: str, line0: int, count: int) -> Hover | None:
    """The hover for 0-based ``line0`` of ``rel_path``, or None when nothing useful is found:
    ``count`` notes from other places, then where the symbol is tested and who calls it."""
    workspace = folder.workspace
    if workspace is None or count <= 0:
        return None
    # the index as the hover reads it: indexing that ends during a slow hover left it partial
    partial = folder.progress_message() if folder.indexing else None
    here = workspace.chunk_at(rel_path, line0 + 1)
    if here is None:
        return None
    try:
        found = workspace.related(here.chunk_id, k=count)
    except KeyError:
        return None
    if not found.notes and not found.tests and not found.callers:
        return None
    lines = [HEADING, ""]
    for n, note in enumerate(found.notes, 1):
        hit = note.hit
        lines.append(f"{n}. {_link(folder, hit, _escape(_label(hit)))} `{_shown(folder, hit)}`  ")
        preview = _preview(hit)
        lines.append(f"   {_escape(preview)}" if preview else "   ")
    if found.tests or found.callers:
        lines.append("")
    if found.tests:
        first = found.tests[0]
        more = f" and {len(found.tests) - 1} more" if len(found.tests) > 1 else ""
        lines.append(f"*Tested in* {_link(folder, first, _escape(_name(folder, first)))}{more}  ")
    if found.callers:
        first = found.callers[0]
        lines.append(
            f"*Called from* {found.call_count}, first "
            f"{_link(folder, first, _escape(_name(folder, first)))}"
        )
    if partial is not None:
        lines += ["", f"_{_escape(partial)}; results may be incomplete._"]
    return Hover(
        markdown="\n".join(lines),
        range=lsp_range(here.start_line, here.end_line),
        hits=[n.hit for n in found.notes] + list(found.tests[:1]) + list(found.callers[:1]),
    )


def _shown(folder: Folder, hit: Hit) -> str:
    path = relative(folder, hit.path)
    return f"{path} {hit.place}" if hit.place else f"{path}:{hit.start_line}"


def _link(folder: Folder, hit: Hit, text: str) -> str:
    """``text`` linking to the hit's first line (an editor opens it on click)."""
    path = relative(folder, hit.path)
    return f"[{text}]({folder.uri_for(path)}#L{hit.start_line})"


def _name(folder: Folder, hit: Hit) -> str:
    """A test's or caller's name and place: ``test_evolve (tests/test_make.py:40)``."""
    return f"{hit.title or hit.path} ({_shown(folder, hit)})"
