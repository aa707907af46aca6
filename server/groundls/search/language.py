"""The language stage of a search: one decision about the question's language and the
workspace's, made before any candidate list is read.

It answers, in this order:

1. which spaces the question's own text is searched in (an English-only model gets no list
   for a question it cannot read);
2. whether the question is also searched as English words that the answer model writes (a
   question in Japanese or another language, in a workspace that holds English text);
3. which passages' language is the unlikely answer, judged by the multilingual model from the
   question and its rewrite together;
4. the share of the question's words that occur in the workspace, and whether it names
   anything here at all.

:meth:`LanguageStage.decide` is the one entry point; the :class:`LanguageDecision` it returns
is what the rest of the search reads and what ``--explain`` prints.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from groundls.chunkers.textrules import head_within, is_cjk
from groundls.config import SearchConfig
from groundls.index.embed.embedders import Embedders, EmbedderUnavailable
from groundls.index.embed.spaces import PARTS_SPACE, SpacePolicy
from groundls.index.storage.store import Store
from groundls.results import QuestionLanguage, SearchFilters, check_cancel
from groundls.search import signals
from groundls.search.fusion import CANDIDATES, DEEPER, RRF_K, RRF_K_CJK
from groundls.search.judge import LANGUAGES, judge, plainly_japanese
from groundls.search.names import absent_names, phrase
from groundls.search.query import Query, analyse
from groundls.search.vectors import QueryVectors, embed_queries, vector_of

#: How much each embedding space's list counts in the fusion, by the script of the question.
#: MiniLM and the static model distilled from it read English only; USE and e5 are
#: multilingual.
SPACE_WEIGHTS = {
    "latin": {"static": 1.0, "minilm": 1.0, "use": 0.3, "e5": 0.5, "served": 1.0},
    "cjk": {"static": 0.0, "minilm": 0.0, "use": 1.0, "e5": 1.0, "served": 1.0},
}
#: Spaces that read English only: an English rewrite of a question is searched there.
LATIN_SPACES = ("static", "minilm")
#: The space that reads Japanese and English alike: it judges which language's passages a
#: rewritten Japanese question is nearer to.
MULTILINGUAL_SPACE = "use"
#: Spaces that read Japanese and English alike: their lists split by passage language when one
#: language is the unlikely answer.
MULTILINGUAL_SPACES = ("use", "e5")
#: Passages the judge looks through for each language's nearest one: a language that is rare
#: in the workspace is seldom among the first candidates.
JUDGE_DEPTH = CANDIDATES * DEEPER
#: Tokens of a question the answer model rewrites: a question, not a pasted file.
REWRITE_TOKENS = 256
#: Passages read at first while looking for the nearest one in each language (then twice as
#: many each time).
_PEEK = 8

#: Writes a question as English search words (None: cannot now). See groundls.answer.stages.rewrite.
Rewrite = Callable[[str, "threading.Event | None"], "str | None"]


@dataclass(frozen=True)
class LanguageDecision:
    """What the language stage decided for one question."""

    #: the question as written
    asked: Query
    #: the spaces its own text is searched in, and each one's list weight
    spaces: Mapping[str, float]
    #: its English rewrite, searched beside it (None: not written, or dropped by the judge)
    english: Query | None = None
    #: what happened to the rewrite, in a few words
    rewrite: str = "not needed"
    #: the passages of this language ("ja" or "en") are the less likely answer
    unlikely: str | None = None
    #: its nearest Japanese and English passages' similarity, and its rewrite's
    leaning: Mapping[str, float] | None = None
    rewrite_leaning: Mapping[str, float] | None = None
    #: the share of its words that occur in the workspace (None: that says little)
    coverage: float | None = None
    #: the share holds only when the first hits are not Japanese passages
    coverage_needs_english_hits: bool = False
    #: it names things in Latin letters and the workspace mentions none of them
    names_nothing_here: bool = False
    #: the names it writes that the workspace never mentions (all of them: ``names_nothing_here``)
    absent_names: tuple[str, ...] = ()
    #: a question not in Japanese, translated into Japanese and searched beside it (None: not
    #: written, or dropped by the judge)
    japanese: Query | None = None
    #: what happened to the translation, in a few words
    translation: str = "not needed"
    #: the translation as written, also where the judge dropped its lists: the question is
    #: asked again in it, as a Japanese question (see ``Searcher.search``)
    written_japanese: Query | None = None

    @property
    def query(self) -> Query:
        """The question as the rest of the search reads it: its English rewrite's words, with
        its own text and script kept."""
        if self.english is None:
            return self.asked
        return replace(self.english, text=self.asked.text, script=self.asked.script)

    @property
    def whole(self) -> bool:
        """Whether the question is a whole question in words (English, or rewritten so)."""
        return self.asked.script == "latin" or self.english is not None

    @property
    def rrf_k(self) -> int:
        return RRF_K_CJK if self.asked.script == "cjk" else RRF_K

    def coverage_among(self, first_texts: Sequence[str]) -> float | None:
        """The coverage, given the texts of the first hits: English words cannot occur in
        Japanese text, so among Japanese passages the share says nothing."""
        if self.coverage_needs_english_hits and any(is_cjk(t) for t in first_texts[:3]):
            return None
        return self.coverage

    def note(self) -> QuestionLanguage:
        """The decision as the faces show it (``--explain``)."""
        return QuestionLanguage(
            script=self.asked.script,
            language=self.asked.language,
            spaces=dict(self.spaces),
            rewrite=self.rewrite,
            searched_as=self.english.text if self.english is not None else "",
            unlikely=self.unlikely or "",
            leaning=dict(self.leaning or {}),
            rewrite_leaning=dict(self.rewrite_leaning or {}),
            names_nothing_here=self.names_nothing_here,
            translation=self.translation,
            translated=self.japanese.text if self.japanese is not None else "",
        )


class LanguageStage:
    """Decides, for each question, what the models can read of it and of the workspace."""

    def __init__(
        self,
        store: Store,
        policy: SpacePolicy,
        models: Embedders,
        config: SearchConfig,
        rewrite: Rewrite | None = None,
        to_japanese: Rewrite | None = None,
    ) -> None:
        self.store = store
        self.policy = policy
        self.models = models
        self.config = config
        self.rewrite = rewrite
        self.to_japanese = to_japanese

    @property
    def english_spaces(self) -> list[str]:
        return [s for s in LATIN_SPACES if s in self.policy.all_spaces]

    def decide(
        self,
        asked: Query,
        filters: SearchFilters,
        filled: set[str],
        cancel: threading.Event | None = None,
        english_words: str | None = None,
    ) -> tuple[LanguageDecision, QueryVectors]:
        """The decision for ``asked``, and the query vectors every later list needs (embedded
        side by side while the decision is made). ``english_words``: its English words when
        they are known (a translation's, the question it was translated from), not rewritten."""
        spaces = self.space_weights(asked, filled)
        rewrites = self._rewrites(asked, filled)
        own = (
            self._leaning(asked.text, filters, filled)
            if rewrites and asked.script == "cjk"
            else None
        )
        plainly = plainly_japanese(own)
        english = self._english(asked, cancel, english_words) if rewrites and not plainly else None
        japanese, translation = self._japanese(asked, filled, cancel)
        written_japanese = japanese
        pairs = [(space, asked.text) for space in spaces]
        if english is not None:
            wanted = (MULTILINGUAL_SPACE, *self.english_spaces)
            pairs += [(space, english.text) for space in wanted if space in filled]
        if japanese is not None:
            pairs += [(space, japanese.text) for space in MULTILINGUAL_SPACES if space in filled]
        check_cancel(cancel)
        vectors = embed_queries(self.models, pairs)
        if japanese is not None:
            # dropped when the question and its translation are both nearer English passages
            mine = own if own is not None else self._leaning(asked.text, filters, filled, vectors)
            if judge(mine, self._leaning(japanese.text, filters, filled, vectors)) == "ja":
                japanese, translation = None, "dropped: the answer reads English"
        theirs = (
            self._leaning(english.text, filters, filled, vectors)
            if english is not None and own is not None
            else None
        )
        unlikely = judge(own, theirs)
        rewrite = _rewrite_said(rewrites, plainly, english, unlikely)
        if unlikely == "en":
            english = unlikely = None  # the answer reads Japanese: its own words alone
        named, absent = absent_names(self.store, asked)
        decision = LanguageDecision(
            asked, spaces, english, rewrite, unlikely, own, theirs,
            *self._coverage(asked, english, filled),
            names_nothing_here=bool(named) and len(absent) == len(named), absent_names=absent,
            japanese=japanese, translation=translation, written_japanese=written_japanese,
        )  # fmt: skip
        return decision, vectors

    def space_weights(self, q: Query, filled: set[str]) -> dict[str, float]:
        """The spaces a question's own text is searched in (those that hold vectors and read
        its script) and the weight of each one's list. A question in another language than
        English reads to the English-only models as Japanese does."""
        script = "latin" if q.script == "latin" and q.language == "en" else "cjk"
        weights = {
            space: self.config.vector_weight * SPACE_WEIGHTS[script].get(space, 1.0)
            for space in self.policy.all_spaces
            if space in filled
        }
        return {space: weight for space, weight in weights.items() if weight > 0}

    def holds_english_text(self, filled: set[str]) -> bool:
        """Whether any chunk is embedded in a space that reads English."""
        return any(s in filled for s in self.english_spaces)

    def _rewrites(self, q: Query, filled: set[str]) -> bool:
        """Whether a question may be searched as English words too: one not in English, when
        the index holds English text and a rewrite can be written."""
        return (
            (q.script == "cjk" or q.language != "en")
            and self.config.rewrite_questions
            and self.rewrite is not None
            and self.holds_english_text(filled)
        )

    def _japanese(
        self, q: Query, filled: set[str], cancel: threading.Event | None = None
    ) -> tuple[Query | None, str]:
        """A question not in Japanese, translated into Japanese, when the workspace holds
        Japanese prose in a multilingual space, and what happened to the translation (None:
        not needed, or the model could not write it)."""
        if (
            q.language == "ja"
            or not self.config.rewrite_questions
            or self.to_japanese is None
            or not any(space in filled for space in MULTILINGUAL_SPACES)
            or not self._holds_japanese_prose()
        ):
            return None, "not needed"
        text = self.to_japanese(head_within(q.text, REWRITE_TOKENS), cancel)
        check_cancel(cancel)
        if not text:
            return None, "not written"
        return analyse(text), "searched beside the question"

    def english_words(self, q: Query, cancel: threading.Event | None = None) -> str | None:
        """A question's English words: an English question's own, another's rewrite (the
        model's reply is kept, so asking again costs nothing)."""
        if q.language == "en" and q.script == "latin":
            return q.text
        english = self._english(q, cancel)
        return english.text if english is not None else None

    def _holds_japanese_prose(self) -> bool:
        """Whether the index holds Japanese prose: it alone gets sentence vectors (see
        ``spaces.PARTS_SPACE``), so one row of that table tells."""
        return self.store.has_chunks_in(f"{PARTS_SPACE}_parts")

    def _english(
        self, q: Query, cancel: threading.Event | None = None, known: str | None = None
    ) -> Query | None:
        """A question as English words (None: the model could not write them)."""
        if known is not None:
            return analyse(known)
        if self.rewrite is None:
            return None
        text = self.rewrite(head_within(q.text, REWRITE_TOKENS), cancel)
        check_cancel(cancel)
        return analyse(text) if text else None

    def _leaning(
        self,
        text: str,
        filters: SearchFilters,
        filled: set[str],
        vectors: QueryVectors | None = None,
    ) -> dict[str, float] | None:
        """The similarity of ``text``'s nearest Japanese passage and of its nearest English one
        in the multilingual space, among its ``JUDGE_DEPTH`` nearest. None when that space
        holds no vectors or cannot be used, or a language has no passage there."""
        space = MULTILINGUAL_SPACE
        if space not in filled:
            return None
        try:
            vector = vector_of(self.models, vectors, space, text)
        except EmbedderUnavailable:
            return None
        if isinstance(vector, EmbedderUnavailable):
            return None
        found = self.store.knn(space, vector, JUDGE_DEPTH, filters)
        near = self._nearest_by_language(found)
        return near if len(near) == len(LANGUAGES) else None

    def _nearest_by_language(self, found: Sequence[tuple[int, float]]) -> dict[str, float]:
        """The similarity of the nearest passage in each language among ``found`` (rowid,
        distance; nearest first). Rows are read a few at first, then twice as many each time:
        the commoner language is nearly always among the first, the rarer may be far down."""
        nearest: dict[str, float] = {}
        start, size = 0, _PEEK
        while start < len(found) and len(nearest) < len(LANGUAGES):
            batch = found[start : start + size]
            hits = self.store.hits_by_rowid([r for r, _ in batch])
            for r, distance in batch:
                if r in hits:
                    language = signals.passage_language(hits[r])
                    if language in LANGUAGES and language not in nearest:
                        nearest[language] = 1.0 - distance
            start, size = start + size, size * 2
        return nearest

    def _coverage(
        self, asked: Query, english: Query | None, filled: set[str]
    ) -> tuple[float | None, bool]:
        """The share of the question's words that occur anywhere in the workspace, and whether
        it holds only when the first hits are English text. Of an English question (or the
        English rewrite of another) its terms count; of a Japanese question the names it
        writes in Latin letters: its kanji bigrams are common to most Japanese text, and its
        katakana loanwords have native equivalents a manual may write instead. None when that
        says little: no such words, a question in another language not rewritten, or a
        workspace without English text. (A Japanese translation is not counted so: a small
        model leaves plain English words in Latin letters that the workspace need not hold.)"""
        if asked.script == "cjk" and english is None:
            words = sorted(asked.words)
            needs_english_hits = False
        elif asked.language != "en" and english is None:
            return None, False  # its words need not be in English text to be answered
        else:
            words = list((english or asked).terms)
            needs_english_hits = True
            if not self.holds_english_text(filled):
                return None, False
        if not words:
            return None, False
        present = self.store.terms_present([phrase(w) for w in words])
        return present / len(words), needs_english_hits


def _rewrite_said(
    rewrites: bool, plainly: bool, english: Query | None, unlikely: str | None
) -> str:
    """What happened to a question's English rewrite, for ``--explain``."""
    if not rewrites:
        return "not needed"
    if plainly:
        return "not written: plainly nearer Japanese passages"
    if english is None:
        return "not written: the model could not write one now"
    if unlikely == "en":
        return "dropped: the answer reads Japanese"
    return "searched beside the question"
