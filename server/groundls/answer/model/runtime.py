"""The local chat model at run time: load lazily, keep the prompt cache, stream tokens, unload when idle."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from groundls.answer.model.abort import AbortSwitch, held
from groundls.answer.model.chat import LeadTokens, _make_formatter, leads_banned
from groundls.answer.model.cpu_buffers import UBATCH, machine_key, model_params, use_extra_buffers
from groundls.answer.model.model_files import (
    INSTALL_HINT,
    ModelError,
    ModelSpec,
    gguf_path,
)
from groundls.answer.model.prefix import GenerationStats, PromptPrefix, _common_prefix, stop_reason
from groundls.answer.model.rates import known_rates
from groundls.answer.model.threads import fit_threads
from groundls.chunkers.textrules import estimate_llm_tokens
from groundls.cpu import Threads, answering, physical_cores

log = logging.getLogger("groundls.answer")


class Cancelled(Exception):
    """Raised inside generation when the cancel event is set or the deadline passes."""


class LocalLLM(PromptPrefix):
    """A llama.cpp model loaded on first use, kept loaded, and unloaded after an idle time.

    Generation is serialised by a lock (one model, one context). The KV cache of the previous
    prompt is kept, so a new prompt that starts with the same system prompt only evaluates the
    new part (the fixed system prompt is the cacheable prefix).
    """

    def __init__(
        self,
        spec: ModelSpec,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        idle_unload_s: float = 600.0,
        adapt_threads: bool = True,
    ) -> None:
        self.spec = spec
        self.n_ctx = n_ctx
        #: physical cores; each answer takes as many of them as other processes leave free
        self.n_threads = n_threads or physical_cores()
        #: whether each answer's threads follow the CPU's load (``answer.adaptThreads``)
        self.adapt_threads = adapt_threads
        self._threads: Threads | None = None
        self._loading = False
        self.idle_unload_s = idle_unload_s
        #: whether llama.cpp's extra CPU buffer types are used (decided at load, see
        #: ``use_extra_buffers``; speeds and saved states are kept per choice)
        self.extra_buffers = True
        #: prompt tokens read per second, measured on this machine (None until the first answer
        #: here; remembered between runs)
        self.prefill_rate: float | None = known_rates().get(self._rate_key)
        self._abort = AbortSwitch()
        self._llm: Any = None
        self._leads: LeadTokens | None = None  # see _lead_tokens
        self._formatter: Any = None
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._closed = False
        self.last_load_ms = 0.0
        #: KV state of prompt prefixes already read (the fixed system prompts), by their tokens:
        #: another prompt in between (a question rewrite) no longer costs re-reading them.
        self._prefixes: dict[tuple[int, ...], bytes] = {}

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    @property
    def busy(self) -> bool:
        """Another thread is generating with this model right now."""
        return held(self._lock)

    @property
    def loading(self) -> bool:
        """The model is being loaded (ahead of a question): what waits for it waits seconds,
        not for another answer."""
        return self._loading

    # lifecycle

    def load(self) -> Any:
        """Load (assembling the packaged GGUF first if needed); ModelError with a clear message."""
        with self._lock:
            if self._closed:
                raise ModelError("the answer service is closed")
            if self._llm is not None:
                return self._llm
            t0 = time.perf_counter()
            self._loading = True
            try:
                return self._load(t0)
            finally:
                self._loading = False

    def _load(self, t0: float) -> Any:
        """:meth:`load`'s work, under its lock."""
        path = gguf_path(self.spec)
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # pragma: no cover - resolved earlier
            raise ModelError(f"llama-cpp-python is not installed; run `{INSTALL_HINT}`") from exc
        extra = use_extra_buffers(path)
        try:
            with model_params(use_extra_bufts=extra):
                llm = Llama(
                    model_path=str(path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    n_batch=512,
                    n_ubatch=UBATCH,
                    seed=0,
                    verbose=False,
                )
            self._abort.install(llm)
        except Exception as exc:  # llama raises ValueError/RuntimeError for bad files
            raise ModelError(f"cannot load the model {path.name}: {exc}") from exc
        if extra != self.extra_buffers:
            self.extra_buffers = extra
            self.prefill_rate = known_rates().get(self._rate_key)
        self._formatter = _make_formatter(llm)
        self._llm = llm
        self._threads = None  # a new context: its threads are set before its first use
        self.last_load_ms = (time.perf_counter() - t0) * 1000
        log.info("loaded %s in %.0f ms", path.name, self.last_load_ms)
        # a model loaded ahead of its question (see AnswerService) that is then not asked
        # anything (the answer was "not found" at once) is unloaded when idle all the same
        self._touch()
        return llm

    def unload(self) -> None:
        with self._lock:
            llm, self._llm = self._llm, None
            self._formatter = None
            self._prefixes.clear()
            if llm is not None:
                with contextlib.suppress(Exception):
                    llm.close()
                log.info("unloaded %s", self.spec.name)

    @functools.cached_property
    def _machine_key(self) -> str:
        """This model on this machine and llama.cpp build."""
        try:
            machine = machine_key()
        except Exception:  # noqa: BLE001 - llama_cpp missing or odd: rates are per process then
            machine = ""
        return f"{self.spec.name}|{self.n_threads}|{machine}"

    @property
    def _rate_key(self) -> str:
        """This model on this machine and build with this choice of buffers: speeds and saved
        states are kept per key."""
        return f"{self._machine_key}|{'extra' if self.extra_buffers else 'plain'}"

    def _touch(self) -> None:
        """(Re)start the idle timer; it unloads the model when nothing used it for idle_unload_s."""
        if self._timer is not None:
            self._timer.cancel()
        if self._closed or self.idle_unload_s <= 0:
            return
        timer = threading.Timer(self.idle_unload_s, self._idle)
        timer.daemon = True
        timer.start()
        self._timer = timer

    def _idle(self) -> None:
        if self._lock.acquire(blocking=False):
            try:
                self.unload()
            finally:
                self._lock.release()

    def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.unload()

    # tokens

    def count_tokens(self, text: str) -> int:
        llm = self._llm
        if llm is None:
            return estimate_llm_tokens(text)
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def prompt_tokens(self, messages: list[dict[str, str]]) -> list[int]:
        llm = self.load()
        prompt, add_bos = self._formatter(messages)
        return llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    # generation

    def stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 320,
        schema: dict | None = None,
        cancel: threading.Event | None = None,
        deadline: float | None = None,
        stats: GenerationStats | None = None,
        temperature: float = 0.2,
        no_leading_bracket: bool = False,
        no_leading_latin: bool = False,
    ) -> Iterator[str]:
        """Yield generated text pieces. Stops on cancel or deadline (stats.stop_reason says which).

        The prompt is evaluated in small slices so cancellation and the time limit also apply
        while the (slow) prompt is being read, not only between generated tokens.
        ``no_leading_bracket``: the reply may not begin with ``[`` (a small model echoes an
        excerpt's label, ``[1] path:1-9 (…)``, as its whole answer).
        ``no_leading_latin``: nor with a Latin letter or digit (an answer to a Japanese question
        that begins by copying an English excerpt goes on in English)."""
        stats = stats or GenerationStats()
        with self._lock, answering():
            try:
                llm, deadline = self._loaded(stats, deadline)
                self._fit_threads(llm, stats)
                tokens, prefix, max_tokens = self._fitted(messages, max_tokens, stats)
                t0 = time.perf_counter()
                read = self._prefill(llm, tokens, prefix, cancel, deadline, stats)
                stats.prefill_ms = (time.perf_counter() - t0) * 1000
                if not read:
                    return
                t1 = time.perf_counter()
                stats.stop_reason = "stop"
                it = llm.create_completion(
                    prompt=tokens,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_p=0.9,
                    top_k=40,
                    repeat_penalty=1.05,
                    grammar=_grammar(schema),
                    logits_processor=leads_banned(
                        lambda: self._lead_tokens(llm),
                        len(tokens),
                        no_leading_bracket,
                        no_leading_latin,
                    ),
                    stream=True,
                )
                try:
                    yield from _pieces(it, stats, cancel, deadline)
                finally:
                    with contextlib.suppress(Exception):
                        it.close()
                    stats.generate_ms = (time.perf_counter() - t1) * 1000
                    # tokens, not text pieces (a piece can be empty or hold several tokens)
                    stats.generated_tokens = max(0, llm.n_tokens - len(tokens) + 1)
            finally:
                self._touch()

    def _fit_threads(self, llm: Any, stats: GenerationStats) -> None:
        """This generation's threads, from what the CPU is doing now (see ``threads.py``)."""
        self._threads = fit_threads(llm, self.n_threads, self._threads, self.adapt_threads)
        stats.threads_batch, stats.threads_decode = self._threads.batch, self._threads.decode

    def _loaded(self, stats: GenerationStats, deadline: float | None) -> tuple[Any, float | None]:
        """The model, loaded now if it was not (its load time in ``stats``); the deadline moved
        by the load: the limit bounds reading and writing, not the model's one-off load."""
        if self._timer is not None:
            self._timer.cancel()
        was_loaded = self._llm is not None
        llm = self.load()
        if not was_loaded:
            stats.load_ms = self.last_load_ms
            if deadline is not None:
                deadline += self.last_load_ms / 1000
        return llm, deadline

    def _fitted(
        self, messages: list[dict[str, str]], max_tokens: int, stats: GenerationStats
    ) -> tuple[list[int], int, int]:
        """The prompt's tokens, the length of its fixed prefix, and the tokens left to write
        in the context (``ModelError`` when the prompt leaves too few)."""
        tokens = self.prompt_tokens(messages)
        prefix = self._fixed_prefix(messages, tokens)
        stats.prompt_tokens = len(tokens)
        budget = self.n_ctx - len(tokens) - 1
        if budget < 16:
            raise ModelError(
                f"the prompt ({len(tokens)} tokens) does not fit the model context "
                f"({self.n_ctx}); lower answer.contextTokens"
            )
        return tokens, prefix, min(max_tokens, budget)

    def next_token_logprobs(
        self,
        messages: list[dict[str, str]],
        lead: str,
        choices: Sequence[str],
        *,
        cancel: threading.Event | None = None,
        deadline: float | None = None,
    ) -> list[float] | None:
        """The log-probability of each of ``choices`` (each read as its first token) as the
        next token once the model has read ``messages`` and the first words of its reply,
        ``lead``. Nothing is generated; the prompt read stays in the cache, so an answer to the
        same messages then reads only what follows it. None when stopped (``cancel`` or
        ``deadline``)."""
        with self._lock, answering():
            try:
                if self._timer is not None:
                    self._timer.cancel()
                llm = self.load()
                self._fit_threads(llm, GenerationStats())
                tokens = self.prompt_tokens(messages)
                tail = llm.tokenize(lead.encode("utf-8"), add_bos=False, special=False)
                every = [*tokens, *tail]
                if len(every) + 1 >= self.n_ctx:
                    return None
                prefix = self._fixed_prefix(messages, tokens)
                stats = GenerationStats()
                # the logits read are the last evaluation's: when the cache already holds every
                # token (and maybe more after them), the last one is read again
                held = _common_prefix(llm.input_ids[: llm.n_tokens].tolist(), every)
                if held == len(every) and llm._ctx.kv_cache_seq_rm(-1, held - 1, -1):
                    llm.n_tokens = held - 1
                # all but the last token are evaluated: the last one is read twice so that the
                # logits after it are the context's last
                if not self._prefill(llm, [*every, every[-1]], prefix, cancel, deadline, stats):
                    return None
                logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
                total = float(np.logaddexp.reduce(logits.astype(np.float64)))
                ids = [
                    llm.tokenize(c.encode("utf-8"), add_bos=False, special=False)[0]
                    for c in choices
                ]
                return [float(logits[i]) - total for i in ids]
            finally:
                self._touch()

    def _lead_tokens(self, llm: Any) -> LeadTokens:
        """The vocabulary's tokens by how they begin, found once per model in one pass over it
        (~0.3 s over Qwen's 152k tokens)."""
        if self._leads is None:
            self._leads = LeadTokens.of([llm.detokenize([i]) for i in range(llm.n_vocab())])
        return self._leads


def _grammar(schema: dict | None) -> Any:
    """A JSON schema as llama.cpp's grammar, or None."""
    if schema is None:
        return None
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)


def _pieces(
    it: Iterator[Any],
    stats: GenerationStats,
    cancel: threading.Event | None,
    deadline: float | None,
) -> Iterator[str]:
    """The text pieces of a streamed completion, until it ends, is cancelled or runs out of
    time (``stats.stop_reason`` says which)."""
    for chunk in it:
        choice = chunk["choices"][0]
        text = choice.get("text") or ""
        if text:
            stats.generated_tokens += 1
            yield text
        if choice.get("finish_reason") == "length":
            stats.stop_reason = "length"
        if stopped := stop_reason(cancel, deadline):
            stats.stop_reason = stopped
            break
