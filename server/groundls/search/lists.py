"""The candidate lists of one search: each embedding space's nearest chunks, the keyword index's
matches, an English rewrite's lists and the symbol table's definitions, each a named
:class:`RankedList` with its weight for this question."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from groundls.chunkers.textrules import has_hiragana, is_cjk
from groundls.config import SearchConfig
from groundls.index.embed.embedders import Embedders, EmbedderUnavailable
from groundls.index.embed.spaces import PARTS_SPACE, STAND_INS, SpacePolicy, chunk_language
from groundls.index.storage.store import Store
from groundls.index.storage.terms import index_terms, match_expression
from groundls.results import SearchFilters, check_cancel
from groundls.search import signals
from groundls.search.fusion import CANDIDATES, DEEPER, RankedList
from groundls.search.language import (
    LANGUAGES,
    MULTILINGUAL_SPACES,
    SPACE_WEIGHTS,
    LanguageDecision,
)
from groundls.search.query import Query
from groundls.search.vectors import QueryVectors, vector_of

#: Extra weight, for an English question, of the chunks only this space holds (Japanese prose
#: has no list of its own for an English question otherwise).
UNIQUE_BOOST = {"use": 1.0}
#: A bare name (``JsonElement``): the keyword and definition lists count this much more.
SYMBOL_BOOST = 2.0
#: The keyword hits whose share of a Japanese question is looked at (see ``_keyword_share``).
RELIABILITY_DEPTH = 3


@dataclass
class Evidence:
    """What one search's candidate lists found."""

    lists: list[RankedList] = field(default_factory=list)
    #: the nearest chunk of each complete space that reads the question's script
    tops: dict[str, int] = field(default_factory=dict)
    #: the keyword hits, an English rewrite's first
    keyword_ids: list[int] = field(default_factory=list)
    #: spaces that could not be searched, and why (a model server that is down)
    missing: dict[str, str] = field(default_factory=dict)
    #: the chunks that define a queried name, by that name; and those spelled as asked
    defined: dict[int, str] = field(default_factory=dict)
    exact: set[int] = field(default_factory=set)
    #: the candidates each partly filled deep space lacks
    lacking: dict[str, list[int]] = field(default_factory=dict)


class CandidateLists:
    """Reads the candidate lists of a question from one store."""

    def __init__(
        self,
        store: Store,
        policy: SpacePolicy,
        config: SearchConfig,
        english_spaces: list[str],
        fill_fraction: Callable[[str], float],
        unavailable: Callable[[], dict[str, str]],
        models: Embedders,
    ) -> None:
        self.store = store
        self.policy = policy
        self.config = config
        self.english_spaces = english_spaces
        self.fill_fraction = fill_fraction
        self.unavailable = unavailable
        self.models = models

    def gather(
        self,
        decision: LanguageDecision,
        vectors: QueryVectors,
        filters: SearchFilters,
        candidates: int,
        filled: set[str],
        cancel: threading.Event | None = None,
    ) -> Evidence:
        """Every list of the question, weighed for it. The keyword lists and the rewrite's are
        made first, while the slowest query vector is still being embedded; they rank after
        the question's own vector lists."""
        asked, english, unlikely = decision.asked, decision.english, decision.unlikely
        words = Evidence()
        check_cancel(cancel)
        weight = self.config.keyword_weight * (SYMBOL_BOOST if asked.is_symbol else 1.0)
        self.keyword_lists(asked, filters, candidates, weight, words, unlikely)
        if english is not None:
            check_cancel(cancel)
            self.english_lists(english, filters, candidates, filled, words, vectors)
        if decision.japanese is not None:
            check_cancel(cancel)
            self.japanese_lists(decision.japanese, filters, candidates, filled, words, vectors)
        found = Evidence()
        self.vector_lists(decision, filters, candidates, found, vectors, cancel)
        found.lists += words.lists
        found.tops.update(words.tops)
        found.keyword_ids = words.keyword_ids
        found.missing.update(words.missing)
        check_cancel(cancel)
        found.lacking = self.weigh_partial_spaces(found)
        self.definitions(decision.query, filters, candidates, weight, found)
        if asked.script == "cjk":
            found.lists = [self._keyword_share(asked, ranked) for ranked in found.lists]
        return found

    def vector_lists(
        self,
        decision: LanguageDecision,
        filters: SearchFilters,
        candidates: int,
        found: Evidence,
        vectors: QueryVectors,
        cancel: threading.Event | None = None,
    ) -> None:
        """The nearest chunks to the question in each space it is searched in (a multilingual
        space's by passage language when one language is unlikely, see ``by_language``)."""
        q, unlikely = decision.asked, decision.unlikely
        for space, weight in decision.spaces.items():
            check_cancel(cancel)
            split = unlikely if space in MULTILINGUAL_SPACES else None
            depth = candidates * DEEPER if split else candidates
            vector = vectors[(space, q.text)]
            if isinstance(vector, EmbedderUnavailable):
                found.missing[space] = str(vector)  # searched without it, and said so
                continue
            nearest = self.readable(
                space, q.language, self.store.knn(space, vector, depth, filters)
            )
            found.lists += self.by_language(f"vector:{space}", weight, nearest, split, candidates)
            if weight >= 1.0 and nearest and self.fill_fraction(space) >= 1.0:
                found.tops[space] = nearest[0]
            if q.script == "latin" and space in UNIQUE_BOOST:
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
                found.lists += self.by_language(
                    f"vector:{space}:sentences", parts_weight, ids, split, candidates
                )

    def keyword_lists(
        self,
        q: Query,
        filters: SearchFilters,
        candidates: int,
        weight: float,
        found: Evidence,
        unlikely: str | None = None,
    ) -> None:
        """The question's words (by passage language when one is unlikely), and its quoted
        phrases as written, in the keyword index."""
        if q.terms:
            # and its word pairs as the one name code would write (``JSON element`` finds
            # ``JsonElement``, whose parts alone are in half the files)
            expression = match_expression([*q.terms, *q.compounds])
            depth = candidates * DEEPER if unlikely else candidates
            matched = [r for r, _ in self.store.keyword(expression, depth, filters)]
            found.keyword_ids = matched[:candidates]
            found.lists += self.by_language("keyword", weight, matched, unlikely, candidates)
        if q.phrases:
            # quoted text as written (an error message, a UI string): an exact phrase
            expression = match_expression([index_terms(p) for p in q.phrases])
            phrased = [r for r, _ in self.store.keyword(expression, candidates, filters)]
            found.lists.append(RankedList("phrase", weight, phrased))

    def english_lists(
        self,
        english: Query,
        filters: SearchFilters,
        candidates: int,
        filled: set[str],
        found: Evidence,
        vectors: QueryVectors,
    ) -> None:
        """A question's English rewrite, searched as an English question would be. Once a deep
        space is filled, the fast space that stood in for it (``STAND_INS``) hands it its
        vote: the stand-in's list is left out and the deep one counts for both."""
        cfg = self.config
        spaces = [space for space in self.english_spaces if space in filled]
        down = self.unavailable()
        complete = {s for s in spaces if s not in down and self.fill_fraction(s) >= 1.0}
        handed = {s for s in spaces if STAND_INS.get(s) in complete}
        lists: dict[str, list[int]] = {}
        # the deep spaces first: one that cannot be searched now keeps its stand-in's list
        for space in sorted(spaces, key=lambda s: s in STAND_INS):
            if space in handed and STAND_INS[space] in lists:
                continue
            vector = vector_of(self.models, vectors, space, english.text)
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
            matched = self._rewritten_keywords(english, filters, candidates, found)
            found.lists.append(RankedList("keyword:english", cfg.keyword_weight, matched))

    def japanese_lists(
        self,
        japanese: Query,
        filters: SearchFilters,
        candidates: int,
        filled: set[str],
        found: Evidence,
        vectors: QueryVectors,
    ) -> None:
        """A question's Japanese translation, searched as a Japanese question would be: in the
        multilingual spaces (by passage and by sentence) and by its Japanese words, weighed by
        the share of them its best hits hold."""
        cfg = self.config
        for space in [s for s in MULTILINGUAL_SPACES if s in filled]:
            vector = vector_of(self.models, vectors, space, japanese.text)
            if isinstance(vector, EmbedderUnavailable):
                found.missing[space] = str(vector)
                continue
            weight = cfg.vector_weight * SPACE_WEIGHTS["cjk"].get(space, 1.0)
            nearest = [r for r, _ in self.store.knn(space, vector, candidates, filters)]
            found.lists.append(RankedList(f"vector:{space}:japanese", weight, nearest))
            if nearest and self.fill_fraction(space) >= 1.0:
                found.tops[f"{space}:japanese"] = nearest[0]
            if space == PARTS_SPACE:
                by_sentence = self.store.knn(space, vector, candidates, filters, by_sentence=True)
                ids = [r for r, _ in by_sentence]
                found.lists.append(RankedList(f"vector:{space}:sentences:japanese", weight, ids))
        if japanese.terms:
            matched = self._rewritten_keywords(japanese, filters, candidates, found)
            ranked = RankedList("keyword", cfg.keyword_weight, matched)
            shared = self._keyword_share(japanese, ranked)
            found.lists.append(replace(shared, name="keyword:japanese"))

    def _rewritten_keywords(
        self, q: Query, filters: SearchFilters, candidates: int, found: Evidence
    ) -> list[int]:
        """A rewrite's or translation's keyword matches, first among ``found.keyword_ids``."""
        expression = match_expression([*q.terms, *q.compounds])
        matched = [r for r, _ in self.store.keyword(expression, candidates, filters)]
        found.keyword_ids = matched + [r for r in found.keyword_ids if r not in matched]
        return matched

    def definitions(
        self,
        q: Query,
        filters: SearchFilters,
        candidates: int,
        keyword_weight: float,
        found: Evidence,
    ) -> None:
        """The symbol table: what defines a queried name (a definition, or a module-level
        binding such as ``g = LocalProxy(...)``), by the name it defines; they join the
        candidates even when no list found them. ``Request`` asked and defined: the
        ``request`` methods are other things."""
        defined = dict(self.store.definitions(sorted(q.names), candidates, filters))
        exact = {r for r, name in defined.items() if name in q.names}
        if exact:
            defined = {r: name for r, name in defined.items() if r in exact}
        if defined:
            weight = keyword_weight if q.is_symbol else 1.0
            found.lists.append(RankedList("definitions", weight, list(defined)))
        found.defined, found.exact = defined, exact

    def weigh_partial_spaces(self, found: Evidence) -> dict[str, list[int]]:
        """A deep space still being filled: its lists count as much as it holds of this
        question's own candidates (what the complete spaces' and the keyword lists found, of
        the chunks it embeds), so the few chunks filled so far are not lifted for being the
        only ones it holds. Returns the candidates each such space lacks."""
        down = self.unavailable()
        partial = [s for s in self.policy.deferred if s not in down and self.fill_fraction(s) < 1.0]
        if not partial:
            return {}
        own: dict[int, None] = {}
        for ranked in found.lists:
            if space_of(ranked.name) not in partial:
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
            if (space := space_of(ranked.name)) in shares
            else ranked
            for ranked in found.lists
        ]
        return lacking

    def readable(self, space: str, language: str, found: Sequence[tuple[int, float]]) -> list[int]:
        """A space's nearest chunks that its model reads along with a question in
        ``language``: a list votes only on text its model can read."""
        ids = [r for r, _ in found]
        if not self.policy.holds_unread(space):
            return ids
        kinds = self.store.chunk_kinds(ids)
        return [
            r
            for r in ids
            if r in kinds and self.policy.reads_both(space, language, chunk_language(*kinds[r]))
        ]

    def by_language(
        self, name: str, weight: float, ids: list[int], unlikely: str | None, candidates: int
    ) -> list[RankedList]:
        """One candidate list; or, when a language is unlikely, two of the same weight: the
        likely language's passages and the other's. A question's own lists fill their places
        with passages in its own language, so in a workspace of both languages the passages of
        the other that answer it would otherwise not be candidates at all; the caller searches
        ``DEEPER`` times as far for them."""
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

    def _keyword_share(self, asked: Query, ranked: RankedList) -> RankedList:
        """A Japanese question's own keyword list weighed by how much of the question it
        matched: the largest share, by rarity, of the question's words (its character bigrams
        and Latin words) that one of the list's first ``RELIABILITY_DEPTH`` hits holds, of the
        words that hit could hold (an English passage holds no Japanese word). A question in
        the manual's own words is matched whole; a paraphrase matches a few common bigrams in
        every section, and its keyword list would outvote the meaning lists that found the
        section. Lists of whole words are left as they are."""
        if unsplit(ranked.name) != "keyword" or not ranked.ids:
            return ranked
        words = {t for t in asked.terms if not has_hiragana(t)}
        rarity = self.store.term_rarity([t for t in words if is_cjk(t)])
        weight = {t: rarity.get(t, 1.0) for t in words}
        shares = []
        for hit in self.store.hits_by_rowid(list(ranked.ids[:RELIABILITY_DEPTH])).values():
            could = (
                weight if is_cjk(hit.text) else {t: w for t, w in weight.items() if not is_cjk(t)}
            )
            if sum(could.values()):
                held = set(index_terms(f"{hit.path} {hit.title} {hit.text}").split())
                shares.append(sum(w for t, w in could.items() if t in held) / sum(could.values()))
        if not shares:
            return ranked
        return RankedList(ranked.name, ranked.weight * max(shares), ranked.ids)


def unsplit(list_name: str) -> str:
    """The list a list split by passage language came from (``keyword:ja`` -> ``keyword``)."""
    head, _, last = list_name.rpartition(":")
    return head if head and last in LANGUAGES else list_name


def space_of(list_name: str) -> str:
    """The space of a vector list (``vector:e5:ja`` -> ``e5``); "" for any other list."""
    kind, _, rest = list_name.partition(":")
    return rest.partition(":")[0] if kind == "vector" else ""


def weights_in_force(
    filled: list[str], config: SearchConfig, space_weights: Mapping[str, Mapping[str, float]]
) -> dict[str, object]:
    """The list weights in force, for status: each filled space's for an English and a
    Japanese question, the keyword lists', and what moves them per question."""
    return {
        language: {
            f"vector:{space}": config.vector_weight * space_weights[script].get(space, 1.0)
            for space in filled
        }
        | {"keyword": config.keyword_weight}
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
