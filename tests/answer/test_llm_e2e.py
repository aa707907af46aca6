"""End-to-end answers with the real default model on a small fixture workspace (slow)."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from groundls.chunkers.textrules import is_cjk

from groundls.answer.model import model_files
from groundls.answer.stages.prompt import detect_language

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parents[1] / "fixtures" / "answer_ws"

if not model_files.llama_available() or model_files.packaged_parts() is None:
    pytest.skip(
        "the default model is not installed (bash scripts/install_llm.sh)", allow_module_level=True
    )


@pytest.fixture(scope="module")
def ws_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("answer") / "ws"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("index")


@pytest.fixture(scope="module")
def workspace(ws_root, index_dir):
    from groundls.config import Config
    from groundls.workspace import Workspace

    # answer quality must not depend on how busy the test machine is: a generous time limit
    # and the excerpts it reads must not depend on how fast it reads (firstTokenS 0: always
    # contextTokens)
    config, _ = Config.from_dict({"answer": {"timeLimitS": 600, "firstTokenS": 0}})
    eng = Workspace.open(ws_root, config, index_dir)
    eng.index()
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def service(workspace):
    """One AnswerService (one loaded model) shared by every test in this module."""
    from groundls.answer.service import AnswerService

    svc = AnswerService(workspace, workspace.config.answer)
    yield svc
    svc.close()


def cited_paths(ans) -> list[str]:
    return [c.path for c in ans.citations]


def assert_sound(ans, language: str) -> None:
    """What any sound answer shows, whatever words the model wrote on this machine: it is in the
    question's language, and every citation it keeps points into the excerpts it was shown, at
    lines those excerpts hold."""
    assert ans.language == language and detect_language(ans.answer) == language, ans.answer
    # a citation number the model wrote past its excerpts is dropped by the check (which ones it
    # writes is the model's choice on this CPU); what the reader gets points into the excerpts
    sources = {(s.path, s.start_line, s.end_line) for s in ans.sources}
    for c in ans.citations:
        assert (c.path, c.start_line, c.end_line) in sources, (c, ans.answer)
        assert all(c.start_line <= line <= c.end_line for line, _ in c.support), c


def test_english_question_is_answered_in_english_citing_the_retry_function(service):
    chunks: list[str] = []
    ans = service.ask("Where do we retry failed uploads?", on_token=chunks.append)
    assert ans.mode == "llm" and ans.found, ans.answer
    assert_sound(ans, "en")
    retry = [c for c in ans.citations if c.path == "src/uploader.py"]
    assert any(c.start_line <= 19 <= c.end_line for c in retry), ans.answer
    # streamed: several pieces, which together are the answer text
    assert len(chunks) > 3
    assert "".join(chunks).strip().startswith(ans.answer[:20])


def test_japanese_question_is_answered_in_japanese_citing_the_japanese_doc(service):
    ans = service.ask("ログレベルはどこで変更しますか？")
    assert ans.mode == "llm" and ans.found, ans.answer
    assert_sound(ans, "ja")
    assert "docs/logging.ja.md" in cited_paths(ans), ans.answer


def test_english_question_about_a_japanese_doc_is_answered_in_english(service):
    ans = service.ask("Which environment variable overrides the log level?")
    assert ans.found, ans.answer
    assert_sound(ans, "en")
    assert "docs/logging.ja.md" in cited_paths(ans), ans.answer


def test_a_full_answer_runs_longer_line_by_line_and_stays_cited(service):
    # how much longer a full answer runs is the model's choice (measured by the answer lab);
    # what any full answer shows: it was asked for the full form, found, cited and sound
    full = service.ask("how do I configure retries for uploads?", detail="full")
    assert full.mode == "llm" and full.found, full.answer
    assert_sound(full, "en")
    assert "src/uploader.py" in cited_paths(full), full.answer


def test_unanswerable_question_is_not_found_without_invented_citations(service):
    ans = service.ask("What is the parental leave policy for employees?")
    assert not ans.found, ans.answer
    assert ans.citations == []
    assert ans.language == "en"


def test_cancel_after_the_first_token_stops_generation_promptly(service):
    cancel = threading.Event()
    stamps: list[float] = []

    def on_token(_: str) -> None:
        if not stamps:
            stamps.append(time.monotonic())
            cancel.set()

    ans = service.ask("How do I roll back a deployment?", on_token=on_token, cancel=cancel)
    assert stamps, "no token was streamed"
    assert ans.cut
    assert ans.timing["generated_tokens"] <= 3  # stopped right after the cancel


def test_cancel_while_the_prompt_is_read_stops_before_generating(service):
    cancel = threading.Event()
    cancelled_at: list[float] = []

    def fire() -> None:
        cancelled_at.append(time.monotonic())
        cancel.set()

    def on_sources(_: list) -> None:
        # the model starts reading the excerpts right after this; cancel a moment later
        threading.Timer(0.5, fire).start()

    tokens: list[str] = []
    ans = service.ask(
        "キャッシュはどうやって削除しますか？",
        on_sources=on_sources,
        on_token=tokens.append,
        cancel=cancel,
    )
    assert cancelled_at and ans.cut
    # how fast prompt reading stops is measured by scripts/lab/bench_answers.py, not here
    assert tokens == [] or ans.timing["generated_tokens"] <= 3


@pytest.fixture(scope="module")
def cli_config(tmp_path_factory):
    path = tmp_path_factory.mktemp("cfg") / "groundls.json"
    path.write_text(json.dumps({"answer": {"timeLimitS": 600, "firstTokenS": 0}}))
    return str(path)


def test_cli_ask_json_and_history(ws_root, index_dir, service, cli_config):
    env = dict(os.environ, GROUNDLS_INDEX_DIR=str(index_dir))
    cmd = [sys.executable, "-m", "groundls.cli", "ask", "--workspace", str(ws_root), "--json"]
    cmd += ["--config", cli_config]
    out = subprocess.run(
        [*cmd, "Where do we retry failed uploads?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["found"] and data["mode"] == "llm" and data["language"] == "en"
    assert "src/uploader.py" in {c["path"] for c in data["citations"]}, data["answer"]
    assert set(data["timing"]) == {"retrieve_ms", "first_token_ms", "total_ms"}
    # the excerpts the model read, by rank, and the one it chose among them before writing
    assert [s["n"] for s in data["sources"]] == list(range(1, len(data["sources"]) + 1))
    assert {c["path"] for c in data["citations"]} <= {s["path"] for s in data["sources"]}
    assert data["chosen"] is None or 1 <= data["chosen"] <= len(data["sources"])
    if len(data["sources"]) > 1:
        assert data["chosen"] is not None
    hist = subprocess.run(
        [sys.executable, "-m", "groundls.cli", "history", "--workspace", str(ws_root), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert hist.returncode == 0, hist.stderr
    records = json.loads(hist.stdout)
    assert any(r["question"] == "Where do we retry failed uploads?" for r in records)


def test_cli_ask_streams_text_to_a_terminal_then_lists_sources(
    ws_root, index_dir, service, cli_config
):
    # a pseudo-terminal: the answer is streamed to a terminal only (piped, only the checked one)
    env = dict(os.environ, GROUNDLS_INDEX_DIR=str(index_dir))
    terminal, child_end = pty.openpty()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "groundls.cli",
            "ask",
            "--workspace",
            str(ws_root),
            "--config",
            cli_config,
            "ログレベルはどこで変更しますか？",
        ],
        stdout=child_end,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(child_end)
    reads: list[bytes] = []
    while True:
        try:
            chunk = os.read(terminal, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        reads.append(chunk)
    proc.wait(timeout=900)
    os.close(terminal)
    text = b"".join(reads).decode()
    assert proc.returncode == 0, proc.stderr.read().decode() if proc.stderr else ""
    assert len(reads) > 2, "the answer was not streamed"
    assert "Sources:" in text and "docs/logging.ja.md:" in text


def test_japanese_question_about_english_code_is_searched_in_english_too(tmp_path):
    from groundls.config import Config
    from groundls.workspace import Workspace

    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "pager.py").write_text(
        "def echo_via_pager(text):\n"
        '    """Show long text one screen at a time through a pager program."""\n'
        "    pager = os.environ.get('PAGER', 'less')\n"
        "    run(pager, text)\n",
        encoding="utf-8",
    )
    (ws / "src" / "colors.py").write_text(
        "def style(text, fg=None):\n    return ansi(fg) + text + RESET\n", encoding="utf-8"
    )
    workspace = Workspace.open(ws, Config(), tmp_path / "index")
    try:
        workspace.index()
        result = workspace.search("長いテキストをページャーで1画面ずつ表示する関数はどこ？")
        assert result.searched_as, "the question was rewritten as English words"
        assert not is_cjk(result.searched_as)
        assert result[0].path == "src/pager.py"
    finally:
        workspace.close()


def test_a_question_enters_the_answer_service_once_even_when_its_search_translates_it(
    workspace, monkeypatch
):
    """A Chinese question over code and Japanese docs is searched as English and as Japanese
    words; those translations come from the workspace's model, not back through the service."""
    answers = workspace.answers  # made before the trace: the service is built once per workspace
    entries: list[str] = []
    translated: list[str] = []
    for name in ("english", "japanese"):
        real = getattr(workspace.translations.rewriter, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            translated.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(workspace.translations.rewriter, name, spy)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.endswith("answer/service.py"):
            caller = frame.f_back
            if caller is None or not caller.f_code.co_filename.endswith("answer/service.py"):
                entries.append(frame.f_code.co_name)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        ans = answers.ask("上传失败时在哪里重试？")
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert ans.citations, ans.answer
    assert set(translated) == {"english", "japanese"}
    assert entries == ["ask"]


def test_the_system_prompt_is_not_read_again_after_another_prompt_came_between(service):
    from groundls.answer.model import runtime
    from groundls.answer.stages.prompt import build_messages

    model = service.slot.get()
    question = build_messages("How do I roll back a deployment?", [], "en")
    list(model.stream(question, max_tokens=2, stats=runtime.GenerationStats()))
    other = [{"role": "system", "content": "Rewrite as English."}, {"role": "user", "content": "x"}]
    list(model.stream(other, max_tokens=2, stats=runtime.GenerationStats()))
    again = runtime.GenerationStats()
    list(model.stream(question, max_tokens=2, stats=again))
    # the other prompt shares no tokens with the system prompt: its state was restored
    assert again.reused_tokens >= model._fixed_prefix(question, model.prompt_tokens(question))
    assert again.reused_tokens > 50


def test_choice_probabilities_are_the_same_when_the_cache_already_holds_the_lead(service):
    # an answer that began with the choose step's own lead leaves it (and more) in the cache:
    # the probabilities read after it must be the lead's, not those of the last token generated
    from groundls.answer.stages.prompt import build_messages

    model = service.slot.get()
    messages = build_messages("How do I roll back a deployment?", [], "en")
    lead = "The answer is ["
    first = model.next_token_logprobs(messages, lead, ["1", "2"])
    llm = model.load()
    llm.eval(llm.tokenize(b"1] and more", add_bos=False, special=False))
    again = model.next_token_logprobs(messages, lead, ["1", "2"])
    assert first is not None and again is not None
    assert again == pytest.approx(first, abs=0.05)


def test_a_model_loaded_but_never_asked_is_still_unloaded_when_idle():
    # the answer service loads the model while its search runs; when the search finds nothing
    # the model is never asked, and must not stay loaded for ever
    from groundls.answer.model import runtime

    spec, _ = model_files.resolve_model("", True)
    model = runtime.LocalLLM(spec, n_ctx=512, idle_unload_s=60)
    try:
        model.load()
        assert model._timer is not None and model._timer.is_alive()
        model._idle()
        assert not model.loaded
    finally:
        model.close()


def test_a_follow_up_on_the_command_line_continues_the_last_conversation(tmp_path):
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    cli = [sys.executable, "-m", "groundls.cli"]
    where = ["-w", str(root), "--index-dir", str(tmp_path / "index")]

    def ask(*words: str) -> dict:
        out = subprocess.run(
            [*cli, "ask", "--json", *where, *words], check=True, capture_output=True, text=True
        )
        return json.loads(out.stdout)

    first = ask("Where do we retry failed uploads?")
    second = ask("--follow-up", "How long does it wait between the attempts?")
    assert second["thread"] == first["thread"]
    assert second["found"] and second["citations"], second["answer"]
    assert "src/uploader.py" in {c["path"] for c in second["citations"]}, second["answer"]
    history = subprocess.run(
        [*cli, "history", "--json", *where], check=True, capture_output=True, text=True
    )
    records = json.loads(history.stdout)
    assert [r["thread"] for r in records[:2]] == [first["thread"], first["thread"]]
    assert records[0]["searched"]  # the follow-up was searched as a standalone question
    third = ask("What does the report module do?")
    assert third["thread"] != first["thread"]  # a new question starts a new conversation


def _excerpt(n: int, path: str, text: str):
    from groundls.answer.stages.prompt import Excerpt
    from groundls.results import Hit

    lines = text.count("\n") + 1
    hit = Hit(f"c{n}", path, 1, lines, "doc", "markdown", "prose", path, (), text)
    return Excerpt(n, hit, text)


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "How many times is a failed upload retried?"),
        ("ja", "失敗したアップロードは何回まで再試行しますか？"),
    ],
)
def test_the_model_chooses_the_second_excerpt_when_only_it_answers(service, language, question):
    from groundls.answer.stages import choose
    from groundls.answer.stages.prompt import build_messages

    excerpts = [
        _excerpt(1, "docs/style.md", "Use four spaces for indentation and keep lines short."),
        _excerpt(
            2,
            "docs/uploads.md",
            "A failed upload is retried up to five times, waiting longer each time.",
        ),
    ]
    model = service.slot.get()
    got = choose.choose(model, build_messages(question, excerpts, language), language, 2)
    assert got is not None and got.excerpt == 2, got
