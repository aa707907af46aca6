"""What ``groundls ask`` prints on a terminal: the streamed answer and, when the service judged it
afterwards, the verdict."""

from __future__ import annotations

import io

from groundls.cli import ask as cli_ask
from groundls.results import Answer, Citation, SearchFilters

NOT_FOUND = "The workspace does not say: no indexed content matches this question."


class FakeAnswers:
    def __init__(self, streamed: list[str], final: Answer) -> None:
        self.streamed, self.final = streamed, final

    def ask(self, question, filters, on_sources=None, on_token=None):
        for piece in self.streamed:
            on_token(piece)
        return self.final


class FakeWorkspace:
    def __init__(self, answers: FakeAnswers) -> None:
        self.answers = answers


def printed(monkeypatch, streamed: list[str], final: Answer) -> str:
    out = io.StringIO()
    monkeypatch.setattr(cli_ask.sys, "stdout", out)
    monkeypatch.setattr(cli_ask.sys, "stderr", io.StringIO())
    ws = FakeWorkspace(FakeAnswers(streamed, final))
    assert cli_ask._interactive(ws, "q?", SearchFilters()) == 0
    return out.getvalue()


def test_a_streamed_reply_judged_unsupported_is_followed_by_the_verdict(monkeypatch):
    final = Answer(NOT_FOUND, False, "en", "llm")
    text = printed(monkeypatch, ["Likely: leave is ", "described in [1]."], final)
    assert text.startswith("Likely: leave is described in [1].")
    assert text.rstrip().endswith(NOT_FOUND)
    assert "Sources:" not in text


def test_a_model_that_says_not_found_itself_is_printed_once(monkeypatch):
    final = Answer(NOT_FOUND, False, "en", "llm")
    assert printed(monkeypatch, [NOT_FOUND], final).count(NOT_FOUND) == 1


def test_a_found_answer_is_printed_once_with_its_sources(monkeypatch):
    cite = Citation(1, "c" * 16, "src/upload.py", 10, 16, "retry_upload")
    final = Answer("Uploads are retried [1].", True, "en", "llm", citations=[cite])
    text = printed(monkeypatch, ["Uploads are retried [1]."], final)
    assert text.count("Uploads are retried") == 1
    assert "Sources:\n  [1] src/upload.py:10-16" in text
