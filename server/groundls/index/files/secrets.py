"""Secrets inside ordinary files, found by content with detect-secrets and redacted before indexing.

A file is read, then every secret value detect-secrets finds (AWS and other provider keys, tokens,
high-entropy strings assigned to a name, passwords in assignments) is replaced by
:data:`MARK` on its line, and the body of a private key block by :data:`MARK` line for line. Line
numbers do not move, so citations and hovers still point at the right place, and nothing of the
value reaches chunks, the keyword index, vectors or answers.

detect-secrets runs every plugin on every line it is given (about 2,600 lines/s here), far slower
than indexing. One pass of :data:`_CANDIDATE` over the whole text picks the lines any of its
plugins could fire on (a long run of key-like characters holding letters and digits, a private key
header, a quoted value assigned to a secret-like name); only those are scanned.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

MARK = "«redacted»"
#: Recorded in each file's checksum: a new version re-chunks every file once.
VERSION = "detect-secrets-1.5.0/1"

#: Key-like runs (checked for letters and digits) and private key headers, as written.
_CANDIDATE = re.compile(r"[A-Za-z0-9+/=_\-]{20,}|PRIVATE KEY")
#: A value assigned to a secret-like name, matched in the lowercased text (a case-insensitive
#: alternation costs five times as much).
_ASSIGNED = re.compile(r"(?:pass|pwd|secret|token|api_?key|credential)[\w\-]*[\"']?\s*[:=]")
_HAS_DIGIT = re.compile(r"\d")
_HAS_ALPHA = re.compile(r"[A-Za-z]")
_KEY_BLOCK = re.compile(
    r"^([^\n]*-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[^\n]*\n)"
    r"((?:[^\n]*\n)*?)"
    r"(?=[^\n]*-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)",
    re.MULTILINE,
)
#: What a found value is part of: the whole run of non-blank, non-quote characters around it.
_TOKEN_CHARS = re.compile(r"[^\s\"'`,;()<>\[\]{}]+")

_lock = threading.Lock()  # detect-secrets keeps its settings in process-wide singletons
_configured = False


@dataclass(frozen=True)
class Redacted:
    text: str
    #: secret values replaced (a private key block counts once)
    count: int


def _line_numbers(text: str, starts: list[int]) -> set[int]:
    numbers: set[int] = set()
    line, counted = 0, 0
    for start in starts:
        line += text.count("\n", counted, start)
        counted = start
        numbers.add(line)
    return numbers


def _candidate_lines(text: str) -> list[int]:
    """0-based numbers of the lines a detect-secrets plugin could fire on, in order."""
    keys = [
        m.start()
        for m in _CANDIDATE.finditer(text)
        if len(m.group(0)) < 20 or (_HAS_DIGIT.search(m.group(0)) and _HAS_ALPHA.search(m.group(0)))
    ]  # a long run without both letters and digits is an identifier or a rule of dashes
    lowered = text.lower()  # keeps every newline, so line numbers agree
    assigned = [m.start() for m in _ASSIGNED.finditer(lowered)]
    return sorted(_line_numbers(text, keys) | _line_numbers(lowered, assigned))


def _configure() -> None:
    """Every detect-secrets plugin with its default filters, once per process."""
    global _configured
    if _configured:
        return
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import configure_settings_from_baseline

    configure_settings_from_baseline(
        {
            "plugins_used": [
                {"name": cls.__name__} for cls in get_mapping_from_secret_type_to_class().values()
            ]
        }
    )
    _configured = True


def _scan(path: str, lines: list[str], numbers: list[int]) -> dict[int, set[str]]:
    """Secret values detect-secrets finds on the given lines (0-based), by line.

    The same steps as detect-secrets' own line scan (line filters, every plugin, secret and
    context filters), on the candidate lines only, each with its real neighbours as context."""
    from detect_secrets.core.scan import _is_filtered_out, _scan_line
    from detect_secrets.settings import get_plugins
    from detect_secrets.util.code_snippet import get_code_snippet

    found: dict[int, set[str]] = {}
    with _lock:
        _configure()
        plugins = get_plugins()
        for number in numbers:
            line = lines[number].rstrip()
            context = get_code_snippet(lines=lines, line_number=number + 1)
            if _is_filtered_out(["line"], filename=path, line=line, context=context):
                continue
            for plugin in plugins:
                for secret in _scan_line(
                    plugin=plugin, filename=path, line=line, line_number=number + 1, context=context
                ):
                    if secret.secret_value and not _is_filtered_out(
                        ["context"],
                        filename=path,
                        secret=secret.secret_value,
                        plugin=plugin,
                        line=line,
                        context=context,
                    ):
                        found.setdefault(number, set()).add(secret.secret_value)
    return found


def _spans(line: str, value: str) -> set[tuple[int, int]]:
    """Where ``value`` stands in ``line``, widened to the whole token holding it (a plugin may
    report only a token's prefix, ``ghp``), nested spans merged."""
    spans: set[tuple[int, int]] = set()
    for token in _TOKEN_CHARS.finditer(line):
        if value in token.group(0):
            # a ``name=value`` token keeps its name
            start = token.start()
            head, sep, _ = token.group(0).partition("=")
            if sep and value not in head and value in token.group(0)[len(head) + 1 :]:
                start += len(head) + 1
            spans.add((start, token.end()))
    return spans


def redact(path: str, text: str) -> Redacted:
    """``text`` with its secret values replaced by :data:`MARK`, lines kept."""
    count = 0

    def block(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return match.group(1) + (MARK + "\n") * match.group(2).count("\n")

    if "PRIVATE KEY" in text:
        text = _KEY_BLOCK.sub(block, text)
    numbers = _candidate_lines(text)
    if not numbers:
        return Redacted(text, count)
    lines = text.split("\n")
    for number, values in _scan(path, lines, numbers).items():
        line = lines[number]
        spans = sorted({span for value in values for span in _spans(line, value)}, reverse=True)
        for start, end in spans:
            line = line[:start] + MARK + line[end:]
            count += 1
        lines[number] = line
    return Redacted("\n".join(lines), count)
