"""The search's confidence: which words a hit is expected to hold."""

from __future__ import annotations

from dataclasses import replace

from groundls.results import Hit
from groundls.search import searcher
from groundls.search.query import analyse

QUESTION = "起動時にカーネルが出したメッセージを後から確認する方法"
REWRITE = "how to read kernel messages after boot"


def _doc(text: str) -> Hit:
    return Hit("d" * 16, "ch03.html", 1, 9, "doc", "html", "section", "3.3", ("3.3",), text)


def _confidence(hit: Hit) -> tuple[str, str]:
    asked = analyse(QUESTION)
    # the search goes on with the rewrite's words, the question's own text and script kept
    q = replace(analyse(REWRITE), text=asked.text, script=asked.script)
    return searcher._confidence(q, asked, 1, {1: hit}, {}, [], {})


def test_a_japanese_passage_is_judged_by_the_questions_own_japanese_words():
    passage = _doc(
        "起動時のカーネルのメッセージは dmesg で確認できる。メッセージの閾値も設定できる。"
    )
    assert _confidence(passage) == ("medium", "holds most query words")


def test_an_english_passage_is_judged_by_the_english_rewrites_words():
    english = _doc("Read the kernel messages of the last boot with dmesg.")
    assert _confidence(english) == ("medium", "holds most query words")
    assert _confidence(_doc("Fonts are rendered by fontconfig."))[0] == "low"
