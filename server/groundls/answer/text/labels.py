"""Excerpt labels an answer echoes (``[1] guide.md:17-30``): dropped while the answer streams and again from the whole answer."""

from __future__ import annotations

import re
from collections.abc import Collection

from groundls.answer.text.citations import MARKER
from groundls.answer.text.hygiene import (
    _HEAD_START,
    _LABEL,
    _LABEL_LINE,
    _LINE_HEAD,
    _any_path,
    _begins_sentence,
)


class LabelFilter:
    """Streams answer text without echoed label lines: the start of each line is held back
    until it is clear that the line is not an excerpt label (its first word is not a
    ``path:12-30``); a label line is dropped whole.

    ``paths``: the excerpts' paths, when known (``sections``: what their headers named). A line
    can only echo one of them, so its start is let through as soon as it cannot begin any of
    them; and a looser echo of one of them (``[1] guide.md:17 (Intro) The answer …``) loses the
    label and keeps ``[1] The answer …``.
    Without them a line waits for the end of its first word, which in Japanese text (no spaces)
    can be the whole sentence."""

    def __init__(self, paths: Collection[str] = (), sections: Collection[str] = ()) -> None:
        self._line = ""
        self._passing = False  # the current line is known not to be a label
        self._paths = tuple(paths)
        loose = _loose_label(self._paths, sections)
        self._loose = re.compile(_LINE_HEAD.pattern + f"(?:{loose.pattern})") if loose else None
        self._header = _path_header(self._paths)
        self.dropped = 0

    def feed(self, piece: str) -> str:
        out: list[str] = []
        self._line += piece
        while "\n" in self._line:
            line, self._line = self._line.split("\n", 1)
            if self._passing:
                out.append(line + "\n")
            else:
                kept = self._without_label(line, complete=True)
                if kept is None:
                    self.dropped += 1
                else:
                    out.append(kept + "\n")
            self._passing = False
        if self._line and not self._passing:
            kept = self._without_label(self._line, complete=False)
            if kept is not None:
                out.append(kept)
                self._line = ""
                self._passing = True
        elif self._line:
            out.append(self._line)
            self._line = ""
        return "".join(out)

    def finish(self) -> str:
        """What is still held back at the end of the answer."""
        line, self._line = self._line, ""
        if not line or self._passing:
            return line
        kept = self._without_label(line, complete=True)
        if kept is None:
            self.dropped += 1
            return ""
        return kept

    def _without_label(self, text: str, *, complete: bool) -> str | None:
        """``text`` (a line, or the start of one) as it may be shown: None while it may still
        be a label (``complete``: the line is whole, so a label line is dropped: None too)."""
        if complete and (
            _LABEL_LINE.fullmatch(text) or (self._header and self._header.fullmatch(text))
        ):
            return None
        loose = self._loose.match(text) if self._loose is not None else None
        if loose is not None:
            rest = text[loose.end() :]
            head = text[: _LINE_HEAD.match(text).end()]  # type: ignore[union-attr]
            if not rest.strip():
                return None  # a label line, or not known yet
            if not complete and (rest[:1] in ":-0123456789" or rest.lstrip()[:1] in "(（"):
                return None  # the label may go on ("guide.md:17-2", "(Intro …")
            self.dropped += 1
            if not _begins_sentence(rest.lstrip(), spaced=True):
                # the path is the sentence's own (「… で登録します」): it stays, bare
                rest = f"{loose.group('path')} {rest.lstrip()}"
            return head.rstrip() + " " + rest.lstrip() if head.strip() else rest.lstrip()
        if complete or not self._may_be_label(text):
            return text
        return None

    def _may_be_label(self, partial: str) -> bool:
        if _HEAD_START.fullmatch(partial):
            return True  # "[", "[1", "**[2]": the excerpt's number may come before a label
        rest = partial[_LINE_HEAD.match(partial).end() :]  # type: ignore[union-attr]
        if len(partial) > 300:
            return False
        if not rest:
            return True
        if self._paths and not any(p.startswith(rest) or rest.startswith(p) for p in self._paths):
            return False  # the line does not begin with an excerpt's path
        if not re.search(r"\s", rest):
            return True  # still on the first word
        if self._paths and any(rest.startswith(p) for p in self._paths) and "(" in rest:
            return ")" not in rest and "）" not in rest  # a bracketed section path may follow
        return bool(_LABEL.match(rest))


def _path_header(paths: Collection[str]) -> re.Pattern[str] | None:
    """A line that is nothing but an excerpt's path under a list number, an excerpt number or a
    heading mark (``1. [1] docs/guide.rst``, ``## guide.md``): a path header, not an answer. A
    bare path alone on its line may be the answer to "which file …?" and is not matched."""
    if not paths:
        return None
    names = _any_path(paths)
    return re.compile(
        r"^[ \t>*-]*(?:#+[ \t]*|\d+[.)][ \t]+|(?=[\[［]))"
        rf"(?:[\[［]\s*\d+\s*[\]］][ \t:：]*)?[*`]*(?:{names})[*`]*[ \t:：]*(?:\n|\Z)",
        re.MULTILINE,
    )


def _loose_label(paths: Collection[str], sections: Collection[str] = ()) -> re.Pattern[str] | None:
    """An excerpt's path with what a model writes after it when it echoes the label loosely:
    one line number (``guide.md:17``) and/or the section in brackets."""
    if not paths:
        return None
    names = _any_path(paths)
    # a bracket after the bare path must hold a section path ("A > B") or a section an excerpt's
    # header named to be the label's ("formatting.py (the help formatter)" is the answer's own)
    shown = "".join(f"|{re.escape(s)}" for s in sorted(sections, key=len, reverse=True) if s)
    return re.compile(
        rf"(?P<path>{names})(?::\d+(?:-\d+)?(?:[ \t]*[(（][^)）\n]*[)）])?"
        rf"|(?P<mark>[ \t]*[\[［][\d\s,，、]+[\]］])?[ \t]*[(（](?:[^)）\n]*>[^)）\n]*{shown})[)）])"
    )


def _marker_before_path(paths: Collection[str]) -> re.Pattern[str]:
    """An excerpt number written before an excerpt's path, as its label has it (``処理は、[1]
    src/click/formatting.py にある``): the path is the sentence's, the number its citation,
    which follows what it cites (``src/click/formatting.py [1] にある``)."""
    return re.compile(
        rf"(?P<marker>{MARKER.pattern})"
        rf"[ \t]*(?P<path>[*`]*(?:{_any_path(paths)})[*`]*)(?![\w/-]|\.\w)"
    )


def strip_labels(
    text: str, paths: Collection[str] = (), sections: Collection[str] = ()
) -> tuple[str, int]:
    """The answer without echoed excerpt labels, and how many were removed. With the excerpts'
    ``paths`` (and the ``sections`` their headers named), looser echoes of them count too:
    ``[1] guide.md:17 (Intro) text`` keeps ``[1] text``; an inline one keeps the bare path, with
    an excerpt number before it moved after it (see ``_marker_before_path``)."""
    text, count = _LABEL_LINE.subn("", text)
    header = _path_header(paths)
    text, n = _without_headers(text, header)
    count += n
    text, n = _LABEL.subn(_bare, text)
    count += n
    loose = _loose_label(paths, sections)
    if loose is not None:
        text, n = _without_loose(text, paths, loose, header)
        count += n
    if count:
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text, count


def _without_headers(text: str, header: re.Pattern[str] | None) -> tuple[str, int]:
    """The text without path headers, and how many went (an answer that is only paths
    stays)."""
    if header is None:
        return text, 0
    headless, headers = header.subn("", text)
    if not headless.strip():
        return text, 0
    return headless, headers


def _bare(m: re.Match[str]) -> str:
    """A label as its bare path; a citation the model wrote between the path and the section
    stays after the path."""
    mark = m.groupdict().get("mark")
    return m.group("path") + (mark or "")


def _lead(m: re.Match[str]) -> str:
    """A label at the start of a line after the excerpt's number: the number stays when a
    sentence follows; a label line goes whole; a path that is the sentence's own
    (「… で登録します」) is kept for the next step."""
    rest = m.string[m.end() :].split("\n", 1)[0]
    if not rest.strip():
        return ""
    if _begins_sentence(rest, spaced=True):
        return m.group("head")
    return m.group(0)


def _without_loose(
    text: str, paths: Collection[str], loose: re.Pattern[str], header: re.Pattern[str] | None
) -> tuple[str, int]:
    """The text without the looser echoes of the excerpts' labels, and how many went."""
    count = 0
    # a label at the start of a line, after the excerpt's number: the line's text follows
    text, n = re.subn(
        rf"^(?P<head>[ \t>*#-]*(?:\d+[.)][ \t]+)?[\[［]\s*\d+\s*[\]］][ \t:：]*)[*`]*"
        rf"(?:{loose.pattern})[*`]*[ \t:：]*",
        _lead,
        text,
        flags=re.MULTILINE,
    )
    count += n
    text, n = loose.subn(_bare, text)
    count += n
    # a header that was a label with its section: 「1. [1] pkgs.html (5.9. …)」
    text, n = _without_headers(text, header)
    count += n
    text, n = _marker_before_path(paths).subn(r"\g<path> \g<marker>", text)
    count += n
    # a label the length limit cut off in its bracket, at the very end of the answer
    cut = re.search(rf"(?:{_any_path(paths)})(?::\d+(?:-\d+)?)?[ \t]*[(（][^)）\n]*$", text)
    if cut is not None:
        count += 1
        text = text[: cut.start()].rstrip()
    return text, count
