"""Write: the model's answer over the excerpts, streamed to the reader as it is written.

Echoed excerpt labels are held back while streaming; a reply that starts going round in circles
or writing the same lines a third time is stopped there; a reply that was nothing but an
excerpt's label is written once more, not beginning with ``[``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from groundls.answer.model import runtime
from groundls.answer.model.thinking import without_thinking
from groundls.answer.stages.prompt import Excerpt, header_sections
from groundls.answer.text import citations as cit
from groundls.answer.text import labels, output, repeats
from groundls.answer.text.hygiene import says_hedge
from groundls.answer.timing import ms_since

#: JSON schema of the structured output (style "json").
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "citations": {"type": "array", "items": {"type": "integer"}},
        "found": {"type": "boolean"},
    },
    "required": ["answer", "citations", "found"],
}

#: An answer to a Japanese question may not begin with a Latin word or a bracket: over English
#: excerpts the model otherwise starts some answers by copying an excerpt's heading (or its label,
#: then its heading) and goes on in English.
JAPANESE_LEAD = True


@dataclass
class Written:
    """What the model wrote: its raw reply, and how the writing went."""

    raw: str
    stats: runtime.GenerationStats = field(default_factory=runtime.GenerationStats)
    #: the pieces the reader was shown while it streamed
    shown: list[str] = field(default_factory=list)
    #: the reply was stopped for going round in circles
    looped: bool = False

    @property
    def cut(self) -> bool:
        """Stopped before the model's own end: cancelled, out of time or tokens, or looping."""
        return self.stats.stop_reason in ("cancel", "time", "length", "loop")


def only_a_label(
    raw: str,
    style: str,
    stats: runtime.GenerationStats,
    paths: set[str],
    sections: set[str],
) -> bool:
    """Whether a text reply that ran to its end holds nothing but echoed excerpt labels (after
    a lead-in such as "答え:", with which a Japanese answer, barred from a leading bracket,
    begins its label)."""
    if style != "text" or stats.stop_reason != "stop":
        return False
    text, _ = labels.strip_labels(raw, paths, sections)
    return not cit.MARKER.sub("", text).strip()


def write(
    model: Any,
    messages: list[dict[str, str]],
    excerpts: list[Excerpt],
    language: str,
    show: Callable[[str], None],
    *,
    style: str,
    max_tokens: int,
    cancel: threading.Event | None,
    deadline: float | None,
) -> Written:
    """Stream the model's reply to ``messages``, each visible piece to ``show`` (labels held
    back, the "answer" value of a JSON reply)."""
    written = Written("")
    stats = written.stats
    raw_parts: list[str] = []
    streamer = output.AnswerFieldStreamer() if style == "json" else None
    # echoed excerpt labels never reach the user
    paths = {e.hit.path for e in excerpts}
    sections = header_sections(excerpts)

    def shown(visible: str) -> None:
        if visible:
            written.shown.append(visible)
            show(visible)

    for attempt in range(2):
        held = labels.LabelFilter(paths, sections)
        pieces = without_thinking(
            model.stream(
                messages,
                max_tokens=max_tokens,
                schema=ANSWER_SCHEMA if style == "json" else None,
                cancel=cancel,
                deadline=deadline,
                stats=stats,
                no_leading_bracket=attempt > 0 or (language == "ja" and JAPANESE_LEAD),
                no_leading_latin=language == "ja" and JAPANESE_LEAD,
            )
        )
        _stream(pieces, raw_parts, written, streamer, held, shown, style)
        shown(held.finish())
        if attempt or not only_a_label("".join(raw_parts), style, stats, paths, sections):
            break
        # the reply was nothing but an excerpt's label ("[1] guide.md:1-9 (…)", as if the
        # location were the answer): once more, not beginning with "[" (the prompt is read
        # already, so this costs only the writing)
        raw_parts.clear()
    raw = "".join(raw_parts)
    if written.looped:
        cut_at = repeats.loop_start(raw)
        if cut_at is not None:
            raw = raw[:cut_at]
        stats.stop_reason = "loop"
    written.raw = raw
    return written


def _stream(
    pieces: Iterable[str],
    raw_parts: list[str],
    written: Written,
    streamer: output.AnswerFieldStreamer | None,
    held: labels.LabelFilter,
    shown: Callable[[str], None],
    style: str,
) -> None:
    """One attempt's pieces into ``raw_parts``, each visible piece shown; stopped when the
    reply goes round in circles (a token loop, or the same lines a third time)."""
    for piece in pieces:
        raw_parts.append(piece)
        visible = streamer.feed(piece) if streamer is not None else piece
        shown(held.feed(visible) if visible else "")
        if len(raw_parts) % 8 == 0:
            so_far = "".join(raw_parts)
            if repeats.loop_start(so_far) is not None:
                written.looped = True
                break
            if style == "text" and (third := repeats.third_copy_start(so_far)):
                # writing the same lines a third time: nothing new will come
                raw_parts[:] = [so_far[:third]]
                break


class Shown:
    """What the reader is shown of an answer as it streams: the first piece's time, and the
    hedge before the first words of an answer over an unsure search (so it never arrives
    before them)."""

    def __init__(
        self,
        timing: dict[str, float | None],
        t0: float,
        hedge: str,
        on_token: Callable[[str], None] | None,
    ) -> None:
        self.timing, self.t0, self.hedge, self.on_token = timing, t0, hedge, on_token
        self.seen: list[str] = []

    def __call__(self, visible: str) -> None:
        if not visible:
            return
        if self.timing["first_token_ms"] is None:
            self.timing["first_token_ms"] = ms_since(self.t0)
        if self.hedge and not self.seen and not says_hedge(visible):
            visible = self.hedge + visible.lstrip()
        self.seen.append(visible)
        if self.on_token is not None:
            self.on_token(visible)
