"""Grounded answers: retrieve, number excerpts, generate locally (or extract), check citations."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any, Protocol

from groundls.answer.model import model_files, shared
from groundls.answer.model.served import ServedLLM
from groundls.answer.stages import choose, followup
from groundls.answer.stages.check import PLACES, check, citation_of, places_to_look
from groundls.answer.stages.focus import TokenCounter, question_terms
from groundls.answer.stages.prompt import (
    Excerpt,
    Language,
    build_messages,
    detect_language,
    excerpt_label,
    fit_excerpts,
    system_prompt,
    user_prompt,
)
from groundls.answer.stages.rewrite import QueryRewriter
from groundls.answer.stages.write import write
from groundls.answer.text import hygiene, wording
from groundls.answer.text.wording import say
from groundls.chunkers.textrules import estimate_llm_tokens
from groundls.config import ANSWER_DETAILS, FULL_TOKENS_FACTOR, AnswerConfig
from groundls.results import (
    MAX_ASK_K,
    Answer,
    AnswerError,
    Citation,
    Hit,
    SearchFilters,
    SearchResult,
)

log = logging.getLogger("groundls.answer")

#: How the model is asked to write. "text": prose with inline [n], streamed as is, citations parsed
#: from the text. "json": {answer, citations, found} under a JSON-schema grammar, the "answer" value
#: extracted from the partial JSON while it streams. Chosen by measurement (see bench_answers.py).
DEFAULT_STYLE = "text"


#: Why an answer is the excerpts' key lines, for the notice beside it (``why`` when one is given).
_EXTRACTIVE_NOTICE = {
    "missing": f"no language model; run `{model_files.INSTALL_HINT}`",
    "failed": "the language model could not be used",
    "content_free": "the model's answer only restated the question or described the excerpts",
    "other_language": "the model's answer was not in the reader's language",
    "uncited": "the answer was cut before it cited anything",
}
_MAX_QUESTION_CHARS = 2000
_EXTRACT_LINES = 6


class Retriever(Protocol):
    """What answers need from a workspace: its search and a place to keep the history."""

    def search(self, query: str, filters: SearchFilters | None = None) -> SearchResult: ...

    def add_history(self, record: dict[str, Any]) -> None: ...


#: A low-confidence search is answered only when at least this share of the question's words
#: occur somewhere in the workspace (BENCHMARKS.md: answerable questions had 0.8-1.0 on the
#: English sets, unanswerable ones 0.25-0.6).
WORKSPACE_WORDS = 2 / 3


#: The excerpts are never cut below this many tokens to start sooner: the lines that hold an
#: answer must fit (see AnswerService._context_budget). It binds where the search took its time
#: first (a Japanese question's English rewrite, ~1 s): at 250 click-ja started at 5.1 s, at 180
#: at 4.3 s with its first citations within noise (13 -> 12 of 29, the expected place among the
#: excerpts for the same 19) ...
MIN_CONTEXT_TOKENS = 180
#: ... and a machine whose prompt-reading speed is not measured yet starts with this many.
FIRST_CONTEXT_TOKENS = 400
#: Chat markup around the user message (role tags), which its text does not count.
CHAT_MARKUP_TOKENS = 10


class AnswerService:
    """Answers questions about one workspace; one instance per workspace, safe to call from threads.

    ``llm`` may be given (tests, benchmarks); otherwise the model is resolved from the config on
    first use: configured GGUF > packaged default > extractive mode.
    """

    def __init__(
        self,
        workspace: Retriever,
        config: AnswerConfig | None = None,
        *,
        llm: Any = None,
        style: str | None = None,
        history: bool = True,
    ) -> None:
        self.workspace = workspace
        self.config = config or AnswerConfig()
        self.style = style or DEFAULT_STYLE
        self.history_enabled = history
        self._llm = llm
        self._resolved = llm is not None
        self._note = ""
        self._load_error = ""
        self._resolve_lock = threading.Lock()
        self._shared = False
        self._rewriter = QueryRewriter(model_files.cache_dir() / "rewrites.json")

    # model resolution

    def _model(self) -> Any:
        """The LLM backend, or None (then self._note says why)."""
        with self._resolve_lock:
            if not self._resolved and self.config.engine == "openai":
                # a model server: nothing to load here, content goes only where allowed
                try:
                    self._llm = ServedLLM(self.config)
                except model_files.ModelError as exc:
                    self._note = str(exc)
                self._resolved = True
            if not self._resolved:
                spec, note = model_files.resolve_model(
                    self.config.model_path, self.config.use_packaged_model
                )
                self._note = note
                if spec is not None:
                    n_ctx = max(2048, self.config.context_tokens + self.config.max_tokens + 700)
                    self._llm = shared.acquire_shared(
                        spec, n_ctx=n_ctx, idle_unload_s=self.config.idle_unload_s
                    )
                    self._shared = True
                self._resolved = True
            return self._llm

    def english_query(
        self, question: str, cancel: threading.Event | None = None, *, prose: bool = False
    ) -> str | None:
        """The question as English search words by the answer model (None: no model, busy,
        cancelled or no usable reply; ``prose``: the workspace holds no code); see
        :mod:`groundls.answer.stages.rewrite`. A question in another language than Japanese is
        translated."""
        translate = detect_language(question) not in ("en", "ja")
        return self._rewriter.english(
            self._model(), question, cancel, prose=prose, translate=translate
        )

    @property
    def model_name(self) -> str:
        model = self._model()
        return getattr(model, "name", "") if model is not None else ""

    def status(self) -> dict[str, Any]:
        """What answers will use: model name and source, loaded or not, and any problem."""
        model = self._model()
        spec = getattr(model, "spec", None)
        return {
            "mode": "llm" if model is not None and not self._load_error else "extractive",
            "model": getattr(model, "name", "") if model is not None else "",
            "source": getattr(spec, "source", "") if spec is not None else "",
            "loaded": bool(getattr(model, "loaded", False)),
            "notice": self._load_error or self._note,
            "install_hint": model_files.INSTALL_HINT,
            "engine": self.config.engine,
            "sends_to": getattr(model, "remote_note", ""),
            "load_ms": getattr(model, "last_load_ms", None) or None,
        }

    # the pipeline

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
        if not isinstance(question, str) or not question.strip():
            raise AnswerError("the question is empty")
        detail = detail or self.config.detail
        if detail not in ANSWER_DETAILS:
            raise AnswerError(f"detail must be one of {', '.join(ANSWER_DETAILS)}")
        question = question.strip()
        if len(question) > _MAX_QUESTION_CHARS:
            raise AnswerError(f"the question is too long (over {_MAX_QUESTION_CHARS} characters)")
        filters = filters or SearchFilters()
        k = filters.k
        if k is not None and (
            not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > MAX_ASK_K
        ):
            raise AnswerError(f"k must be an integer from 1 to {MAX_ASK_K}")
        t0 = time.perf_counter()
        language = detect_language(question)
        earlier = self._earlier_turn(thread)
        loading = self._load_early()
        asked = searched = question  # what is recorded, and what is searched
        if earlier is not None:
            made = followup.standalone(self._model(), earlier, question, cancel)
            searched, question = made.text, followup.in_context(made.text, earlier)
        found = self.workspace.search(searched, replace(filters, k=k or self.config.k))
        # a "low" search found only the nearest chunks, with no keyword or agreement evidence.
        # When most of the question's words occur nowhere in the workspace it is not about this
        # workspace: "not found" at once (seed 000 rule 1). Otherwise the model reads the
        # excerpts and says "not found" when they do not answer; without a model, nothing is
        # made of them.
        lacks_words = found.coverage is not None and found.coverage < WORKSPACE_WORDS
        judged = found.confidence != "low" or (not lacks_words and self._model() is not None)
        hits: list[Hit] = list(found) if judged else []
        timing: dict[str, float | None] = {
            "retrieve_ms": _ms(t0),
            "first_token_ms": None,
            "total_ms": None,
        }
        if not hits:
            # what the unsure search found nearest is still where a reader would look
            text = say(wording.NOT_FOUND, language) + places_to_look(list(found), language)
            if on_sources is not None:
                on_sources([])
            if on_token is not None:
                on_token(text)
            timing["first_token_ms"] = _ms(t0)
            timing["total_ms"] = _ms(t0)
            ans = Answer(
                text, False, language, "not_found", timing=timing, confidence=found.confidence
            )
            self._record(asked, ans, thread, searched)
            return ans

        model = self._model()
        if loading is not None:
            # the excerpts are sized by the time left, which the rest of the load takes from
            waited = time.perf_counter()
            loading.join()
            timing["load_wait_ms"] = _ms(waited)
        # the model's own tokenizer once it is loaded; a calibrated estimate before that, so the
        # sources can be shown before the (slow) first load
        count = model.count_tokens if model is not None and model.loaded else estimate_llm_tokens
        terms = question_terms([question, found.searched_as])
        budget = self._context_budget(
            model, question, language, spent_s=time.perf_counter() - t0, count=count, detail=detail
        )
        excerpts = fit_excerpts(hits, budget, count, terms=terms)
        sources = [citation_of(e) for e in excerpts]
        if on_sources is not None:
            on_sources(sources)

        if model is None:
            # no local model installed, or a model server that cannot be used (the note says why)
            kind = "failed" if self.config.engine == "openai" else "missing"
            ans = self._extractive(excerpts, language, kind, self._note, on_token, t0)
        else:
            try:
                hedge = say(wording.HEDGE, language) if found.confidence == "low" else ""
                ans = self._answer(
                    model,
                    question,
                    excerpts,
                    language,
                    on_token,
                    cancel,
                    t0,
                    timing,
                    hedge,
                    detail=detail,
                )
                self._load_error = ""
            except model_files.ModelError as exc:
                self._load_error = str(exc)
                log.warning("answer model unavailable: %s", exc)
                ans = self._extractive(excerpts, language, "failed", str(exc), on_token, t0)
            else:
                if ans.cut and not ans.answer_started and not (cancel and cancel.is_set()):
                    # the time limit passed while the model was still reading the excerpts:
                    # the excerpts are more useful than an empty answer
                    why = f"no answer within the time limit of {self.config.time_limit_s:g} s"
                    timing.update({k: v for k, v in ans.timing.items() if k != "first_token_ms"})
                    ans = self._extractive(excerpts, language, "failed", why, on_token, t0)
                    ans.model = model.name
                    ans.cut = True
                elif not ans.cut and not ans.answer.strip():
                    # the model stopped without a word of its own (an empty reply, or only an
                    # echoed excerpt label, which hygiene removes): the excerpts, labelled,
                    # rather than a blank answer
                    why = say(wording.NO_ANSWER, language)
                    ans = self._extractive(excerpts, language, "failed", why, on_token, t0)
                    ans.model = model.name
                elif (
                    ans.cut and ans.found and not ans.citations and not (cancel and cancel.is_set())
                ):
                    # cut before citing anything: a partial sentence alone leaves the user with
                    # nothing to check, so the excerpts follow it, labelled as such
                    if on_token is not None:
                        on_token("\n\n")
                    tail = self._extractive(excerpts, language, "uncited", "", on_token, t0)
                    ans.answer = f"{ans.answer}\n\n{tail.answer}".strip()
                    ans.citations = tail.citations
        ans.sources = sources
        ans.confidence = found.confidence
        ans.timing = {**timing, **ans.timing}
        ans.timing["total_ms"] = _ms(t0)
        self._record(asked, ans, thread, searched)
        return ans

    def _load_early(self) -> threading.Thread | None:
        """Start loading the model while the search runs, when it is not loaded yet (the first
        question of a process or after the idle unload would otherwise wait for the load, one
        to two seconds on 2 cores, after the search). A failed load is reported by the answer
        itself, which tries again. The thread is not a daemon: a process that exits at once
        (a "not found" answer needs no model) waits for the load instead of cutting it off, and
        the answer itself does not wait for it."""
        model = self._model()
        if model is None or getattr(model, "loaded", True) or not hasattr(model, "load"):
            return None

        def load() -> None:
            with contextlib.suppress(Exception):
                model.load()

        thread = threading.Thread(target=load, name="groundls-model-load", daemon=False)
        thread.start()
        return thread

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
        """Excerpt tokens for this question: what the model reads on this machine (its measured
        prompt-reading speed) in what is left of ``first_token_s`` once the search has taken
        ``spent_s`` and the rest of the prompt (question, headings, reminder) is read; between
        ``MIN_CONTEXT_TOKENS`` and ``context_tokens``. Before any speed is known,
        ``FIRST_CONTEXT_TOKENS``. The in-process model reads the system prompt once and keeps
        its state, so it is not counted; a model server's speed is measured over the whole
        prompt (``reads_whole_prompt``), so the system prompt is counted against it too."""
        cap = self.config.context_tokens
        target = self.config.first_token_s
        if target <= 0 or model is None:
            return cap
        rate = getattr(model, "prefill_rate", None)
        if not rate:
            return min(cap, FIRST_CONTEXT_TOKENS)
        rest = count(user_prompt(question, [], language, detail)) + CHAT_MARKUP_TOKENS
        if getattr(model, "reads_whole_prompt", False):
            rest += count(system_prompt(language, detail=detail))
        fit = int(rate * max(0.0, target - spent_s)) - rest
        return max(min(cap, MIN_CONTEXT_TOKENS), min(cap, fit))

    def _extractive(
        self,
        excerpts: list[Excerpt],
        language: str,
        kind: str,
        why: str,
        on_token: Callable[[str], None] | None,
        t0: float,
    ) -> Answer:
        """The best excerpts, quoted with their citations, clearly labelled as not an answer."""
        head = say(wording.EXTRACTIVE_HEAD[kind], language).format(
            why=why, hint=model_files.INSTALL_HINT
        )
        lines = [head, ""]
        chosen = excerpts[:PLACES]
        for e in chosen:
            lines.append(f"[{e.n}] {excerpt_label(e.hit)}")
            body = [ln.rstrip() for ln in e.text.splitlines() if ln.strip()][:_EXTRACT_LINES]
            lines.extend("    " + ln for ln in body)
            lines.append("")
        text = "\n".join(lines).rstrip() + "\n"
        if on_token is not None:
            on_token(text)
        return Answer(
            text,
            True,
            language,
            "extractive",
            citations=[citation_of(e) for e in chosen],
            timing={"first_token_ms": _ms(t0)},
            notice=why or _EXTRACTIVE_NOTICE[kind],
        )

    def _answer(
        self,
        model: Any,
        question: str,
        excerpts: list[Excerpt],
        language: str,
        on_token: Callable[[str], None] | None,
        cancel: threading.Event | None,
        t0: float,
        timing: dict[str, float | None],
        hedge: str = "",
        *,
        detail: str = "brief",
    ) -> Answer:
        """Choose, write, check: the model's answer over the excerpts, streamed; ``hedge``
        begins an answer that was found (shown with the first words, so it never arrives before
        them)."""
        style = self.style
        messages = build_messages(question, excerpts, language, style, detail)
        max_tokens = self.config.max_tokens * (FULL_TOKENS_FACTOR if detail == "full" else 1)
        deadline = time.monotonic() + self.config.time_limit_s if self.config.time_limit_s else None
        # choose: the excerpt the model reads as the answer, from the prompt it then answers
        # (the prompt read stays in its cache); a later one is named to it before it writes
        chose = time.perf_counter()
        choice = choose.choose(
            model, messages, language, len(excerpts), cancel=cancel, deadline=deadline
        )
        timing["choose_ms"] = _ms(chose)
        chosen = choice.excerpt if choice is not None else None
        if chosen is not None and chosen > 1:
            messages = build_messages(question, excerpts, language, style, detail, chosen)

        seen: list[str] = []

        def show(visible: str) -> None:
            if not visible:
                return
            if timing["first_token_ms"] is None:
                timing["first_token_ms"] = _ms(t0)
            if hedge and not seen and not hygiene.says_hedge(visible):
                visible = hedge + visible.lstrip()
            seen.append(visible)
            if on_token is not None:
                on_token(visible)

        written = write(
            model,
            messages,
            excerpts,
            language,
            show,
            style=style,
            max_tokens=max_tokens,
            cancel=cancel,
            deadline=deadline,
        )
        stats = written.stats
        timing["prompt_tokens"] = stats.prompt_tokens
        timing["reused_tokens"] = stats.reused_tokens
        timing["prefill_ms"] = round(stats.prefill_ms, 1)
        timing["generated_tokens"] = stats.generated_tokens
        timing["generate_ms"] = round(stats.generate_ms, 1)
        if stats.load_ms:
            timing["load_ms"] = round(stats.load_ms, 1)
        checked = check(written, question, language, excerpts, style=style, hedge=hedge, show=show)
        if checked.fallback:
            extract = self._extractive(
                _chosen_first(excerpts, chosen), language, checked.fallback, "", on_token, t0
            )
            # the reader saw the model's first words as they streamed, then this in their place
            shown_at = {"first_token_ms": timing["first_token_ms"]} if seen else {}
            extract.timing = {**extract.timing, "replaced_ms": _ms(t0), **shown_at}
            return replace(extract, repairs=checked.repairs, chosen=chosen)
        answer_text = checked.text
        notice = ""
        if written.cut and not checked.repairs.get("unsupported"):
            # (an unsupported answer was replaced whole: nothing of it is shown to be cut)
            why = {
                "cancel": "cancelled",
                "time": f"time limit {self.config.time_limit_s:g} s",
                "length": f"max {self.config.max_tokens} tokens",
                "loop": "repetition",
            }[stats.stop_reason]
            notice = f"answer cut ({why})"
            answer_text = answer_text.rstrip() + say(wording.CUT_NOTE, language).format(why=why)
        if timing["first_token_ms"] is None:
            timing["first_token_ms"] = _ms(t0) if answer_text else None
        return Answer(
            answer_text.strip(),
            checked.found,
            language,
            "llm",
            citations=checked.citations,
            model=model.name,
            timing=timing,
            cut=written.cut,
            dropped_citations=checked.dropped,
            notice="; ".join(n for n in (notice, getattr(model, "remote_note", "")) if n),
            answer_started=bool("".join(seen).strip()),
            repairs={k: v for k, v in checked.repairs.items() if v},
            chosen=chosen,
        )

    def _earlier_turn(self, thread: int | None) -> followup.Turn | None:
        """The last turn of a history thread, or None for a new question."""
        if thread is None:
            return None
        turns = self.workspace.history_thread(thread)
        if not turns:
            raise AnswerError(f"no thread {thread} in this workspace's history")
        last = turns[-1]
        return followup.Turn(last["question"], last["answer"])

    def _record(
        self, question: str, ans: Answer, thread: int | None = None, searched: str = ""
    ) -> None:
        """Keep the answer in the history (``ans.thread`` then names its thread)."""
        if not self.history_enabled:
            return
        record = {
            "question": question,
            "thread": thread,
            "searched": searched if searched != question else "",
            "answer": ans.answer,
            "found": ans.found,
            "language": ans.language,
            "mode": ans.mode,
            "model": ans.model,
            "citations": [asdict(c) for c in ans.citations],
            "timing": dict(ans.timing),
            "cut": ans.cut,
            "asked_at": time.time(),
        }
        try:
            record_id = self.workspace.add_history(record)
            ans.thread = thread if thread is not None else record_id
        except Exception as exc:  # history is a convenience; never fail an answer over it
            log.warning("could not store the answer in history: %s", exc)

    def close(self) -> None:
        with self._resolve_lock:
            model, self._llm = self._llm, None
            self._resolved = True
        if model is None:
            return
        if self._shared:
            shared.release_shared(model)
        else:
            model.close()


def _chosen_first(excerpts: list[Excerpt], chosen: int | None) -> list[Excerpt]:
    """The excerpts with the one the model chose first (the extractive form shows its lines
    before the others')."""
    return sorted(excerpts, key=lambda e: e.n != chosen) if chosen else excerpts


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)
