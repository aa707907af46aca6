"""What a code chunk says in words: its names read as words and the lines it writes in a
language other than code's (comments, doc comments, messages), for the models that read prose.

Code is embedded by the English models, which read it by its names. Its Japanese doc comments
and messages are read by no model there; the gloss is what the multilingual models read of it
(``SpacePolicy.text_for``), so a question in people's words, in Japanese or English, meets the
code's own description of what it does.
"""

from __future__ import annotations

import re

from .textrules import is_cjk, split_identifier

#: Comment markers a line of a doc comment or comment begins or ends with.
_MARKERS = re.compile(r"^\s*(?:/\*\*|/\*!|/\*|\*/|\*|///|//!|//|#+|--|\"\"\"|''')\s?|\s*\*/\s*$")
#: Markup inside doc comments: HTML tags, Javadoc inline tags (their words kept).
_TAGS = re.compile(r"<[^<>]{1,40}>|\{@\w+\s+([^}]*)\}")
_WS = re.compile(r"[ \t]+")


def name_words(breadcrumb: tuple[str, ...], title: str) -> str:
    """A definition's name and its owner's, read as words: ``StringUtil.isEmpty`` -> "string
    util: is empty"."""
    names = [n for n in (breadcrumb[-2:] if breadcrumb else (title.rsplit(".", 1)[-1],)) if n]
    return ": ".join(" ".join(split_identifier(n)) for n in names if split_identifier(n))


def code_gloss(embed_text: str, breadcrumb: tuple[str, ...], title: str) -> str:
    """The chunk's names as words, then each line of its text written in Japanese (comment
    markers and markup removed); "" when no line is (the English models read it already)."""
    said = []
    for line in embed_text.splitlines():
        if not is_cjk(line):
            continue
        text = _TAGS.sub(lambda m: m.group(1) or "", _MARKERS.sub("", line))
        text = _WS.sub(" ", text).strip()
        if text and text not in said:
            said.append(text)
    if not said:
        return ""
    return "\n".join([name_words(breadcrumb, title), *said]).strip()
