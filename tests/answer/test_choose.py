"""The choose step: which excerpt the model reads as the answer, its leaning to [1] partly off."""

from __future__ import annotations

from groundls.answer.stages import choose


class _Model:
    """Log-probabilities as a model would give them: ``leaning`` for a prompt that asks nothing
    (its excerpts "N/A"), ``scores`` for every other prompt."""

    name = "stub"

    def __init__(self, scores: list[float], leaning: list[float]) -> None:
        self.scores, self.leaning = scores, leaning
        self.asked: list[str] = []

    def next_token_logprobs(self, messages, lead, choices, *, cancel=None, deadline=None):
        assert [int(c) for c in choices] == list(range(1, len(choices) + 1))
        self.asked.append(messages[-1]["content"])
        return self.leaning if "[1] N/A" in messages[-1]["content"] else self.scores


def _messages() -> list[dict[str, str]]:
    return [{"role": "system", "content": "rules"}, {"role": "user", "content": "[1] a\n[2] b"}]


def setup_function() -> None:
    choose._priors.clear()


def test_the_excerpt_the_model_rates_highest_is_chosen():
    model = _Model([-3.0, -0.1], [-0.5, -1.0])
    got = choose.choose(model, _messages(), "en", 2)
    assert got is not None and got.excerpt == 2


def test_a_later_excerpt_wins_a_near_tie_once_the_leaning_to_the_first_is_taken_off():
    # the model rates [1] a little higher, but it rates [1] far higher whatever is asked
    model = _Model([-0.60, -0.65], [-0.01, -5.0])
    got = choose.choose(model, _messages(), "ja", 2)
    assert got is not None and got.excerpt == 2
    assert got.prior == (-0.01, -5.0)


def test_only_a_share_of_the_leaning_is_taken_off_so_a_clear_first_stays_first():
    model = _Model([-0.1, -2.5], [-0.01, -5.0])
    got = choose.choose(model, _messages(), "ja", 2)
    assert got is not None and got.excerpt == 1


def test_the_leaning_is_read_once_per_language_and_number_of_excerpts():
    model = _Model([-0.1, -2.5], [-0.01, -5.0])
    for _ in range(3):
        choose.choose(model, _messages(), "en", 2)
    assert sum("[1] N/A" in asked for asked in model.asked) == 1
    choose.choose(model, _messages(), "ja", 2)
    assert sum("[1] N/A" in asked for asked in model.asked) == 2


def test_nothing_is_chosen_from_one_excerpt_or_by_a_model_without_probabilities():
    assert choose.choose(_Model([-0.1], [-0.1]), _messages(), "en", 1) is None
    assert choose.choose(object(), _messages(), "en", 2) is None


def test_a_stopped_probe_chooses_nothing():
    class Stopped(_Model):
        def next_token_logprobs(self, *args, **kwargs):
            return None

    assert choose.choose(Stopped([], []), _messages(), "en", 2) is None
