"""Why a hit ranks where it does (``--explain``), and the keyword lists' weight per question."""

from __future__ import annotations

import pytest

from groundls.workspace import Workspace


def test_explain_gives_each_hits_lists_and_signals_and_they_make_its_score(indexed_search_ws):
    result = indexed_search_ws.search("where do we retry failed uploads?", explain=True)
    assert len(result.explanations) == len(result.hits) > 0
    for hit, why in zip(result.hits, result.explanations, strict=True):
        assert why.score == hit.score
        assert why.lists and sum(p.share for p in why.lists) == pytest.approx(1.0, abs=0.01)
        assert all(p.rank >= 1 and p.weight > 0 for p in why.lists)
        product = why.fused
        for _, value in why.signals:
            product *= value
        assert product == pytest.approx(why.score, rel=1e-3)
    assert {p.name for p in result.explanations[0].lists} & {"keyword", "vector:static"}
    assert indexed_search_ws.search("where do we retry failed uploads?").explanations == ()


def _keyword_weight(indexed_search_ws: Workspace, question: str) -> float:
    whys = indexed_search_ws.search(question, explain=True).explanations
    weights = {p.weight for why in whys for p in why.lists if p.name == "keyword"}
    assert len(weights) == 1, weights
    return weights.pop()


def test_a_japanese_questions_keyword_list_counts_as_much_as_the_share_its_best_hits_hold(
    indexed_search_ws,
):
    full = indexed_search_ws.config.search.keyword_weight
    # every content bigram of this question is in the section on changing the log level
    assert _keyword_weight(indexed_search_ws, "ログレベルの変更") == pytest.approx(full)
    # here half the question is about nothing in the indexed_search_ws: the list counts for less
    partial = _keyword_weight(indexed_search_ws, "ログレベルの変更と宇宙船燃料補給")
    assert 0 < partial < full
    # an English passage could hold only the Latin words of a Japanese question: it holds them
    assert _keyword_weight(indexed_search_ws, "upload の再試行の仕組み") == pytest.approx(full)
    # an English question's words are whole words: its keyword list keeps its weight
    assert _keyword_weight(indexed_search_ws, "upload zebra quantum marmalade") == pytest.approx(
        full
    )


def test_status_names_the_list_weights_in_force_and_what_moves_them(indexed_search_ws):
    ranking = indexed_search_ws.ranking()
    assert ranking["english"]["keyword"] == indexed_search_ws.config.search.keyword_weight
    assert "vector:static" in ranking["english"]
    assert any("keyword list" in rule for rule in ranking["per_question"])


def _english_lists(ws: Workspace, question: str) -> dict[str, float]:
    whys = ws.search(question, explain=True).explanations
    return {p.name: p.weight for why in whys for p in why.lists if p.name.endswith(":english")}


def test_once_minilm_is_filled_the_rewrites_minilm_list_takes_the_static_lists_vote(
    search_ws, tmp_path, fake_embedders
):
    from tests.helpers.fakes import FakeEmbedder

    embedders = {**fake_embedders, "minilm": FakeEmbedder("fake-minilm", 64)}
    ws = Workspace.open(search_ws, index_dir=tmp_path / "index", embedders=embedders)
    try:
        ws.index()
        # a Japanese question, written as English words by the answer model
        ws.searcher.rewrite = lambda text, cancel: "retry failed uploads"
        question = "アップロードの再試行はどこ？"
        weight = ws.config.search.vector_weight
        # the deep tier not filled yet: the static model stands in for MiniLM
        assert _english_lists(ws, question).get("vector:static:english") == weight
        while ws.fill_deep(1000):
            pass
        lists = _english_lists(ws, question)
        assert "vector:static:english" not in lists
        assert lists["vector:minilm:english"] == pytest.approx(2 * weight)
        assert any("static list's vote" in rule for rule in ws.ranking()["per_question"])
    finally:
        ws.close()
