"""What every document reader returns, and the reasons a document is refused."""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass, field

from groundls.chunkers.languages import DOCUMENT_EXTENSIONS

#: Raise when a reader's output changes: every document is read again on the next index run.
EXTRACTOR_VERSION = 11

#: Suffix -> format name (also the chunks' language, so ``--lang pdf`` finds them): the
#: chunkers' map, which also says which chunker reads each format's text.
DOCUMENT_FORMATS = DOCUMENT_EXTENSIONS
#: Formats groundls does not read (binary Office formats before 2007, RTF, OpenDocument slides
#: and sheets): listed as skipped, with what to save them as.
LEGACY_FORMATS: dict[str, str] = {
    ".doc": "save it as .docx",
    ".ppt": "save it as .pptx",
    ".xls": "save it as .xlsx",
    ".rtf": "save it as .docx or .odt",
    ".odp": "save it as .pptx",
    ".ods": "save it as .xlsx",
}

#: What the place of a page OCR read with little confidence says (see ``scans.PAGE_FLOOR``).
UNSURE = "scanned, unsure"
#: How a place is named in a citation, by kind; and a run of them.
_LABELS = {
    "page": "p. {}",
    "scan": "p. {} (scanned)",
    "unsure scan": f"p. {{}} ({UNSURE})",
    "image": "scanned",
    "unsure image": UNSURE,
    "slide": "slide {}",
    "sheet": "sheet {}",
    "cell": "cell {}",
}
#: An OCR page's note, " (scanned)" or " (scanned, unsure)": a run of such pages keeps it once.
_NOTE = re.compile(rf" \((?:scanned|{re.escape(UNSURE)})\)$")
_PLURALS = {"p.": "pp.", "slide": "slides", "sheet": "sheets", "cell": "cells", "ch.": "ch."}


def document_format(path: str) -> str | None:
    """The format a reader reads ``path`` as ("pdf", "docx", ...), or None."""
    # (asked of every file the walk lists: splitext is a quarter of PurePosixPath's cost)
    return DOCUMENT_FORMATS.get(posixpath.splitext(path)[1].lower())


class DocumentRefused(Exception):
    """A document that cannot be read. ``reason`` is one of the index's skip reasons
    ("encrypted", "no-text-layer", "needs-ocr", "corrupt-document", "document-too-large",
    "document-timeout"); the message says what a user can do about it."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass
class Extracted:
    """A document's text with structure, and where each of its places (page, slide, sheet,
    cell) begins: ``places`` holds (first line, 1-based, of the place; its label), in line
    order. ``syntax`` is the chunker that reads ``text``: "markdown" or "html"."""

    text: str
    syntax: str = "markdown"
    places: list[tuple[int, str]] = field(default_factory=list)
    #: pages, slides, sheets or cells read (what ``groundls bench`` counts per second)
    units: int = 0
    #: pages with no text that OCR reads later (the OCR tier; 0 once it has)
    waiting: int = 0
    #: why OCR stopped before the last page (its page or time limit), "" when it did not
    cut: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text,
            "syntax": self.syntax,
            "places": [list(p) for p in self.places],
            "units": self.units,
            "waiting": self.waiting,
            "cut": self.cut,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Extracted:
        places = [(int(line), str(label)) for line, label in data.get("places", [])]  # type: ignore[union-attr]
        return cls(
            str(data["text"]),
            str(data.get("syntax", "markdown")),
            places,
            int(data.get("units", 0)),  # type: ignore[call-overload]
            int(data.get("waiting", 0)),  # type: ignore[call-overload]
            str(data.get("cut", "")),
        )


def scanned_place(label: str) -> bool:
    """Whether a place label is a page or image read by OCR."""
    return label.startswith("scanned") or label.endswith(("(scanned)", f"({UNSURE})"))


def unsure_place(place: str) -> bool:
    """Whether a place (one label or a run of them) holds OCR text below the confidence floor:
    searched, never an answer's excerpt."""
    return UNSURE in place


def place_label(kind: str, value: object) -> str:
    return _LABELS[kind].format(value)


def place_at(places: list[tuple[int, str]], start_line: int, end_line: int) -> str:
    """The place a chunk of lines ``start_line``..``end_line`` stands at: "p. 12", or
    "pp. 12–13" when it runs over two pages; "" when the document names no places."""
    if not places:
        return ""
    starts = [line for line, _ in places]
    first = places[max(0, bisect.bisect_right(starts, start_line) - 1)][1]
    last = places[max(0, bisect.bisect_right(starts, end_line) - 1)][1]
    if first == last:
        return first
    note = _NOTE.search(first)
    if note and last.endswith(note.group(0)):  # "pp. 3–4 (scanned)"
        cut = len(note.group(0))
        return place_at([(1, first[:-cut]), (2, last[:-cut])], 1, 2) + note.group(0)
    kind, _, low = first.partition(" ")
    other, _, high = last.partition(" ")
    if kind == other and kind in _PLURALS:
        return f"{_PLURALS[kind]} {low}–{high}"  # "pp. 12–13", "slides 2–3"
    return f"{first}–{last}"


class TextBuilder:
    """Lines of extracted text and the places they begin; readers append to it."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.places: list[tuple[int, str]] = []
        self.units = 0

    def place(self, kind: str, value: object) -> None:
        """The lines added next belong to this place."""
        self.units += 1
        label = place_label(kind, value)
        line = len(self.lines) + 1
        if self.places and self.places[-1][0] == line:
            self.places[-1] = (line, label)  # the previous place held no lines
        else:
            self.places.append((line, label))

    def heading(self, level: int, text: str) -> None:
        text = " ".join(text.split())
        if text:
            self.block([f"{'#' * max(1, min(level, 6))} {text}"])

    def block(self, lines: list[str]) -> None:
        """A paragraph (or a table, a list, a code block): blank lines around it."""
        lines = [line.rstrip() for line in lines]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if not lines:
            return
        if self.lines and self.lines[-1] != "":
            self.lines.append("")
        self.lines.extend(lines)
        self.lines.append("")

    def result(self, syntax: str = "markdown") -> Extracted:
        return Extracted("\n".join(self.lines).rstrip() + "\n", syntax, self.places, self.units)


def escape_markdown_line(line: str) -> str:
    """A line of extracted prose that Markdown must not read as markup of its own (a heading,
    a fence, a thematic break, raw HTML)."""
    stripped = line.lstrip()
    if stripped.startswith(("#", "```", "~~~", "<", "---", "===", ">")):
        return "\\" + stripped
    return line
