"""Hybrid search over one index: vector and keyword candidate lists, fused, ranked, located."""

from __future__ import annotations

from dataclasses import replace

from groundls.chunkers.textrules import is_cjk
from groundls.config import SearchConfig
from groundls.index.embedders import Embedders
from groundls.index.spaces import PARTS_SPACE, SpacePolicy
from groundls.index.store import Store
from groundls.index.terms import looks_like_identifier, match_expression, query_terms
from groundls.results import Hit, SearchFilters
from groundls.search.fusion import (
    RankedList,
    cap_per_file,
    merge_adjacent,
    query_identifiers,
    rrf,
)

#: Candidates taken from each list before fusion.
CANDIDATES = 50
#: Doc hits widen to their whole section when it spans at most this many lines.
SECTION_LINES = 60

#: How much each embedding space's list counts in the fusion, by the script of the query.
#: MiniLM understands English only; USE is multilingual (measured on ../shared/eval).
SPACE_WEIGHTS = {
    "latin": {"minilm": 1.0, "use": 0.3},
    "cjk": {"minilm": 0.5, "use": 1.0},
}
#: Japanese questions lean more on the bigram keyword side: on the Japanese eval set keyword-only
#: ranking beat USE-only (nDCG@10 0.72 vs 0.66), and 1.5x gave the best fusion.
KEYWORD_BOOST = {"latin": 1.0, "cjk": 1.5}
#: Extra weight, for Latin-script queries, of the chunks only this space holds.
UNIQUE_BOOST = {"use": 1.0}


class Searcher:
    """Answers searches and "similar" lookups from one store."""

    def __init__(
        self, store: Store, policy: SpacePolicy, models: Embedders, config: SearchConfig
    ) -> None:
        self.store = store
        self.policy = policy
        self.models = models
        self.config = config

    def search(self, query: str, filters: SearchFilters) -> list[Hit]:
        """Hybrid search; ``[]`` means nothing in the workspace is relevant enough."""
        query = query.strip()
        if not query:
            return []
        cfg = self.config
        k = filters.k or cfg.k
        candidates = CANDIDATES * (4 if filters.paths else 1)
        lists: list[RankedList] = []
        best_similarity = 0.0
        script = "cjk" if is_cjk(query) else "latin"
        for space in self.policy.all_spaces:
            weight = cfg.vector_weight * SPACE_WEIGHTS[script].get(space, 1.0)
            if weight <= 0:
                continue
            vector = self.models.query_vector(space, query)
            found = self.store.knn(space, vector, candidates, filters)
            if found:
                best_similarity = max(best_similarity, 1.0 - found[0][1])
            lists.append(RankedList(f"vector:{space}", weight, [r for r, _ in found]))
            if script == "latin" and space in UNIQUE_BOOST:
                # What only this space holds (Japanese prose) has no MiniLM list to rank it:
                # give those chunks a full-weight list so English questions reach Japanese docs.
                only_here = self.store.rowids_only_in(space, [r for r, _ in found])
                unique = [r for r, _ in found if r in only_here]
                lists.append(RankedList(f"vector:{space}:unique", UNIQUE_BOOST[space], unique))
            if space == PARTS_SPACE:
                # Japanese prose by its best sentence, weighted as that prose's own list is
                by_sentence = self.store.knn(space, vector, candidates, filters, by_sentence=True)
                parts_weight = weight if script == "cjk" else UNIQUE_BOOST.get(space, weight)
                ids = [r for r, _ in by_sentence]
                lists.append(RankedList(f"vector:{space}:sentences", parts_weight, ids))
        terms = query_terms(query)
        identifier_query = looks_like_identifier(query)
        keyword_weight = cfg.keyword_weight * KEYWORD_BOOST[script]
        if identifier_query:
            keyword_weight *= 2.0
        keyword_ids: list[int] = []
        if terms:
            found_kw = self.store.keyword(match_expression(terms), candidates, filters)
            keyword_ids = [r for r, _ in found_kw]
            lists.append(RankedList("keyword", keyword_weight, keyword_ids))
        scores = rrf(lists)
        if not scores:
            return []
        exact_identifier = identifier_query and bool(keyword_ids)
        if best_similarity < cfg.min_similarity and not exact_identifier:
            return []  # nothing is close enough: say so rather than return noise
        identifiers = query_identifiers(query)
        if identifiers:
            symbols = self.store.symbols_by_rowid(list(scores))
            for rowid, symbol in symbols.items():
                if symbol and symbol.lower() in identifiers:
                    scores[rowid] *= 1.5  # a definition beats a mention
        ordered = sorted(scores, key=scores.__getitem__, reverse=True)
        hits = self.store.hits_by_rowid(ordered[: max(candidates, k * 8)])
        ranked = [r for r in ordered if r in hits and filters.path_ok(hits[r].path)]
        merged = merge_adjacent([_scored(hits[r], scores[r]) for r in ranked])
        if SECTION_LINES:
            merged = merge_adjacent([self._expand_section(h) for h in merged])
        by_id = {h.chunk_id: h for h in merged}
        kept = cap_per_file([(h.chunk_id, h.path) for h in merged], cfg.max_per_file)[:k]
        return [by_id[c] for c in kept]

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
        rowid = self.store.chunk_rowid(chunk_id)
        if rowid is None:
            raise KeyError(chunk_id)
        own = self.store.hits_by_rowid([rowid])[rowid]
        lists = [
            RankedList(
                space, 1.0, [r for r, _ in self.store.knn(space, vec, k * 3 + 5) if r != rowid]
            )
            for space, vec in self.store.chunk_vectors(rowid).items()
        ]
        scores = rrf(lists)
        ordered = sorted(scores, key=scores.__getitem__, reverse=True)
        hits = self.store.hits_by_rowid(ordered)
        out = [
            _scored(hits[r], scores[r])
            for r in ordered
            if r in hits and not _overlaps(hits[r], own)
        ]
        return out[:k]

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


def _overlaps(a: Hit, b: Hit) -> bool:
    return a.path == b.path and a.start_line <= b.end_line and b.start_line <= a.end_line


def _scored(hit: Hit, score: float) -> Hit:
    return replace(hit, score=round(score, 6))
