"""Small result types that flow out of the engine to the CLI, the language server and answers."""

from __future__ import annotations

import fnmatch
import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace

from groundls.chunkers.reading import readable


@dataclass(frozen=True)
class Hit:
    """One located chunk returned by search, similar or lookup. ``path`` is workspace-relative."""

    chunk_id: str
    path: str
    start_line: int
    end_line: int
    kind: str
    language: str
    text_type: str
    title: str
    breadcrumb: tuple[str, ...]
    text: str
    score: float = 0.0
    #: where in a document (PDF, Word, ...) the chunk stands: "p. 12", "slide 4"; "" for text
    place: str = ""

    @property
    def where(self) -> str:
        """The hit's place for people (see :func:`where`)."""
        return where(self.path, self.start_line, self.end_line, self.place)

    @functools.cached_property
    def reading(self) -> str:
        """The chunk's text as a reader sees it, line for line with :attr:`text` (a Sphinx
        heading without its underline, a role as its name; see :mod:`groundls.chunkers.reading`):
        what people and the answer model read. ``text`` is the source, for citations."""
        return readable(self.text, self.language)

    def overlaps(self, other: Hit) -> bool:
        """Whether the two hits share a line of one file."""
        return (
            self.path == other.path
            and self.start_line <= other.end_line
            and other.start_line <= self.end_line
        )

    def scored(self, score: float) -> Hit:
        """This hit with ``score`` (rounded as results show it)."""
        return replace(self, score=round(score, 6))

    @property
    def snippet(self) -> str:
        """A one-line preview: the first meaningful line, trimmed."""
        for line in self.reading.splitlines():
            line = line.strip()
            if line:
                return line if len(line) <= 160 else line[:157] + "..."
        return ""


@dataclass(frozen=True)
class Note:
    """One related place: a hit and what it is to the chunk it was found for."""

    hit: Hit
    #: "doc" or "code" (the tests and callers of a symbol are listed apart)
    kind: str
    #: whether it names the chunk's symbol as code, or is the definition of a name it writes so
    mention: bool = False


@dataclass(frozen=True)
class Related:
    """What relates to a chunk: a few other places, and for a symbol, where it is tested and
    who calls it (see :mod:`groundls.search.usage`)."""

    notes: tuple[Note, ...] = ()
    tests: tuple[Hit, ...] = ()
    callers: tuple[Hit, ...] = ()
    #: how many places call it (at least, when ``more``)
    called: int = 0
    more: bool = False

    def entries(self) -> list[tuple[str, Hit]]:
        """Every place with its relation ("doc", "code", "test", "caller"): the notes, then the
        tests, then the callers."""
        return [
            *((n.kind, n.hit) for n in self.notes),
            *(("test", h) for h in self.tests),
            *(("caller", h) for h in self.callers),
        ]

    @property
    def call_count(self) -> str:
        """How many places call it, for people: "1 place", "3 places", "200+ places"."""
        noun = "place" if self.called == 1 and not self.more else "places"
        return f"{self.called}{'+' if self.more else ''} {noun}"


def where(path: str, start_line: int, end_line: int, place: str = "") -> str:
    """A place for people: ``manual.pdf p. 12`` in a document (PDF, slides, ...),
    ``app.py:10-24`` in a text file."""
    if place:
        return f"{path} {place}"
    return f"{path}:{start_line}-{end_line}"


#: The most hits a search or "similar" lookup returns, and the most excerpts an answer reads.
MAX_K = 100
MAX_ASK_K = 50


@dataclass(frozen=True)
class SearchFilters:
    """What a search may return: how many hits and which paths, languages and kinds.

    Empty tuples mean "no restriction"; ``k`` None means the configured default.
    """

    k: int | None = None
    paths: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        k: int | None = None,
        paths: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> SearchFilters:
        return cls(k, tuple(paths or ()), tuple(languages or ()), tuple(kinds or ()))

    def path_ok(self, path: str) -> bool:
        """Whether ``path`` matches one of the path globs (a folder prefix matches too)."""
        if not self.paths:
            return True
        for pattern in self.paths:
            pattern = pattern.lstrip("/")
            if fnmatch.fnmatch(path, pattern) or path.startswith(pattern.rstrip("/") + "/"):
                return True
        return False


#: How sure a search is that its hits answer the query: ``high`` (a definition of the queried
#: name, or keyword and vector search agree on a hit that holds most query words), ``medium``
#: (one of the two), ``low`` (the nearest there is, with little evidence), ``none`` (no hits).
CONFIDENCE_LEVELS = ("high", "medium", "low", "none")


@dataclass(frozen=True)
class ListPlace:
    """Where one ranked list placed a hit, and what that gave it in the fusion."""

    #: the list: ``vector:e5`` (a space's nearest chunks), ``keyword``, ``definitions``, ...
    name: str
    #: its place in that list, from 1
    rank: int
    #: the list's weight in force for this question
    weight: float
    #: this list's part of the hit's fused score (0..1)
    share: float


@dataclass(frozen=True)
class QuestionLanguage:
    """What the search decided about a question's language (shown by ``--explain``)."""

    #: "latin" or "cjk"
    script: str
    #: the question's language as guessed from its words ("en", "ja", "de", ...)
    language: str
    #: the spaces its own text was searched in, and each one's list weight
    spaces: dict[str, float]
    #: what happened to its English rewrite, in a few words
    rewrite: str
    #: the English words it was also searched with ("" = none)
    searched_as: str
    #: the passages of this language counted half ("" = none)
    unlikely: str
    #: its nearest Japanese and English passages' similarity, and its rewrite's
    leaning: dict[str, float]
    rewrite_leaning: dict[str, float]
    #: it names things in Latin letters and the workspace mentions none of them
    names_nothing_here: bool
    #: what happened to its Japanese translation, and the translation ("" = none)
    translation: str = "not needed"
    translated: str = ""


@dataclass(frozen=True)
class Explanation:
    """Why a hit ranks where it does: the lists that found it and the signals that moved it."""

    #: the weighted Reciprocal Rank Fusion score, before the signals
    fused: float
    lists: tuple[ListPlace, ...]
    #: each ranking signal that moved the score, as its multiplier (``place``: 1.25)
    signals: tuple[tuple[str, float], ...]
    #: the final score (the hit's ``score``)
    score: float


@dataclass(frozen=True)
class SearchResult(Sequence[Hit]):
    """Ranked hits and how sure the search is about them (a sequence of its hits)."""

    hits: tuple[Hit, ...] = ()
    confidence: str = "none"
    #: why, in a few words (shown beside the confidence)
    reason: str = ""
    #: the English words a Japanese question was also searched with ("" = none)
    searched_as: str = ""
    #: the share of the query's English words that occur anywhere in the workspace (0..1);
    #: None when it says little (a Japanese question, or a workspace without English text)
    coverage: float | None = None
    #: what the search could not use and why ("" = everything), e.g. a model server that is down
    notice: str = ""
    #: why each hit ranks where it does, in the order of ``hits`` (asked for with ``explain``)
    explanations: tuple[Explanation, ...] = ()
    #: what the search decided about the question's language (asked for with ``explain``)
    language: QuestionLanguage | None = None
    #: the names the question writes that the workspace never mentions (``question_names``)
    absent_names: tuple[str, ...] = ()

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        return self.hits[index]

    def __len__(self) -> int:
        return len(self.hits)


@dataclass
class IndexProgress:
    done_files: int
    total_files: int
    current_path: str = ""
    chunks: int = 0
    embedded: int = 0
    #: what done/total count: "files" for an index run, "chunks" while the deep tier fills
    unit: str = "files"
    #: vectors embedded so far, by space (the tiers' models)
    by_space: dict[str, int] = field(default_factory=dict)


@dataclass
class IndexReport:
    """What one index run did (several runs or folders add up with :meth:`merge`)."""

    #: files the walk found worth indexing
    files_seen: int = 0
    #: files (re)written because their content changed, and those that had not changed
    files_indexed: int = 0
    files_unchanged: int = 0
    #: files deleted, now excluded or unreadable, whose chunks were removed
    files_removed: int = 0
    #: chunks written, and chunk vectors computed (not found by content hash)
    chunks: int = 0
    embedded: int = 0
    #: sentence vectors embedded (Japanese prose keeps one per sentence besides the chunk's)
    embedded_parts: int = 0
    #: chunk vectors taken from the index by content hash instead of the model
    reused: int = 0
    #: chunk vectors embedded, by space (the fast and deep tiers' models)
    by_space: dict[str, int] = field(default_factory=dict)
    #: files skipped, by reason (binary, too-large, invalid-utf8, secret, ...)
    skipped: dict[str, int] = field(default_factory=dict)
    #: skipped files with why in words (documents that could not be read): (path, why)
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    #: secret values found inside indexed files and redacted before chunking
    secrets_redacted: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    errors: list[str] = field(default_factory=list)

    def merge(self, other: IndexReport) -> IndexReport:
        """Add ``other``'s counts to this report (several folders or runs as one); returns self."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, bool):
                setattr(self, f.name, mine or theirs)
            elif isinstance(mine, (int, float)):
                setattr(self, f.name, mine + theirs)
            elif isinstance(mine, dict):
                for key, n in theirs.items():
                    mine[key] = mine.get(key, 0) + n
            else:
                mine.extend(theirs)
        return self

    @property
    def summary(self) -> str:
        """One line for people: what was indexed, embedded, reused and skipped, and how long."""
        skipped = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped.items())) or "none"
        sentences = f" (+{self.embedded_parts} sentences)" if self.embedded_parts else ""
        if self.secrets_redacted:
            skipped += f"; {self.secrets_redacted} secret value(s) redacted"
        text = (
            f"indexed {self.files_indexed} files ({self.files_unchanged} unchanged, "
            f"{self.files_removed} removed), {self.chunks} chunks, embedded {self.embedded}"
            f"{sentences}, reused {self.reused}, skipped: {skipped}, {self.seconds:.1f}s"
        )
        return f"cancelled: {text}" if self.cancelled else text


class InvalidChunkId(ValueError):
    """A chunk id that is not of the form groundls makes (16 lowercase hex digits)."""


class WorkspaceError(ValueError):
    """The workspace path does not exist or is not a directory."""


class Cancelled(Exception):
    """The caller cancelled the work (a search or lookup stops at its next step)."""


def check_cancel(cancel: threading.Event | None) -> None:
    """Raise :class:`Cancelled` when ``cancel`` is set: the checkpoint between steps of work."""
    if cancel is not None and cancel.is_set():
        raise Cancelled


class NotReadable(ValueError):
    """A path that is outside the workspace, not indexed by its rules, or unreadable."""


class AnswerError(ValueError):
    """A question the service cannot take (empty, too long); the message is for the user."""


@dataclass(frozen=True)
class Citation:
    """A checked citation: the excerpt number used in the answer and the chunk's location."""

    n: int
    chunk_id: str
    path: str
    start_line: int
    end_line: int
    title: str
    weak: bool = False
    #: the lines of the excerpt that share the cited sentences' content: (line, text), best few
    support: tuple[tuple[int, str], ...] = ()
    #: the page, slide, sheet or cell of a document ("p. 12"); "" for a text file
    place: str = ""

    @property
    def where(self) -> str:
        return where(self.path, self.start_line, self.end_line, self.place)


@dataclass
class Answer:
    answer: str
    found: bool
    language: str
    mode: str  # "llm" | "extractive" | "not_found"
    citations: list[Citation] = field(default_factory=list)
    model: str = ""
    timing: dict[str, float | None] = field(default_factory=dict)
    cut: bool = False
    dropped_citations: list[int] = field(default_factory=list)
    #: Why the answer is extractive or cut, or a configuration problem; "" when all went well.
    notice: str = ""
    #: Every excerpt shown to the model (n, location), whether cited or not.
    sources: list[Citation] = field(default_factory=list)
    #: False when generation stopped before the model wrote any answer text.
    answer_started: bool = True
    #: What post-processing mended: echoed excerpt labels removed, citations re-pointed.
    repairs: dict[str, int] = field(default_factory=dict)
    #: How sure the search was of the excerpts ("high", "medium", "low"; "none" without any).
    confidence: str = ""
    #: The history thread this answer belongs to (follow-ups continue it); None if not kept.
    thread: int | None = None
    #: The excerpt (its n among ``sources``) the model chose as the one that answers, before
    #: writing; None when nothing was chosen (one excerpt, a model server, no model).
    chosen: int | None = None
    #: Whether the workspace answers the question, decided once from all the evidence: the
    #: outcome, the evidence that decided it and the evidence read (see ``answer.stages.verdict``).
    verdict: dict[str, object] = field(default_factory=dict)
