"""Ignore files (``.gitignore``, ``.groundlsignore``, ``.git/info/exclude``) compiled for a fast walk."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import pathspec

_GROUP_NAME = re.compile(r"(?<!\\)\(\?P<\w+>")


class Rules:
    """One ignore file compiled by pathspec, plus a single combined regex that rejects fast.

    pathspec tries each pattern in turn from Python; almost no path matches any pattern, so
    one C-level alternation that answers "nothing here can match" saves most of the walk time.
    """

    __slots__ = ("quick", "spec")

    def __init__(self, spec: pathspec.GitIgnoreSpec) -> None:
        self.spec = spec
        sources = []
        for pattern in spec.patterns:
            regex = getattr(pattern, "regex", None)
            if pattern.include is None:
                continue
            if regex is None or not isinstance(regex.pattern, str) or regex.flags != re.UNICODE:
                sources = []
                break
            source = _GROUP_NAME.sub("(?:", regex.pattern)
            # pathspec searches; anchor the unanchored branches so one .match() does the same.
            if not source.startswith("^"):
                source = f"[\\s\\S]*?(?:{source})"
            sources.append(f"(?:{source})")
        self.quick: re.Pattern[str] | None = None
        if sources:
            try:
                self.quick = re.compile("|".join(sources))
            except re.error:
                self.quick = None

    def verdict(self, path: str) -> bool | None:
        """True ignore, False re-included by a negation, None when no pattern matches."""
        if self.quick is not None and self.quick.match(path) is None:
            return None
        return self.spec.check_file(path).include


Spec = tuple[str, Rules]  # (base prefix like "a/b/" or "", compiled rules)


def compile_rules(lines: Iterable[str]) -> Rules | None:
    """Compile gitignore lines, dropping any single line pathspec rejects; None when empty."""
    kept = [line for line in lines if line.strip() and not line.startswith("#")]
    if not kept:
        return None
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(kept)
    except Exception:
        good = []
        for line in kept:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
            except Exception:
                continue
            good.append(line)
        if not good:
            return None
        spec = pathspec.GitIgnoreSpec.from_lines(good)
    return Rules(spec) if len(spec) else None


def decide(specs: tuple[Spec, ...], path: str) -> bool | None:
    """Last word of the highest-priority rules that match ``path``: True ignore, False keep."""
    for base, rules in reversed(specs):
        result = rules.verdict(path[len(base) :])
        if result is not None:
            return result
    return None


@dataclass(frozen=True)
class Frame:
    """Ignore files in force for one directory: .gitignore layers and .groundlsignore layers."""

    git: tuple[Spec, ...]
    groundls: tuple[Spec, ...]
