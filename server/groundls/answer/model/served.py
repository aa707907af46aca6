"""An answer model behind an OpenAI-compatible ``/v1/chat/completions`` endpoint (the ``openai``
engine): Ollama, llama.cpp's server, vLLM, LM Studio, TGI.

It offers what the answer service uses of the in-process model (``stream``, ``busy``,
``count_tokens``, ``prefill_rate``...), so prompts, citations, checks, the Japanese rewrite and
follow-ups are the same whatever serves the model. The official ``openai`` client does the HTTP:
streaming, a connect timeout and a first-token (read) timeout, bounded retries with backoff on
connection errors. Closing the stream (cancel, time limit) closes the connection, and the server
stops generating. Failures become :class:`ServedModelError` with a message that says what is
wrong ("not reachable", "model not found", "unauthorised", "malformed stream"); the service then
answers extractively and says why. Reasoning is dropped by the service for every engine
(:mod:`groundls.answer.model.thinking`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from groundls import endpoints
from groundls.answer.model.abort import held
from groundls.answer.model.model_files import ModelError
from groundls.answer.model.prefix import GenerationStats, stop_reason
from groundls.answer.model.served_choice import served_logprobs
from groundls.chunkers.textrules import estimate_llm_tokens
from groundls.config import AnswerConfig

log = logging.getLogger("groundls.answer.model.served")


class ServedModelError(ModelError):
    """The endpoint cannot answer now; the message says why and what to check."""


@dataclass(frozen=True)
class ServedSpec:
    name: str
    source: str


def _why(exc: Exception, base_url: str, model: str, key_env: str) -> str:
    import openai

    where = f"the answer server at {base_url}"
    if isinstance(exc, openai.APITimeoutError):
        return f"{where} did not answer in time (answer.firstTokenTimeoutS / connectTimeoutS)"
    if isinstance(exc, openai.APIConnectionError):
        return f"{where} is not reachable: is it running? ({type(exc.__cause__ or exc).__name__})"
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        hint = f"check the key in ${key_env}" if key_env else "set answer.apiKeyEnv"
        return f"{where} refused the request as unauthorised ({exc.status_code}): {hint}"
    if isinstance(exc, openai.NotFoundError):
        return f"{where} has no model {model!r} (404): check answer.model"
    if isinstance(exc, openai.APIStatusError):
        return f"{where} failed with HTTP {exc.status_code}"
    return f"{where} sent a malformed stream ({type(exc).__name__})"


class ServedLLM:
    """The ``openai`` answer engine: one endpoint, one model, requests one at a time."""

    def __init__(self, config: AnswerConfig) -> None:
        try:
            self._client, self.host = endpoints.client(
                "answer",
                config.base_url,
                config.model,
                allow_remote=config.allow_remote,
                api_key_env=config.api_key_env,
                timeout_s=config.first_token_timeout_s,
                connect_timeout_s=config.connect_timeout_s,
                retries=config.retries,
            )
        except endpoints.EndpointRefused as exc:
            raise ServedModelError(str(exc)) from None
        self.config = config
        self.base_url = config.base_url.rstrip("/")
        self.model = config.model
        self.spec = ServedSpec(f"{config.model} @ {self.host}", self.base_url)
        self._lock = threading.Lock()
        #: prompt tokens the endpoint reads per second, measured from its answers (sizes the
        #: excerpts as the local model's measured speed does)
        self.prefill_rate: float | None = None
        #: the speed above is over every message (a server may or may not keep the system
        #: prompt's state), so the excerpt budget counts the system prompt against it
        self.reads_whole_prompt = True
        self.last_load_ms = 0.0

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def remote_note(self) -> str:
        return endpoints.describe(self.host)

    @property
    def loaded(self) -> bool:
        return True

    @property
    def busy(self) -> bool:
        """Another thread is waiting on this server's answer right now."""
        return held(self._lock)

    def load(self) -> None:
        """Nothing to load: the server holds the model."""

    def close(self) -> None:
        self._client.close()

    def count_tokens(self, text: str) -> int:
        return estimate_llm_tokens(text)

    def next_token_logprobs(
        self,
        messages: list[dict[str, str]],
        lead: str,
        choices: Sequence[str],
        *,
        cancel: threading.Event | None = None,
        deadline: float | None = None,
    ) -> list[float] | None:
        """Each of ``choices``' log-probability after the reply's first words ``lead``, where
        the server gives token log-probabilities (see ``served_choice``); None where it does
        not, when it fails, or when stopped: then nothing is chosen."""
        import openai

        if stop_reason(cancel, deadline):
            return None
        with self._lock:
            try:
                return served_logprobs(self._client, self.model, messages, lead, choices)
            except (openai.OpenAIError, AttributeError, TypeError, ValueError):
                return None

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
        **_local_only: Any,
    ) -> Iterator[str]:
        """Yield the answer's text as the endpoint streams it; stops on cancel or deadline
        (``stats.stop_reason`` says which) by closing the stream."""
        import openai

        stats = stats if stats is not None else GenerationStats()
        extra: dict[str, Any] = {}
        if schema is not None:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema},
            }
        with self._lock:
            started = time.perf_counter()
            try:
                stream = self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,  # type: ignore[arg-type]
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stream=True,
                    **extra,
                )
            except openai.OpenAIError as exc:
                raise ServedModelError(
                    _why(exc, self.base_url, self.model, self.config.api_key_env)
                ) from None
            first: list[float] = []
            try:
                yield from self._pieces(stream, messages, stats, started, first, cancel, deadline)
            except openai.OpenAIError as exc:
                raise ServedModelError(
                    _why(exc, self.base_url, self.model, self.config.api_key_env)
                ) from None
            except (ValueError, KeyError, AttributeError) as exc:
                raise ServedModelError(
                    f"the answer server at {self.base_url} sent a malformed stream "
                    f"({type(exc).__name__})"
                ) from None
            finally:
                stream.close()  # a server stops generating when its client goes
                stats.generate_ms = (time.perf_counter() - (first[0] if first else started)) * 1000

    def _pieces(
        self,
        stream: Any,
        messages: list[dict[str, str]],
        stats: GenerationStats,
        started: float,
        first: list[float],
        cancel: threading.Event | None,
        deadline: float | None,
    ) -> Iterator[str]:
        """The streamed reply's text pieces until it ends, is cancelled or runs out of time;
        the first piece's time goes into ``first`` and the measured reading speed."""
        for chunk in stream:
            if stopped := stop_reason(cancel, deadline):
                stats.stop_reason = stopped
                break
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            piece = (choice.delta.content or "") if choice.delta else ""
            if piece:
                if not first:
                    first.append(time.perf_counter())
                    self._observe(messages, first[0] - started, stats)
                stats.generated_tokens += 1
                yield piece
            if choice.finish_reason:
                stats.stop_reason = "length" if choice.finish_reason == "length" else "stop"

    def _observe(
        self, messages: list[dict[str, str]], seconds: float, stats: GenerationStats
    ) -> None:
        tokens = sum(estimate_llm_tokens(m.get("content", "")) for m in messages)
        stats.prompt_tokens = tokens
        stats.prefill_ms = seconds * 1000
        if seconds > 0:
            rate = tokens / seconds
            self.prefill_rate = (
                rate if self.prefill_rate is None else 0.5 * (self.prefill_rate + rate)
            )
