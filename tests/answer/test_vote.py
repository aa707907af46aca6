"""The model's vote that its excerpts answer, read on the workspace's own scale: against its
votes on the off-topic pool's questions asked of the same workspace in the same language."""

from __future__ import annotations

import itertools

import pytest

from groundls.answer.stages import vote
from groundls.answer.stages.verdict import Evidence, decide
from groundls.answer.stages.vote import MIN_POOL, PoolVotes, VoteStanding


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GROUNDLS_CACHE_DIR", str(tmp_path / "cache"))


def _taken(votes: PoolVotes, language: str, values: list[float]) -> int:
    given = iter(values)
    return votes.calibrate("model", language, lambda _question: next(given))


class _Voting:
    """A model whose vote (log P(yes) - log P(no)) on any prompt is ``value``."""

    def __init__(self, name: str, value: float) -> None:
        self.name, self.value, self.asked = name, value, 0

    def next_token_logprobs(self, messages, lead, choices, *, cancel=None, deadline=None):
        self.asked += 1
        return [0.0, -self.value]


def test_a_vote_is_read_as_its_percentile_among_the_pools_votes_in_its_language():
    votes = PoolVotes("/ws", lambda: 1000)
    model = _Voting("model", 4.5)
    assert votes.read(model, [], "en") is None  # nothing taken yet
    assert model.asked == 0  # so the model is not asked
    assert _taken(votes, "en", [float(i) for i in range(20)]) == 20
    standing = votes.read(model, [], "en")
    assert standing == VoteStanding(percentile=0.25, vote=4.5, pool=20)
    assert votes.read(model, [], "ja") is None  # another language: its own pool
    assert votes.read(_Voting("other-model", 4.5), [], "en") is None  # another model: its own votes


def test_the_pools_votes_are_kept_until_the_workspace_doubles_or_halves():
    size = [1000]
    votes = PoolVotes("/ws", lambda: size[0])
    _taken(votes, "en", [0.0] * 20)
    assert PoolVotes("/ws", lambda: 1000).taken("model", "en")  # a new process reads them
    assert not PoolVotes("/other", lambda: 1000).taken("model", "en")
    size[0] = 2100
    assert not votes.taken("model", "en")


def test_too_few_votes_are_not_kept():
    votes = PoolVotes("/ws", lambda: 10)
    values = itertools.chain([1.0] * (MIN_POOL - 1), itertools.repeat(None))
    assert votes.calibrate("model", "en", lambda _q: next(values)) == MIN_POOL - 1
    assert not votes.taken("model", "en")


def test_the_vote_is_yes_over_no_in_the_questions_language():
    class Model:
        name = "m"
        leads: list[str] = []

        def next_token_logprobs(self, messages, lead, choices, *, cancel=None, deadline=None):
            self.leads.append(lead)
            return [-0.5, -2.0] if choices[0] in ("Yes", "はい") else None

    model = Model()
    assert vote.vote(model, [], "en") == pytest.approx(1.5)
    assert vote.vote(model, [], "ja") == pytest.approx(1.5)
    assert model.leads == [vote.LEAD["en"], vote.LEAD["ja"]]
    assert vote.vote(object(), [], "en") is None  # a model without probabilities


def test_a_vote_below_the_median_off_topic_one_is_not_found_unless_the_search_is_sure():
    low = VoteStanding(percentile=0.3, vote=0.8, pool=20)
    verdict = decide(Evidence("medium", coverage=1.0, vote=low))
    assert (verdict.outcome, verdict.decided_by) == ("not_found", "model")
    assert "off-topic" in verdict.why
    assert decide(Evidence("high", coverage=1.0, vote=low)).outcome == "read"
    high = VoteStanding(percentile=0.8, vote=2.5, pool=20)
    assert decide(Evidence("medium", coverage=1.0, vote=high)).outcome == "read"
