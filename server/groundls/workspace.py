"""The one object every face uses: a workspace folder, its index, its search and its answers.

Data flows one way: files -> chunks -> embeddings -> store -> search -> answer. The CLI and the
language server hold a :class:`Workspace` and the result types, never the stages behind it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

from groundls.answer.model.shared import generating as answering_now
from groundls.answer.model.slot import ModelSlot
from groundls.answer.service import AnswerService
from groundls.answer.stages.rewrite import Translations
from groundls.chunkers.base import CHUNK_ID_RE, KINDS
from groundls.chunkers.textrules import display_width
from groundls.config import Config
from groundls.index.cluster import RayPlan, RayUnavailable, ray_build
from groundls.index.embed.embedders import Embedder, Embedders
from groundls.index.embed.served import _served_model
from groundls.index.embed.spaces import SERVED_SPACE, SpacePolicy
from groundls.index.files.documents import Extracted
from groundls.index.indexer import Indexer
from groundls.index.storage import base as base_index
from groundls.index.storage.db import default_index_path
from groundls.index.storage.layered import LayeredStore
from groundls.index.storage.opening import describe as describe_base
from groundls.index.storage.opening import open_store
from groundls.index.storage.opening import status as opened_status
from groundls.index.storage.served import access as store_access
from groundls.index.storage.served.connection import StoreUnavailable, store_url
from groundls.index.storage.served.connection import connect as store_connect
from groundls.index.storage.served.connection import describe as describe_store
from groundls.index.storage.served.publish import Published, publish_to
from groundls.index.storage.store import Store
from groundls.memory import process_memory
from groundls.results import (
    Hit,
    IndexProgress,
    IndexReport,
    InvalidChunkId,
    NotReadable,
    Related,
    SearchFilters,
    SearchResult,
    WorkspaceError,
)
from groundls.search.fusion import best_of
from groundls.search.links import Links
from groundls.search.offtopic import Standing
from groundls.search.searcher import Searcher

#: What the faces use of the stages behind a workspace, besides the result types: they import
#: it from here, never from the stages themselves (tests/test_architecture.py).
__all__ = [
    "CHUNK_ID_RE",
    "KINDS",
    "Links",
    "RayPlan",
    "RayUnavailable",
    "StoreUnavailable",
    "Workspace",
    "answering_now",
    "best_of",
    "describe_base",
    "describe_store",
    "store_access",
    "store_connect",
    "store_url",
    "display_width",
]

log = logging.getLogger("groundls")


class Workspace:
    """One workspace folder: indexing, search, similar chunks, lookups, answers, history."""

    def __init__(
        self,
        root: Path,
        config: Config,
        index_path: Path,
        embedders: dict[str, Embedder] | None = None,
    ) -> None:
        self.root = root
        self.config = config
        self.index_path = index_path
        served = config.embeddings.served
        self.policy = SpacePolicy(
            config.embedders, served=bool(served.base_url), served_reads=tuple(served.languages)
        )
        models = dict(embedders or {})
        opened = open_store(config, index_path, self.policy, Embedders(models))
        self.opened = opened
        self.store: Store = opened.store
        self.base, self.base_manifest = opened.base, opened.base_manifest
        self.served = opened.served
        if self.policy.served and SERVED_SPACE not in models:
            models[SERVED_SPACE] = _served_model(served, self.store)
        self.models = Embedders(models)
        #: the answer model, shared by the answers and the search's translations of a question
        self.model = ModelSlot(config.answer)
        self.translations = Translations(self.model.get)
        self.indexer = Indexer(root, config, self.store, self.policy, self.models)
        self.searcher = Searcher(
            self.store,
            self.policy,
            self.models,
            config.search,
            rewrite=self._english_query,
            to_japanese=self.translations.japanese,
            fill_fraction=self.indexer.fill_fraction,
            unavailable=lambda: dict(self.indexer.unavailable),
            reached=self.indexer.want_first,
        )
        self._answers: AnswerService | None = None
        self._answers_lock = threading.Lock()

    @classmethod
    def open(
        cls,
        path: Path | str,
        config: Config | None = None,
        index_dir: Path | str | None = None,
        embedders: dict[str, Embedder] | None = None,
    ) -> Workspace:
        root = Path(path).expanduser()
        if not root.is_dir():
            raise WorkspaceError(f"workspace not found or not a directory: {path}")
        root = root.resolve()
        index_path = default_index_path(root, Path(index_dir).expanduser() if index_dir else None)
        return cls(root, config or Config(), index_path, embedders)

    def export(self, dest: Path) -> base_index.Manifest:
        """Write this index as a base for others (see ``groundls.index.storage.base``)."""
        if isinstance(self.store, LayeredStore):
            raise base_index.BaseRefused(
                "this workspace's index is an overlay of a base: export from an index built"
                " without --base"
            )
        return base_index.export(self.index_path, self.root, dest)

    def publish(self, url: str) -> Published:
        """Bring the served store at ``url`` to this index (the indexing role)."""
        if self.base is not None or self.served:
            raise WorkspaceError("publish from an index built without --base or --store")
        return publish_to(url, self.index_path, self.root)

    def base_status(self) -> dict[str, Any] | None:
        """The base index or served store this workspace reads, and how many files differ
        from it (changed, new or deleted)."""
        return opened_status(self.opened)

    # -- indexing ----------------------------------------------------------------------------

    @property
    def is_indexing(self) -> bool:
        return self.indexer.running

    @property
    def progress(self) -> IndexProgress | None:
        return self.indexer.progress

    @property
    def last_error(self) -> str | None:
        return self.indexer.last_error

    @property
    def has_current_index(self) -> bool:
        """Whether the index holds every indexed file as the loaded models embed it: not before
        the first run, nor after a model change dropped the chunks embedded by the old model
        (their files wait to be indexed again). Faces index first when not. Loads the models."""
        self.indexer.ensure_spaces()
        checksums = self.store.file_checksums()
        return bool(checksums) and all(checksums.values())

    def index(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        cancel: threading.Event | None = None,
        ray: RayPlan | None = None,
    ) -> IndexReport:
        """Bring the whole index up to date with the workspace on disk; with ``ray``, the
        changed files are chunked and embedded on that Ray cluster."""
        build = ray_build(self.config, self.policy, ray) if ray is not None else None
        return self.indexer.index(progress, cancel, build)

    def refresh(self) -> IndexReport | None:
        """Bring the index up to date before a request, cheaply: the first time a full index,
        then only the files whose size or mtime changed (or that came or went); None when
        nothing did. For faces without file events (the command line, agents)."""
        if not self.has_current_index:
            return self.index()
        paths = self.indexer.changed_paths()
        return self.indexer.index_paths(paths) if paths else None

    def index_paths(self, rel_paths: Iterable[str]) -> IndexReport:
        """Re-index exactly these workspace-relative files; gone or excluded ones are removed."""
        return self.indexer.index_paths(rel_paths)

    def fill_deep(
        self,
        max_chunks: int | None = None,
        cancel: threading.Event | None = None,
        spaces: Collection[str] | None = None,
    ) -> int:
        """Embed deep-tier vectors the fast index left out (at most ``max_chunks``; ``spaces``:
        only these); returns how many were embedded, 0 when the deep tier is complete."""
        return self.indexer.fill_deep(max_chunks, cancel, spaces)

    def sends_to(self) -> list[str]:
        """Where workspace content goes beyond this machine (model servers the user allowed):
        one line each, [] when nothing leaves it. Every face shows these."""
        served = self.models.get(SERVED_SPACE) if self.policy.served else None
        notes = [getattr(served, "remote_note", "")] if served is not None else []
        if self.config.answer.engine == "openai":
            notes.append(self.answers.status().get("sends_to", ""))
        if self.served:
            notes.append(
                f"search questions (their words and vectors) to {describe_store(self.served)}"
            )
        return [n for n in dict.fromkeys(notes) if n]

    @property
    def unavailable_spaces(self) -> dict[str, str]:
        """Deep spaces that cannot be filled or searched now (a model server down), and why."""
        return dict(self.indexer.unavailable)

    def deep_status(self) -> tuple[int, int]:
        """(chunks the deep tier has embedded, chunks it should hold)."""
        return self.indexer.deep_status()

    def tiers(self) -> list[dict[str, Any]]:
        """Each embedding space: its model, the chunks holding its vectors, how many it should
        hold (the deep tier's fill), whether it is filled after the fast index, and the
        languages its model reads ("*": any)."""
        self.indexer.ensure_spaces()
        models = self.store.spaces()
        out = []
        for space in self.policy.all_spaces:
            deep = space in self.policy.deferred
            if deep and space in self.indexer.unavailable:
                have = wanted = 0
            elif deep:
                have, wanted = self.indexer.deep_counts(space)
            else:
                have = wanted = self.store.count_in(space)
            model = models.get(space, {}).get("model", "")
            reads = list(self.policy.reads(space))
            row = {"space": space, "model": model, "filled": have, "wanted": wanted}
            out.append({**row, "deep": deep, "reads": reads})
        return out

    def warm(self) -> None:
        """Load what the first search would otherwise wait for: the query models (USE reads its
        tokenizer on first use, ~2 s) and, on large indexes, the in-memory vector copies."""
        self.indexer.ensure_spaces()
        for space in self.policy.all_spaces:
            self.models.query_vector(space, "warm up")
            self.store.warm(space)

    # -- search and lookups ------------------------------------------------------------------

    def search(
        self,
        query: str,
        filters: SearchFilters | None = None,
        cancel: threading.Event | None = None,
        *,
        explain: bool = False,
    ) -> SearchResult:
        """Hybrid search: ranked hits and how sure the search is that they answer the query.
        ``cancel`` stops it between steps (raises :class:`groundls.results.Cancelled`);
        ``explain``: with why each hit ranks where it does (``SearchResult.explanations``)."""
        self.indexer.ensure_spaces()
        return self.searcher.search(query, filters or SearchFilters(), cancel, explain=explain)

    def similar(self, chunk_id: str, k: int = 10) -> list[Hit]:
        """Chunks nearest to a stored chunk's own vectors (no model call), excluding itself."""
        _check_id(chunk_id)
        return self.searcher.similar(chunk_id, k)

    def standing(self, question: str, language: str) -> Standing | None:
        """Where ``question`` stands among the off-topic questions this workspace cannot answer
        (:mod:`groundls.search.offtopic`); no model call."""
        self.indexer.ensure_spaces()
        return self.searcher.standing(question, language)

    def related(self, chunk_id: str, k: int = 3) -> Related:
        """Notes, tests and callers of a stored chunk (:mod:`groundls.search.related`)."""
        _check_id(chunk_id)
        return self.searcher.related(chunk_id, k)

    def chunk_at(self, rel_path: str, line: int) -> Hit | None:
        """The narrowest chunk of ``rel_path`` that contains the 1-based ``line``."""
        return self.store.chunk_at(rel_path, line)

    def read_lines(self, rel_path: str, start: int, end: int) -> tuple[list[str], int]:
        """Lines ``start``..``end`` (1-based, inclusive) of a workspace file and its line count,
        as the index sees it: only files the index would take (never outside the workspace,
        ignored or secret-named), secret values redacted. Raises :class:`NotReadable`."""
        text = self.indexer.read_visible(rel_path)
        if text is None:
            raise NotReadable(f"{rel_path} is not an indexed file of this workspace")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return lines[max(0, start - 1) : max(0, end)], len(lines)

    def document_text(self, rel_path: str) -> Extracted:
        """A document's text as the index read it (PDF pages, slides, sheets, cells) and where
        each place begins. Raises :class:`NotReadable` for anything else."""
        document = self.indexer.document(rel_path)
        if document is None:
            raise NotReadable(f"{rel_path} is not an indexed document of this workspace")
        return document

    def get_chunk(self, chunk_id: str) -> Hit | None:
        _check_id(chunk_id)
        return self.store.get_hit(chunk_id)

    def section_neighbours(self, hit: Hit) -> list[Hit]:
        """The supporting chunks beside ``hit`` in its section (seed 003's related chunks)."""
        return self.searcher.section_neighbours(hit)

    def ranking(self) -> dict[str, Any]:
        """The list weights in force and what moves them per question (see ``--explain``)."""
        return self.searcher.weights()

    # -- answers -----------------------------------------------------------------------------

    def _english_query(self, question: str, cancel: threading.Event | None = None) -> str | None:
        """A Japanese question as English search words, by the answer model (if installed);
        in a workspace without code, its meaning first (see groundls.answer.stages.rewrite)."""
        return self.translations.english(question, cancel, prose=not self.store.holds_code())

    @property
    def answers(self) -> AnswerService:
        """The workspace's answer service (the model is resolved on the first question)."""
        with self._answers_lock:
            if self._answers is None:
                self._answers = AnswerService(self, self.config.answer, slot=self.model)
            return self._answers

    def add_history(self, record: dict[str, Any]) -> int:
        return self.store.history.add(record)

    def history_thread(self, thread: int) -> list[dict[str, Any]]:
        """The records of one history thread, oldest first."""
        return self.store.history.thread(thread)

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        return self.store.history.recent(limit)

    def delete_history(self, thread: int) -> int:
        """Forget a history thread (its question and follow-ups); how many records went."""
        return self.store.history.delete_thread(thread)

    def reconfigure(self, config: Config) -> None:
        """Take settings that do not change the index (search, hover, answers) in place."""
        answers_changed = config.answer != self.config.answer
        self.config = config
        self.searcher.config = config.search
        if answers_changed:
            with self._answers_lock:
                answers, self._answers = self._answers, None
            if answers is not None:
                answers.close()

    def stats(self) -> dict[str, Any]:
        """The index's counts, models and size, and this process's memory and loaded models."""
        stats = self.indexer.stats()
        stats["models"] = self.store.spaces()
        stats["memory"] = {**process_memory(), "embedders_loaded": self.models.loaded()}
        stats["index_path"] = str(self.index_path)
        try:
            stats["index_bytes"] = sum(
                p.stat().st_size for p in self.index_path.parent.glob(self.index_path.name + "*")
            )
        except OSError:
            stats["index_bytes"] = None
        return stats

    def close(self) -> None:
        with self._answers_lock:
            answers, self._answers = self._answers, None
        if answers is not None:
            answers.close()
        self.model.close()
        self.store.close()


def _check_id(chunk_id: str) -> None:
    if not isinstance(chunk_id, str) or not CHUNK_ID_RE.match(chunk_id):
        raise InvalidChunkId(f"malformed chunk id {chunk_id!r}: expected 16 hex digits")
