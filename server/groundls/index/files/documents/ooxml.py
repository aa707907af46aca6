"""Word (.docx), PowerPoint (.pptx) and Excel (.xlsx): Office Open XML read with the standard
library's zip and XML parsers, within the bounds of :class:`.zipped.Container`.

- Word: headings from the heading styles (or an outline level), lists as items, tables as rows.
- PowerPoint: one section per slide, titled by the slide's title, with its speaker notes.
- Excel: each sheet as rows, the header row kept with every block of rows.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from xml.etree import ElementTree

from .base import DocumentRefused, Extracted, TextBuilder, escape_markdown_line
from .zipped import Container, local

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_HEADING_NAME = re.compile(r"^(?:heading|見出し)\s*([1-9])$", re.IGNORECASE)

#: Rows of a sheet put under one copy of its header row.
ROWS_PER_BLOCK = 20
#: Rows read from one workbook at most; the rest are said to be left out.
MAX_ROWS = 20_000


# -- Word -----------------------------------------------------------------------------------------


def read_docx(data: bytes) -> Extracted:
    box = Container(data, "Word document")
    levels = _style_levels(box)
    out = TextBuilder()
    body = box.xml("word/document.xml").find(f"{_W}body")
    if body is None:
        raise DocumentRefused("corrupt-document", "corrupt Word document: it has no body")
    _docx_blocks(body, levels, out)
    return out.result()


def _style_levels(box: Container) -> dict[str, int]:
    """Paragraph style id -> heading level, from each style's name or outline level."""
    if not box.has("word/styles.xml"):
        return {}
    levels: dict[str, int] = {}
    for style in box.xml("word/styles.xml").iter(f"{_W}style"):
        sid = style.get(f"{_W}styleId") or ""
        name = style.find(f"{_W}name")
        label = (name.get(f"{_W}val") if name is not None else "") or ""
        match = _HEADING_NAME.match(label.strip())
        outline = style.find(f"{_W}pPr/{_W}outlineLvl")
        if label.strip().lower() == "title":
            levels[sid] = 1
        elif match:
            levels[sid] = int(match.group(1))
        elif outline is not None and (outline.get(f"{_W}val") or "").isdigit():
            level = int(outline.get(f"{_W}val") or "9") + 1
            if level <= 6:
                levels[sid] = level
    return levels


def _docx_blocks(parent: ElementTree.Element, levels: dict[str, int], out: TextBuilder) -> None:
    items: list[str] = []  # a list's items, one block
    for child in parent:
        tag = local(child.tag)
        if (
            tag == "p"
            and child.find(f"{_W}pPr/{_W}numPr") is not None
            and not _level(child, levels)
        ):
            items += [
                "- " + line for line in _docx_text(child).strip().splitlines() if line.strip()
            ]
            continue
        out.block(items)
        items = []
        if tag == "p":
            _docx_paragraph(child, levels, out)
        elif tag == "tbl":
            out.block(_table_rows(_docx_rows(child)))
        elif tag in ("sdt", "sdtContent", "customXml", "ins"):
            _docx_blocks(child, levels, out)
    out.block(items)


def _level(p: ElementTree.Element, levels: dict[str, int]) -> int:
    """A paragraph's heading level from its style or outline level; 0 for body text."""
    style = p.find(f"{_W}pPr/{_W}pStyle")
    level = levels.get(style.get(f"{_W}val") or "", 0) if style is not None else 0
    outline = p.find(f"{_W}pPr/{_W}outlineLvl")
    if not level and outline is not None and (outline.get(f"{_W}val") or "").isdigit():
        level = int(outline.get(f"{_W}val") or "0") + 1
    return level if level <= 6 else 0


def _docx_paragraph(p: ElementTree.Element, levels: dict[str, int], out: TextBuilder) -> None:
    text = _docx_text(p).strip()
    if not text:
        return
    level = _level(p, levels)
    if level:
        out.heading(level, text)
    else:
        out.block([escape_markdown_line(line) for line in text.splitlines()])


def _docx_text(node: ElementTree.Element) -> str:
    parts: list[str] = []
    for el in node.iter():
        tag = local(el.tag)
        if tag == "t" and el.text:
            parts.append(el.text)
        elif tag == "tab":
            parts.append("\t")
        elif tag in ("br", "cr"):
            parts.append("\n")
    return "".join(parts)


def _docx_rows(table: ElementTree.Element) -> Iterator[list[str]]:
    for row in table.iter(f"{_W}tr"):
        yield [
            " ".join(" ".join(_docx_text(p).split()) for p in cell.iter(f"{_W}p")).strip()
            for cell in row.findall(f"{_W}tc")
        ]


def _table_rows(rows: Iterator[list[str]] | list[list[str]], *, rule: bool = True) -> list[str]:
    """A table as Markdown rows, a rule under the first (its header)."""
    lines = []
    for cells in rows:
        if any(cells):
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
            if rule and len(lines) == 1:
                lines.append("| " + " | ".join("---" for _ in cells) + " |")
    return lines


# -- PowerPoint -----------------------------------------------------------------------------------


def read_pptx(data: bytes) -> Extracted:
    box = Container(data, "PowerPoint presentation")
    presentation = box.xml("ppt/presentation.xml")
    targets = _relations(box, "ppt/presentation.xml")
    out = TextBuilder()
    ids = presentation.find(f"{_P}sldIdLst")
    for number, slide_id in enumerate(ids if ids is not None else [], start=1):
        target = targets.get(slide_id.get(f"{_R}id") or "")
        if not target or not box.has(target):
            continue
        out.place("slide", number)
        slide = box.xml(target)
        title, lines = _slide_text(slide)
        out.heading(1, title or f"Slide {number}")
        out.block(lines)
        notes = [
            t
            for rel in _relations(box, target).values()
            if "notesSlide" in rel and box.has(rel)
            for t in _slide_text(box.xml(rel), notes=True)[1]
        ]
        if notes:
            out.block(["Notes: " + notes[0], *notes[1:]])
    return out.result()


def _relations(box: Container, part: str) -> dict[str, str]:
    """A part's relationships: id -> the target's name in the container."""
    folder, name = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", name + ".rels")
    if not box.has(rels):
        return {}
    found = {}
    for rel in box.xml(rels).iter(f"{_REL}Relationship"):
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        path = (
            target.lstrip("/")
            if target.startswith("/")
            else posixpath.normpath(posixpath.join(folder, target))
        )
        found[rel.get("Id") or ""] = path
    return found


def _slide_text(slide: ElementTree.Element, *, notes: bool = False) -> tuple[str, list[str]]:
    """(the slide's title, its other lines): shapes in order, tables as rows."""
    title = ""
    lines: list[str] = []
    for shape in slide.iter():
        tag = local(shape.tag)
        if tag == "sp":
            placeholder = shape.find(f"{_P}nvSpPr/{_P}nvPr/{_P}ph")
            kind = placeholder.get("type", "") if placeholder is not None else ""
            if kind in ("sldNum", "dt", "ftr", "hdr", "sldImg"):
                continue
            if notes and kind not in ("body", ""):
                continue
            paragraphs = [_drawing_text(p) for p in shape.iter(f"{_A}p")]
            paragraphs = [p for p in paragraphs if p.strip()]
            if kind in ("title", "ctrTitle") and not title:
                title = " ".join(paragraphs)
                continue
            bullet = not notes and kind in ("body", "obj", "")
            lines += [("- " if bullet and len(paragraphs) > 1 else "") + p for p in paragraphs]
        elif tag == "tbl":
            lines += _table_rows(
                [
                    " ".join(_drawing_text(p) for p in cell.iter(f"{_A}p")).strip()
                    for cell in row.findall(f"{_A}tc")
                ]
                for row in shape.findall(f"{_A}tr")
            )
    return title, lines


def _drawing_text(paragraph: ElementTree.Element) -> str:
    parts = []
    for el in paragraph.iter():
        tag = local(el.tag)
        if tag == "t" and el.text:
            parts.append(el.text)
        elif tag == "br":
            parts.append(" ")
    return " ".join("".join(parts).split())


# -- Excel ----------------------------------------------------------------------------------------


def read_xlsx(data: bytes) -> Extracted:
    box = Container(data, "Excel workbook")
    workbook = box.xml("xl/workbook.xml")
    targets = _relations(box, "xl/workbook.xml")
    shared = _shared_strings(box)
    out = TextBuilder()
    budget = MAX_ROWS
    for sheet in workbook.iter(f"{_S}sheet"):
        target = targets.get(sheet.get(f"{_R}id") or "")
        name = sheet.get("name") or "Sheet"
        if not target or not box.has(target):
            continue
        out.place("sheet", name)
        out.heading(1, name)
        rows = [r for r in _sheet_rows(box.xml(target), shared) if any(r)]
        if len(rows) > budget:
            rows, cut = rows[:budget], len(rows) - budget
        else:
            cut = 0
        budget -= len(rows)
        if rows:
            header, body = rows[0], rows[1:]
            width = max(len(r) for r in rows)
            header = header + [""] * (width - len(header))
            for start in range(0, max(1, len(body)), ROWS_PER_BLOCK):
                block = body[start : start + ROWS_PER_BLOCK]
                out.block([*_table_rows([header]), *_table_rows(block, rule=False)])
        if cut:
            out.block([f"({cut:,} more rows not read)"])
    return out.result()


def _shared_strings(box: Container) -> list[str]:
    if not box.has("xl/sharedStrings.xml"):
        return []
    return [
        "".join(t.text or "" for t in item.iter(f"{_S}t"))
        for item in box.xml("xl/sharedStrings.xml").iter(f"{_S}si")
    ]


def _sheet_rows(sheet: ElementTree.Element, shared: list[str]) -> Iterator[list[str]]:
    for row in sheet.iter(f"{_S}row"):
        cells: dict[int, str] = {}
        for index, cell in enumerate(row.findall(f"{_S}c")):
            column = _column(cell.get("r") or "", index)
            kind = cell.get("t", "n")
            value = cell.find(f"{_S}v")
            raw = value.text if value is not None and value.text is not None else ""
            if kind == "s":
                text = shared[int(raw)] if raw.isdigit() and int(raw) < len(shared) else ""
            elif kind == "inlineStr":
                text = "".join(t.text or "" for t in cell.iter(f"{_S}t"))
            elif kind == "b":
                text = "TRUE" if raw == "1" else "FALSE"
            else:
                text = raw
            if text.strip():
                cells[column] = " ".join(text.split())
        if cells and max(cells) < 1000:
            yield [cells.get(i, "") for i in range(max(cells) + 1)]


def _column(ref: str, fallback: int) -> int:
    letters = re.match(r"[A-Z]+", ref)
    if not letters:
        return fallback
    number = 0
    for ch in letters.group(0):
        number = number * 26 + ord(ch) - 64
    return number - 1
