"""Arguments of the ``groundls.*`` workspace commands: one object each, checked into typed values.

A wrong, missing or unknown argument raises :class:`ArgError` (JSON-RPC InvalidParams) with a
message that says what to send instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from groundls.chunkers.base import CHUNK_ID_RE, KINDS
from groundls.results import SearchFilters

SEARCH = "groundls.search"
SIMILAR = "groundls.similar"
ASK = "groundls.ask"
REINDEX = "groundls.reindex"
REFERENCE = "groundls.reference"
STATUS = "groundls.status"
HISTORY = "groundls.history"


MAX_K = 100
MAX_ASK_K = 50


class ArgError(ValueError):
    """A command argument is missing, unknown or of the wrong type (JSON-RPC InvalidParams)."""


# -- argument checking ------------------------------------------------------------------------


@dataclass
class SearchArgs:
    query: str
    filters: SearchFilters = field(default_factory=SearchFilters)


@dataclass
class SimilarArgs:
    chunk_id: str | None = None
    uri: str | None = None
    line: int = 0
    k: int | None = None


@dataclass
class AskArgs:
    question: str
    filters: SearchFilters = field(default_factory=SearchFilters)
    uri: str | None = None


_USAGE = {
    SEARCH: '{"query": "...", "k"?: 10, "paths"?: ["src/**"], "languages"?: [...], '
    '"kinds"?: [...]}',
    SIMILAR: '{"uri": "file:///...", "position": {"line": 0, "character": 0}} or {"chunkId": "..."}'
    ', "k"?: 10',
    ASK: '{"question": "...", "k"?: 6, "paths"?: [...], "languages"?: [...], "kinds"?: [...]}',
    REINDEX: '{} for every folder, or {"uri": "file:///..."} for one file or folder',
    REFERENCE: '{"chunkId": "<16 hex digits>"}',
    STATUS: "{} (no arguments)",
    HISTORY: '{"limit"?: 50}',
}


def usage(command: str) -> str:
    return f"{command} takes one object argument: {_USAGE[command]}"


def one_object(command: str, arguments: list[Any] | tuple[Any, ...] | None) -> dict[str, Any]:
    """The single object argument every command takes (none at all means ``{}``)."""
    args = list(arguments or [])
    if not args:
        return {}
    if len(args) > 1:
        raise ArgError(f"{command}: expected one argument, got {len(args)}. {usage(command)}")
    if args[0] is None or args[0] == []:
        # Lua clients (Neovim) encode an empty table {} as the JSON array [].
        return {}
    if not isinstance(args[0], dict):
        raise ArgError(
            f"{command}: the argument must be an object, got {_type(args[0])}. {usage(command)}"
        )
    return args[0]


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _only(command: str, args: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise ArgError(
            f"{command}: unknown argument(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(sorted(allowed)) or 'none'}. {usage(command)}"
        )


def _text(command: str, args: dict[str, Any], key: str) -> str:
    if key not in args or args[key] is None:
        raise ArgError(f'{command}: "{key}" is required. {usage(command)}')
    value = args[key]
    if not isinstance(value, str):
        raise ArgError(f'{command}: "{key}" must be a string, got {_type(value)}')
    if not value.strip():
        raise ArgError(f'{command}: "{key}" must not be empty')
    return value


def _opt_int(command: str, args: dict[str, Any], key: str, low: int, high: int) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ArgError(f'{command}: "{key}" must be an integer, got {_type(value)}')
    if not low <= value <= high:
        raise ArgError(f'{command}: "{key}" must be between {low} and {high}, got {value}')
    return value


def _opt_strings(command: str, args: dict[str, Any], key: str) -> list[str] | None:
    value = args.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ArgError(f'{command}: "{key}" must be an array of non-empty strings')
    return list(value) or None


def _filters(command: str, args: dict[str, Any]) -> SearchFilters:
    kinds = _opt_strings(command, args, "kinds")
    if kinds:
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            raise ArgError(
                f"{command}: unknown kind(s) {', '.join(map(repr, bad))}; use {', '.join(KINDS)}"
            )
    return SearchFilters.of(
        k=_opt_int(command, args, "k", 1, MAX_K),
        paths=_opt_strings(command, args, "paths"),
        languages=_opt_strings(command, args, "languages"),
        kinds=kinds,
    )


def _chunk_id(command: str, args: dict[str, Any]) -> str:
    value = _text(command, args, "chunkId")
    if not CHUNK_ID_RE.match(value):
        raise ArgError(
            f'{command}: "chunkId" must be 16 lowercase hex digits (as returned by '
            f"groundls.search), got {value!r}"
        )
    return value


def _uri(command: str, args: dict[str, Any], required: bool) -> str | None:
    if args.get("uri") is None:
        if required:
            raise ArgError(f'{command}: "uri" is required. {usage(command)}')
        return None
    value = _text(command, args, "uri")
    if not value.startswith("file:"):
        raise ArgError(f'{command}: "uri" must be a file: URI, got {value!r}')
    return value


def parse_search(args: dict[str, Any]) -> SearchArgs:
    _only(SEARCH, args, {"query", "k", "paths", "languages", "kinds"})
    return SearchArgs(query=_text(SEARCH, args, "query"), filters=_filters(SEARCH, args))


def parse_similar(args: dict[str, Any]) -> SimilarArgs:
    _only(SIMILAR, args, {"uri", "position", "chunkId", "k"})
    k = _opt_int(SIMILAR, args, "k", 1, MAX_K)
    if args.get("chunkId") is not None:
        if args.get("uri") is not None or args.get("position") is not None:
            raise ArgError(f'{SIMILAR}: give either "chunkId" or "uri" + "position", not both')
        return SimilarArgs(chunk_id=_chunk_id(SIMILAR, args), k=k)
    if args.get("uri") is None:
        raise ArgError(f'{SIMILAR}: "uri" + "position" or "chunkId" is required. {usage(SIMILAR)}')
    uri = _uri(SIMILAR, args, required=True)
    pos = args.get("position")
    if not isinstance(pos, dict):
        raise ArgError(
            f'{SIMILAR}: "position" must be an object {{"line": 0, "character": 0}}, '
            f"got {_type(pos)}"
        )
    line = pos.get("line")
    if isinstance(line, bool) or not isinstance(line, int) or line < 0:
        raise ArgError(f'{SIMILAR}: "position.line" must be an integer >= 0 (0-based)')
    return SimilarArgs(uri=uri, line=line, k=k)


def parse_ask(args: dict[str, Any]) -> AskArgs:
    _only(ASK, args, {"question", "k", "paths", "languages", "kinds", "uri"})
    filters = _filters(ASK, args)
    if filters.k is not None and filters.k > MAX_ASK_K:
        raise ArgError(f'{ASK}: "k" must be between 1 and {MAX_ASK_K}, got {filters.k}')
    return AskArgs(
        question=_text(ASK, args, "question"),
        filters=filters,
        uri=_uri(ASK, args, required=False),
    )


def parse_reindex(args: dict[str, Any]) -> str | None:
    _only(REINDEX, args, {"uri"})
    return _uri(REINDEX, args, required=False)


def parse_reference(args: dict[str, Any]) -> str:
    _only(REFERENCE, args, {"chunkId", "docId"})
    if args.get("docId") is not None and not isinstance(args["docId"], str):
        raise ArgError(f'{REFERENCE}: "docId" must be a string, got {_type(args["docId"])}')
    return _chunk_id(REFERENCE, args)


def parse_status(args: dict[str, Any]) -> None:
    _only(STATUS, args, set())


def parse_history(args: dict[str, Any]) -> int:
    _only(HISTORY, args, {"limit"})
    return _opt_int(HISTORY, args, "limit", 1, 1000) or 50
