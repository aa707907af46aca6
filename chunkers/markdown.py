"""Markdown chunker: headings, front matter, fences, tables and lists into prose sections."""

from __future__ import annotations

import re

from .base import ChunkOptions, Piece
from .blocks import Block, split_lines
from .prose import SectionBuilder, sections_to_pieces

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_QUOTE = re.compile(r"^ {0,3}>")
_LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(\s+|$)")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_FRONT_TITLE = re.compile(r"""^title\s*[:=]\s*(.+?)\s*$""", re.IGNORECASE)
#: Pictures: an image (inline or by reference), a linked image (a README's status badges after
#: the project's name, ``[![build](…badge.svg)](…)``) and an HTML ``<img>`` tag. A reader sees
#: no words in them, only in an image's alt text.
_PICTURE = re.compile(
    r"\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)|!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])|<img\b[^>]*>",
    re.IGNORECASE,
)
_ALT = re.compile(r"!\[([^\]]*)\]")
#: Other inline markup a reader does not see as words in a heading: an HTML tag and a link's
#: target (its text stays). Code spans and emphasis stay as written (short, and the public
#: manual's headings hold them: rendered, two near-ties there swapped places, no better or worse).
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_BACKTICKS = re.compile(r"(`+)")
#: Longer than any heading a person writes (a setext heading's paragraph, a generated line).
HEADING_CHARS = 1000


def markdown_pieces(path: str, text: str, options: ChunkOptions) -> list[Piece]:
    """Chunk a Markdown document by heading sections; never raises on malformed input."""
    lines = split_lines(text)
    start, doc_title = _front_matter(lines)
    builder = SectionBuilder()
    _parse(lines, start, builder)
    sections = builder.result()
    if doc_title and not any(
        s.heading and s.heading.text.lstrip().startswith("# ") for s in sections
    ):
        # front matter names the document and no "# " heading does: it heads every breadcrumb
        for section in sections:
            if section.path and section.path[0] != doc_title:
                section.path = (doc_title, *section.path)
    return sections_to_pieces(path, sections, options, doc_title=doc_title)


def heading_text(raw: str) -> str:
    """A heading without the markup a reader does not see as words (pictures, tags, link
    targets): the breadcrumb of every chunk under it, embedded with each and shown above each
    excerpt. A heading of pictures only keeps their alt text; one longer than any a person
    writes (``HEADING_CHARS``) is kept as written."""
    if len(raw) > HEADING_CHARS:
        return " ".join(raw.split())
    text = "".join(
        piece if code else _LINK.sub(r"\1", _TAG.sub("", _PICTURE.sub("", piece)))
        for piece, code in _code_spans(raw)
    )
    text = " ".join(text.split())
    if not text:
        text = " ".join(" ".join(_ALT.findall(raw)).split())
    return text


def _code_spans(text: str) -> list[tuple[str, bool]]:
    """``text`` in pieces, each a code span (markup inside one is its content) or not: a run of
    backticks opens a span that the next run of the same length closes. One pass over the runs
    (a regular expression that pairs them backtracks for seconds over a line of backticks)."""
    parts = _BACKTICKS.split(text)  # text, run, text, run, ..., text
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(parts):
        if i % 2 == 0:
            out.append((parts[i], False))
            i += 1
            continue
        close = next((j for j in range(i + 2, len(parts), 2) if parts[j] == parts[i]), None)
        if close is None:
            out.append((parts[i], False))
            i += 1
        else:
            out.append(("".join(parts[i : close + 1]), True))
            i = close + 1
    return out


def without_pictures(text: str) -> str:
    """``text`` without its pictures (see ``_PICTURE``), line for line: an excerpt as the answer
    model reads it. A README's badge line costs a small model's prompt a hundred tokens of URLs
    and says nothing."""
    return _PICTURE.sub("", text)


def _front_matter(lines: list[str]) -> tuple[int, str]:
    """First content line after YAML (---) or TOML (+++) front matter, and its title."""
    if not lines or lines[0].strip() not in ("---", "+++"):
        return 0, ""
    marker = lines[0].strip()
    ends = (marker, "...") if marker == "---" else (marker,)
    for n in range(1, len(lines)):
        if lines[n].strip() in ends:
            title = ""
            for line in lines[1:n]:
                m = _FRONT_TITLE.match(line)
                if m and not line[:1].isspace():
                    title = m.group(1).strip().strip("\"'").strip()
                    break
            return n + 1, title
    return 0, ""  # an unterminated marker is just a thematic break


def _fence_end(lines: list[str], n: int) -> int:
    """Index of the closing fence line for the fence opened at ``n`` (last line if unterminated)."""
    m = _FENCE.match(lines[n])
    assert m is not None
    char, length = m.group(2)[0], len(m.group(2))
    close = re.compile(r"^\s*" + re.escape(char) + "{" + str(length) + r",}\s*$")
    for k in range(n + 1, len(lines)):
        if close.match(lines[k]):
            return k
    return len(lines) - 1


def _is_fence(line: str) -> bool:
    m = _FENCE.match(line)
    return bool(m) and not (m.group(2)[0] == "`" and "`" in m.group(3))


def _is_table_start(lines: list[str], n: int) -> bool:
    line = lines[n]
    if line.lstrip().startswith("|") and len(line) - len(line.lstrip()) <= 3:
        return True
    return (
        "|" in line
        and n + 1 < len(lines)
        and "-" in lines[n + 1]
        and bool(_TABLE_SEPARATOR.match(lines[n + 1]))
    )


def _block(lines: list[str], a: int, b: int, kind: str) -> Block:
    """Block over line indices a..b inclusive (0-based), trailing blank lines trimmed."""
    while b > a and not lines[b].strip():
        b -= 1
    return Block(a + 1, b + 1, "\n".join(lines[a : b + 1]), kind)


def _parse(lines: list[str], n: int, builder: SectionBuilder) -> None:
    parser = _Parser(lines, builder)
    while n < len(lines):
        n = parser.step(n)
    parser.flush()


class _Parser:
    """Markdown's blocks, line by line: each reader takes the block that starts at a line (and
    returns the line after it) or leaves it to the next; what none takes is paragraph text."""

    def __init__(self, lines: list[str], builder: SectionBuilder) -> None:
        self.lines = lines
        self.builder = builder
        self.para: list[int] = []

    def step(self, n: int) -> int:
        line = self.lines[n]
        if not line.strip():
            self.flush()
            return n + 1
        for read in (
            self._fence,
            self._atx,
            self._setext,
            self._quote,
            self._table,
            self._list_item,
            self._indented,
        ):
            after = read(n, line)
            if after is not None:
                return after
        self.para.append(n)
        return n + 1

    def flush(self) -> None:
        if self.para:
            self.builder.add(_block(self.lines, self.para[0], self.para[-1], "paragraph"))
            self.para.clear()

    def add_merging(self, block: Block, kinds: tuple[str, ...]) -> None:
        """Join a block to the previous one of the same kind when only blank lines separate them."""
        prev = self.builder.last_block
        if (
            prev is not None
            and prev.kind in kinds
            and block.kind in kinds
            and (_only_blank(self.lines, prev.end_line, block.start_line - 1))
        ):
            prev.text = "\n".join(self.lines[prev.start_line - 1 : block.end_line])
            prev.end_line = block.end_line
        else:
            self.builder.add(block)

    def _fence(self, n: int, line: str) -> int | None:
        if not _is_fence(line):
            return None
        self.flush()
        end = _fence_end(self.lines, n)
        block = _block(self.lines, n, end, "code")
        last = self.builder.last_block
        if line[:1].isspace() and last is not None and last.kind == "list":
            self.add_merging(Block(block.start_line, block.end_line, block.text, "list"), ("list",))
        else:
            self.builder.add(block)
        return end + 1

    def _atx(self, n: int, line: str) -> int | None:
        atx = _ATX.match(line)
        if not atx:
            return None
        self.flush()
        self.builder.heading(
            len(atx.group(1)), heading_text(atx.group(2) or ""), _block(self.lines, n, n, "")
        )
        return n + 1

    def _setext(self, n: int, line: str) -> int | None:
        setext = _SETEXT.match(line)
        if not (setext and self.para):
            return None
        # "---" under a paragraph is a setext heading even though it looks like a rule
        level = 1 if setext.group(1)[0] == "=" else 2
        title = heading_text(" ".join(self.lines[k].strip() for k in self.para))
        self.builder.heading(level, title, _block(self.lines, self.para[0], n, ""))
        self.para.clear()
        return n + 1

    def _quote(self, n: int, line: str) -> int | None:
        if not _QUOTE.match(line):
            return None
        self.flush()
        end = n
        while end + 1 < len(self.lines) and _QUOTE.match(self.lines[end + 1]):
            end += 1
        self.add_merging(_block(self.lines, n, end, "quote"), ("quote",))
        return end + 1

    def _table(self, n: int, line: str) -> int | None:
        lines = self.lines
        if self.para or not _is_table_start(lines, n):
            return None
        end = n
        while end + 1 < len(lines) and "|" in lines[end + 1] and lines[end + 1].strip():
            end += 1
        block = _block(lines, n, end, "table")
        own_header = end > n and bool(_TABLE_SEPARATOR.match(lines[n + 1]))
        if own_header:
            self.builder.add(block)
        else:
            self.add_merging(block, ("table",))
        return end + 1

    def _list_item(self, n: int, line: str) -> int | None:
        item = _LIST_ITEM.match(line)
        if not (item and (not self.para or not item.group(2)[0].isdigit())):
            return None
        self.flush()
        end = _list_end(self.lines, n)
        self.add_merging(_block(self.lines, n, end, "list"), ("list",))
        return end + 1

    def _indented(self, n: int, line: str) -> int | None:
        """Indented lines: a list item's continuation after a list, else a code block."""
        lines = self.lines
        if self.para or not line.startswith(("    ", "\t")):
            return None
        end = n
        while end + 1 < len(lines) and (not lines[end + 1].strip() or lines[end + 1][:1].isspace()):
            end += 1
        prev = self.builder.last_block
        if prev is not None and prev.kind == "list":
            self.add_merging(_block(lines, n, end, "list"), ("list",))
        else:
            self.builder.add(_block(lines, n, end, "code"))
        return end + 1


def _only_blank(lines: list[str], after_line: int, upto_line: int) -> bool:
    """True if 1-based lines after_line+1..upto_line are all blank."""
    return all(not lines[k - 1].strip() for k in range(after_line + 1, upto_line + 1))


def _interrupts(lines: list[str], k: int) -> bool:
    line = lines[k]
    if line[:1].isspace():
        return False
    return bool(_ATX.match(line) or _QUOTE.match(line) or _is_fence(line)) or _is_table_start(
        lines, k
    )


def _list_end(lines: list[str], n: int) -> int:
    """Last line index of the list that starts at ``n`` (items, continuations, nested fences)."""
    total = len(lines)
    end = n
    k = n + 1
    while k < total:
        line = lines[k]
        if not line.strip():
            nxt = k + 1
            while nxt < total and not lines[nxt].strip():
                nxt += 1
            if nxt < total and (lines[nxt][:1].isspace() or _LIST_ITEM.match(lines[nxt])):
                k = nxt
                continue
            break
        if _is_fence(line) and line[:1].isspace():
            end = k = _fence_end(lines, k)
            k += 1
            continue
        if _LIST_ITEM.match(line) or line[:1].isspace():
            end = k
            k += 1
            continue
        if _interrupts(lines, k) or not lines[k - 1].strip():
            break
        end = k  # lazy continuation line
        k += 1
    return end
