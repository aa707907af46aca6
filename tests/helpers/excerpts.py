"""Excerpts as an answer stage reads them: a doc passage as excerpt 1, a code chunk as 2."""

from __future__ import annotations

from groundls.answer.stages.prompt import Excerpt
from groundls.results import Hit


def hit(n: int, text: str, kind: str = "doc", path: str = "docs/faq.md") -> Hit:
    language = "python" if kind == "code" else "markdown"
    return Hit(f"{n:016x}", path, 1, 9, kind, language, kind, "t", ("s",), text)


def doc_and_code(doc: str, code: str) -> list[Excerpt]:
    """``doc`` (docs/faq.md) as excerpt 1 and ``code`` (src/limits.py) as excerpt 2."""
    return [
        Excerpt(1, hit(1, doc), doc),
        Excerpt(2, hit(2, code, "code", "src/limits.py"), code),
    ]
