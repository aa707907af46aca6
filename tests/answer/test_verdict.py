"""One decision, from all the evidence: does the workspace answer the question?"""

from __future__ import annotations

from dataclasses import replace

from groundls.answer.stages.verdict import Evidence, decide
from groundls.search.offtopic import Standing

NEAR = Standing(0.9, {"e5": 0.9}, 40, "en")
FAR = Standing(0.1, {"e5": 0.6}, 40, "en")


def test_an_unsure_search_is_not_found_before_reading_on_the_searchs_or_the_pools_evidence():
    assert decide(Evidence("low", coverage=0.3, standing=NEAR)).decided_by == "search"
    assert decide(Evidence("low", coverage=1.0, standing=FAR)).decided_by == "standing"
    assert decide(Evidence("low", coverage=1.0, standing=NEAR, model=False)).outcome == "not_found"
    assert decide(Evidence("low", coverage=1.0, standing=NEAR)).outcome == "read"
    assert decide(Evidence("none")).outcome == "not_found"


def test_a_sure_search_is_read_whatever_its_standing():
    assert decide(Evidence("high", coverage=0.2, standing=FAR)).outcome == "read"
    assert decide(Evidence("medium", model=False)).outcome == "key_lines"


def test_an_answer_that_cannot_stand_is_key_lines_only_over_a_sure_search():
    after = Evidence("low", coverage=1.0, standing=NEAR, read="found", cannot_stand="uncited")
    assert (decide(after).outcome, decide(after).decided_by) == ("not_found", "check")
    assert decide(replace(after, confidence="medium")).outcome == "not_found"
    assert decide(replace(after, confidence="high")).outcome == "key_lines"
    assert decide(replace(after, cannot_stand="")).outcome == "answer"
    assert decide(replace(after, read="not_found", cannot_stand="")).decided_by == "model"


def test_the_verdict_shows_the_evidence_that_decided():
    shown = decide(Evidence("low", "nearest match only", coverage=1.0, standing=FAR)).as_dict()
    assert shown["outcome"] == "not_found" and shown["decided_by"] == "standing"
    assert shown["evidence"]["standing"]["percentile"] == 0.1
    assert shown["evidence"]["coverage"] == 1.0 and "10%" in shown["why"]


def test_a_search_whose_hits_can_hold_no_answer_is_not_found_whatever_its_confidence():
    # every hit a lock file, a picture, a build file or data (retrieve.carries_answer)
    verdict = decide(Evidence("high", places=0, coverage=1.0, standing=NEAR))
    assert (verdict.outcome, verdict.decided_by) == ("not_found", "search")


def test_a_question_naming_something_the_workspace_never_mentions_is_not_found_at_once():
    evidence = Evidence("low", "names what the workspace never mentions: QUIC", coverage=1.0)
    verdict = decide(replace(evidence, standing=NEAR, absent_names=("QUIC",)))
    assert (verdict.outcome, verdict.decided_by) == ("not_found", "search")
    assert verdict.why == "the workspace never mentions QUIC"
