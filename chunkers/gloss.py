"""What a code chunk says in words: its names read as words, then its comments and doc comments
and any line it writes in Japanese (a message, its class's description), for the models that
read prose.

Code is embedded by the English models, which read it by its names. What its comments say in
another language is read by no model there, and a question in people's words meets an
undocumented method only through identifiers glued into one word. The gloss is what the
multilingual model reads of a code chunk (``SpacePolicy.text_for``): a question in Japanese or
English meets the code's own description of what it does, and every definition, documented or
not, is read there by its names.
"""

from __future__ import annotations

import re

from .textrules import is_cjk, split_identifier

#: Comment markers a line of a doc comment or comment begins or ends with.
_MARKERS = re.compile(r"^\s*(?:/\*\*|/\*!|/\*|\*/|\*|///|//!|//|#+|--|\"\"\"|''')\s?|\s*\*/\s*$")
#: Markup inside doc comments: HTML tags, Javadoc inline tags (their words kept).
_TAGS = re.compile(r"<[^<>]{1,40}>|\{@\w+\s+([^}]*)\}")
_WS = re.compile(r"[ \t]+")
#: Lines that are a comment whatever the language: line comments and a block comment's lines.
_LINE_COMMENT = ("//", "#", "--")
_DOCSTRING = ('"""', "'''")
#: Characters of a gloss at most (a long doc comment says what it does in its first lines).
MAX_GLOSS = 600


def name_words(breadcrumb: tuple[str, ...], title: str) -> str:
    """A definition's name and its owner's, read as words: ``StringUtil.isEmpty`` -> "string
    util: is empty"."""
    names = [n for n in (breadcrumb[-2:] if breadcrumb else (title.rsplit(".", 1)[-1],)) if n]
    return ": ".join(" ".join(split_identifier(n)) for n in names if split_identifier(n))


def comment_lines(code: str) -> list[str]:
    """The lines of ``code`` inside comments, doc comments and docstrings, as written."""
    out: list[str] = []
    block, quote = False, ""
    for line in code.splitlines():
        s = line.strip()
        if quote:
            out.append(line)
            quote = "" if quote in s else quote
        elif block:
            out.append(line)
            block = "*/" not in s
        elif s.startswith("/*"):
            out.append(line)
            block = "*/" not in s[2:]
        elif s.startswith(_LINE_COMMENT):
            out.append(line)
        elif s.startswith(_DOCSTRING):
            out.append(line)
            mark = s[:3]
            quote = "" if mark in s[3:] else mark
    return out


def code_gloss(embed_text: str, text: str, breadcrumb: tuple[str, ...], title: str) -> str:
    """The chunk's names as words, then its comment lines and every line of ``embed_text`` (its
    header and code) written in Japanese, without comment markers or markup."""
    said: list[str] = []
    wanted = [*(line for line in embed_text.splitlines() if is_cjk(line)), *comment_lines(text)]
    for line in wanted:
        words = _TAGS.sub(lambda m: m.group(1) or "", _MARKERS.sub("", line))
        words = _WS.sub(" ", words).strip()
        if words and not words.startswith("@") and words not in said:
            said.append(words)
    return "\n".join([name_words(breadcrumb, title), *said]).strip()[:MAX_GLOSS]
