"""Arguments of the ``groundls.*`` workspace commands: one object each, structured into a typed class.

Each command's argument is a dataclass below, filled by :func:`groundls.typed.structure` (cattrs)
and checked in its ``__post_init__``. A wrong, missing or unknown argument raises
:class:`ArgError` (JSON-RPC InvalidParams) with a message that says what to send instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from groundls.results import MAX_ASK_K, MAX_K, SearchFilters
from groundls.typed import Invalid, describe, structure
from groundls.workspace import CHUNK_ID_RE, KINDS

SEARCH = "groundls.search"
SIMILAR = "groundls.similar"
ASK = "groundls.ask"
REINDEX = "groundls.reindex"
REFERENCE = "groundls.reference"
STATUS = "groundls.status"
HISTORY = "groundls.history"
DOCUMENT_TEXT = "groundls.documentText"
DELETE_HISTORY = "groundls.deleteHistory"


A = TypeVar("A")


class ArgError(ValueError):
    """A command argument is missing, unknown or of the wrong type (JSON-RPC InvalidParams)."""


class Args(Protocol):
    """What every argument class says about itself: its command and the shape it takes."""

    COMMAND: ClassVar[str]
    USAGE: ClassVar[str]


def usage(cls: type[Args]) -> str:
    return f"{cls.COMMAND} takes one object argument: {cls.USAGE}"


def one_object(cls: type[Args], arguments: list[Any] | tuple[Any, ...] | None) -> dict[str, Any]:
    """The single object argument every command takes (none at all means ``{}``)."""
    args = list(arguments or [])
    command = cls.COMMAND
    if not args:
        return {}
    if len(args) > 1:
        raise ArgError(f"{command}: expected one argument, got {len(args)}. {usage(cls)}")
    if args[0] is None or args[0] == []:
        # Lua clients (Neovim) encode an empty table {} as the JSON array [].
        return {}
    if not isinstance(args[0], dict):
        raise ArgError(
            f"{command}: the argument must be an object, got {describe(args[0])}. {usage(cls)}"
        )
    return args[0]


def parse(cls: type[A], data: dict[str, Any]) -> A:
    """``data`` (the command's one object) as its argument class, or :class:`ArgError`."""
    try:
        return structure(cls, data)
    except Invalid as exc:
        raise ArgError(f"{cls.COMMAND}: {exc}. {usage(cls)}") from None  # type: ignore[attr-defined]


# -- checks shared by the argument classes ---------------------------------------------------------


def _not_blank(name: str, value: str) -> None:
    if not value.strip():
        raise Invalid(f'"{name}" must not be empty')


def _k_within(k: int | None, high: int) -> None:
    if k is not None and not 1 <= k <= high:
        raise Invalid(f'"k" must be between 1 and {high}, got {k}')


def _known_kinds(kinds: tuple[str, ...]) -> None:
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise Invalid(f"unknown kind(s) {', '.join(map(repr, bad))}; use {', '.join(KINDS)}")


def _file_uri(uri: str | None) -> None:
    if uri is not None and not uri.startswith("file:"):
        raise Invalid(f'"uri" must be a file: URI, got {uri!r}')


def _chunk_id(value: str) -> None:
    if not CHUNK_ID_RE.match(value):
        raise Invalid(
            f'"chunkId" must be 16 lowercase hex digits (as returned by groundls.search), '
            f"got {value!r}"
        )


# -- the arguments -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Filtered:
    """The search filters that ``search`` and ``ask`` take beside their text."""

    k: int | None = None
    paths: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    def _check_filters(self, max_k: int) -> None:
        _k_within(self.k, max_k)
        _known_kinds(self.kinds)

    @property
    def filters(self) -> SearchFilters:
        return SearchFilters(self.k, self.paths, self.languages, self.kinds)


@dataclass(frozen=True, kw_only=True)
class SearchArgs(_Filtered):
    COMMAND: ClassVar[str] = SEARCH
    USAGE: ClassVar[str] = (
        '{"query": "...", "k"?: 10, "paths"?: ["src/**"], "languages"?: [...], "kinds"?: [...], '
        '"explain"?: false}'
    )

    query: str
    #: with each hit, the lists that found it and the signals that moved it
    explain: bool = False

    def __post_init__(self) -> None:
        _not_blank("query", self.query)
        self._check_filters(MAX_K)


@dataclass(frozen=True, kw_only=True)
class AskArgs(_Filtered):
    COMMAND: ClassVar[str] = ASK
    USAGE: ClassVar[str] = (
        '{"question": "...", "thread"?: 12, "detail"?: "brief"|"full", "k"?: 6, "paths"?: [...], '
        '"languages"?: [...], "kinds"?: [...]}'
    )

    question: str
    uri: str | None = None
    #: a conversation to continue (the ``thread`` of an earlier answer)
    thread: int | None = None
    #: "brief" or "full" (default: the answer.detail setting)
    detail: str | None = None

    def __post_init__(self) -> None:
        _not_blank("question", self.question)
        if self.thread is not None and self.thread < 1:
            raise Invalid(f'"thread" must be an earlier answer\'s thread (>= 1), got {self.thread}')
        if self.detail is not None and self.detail not in ("brief", "full"):
            raise Invalid(f'"detail" must be "brief" or "full", got {self.detail!r}')
        self._check_filters(MAX_ASK_K)
        _file_uri(self.uri)


@dataclass(frozen=True)
class SimilarArgs:
    """Either a place (``uri`` + ``position``, 0-based line) or a ``chunkId``."""

    COMMAND: ClassVar[str] = SIMILAR
    USAGE: ClassVar[str] = (
        '{"uri": "file:///...", "position": {"line": 0, "character": 0}} or {"chunkId": "..."}'
        ', "k"?: 10'
    )

    uri: str | None = None
    position: dict[str, Any] | None = None
    chunk_id: str | None = None
    k: int | None = None

    def __post_init__(self) -> None:
        _k_within(self.k, MAX_K)
        if self.chunk_id is not None:
            if self.uri is not None or self.position is not None:
                raise Invalid('give either "chunkId" or "uri" + "position", not both')
            _chunk_id(self.chunk_id)
            return
        if self.uri is None:
            raise Invalid('"uri" + "position" or "chunkId" is required')
        _file_uri(self.uri)
        if self.position is None:
            raise Invalid('"position" must be an object {"line": 0, "character": 0}, got null')
        line = self.position.get("line")
        if isinstance(line, bool) or not isinstance(line, int) or line < 0:
            raise Invalid('"position.line" must be an integer >= 0 (0-based)')

    @property
    def line(self) -> int:
        return int(self.position["line"]) if self.position else 0


@dataclass(frozen=True)
class ReindexArgs:
    """No ``uri``: every folder; a folder's or a file's ``uri``: just that."""

    COMMAND: ClassVar[str] = REINDEX
    USAGE: ClassVar[str] = '{} for every folder, or {"uri": "file:///..."} for one file or folder'

    uri: str | None = None

    def __post_init__(self) -> None:
        _file_uri(self.uri)


@dataclass(frozen=True)
class ReferenceArgs:
    COMMAND: ClassVar[str] = REFERENCE
    USAGE: ClassVar[str] = '{"chunkId": "<16 hex digits>"}'

    chunk_id: str
    doc_id: str | None = None

    def __post_init__(self) -> None:
        _chunk_id(self.chunk_id)


@dataclass(frozen=True)
class StatusArgs:
    COMMAND: ClassVar[str] = STATUS
    USAGE: ClassVar[str] = "{} (no arguments)"


@dataclass(frozen=True)
class DeleteHistoryArgs:
    """A history thread to forget, by the ``thread`` of its records (in ``groundls.history``),
    in the folder ``uri`` names (default: every folder)."""

    COMMAND: ClassVar[str] = DELETE_HISTORY
    USAGE: ClassVar[str] = '{"thread": 12, "uri"?: "file:///..."}'

    thread: int
    uri: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.thread, bool) or self.thread < 1:
            raise Invalid(f'"thread" must be a positive integer, got {self.thread!r}')
        _file_uri(self.uri)


@dataclass(frozen=True)
class DocumentTextArgs:
    """A document (PDF, Word, slides, ...) by its file ``uri``: its text as the index read it."""

    COMMAND: ClassVar[str] = DOCUMENT_TEXT
    USAGE: ClassVar[str] = '{"uri": "file:///.../manual.pdf"}'

    uri: str

    def __post_init__(self) -> None:
        _file_uri(self.uri)


@dataclass(frozen=True)
class HistoryArgs:
    COMMAND: ClassVar[str] = HISTORY
    USAGE: ClassVar[str] = '{"limit"?: 50}'

    limit: int = 50

    def __post_init__(self) -> None:
        if not 1 <= self.limit <= 1000:
            raise Invalid(f'"limit" must be between 1 and 1000, got {self.limit}')
