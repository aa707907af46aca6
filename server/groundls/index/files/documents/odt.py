"""OpenDocument text (.odt): headings from the outline (``text:h`` and its level), paragraphs,
lists as items and tables as rows."""

from __future__ import annotations

from xml.etree import ElementTree

from .base import DocumentRefused, Extracted, TextBuilder, escape_markdown_line
from .ooxml import _table_rows
from .zipped import Container, local

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"


def read_odt(data: bytes) -> Extracted:
    box = Container(data, "OpenDocument text")
    if box.has("META-INF/manifest.xml") and any(
        True for _ in box.xml("META-INF/manifest.xml").iter(f"{_MANIFEST}encryption-data")
    ):
        raise DocumentRefused(
            "encrypted", "encrypted: a password-protected OpenDocument file (save it without one)"
        )
    body = box.xml("content.xml").find(f"{_OFFICE}body/{_OFFICE}text")
    if body is None:
        raise DocumentRefused("corrupt-document", "corrupt OpenDocument text: it has no text body")
    out = TextBuilder()
    _blocks(body, out)
    return out.result()


def _blocks(parent: ElementTree.Element, out: TextBuilder) -> None:
    for child in parent:
        tag = local(child.tag)
        if tag == "h":
            level = child.get(f"{_TEXT}outline-level") or "1"
            out.heading(int(level) if level.isdigit() else 1, _text(child))
        elif tag == "p":
            text = _text(child).strip()
            if text:
                out.block([escape_markdown_line(line) for line in text.splitlines()])
        elif tag == "list":
            items = [
                " ".join(_text(p).split())
                for item in child.iter(f"{_TEXT}list-item")
                for p in item
                if local(p.tag) in ("p", "h")
            ]
            out.block(["- " + item for item in items if item])
        elif tag == "table":
            rows = [
                [
                    " ".join(" ".join(_text(p).split()) for p in cell.iter(f"{_TEXT}p"))
                    for cell in row
                    if local(cell.tag) == "table-cell"
                ]
                for row in child.iter()
                if local(row.tag) == "table-row"
            ]
            out.block(_table_rows(rows))
        elif tag in ("section", "index-body"):
            # (a table-of-content is passed over: it repeats the headings and must not outrank
            # them)
            _blocks(child, out)


def _text(node: ElementTree.Element) -> str:
    """A paragraph's words: spans and links read through, ``text:s`` as spaces, notes left out."""
    parts: list[str] = [node.text or ""]
    for child in node:
        tag = local(child.tag)
        if tag == "s":
            count = child.get(f"{_TEXT}c") or "1"
            parts.append(" " * (int(count) if count.isdigit() else 1))
        elif tag == "tab":
            parts.append("\t")
        elif tag == "line-break":
            parts.append("\n")
        elif tag not in ("note", "annotation", "bookmark", "bookmark-start", "bookmark-end"):
            parts.append(_text(child))
        parts.append(child.tail or "")
    return "".join(parts)
