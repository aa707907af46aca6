"""Sampling rules the runtime adds to llama.cpp's (no model needed)."""

from __future__ import annotations

import numpy as np

from groundls.answer.model.chat import _ban_at_start


def test_the_leading_bracket_ban_applies_to_the_first_generated_token_only():
    process = _ban_at_start(3, [1, 4])
    first = process(np.array([7, 8, 9]), np.zeros(6))
    assert list(first) == [0, -np.inf, 0, 0, -np.inf, 0]
    later = process(np.array([7, 8, 9, 2]), np.zeros(6))
    assert list(later) == [0.0] * 6


def test_the_ban_holds_while_the_reply_is_only_whitespace():
    process = _ban_at_start(3, [1, 4], blank=frozenset({5}))
    after_a_newline = process(np.array([7, 8, 9, 5]), np.zeros(6))
    assert list(after_a_newline) == [0, -np.inf, 0, 0, -np.inf, 0]
    after_a_word = process(np.array([7, 8, 9, 5, 2]), np.zeros(6))
    assert list(after_a_word) == [0.0] * 6


def test_lead_tokens_sort_the_vocabulary_by_how_each_token_begins():
    from groundls.answer.model.chat import LeadTokens

    pieces = [b" [", "［".encode(), b" Click", b"3", b"\n", b"  ", "ログ".encode(), b"", b"`x`"]
    leads = LeadTokens.of(pieces)
    assert leads.brackets == (0, 1) and leads.latins == (2, 3)
    assert leads.blanks == frozenset({4, 5})
