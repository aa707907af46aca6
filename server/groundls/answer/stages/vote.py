"""The model's vote, on the workspace's own scale: does it read its excerpts as answering?

After the answer's prompt (kept in the model's cache for the answer itself) the model reads the
first words of a reply that says whether the excerpts answer the question, and the vote is its
log-probability of "Yes" over "No" (「はい」 over 「いいえ」). A small model's votes are ordered
within a workspace but mean different things in different workspaces and languages (BENCHMARKS,
41st), so a vote is read against the votes the same model gives the off-topic pool's questions
(:mod:`groundls.search.offtopic_pool`) asked of the same workspace in the same language: a
percentile, like the search's standing (:mod:`groundls.search.offtopic`).

The pool's votes cost the model a prompt each, so they are taken in the background once a
workspace has been asked something in a language (:meth:`PoolVotes.calibrate`), and kept in the
user cache by workspace, model and language until the workspace's size has doubled or halved.
Until then a question goes without this vote.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundls.answer.model.model_files import write_atomic
from groundls.cache import cache_dir
from groundls.search.offtopic import pool_language
from groundls.search.offtopic_pool import POOL

#: The first words of a reply that says whether the excerpts answer, and its two answers.
LEAD = {
    "ja": "抜粋に質問の答えが書かれているか: ",
    "en": "Do the excerpts answer the question? Answer: ",
}
CHOICES = {"ja": ("はい", "いいえ"), "en": ("Yes", "No")}
#: The pool's questions voted in each language (each costs the model one prompt).
POOL_VOTES = 20
#: A vote is read only once the pool has at least this many votes in its language.
MIN_POOL = 10
#: In the background, a pool question waits until no question was asked for this long: the
#: votes take the CPU a user's own questions need.
IDLE_S = 60.0


@dataclass(frozen=True)
class VoteStanding:
    """The model's vote on a question's excerpts, among the off-topic pool's in this workspace."""

    #: the share of the pool's votes lower than this one (0.0-1.0)
    percentile: float
    #: log P(yes) - log P(no)
    vote: float
    #: the pool's votes read (in the question's language)
    pool: int

    def as_dict(self) -> dict[str, object]:
        return {
            "percentile": round(self.percentile, 3),
            "vote": round(self.vote, 3),
            "pool": self.pool,
        }


def _among(pool: list[float], value: float) -> VoteStanding:
    """``value``'s standing among the ``pool``'s votes."""
    return VoteStanding(sum(p < value for p in pool) / len(pool), value, len(pool))


def _lead_language(language: str) -> str:
    """The question's language where the lead and its answers are written in it, else English."""
    return language if language in LEAD else "en"


def vote(
    model: Any,
    messages: list[dict[str, str]],
    language: str,
    *,
    cancel: threading.Event | None = None,
    deadline: float | None = None,
) -> float | None:
    """The model's vote that its excerpts answer (log P(yes) - log P(no)); None for a model
    that gives no probabilities, or stopped."""
    if not hasattr(model, "next_token_logprobs"):
        return None
    lead = _lead_language(language)
    got = model.next_token_logprobs(
        messages, LEAD[lead], list(CHOICES[lead]), cancel=cancel, deadline=deadline
    )
    return got[0] - got[1] if got else None


class PoolVotes:
    """The off-topic pool's votes in one workspace, by model and language."""

    def __init__(self, workspace_key: str, size: Callable[[], int]) -> None:
        self.workspace_key = workspace_key
        #: the workspace's chunks now (its votes are kept until that doubles or halves)
        self.size = size
        self.stop = threading.Event()
        #: when the workspace was last asked something (see ``IDLE_S``)
        self.asked_at = time.monotonic()
        self._lock = threading.Lock()
        self._busy: set[str] = set()

    def taken(self, model_name: str, language: str) -> bool:
        """Whether the pool's votes in ``language`` are kept for this workspace and model."""
        return bool(self._pool(model_name, language))

    def read(
        self,
        model: Any,
        messages: list[dict[str, str]],
        language: str,
        cancel: threading.Event | None = None,
        deadline: float | None = None,
    ) -> VoteStanding | None:
        """The model's vote on the answer's prompt ``messages``, among the pool's; None without
        the pool's votes or a vote."""
        pool = self._pool(getattr(model, "name", ""), language)
        if not pool:
            return None  # not taken yet: no need to ask
        value = vote(model, messages, language, cancel=cancel, deadline=deadline)
        return _among(pool, value) if value is not None else None

    def later(self, model_name: str, language: str, vote_of: Callable[[str], float | None]) -> None:
        """Take the pool's votes in ``language`` in the background if they are still to be
        taken (see :meth:`calibrate`)."""
        language = pool_language(language)
        with self._lock:
            if language in self._busy or self.taken(model_name, language):
                return
        args = (model_name, language, vote_of, True)
        threading.Thread(
            target=self.calibrate, args=args, daemon=True, name="groundls-votes"
        ).start()

    def calibrate(
        self,
        model_name: str,
        language: str,
        vote_of: Callable[[str], float | None],
        when_idle: bool = False,
    ) -> int:
        """Take the pool's votes in ``language`` with ``vote_of`` (a question's vote in this
        workspace, read as an answer reads it), keep them, and return how many were taken;
        ``when_idle``: each once nobody has asked anything for ``IDLE_S``."""
        language = pool_language(language)
        with self._lock:
            if language in self._busy:
                return 0
            self._busy.add(language)
        try:
            votes = []
            for question in POOL[language][:POOL_VOTES]:
                while when_idle and time.monotonic() - self.asked_at < IDLE_S:
                    self.stop.wait(1.0)
                if self.stop.is_set():
                    break
                value = vote_of(question)
                if value is not None and math.isfinite(value):
                    votes.append(round(value, 4))
            if len(votes) >= MIN_POOL:
                write_atomic(self._path(model_name, language), json.dumps(votes).encode())
            return len(votes)
        finally:
            with self._lock:
                self._busy.discard(language)

    def _path(self, model_name: str, language: str) -> Path:
        scale = int(math.log2(max(self.size(), 1)))
        key = f"{self.workspace_key}\0{model_name}\0{language}\0{scale}"
        name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        return cache_dir() / "votes" / f"{name}.json"

    def _pool(self, model_name: str, language: str) -> list[float]:
        """The pool's votes kept in ``language`` (any language: read as its pool's), or none
        while fewer than ``MIN_POOL`` are."""
        kept = self._kept(model_name, pool_language(language))
        return kept if len(kept) >= MIN_POOL else []

    def _kept(self, model_name: str, language: str) -> list[float]:
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self._path(model_name, language).read_text())
            if isinstance(data, list):
                return [float(v) for v in data if isinstance(v, (int, float))]
        return []
