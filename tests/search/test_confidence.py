"""The search's confidence: which words a hit is expected to hold."""

from __future__ import annotations

from dataclasses import replace

from groundls.results import Hit
from groundls.search import confidence
from groundls.search.query import analyse

QUESTION = "起動時にカーネルが出したメッセージを後から確認する方法"
REWRITE = "how to read kernel messages after boot"


def _doc(text: str) -> Hit:
    return Hit("d" * 16, "ch03.html", 1, 9, "doc", "html", "section", "3.3", ("3.3",), text)


def _confidence(hit: Hit, rarity: dict[str, float] | None = None) -> tuple[str, str]:
    """The confidence of ``hit`` as the top hit; each word it could hold weighs ``rarity`` (1.0
    when not given)."""
    asked = analyse(QUESTION)
    # the search goes on with the rewrite's words, the question's own text and script kept
    q = replace(analyse(REWRITE), text=asked.text, script=asked.script)
    words = confidence.words_it_can_hold(hit, q, asked)
    return confidence.confidence(q, 1, {1: hit}, {}, [], {}, words, rarity or {})


def test_a_japanese_passage_is_judged_by_the_questions_own_japanese_words():
    passage = _doc(
        "起動時のカーネルのメッセージは dmesg で確認できる。メッセージの閾値も設定できる。"
    )
    assert _confidence(passage) == ("medium", "holds most query words")


def test_an_english_passage_is_judged_by_the_english_rewrites_words():
    english = _doc("Read the kernel messages of the last boot with dmesg.")
    assert _confidence(english) == ("medium", "holds most query words")
    assert _confidence(_doc("Fonts are rendered by fontconfig."))[0] == "low"


def test_common_bigrams_are_little_evidence_that_a_japanese_passage_holds_the_question():
    # メッセージ, 確認 and 方法 are in most chunks of a manual, 起動 and カーネル in few. Counted
    # alike, the first passage holds most of the question's bigrams; weighed, little of them
    common = _doc("メッセージを確認する方法。")
    assert _confidence(common) == ("medium", "holds most query words")
    rarity = dict.fromkeys(["メッ", "ッセ", "セー", "ージ", "確認", "方法"], 0.1)
    rarity |= dict.fromkeys(["起動", "動時", "カー", "ーネ", "ネル"], 2.0)
    assert _confidence(common, rarity) == ("low", "nearest match only")
    rare = _doc("起動時のカーネル。")
    assert _confidence(rare) == ("low", "nearest match only")
    assert _confidence(rare, rarity) == ("medium", "holds most query words")
