"""XML chunker: one piece per child of the root element, with the parent chain as breadcrumb."""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.parsers import expat

from .base import ChunkOptions, Piece, is_meaningful
from .blocks import split_lines
from .textrules import estimate_encoder_tokens
from .windows import window_pieces

_NAME_ATTRS = ("name", "id", "key", "class", "artifactId", "ref", "type", "path", "value")


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    start_line: int
    end_line: int = 0
    children: list[_Element] = field(default_factory=list)
    text: str = ""  # direct text content, for a readable label of leaf elements

    @property
    def label(self) -> str:
        for attr in _NAME_ATTRS:
            value = self.attrs.get(attr)
            if value:
                return f'{self.tag}[{attr}="{value[:60]}"]'
        for child in self.children:  # e.g. Maven: <dependency><artifactId>x</artifactId>
            if child.tag in _NAME_ATTRS and child.text.strip() and not child.children:
                return f'{self.tag}[{child.tag}="{child.text.strip()[:60]}"]'
        return self.tag


class XmlSyntaxError(ValueError):
    """The document is not well-formed XML."""


def parse_elements(text: str) -> _Element:
    """Element tree with 1-based start/end lines; raises XmlSyntaxError on malformed input."""
    parser = expat.ParserCreate()
    root: list[_Element] = []
    stack: list[_Element] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        element = _Element(tag, attrs, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(element)
        else:
            root.append(element)
        stack.append(element)

    def end(tag: str) -> None:
        element = stack.pop()
        element.end_line = max(element.start_line, parser.CurrentLineNumber)

    def data(chunk: str) -> None:
        if stack and len(stack[-1].text) < 200:
            stack[-1].text += chunk

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    try:
        parser.Parse(text, True)
    except (expat.ExpatError, ValueError, RecursionError) as exc:
        raise XmlSyntaxError(str(exc)) from exc
    if not root:
        raise XmlSyntaxError("no root element")
    return root[0]


def xml_pieces(path: str, text: str, options: ChunkOptions) -> list[Piece]:
    """Chunk by top-level elements (children of the root); malformed XML falls back to windows."""
    lines = split_lines(text)
    try:
        root = parse_elements(text)
    except XmlSyntaxError:
        return window_pieces(lines, options, context=path)
    if not root.children:
        return window_pieces(
            lines, options, key_prefix=f"xml:{root.tag}", title=root.label,
            breadcrumb=(root.label,), context=f"{path}: {root.label}", text_type="element",
        )  # fmt: skip
    pieces: list[Piece] = []
    head_end = root.children[0].start_line - 1
    if head_end >= 1:
        head = "\n".join(lines[:head_end])
        if is_meaningful(head) and len(head.strip()) >= options.min_chars:
            pieces.append(
                _piece(path, lines, 1, head_end, (root.label,), f"xml:{root.tag}", root.label)
            )
    _element_pieces(path, lines, root, (root.label,), options, pieces)
    return pieces


def _element_pieces(
    path: str,
    lines: list[str],
    parent: _Element,
    trail: tuple[str, ...],
    options: ChunkOptions,
    out: list[Piece],
) -> None:
    """One piece per child of ``parent``; a child too large is split by its own children."""
    last_end = 0
    groups: list[tuple[int, int, _Element]] = []
    for child in parent.children:
        start = max(child.start_line, last_end + 1)
        end = max(start, child.end_line)
        if child.end_line <= last_end:
            continue  # shares its line with the previous element, already included
        groups.append((start, end, child))
        last_end = end
    merged: list[tuple[int, int, list[_Element]]] = []
    for start, end, child in groups:
        if (
            merged
            and _too_small(lines, merged[-1][0], merged[-1][1], options)
            or (
                merged
                and _too_small(lines, start, end, options)
                and not _too_big(lines, merged[-1][0], end, options)
            )
        ):
            prev = merged[-1]
            merged[-1] = (prev[0], end, [*prev[2], child])
        else:
            merged.append((start, end, [child]))
    for start, end, elements in merged:
        first = elements[0]
        crumb = (*trail, first.label)
        key = "xml:" + "/".join(crumb)
        if _too_big(lines, start, end, options) and len(elements) == 1:
            if first.children:
                _element_pieces(path, lines, first, crumb, options, out)
            else:
                out.extend(
                    window_pieces(
                        lines[start - 1 : end],
                        options,
                        first_line=start,
                        key_prefix=key,
                        title=first.label,
                        breadcrumb=crumb,
                        context=f"{path}: {' > '.join(crumb)}",
                        text_type="element",
                    )  # fmt: skip
                )
            continue
        title = first.label if len(elements) == 1 else f"{first.label} … {elements[-1].label}"
        out.append(_piece(path, lines, start, end, crumb, key, title))


def _too_small(lines: list[str], start: int, end: int, options: ChunkOptions) -> bool:
    return len("\n".join(lines[start - 1 : end]).strip()) < options.min_chars


def _too_big(lines: list[str], start: int, end: int, options: ChunkOptions) -> bool:
    return estimate_encoder_tokens("\n".join(lines[start - 1 : end])) > options.max_tokens


def _piece(
    path: str,
    lines: list[str],
    start: int,
    end: int,
    crumb: tuple[str, ...],
    key: str,
    title: str,
) -> Piece:
    return Piece(
        start_line=start,
        end_line=end,
        text="\n".join(lines[start - 1 : end]).strip("\n"),
        title=title,
        key=key,
        breadcrumb=crumb,
        text_type="element",
        context=f"{path}: {' > '.join(crumb)}",
    )
