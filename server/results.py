"""Small result types that flow out of the engine to the CLI, the language server and answers."""

from __future__ import annotations

from dataclasses import dataclass, field


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

    @property
    def snippet(self) -> str:
        """A one-line preview: the first meaningful line, trimmed."""
        for line in self.text.splitlines():
            line = line.strip()
            if line:
                return line if len(line) <= 160 else line[:157] + "..."
        return ""


@dataclass
class IndexProgress:
    done_files: int
    total_files: int
    current_path: str = ""
    chunks: int = 0
    embedded: int = 0


@dataclass
class IndexReport:
    files_seen: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    chunks: int = 0
    embedded: int = 0
    #: sentence vectors embedded (Japanese prose keeps one per sentence besides the chunk's)
    embedded_parts: int = 0
    reused: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    cancelled: bool = False
    errors: list[str] = field(default_factory=list)
