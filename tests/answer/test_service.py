"""Unit tests for AnswerService with a fake workspace and a scripted fake model."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace

import pytest
from groundls.chunkers.textrules import estimate_llm_tokens

from groundls.answer import service as answer_service
from groundls.answer.model import model_files
from groundls.answer.service import AnswerService
from groundls.answer.stages import followup
from groundls.answer.stages.prompt import system_prompt
from groundls.answer.text import wording
from groundls.answer.text.repeats import loop_start
from groundls.config import AnswerConfig
from groundls.results import AnswerError, Hit, SearchFilters, SearchResult
from groundls.search.offtopic import Standing

UPLOAD = Hit(
    "a" * 16,
    "src/upload.py",
    10,
    16,
    "code",
    "python",
    "code",
    "retry_upload",
    ("upload.py",),
    "def retry_upload(path, attempts=3):\n    for i in range(attempts):\n        send(path)\n",
    0.9,
)
LOGDOC = Hit(
    "b" * 16,
    "docs/ログ.md",
    1,
    6,
    "doc",
    "markdown",
    "paragraph",
    "ログレベルの変更",
    ("運用",),
    "# ログレベルの変更\nログレベルは config.toml の log_level で変更します。\n",
    0.5,
)


class FakeWorkspace:
    def __init__(self, hits):
        self.hits = hits
        self.history_records: list[dict] = []
        self.searches: list[str] = []
        self.confidence = "high"
        self.coverage = 1.0
        self.stands: Standing | None = None  # where its questions stand (none measured)

    def standing(self, question, language):
        return self.stands

    def search(self, query, filters=None):
        self.searches.append(query)
        hits = tuple(self.hits[: (filters.k if filters else None) or 10])
        return SearchResult(
            hits, self.confidence if hits else "none", coverage=self.coverage if hits else None
        )

    def add_history(self, record):
        self.history_records.append(record)
        return len(self.history_records)

    def history_thread(self, thread):
        return [
            r for i, r in enumerate(self.history_records, 1) if (r.get("thread") or i) == thread
        ]


class FakeModel:
    """Yields scripted pieces like LocalLLM.stream, honouring cancel and deadline."""

    name = "fake-model"
    loaded = True

    def __init__(self, pieces, delay=0.0, error=None):
        self.pieces = pieces
        self.delay = delay
        self.error = error
        self.calls = 0
        self.messages = None

    def count_tokens(self, text):
        return len(text) // 3 + 1

    def stream(self, messages, *, max_tokens, schema, cancel, deadline, stats, **_):
        self.calls += 1
        self.messages = messages
        self.max_tokens = max_tokens
        if self.error:
            raise model_files.ModelError(self.error)
        stats.stop_reason = "stop"
        for p in self.pieces:
            if cancel is not None and cancel.is_set():
                stats.stop_reason = "cancel"
                return
            if deadline is not None and time.monotonic() > deadline:
                stats.stop_reason = "time"
                return
            time.sleep(self.delay)
            stats.generated_tokens += 1
            yield p

    def close(self):
        pass


def service(hits, model=None, style="text", **cfg):
    config = AnswerConfig(use_packaged_model=model is not None, **cfg)
    workspace = FakeWorkspace(hits)
    if model is None:
        svc = AnswerService(workspace, config, style=style)
        svc.slot.resolved, svc.slot.note = True, "no model installed"
        return svc, workspace
    return AnswerService(workspace, config, llm=model, style=style), workspace


def test_no_hits_answers_not_found_at_once_without_calling_the_model():
    model = FakeModel(["x"])
    svc, workspace = service([], model)
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.mode == "not_found" and not ans.found and ans.citations == []
    assert model.calls == 0
    assert "does not say" in ans.answer


def test_not_found_is_in_the_language_of_the_question():
    svc, _ = service([], FakeModel([]))
    ans = svc.ask("ログレベルはどこで変更しますか？")
    assert ans.language == "ja" and "記載がありません" in ans.answer


def test_extractive_mode_is_labelled_cites_excerpts_and_says_how_to_install():
    svc, _ = service([UPLOAD, LOGDOC])
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.mode == "extractive" and ans.found
    assert ans.answer.startswith("Extractive mode")
    assert "bash scripts/install_llm.sh" in ans.answer
    assert [c.n for c in ans.citations] == [1, 2]
    assert ans.citations[0].path == "src/upload.py" and ans.citations[0].start_line == 10
    assert "def retry_upload" in ans.answer
    assert ans.timing["retrieve_ms"] is not None and ans.timing["total_ms"] is not None


def test_sources_are_reported_before_the_first_token():
    events: list[str] = []
    svc, _ = service([UPLOAD], FakeModel(["Uploads retry in retry_upload [1]."]))
    svc.ask(
        "where do we retry uploads?",
        on_sources=lambda cs: events.append(f"sources:{[c.path for c in cs]}"),
        on_token=lambda t: events.append("token"),
    )
    assert events[0] == "sources:['src/upload.py']" and events[1] == "token"


def test_text_answer_streams_and_citations_map_to_chunk_locations():
    pieces = ["Uploads are ", "retried by `retry_upload` ", "up to 3 attempts [1]."]
    streamed: list[str] = []
    svc, _ = service([UPLOAD, LOGDOC], FakeModel(pieces))
    ans = svc.ask("where do we retry failed uploads?", on_token=streamed.append)
    # the model's words as they came, then the lines they rest on (stages/backing.py)
    assert streamed[:3] == pieces and "".join(streamed) == ans.answer
    assert ans.answer.endswith("    for i in range(attempts):\n```\n[1]")
    assert ans.mode == "llm" and ans.found and ans.model == "fake-model"
    assert [(c.n, c.chunk_id, c.path, c.start_line, c.end_line) for c in ans.citations] == [
        (1, "a" * 16, "src/upload.py", 10, 16)
    ]
    assert not ans.citations[0].weak
    assert ans.timing["first_token_ms"] is not None


def test_citation_outside_the_excerpts_is_dropped_and_reported():
    svc, _ = service([UPLOAD], FakeModel(["retry_upload retries uploads [1][4]."]))
    ans = svc.ask("where do we retry uploads?")
    assert ans.dropped_citations == [4]
    assert [c.n for c in ans.citations] == [1]
    assert "[4]" not in ans.answer


def test_citation_unrelated_to_its_sentence_is_flagged_weak():
    text = "Uploads are retried by retry_upload [1]. Invoices are emailed monthly [2]."
    svc, _ = service([UPLOAD, LOGDOC], FakeModel([text]))
    ans = svc.ask("where do we retry uploads?")
    weak = {c.n: c.weak for c in ans.citations}
    assert weak == {1: False, 2: True}


def test_json_style_streams_only_the_answer_value_and_uses_the_found_flag():
    raw = json.dumps(
        {"answer": "ログレベルは log_level で変更します[1]。", "citations": [1], "found": True}
    )
    pieces = [raw[i : i + 4] for i in range(0, len(raw), 4)]
    streamed: list[str] = []
    svc, _ = service([LOGDOC], FakeModel(pieces), style="json")
    ans = svc.ask("ログレベルはどこで変更しますか？", on_token=streamed.append)
    assert "".join(streamed).startswith("ログレベルは log_level で変更します[1]。")
    assert ans.answer.startswith("ログレベルは log_level で変更します[1]。")
    assert ans.language == "ja" and "config.toml" in ans.answer  # its line, quoted after it
    assert [c.path for c in ans.citations] == ["docs/ログ.md"]


def test_model_saying_not_found_gives_found_false_and_no_citations():
    svc, _ = service([UPLOAD], FakeModel(["The workspace does not say how billing works."]))
    ans = svc.ask("how does billing work?")
    assert not ans.found and ans.citations == [] and ans.mode == "llm"


def test_time_limit_returns_what_was_generated_marked_cut():
    svc, _ = service([UPLOAD], FakeModel(["word "] * 50, delay=0.02), time_limit_s=0.15)
    ans = svc.ask("where do we retry uploads?")
    assert ans.cut and "word" in ans.answer and "answer cut" in ans.answer
    assert ans.answer.count("word") < 50


def test_answer_cut_before_citing_anything_is_followed_by_the_labelled_excerpts():
    streamed: list[str] = []
    svc, _ = service([UPLOAD], FakeModel(["word "] * 50, delay=0.02), time_limit_s=0.15)
    ans = svc.ask("where do we retry uploads?", on_token=streamed.append)
    assert ans.cut and ans.mode == "llm" and ans.answer.startswith("word")
    assert "cut before it cited anything" in ans.answer and "def retry_upload" in ans.answer
    assert [c.path for c in ans.citations] == ["src/upload.py"]
    tail = ans.answer[ans.answer.index("The answer was cut") :]
    assert "".join(streamed).rstrip().endswith(tail)  # the excerpts stream in after the text


def test_answer_cut_whose_only_citation_was_an_echoed_label_is_followed_by_the_excerpts():
    pieces = ["[1] src/upload.py:10-16 (retry_upload)\n"] + ["word "] * 50
    svc, _ = service([UPLOAD], FakeModel(pieces, delay=0.02), time_limit_s=0.15)
    ans = svc.ask("where do we retry uploads?")
    assert ans.cut and ans.answer.startswith("word") and "10-16" not in ans.answer.split("\n")[0]
    assert "cut before it cited anything" in ans.answer and "def retry_upload" in ans.answer


def test_answer_cut_after_a_citation_keeps_only_what_it_cited():
    pieces = ["Retries are in retry_upload [1]. "] + ["more "] * 50
    svc, _ = service([UPLOAD], FakeModel(pieces, delay=0.02), time_limit_s=0.15)
    ans = svc.ask("where do we retry uploads?")
    assert ans.cut and "cut before it cited" not in ans.answer
    assert [c.n for c in ans.citations] == [1]


def test_cancel_event_stops_generation_early():
    cancel = threading.Event()
    got: list[str] = []

    def on_token(t):
        got.append(t)
        if len(got) == 3:
            cancel.set()

    svc, _ = service([UPLOAD], FakeModel(["tok "] * 100))
    ans = svc.ask("where do we retry uploads?", on_token=on_token, cancel=cancel)
    assert ans.cut and len(got) == 3


def test_repetition_loop_is_cut():
    pieces = ["Retries are in retry_upload [1]. "] + ["[1] [2] [3] "] * 40
    svc, _ = service([UPLOAD], FakeModel(pieces))
    ans = svc.ask("where do we retry uploads?")
    assert ans.cut and ans.answer.count("[1] [2] [3]") <= 1


PARAGRAPH = (
    "Uploads are retried three times with a growing delay between the attempts, and a"
    " failed upload is logged with its status code [1].\n\n"
)


def _pieces(text: str) -> list[str]:
    return [text[i : i + 7] for i in range(0, len(text), 7)]


def test_a_paragraph_written_again_is_shown_once_and_the_answer_goes_on():
    svc, _ = service([UPLOAD], FakeModel(_pieces(PARAGRAPH * 2 + "It then gives up.")))
    ans = svc.ask("where do we retry uploads?")
    words = ans.answer.split("\n\n```")[0]  # the lines it rests on are quoted after it
    assert ans.answer.count("retried three times") == 1 and words.endswith("gives up.")
    assert not ans.cut and ans.repairs["repeated_lines"] == 1


def test_a_paragraph_written_over_and_over_stops_the_answer_whole():
    pieces = _pieces(PARAGRAPH.replace(" [1]", "") * 8)
    svc, _ = service([UPLOAD], FakeModel(pieces))
    ans = svc.ask("where do we retry uploads?")
    assert ans.answer.count("retried three times") == 1
    assert ans.timing["generated_tokens"] < len(pieces) / 2  # stopped at the third copy
    assert not ans.cut and ans.repairs["repeated_lines"] == 1
    assert [c.path for c in ans.citations] == ["src/upload.py"]  # whole: cited as any answer


def test_two_sentences_written_round_and_round_on_one_line_stop_the_answer():
    cycle = (
        "Uploads are retried three times with a growing delay between the attempts. "
        "A failed upload is logged with its status code and the file name. "
    )
    pieces = _pieces("The upload loop retries [1]. " + cycle * 8)
    svc, _ = service([UPLOAD], FakeModel(pieces))
    ans = svc.ask("where do we retry uploads?")
    assert ans.answer.count("retried three times") == 1
    assert ans.timing["generated_tokens"] < len(pieces) / 2  # stopped at the third copy
    assert not ans.cut and ans.repairs["repeated_sentences"] == 2


RETRYDOC = Hit(
    "c" * 16,
    "docs/retries.md",
    1,
    4,
    "doc",
    "markdown",
    "paragraph",
    "Retries",
    ("Guide",),
    "# Retries\nFailed uploads are retried three times before the error is raised.\n",
    0.95,
)


def test_loop_start_finds_the_loop_and_ignores_normal_text():
    assert loop_start("A normal sentence with no repeats at all.") is None
    text = "Intro. " + "abc def " * 6
    cut = loop_start(text)
    assert cut is not None and text[:cut] == "Intro. abc def "


def test_model_load_failure_falls_back_to_extractive_with_a_clear_message():
    svc, _ = service([UPLOAD], FakeModel([], error="cannot load the model x.gguf: bad magic"))
    ans = svc.ask("where do we retry uploads?")
    assert ans.mode == "extractive"
    assert "could not be used" in ans.answer and "bad magic" in ans.answer
    assert svc.status()["notice"].startswith("cannot load")


def test_each_answer_is_stored_in_history():
    svc, workspace = service([UPLOAD], FakeModel(["In retry_upload [1]."]))
    svc.ask("where do we retry uploads?")
    rec = workspace.history_records[-1]
    assert rec["question"] == "where do we retry uploads?"
    assert rec["citations"][0]["path"] == "src/upload.py" and rec["model"] == "fake-model"
    assert "total_ms" in rec["timing"] and isinstance(rec["asked_at"], float)


def test_a_low_confidence_search_lets_the_model_judge_the_nearest_excerpts():
    model = FakeModel(["The workspace does not say."])
    svc, workspace = service([UPLOAD], model)
    workspace.confidence = "low"  # only the nearest chunk, no keyword or agreement evidence
    svc.ask("how does billing work?")
    assert workspace.searches == ["how does billing work?"]
    assert model.calls == 1


def test_an_answer_over_low_confidence_excerpts_begins_by_saying_it_is_likely():
    svc, workspace = service([UPLOAD], FakeModel(["Uploads ", "are retried by retry_upload [1]."]))
    workspace.confidence = "low"
    streamed: list[str] = []
    ans = svc.ask("where do we retry failed uploads?", on_token=streamed.append)
    assert ans.found and ans.confidence == "low"
    assert ans.answer.startswith("Likely: Uploads are retried by retry_upload [1].")
    assert "".join(streamed).startswith("Likely: Uploads")
    assert [c.n for c in ans.citations] == [1]


def test_a_japanese_answer_over_low_confidence_excerpts_begins_with_suiso_desu_ga():
    svc, workspace = service([LOGDOC], FakeModel(["config.toml の log_level で変更します [1]。"]))
    workspace.confidence = "low"
    ans = svc.ask("ログレベルはどこで変更しますか？")
    assert ans.answer.startswith("推測ですが、config.toml")


def test_answers_over_confident_excerpts_are_not_hedged():
    for confidence in ("high", "medium"):
        svc, workspace = service([UPLOAD], FakeModel(["Uploads are retried by retry_upload [1]."]))
        workspace.confidence = confidence
        ans = svc.ask("where do we retry failed uploads?")
        assert ans.answer.startswith("Uploads") and ans.confidence == confidence


def test_a_hedge_is_not_added_to_not_found_or_to_an_answer_that_already_hedges():
    svc, workspace = service([UPLOAD], FakeModel(["The workspace does not say."]))
    workspace.confidence = "low"
    ans = svc.ask("how does billing work?")
    assert not ans.found and not ans.answer.startswith("Likely")
    svc, workspace = service([UPLOAD], FakeModel(["Probably in retry_upload [1]."]))
    workspace.confidence = "low"
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.answer.startswith("Probably in retry_upload")


def test_a_low_confidence_search_for_words_the_workspace_lacks_is_not_found_at_once():
    model = FakeModel(["Mercury boils at [1]."])
    svc, workspace = service([UPLOAD], model)
    workspace.confidence = "low"
    workspace.coverage = 0.25  # one of four question words occurs in the workspace
    ans = svc.ask("What is the boiling point of mercury on Venus?")
    assert ans.mode == "not_found" and not ans.found and ans.citations == []
    assert model.calls == 0
    # the nearest places the unsure search found are offered to look at
    assert ans.answer.endswith("Places to look: src/upload.py:10-16.")


def test_a_low_confidence_search_without_a_model_is_not_found():
    svc, workspace = service([UPLOAD], None)
    workspace.confidence = "low"
    ans = svc.ask("how does billing work?")
    assert ans.mode == "not_found" and not ans.found and ans.citations == []


@pytest.mark.parametrize("bad", ["", "   ", "x" * 5000])
def test_bad_questions_raise_a_clear_error(bad):
    svc, _ = service([UPLOAD], FakeModel([]))
    with pytest.raises(AnswerError):
        svc.ask(bad)


def test_bad_k_raises_a_clear_error():
    svc, _ = service([UPLOAD], FakeModel([]))
    with pytest.raises(AnswerError, match="k must be"):
        svc.ask("q?", SearchFilters(k=0))


def test_prompt_sent_to_the_model_numbers_the_excerpts():
    model = FakeModel(["ok [1]."])
    svc, _ = service([UPLOAD, LOGDOC], model)
    svc.ask("where do we retry uploads?")
    user = model.messages[1]["content"]
    assert "[1] src/upload.py" in user and "[2] docs/ログ.md" in user
    assert ":10-16" not in user  # the citation carries the lines, the model reads none


def test_time_limit_before_any_answer_text_falls_back_to_labelled_excerpts():
    class SlowToStart(FakeModel):
        def stream(self, messages, *, max_tokens, schema, cancel, deadline, stats, **_):
            time.sleep(0.2)  # still reading the prompt when the limit passes
            stats.stop_reason = "time"
            return
            yield

    svc, _ = service([UPLOAD], SlowToStart([]), time_limit_s=0.1)
    ans = svc.ask("where do we retry uploads?")
    assert ans.mode == "extractive" and ans.cut
    assert "time limit" in ans.answer and "def retry_upload" in ans.answer
    assert [c.n for c in ans.citations] == [1]


def test_excerpts_are_cut_to_what_this_machine_reads_before_the_first_token_target():
    model = FakeModel(["x"])
    svc, _ = service([UPLOAD], model, context_tokens=900, first_token_s=5.0)
    assert svc._context_budget(model, "q", "en") == answer_service.FIRST_CONTEXT_TOKENS
    model.prefill_rate = 100.0  # tokens a second: 500 in 5 s, less the question and the reminder
    assert 350 < svc._context_budget(model, "where is it?", "en") < 500
    model.prefill_rate = 20.0  # a slow machine still shows the lines that hold an answer
    assert svc._context_budget(model, "where is it?", "en") == answer_service.MIN_CONTEXT_TOKENS
    model.prefill_rate = 1000.0  # a fast one gets everything the config allows
    assert svc._context_budget(model, "where is it?", "en") == 900


def test_the_excerpt_budget_leaves_out_the_time_the_search_took_and_the_rest_of_the_prompt():
    model = FakeModel(["x"])
    model.prefill_rate = 100.0
    svc, _ = service([UPLOAD], model, context_tokens=900, first_token_s=5.0)
    idle = svc._context_budget(model, "where is it?", "en")
    assert svc._context_budget(model, "where is it?", "en", spent_s=1.0) == idle - 100
    # a longer question and the Japanese reminder are read too: fewer excerpt tokens
    longer = "where is it? " * 10
    assert svc._context_budget(model, longer, "en") < idle
    assert svc._context_budget(model, "どこにありますか", "ja") < idle


def test_a_model_server_that_reads_the_whole_prompt_gets_the_system_prompt_counted_against_it():
    model = FakeModel(["x"])
    model.prefill_rate = 400.0
    svc, _ = service([UPLOAD], model, context_tokens=3000, first_token_s=5.0)
    keeps_state = svc._context_budget(model, "where is it?", "en")
    model.reads_whole_prompt = True  # its speed was measured over every message
    system = estimate_llm_tokens(system_prompt("en"))
    assert svc._context_budget(model, "where is it?", "en") == keeps_state - system


def test_a_first_token_target_of_zero_always_uses_the_configured_context():
    model = FakeModel(["x"])
    model.prefill_rate = 20.0
    svc, _ = service([UPLOAD], model, context_tokens=700, first_token_s=0)
    assert svc._context_budget(model, "q", "en") == 700


def test_an_unsure_search_whose_answer_no_citation_supports_is_not_found():
    # the 1.5B model's reply in a CI run: a claim the cited excerpts do not make
    said = "The parental leave policy for employees is described in [1] and [2]."
    svc, workspace = service([UPLOAD, LOGDOC], FakeModel([said]))
    workspace.confidence = "low"
    ans = svc.ask("What is the parental leave policy for employees?")
    assert not ans.found and ans.citations == [] and ans.mode == "llm"
    assert ans.repairs.get("unsupported") == 1


def test_an_unsure_search_keeps_an_answer_whose_paragraph_the_citation_at_its_end_supports():
    # the supported sentence comes first; the one the marker follows only sums up
    said = "Uploads are retried by retry_upload up to three attempts. That keeps it robust [1]."
    svc, workspace = service([UPLOAD, LOGDOC], FakeModel([said]))
    workspace.confidence = "low"
    ans = svc.ask("How are failed uploads handled?")
    assert ans.found and "unsupported" not in ans.repairs
    assert [(c.path, c.weak) for c in ans.citations] == [("src/upload.py", False)]


def test_an_unsure_search_whose_citations_never_name_what_the_question_names_is_not_found():
    # the answer stands on its excerpt, but the question asks about S3, which it never names
    said = "Uploads are retried by retry_upload up to three attempts [1]."
    svc, workspace = service([UPLOAD, LOGDOC], FakeModel([said]))
    workspace.confidence = "low"
    ans = svc.ask("How are failed uploads to S3 handled?")
    assert not ans.found and ans.citations == []
    assert ans.verdict["evidence"]["cannot_stand"] == "unnamed"  # type: ignore[index]
    # the same answer to a question that names nothing stands (the test above)


class LengthCutModel(FakeModel):
    """Writes its pieces and then stops at the length limit."""

    def stream(self, messages, **kwargs):
        yield from super().stream(messages, **kwargs)
        kwargs["stats"].stop_reason = "length"


def test_an_unsupported_answer_that_was_cut_is_not_found_without_a_cut_note():
    said = "The parental leave policy for employees is described in [1] and"
    svc, workspace = service([UPLOAD, LOGDOC], LengthCutModel([said]))
    workspace.confidence = "low"
    ans = svc.ask("What is the parental leave policy for employees?")
    assert not ans.found and ans.repairs.get("unsupported") == 1
    # the search found places; what the model wrote from them did not hold: they are offered
    assert ans.answer.startswith(wording.NOT_SAID["en"]) and not ans.notice
    assert ans.answer.endswith("Places to look: src/upload.py:10-16, docs/ログ.md:1-6.")


def test_a_sure_search_keeps_the_models_answer_even_with_weak_citations():
    said = "The parental leave policy for employees is in the handbook mailed yearly with each path [1]."
    svc, workspace = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("What is the parental leave policy for employees?")
    assert ans.found and [c.weak for c in ans.citations] == [True]


def test_an_answer_that_only_restates_the_question_gives_the_excerpts_key_lines():
    svc, workspace = service([UPLOAD], FakeModel(["Failed uploads are retried [1]."]))
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.mode == "extractive" and ans.answer.startswith("Extractive mode")
    assert "def retry_upload" in ans.answer and [c.path for c in ans.citations] == ["src/upload.py"]
    # the model is there and answered: the notice says why its answer was set aside, and the
    # answer names the model that read the excerpts (as an answer cut and replaced does)
    assert ans.notice == "the model's answer only restated the question or described the excerpts"
    assert ans.model == "fake-model"
    # the reader saw the model's words first, then the key lines in their place
    assert ans.timing["first_token_ms"] <= ans.timing["replaced_ms"] <= ans.timing["total_ms"]


def test_an_answer_that_only_names_the_excerpts_file_beside_the_question_gives_key_lines():
    said = "Failed uploads are retried in src/upload.py [1]."
    svc, workspace = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.mode == "extractive" and "def retry_upload" in ans.answer
    # a file name with something from the file is an answer
    svc, workspace = service([UPLOAD], FakeModel(["retry_upload in upload.py retries them [1]."]))
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.mode == "llm" and ans.answer.startswith("retry_upload")


def test_an_answer_that_only_describes_the_excerpts_gives_their_key_lines():
    said = "この抜粋は、ログについて述べています [1]。"
    svc, workspace = service([LOGDOC], FakeModel([said]))
    ans = svc.ask("ログレベルはどこで変更しますか？")
    assert ans.mode == "extractive" and ans.answer.startswith("抽出モード")
    assert "log_level" in ans.answer


def test_a_japanese_answer_over_english_code_must_share_a_name_or_number_with_it():
    # nothing of the excerpt but the question's own words: a restatement in other words
    said = "アップロードの再試行は、失敗したときにもう一度送る処理として行われています [1]。"
    svc, _ = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("失敗したアップロードはどこで再試行していますか？")
    assert ans.mode == "extractive" and ans.answer.startswith("抽出モード")
    # the function that does it, named: an answer
    said = "`retry_upload` が失敗したアップロードを最大 3 回まで送り直します [1]。"
    svc, _ = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("失敗したアップロードはどこで再試行していますか？")
    assert ans.mode == "llm" and ans.answer.startswith("`retry_upload`")


def test_a_sentence_resting_on_an_invented_specific_is_dropped():
    said = "Uploads are retried by retry_upload [1]. Install it with `pip install uploadkit` [1]."
    svc, _ = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.found and ans.answer == "Uploads are retried by retry_upload [1]."
    assert ans.repairs["unsupported_specifics"] >= 1


def test_an_answer_resting_only_on_invented_specifics_is_not_found_with_places_to_look():
    said = "Set `UPLOAD_RETRIES=5` in `settings/prod.yaml` [1]."
    svc, _ = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("where do we retry failed uploads?")
    assert not ans.found and ans.citations == []
    assert "does not say" in ans.answer and "src/upload.py:10-16" in ans.answer


def test_not_found_after_two_excerpts_still_names_the_searchs_next_place_to_look():
    # three long hits; the prompt's budget fits two excerpts, the model's answer cannot stand
    hits = [
        replace(UPLOAD, chunk_id=c * 16, path=f"src/{c}.py", text=UPLOAD.text * 30) for c in "bcd"
    ]
    said = "Set `UPLOAD_RETRIES=5` in `settings/prod.yaml` [1]."
    svc, _ = service(hits, FakeModel([said]), context_tokens=200, first_token_s=0)
    ans = svc.ask("where do we retry failed uploads?")
    assert not ans.found and [s.n for s in ans.sources] == [1, 2]
    assert ans.answer.endswith("src/b.py:10-16, src/c.py:10-16, src/d.py:10-16.")


def test_each_citation_carries_the_lines_that_support_it():
    svc, _ = service(
        [UPLOAD], FakeModel(["retry_upload sends the file again for each attempt [1]."])
    )
    ans = svc.ask("where do we retry failed uploads?")
    support = ans.citations[0].support
    assert support and all(10 <= line <= 16 for line, _ in support)
    assert any("attempts" in text for _, text in support)


def test_a_model_reply_that_is_only_an_echoed_label_gives_the_labelled_excerpts():
    streamed: list[str] = []
    svc, _ = service([LOGDOC], FakeModel(["[1] docs/ログ.md:1-6"]))
    ans = svc.ask("ログレベルはどこで変更しますか？", on_token=streamed.append)
    assert ans.mode == "extractive" and ans.answer.startswith("抽出モード")
    assert [c.path for c in ans.citations] == ["docs/ログ.md"]
    assert "".join(streamed) == ans.answer  # the user saw it, not a blank line


class LabelFirstModel(FakeModel):
    """Echoes a label as its whole reply unless told not to begin with a bracket."""

    def __init__(self):
        super().__init__([])
        self.flags: list[bool] = []

    def stream(self, messages, *, no_leading_bracket=False, **kwargs):
        self.flags.append(no_leading_bracket)
        self.pieces = (
            ["The log level is set by `log_level` ", "in `config.toml` [1]."]
            if no_leading_bracket
            else ["[1] docs/ログ.md:1-6 (ログ > ", "ログレベル)"]
        )
        yield from super().stream(messages, **kwargs)


def test_a_reply_that_is_only_a_label_is_written_again_without_a_leading_bracket():
    streamed: list[str] = []
    model = LabelFirstModel()
    svc, _ = service([LOGDOC], model)
    ans = svc.ask("where is the log level changed?", on_token=streamed.append)
    assert model.flags == [False, True]
    assert ans.mode == "llm" and ans.found and ans.answer.startswith("The log level")
    assert "".join(streamed) == ans.answer  # the label never reached the user
    assert [c.path for c in ans.citations] == ["docs/ログ.md"]


class LeadInLabelModel(FakeModel):
    """Writes a lead-in word and a label as its first reply, as a Japanese answer barred from a
    leading bracket does ("答え: [1] docs/ログ.md:1-6")."""

    def __init__(self):
        super().__init__([])
        self.replies = 0

    def stream(self, messages, **kwargs):
        self.replies += 1
        self.pieces = (
            ["答え", ": [1] docs/ログ.md:1-6 (ログ > ", "ログレベル)"]
            if self.replies == 1
            else ["ログレベルは config.toml の ", "log_level で変えます [1]。"]
        )
        yield from super().stream(messages, **kwargs)


def test_a_reply_that_is_only_a_lead_in_and_a_label_is_written_again():
    model = LeadInLabelModel()
    svc, _ = service([LOGDOC], model)
    ans = svc.ask("ログレベルはどこで変える？")
    assert model.replies == 2
    assert ans.found and ans.answer.startswith("ログレベルは") and "答え" not in ans.answer
    assert [c.path for c in ans.citations] == ["docs/ログ.md"]


def test_an_answer_without_a_citation_is_cited_to_the_excerpt_it_comes_from():
    streamed: list[str] = []
    model = FakeModel(["Uploads are retried ", "by retry_upload up to three attempts."])
    svc, _ = service([LOGDOC, UPLOAD], model)
    ans = svc.ask("where do we retry failed uploads?", on_token=streamed.append)
    assert ans.found and ans.answer.endswith("[2]")
    assert [c.path for c in ans.citations] == ["src/upload.py"]
    assert ans.repairs.get("added_citations") == 1
    assert "".join(streamed) == ans.answer  # the user sees the citation too


def test_an_answer_whose_only_citation_was_in_an_echoed_label_cites_it_at_its_end():
    streamed: list[str] = []
    model = FakeModel(
        [
            "[2] src/upload.py:10-16 (retry_upload)\n",
            "Uploads are retried by retry_upload up to three attempts.\n\n",
            "That is how it works.",
        ]
    )
    svc, _ = service([LOGDOC, UPLOAD], model)
    ans = svc.ask("where do we retry failed uploads?", on_token=streamed.append)
    assert ans.found and ans.answer.endswith("works. [2]") and "10-16" not in ans.answer
    assert [c.path for c in ans.citations] == ["src/upload.py"]
    assert not ans.citations[0].weak  # it vouches for the whole answer, not its last paragraph
    assert ans.repairs.get("added_citations") == 1
    assert "".join(streamed).endswith(" [2]")


def test_an_answer_that_cites_keeps_its_own_citations():
    model = FakeModel(["Uploads are retried by retry_upload [1]."])
    svc, _ = service([UPLOAD, LOGDOC], model)
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.answer.endswith("[1].") and "added_citations" not in ans.repairs


class LeadRecordingModel(FakeModel):
    def __init__(self, pieces):
        super().__init__(pieces)
        self.leads: list[tuple[bool, bool]] = []

    def stream(self, messages, *, no_leading_latin=False, no_leading_bracket=False, **kwargs):
        self.leads.append((no_leading_latin, no_leading_bracket))
        yield from super().stream(messages, **kwargs)


def test_a_japanese_answer_may_not_begin_with_a_latin_word_or_a_bracket_an_english_one_may():
    model = LeadRecordingModel(["ログレベルは log_level で変更します [1]。"])
    svc, _ = service([LOGDOC], model)
    svc.ask("ログレベルはどこで変更しますか？")
    svc.ask("where is the log level changed?")
    assert model.leads == [(True, True), (False, False)]


class NotLoadedModel(FakeModel):
    """A model that is not loaded yet: ``load`` takes a while and says when it began."""

    def __init__(self, pieces):
        super().__init__(pieces)
        self.loaded = False
        self.load_started = threading.Event()

    def load(self):
        self.load_started.set()
        time.sleep(0.2)
        self.loaded = True


class SearchWatchingTheLoad(FakeWorkspace):
    def __init__(self, hits, model):
        super().__init__(hits)
        self.model = model
        self.loading_during_search: bool | None = None

    def search(self, query, filters=None):
        self.loading_during_search = self.model.load_started.wait(5)
        return super().search(query, filters)


def test_a_model_not_yet_loaded_loads_while_the_search_runs():
    model = NotLoadedModel(["The retry limit is 3 attempts [1]."])
    workspace = SearchWatchingTheLoad([UPLOAD], model)
    svc = AnswerService(workspace, AnswerConfig(), llm=model)
    ans = svc.ask("How many times does upload retry?")
    assert workspace.loading_during_search is True
    # the answer waited for the load before sizing its excerpts, and says how long
    assert model.loaded and ans.found
    assert ans.timing["load_wait_ms"] is not None


def test_a_loaded_model_is_not_loaded_again():
    model = FakeModel(["The retry limit is 5 [1]."])
    svc, _ = service([UPLOAD], model)
    ans = svc.ask("How many times does upload retry?")
    assert "load_wait_ms" not in ans.timing


COMPLETION_DOC = Hit(
    "c" * 16,
    "docs/shell-completion.rst",
    20,
    40,
    "doc",
    "rst",
    "paragraph",
    "Enabling Completion",
    ("Shell Completion",),
    "Enabling Completion\n-------------------\n\n"
    "Provide your users with the following instructions.\n\n"
    ".. tabs::\n\n"
    "    .. group-tab:: Bash\n\n"
    "        Add this to ``~/.bashrc``:\n\n"
    "        .. code-block:: bash\n\n"
    '            eval "$(_FOO_BAR_COMPLETE=bash_source foo-bar)"\n\n'
    "    .. group-tab:: Zsh\n\n"
    "        Add this to ``~/.zshrc``:\n\n"
    "        .. code-block:: zsh\n\n"
    '            eval "$(_FOO_BAR_COMPLETE=zsh_source foo-bar)"\n',
    0.9,
)


def test_a_reasoning_models_thinking_is_never_shown():
    pieces = [
        "<think>the user asks where; retry_upload ",
        "loops</th",
        "ink>",
        "retry_upload retries each attempt [1].",
    ]
    streamed: list[str] = []
    svc, _ = service([UPLOAD], FakeModel(pieces))
    ans = svc.ask("where do we retry failed uploads?", on_token=streamed.append)
    assert ans.answer.startswith("retry_upload retries each attempt [1].")
    assert "think" not in "".join(streamed) and "think" not in ans.answer


class FollowUpModel(FakeModel):
    """Rewrites follow-ups with a scripted line, answers with scripted pieces."""

    def __init__(self, pieces, rewrite):
        super().__init__(pieces)
        self.rewrite = rewrite

    def stream(self, messages, **kwargs):
        if messages[0]["content"] == followup.INSTRUCTION:
            yield self.rewrite
            return
        yield from super().stream(messages, **kwargs)


def test_a_follow_up_is_searched_standalone_and_keeps_its_thread():
    model = FollowUpModel(
        ["retry_upload sends the file again for each of its attempts [1]."],
        "How many attempts does retry_upload make when an upload fails?",
    )
    svc, workspace = service([UPLOAD], model)
    first = svc.ask("where do we retry failed uploads?")
    second = svc.ask("how many attempts?", thread=first.thread)
    assert (
        workspace.searches[-1] == "How many attempts does retry_upload make when an upload fails?"
    )
    assert second.thread == first.thread
    assert workspace.history_records[-1]["question"] == "how many attempts?"
    assert "Earlier: " in model.messages[1]["content"]  # the model saw the earlier turn


def test_a_follow_up_rewrite_that_drops_the_question_falls_back_to_both_questions():
    model = FollowUpModel(
        ["retry_upload sends the file again for each attempt [1]."], "Tell me more."
    )
    svc, workspace = service([UPLOAD], model)
    first = svc.ask("where do we retry failed uploads?")
    svc.ask("how many attempts?", thread=first.thread)
    assert workspace.searches[-1] == "where do we retry failed uploads? how many attempts?"


def test_a_follow_up_of_an_unknown_thread_is_a_clear_error():
    svc, _ = service([UPLOAD], FakeModel(["x"]))
    with pytest.raises(AnswerError, match="no thread 99"):
        svc.ask("and then?", thread=99)


def test_follow_up_rewrites_are_checked_for_script_and_content():
    earlier = followup.Turn(
        "ログレベルはどこで変更しますか？", "config.toml の log_level です [1]。"
    )
    assert followup.valid("ログレベルの既定値は何ですか？", earlier, "既定値は？")
    assert not followup.valid("What is the default log level?", earlier, "既定値は？")  # script
    assert not followup.valid("既定値は？", earlier, "既定値は？")  # nothing of the earlier turn


def test_a_full_answer_asks_for_steps_and_code_from_the_excerpts_and_may_run_longer():
    model = FakeModel(["Retries use backoff [1]."])
    svc, _ = service([UPLOAD], model)
    svc.ask("how do uploads retry?")
    brief_system, brief_tokens = model.messages[0]["content"], model.max_tokens
    svc.ask("how do uploads retry?", detail="full")
    assert "numbered steps" in model.messages[0]["content"]
    assert "numbered steps" not in brief_system
    assert "code blocks copied" in model.messages[1]["content"]
    assert model.max_tokens == 2 * brief_tokens


def test_the_detail_setting_is_the_default_and_a_bad_detail_is_refused():
    model = FakeModel(["Retries use backoff [1]."])
    svc, _ = service([UPLOAD], model, detail="full")
    svc.ask("how do uploads retry?")
    assert "numbered steps" in model.messages[0]["content"]
    with pytest.raises(AnswerError, match="detail must be one of brief, full"):
        svc.ask("how do uploads retry?", detail="long")


@pytest.mark.parametrize("model", [FakeModel, LengthCutModel], ids=["whole", "cut"])
def test_english_paragraphs_pasted_after_a_japanese_sentence_never_reach_the_reader(model):
    # cut or not: the pasted lines go, and what is left is judged as the answer
    pasted = "Failed uploads are retried three times before the error is raised. " * 3
    said = f"失敗したアップロードは、エラーになる前に 3 回再試行されます [1]。\n\n{pasted}"
    svc, _ = service([RETRYDOC], model([said]))
    ans = svc.ask("アップロードに失敗したら何が起きる？")
    assert ans.mode == "llm" and ans.repairs["pasted_english"] == 1
    assert ans.answer.startswith(
        "失敗したアップロードは、エラーになる前に 3 回再試行されます [1]。"
    )
    assert "Failed uploads" not in ans.answer


def test_an_answer_wholly_in_english_to_a_japanese_question_gives_the_excerpts_key_lines():
    said = "Failed uploads are retried three times before the error is raised [1]."
    svc, _ = service([RETRYDOC], FakeModel([said]))
    ans = svc.ask("アップロードは何回再試行されますか？")
    assert ans.mode == "extractive" and ans.repairs["other_language"] == 1
    assert ans.answer.startswith("抽出モード: モデルの回答が日本語で書かれていなかった")
    assert "docs/retries.md" in ans.answer
    assert ans.notice == "the model's answer was not in the reader's language"


def test_an_answer_written_in_chinese_for_a_japanese_question_gives_the_excerpts_key_lines():
    # by its letters alone a Chinese answer would pass for Japanese
    said = "上传失败时会重试三次，然后报告错误。 [1]"
    svc, _ = service([RETRYDOC], FakeModel([said]))
    ans = svc.ask("アップロードは何回再試行されますか？")
    assert ans.mode == "extractive" and ans.repairs["other_language"] == 1
    assert ans.answer.startswith("抽出モード: モデルの回答が日本語で書かれていなかった")


def test_a_japanese_answer_quoting_english_code_stays_the_answer():
    said = "再試行は `for i in range(attempts): send(path)` で行われます [1]。"
    svc, _ = service([UPLOAD], FakeModel([said]))
    ans = svc.ask("アップロードの再試行はどこで行われますか？")
    assert ans.mode == "llm" and ans.found and "other_language" not in ans.repairs


class ChoosingModel(FakeModel):
    """A FakeModel that also rates each excerpt number, as the local model does."""

    def __init__(self, pieces, scores):
        super().__init__(pieces)
        self.scores = scores

    def next_token_logprobs(self, messages, lead, choices, *, cancel=None, deadline=None):
        if "[1] N/A" in messages[-1]["content"]:
            return [-0.1] + [-3.0] * (len(choices) - 1)  # the leaning to [1] of an empty prompt
        return self.scores[: len(choices)]


def test_the_excerpt_the_model_chooses_is_named_to_it_and_recorded_with_the_answer():
    model = ChoosingModel(["Set log_level in config.toml [2]."], [-3.0, -0.1])
    svc, _ = service([UPLOAD, LOGDOC], model, context_tokens=2000)
    ans = svc.ask("where is the log level set?")
    assert ans.chosen == 2
    assert "Excerpt [2] is the one that answers" in model.messages[-1]["content"]
    assert [s.n for s in ans.sources] == [1, 2]
    assert ans.citations[0].n == 2


def test_when_the_model_chooses_the_first_excerpt_the_prompt_is_unchanged():
    model = ChoosingModel(["Uploads retry in retry_upload [1]."], [-0.1, -3.0])
    svc, _ = service([UPLOAD, LOGDOC], model, context_tokens=2000)
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.chosen == 1
    assert "is the one that answers" not in model.messages[-1]["content"]


def test_a_model_without_probabilities_chooses_nothing_and_still_answers():
    svc, _ = service([UPLOAD, LOGDOC], FakeModel(["Uploads retry in retry_upload [1]."]))
    ans = svc.ask("where do we retry failed uploads?")
    assert ans.chosen is None and ans.found


def test_json_and_mcp_answers_list_every_excerpt_read_by_rank_and_the_one_chosen():
    from groundls import wire
    from groundls.mcp import text

    model = ChoosingModel(["Set log_level in config.toml [2]."], [-3.0, -0.1])
    svc, _ = service([UPLOAD, LOGDOC], model, context_tokens=2000)
    ans = svc.ask("where is the log level set?")
    for record in (wire.answer_json(ans), text.answer_record(ans)):
        assert [(s["n"], s["path"]) for s in record["sources"]] == [
            (1, "src/upload.py"),
            (2, "docs/ログ.md"),
        ]
        assert record["chosen"] == 2


def test_an_extractive_fallback_shows_the_chosen_excerpt_first():
    # the model's text only restates the question: the excerpts' lines instead, chosen one first
    model = ChoosingModel(["This is where the log level is set [1]."], [-3.0, -0.1])
    svc, _ = service([UPLOAD, LOGDOC], model, context_tokens=2000)
    ans = svc.ask("where is the log level set?")
    assert ans.mode == "extractive" and ans.chosen == 2
    assert [c.n for c in ans.citations][0] == 2
    assert ans.answer.index("[2]") < ans.answer.index("[1]")


def test_over_an_unsure_search_an_answer_that_cannot_stand_is_not_found_with_places():
    streamed: list[str] = []
    svc, workspace = service([UPLOAD], FakeModel(["Failed uploads are retried [1]."]))
    workspace.confidence = "low"
    ans = svc.ask("where do we retry failed uploads?", on_token=streamed.append)
    assert ans.mode == "not_found" and not ans.found and ans.citations == []
    assert "src/upload.py:10-16" in ans.answer  # the places to look, not their key lines
    assert "def retry_upload" not in ans.answer
    assert ans.notice.startswith("not found: the search was unsure")
    assert "restated the question" in ans.notice  # and which evidence decided
    assert streamed[-1].strip() == ans.answer  # the reader is told the same
    # over a sure search the same answer gives the excerpts' key lines (as before)
    svc, workspace = service([UPLOAD], FakeModel(["Failed uploads are retried [1]."]))
    assert svc.ask("where do we retry failed uploads?").mode == "extractive"


SVG = Hit(
    "c" * 16,
    "docs/_static/logo.svg",
    1,
    3,
    "config",
    "xml",
    "paragraph",
    "logo.svg",
    (),
    '<path d="M 88.98 12.3 L 10.5 20.1 C 30.2 40.1 50.3 60.2 70.4 80.5 Z M 1 2 3 4 5 6 7 8 9 '
    '10 11 12 13 14 15 16" fill="#fff"/>',
    0.95,
)
MAKEFILE = Hit(
    "d" * 16,
    "docs/Makefile",
    1,
    4,
    "config",
    "make",
    "paragraph",
    "Makefile",
    (),
    "html:\n\tsphinx-build -b html . _build/html\n",
    0.94,
)


def test_path_data_and_build_files_are_never_an_answers_excerpt_unless_asked_for():
    svc, _ = service([SVG, MAKEFILE])
    ans = svc.ask("アップロードの再試行をどう設定しますか？")
    assert ans.mode == "not_found" and "logo.svg" not in ans.answer
    assert "Makefile" not in ans.answer  # not a place to look either
    assert ans.verdict["why"] == "nothing the search found can hold an answer"
    svc, _ = service([SVG, MAKEFILE, UPLOAD])
    ans = svc.ask("where do we retry failed uploads?")
    assert [c.path for c in ans.citations] == ["src/upload.py"]
    svc, _ = service([SVG, MAKEFILE, UPLOAD])
    ans = svc.ask("which make target builds the html docs?")
    assert "docs/Makefile" in [c.path for c in ans.citations]


def test_an_unsure_search_for_a_question_that_stands_among_off_topic_ones_is_not_found_at_once():
    model = FakeModel(["The retry limit is 3 attempts [1]."])
    svc, workspace = service([UPLOAD], model)
    workspace.confidence = "low"
    workspace.stands = Standing(0.2, {"e5": 0.71}, 40, "en")
    ans = svc.ask("How long should I boil an egg?")
    assert ans.mode == "not_found" and model.calls == 0
    assert ans.verdict["outcome"] == "not_found" and ans.verdict["decided_by"] == "standing"
    assert ans.verdict["evidence"]["standing"]["percentile"] == 0.2
    assert "src/upload.py" in ans.answer  # the places to look
    # nearer than most off-topic questions: the model reads, and its answer stands
    workspace.stands = Standing(0.9, {"e5": 0.9}, 40, "en")
    ans = svc.ask("How many times does upload retry?")
    assert ans.found and model.calls == 1
    assert ans.verdict["outcome"] == "answer" and ans.verdict["decided_by"] == "model"


def test_an_excerpt_names_what_the_question_names_joined_or_apart():
    from groundls.answer.stages.check import names_unseen
    from groundls.answer.stages.prompt import Excerpt

    def excerpt(text: str) -> Excerpt:
        return Excerpt(1, Hit("a" * 16, "src/dirs.py", 1, 3, "code", "python", "function",
                              "get_app_dir", (), text), text)  # fmt: skip

    question = "Where is the settings folder chosen on macOS?"
    assert not names_unseen(question, [excerpt("Mac OS X: ~/Library/Application Support")])
    assert names_unseen(question, [excerpt("Windows: %APPDATA%")])


class VotingModel(FakeModel):
    """Gives no excerpt choice, but votes "Yes" over "No" by ``value`` on every prompt."""

    def __init__(self, pieces):
        super().__init__(pieces)
        self.value = 0.0

    def next_token_logprobs(self, messages, lead, choices, *, cancel=None, deadline=None):
        return [self.value, 0.0] if choices[0] == "Yes" else None


def test_an_unsure_search_whose_excerpts_the_model_votes_below_the_median_off_topic_question_is_not_found(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("GROUNDLS_CACHE_DIR", str(tmp_path))
    model = VotingModel(["Uploads are retried by retry_upload [1]."])
    svc, workspace = service([UPLOAD], model)
    workspace.confidence = "medium"
    pool = iter(range(20))  # the off-topic questions' votes in this workspace: 0 .. 19

    def pool_vote(question):
        model.value = float(next(pool))
        return svc.pool_vote(model, question)

    assert svc.votes.calibrate(model.name, "en", pool_vote) == 20
    model.value = 3.0  # surer than for 3 of the 20 off-topic questions
    ans = svc.ask("where do we retry failed uploads?")
    assert not ans.found and model.calls == 0  # decided before the model wrote a word
    assert ans.verdict["decided_by"] == "model"
    assert ans.verdict["evidence"]["vote"]["percentile"] == 0.15
    assert "src/upload.py:10-16" in ans.answer  # with the places to look
    model.value = 15.0  # surer than for most of them: the answer stands
    assert svc.ask("where do we retry failed uploads?").found
    workspace.confidence = "high"  # a search sure of its first place is not second-guessed
    model.value = 3.0
    assert svc.ask("where do we retry failed uploads?").found


def test_not_found_says_why_as_decided_the_names_the_workspace_never_mentions():
    class NamesAbsent(FakeWorkspace):
        def search(self, query, filters=None):
            found = super().search(query, filters)
            return replace(found, absent_names=("QUIC",))

    svc = AnswerService(NamesAbsent([UPLOAD]), AnswerConfig(), llm=FakeModel([]))
    svc.workspace.confidence = "low"
    ans = svc.ask("does the upload retry over QUIC?")
    assert ans.verdict["why"] == "the workspace never mentions QUIC"
    assert ans.answer.startswith("The workspace does not say: it never mentions QUIC.")
    assert "no indexed content matches" not in ans.answer
    assert ans.answer.endswith("Places to look: src/upload.py:10-16.")


def test_the_models_own_not_found_is_said_as_every_not_found_is_with_places_to_look():
    svc, _ = service([UPLOAD], FakeModel(["No, the workspace does not say."]))
    ans = svc.ask("how does billing work?")
    assert not ans.found
    assert ans.answer.startswith(wording.NOT_SAID["en"])
    assert "Places to look: src/upload.py:10-16" in ans.answer
