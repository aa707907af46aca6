"""Grounded answers: retrieve, number excerpts, generate locally (or extract), check citations."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from groundls.answer.model import model_files, shared
from groundls.answer.model.slot import ModelSlot
from groundls.answer.stages import choose, followup, vote
from groundls.answer.stages.backing import backed
from groundls.answer.stages.check import check, citation_of
from groundls.answer.stages.extract import NOTICES, Fallback, extractive
from groundls.answer.stages.focus import TokenCounter, question_terms
from groundls.answer.stages.prompt import (
    Excerpt,
    Language,
    Prompt,
    detect_language,
    fit_excerpts,
)
from groundls.answer.stages.quote_first import quote_first
from groundls.answer.stages.quotes import QuotePrompt
from groundls.answer.stages.record import earlier_turn, history_record, record
from groundls.answer.stages.retrieve import (
    FIRST_CONTEXT_TOKENS,
    MIN_CONTEXT_TOKENS,
    Asked,
    Retrieved,
    carries_answer,
    context_budget,
)
from groundls.answer.stages.settle import (
    cannot_stand,
    key_lines,
    not_found,
    settled,
    timed,
    unsure,
)
from groundls.answer.stages.verdict import Evidence, Verdict, decide
from groundls.answer.stages.write import Shown, write
from groundls.answer.text import wording
from groundls.answer.text.wording import say
from groundls.answer.timing import ms_since
from groundls.chunkers.textrules import estimate_llm_tokens
from groundls.config import FULL_TOKENS_FACTOR, AnswerConfig
from groundls.cpu import METER
from groundls.results import (
    Answer,
    Citation,
    SearchFilters,
    SearchResult,
)
from groundls.search.offtopic import Standing

log = logging.getLogger("groundls.answer")


__all__ = ["FIRST_CONTEXT_TOKENS", "MIN_CONTEXT_TOKENS", "AnswerService", "Retriever"]


class Retriever(Protocol):
    """What answers need from a workspace: its search and a place to keep the history."""

    def search(self, query: str, filters: SearchFilters | None = None) -> SearchResult: ...

    def standing(self, question: str, language: str) -> Standing | None: ...

    def add_history(self, record: dict[str, Any]) -> None: ...


class AnswerService:
    """Answers questions about one workspace; one instance per workspace, safe to call from threads.

    ``slot``: the workspace's model, shared with its search's translations (see
    :class:`~groundls.answer.model.slot.ModelSlot`); ``llm`` one given directly (tests, benchmarks).
    """

    def __init__(
        self,
        workspace: Retriever,
        config: AnswerConfig | None = None,
        *,
        llm: Any = None,
        style: str | None = None,
        history: bool = True,
        slot: ModelSlot | None = None,
    ) -> None:
        self.workspace = workspace
        self.config = config or AnswerConfig()
        self.style = style or self.config.style
        self.history_enabled = history
        self.slot = slot if slot is not None else ModelSlot(self.config, llm)
        size = getattr(getattr(workspace, "store", None), "chunk_count", lambda: 0)
        self.votes = vote.PoolVotes(str(getattr(workspace, "root", "")), size)
        self.calibrates = False  # the pool's votes taken in the background (LSP, MCP)

    @property
    def model_name(self) -> str:
        model = self.slot.get()
        return getattr(model, "name", "") if model is not None else ""

    def status(self) -> dict[str, Any]:
        """What answers will use: model name and source, loaded or not, and any problem."""
        return self.slot.status()

    # the pipeline: retrieve -> (verdict) -> choose -> write -> check -> (verdict) -> record

    def ask(
        self,
        question: str,
        filters: SearchFilters | None = None,
        *,
        on_sources: Callable[[list[Citation]], None] | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        thread: int | None = None,
        detail: str | None = None,
    ) -> Answer:
        """Answer ``question`` from the workspace; ``thread``: a history thread it follows up (its
        last turn makes the question standalone for the search and is shown to the model);
        ``detail``: "brief" or "full" (default: ``answer.detail``)."""
        asked = Asked.checked(question, filters, thread, detail or self.config.detail)
        t0, self.votes.asked_at = time.perf_counter(), time.monotonic()
        got = self._retrieve(asked, cancel, t0)
        verdict = decide(got.evidence)
        if verdict.outcome == "not_found":
            ans = self._not_found(got, verdict, on_sources, on_token, t0)
        else:
            excerpts = self._excerpts(got, t0)
            sources = [citation_of(e) for e in excerpts]
            if on_sources is not None:
                on_sources(sources)
            ans = self._compose(got, excerpts, verdict, on_token, cancel, t0)
            ans.sources = sources
            ans.confidence = got.found.confidence
            ans.timing = {**got.timing, **ans.timing}
            ans.timing["total_ms"] = ms_since(t0)
        if not ans.verdict:  # the model's own: its answer stood, or it found none
            read = "found" if ans.found else "not_found"
            ans.verdict = decide(replace(got.evidence, read=read)).as_dict()
        if self.history_enabled:
            record(self.workspace, history_record(asked.question, ans, thread, got.searched), ans)
        model = self.slot.get()
        if self.calibrates and self.config.pool_votes and model is not None and ans.mode == "llm":
            self.votes.later(
                getattr(model, "name", ""), got.language, lambda q: self.pool_vote(model, q)
            )
        return ans

    def pool_vote(self, model: Any, question: str) -> float | None:
        """An off-topic question's vote here, read as an answer reads it (:mod:`.stages.vote`)."""
        t0 = time.perf_counter()
        got = self._retrieve(Asked.checked(question, None, None, "brief"), None, t0)
        if not got.hits:
            return None
        messages = got.prompt.messages(self._excerpts(got, t0))
        return vote.vote(model, messages, got.language, cancel=self.votes.stop)

    def _retrieve(self, asked: Asked, cancel: threading.Event | None, t0: float) -> Retrieved:
        """The search for the question (made standalone when it follows up an earlier turn),
        the hits the answer may be written from, and the evidence the verdict reads: the
        search's confidence and coverage, and over an unsure search the question's standing
        among the off-topic questions this workspace cannot answer (no model call)."""
        METER.mark()  # what the CPU does while the question is searched sets its threads
        language = detect_language(asked.question)
        earlier = earlier_turn(self.workspace, asked.thread)
        loading = self._load_early()
        question = searched = asked.question
        if earlier is not None:
            made = followup.standalone(self.slot.get(), earlier, question, cancel)
            searched, question = made.text, followup.in_context(made.text, earlier)
        filters = replace(asked.filters, k=asked.filters.k or self.config.k)
        found = self.workspace.search(searched, filters)
        # lock files, vector pictures, build files and data carry no answer unless asked for
        hits = [h for h in found if carries_answer(h, asked.question)]
        standing = (
            self.workspace.standing(searched, language) if found.confidence == "low" else None
        )
        evidence = Evidence(
            found.confidence,
            found.reason,
            len(hits),
            found.coverage,
            standing,
            found.absent_names,
            model=self.slot.get() is not None,
            why=self.slot.note,
        )
        timing: dict[str, float | None] = {
            "retrieve_ms": ms_since(t0),
            "first_token_ms": None,
            "total_ms": None,
        }
        framed = QuotePrompt if self.style == "quote" else Prompt
        prompt = framed(question, language, self.style, asked.detail)
        return Retrieved(
            question,
            searched,
            language,
            asked.detail,
            prompt,
            found,
            hits,
            loading,
            evidence,
            timing,
        )

    def _not_found(
        self,
        got: Retrieved,
        verdict: Verdict,
        on_sources: Callable[[list[Citation]], None] | None,
        on_token: Callable[[str], None] | None,
        t0: float,
    ) -> Answer:
        """ "Not found" before the model read, with where a reader would still look: what the
        search found nearest."""
        ans = not_found(got.found, got.hits, got.language, got.timing, t0, verdict)
        ans.verdict = verdict.as_dict()
        if on_sources is not None:
            on_sources([])
        if on_token is not None:
            on_token(ans.answer)
        return ans

    def _excerpts(self, got: Retrieved, t0: float) -> list[Excerpt]:
        """The hits as numbered excerpts, as many as the model reads in the time left."""
        model = self.slot.get()
        if got.loading is not None:
            # the excerpts are sized by the time left, which the rest of the load takes from
            waited = time.perf_counter()
            got.loading.join()
            got.timing["load_wait_ms"] = ms_since(waited)
        # the model's own tokenizer once it is loaded; a calibrated estimate before that, so the
        # sources can be shown before the (slow) first load
        count = model.count_tokens if model is not None and model.loaded else estimate_llm_tokens
        terms = question_terms([got.question, got.found.searched_as])
        spent = time.perf_counter() - t0
        budget = context_budget(self.config, model, got.prompt, spent_s=spent, count=count)
        return fit_excerpts(got.hits, budget, count, terms=terms)

    def _compose(
        self,
        got: Retrieved,
        excerpts: list[Excerpt],
        verdict: Verdict,
        on_token: Callable[[str], None] | None,
        cancel: threading.Event | None,
        t0: float,
    ) -> Answer:
        """The model's answer over the excerpts (choose, write, check), or what the verdict
        makes of one that cannot stand (see :meth:`_cannot_stand`)."""
        model = self.slot.get()
        if model is None or verdict.outcome == "key_lines":
            # no local model installed, or a model server that cannot be used (the note says why)
            kind = "failed" if self.config.engine == "openai" else "missing"
            ans = extractive(excerpts, got.language, Fallback(kind, self.slot.note), on_token, t0)
            ans.verdict = verdict.as_dict()
            return ans
        try:
            hedge = say(wording.HEDGE, got.language) if got.found.confidence == "low" else ""
            ans = self._answer(model, got, excerpts, on_token, cancel, t0, hedge)
            self.slot.load_error = ""
        except model_files.ModelError as exc:
            self.slot.load_error = str(exc)
            log.warning("answer model unavailable: %s", exc)
            return self._cannot_stand(got, excerpts, Fallback("failed", str(exc)), on_token, t0)
        fallback = cannot_stand(ans, got.language, cancel, self.config.time_limit_s)
        if fallback is None:
            return ans
        return self._cannot_stand(got, excerpts, fallback, on_token, t0, written=ans)

    def _cannot_stand(
        self,
        got: Retrieved,
        excerpts: list[Excerpt],
        fallback: Fallback,
        on_token: Callable[[str], None] | None,
        t0: float,
        written: Answer | None = None,
    ) -> Answer:
        """What the verdict makes of an answer that cannot stand (``fallback`` says why; the
        ``written`` answer, when the model wrote one that was cut or empty): over an unsure
        search "not found" with the places to look, never their key lines; over a sure one the
        key lines (after a cut answer's words when it only lacked citations)."""
        why = fallback.why or NOTICES[fallback.kind]
        evidence = replace(got.evidence, read="found", cannot_stand=fallback.kind, why=why)
        verdict = decide(evidence)
        if verdict.outcome == "not_found":
            return self._unsure(got, excerpts, verdict, on_token, t0)
        ans = key_lines(excerpts, got.language, fallback, on_token, t0, got.timing, written)
        ans.verdict = verdict.as_dict()
        return ans

    def _unsure(
        self,
        got: Retrieved,
        excerpts: list[Excerpt],
        verdict: Verdict,
        on_token: Callable[[str], None] | None,
        t0: float,
    ) -> Answer:
        """ "Not found" after the model read (its vote, or a reply that cannot stand), with the
        excerpts' places to look and then the search's next ones."""
        places = [*(e.hit for e in excerpts), *got.hits]
        ans = unsure(got.found, places, got.language, verdict.why, got.timing, t0)
        if on_token is not None:
            on_token(("\n\n" if got.timing.get("first_token_ms") else "") + ans.answer)
        ans.verdict = verdict.as_dict()
        return ans

    def _context_budget(
        self,
        model: Any,
        question: str,
        language: Language,
        *,
        spent_s: float = 0.0,
        count: TokenCounter = estimate_llm_tokens,
        detail: str = "brief",
    ) -> int:
        """Excerpt tokens for this question (see :func:`retrieve.context_budget`)."""
        prompt = Prompt(question, language, self.style, detail)
        return context_budget(self.config, model, prompt, spent_s=spent_s, count=count)

    def _load_early(self) -> threading.Thread | None:
        """Start loading the model while the search runs (see :func:`shared.load_early`)."""
        return shared.load_early(self.slot.get())

    def _answer(
        self,
        model: Any,
        got: Retrieved,
        excerpts: list[Excerpt],
        on_token: Callable[[str], None] | None,
        cancel: threading.Event | None,
        t0: float,
        hedge: str = "",
    ) -> Answer:
        """Choose, write, check: the model's answer over the excerpts, streamed; ``hedge``
        begins an answer that was found (shown with the first words, so it never arrives before
        them)."""
        timing, limit = got.timing, self.config.time_limit_s
        deadline = time.monotonic() + limit if limit else None
        chosen, messages = choose.choose_prompt(
            model, got, excerpts, cancel=cancel, deadline=deadline
        )
        if got.found.confidence != "high" and self.config.pool_votes:  # on this workspace's scale
            asked = got.prompt.messages(excerpts)  # as the pool's were read: no excerpt named
            voted = self.votes.read(model, asked, got.language, cancel, deadline)
            got.evidence = replace(got.evidence, vote=voted)
            verdict = decide(got.evidence)
            if verdict.outcome == "not_found":
                return replace(self._unsure(got, excerpts, verdict, on_token, t0), chosen=chosen)
        show = Shown(timing, t0, hedge, on_token)
        if self.style == "quote":  # picked lines; none picked is the model's own "not found"
            ans = quote_first(
                model, got, excerpts, messages, show, cancel=cancel, deadline=deadline
            )
            if ans is not None:
                return ans
            verdict = decide(replace(got.evidence, read="not_found"))
            return self._unsure(got, excerpts, verdict, on_token, t0)
        factor = FULL_TOKENS_FACTOR if got.detail == "full" else 1
        max_tokens = self.config.max_tokens * factor
        written = write(
            model, messages, excerpts, got.language, show,
            style=self.style, max_tokens=max_tokens, cancel=cancel, deadline=deadline,
        )  # fmt: skip
        timed(timing, written.stats)
        checked = check(
            written, got.question, got.language, excerpts,
            style=self.style, hedge=hedge, show=show, after=got.hits,
        )  # fmt: skip
        if checked.fallback:
            fallback = Fallback(checked.fallback, chosen=chosen)
            ans = self._cannot_stand(got, excerpts, fallback, on_token, t0)
            if ans.mode == "extractive":  # the model read the excerpts: it is named, as when cut
                name = getattr(model, "name", "")
                return replace(ans, repairs=checked.repairs, chosen=chosen, model=name)
            return replace(ans, chosen=chosen)
        if checked.found:  # the lines its sentences rest on, verbatim, after it
            show(more := backed(checked.text, got.question, excerpts, searched=got.searched))
            checked.text += more
        started = bool("".join(show.seen).strip())
        return settled(
            self.config, model, written, checked, got.language, timing, t0, started, chosen
        )

    def close(self) -> None:
        self.votes.stop.set()
        self.slot.close()
