"""A Japanese question as English search words, written by the local answer model.

Code and English docs share few words with a Japanese question, so keyword search finds nothing
and English-only vectors read it poorly. The packaged model turns such a question into a short
English query in one or two seconds (a one-sentence instruction, the question, a few dozen
tokens out). Small models sometimes reply in Chinese, echo the Japanese or explain instead, so
a reply is used only when it is a short line of Latin-script words; otherwise the search goes on
without it. Replies are cached by model and question, in memory and in the user cache (a new
process, or the editor restarted, does not ask the model again).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from groundls.answer.model import model_files
from groundls.answer.model.thinking import without_thinking
from groundls.cache import models_dir
from groundls.chunkers.textrules import has_hiragana, is_cjk, question_language

#: For a workspace that holds code: what a search finds there is its names.
INSTRUCTION = (
    "Rewrite the user's question about a software project as a short English search query: "
    "the technical words and likely function or class names only. Reply with the query only."
)
#: For a workspace of prose only (manuals, notes): the question's meaning in English words
#: first, which finds English sections a names-only query misses; a workspace that holds code
#: keeps the names-only query.
PROSE_INSTRUCTION = (
    "Rewrite the user's question about a software project as a short English search query: "
    "its meaning in plain English words, then the likely function, class or option names. "
    "Reply with the query only."
)
#: For a question in another language than Japanese or English (Chinese, Korean, German, French,
#: Spanish): its translation. Asked for "English search words", a small model often keeps such a
#: question in its own language; a translation it does reliably, and its meaning is what search
#: needs.
TRANSLATE_INSTRUCTION = (
    "Translate the user's question about a software project into English. Keep names of "
    "functions, options and commands as they are. Reply with the English question only."
)
#: For a question not in Japanese, in a workspace of Japanese prose: its translation, searched as
#: a Japanese question would be (the multilingual models read a question best in the passages'
#: own language, and the keyword index matches Japanese words only in Japanese).
JAPANESE_INSTRUCTION = (
    "Translate the user's question about a software project into natural Japanese. Keep names "
    "of functions, options, files and commands as they are. Reply with the Japanese question "
    "only."
)
MAX_TOKENS = 40
#: A Japanese translation takes more tokens than English words.
JAPANESE_MAX_TOKENS = 80
CACHE_SIZE = 512
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.]{2,}")
_NON_LATIN = re.compile(r"[^\x00-\x7f\u00c0-\u024f\u2018-\u201d]")
_LABEL = re.compile(r"^(?:english\s+)?(?:search\s+)?query\s*:\s*", re.IGNORECASE)


def clean_reply(reply: str, *, english: bool = False) -> str | None:
    """The reply as a query, or None when it is not a short line of Latin-script words
    (``english``: of English words, not German, French or Spanish ones)."""
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    if not lines:
        return None
    text = _LABEL.sub("", lines[0]).strip().strip("`\"'").strip()
    if not text or len(text) > 200 or is_cjk(text) or _NON_LATIN.search(text):
        return None
    if len(_LATIN_WORD.findall(text)) < 1:
        return None
    if english and question_language(text) != "en":
        return None
    return text


def clean_japanese(reply: str) -> str | None:
    """The reply as a Japanese question, or None when its first line is not a short line of
    Japanese (a small model sometimes answers instead, or writes Chinese without kana)."""
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    if not lines:
        return None
    text = lines[0].strip().strip("`\"'「」").strip()
    if not text or len(text) > 200 or not has_hiragana(text):
        return None
    return text


def first_line(pieces: Iterator[str]) -> str:
    """The generated text up to its first line break; generation stops there (a query is one
    line, and what a small model adds after it is explanation)."""
    text = ""
    try:
        for piece in pieces:
            text += piece
            if "\n" in text.lstrip():
                break
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
    return text


class QueryRewriter:
    """English search words for a question, from a model that may be absent or busy."""

    def __init__(self, path: Path | None = None) -> None:
        """``path``: a JSON file keeping the replies between processes (None: memory only)."""
        self._path = path
        self._kept: OrderedDict[str, str | None] | None = None  # read on the first question
        self._lock = threading.Lock()

    @property
    def _cache(self) -> OrderedDict[str, str | None]:
        """The kept replies, read from ``path`` the first time (called under the lock): a
        workspace that never rewrites a question never reads the file."""
        if self._kept is None:
            self._kept = OrderedDict(self._load())
        return self._kept

    def _load(self) -> dict[str, str | None]:
        if self._path is None:
            return {}
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self._path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                return {
                    k: v
                    for k, v in data.items()
                    if isinstance(k, str) and isinstance(v, str | None)
                }
        return {}

    def english(
        self,
        model: Any,
        question: str,
        cancel: threading.Event | None = None,
        *,
        prose: bool = False,
        translate: bool = False,
    ) -> str | None:
        """The question as English search words, or None (no model, busy, cancelled, or an
        unusable reply). ``prose``: the workspace holds no code (see ``PROSE_INSTRUCTION``);
        ``translate``: a question in another language than Japanese, translated (see
        ``TRANSLATE_INSTRUCTION``).

        A model busy answering another question is not waited for: the search goes on. One
        that is being loaded (a new process's first question) is: the answer waits for it too.
        ``cancel`` stops the generation; a cut reply is not kept."""
        if translate:
            instruction = TRANSLATE_INSTRUCTION
        else:
            instruction = PROSE_INSTRUCTION if prose else INSTRUCTION
        return self._reply(
            model,
            question,
            instruction,
            lambda reply: clean_reply(reply, english=translate),
            MAX_TOKENS,
            cancel,
        )

    def japanese(
        self, model: Any, question: str, cancel: threading.Event | None = None
    ) -> str | None:
        """The question translated into Japanese (see ``JAPANESE_INSTRUCTION``), or None, as
        :meth:`english`."""
        return self._reply(
            model, question, JAPANESE_INSTRUCTION, clean_japanese, JAPANESE_MAX_TOKENS, cancel
        )

    def _reply(
        self,
        model: Any,
        question: str,
        instruction: str,
        clean: Callable[[str], str | None],
        max_tokens: int,
        cancel: threading.Event | None,
    ) -> str | None:
        """The model's cleaned one-line reply to ``instruction`` and ``question``, cached."""
        if model is None:
            return None
        key = _key(model, question, instruction)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        if getattr(model, "busy", False) and not getattr(model, "loading", False):
            return None  # another answer holds it; one being loaded is waited for
        messages = [
            {"role": "system", "content": instruction},
            {"role": "user", "content": question},
        ]
        try:
            reply = first_line(
                without_thinking(
                    model.stream(messages, max_tokens=max_tokens, temperature=0.0, cancel=cancel)
                )
            )
        except Exception:  # a broken model must not break search
            return None
        if cancel is not None and cancel.is_set():
            return None
        query = clean(reply)
        with self._lock:
            self._cache[key] = query
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
            if self._path is not None:
                text = json.dumps(self._cache, ensure_ascii=False, indent=0)
                model_files.write_atomic(self._path, text.encode("utf-8"))
        return query


def _key(model: Any, question: str, instruction: str) -> str:
    """A reply depends on the model and the instruction as well as on the question."""
    who = f"{getattr(model, 'name', '')}\x00{instruction}".encode()
    return hashlib.sha256(who).hexdigest()[:12] + " " + question


class Translations:
    """What the search asks of the answer model: a question as English search words, or as
    Japanese. ``model`` returns the model or None (see
    :class:`~groundls.answer.model.slot.ModelSlot`)."""

    def __init__(self, model: Callable[[], Any], rewriter: QueryRewriter | None = None) -> None:
        """``rewriter``: where the replies are kept (default: the model cache's rewrites.json)."""
        self.model = model
        self.rewriter = rewriter or QueryRewriter(models_dir() / "rewrites.json")

    def english(
        self, question: str, cancel: threading.Event | None = None, *, prose: bool = False
    ) -> str | None:
        """The question as English search words (``prose``: the workspace holds no code). A
        question in another language than Japanese is translated."""
        translate = question_language(question) not in ("en", "ja")
        return self.rewriter.english(
            self.model(), question, cancel, prose=prose, translate=translate
        )

    def japanese(self, question: str, cancel: threading.Event | None = None) -> str | None:
        """The question translated into Japanese."""
        return self.rewriter.japanese(self.model(), question, cancel)
