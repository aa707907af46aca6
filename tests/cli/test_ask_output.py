"""What ``groundls ask`` prints: on a terminal the answer as it is written, replaced by the
checked answer when the service changed it afterwards; elsewhere only the checked answer."""

from __future__ import annotations

import io
import logging

from groundls.cli import ask as cli_ask
from groundls.results import Answer, Citation, SearchFilters

NOT_FOUND = "The workspace does not say: no indexed content matches this question."


class FakeAnswers:
    def __init__(self, streamed: list[str], final: Answer) -> None:
        self.streamed, self.final = streamed, final

    def ask(self, question, filters, on_sources=None, on_token=None, thread=None, detail=None):
        for piece in self.streamed:
            on_token(piece)
        return self.final


class FakeWorkspace:
    def __init__(self, answers: FakeAnswers) -> None:
        self.answers = answers


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def printed(monkeypatch, streamed: list[str], final: Answer, *, terminal: bool = False) -> str:
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("LINES", "10")
    out = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(cli_ask.sys, "stdout", out)
    monkeypatch.setattr(cli_ask.sys, "stderr", io.StringIO())
    ws = FakeWorkspace(FakeAnswers(streamed, final))
    assert cli_ask._interactive(ws, "q?", SearchFilters()) == 0
    return out.getvalue()


def test_a_streamed_reply_judged_unsupported_is_replaced_by_the_verdict(monkeypatch):
    final = Answer(NOT_FOUND, False, "en", "llm")
    streamed = ["Likely: leave is ", "described in [1]."]
    text = printed(monkeypatch, streamed, final, terminal=True)
    # written as it came, then the cursor goes back to its start and the screen below is cleared
    assert text == "Likely: leave is described in [1]." + "\r\x1b[J" + NOT_FOUND + "\n"


def test_a_repaired_answer_replaces_all_the_rows_it_was_streamed_on(monkeypatch):
    cite = Citation(1, "c" * 16, "src/sessions.py", 38, 85, "SessionMiddleware")
    final = Answer("クッキーは sessions.py で署名される [1]。", True, "ja", "llm", citations=[cite])
    # on a 40-column terminal each line takes two rows (51 and 42 columns: wide characters
    # take two), so the cursor goes up three rows from the last
    streamed = ["クッキーは [1] src/sessions.py:38-85 で署名される。\n", "あ" * 21]
    text = printed(monkeypatch, streamed, final, terminal=True)
    assert "\r\x1b[3A\x1b[J" + final.answer + "\n" in text
    assert text.endswith("Sources:\n  [1] src/sessions.py:38-85  SessionMiddleware\n")


def test_a_reply_taller_than_the_screen_is_followed_by_the_checked_answer(monkeypatch):
    final = Answer("Uploads are retried [1].", True, "en", "llm")
    streamed = ["line\n" * 12, "Uploads are retried [2]."]
    text = printed(monkeypatch, streamed, final, terminal=True)
    assert "\x1b[" not in text and text.endswith("[2].\n\nUploads are retried [1].\n")


def test_off_a_terminal_only_the_checked_answer_is_printed(monkeypatch):
    final = Answer(NOT_FOUND, False, "en", "llm")
    text = printed(monkeypatch, ["Likely: leave is ", "described in [1]."], final)
    assert text == NOT_FOUND + "\n"


def test_a_model_that_says_not_found_itself_is_printed_once(monkeypatch):
    final = Answer(NOT_FOUND, False, "en", "llm")
    assert printed(monkeypatch, [NOT_FOUND], final, terminal=True) == NOT_FOUND + "\n"


def test_a_found_answer_is_printed_once_with_its_sources(monkeypatch):
    cite = Citation(1, "c" * 16, "src/upload.py", 10, 16, "retry_upload")
    final = Answer("Uploads are retried [1].", True, "en", "llm", citations=[cite])
    text = printed(monkeypatch, ["Uploads are retried [1]."], final, terminal=True)
    assert text.count("Uploads are retried") == 1 and "\x1b[" not in text
    assert "Sources:\n  [1] src/upload.py:10-16" in text


class WarningAnswers(FakeAnswers):
    def ask(self, question, filters, on_sources=None, on_token=None, thread=None, detail=None):
        on_token(self.streamed[0])
        logging.getLogger("groundls.answer.service").warning("could not store the answer")
        return self.final


def test_a_warning_logged_while_the_answer_streams_is_printed_after_it(monkeypatch, capfd):
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("LINES", "10")
    out, err = Terminal(), Terminal()
    monkeypatch.setattr(cli_ask.sys, "stdout", out)
    monkeypatch.setattr(cli_ask.sys, "stderr", err)
    final = Answer("Uploads are retried [1].", True, "en", "llm")
    ws = FakeWorkspace(WarningAnswers(["Uploads are retried [2]."], final))
    assert cli_ask._interactive(ws, "q?", SearchFilters()) == 0
    # nothing reached the terminal between the streamed rows and their replacement
    assert capfd.readouterr().err == ""
    assert out.getvalue() == "Uploads are retried [2].\r\x1b[JUploads are retried [1].\n"
    assert err.getvalue() == "groundls: could not store the answer\n"


def test_explain_names_the_models_vote_and_the_names_the_workspace_never_mentions():
    verdict = {
        "outcome": "not_found",
        "decided_by": "model",
        "why": "the model reads its excerpts as answering no more than ...",
        "evidence": {
            "confidence": "medium",
            "reason": "holds most query words",
            "vote": {"percentile": 0.15, "vote": 0.83, "pool": 20},
            "absent_names": ["REST"],
        },
    }
    told = cli_ask.explained_verdict(verdict)
    assert "vote that its excerpts answer: 0.83, above 15% of its votes on 20 off-topic" in told
    assert "names the workspace never mentions: REST" in told
