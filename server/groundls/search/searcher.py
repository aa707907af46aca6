"""Hybrid search over one index: vector and keyword candidate lists, fused, ranked, located."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from groundls.chunkers.textrules import has_hiragana, head_within, is_cjk
from groundls.config import SearchConfig
from groundls.index.embedders import Embedders, EmbedderUnavailable
from groundls.index.spaces import PARTS_SPACE, STAND_INS, SpacePolicy
from groundls.index.store import Store
from groundls.index.terms import index_terms, match_expression
from groundls.results import (
    Explanation,
    Hit,
    ListPlace,
    SearchFilters,
    SearchResult,
    check_cancel,
)
from groundls.search import related as related_chunks
from groundls.search import signals
from groundls.search.fusion import (
    RRF_K,
    RRF_K_CJK,
    RankedList,
    cap_per_file,
    merge_adjacent,
    rrf,
)
from groundls.search.query import Query, analyse, latin_names

#: Candidates taken from each list before fusion.
CANDIDATES = 50
#: Doc hits widen to their whole section when it spans at most this many lines.
SECTION_LINES = 60

#: How much each embedding space's list counts in the fusion, by the script of the query.
#: MiniLM and the static model distilled from it read English only: a Japanese question's own
#: text gets no list there (its English rewrite does); at 0.5 they moved click-ja by 0.001 and
#: maint-guide-ja not at all, and cost two embeddings a search. USE and e5 are multilingual
#: (measured on ../shared/eval).
SPACE_WEIGHTS = {
    "latin": {"static": 1.0, "minilm": 1.0, "use": 0.3, "e5": 0.5, "served": 1.0},
    "cjk": {"static": 0.0, "minilm": 0.0, "use": 1.0, "e5": 1.0, "served": 1.0},
}
#: Extra weight, for Latin-script queries, of the chunks only this space holds.
UNIQUE_BOOST = {"use": 1.0}
#: Spaces that read English only: an English rewrite of a Japanese question is searched there.
LATIN_SPACES = ("static", "minilm")

#: The space that reads Japanese and English alike: it judges which language's passages a
#: rewritten Japanese question is nearer to (see ``Searcher._unlikely_language``).
MULTILINGUAL_SPACE = "use"
#: Spaces that read Japanese and English alike: their lists for a question split by language
#: when one language is the unlikely answer (see ``_by_language``), as the judge's own does.
MULTILINGUAL_SPACES = ("use", "e5")
#: How much deeper the question's own lists search when they are split by language (as deep as
#: a path filter makes every list).
DEEPER = 4

#: Passages the language judge looks through for each language's nearest one: a language that
#: is rare in the workspace (English paragraphs in a Japanese manual) is seldom among the first
#: 50, and without it there is no verdict.
JUDGE_DEPTH = CANDIDATES * DEEPER
#: The languages the judge weighs, as ``signals.passage_language`` names them.
LANGUAGES = ("ja", "en")
#: How much nearer its nearest Japanese passage than its nearest English one a Japanese question
#: must be for its English rewrite to be skipped (see ``_plainly_japanese``): three
#: times the margin past which the rewrite never turned the judge on the public and development
#: sets; 27 of their 88 Japanese questions asked among both languages pass it.
PLAINLY_JAPANESE = 0.15
#: How far apart the language judge's two sums must be for a verdict (see ``_verdict``): nearer,
#: a near-identical rewrite ("How to declare …?" against "Declare …") turned it, and the verdict
#: drops the rewrite or halves the other language. A plateau over 0.08-0.12 on the public and
#: development sets (0.1: policy-ja 0.768 -> 0.817, aptitude-ja 0.394 -> 0.412, mixed click-ja
#: 0.521 -> 0.553, the rest the same; past 0.15 the Japanese manual in mixed-ja loses).
JUDGE_MARGIN = 0.1

#: The keyword hits whose share of the question is looked at (see
#: ``Searcher._keyword_reliability``): a plateau over 1-10 (BENCHMARKS.md).
RELIABILITY_DEPTH = 3

#: Tokens of a question the answer model rewrites: a question, not a pasted file (the model
#: would read all of it first, a minute for a long one).
REWRITE_TOKENS = 256

#: Passages read at first while looking for the nearest one in each language (then twice as many
#: each time).
_PEEK = 8

#: Threads that embed a question in the spaces side by side (one per space at most).
_QUERY_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="groundls-query")

#: Writes a question as English search words (None: cannot now). See groundls.answer.rewrite.
Rewrite = Callable[[str, "threading.Event | None"], "str | None"]


@dataclass
class _Evidence:
    """What one search's candidate lists found: the lists, the nearest chunk of each space that
    reads the query's script, and the keyword hits (English rewrite's first)."""

    lists: list[RankedList] = field(default_factory=list)
    tops: dict[str, int] = field(default_factory=dict)
    keyword_ids: list[int] = field(default_factory=list)
    #: spaces that could not be searched, and why (a model server that is down)
    missing: dict[str, str] = field(default_factory=dict)


class _Vectors(Mapping[tuple[str, str], "np.ndarray | EmbedderUnavailable"]):
    """A search's query vectors, each embedded on the query pool: reading one waits for that
    one only, so the work that needs the fast models' vectors goes on while the slowest is
    still being embedded."""

    def __init__(self, futures: dict[tuple[str, str], Future]) -> None:
        self._futures = futures

    def __getitem__(self, pair: tuple[str, str]) -> np.ndarray | EmbedderUnavailable:
        return self._futures[pair].result()

    def __iter__(self):  # noqa: ANN204 - Mapping's own signature
        return iter(self._futures)

    def __len__(self) -> int:
        return len(self._futures)


class Searcher:
    """Answers searches and "similar" lookups from one store."""

    def __init__(
        self,
        store: Store,
        policy: SpacePolicy,
        models: Embedders,
        config: SearchConfig,
        rewrite: Rewrite | None = None,
        fill_fraction: Callable[[str], float] | None = None,
        unavailable: Callable[[], dict[str, str]] | None = None,
        reached: Callable[[str, list[int]], None] | None = None,
    ) -> None:
        self.store = store
        self.policy = policy
        self.models = models
        self.config = config
        self.rewrite = rewrite
        #: how much of a space is filled (a deep tier's list counts as much as it covers)
        self.fill_fraction = fill_fraction or (lambda space: 1.0)
        #: told, after a search, the candidates a partly filled deep space lacks (best first)
        self.reached = reached
        #: deep spaces that cannot be used now, and why (a model server that is down)
        self.unavailable = unavailable or dict
        self._superseded: tuple[str, frozenset[str]] = ("", frozenset())

    @property
    def _english_spaces(self) -> list[str]:
        return [s for s in LATIN_SPACES if s in self.policy.all_spaces]

    def _superseded_versions(self) -> frozenset[str]:
        """The workspace's older version folders (see ``signals.superseded_versions``), worked
        out again only after the index changed."""
        seq = self.store.get_meta("write_seq") or ""
        if self._superseded[0] != seq or not seq:
            self._superseded = (seq, signals.superseded_versions(self.store.file_paths()))
        return self._superseded[1]

    def _holds_english_text(self, filled: set[str]) -> bool:
        """Whether any chunk is embedded in a space that reads English (``filled``: the spaces
        that hold vectors, looked up once per search)."""
        return any(s in filled for s in self._english_spaces)

    def _rewrites(self, q: Query, filled: set[str]) -> bool:
        """Whether a question may be searched as English words too: a question in Japanese or
        another language than English (Chinese, Korean, German, ...), when the index holds text
        that reads English and a rewrite can be written."""
        return (
            (q.script == "cjk" or q.language != "en")
            and self.config.rewrite_questions
            and self.rewrite is not None
            and self._holds_english_text(filled)
        )

    def _english(self, q: Query, cancel: threading.Event | None = None) -> Query | None:
        """A Japanese question as English words (None: no rewrite, or the model could not write
        them)."""
        if self.rewrite is None:
            return None
        text = self.rewrite(head_within(q.text, REWRITE_TOKENS), cancel)
        check_cancel(cancel)
        return analyse(text) if text else None

    def search(
        self,
        query: str,
        filters: SearchFilters,
        cancel: threading.Event | None = None,
        *,
        explain: bool = False,
    ) -> SearchResult:
        """Hybrid search: ranked hits whenever there is keyword or vector evidence, and how sure.

        ``cancel`` is looked at between steps (the rewrite, each space's query vector and
        nearest chunks, the keyword lists, the ranking): a cancelled search raises
        :class:`Cancelled` instead of finishing its work. ``explain``: say for each hit which
        lists found it and which signals moved it (``SearchResult.explanations``)."""
        q = asked = analyse(query)
        if not q.text:
            return SearchResult()
        k = filters.k or self.config.k
        candidates = CANDIDATES * (DEEPER if filters.paths else 1)
        # a space without vectors (the deep tier before its fill) would only cost an embedding
        filled = set(self._filled_spaces())
        # a question that may be rewritten: its own nearest passage in each language decides
        # whether the rewrite is written at all, then weighs in the language judge
        rewrites = self._rewrites(q, filled)
        # (the judge weighs Japanese passages against English ones: a Japanese question's)
        own = self._leaning(q.text, filters, filled) if rewrites and q.script == "cjk" else None
        english = self._english(q, cancel) if rewrites and not _plainly_japanese(own) else None
        # every query vector this search needs, side by side; the models keep them, so the
        # language judge and the rewrite's lists below read theirs from there
        pairs = [(space, q.text) for space in self._space_weights(q, filled)]
        if english is not None:
            wanted = (MULTILINGUAL_SPACE, *self._english_spaces)
            pairs += [(space, english.text) for space in wanted if space in filled]
        check_cancel(cancel)
        vectors = self._query_vectors(pairs)
        unlikely = (
            self._unlikely_language(own, english, filters, filled, vectors) if english else None
        )
        if unlikely == "en":
            # the answer reads Japanese: the question is searched in its own words alone. Its
            # rewrite's lists and English words only lifted passages that mention a command or
            # a setting's name in passing (mixed-ja's Japanese questions 0.757 -> 0.801)
            english = unlikely = None
        # the keyword lists and the rewrite's lists first: they are made while the slowest
        # query vector (e5's, on one core) is still being embedded; they still rank after the
        # question's own vector lists
        words = _Evidence()
        check_cancel(cancel)
        keyword_weight = self.config.keyword_weight * (2.0 if q.is_symbol else 1.0)
        self._keyword_lists(q, filters, candidates, keyword_weight, words, unlikely)
        if english is not None:
            check_cancel(cancel)
            self._english_lists(english, filters, candidates, filled, words, vectors)
            q = replace(english, text=q.text, script=q.script)
        found = _Evidence()
        self._vector_lists(asked, filters, candidates, filled, found, vectors, unlikely, cancel)
        found.lists += words.lists
        found.tops.update(words.tops)
        found.keyword_ids = words.keyword_ids
        found.missing.update(words.missing)
        check_cancel(cancel)
        lacking = self._weigh_partial_spaces(found)
        defined, exact = self._definitions(q, filters, candidates, keyword_weight, found)
        # an English question, or a Japanese one's English rewrite, is a whole question in words
        whole = q.script == "latin" or english is not None
        depth = max(candidates, k * 8)
        lists = found.lists
        if asked.script == "cjk":
            lists = self._keyword_reliability(asked, lists)
        ranking = self._rank(q, lists, defined, exact, depth, whole, unlikely)
        if ranking is None:
            return SearchResult()
        scores, ordered, hits, symbols, moved = ranking
        self._hand_over(lacking, ordered)
        ranked = [r for r in ordered if r in hits and filters.path_ok(hits[r].path)]
        kept = self._located([_scored(hits[r], scores[r]) for r in ranked], k)
        top = ranked[0] if ranked else None
        words = _words_it_can_hold(hits[top], q, asked) if top is not None else set()
        # a Japanese term is a character bigram, a fragment of a word: weighed by its rarity
        rarity = self.store.term_rarity([t for t in words if is_cjk(t)])
        confidence, reason = _confidence(
            q, top, hits, symbols, found.keyword_ids, found.tops, words, rarity
        )
        coverage = self._coverage(q, english is not None, kept, filled)
        if q.script == "cjk" and self._names_nothing_here(q.text):
            # the things a Japanese question names in the user's own letters are nowhere here:
            # whatever its (rewritten) words found, it is not about this workspace
            confidence, reason, coverage = "low", "names nothing in this workspace", 0.0
        for space, why in self.unavailable().items():
            if space in filled:  # it holds vectors this search went without
                found.missing.setdefault(space, why)
        notice = "; ".join(
            f"searched without the {space} vectors: {why}" for space, why in found.missing.items()
        )
        return SearchResult(
            tuple(kept),
            confidence if kept else "none",
            reason if kept else "",
            english.text if english is not None else "",
            coverage,
            notice,
            _explained(kept, hits, lists, scores, moved, RRF_K_CJK if q.script == "cjk" else RRF_K)
            if explain
            else (),
        )

    def _keyword_reliability(self, asked: Query, lists: list[RankedList]) -> list[RankedList]:
        """A Japanese question's own keyword list weighed by how much of the question it
        matched: the largest share, by rarity, of the question's words (its character bigrams
        and Latin words) that one of the list's first ``RELIABILITY_DEPTH`` hits holds, of the
        words that hit could hold (an English passage holds no Japanese word). A question in the
        manual's own words is matched whole; a paraphrase matches a few common bigrams in every
        section, and its keyword list would outvote the meaning lists that found the section.
        Lists of whole words are left as they are: an English question's (weighed alike,
        SEMBLE-PUB 0.897 -> 0.892) and a Japanese question's English rewrite's (held-out
        requests-qa 0.594 -> 0.563; BENCHMARKS.md)."""
        out = []
        for ranked in lists:
            if _unsplit(ranked.name) != "keyword" or not ranked.ids:
                out.append(ranked)
                continue
            words = {t for t in asked.terms if not has_hiragana(t)}
            rarity = self.store.term_rarity([t for t in words if is_cjk(t)])
            weight = {t: rarity.get(t, 1.0) for t in words}
            shares = []
            for hit in self.store.hits_by_rowid(list(ranked.ids[:RELIABILITY_DEPTH])).values():
                # an English passage cannot hold a Japanese word: only what it could hold counts
                could = (
                    weight
                    if is_cjk(hit.text)
                    else {t: w for t, w in weight.items() if not is_cjk(t)}
                )
                if sum(could.values()):
                    held = set(index_terms(f"{hit.path} {hit.title} {hit.text}").split())
                    shares.append(
                        sum(w for t, w in could.items() if t in held) / sum(could.values())
                    )
            if not shares:
                out.append(ranked)
                continue
            share = max(shares)
            out.append(RankedList(ranked.name, ranked.weight * share, ranked.ids))
        return out

    def _filled_spaces(self) -> list[str]:
        """The policy's spaces that hold vectors (a deep space before its fill holds none)."""
        return [s for s in self.policy.all_spaces if self.store.has_chunks_in(s)]

    def weights(self) -> dict[str, Any]:
        """The list weights in force, for status: each filled space's for an English and a
        Japanese question, the keyword lists', and what moves them per question."""
        filled = self._filled_spaces()
        return {
            language: {
                f"vector:{space}": self.config.vector_weight * SPACE_WEIGHTS[script].get(space, 1.0)
                for space in filled
            }
            | {"keyword": self.config.keyword_weight}
            for language, script in (("english", "latin"), ("japanese", "cjk"))
        } | {
            "per_question": [
                "a Japanese question's own keyword list: x the share of the question its best "
                f"{RELIABILITY_DEPTH} hits hold (of what each could hold)",
                "a deep space still filling: x the share of the question's candidates it holds",
                "a bare name: keyword and definitions x2",
                "a question's English rewrite: once MiniLM is filled, its list takes the static "
                "list's vote (x2, the static list left out)",
            ]
        }

    def _weigh_partial_spaces(self, found: _Evidence) -> dict[str, list[int]]:
        """A deep space still being filled: its lists count as much as it holds of this
        question's own candidates (what the complete spaces' and the keyword lists found, of
        the chunks it embeds). Over only the few chunks filled so far its list would lift
        exactly those (a MiniLM tier 1-4 % filled cost SEMBLE-PUB 0.897 -> 0.885); over every
        candidate it judges them all fairly, however little of the rest of the workspace it
        holds. Returns the candidates each such space lacks."""
        down = self.unavailable()
        partial = [s for s in self.policy.deferred if s not in down and self.fill_fraction(s) < 1.0]
        if not partial:
            return {}
        own: dict[int, None] = {}
        for ranked in found.lists:
            if _space_of(ranked.name) not in partial:
                own.update(dict.fromkeys(ranked.ids[:CANDIDATES]))
        kinds = self.store.chunk_kinds(list(own))
        shares: dict[str, float] = {}
        lacking: dict[str, list[int]] = {}
        for space in partial:
            wanted = [r for r in own if r in kinds and space in self.policy.spaces_of(*kinds[r])]
            held = self.store.rowids_in(space, wanted)
            shares[space] = len(held) / len(wanted) if wanted else self.fill_fraction(space)
            lacking[space] = [r for r in wanted if r not in held]
        found.lists = [
            replace(ranked, weight=ranked.weight * shares[space])
            if (space := _space_of(ranked.name)) in shares
            else ranked
            for ranked in found.lists
        ]
        return lacking

    def _hand_over(self, lacking: dict[str, list[int]], ordered: Sequence[int]) -> None:
        """The candidates partly filled deep spaces lack, in the order this search ranked them
        (the rest after), to ``reached``: the fill embeds them first."""
        if self.reached is None:
            return
        for space, rowids in lacking.items():
            if rowids:
                left = set(rowids)
                ranked = [r for r in ordered if r in left]
                seen = set(ranked)
                self.reached(space, ranked + [r for r in rowids if r not in seen])

    def _leaning(
        self,
        text: str,
        filters: SearchFilters,
        filled: set[str],
        vectors: Mapping[tuple[str, str], np.ndarray | EmbedderUnavailable] | None = None,
    ) -> dict[str, float] | None:
        """The similarity of ``text``'s nearest Japanese passage and of its nearest English one
        (by ``LANGUAGES``) in the space that reads both, among its ``JUDGE_DEPTH`` nearest. None
        when that space holds no vectors or cannot be used, or a language has no passage there
        (``vectors``: see ``_query_vectors``)."""
        space = MULTILINGUAL_SPACE
        if space not in filled:
            return None
        try:
            vector = self._query_vector(vectors, space, text)
        except EmbedderUnavailable:
            return None
        if isinstance(vector, EmbedderUnavailable):
            return None
        found = self.store.knn(space, vector, JUDGE_DEPTH, filters)
        near = self._nearest_by_language(found, LANGUAGES)
        return near if len(near) == len(LANGUAGES) else None

    def _unlikely_language(
        self,
        own: dict[str, float] | None,
        english: Query,
        filters: SearchFilters,
        filled: set[str],
        vectors: Mapping[tuple[str, str], np.ndarray | EmbedderUnavailable] | None = None,
    ) -> str | None:
        """For a Japanese question searched with its English rewrite: the language whose passages
        are the less likely answer ("ja" or "en"), judged by the multilingual model. Each text
        (the question, whose ``own`` leaning is given, and its rewrite) gives its similarity to
        its nearest Japanese passage and to its nearest English one (see ``_leaning``), and the
        language nearer to both in sum wins, by at least ``JUDGE_MARGIN``. Each side is scored
        by a text in its own language and by one in the other, so neither the model's higher
        same-language similarities nor one text's wording decides alone (the question's nearest
        Japanese passage against the rewrite's nearest English one did: right for 38 of
        mixed-ja's 47 Japanese questions and 12 of aptitude-ja's 21, against 46 and 16). In a
        workspace of both, each side's lists put their own language first for any question and
        fusion by rank cannot tell which side holds the answer. None: either text has no
        leaning, or the sums are too close to call (both languages' lists are then kept whole).
        "en" (the answer reads Japanese) drops the rewrite; "ja" splits the question's lists by
        language and keeps half the score of Japanese passages."""
        theirs = self._leaning(english.text, filters, filled, vectors) if own is not None else None
        if own is None or theirs is None:
            return None
        return _verdict({language: own[language] + theirs[language] for language in LANGUAGES})

    def _nearest_by_language(
        self, found: Sequence[tuple[int, float]], languages: Sequence[str]
    ) -> dict[str, float]:
        """The similarity of the nearest passage in each of ``languages`` among ``found`` (rowid,
        distance; nearest first); a language with no passage there is left out. Rows are read
        a few at first, then twice as many each time: the commoner language is nearly always
        among the first, the rarer one may be far down, and reading a hit's row is most of the
        cost."""
        nearest: dict[str, float] = {}
        start, size = 0, _PEEK
        while start < len(found) and len(nearest) < len(languages):
            batch = found[start : start + size]
            hits = self.store.hits_by_rowid([r for r, _ in batch])
            for r, distance in batch:
                if r in hits:
                    language = signals.passage_language(hits[r])
                    if language in languages and language not in nearest:
                        nearest[language] = 1.0 - distance
            start, size = start + size, size * 2
        return nearest

    def _by_language(
        self, name: str, weight: float, ids: list[int], unlikely: str | None, candidates: int
    ) -> list[RankedList]:
        """One candidate list; or, when a language is unlikely (see ``_unlikely_language``), two
        of the same weight: the likely language's passages and the other's. A Japanese
        question's own lists fill their places with Japanese passages, so in a workspace of both
        languages the English chunks that answer it would otherwise not be candidates at all; the
        caller searches ``DEEPER`` times as far for them."""
        if unlikely is None:
            return [RankedList(name, weight, ids)]
        hits = self.store.hits_by_rowid(ids)
        language = {r: signals.passage_language(h) for r, h in hits.items()}
        likely = [r for r in ids if r in language and language[r] != unlikely]
        other = [r for r in ids if r in language and language[r] == unlikely]
        return [
            RankedList(name, weight, likely[:candidates]),
            RankedList(f"{name}:{unlikely}", weight, other[:candidates]),
        ]

    def _vector_lists(
        self,
        q: Query,
        filters: SearchFilters,
        candidates: int,
        filled: set[str],
        found: _Evidence,
        vectors: Mapping[tuple[str, str], np.ndarray | EmbedderUnavailable],
        unlikely: str | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        """The nearest chunks to the question in each embedding space that holds vectors (the
        multilingual space's by language when one is unlikely, see ``_by_language``);
        ``vectors``: the question's, by space and text (see ``_query_vectors``)."""
        for space, weight in self._space_weights(q, filled).items():
            check_cancel(cancel)
            split = unlikely if space in MULTILINGUAL_SPACES else None
            depth = candidates * DEEPER if split else candidates
            vector = vectors[(space, q.text)]
            if isinstance(vector, EmbedderUnavailable):
                found.missing[space] = str(vector)  # searched without it, and said so
                continue
            nearest = [r for r, _ in self.store.knn(space, vector, depth, filters)]
            found.lists += self._by_language(f"vector:{space}", weight, nearest, split, candidates)
            if weight >= 1.0 and nearest and self.fill_fraction(space) >= 1.0:
                found.tops[space] = nearest[0]
            if q.script == "latin" and space in UNIQUE_BOOST:
                # What only this space holds (Japanese prose) has no list of its own for an
                # English question: give those chunks a full-weight list so they can be reached.
                only_here = self.store.rowids_only_in(space, nearest)
                unique = [r for r in nearest if r in only_here]
                found.lists.append(
                    RankedList(f"vector:{space}:unique", UNIQUE_BOOST[space], unique)
                )
            if space == PARTS_SPACE:
                # Japanese prose by its best sentence, weighted as that prose's own list is
                by_sentence = self.store.knn(space, vector, depth, filters, by_sentence=True)
                parts_weight = weight if q.script == "cjk" else UNIQUE_BOOST.get(space, weight)
                ids = [r for r, _ in by_sentence]
                found.lists += self._by_language(
                    f"vector:{space}:sentences", parts_weight, ids, split, candidates
                )

    def _space_weights(self, q: Query, filled: set[str]) -> dict[str, float]:
        """The spaces the question's own text is searched in (those that hold vectors and count
        for its script) and the weight of each one's list."""
        # a question in another language than English reads as Japanese does to the English-only
        # models: its own words go to the multilingual ones
        script = "latin" if q.script == "latin" and q.language == "en" else "cjk"
        weights = {
            space: self.config.vector_weight * SPACE_WEIGHTS[script].get(space, 1.0)
            for space in self.policy.all_spaces
            if space in filled
        }
        return {space: weight for space, weight in weights.items() if weight > 0}

    def _query_vectors(
        self, pairs: Sequence[tuple[str, str]]
    ) -> Mapping[tuple[str, str], np.ndarray | EmbedderUnavailable]:
        """The vectors of (space, text) pairs, the models side by side (each holds its own lock
        and most of their work leaves Python's lock; e5's one-thread query need not wait for the
        others): on debref-ja with e5 filled, a new question's search p50 went from 77-94 ms to
        66-76 ms; with a Japanese question's English rewrite embedded beside it too, from
        93-104 ms to 64-73 ms (BENCHMARKS.md)."""

        def one(pair: tuple[str, str]) -> np.ndarray | EmbedderUnavailable:
            try:
                return self.models.query_vector(*pair)
            except EmbedderUnavailable as exc:
                return exc

        if len(pairs) < 2:
            return {pair: one(pair) for pair in pairs}
        return _Vectors({pair: _QUERY_POOL.submit(one, pair) for pair in pairs})

    def _query_vector(
        self,
        vectors: Mapping[tuple[str, str], np.ndarray | EmbedderUnavailable] | None,
        space: str,
        text: str,
    ) -> np.ndarray | EmbedderUnavailable:
        """A text's vector in ``space`` from this search's batch (see ``_query_vectors``), or
        embedded now when the batch lacks it."""
        vector = vectors.get((space, text)) if vectors is not None else None
        return vector if vector is not None else self.models.query_vector(space, text)

    def _keyword_lists(
        self,
        q: Query,
        filters: SearchFilters,
        candidates: int,
        weight: float,
        found: _Evidence,
        unlikely: str | None = None,
    ) -> None:
        """The question's words (by language when one is unlikely, see ``_by_language``), and
        its quoted phrases as written, in the keyword index."""
        if q.terms:
            # and the question's word pairs as the one name code would write (``JSON element``
            # finds ``JsonElement``, whose parts alone are in half the files)
            expression = match_expression([*q.terms, *q.compounds])
            depth = candidates * DEEPER if unlikely else candidates
            matched = [r for r, _ in self.store.keyword(expression, depth, filters)]
            found.keyword_ids = matched[:candidates]
            found.lists += self._by_language("keyword", weight, matched, unlikely, candidates)
        if q.phrases:
            # quoted text as written (an error message, a UI string): an exact phrase
            expression = match_expression([index_terms(p) for p in q.phrases])
            phrased = [r for r, _ in self.store.keyword(expression, candidates, filters)]
            found.lists.append(RankedList("phrase", weight, phrased))

    def _english_lists(
        self,
        english: Query,
        filters: SearchFilters,
        candidates: int,
        filled: set[str],
        found: _Evidence,
        vectors: Mapping[tuple[str, str], np.ndarray | EmbedderUnavailable],
    ) -> None:
        """A Japanese question's English rewrite, searched as an English question would be
        (``vectors``: see ``_query_vectors``). Once a deep space is filled, the fast space that
        stood in for it (``STAND_INS``) hands it its vote: the static model's list is left out
        and MiniLM's counts for both (public and development sets: click-ja 0.560 -> 0.598,
        mixed click-ja 0.532 -> 0.569, policy-ja 0.907 -> 0.911, aptitude-ja 0.432 -> 0.409;
        BENCHMARKS.md)."""
        cfg = self.config
        spaces = [space for space in self._english_spaces if space in filled]
        down = self.unavailable()
        complete = {s for s in spaces if s not in down and self.fill_fraction(s) >= 1.0}
        handed = {s for s in spaces if STAND_INS.get(s) in complete}
        lists: dict[str, list[int]] = {}
        # the deep spaces first: one that cannot be searched now keeps its stand-in's list
        for space in sorted(spaces, key=lambda s: s in STAND_INS):
            if space in handed and STAND_INS[space] in lists:
                continue
            vector = self._query_vector(vectors, space, english.text)
            if isinstance(vector, EmbedderUnavailable):
                found.missing[space] = str(vector)
                continue
            lists[space] = [r for r, _ in self.store.knn(space, vector, candidates, filters)]
        for space, nearest in lists.items():
            votes = 1 + sum(1 for s in handed if STAND_INS[s] == space and s not in lists)
            weight = cfg.vector_weight * votes
            found.lists.append(RankedList(f"vector:{space}:english", weight, nearest))
            if nearest and self.fill_fraction(space) >= 1.0:
                found.tops[space] = nearest[0]
        if english.terms:
            expression = match_expression([*english.terms, *english.compounds])
            matched = [r for r, _ in self.store.keyword(expression, candidates, filters)]
            found.lists.append(RankedList("keyword:english", cfg.keyword_weight, matched))
            found.keyword_ids = matched + [r for r in found.keyword_ids if r not in matched]

    def _definitions(
        self,
        q: Query,
        filters: SearchFilters,
        candidates: int,
        keyword_weight: float,
        found: _Evidence,
    ) -> tuple[dict[int, str], set[int]]:
        """The symbol table: what defines a queried name (a definition, or a module-level
        binding such as ``g = LocalProxy(...)``), by the name it defines; they join the
        candidates even when no list found them. Also which of them are spelled as asked."""
        defined = dict(self.store.definitions(sorted(q.names), candidates, filters))
        # ``Request`` asked and defined: the ``request`` methods are other things
        exact = {r for r, name in defined.items() if name in q.names}
        if exact:
            defined = {r: name for r, name in defined.items() if r in exact}
        if defined:
            weight = keyword_weight if q.is_symbol else 1.0
            found.lists.append(RankedList("definitions", weight, list(defined)))
        return defined, exact

    def _rank(
        self,
        q: Query,
        lists: list[RankedList],
        defined: dict[int, str],
        exact: set[int],
        depth: int,
        whole: bool = True,
        unlikely: str | None = None,
    ) -> (
        tuple[
            dict[int, float], list[int], dict[int, Hit], dict[int, str], dict[int, dict[str, float]]
        ]
        | None
    ):
        """The lists fused, the first ``depth`` candidates scored by the ranking signals and
        sorted: (scores, order, hits, symbol of each, the signals that moved each). None when
        no list found anything."""
        scores = rrf(lists, RRF_K_CJK if q.script == "cjk" else RRF_K)
        if not scores:
            return None
        ordered = sorted(scores, key=scores.__getitem__, reverse=True)[:depth]
        hits = self.store.hits_by_rowid(ordered)
        superseded = self._superseded_versions()
        # a chunk that defines a queried name is known by that name (a binding's chunk may
        # carry another symbol); an extension of a type is known by it only when nothing
        # defines the type itself (then the symbol table gave it)
        symbols = {
            rowid: "" if rowid in hits and hits[rowid].text_type == "extension" else symbol
            for rowid, symbol in self.store.symbols_by_rowid(ordered).items()
        } | defined
        moved: dict[int, dict[str, float]] = {}
        for rowid in ordered:
            if rowid in hits:
                factors = signals.factors(
                    q,
                    hits[rowid],
                    symbols.get(rowid, ""),
                    other_case=not exact,
                    whole=whole,
                    superseded=superseded,
                )
                if unlikely is not None and signals.passage_language(hits[rowid]) == unlikely:
                    factors["other_language"] = signals.OTHER_LANGUAGE
                scores[rowid] *= math.prod(factors.values())
                moved[rowid] = factors
        before = {r: scores[r] for r in ordered}
        signals.coherence(
            scores, {r: hits[r].path for r in ordered if r in hits and hits[r].kind == "code"}
        )
        for rowid, score in before.items():
            if score and scores[rowid] != score and rowid in moved:
                moved[rowid]["coherence"] = scores[rowid] / score
        ordered.sort(key=scores.__getitem__, reverse=True)
        return scores, ordered, hits, symbols, moved

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

    def _names_nothing_here(self, text: str) -> bool:
        """Whether ``text`` names things in Latin letters and the workspace mentions none."""
        names = latin_names(text)
        return bool(names) and not self.store.terms_present([_phrase(n) for n in names])

    def _coverage(
        self, q: Query, rewritten: bool, hits: Sequence[Hit], filled: set[str]
    ) -> float | None:
        """The share of the query's words that occur anywhere in the workspace: of an English
        question (or the English rewrite of a Japanese one) its terms; of a Japanese question
        the names it writes in Latin letters (Flatpak, WSL). Its kanji bigrams are common to
        most Japanese text, and its katakana loanwords have native equivalents that a manual
        may write instead (アップストリーム for 上流, マナー for 作法), so their absence says little.
        None when that says little: no such words, an English question among Japanese passages
        (English words cannot occur in Japanese text; a Japanese passage among the first hits
        may still answer it) or in a workspace without English text."""
        if q.script == "cjk" and not rewritten:
            words = sorted(q.words)
        elif q.language != "en" and not rewritten:
            return None  # a German question's words need not be in English text to be answered
        else:
            words = list(q.terms)
            if any(is_cjk(h.text) for h in hits[:3]) or not self._holds_english_text(filled):
                return None
        if not words:
            return None
        present = self.store.terms_present([_phrase(w) for w in words])
        return present / len(words)

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

    def related(self, chunk_id: str, k: int = 3) -> list[Hit]:
        """What is related to a stored chunk (see :mod:`groundls.search.related`), excluding
        itself and what overlaps it; no model call."""
        rowid, own = self._stored(chunk_id)
        superseded = self._superseded_versions()
        return _apart(related_chunks.related(self.store, own, rowid, k, superseded), own, k)

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


def _explained(
    kept: Sequence[Hit],
    hits: Mapping[int, Hit],
    lists: Sequence[RankedList],
    scores: Mapping[int, float],
    moved: Mapping[int, Mapping[str, float]],
    k: int,
) -> tuple[Explanation, ...]:
    """Why each kept hit ranks where it does: the lists that placed its chunk (rank, weight, and
    their part of its fused score, ``weight / (k + rank)`` each) and the signals that moved it."""
    rowids = {hit.chunk_id: rowid for rowid, hit in hits.items()}
    places = [(ranked, {r: i for i, r in enumerate(ranked.ids, start=1)}) for ranked in lists]
    out = []
    for hit in kept:
        rowid = rowids.get(hit.chunk_id)
        found = [
            (ranked, rank[rowid]) for ranked, rank in places if ranked.weight > 0 and rowid in rank
        ]
        fused = sum(ranked.weight / (k + place) for ranked, place in found)
        out.append(
            Explanation(
                fused=round(fused, 6),
                lists=tuple(
                    ListPlace(
                        ranked.name,
                        place,
                        round(ranked.weight, 4),
                        round(ranked.weight / (k + place) / fused, 3) if fused else 0.0,
                    )
                    for ranked, place in sorted(
                        found, key=lambda pair: -pair[0].weight / (k + pair[1])
                    )
                ),
                signals=_moved_by(hit, moved.get(rowid, {}), scores.get(rowid)),
                score=hit.score,
            )
        )
    return tuple(out)


def _moved_by(
    hit: Hit, factors: Mapping[str, float], ranked: float | None
) -> tuple[tuple[str, float], ...]:
    """The signals that moved a hit, and ``spread``: what showing it after better hits of the
    same place took off its ranked score."""
    out = [(name, round(value, 3)) for name, value in factors.items()]
    if ranked and abs(hit.score - ranked) > 1e-6:
        out.append(("spread", round(hit.score / ranked, 3)))
    return tuple(out)


def _verdict(near: Mapping[str, float]) -> str | None:
    """The language judge's verdict on its two sums (each language's nearest passage to the
    question plus to its rewrite): the language farther by at least ``JUDGE_MARGIN`` is the
    unlikely one; None when they are closer than that."""
    gap = near["en"] - near["ja"]
    if abs(gap) < JUDGE_MARGIN:
        return None
    return "ja" if gap > 0 else "en"


def _plainly_japanese(own: dict[str, float] | None) -> bool:
    """Whether a Japanese question's ``own`` leaning (see ``Searcher._leaning``) is so far toward
    Japanese passages (by ``PLAINLY_JAPANESE``) that the language judge would drop its English
    rewrite whatever the rewrite says: the rewrite (1-9 s of the answer model for a new
    question) is then not written at all. The judge sums both texts' leanings, so only a rewrite
    leaning to English by more than the question leans to Japanese could turn it (on the public
    and development sets every question past 0.05 was judged Japanese with its rewrite)."""
    return own is not None and own["ja"] - own["en"] > PLAINLY_JAPANESE


def _unsplit(list_name: str) -> str:
    """The list a list split by passage language came from (``keyword:ja`` -> ``keyword``)."""
    head, _, last = list_name.rpartition(":")
    return head if head and last in LANGUAGES else list_name


def _space_of(list_name: str) -> str:
    """The space of a vector list (``vector:e5:ja`` -> ``e5``); "" for any other list."""
    kind, _, rest = list_name.partition(":")
    return rest.partition(":")[0] if kind == "vector" else ""


def _phrase(word: str) -> str:
    """An FTS5 phrase matching ``word`` as the index stores it (a katakana word as its run of
    bigrams, in order)."""
    return match_expression([index_terms(word)])


def _overlaps(a: Hit, b: Hit) -> bool:
    return a.path == b.path and a.start_line <= b.end_line and b.start_line <= a.end_line


def _scored(hit: Hit, score: float) -> Hit:
    return replace(hit, score=round(score, 6))


def _apart(scored: list[tuple[Hit, float]], own: Hit, k: int) -> list[Hit]:
    """The first ``k`` of ``scored`` that do not overlap ``own``, with their scores."""
    return [_scored(hit, score) for hit, score in scored if not _overlaps(hit, own)][:k]


def _confidence(
    q: Query,
    top: int | None,
    hits: dict[int, Hit],
    symbols: dict[int, str],
    keyword_ids: list[int],
    vector_tops: dict[str, int],
    words: set[str],
    rarity: dict[str, float],
) -> tuple[str, str]:
    """How sure the search is, from evidence that means the same for every model and corpus:
    the top hit defines the queried name; keyword and vector search agree on it (it is among the
    first keyword hits and is the nearest chunk of a space that reads the query's script); it
    holds most of the query's ``words`` (those it could hold, see :func:`_words_it_can_hold`).

    A word counts 1, or its ``rarity`` where given: the inverse document frequency of a Japanese
    term, a character bigram. Bigrams are fragments of words, and a common word's fragments
    (パッ, ッケ, ケー, ージ) are in most passages: counted alike, a Japanese question's "holds most
    query words" top hits were right less often than its "nearest match only" ones (30 % against
    38 % over the public and development sets; weighed, 40 % against 29 %, its "high" 68 → 74 %).
    An English term is a whole word with the function words left out: weighed too, SEMBLE's
    "nearest match only" grew from 41 to 96 questions whose top hit was right 70 % of the time,
    as often as a "holds most" one."""
    if top is None:
        return "none", ""
    hit = hits[top]
    if symbols.get(top, "").lower() in q.identifiers and symbols.get(top):
        return "high", "defines the queried name"
    agree = top in keyword_ids[:10] and top in vector_tops.values()
    have = set(index_terms(f"{hit.path} {hit.title} {hit.text}").split())
    weight = {t: rarity.get(t, 1.0) for t in words}
    total = sum(weight.values())
    coverage = sum(w for t, w in weight.items() if t in have) / total if total else 0.0
    if agree and coverage >= 0.5:
        return "high", "keyword and meaning agree"
    if agree or coverage >= 0.5:
        return "medium", "keyword and meaning agree" if agree else "holds most query words"
    return "low", "nearest match only"


def _words_it_can_hold(hit: Hit, q: Query, asked: Query) -> set[str]:
    """The query words a hit could hold: a Japanese passage holds the question's own Japanese
    words, not its English rewrite's; and of a Japanese question's character bigrams only those
    of kanji and katakana count (one with a kana in it mostly straddles a particle: の大, 則で)."""
    terms = asked.terms if is_cjk(hit.text) else q.terms
    return {t for t in terms if not has_hiragana(t)}
