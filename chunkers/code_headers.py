"""A source file's opening lines that are not code to search: its licence comment, and files of directives only."""

from __future__ import annotations

import re

_LICENSE = re.compile(
    r"copyright|\blicen[cs]e|permission is hereby granted|all rights reserved", re.IGNORECASE
)


#: Lines that set up the interpreter or the tools rather than say anything about the code: a
#: shebang, encoding and magic comments (``# frozen_string_literal: true``, ``-*- coding -*-``,
#: ``# typed:``, rdoc's ``# :markup:``), ``'use strict'``, PHP's opening tag and strict types,
#: ``from __future__ import``, ``#pragma once``, build constraints, lint switches, and the
#: source map reference a compiler writes at the end of its output (``//# sourceMappingURL=``).
_DIRECTIVE = re.compile(
    r"^\s*(?:#!.*|#.*-\*-.*-\*-.*|#\s*(?:(?:frozen_string_literal|encoding|coding|"
    r"warn_indent|shareable_constant_value|typed)\s*[:=]|:markup:).*"
    r"|['\"]use (?:strict|client|server)['\"];?|<\?php|declare\s*\(\s*strict_types\s*=\s*1\s*\);"
    r"|from __future__ import .*|#\s*pragma once|//\s*(?:go:build|\+build)\b.*"
    r"|//\s*@ts-(?:check|nocheck)\b.*|/[/*]\s*eslint-disable\b.*"
    r"|/[/*][#@]\s*sourceMappingURL=.*)\s*$"
)


def only_directives(lines: list[str]) -> bool:
    """Whether every non-blank line of ``lines`` is a directive (see ``_DIRECTIVE``)."""
    return all(_DIRECTIVE.match(line) for line in lines if line.strip())


def license_header_rows(lines: list[str], prefixes: tuple[str, ...]) -> int:
    """How many rows the licence comment at the top of a file takes (0 when it has none):
    the first comment (a ``/* */`` block or a run of line comments, after a shebang, PHP's
    opening tag or blank lines) when it mentions a copyright or a licence."""
    r = 0
    while r < len(lines) and (not lines[r].strip() or lines[r].startswith(("#!", "<?php"))):
        r += 1
    start = r
    if r < len(lines) and lines[r].lstrip().startswith("/*"):
        while r < len(lines) and "*/" not in lines[r]:
            r += 1
        r += 1
    else:
        while r < len(lines) and lines[r].strip() and lines[r].lstrip().startswith(prefixes):
            r += 1
    end = min(r, len(lines))
    if end == start or not _LICENSE.search("\n".join(lines[start:end])):
        return 0
    return end
