"""List weights learned from the workspace's own questions (groundls.search.calibration)."""

from __future__ import annotations

import json

import pytest

from groundls.config import Config
from groundls.search import calibration as cal
from groundls.search.fusion import RankedList
from groundls.search.query import analyse
from groundls.workspace import Workspace


def test_a_list_split_by_passage_language_counts_as_the_list_it_was_split_from():
    assert cal.family("keyword:ja") == "keyword"
    assert cal.family("vector:use:sentences:en") == "vector:use:sentences"
    assert cal.family("vector:e5") == "vector:e5"
    assert cal.family("keyword:english") == "keyword:english"


def test_bare_symbols_keep_the_default_weights_and_questions_are_kinded_by_script():
    assert cal.question_kind(analyse("Context.invoke")) is None
    assert cal.question_kind(analyse("パッケージに署名するには？")) == "ja"
    assert cal.question_kind(analyse("how do I sign a package?")) == "en"


def test_the_best_list_keeps_its_weight_and_one_that_never_found_a_source_keeps_the_floor():
    skill = {"vector:e5": 0.8, "keyword": 0.4, "vector:static:english": 0.0}
    assert cal.multipliers_for(skill, 1.0) == {
        "vector:e5": 1.0,
        "keyword": 0.5,
        "vector:static:english": cal.FLOOR,
    }
    assert cal.multipliers_for(skill, 2.0)["keyword"] == pytest.approx(0.25)
    assert set(cal.multipliers_for(skill, 0.0).values()) == {1.0}
    assert set(cal.multipliers_for({"a": 0.0}, 1.0).values()) == {1.0}


def test_a_reply_is_a_question_only_in_the_language_asked_for_and_of_a_questions_length():
    assert (
        cal.clean_question("質問: 署名の鍵はどう指定する？\n説明…", "ja")
        == "署名の鍵はどう指定する？"
    )
    assert cal.clean_question("How do I pick the signing key?", "ja") is None
    assert cal.clean_question("署名の鍵はどう指定する？", "en") is None
    assert cal.clean_question("Why?", "en") is None
    assert cal.clean_question("x" * 300, "en") is None


def test_every_workspace_is_asked_about_in_japanese_and_english():
    assert cal.workspace_kinds([(1, "an English paragraph")]) == ["ja", "en"]
    assert cal.workspace_kinds([]) == []


def _rows(n: int) -> list[tuple[int, str]]:
    return [(i, f"passage {i} " + "words " * 40) for i in range(1, n + 1)]


def _probe_where_only_one_list_finds_the_source(sources: dict[str, int]):
    """A probe over two lists: ``vector:e5`` ranks the source first, ``keyword`` puts four other
    chunks before it; ranking under multipliers is weighted fusion of the two."""

    def probe(question: str):
        source = sources[question]
        others = [r for r in range(1000, 1004)]
        lists = [
            RankedList("vector:e5", 1.0, [source, *others]),
            RankedList("keyword:ja", 2.0, [*others, source]),
        ]

        def rerank(multipliers: dict[str, float]) -> list[int]:
            scores: dict[int, float] = {}
            for ranked in cal.weigh(lists, multipliers):
                for rank, r in enumerate(ranked.ids, start=1):
                    scores[r] = scores.get(r, 0.0) + ranked.weight / (5 + rank)
            return sorted(scores, key=scores.__getitem__, reverse=True)

        return lists, rerank

    return probe


def test_calibration_weighs_each_list_by_how_well_it_found_the_chunks_questions_were_written_from():
    sources: dict[str, int] = {}

    def write(passage: str, kind: str, cancel) -> str:
        rowid = int(passage.split()[1])
        question = f"質問{rowid}はどういう意味ですか？"
        sources[question] = rowid
        return question

    calibrator = cal.Calibrator(
        _rows(60), ["ja"], write, _probe_where_only_one_list_finds_the_source(sources)
    )
    while not calibrator.finished:
        calibrator.step()
    result = calibrator.result(60, ["use", "e5"], "model")
    assert result.questions["ja"] == cal.PER_KIND
    assert result.skill["ja"]["vector:e5"] == 1.0
    assert result.skill["ja"]["keyword"] == pytest.approx(0.2)
    # the keyword list outvoted e5 under the default weights; the measured ones let e5 lead
    default, calibrated = result.mrr["ja"]
    assert default < 1.0 and calibrated == 1.0
    assert result.power["ja"] > 0
    assert result.multipliers["ja"]["vector:e5"] == 1.0
    assert result.multipliers["ja"]["keyword"] < 0.5


def test_a_kind_whose_questions_the_model_could_not_write_keeps_the_default_weights():
    calibrator = cal.Calibrator(_rows(60), ["ja"], lambda p, k, c: None, lambda q: None)
    while not calibrator.finished:
        calibrator.step()
    assert calibrator.failed == cal.PER_KIND
    assert calibrator.result(60, ["use"], "model").multipliers == {}


def test_a_stored_calibration_is_out_of_date_when_the_workspace_changed_a_lot():
    stored = cal.Calibration(multipliers={"ja": {"keyword": 0.5}}, chunks=400, spaces=("e5", "use"))
    again = cal.Calibration.from_json(stored.to_json())
    assert again == stored
    assert again.fresh(450, ["use", "e5"])
    assert not again.fresh(550, ["use", "e5"])  # grew by more than a quarter
    assert not again.fresh(400, ["use"])  # a space emptied (another model, a server down)
    older = json.loads(stored.to_json()) | {"version": cal.VERSION - 1}
    assert cal.Calibration.from_json(json.dumps(older)) is None
    assert cal.Calibration.from_json("not json") is None


@pytest.fixture
def workspace(search_ws, tmp_path, fake_embedders) -> Workspace:
    workspace = Workspace.open(search_ws, Config(), tmp_path / "index", embedders=fake_embedders)
    workspace.index()
    yield workspace
    workspace.close()


def test_explain_gives_each_hits_lists_and_signals_and_the_shares_add_up(workspace):
    result = workspace.search("where do we retry failed uploads?", explain=True)
    assert len(result.explanations) == len(result.hits) > 0
    for hit, why in zip(result.hits, result.explanations, strict=True):
        assert why.score == hit.score and why.weights == "default"
        assert why.lists and sum(p.share for p in why.lists) == pytest.approx(1.0, abs=0.01)
        product = why.fused
        for _, value in why.signals:
            product *= value
        assert product == pytest.approx(why.score, rel=1e-3)
    assert {p.name for p in result.explanations[0].lists} & {"keyword", "vector:static"}
    assert workspace.search("where do we retry failed uploads?").explanations == ()


def test_stored_weights_are_in_force_and_said_so_until_the_workspace_changes_a_lot(workspace):
    question = "where do we retry failed uploads?"
    before = workspace.search(question, explain=True).explanations[0]
    keyword = next(p for p in before.lists if p.name == "keyword")
    table = cal.Calibration(
        multipliers={"en": {"keyword": 0.25}},
        chunks=workspace.store.chunk_count(),
        spaces=tuple(workspace._filled_spaces()),
    )
    workspace.store.save_meta(cal.META_KEY, table.to_json())
    workspace._calibration = ("", None, False)
    assert workspace.calibration_status()["state"] == "calibrated"
    after = workspace.search(question, explain=True).explanations
    assert {why.weights for why in after} == {"calibrated"}
    weights = {p.name: p.weight for why in after for p in why.lists}
    assert weights["keyword"] == pytest.approx(keyword.weight * 0.25)
    # a bare name keeps the default weights whatever the calibration says
    assert workspace.search("parse_bucket_url", explain=True).explanations[0].weights == "default"
    stale = cal.Calibration(
        multipliers={"en": {"keyword": 0.25}}, chunks=10_000, spaces=table.spaces
    )
    workspace.store.save_meta(cal.META_KEY, stale.to_json())
    workspace._calibration = ("", None, False)
    assert workspace.calibration_status()["state"] == "stale"
    assert workspace.search(question, explain=True).explanations[0].weights == "default"
