"""Reasoning models think aloud between ``<think>`` and ``</think>`` before they answer; nothing of
it is shown, kept or checked. One filter for every engine (in-process or served) and every use
(answers, the Japanese question's rewrite)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


class ThinkFilter:
    """Drops ``<think>…</think>`` from a stream of pieces (a tag may be split across pieces)."""

    OPEN, CLOSE = "<think>", "</think>"

    def __init__(self) -> None:
        self._held = ""
        self._inside = False

    def feed(self, piece: str) -> str:
        text = self._held + piece
        self._held = ""
        out: list[str] = []
        while text:
            tag = self.CLOSE if self._inside else self.OPEN
            at = text.find(tag)
            if at >= 0:
                if not self._inside:
                    out.append(text[:at])
                self._inside = not self._inside
                text = text[at + len(tag) :]
                continue
            # keep a possible start of the tag for the next piece
            keep = next((n for n in range(len(tag) - 1, 0, -1) if text.endswith(tag[:n])), 0)
            if not self._inside:
                out.append(text[: len(text) - keep])
            self._held = text[len(text) - keep :]
            break
        return "".join(out)

    def finish(self) -> str:
        held, self._held = self._held, ""
        return "" if self._inside else held


def without_thinking(pieces: Iterable[str]) -> Iterator[str]:
    """``pieces`` with every ``<think>…</think>`` left out (also when a tag is split)."""
    think = ThinkFilter()
    try:
        for piece in pieces:
            visible = think.feed(piece)
            if visible:
                yield visible
        tail = think.finish()
        if tail:
            yield tail
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
