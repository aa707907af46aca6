"""Hybrid search over one index, as a pipeline:

    the question's language  ->  candidate lists  ->  fuse  ->  signals  ->  coherence
        (language.py)              (lists.py)       (fusion.py)  (signals.py)
    ->  located hits  ->  confidence
                          (confidence.py)

:meth:`Searcher.search` runs the stages in that order; ``explain`` adds why each hit ranks where
it does (explain.py) and the language stage's decision."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from groundls.chunkers.textrules import is_cjk
from groundls.config import SearchConfig
from groundls.index.embed.embedders import Embedders
from groundls.index.embed.spaces import SpacePolicy
from groundls.index.storage.store import Store
from groundls.results import Hit, Related, SearchFilters, SearchResult
from groundls.search import related as related_chunks
from groundls.search import signals
from groundls.search.bilingual import in_two_languages
from groundls.search.confidence import confidence, named_elsewhere, words_it_can_hold
from groundls.search.explain import explained
from groundls.search.fusion import (
    CANDIDATES,
    DEEPER,
    RRF_K,
    RRF_K_CJK,
    RankedList,
    cap_per_file,
    merge_adjacent,
    rrf,
)
from groundls.search.language import SPACE_WEIGHTS, LanguageDecision, LanguageStage, Rewrite
from groundls.search.lists import CandidateLists, Evidence, weights_in_force
from groundls.search.offtopic import OffTopic, Standing
from groundls.search.query import Query, analyse

#: Doc hits widen to their whole section when it spans at most this many lines.
SECTION_LINES = 60
#: Candidates scored by the signals, per hit asked for.
SCORED_PER_HIT = 8


class Ranking(NamedTuple):
    """The fused and scored candidates of one search."""

    scores: dict[int, float]
    #: best first
    ordered: list[int]
    hits: dict[int, Hit]
    #: the symbol each candidate defines
    symbols: dict[int, str]
    #: the signals that moved each, as multipliers
    moved: dict[int, dict[str, float]]


class Searcher:
    """Answers searches and "similar" lookups from one store."""

    def __init__(
        self,
        store: Store,
        policy: SpacePolicy,
        models: Embedders,
        config: SearchConfig,
        rewrite: Rewrite | None = None,
        to_japanese: Rewrite | None = None,
        fill_fraction: Callable[[str], float] | None = None,
        unavailable: Callable[[], dict[str, str]] | None = None,
        reached: Callable[[str, list[int]], None] | None = None,
    ) -> None:
        self.store = store
        self.policy = policy
        self.models = models
        self.config = config
        #: how much of a space is filled (a deep tier's list counts as much as it covers)
        self.fill_fraction = fill_fraction or (lambda space: 1.0)
        #: told, after a search, the candidates a partly filled deep space lacks (best first)
        self.reached = reached
        #: deep spaces that cannot be used now, and why (a model server that is down)
        self.unavailable = unavailable or dict
        self.language = LanguageStage(store, policy, models, config, rewrite, to_japanese)
        self.lists = CandidateLists(
            store,
            policy,
            config,
            self.language.english_spaces,
            lambda space: self.fill_fraction(space),
            lambda: self.unavailable(),
            models,
        )
        self._superseded: tuple[str, frozenset[str]] = ("", frozenset())
        self.offtopic = OffTopic(store, models)

    @property
    def rewrite(self) -> Rewrite | None:
        """Writes a question as English search words (see :mod:`groundls.answer.stages.rewrite`)."""
        return self.language.rewrite

    @rewrite.setter
    def rewrite(self, rewrite: Rewrite | None) -> None:
        self.language.rewrite = rewrite

    def search(
        self,
        query: str,
        filters: SearchFilters,
        cancel: threading.Event | None = None,
        *,
        explain: bool = False,
    ) -> SearchResult:
        """Hybrid search: ranked hits whenever there is keyword or vector evidence, and how sure.

        ``cancel`` is looked at between steps: a cancelled search raises :class:`Cancelled`
        instead of finishing its work. ``explain``: say for each hit which lists found it and
        which signals moved it, and what was decided about the question's language. A question
        translated into Japanese is asked in both languages (:mod:`groundls.search.bilingual`)."""
        asked = analyse(query)
        if not asked.text:
            return SearchResult()
        filled = set(self._filled_spaces())  # a space without vectors would cost an embedding
        result, decision = self._searched(asked, filters, filled, cancel, explain)
        translated = decision.written_japanese
        english = self.language.english_words(asked, cancel) if translated is not None else None
        if translated is None or english is None:
            return result
        translated = replace(translated, phrases=asked.phrases)  # quotes are searched as written
        again, _ = self._searched(translated, filters, filled, cancel, explain, english)
        return in_two_languages(result, again, filters.k or self.config.k)

    def _searched(
        self,
        asked: Query,
        filters: SearchFilters,
        filled: set[str],
        cancel: threading.Event | None,
        explain: bool,
        english_words: str | None = None,
    ) -> tuple[SearchResult, LanguageDecision]:
        """One question through the pipeline, and what the language stage decided for it."""
        k = filters.k or self.config.k
        candidates = CANDIDATES * (DEEPER if filters.paths else 1)
        decision, vectors = self.language.decide(asked, filters, filled, cancel, english_words)
        evidence = self.lists.gather(decision, vectors, filters, candidates, filled, cancel)
        depth = max(candidates, k * SCORED_PER_HIT)
        ranking = self._rank(
            decision.query,
            evidence.lists,
            evidence.defined,
            evidence.exact,
            depth,
            decision.whole,
            decision.unlikely,
        )
        if ranking is None:
            return SearchResult(), decision
        self._hand_over(evidence.lacking, ranking.ordered)
        hits = ranking.hits
        ranked = [r for r in ranking.ordered if r in hits and filters.path_ok(hits[r].path)]
        kept = self._located([hits[r].scored(ranking.scores[r]) for r in ranked], k)
        return self._result(decision, evidence, ranking, ranked, kept, filled, explain), decision

    def _rank(
        self,
        q: Query,
        lists: list[RankedList],
        defined: dict[int, str],
        exact: set[int],
        depth: int,
        whole: bool = True,
        unlikely: str | None = None,
    ) -> Ranking | None:
        """The lists fused, the first ``depth`` candidates moved by the ranking signals, then by
        the coherence of their files, and sorted. None when no list found anything."""
        scores = rrf(lists, RRF_K_CJK if q.script == "cjk" else RRF_K)
        if not scores:
            return None
        ordered = sorted(scores, key=scores.__getitem__, reverse=True)[:depth]
        hits = self.store.hits_by_rowid(ordered)
        symbols = self._symbols(ordered, hits, defined)
        moved = self._signals(q, scores, ordered, hits, symbols, not exact, whole, unlikely)
        _coherence(scores, ordered, hits, moved)
        ordered.sort(key=scores.__getitem__, reverse=True)
        return Ranking(scores, ordered, hits, symbols, moved)

    def _symbols(
        self, ordered: list[int], hits: dict[int, Hit], defined: dict[int, str]
    ) -> dict[int, str]:
        """The symbol each candidate is known by: a chunk that defines a queried name by that
        name (a binding's chunk may carry another symbol); an extension of a type by it only
        when nothing defines the type itself (then the symbol table gave it)."""
        return {
            rowid: "" if rowid in hits and hits[rowid].text_type == "extension" else symbol
            for rowid, symbol in self.store.symbols_by_rowid(ordered).items()
        } | defined

    def _signals(
        self,
        q: Query,
        scores: dict[int, float],
        ordered: list[int],
        hits: dict[int, Hit],
        symbols: dict[int, str],
        other_case: bool,
        whole: bool,
        unlikely: str | None,
    ) -> dict[int, dict[str, float]]:
        """Each candidate's score times its ranking signals (see :mod:`signals`); a passage in
        the unlikely language keeps ``signals.OTHER_LANGUAGE`` of it. Returns the factors."""
        superseded = self._superseded_versions()
        moved: dict[int, dict[str, float]] = {}
        for rowid in ordered:
            if rowid in hits:
                factors = signals.factors(
                    q,
                    hits[rowid],
                    symbols.get(rowid, ""),
                    other_case=other_case,
                    whole=whole,
                    superseded=superseded,
                )
                if unlikely is not None and signals.passage_language(hits[rowid]) == unlikely:
                    factors["other_language"] = signals.OTHER_LANGUAGE
                scores[rowid] *= math.prod(factors.values())
                moved[rowid] = factors
        return moved

    def _result(
        self,
        decision: LanguageDecision,
        evidence: Evidence,
        ranking: Ranking,
        ranked: list[int],
        kept: list[Hit],
        filled: set[str],
        explain: bool,
    ) -> SearchResult:
        """The located hits with the search's confidence, coverage and notice."""
        q, hits = decision.query, ranking.hits
        top = ranked[0] if ranked else None
        words = (
            words_it_can_hold(hits[top], q, decision.asked, decision.japanese)
            if top is not None
            else set()
        )
        # a Japanese term is a character bigram, a fragment of a word: weighed by its rarity
        rarity = self.store.term_rarity([t for t in words if is_cjk(t)])
        sure, reason = confidence(
            q, top, hits, ranking.symbols, evidence.keyword_ids, evidence.tops, words, rarity
        )
        coverage = decision.coverage_among([h.text for h in kept])
        if decision.absent_names:
            sure, reason, coverage = named_elsewhere(
                decision.absent_names, coverage, everything=decision.names_nothing_here
            )
        for space, why in self.unavailable().items():
            if space in filled:  # it holds vectors this search went without
                evidence.missing.setdefault(space, why)
        notice = "; ".join(
            [
                *(
                    f"searched without the {space} vectors: {why}"
                    for space, why in evidence.missing.items()
                ),
                *([self.store.problem] if self.store.problem else []),
            ]
        )
        return SearchResult(
            tuple(kept),
            sure if kept else "none",
            reason if kept else "",
            decision.english.text if decision.english is not None else "",
            coverage,
            notice,
            explained(kept, hits, evidence.lists, ranking.scores, ranking.moved, decision.rrf_k)
            if explain
            else (),
            decision.note() if explain else None,
            decision.absent_names,
        )

    def _filled_spaces(self) -> list[str]:
        """The policy's spaces that hold vectors (a deep space before its fill holds none)."""
        return [s for s in self.policy.all_spaces if self.store.has_chunks_in(s)]

    def weights(self) -> dict[str, Any]:
        """The list weights in force, for status."""
        return weights_in_force(self._filled_spaces(), self.config, SPACE_WEIGHTS)

    def _superseded_versions(self) -> frozenset[str]:
        """The workspace's older version folders (see ``signals.superseded_versions``), worked
        out again only after the index changed."""
        seq = self.store.get_meta("write_seq") or ""
        if self._superseded[0] != seq or not seq:
            self._superseded = (seq, signals.superseded_versions(self.store.file_paths()))
        return self._superseded[1]

    def _hand_over(self, lacking: dict[str, list[int]], ordered: Sequence[int]) -> None:
        """The candidates partly filled deep spaces lack, in the order this search ranked them
        (the rest after), to ``reached``: the fill embeds them first."""
        if self.reached is None:
            return
        for space, rowids in lacking.items():
            if rowids:
                left = set(rowids)
                first = [r for r in ordered if r in left]
                seen = set(first)
                self.reached(space, first + [r for r in rowids if r not in seen])

    def _located(self, scored: list[Hit], k: int) -> list[Hit]:
        """The first ``k`` places to show: neighbouring chunks merged, a doc hit widened to its
        short section, each file's later hits decayed, at most ``max_per_file`` a file."""
        merged = merge_adjacent(scored)
        if SECTION_LINES:
            merged = merge_adjacent([self._expand_section(h) for h in merged])
        merged = signals.spread(merged)
        by_id = {h.chunk_id: h for h in merged}
        capped = cap_per_file([(h.chunk_id, h.path) for h in merged], self.config.max_per_file)
        return [by_id[c] for c in capped[:k]]

    def _expand_section(self, hit: Hit) -> Hit:
        """A doc hit reports its whole section when the section is short (small-to-big)."""
        if hit.kind != "doc" or not hit.breadcrumb:
            return hit
        start, end = self.store.section_span(hit.path, hit.breadcrumb)
        if end - start + 1 > SECTION_LINES or (start, end) == (hit.start_line, hit.end_line):
            return hit
        return replace(hit, start_line=min(start, hit.start_line), end_line=max(end, hit.end_line))

    def similar(self, chunk_id: str, k: int = 10) -> list[Hit]:
        """Chunks nearest to a stored chunk's own vectors (no model call), excluding itself."""
        rowid, own = self._stored(chunk_id)
        lists = related_chunks.neighbours(self.store, rowid, self.store.chunk_vectors(rowid), k)
        scores = rrf(lists)
        scored = related_chunks.best_first(scores, self.store.hits_by_rowid(list(scores)))
        return _apart(scored, own, k)

    def standing(self, question: str, language: str) -> Standing | None:
        """Where ``question`` stands among the off-topic questions this workspace cannot answer
        (see :mod:`groundls.search.offtopic`); no model call."""
        return self.offtopic.standing(question, language)

    def related(self, chunk_id: str, k: int = 3) -> Related:
        """What is related to a stored chunk (see :func:`groundls.search.related.related_to`);
        no model call."""
        rowid, own = self._stored(chunk_id)
        return related_chunks.related_to(self.store, own, rowid, k, self._superseded_versions())

    def _stored(self, chunk_id: str) -> tuple[int, Hit]:
        """A stored chunk's row and hit; KeyError for an unknown id."""
        rowid = self.store.chunk_rowid(chunk_id)
        if rowid is None:
            raise KeyError(chunk_id)
        return rowid, self.store.hits_by_rowid([rowid])[rowid]

    def section_neighbours(self, hit: Hit) -> list[Hit]:
        """The chunks just before and after ``hit`` in the same section (body + table, ...)."""
        out: list[Hit] = []
        parent = hit.breadcrumb[:-1]
        for line in (hit.start_line - 1, hit.end_line + 1):
            if line < 1:
                continue
            near = self.store.chunk_at(hit.path, line)
            if (
                near is not None
                and near.chunk_id != hit.chunk_id
                and near.breadcrumb[:-1] == parent
                and all(r.chunk_id != near.chunk_id for r in out)
            ):
                out.append(near)
        return out


def _coherence(
    scores: dict[int, float],
    ordered: list[int],
    hits: dict[int, Hit],
    moved: dict[int, dict[str, float]],
) -> None:
    """The best chunk of a code file with several candidates lifted (see
    ``signals.coherence``), and the lift recorded among its factors."""
    before = {r: scores[r] for r in ordered}
    signals.coherence(
        scores, {r: hits[r].path for r in ordered if r in hits and hits[r].kind == "code"}
    )
    for rowid, score in before.items():
        if score and scores[rowid] != score and rowid in moved:
            moved[rowid]["coherence"] = scores[rowid] / score


def _apart(scored: list[tuple[Hit, float]], own: Hit, k: int) -> list[Hit]:
    """The first ``k`` of ``scored`` that do not overlap ``own``, with their scores."""
    return [hit.scored(score) for hit, score in scored if not hit.overlaps(own)][:k]
