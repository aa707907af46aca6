"""Choose, then answer: which excerpt answers the question, read from the prompt the model holds.

The model reads the answer's prompt (excerpts, question, reminder) and the first words of a
reply that names an excerpt; the next-token probability of each excerpt number is its choice.
Nothing is generated, and the prompt read stays in the model's cache for the answer itself.

The model favours ``[1]`` whatever is asked. That leaning is read once per language and number
of excerpts from a prompt that says nothing (each excerpt "N/A", the question "N/A": contextual
calibration), and a share of it is taken off each question's scores.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from groundls.answer.stages import prompt
from groundls.answer.stages.prompt import Excerpt
from groundls.answer.stages.retrieve import Retrieved
from groundls.answer.timing import ms_since

#: The first words of a reply that names the excerpt which answers.
LEAD = {"ja": "答えが書かれている抜粋は [", "en": "The excerpt that answers this is ["}
#: The share of the model's content-free leaning to each excerpt number taken off its scores.
#: All of it over-corrects: the first excerpt, when it holds the answer, is then seldom kept.
BIAS_SHARE = 0.1

_priors: dict[tuple[str, str, int], tuple[float, ...]] = {}
_priors_lock = threading.Lock()


@dataclass(frozen=True)
class Choice:
    """The excerpt the model chose (from 1) and what it was chosen by."""

    excerpt: int
    #: each excerpt number's log-probability after the lead, for this question
    scores: tuple[float, ...]
    #: the same for a prompt that asks nothing (the model's leaning to each number)
    prior: tuple[float, ...]


def _lead(language: str) -> str:
    """The lead in the question's language where one is written, else in English."""
    return LEAD.get(language, LEAD["en"])


def _numbers(n: int) -> list[str]:
    return [str(i) for i in range(1, n + 1)]


def _prior(
    model: Any, language: str, n: int, cancel: threading.Event | None, deadline: float | None
) -> tuple[float, ...] | None:
    """The model's leaning to each of ``n`` excerpt numbers when nothing is asked (read once per
    model, language and ``n``)."""
    key = (model.name, language, n)
    with _priors_lock:
        known = _priors.get(key)
    if known is not None:
        return known
    messages = prompt.content_free_messages(language, n)
    got = model.next_token_logprobs(
        messages, _lead(language), _numbers(n), cancel=cancel, deadline=deadline
    )
    if got is None:
        return None
    with _priors_lock:
        _priors[key] = tuple(got)
    return tuple(got)


def choose(
    model: Any,
    messages: list[dict[str, str]],
    language: str,
    n: int,
    *,
    cancel: threading.Event | None = None,
    deadline: float | None = None,
) -> Choice | None:
    """The excerpt of ``n`` that the model reads as the answer, once its leaning to each number
    is partly taken off. None: fewer than two excerpts, a model that gives no probabilities
    (a model server that returns no token log-probabilities), or stopped."""
    if n < 2 or not hasattr(model, "next_token_logprobs"):
        return None
    prior = _prior(model, language, n, cancel, deadline)
    if prior is None:
        return None
    scores = model.next_token_logprobs(
        messages, _lead(language), _numbers(n), cancel=cancel, deadline=deadline
    )
    if scores is None:
        return None
    adjusted = [s - BIAS_SHARE * p for s, p in zip(scores, prior, strict=True)]
    best = max(range(n), key=adjusted.__getitem__)
    return Choice(best + 1, tuple(scores), prior)


def choose_prompt(
    model: Any,
    got: Retrieved,
    excerpts: list[Excerpt],
    *,
    cancel: threading.Event | None = None,
    deadline: float | None = None,
) -> tuple[int | None, list[dict[str, str]]]:
    """The excerpt the model reads as the answer, from the prompt it then answers (the prompt
    read stays in its cache), and the prompt it writes from: a later excerpt is named to it."""
    messages = got.prompt.messages(excerpts)
    if got.prompt.style == "quote":  # the lines it picks name their excerpts: nothing to choose
        return None, messages
    chose = time.perf_counter()
    choice = choose(model, messages, got.language, len(excerpts), cancel=cancel, deadline=deadline)
    got.timing["choose_ms"] = ms_since(chose)
    chosen = choice.excerpt if choice is not None else None
    if chosen is not None and chosen > 1:
        messages = got.prompt.messages(excerpts, chosen)
    return chosen, messages
