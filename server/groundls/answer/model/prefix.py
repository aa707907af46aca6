"""The prompt a model has read, kept: the fixed part of a prompt evaluated once and its state saved to disk, restored for each question, so only what differs is read; the prompt read in slices sized by the measured speed."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundls.answer.model.model_files import write_atomic
from groundls.answer.model.rates import remember_rate
from groundls.cache import models_dir

log = logging.getLogger("groundls.answer")


@dataclass
class GenerationStats:
    prompt_tokens: int = 0
    reused_tokens: int = 0
    prefill_ms: float = 0.0
    generated_tokens: int = 0
    generate_ms: float = 0.0
    load_ms: float = 0.0
    stop_reason: str = ""  # "stop" | "length" | "cancel" | "time" | "loop"
    #: threads reading the prompt and writing (see groundls.cpu.model_threads); 0: not set
    threads_batch: int = 0
    threads_decode: int = 0


def stop_reason(cancel: threading.Event | None, deadline: float | None) -> str:
    """Why a streamed reply stops now: "cancel", "time", or "" to go on."""
    if cancel is not None and cancel.is_set():
        return "cancel"
    if deadline is not None and time.monotonic() > deadline:
        return "time"
    return ""


def _common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens two token lists share."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class PromptPrefix:
    """The prompt a model has read, kept: the fixed part of a prompt evaluated once and its state saved to disk, restored for each question, so only what differs is read; the prompt read in slices sized by the measured speed."""

    def _fixed_prefix(self, messages: list[dict[str, str]], tokens: list[int]) -> int:
        """How many leading prompt tokens come before the last message's content: the system
        prompt and chat markup, the same for every question in one language."""
        if len(messages) < 2:
            return 0
        prompt, add_bos = self._formatter(messages)
        cut = prompt.rfind(messages[-1]["content"])
        if cut <= 0:
            return 0
        head = self._llm.tokenize(prompt[:cut].encode("utf-8"), add_bos=add_bos, special=True)
        # the last token of the head may merge differently with what follows: leave it out
        return max(0, _common_prefix(head, tokens) - 1)

    def _prefill(
        self,
        llm: Any,
        tokens: list[int],
        prefix: int,
        cancel: threading.Event | None,
        deadline: float | None,
        stats: GenerationStats,
    ) -> bool:
        """Evaluate all but the last prompt token, re-using the cached prefix (or a saved fixed
        prefix, see ``_prefixes``); False if stopped."""
        common = _common_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens[:-1])
        if common < llm.n_tokens:
            if common == 0 or not llm._ctx.kv_cache_seq_rm(-1, common, -1):
                llm.reset()
                common = 0
            llm.n_tokens = common
        key = tuple(tokens[:prefix])
        if common < prefix and self._known_prefix(key) and self._restore(llm, key):
            common = prefix
        stats.reused_tokens = common
        end = len(tokens) - 1

        def stop() -> bool:
            if cancel is not None and cancel.is_set():
                stats.stop_reason = "cancel"
                return True
            if deadline is not None and time.monotonic() > deadline:
                stats.stop_reason = "time"
                return True
            return False

        # the fixed prefix first (its state is kept for later prompts), then the rest
        segments = [(common, prefix), (prefix, end)] if common < prefix < end else [(common, end)]

        def keep_prefix() -> None:
            # the context holds exactly the fixed prefix: keep its state for later prompts
            if prefix and llm.n_tokens == prefix and key not in self._prefixes:
                self._save(llm, key)

        with self._abort.watching(stop):
            for start, stop_at in segments:
                if stop():
                    return False
                keep_prefix()
                t0 = time.perf_counter()
                try:
                    llm.eval(tokens[start:stop_at])
                except RuntimeError:
                    if stats.stop_reason in ("cancel", "time"):
                        return False  # aborted by ``stop``; the next eval drops the partial state
                    raise
                self._observe(stop_at - start, time.perf_counter() - t0)
            keep_prefix()
        return True

    def _observe(self, tokens: int, seconds: float) -> None:
        """Remember how fast this machine reads prompts (AnswerService sizes excerpts by it)."""
        if tokens >= 32 and seconds > 0:
            rate = tokens / seconds
            old = self.prefill_rate
            self.prefill_rate = rate if old is None else (old + rate) / 2
            remember_rate(self._rate_key, self.prefill_rate)

    def _save(self, llm: Any, key: tuple[int, ...]) -> None:
        """Keep the KV state of the tokens read so far (exactly ``key``) for later prompts."""
        import ctypes

        import llama_cpp

        if len(self._prefixes) >= 8:
            return
        ctx = llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buf = (ctypes.c_uint8 * size)()
        n = llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0)
        if not n:
            return
        self._prefixes[key] = data = bytes(buf[:n])
        write_atomic(self._prefix_file(key), data)

    def _prefix_file(self, key: tuple[int, ...]) -> Path:
        """Where a prefix's state is kept between runs: by model, llama.cpp build, machine,
        context size and the prefix's tokens (a changed prompt or build never matches)."""
        digest = hashlib.sha256(
            f"{self._rate_key}|{self.n_ctx}|{','.join(map(str, key))}".encode()
        ).hexdigest()[:32]
        return models_dir() / "prefixes" / f"{digest}.kv"

    def _known_prefix(self, key: tuple[int, ...]) -> bool:
        """Whether the state of this prefix was saved, in this run or an earlier one."""
        if key in self._prefixes:
            return True
        with contextlib.suppress(OSError):
            self._prefixes[key] = self._prefix_file(key).read_bytes()
            return True
        return False

    def _restore(self, llm: Any, key: tuple[int, ...]) -> bool:
        """Put a saved prefix back in place of whatever the context holds."""
        import ctypes

        import llama_cpp

        data = self._prefixes[key]
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if not llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buf, len(data), 0):
            del self._prefixes[key]
            with contextlib.suppress(OSError):
                self._prefix_file(key).unlink()
            llm.reset()
            return False
        llm.input_ids[: len(key)] = key
        llm.n_tokens = len(key)
        return True
