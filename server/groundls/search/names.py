"""Whether the workspace writes the names a question writes (:func:`question_names`).

A name cannot be put another way: a workspace that never writes ``QUIC`` does not say how to use
it. A name counts as written joined or apart (``macOS`` as ``Mac OS``, :func:`name_forms`), in
any case: the keyword index reads no case, and a manual may write "user id" for ``ID``."""

from __future__ import annotations

from groundls.index.storage.store import Store
from groundls.index.storage.terms import index_terms, match_expression
from groundls.search.query import Query, name_forms, question_names


def absent_names(store: Store, asked: Query) -> tuple[list[str], tuple[str, ...]]:
    """The names a question writes and those of them the workspace never mentions; read as
    asked: a translation may spell a name another way."""
    names = question_names(asked.text, asked.language)
    return names, tuple(n for n in names if not mentions(store, n))


def mentions(store: Store, name: str) -> bool:
    """Whether the workspace writes ``name``, joined or apart."""
    return any(store.terms_present([phrase(form)]) for form in name_forms(name))


def phrase(word: str) -> str:
    """An FTS5 phrase matching ``word`` as the index stores it (a katakana word as its run of
    bigrams, in order)."""
    return match_expression([index_terms(word)])
