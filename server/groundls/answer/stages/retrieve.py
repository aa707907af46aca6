"""The retrieve stage of an answer: the question as asked, checked; what the answer is written
from; and how many excerpt tokens the model can read in the time it has."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from groundls.answer.stages.focus import TokenCounter
from groundls.answer.stages.prompt import Language, Prompt
from groundls.answer.stages.verdict import Evidence
from groundls.chunkers.textrules import estimate_llm_tokens
from groundls.config import ANSWER_DETAILS, AnswerConfig
from groundls.index.files.documents.base import unsure_place
from groundls.results import MAX_ASK_K, AnswerError, Hit, SearchFilters, SearchResult

MAX_QUESTION_CHARS = 2000

#: Files that hold data for tools, not answers for people: lock files and checksums (read only
#: when the question names them).
_TOOL_DATA = re.compile(
    r"(\.lock|-lock\.(json|ya?ml)|^go\.sum|^npm-shrinkwrap\.json|\.svg|\.min\.(js|css))$", re.I
)
#: Build files: how a project is built, which answers only a question about building it.
_BUILD = re.compile(
    r"^(makefile|gnumakefile|.+\.mk|make\.bat|cmakelists\.txt|.+\.cmake|meson\.build|build\.ninja)$",
    re.I,
)
_TOKEN = re.compile(r"\S+")
_WORD = re.compile(r"[^\W\d_]{3}|[\u3040-\u9fff]")
_QUESTION_WORD = re.compile(r"[a-z0-9]{3,}")
#: A passage whose tokens are words this rarely is data (an SVG path's coordinates, a table of
#: numbers, an encoded blob), however it was named.
DATA_WORD_SHARE = 0.2


def carries_answer(hit: Hit, question: str) -> bool:
    """Whether ``hit`` can be an answer's excerpt: not a lock file, vector picture or minified
    file, not a build file, not data (see ``DATA_WORD_SHARE``), unless the question names the
    file (``Makefile``, ``make``, ``package-lock``, ``svg``); never a scanned page OCR read
    with little confidence, whose words may be wrong."""
    name = PurePosixPath(hit.path).name.lower()
    if _names_file(question, name):
        return True
    if _TOOL_DATA.search(name) or _BUILD.match(name) or unsure_place(hit.place):
        return False
    if hit.kind == "code":  # code is read by its own rules, not words
        return True
    tokens = _TOKEN.findall(hit.text)
    if len(tokens) < 20:
        return True
    words = sum(1 for t in tokens if _WORD.search(t))  # a word, a name, Japanese text
    return words / len(tokens) >= DATA_WORD_SHARE


def _names_file(question: str, name: str) -> bool:
    """Whether a word of the question begins the file's name or is its extension."""
    stem, _, extension = name.partition(".")
    words = set(_QUESTION_WORD.findall(question.lower()))
    return any(stem.startswith(w) for w in words) or extension in words


#: The excerpts are never cut below this many tokens to start sooner: the lines that hold an
#: answer must fit (see ``context_budget``). It binds where the search took its time first
#: (a question's English rewrite) ...
MIN_CONTEXT_TOKENS = 180
#: ... and a machine whose prompt-reading speed is not measured yet starts with this many.
FIRST_CONTEXT_TOKENS = 400


def context_budget(
    config: AnswerConfig,
    model: Any,
    prompt: Prompt,
    *,
    spent_s: float = 0.0,
    count: TokenCounter = estimate_llm_tokens,
) -> int:
    """Excerpt tokens for this question: what the model reads on this machine (its measured
    prompt-reading speed) in what is left of ``first_token_s`` once the search has taken
    ``spent_s`` and the rest of the prompt (question, headings, reminder) is read; between
    ``MIN_CONTEXT_TOKENS`` and ``context_tokens``. Before any speed is known,
    ``FIRST_CONTEXT_TOKENS``. The in-process model reads the system prompt once and keeps
    its state, so it is not counted; a model server's speed is measured over the whole
    prompt (``reads_whole_prompt``), so the system prompt is counted against it too."""
    cap = config.context_tokens
    target = config.first_token_s
    if target <= 0 or model is None:
        return cap
    rate = getattr(model, "prefill_rate", None)
    if not rate:
        return min(cap, FIRST_CONTEXT_TOKENS)
    rest = prompt.frame_tokens(count, with_system=getattr(model, "reads_whole_prompt", False))
    fit = int(rate * max(0.0, target - spent_s)) - rest
    return max(min(cap, MIN_CONTEXT_TOKENS), min(cap, fit))


@dataclass(frozen=True)
class Asked:
    """A question as asked, checked."""

    question: str
    filters: SearchFilters
    thread: int | None
    detail: str

    @classmethod
    def checked(
        cls, question: Any, filters: SearchFilters | None, thread: int | None, detail: str
    ) -> Asked:
        if not isinstance(question, str) or not question.strip():
            raise AnswerError("the question is empty")
        if detail not in ANSWER_DETAILS:
            raise AnswerError(f"detail must be one of {', '.join(ANSWER_DETAILS)}")
        question = question.strip()
        if len(question) > MAX_QUESTION_CHARS:
            raise AnswerError(f"the question is too long (over {MAX_QUESTION_CHARS} characters)")
        filters = filters or SearchFilters()
        k = filters.k
        if k is not None and (
            not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > MAX_ASK_K
        ):
            raise AnswerError(f"k must be an integer from 1 to {MAX_ASK_K}")
        return cls(question, filters, thread, detail)


@dataclass
class Retrieved:
    """What the answer is written from."""

    #: the question as the model reads it (in context, when it follows up an earlier turn)
    question: str
    #: what was searched ("" = the question as asked)
    searched: str
    language: Language
    detail: str
    #: the answer's prompt, built once
    prompt: Prompt
    found: SearchResult
    #: the hits that can hold an answer: the excerpts, or where a "not found" says to look
    hits: list[Hit]
    #: the model still loading
    loading: threading.Thread | None
    #: what the search found out about whether the workspace answers (see ``verdict``)
    evidence: Evidence
    timing: dict[str, float | None] = field(default_factory=dict)
