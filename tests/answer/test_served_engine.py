"""The ``openai`` answer engine against real servers on 127.0.0.1 (slow).

A real llama.cpp server (llama-cpp-python's, started through ``groundls.answer.model.llama_server`` so
it runs on machines whose repacked CPU buffers crash it) serves the packaged model; the faults a
real server does not make on demand (a malformed event stream, HTTP 500, a silent server) come
from a plain socket server speaking real HTTP.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from groundls.answer.model import model_files
from groundls.answer.model.served import ServedLLM, ServedModelError
from groundls.answer.model.thinking import ThinkFilter
from groundls.config import AnswerConfig, Config
from groundls.workspace import Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "answer_ws"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_think_blocks_are_dropped_even_when_split_across_pieces() -> None:
    think = ThinkFilter()
    pieces = ["Sure<thi", "nk>the user wants", " X</th", "ink>The answer", " is 5 [1]."]
    assert "".join(think.feed(p) for p in pieces) + think.finish() == "SureThe answer is 5 [1]."


def test_a_remote_endpoint_needs_allow_remote() -> None:
    config = AnswerConfig(engine="openai", base_url="http://10.9.8.7:8080/v1", model="m")
    with pytest.raises(ServedModelError, match="allowRemote"):
        ServedLLM(config)
    allowed = ServedLLM(AnswerConfig(**{**config.__dict__, "allow_remote": True}))
    assert allowed.remote_note == "workspace content is sent to 10.9.8.7"
    local = ServedLLM(AnswerConfig(engine="openai", base_url="http://localhost:1/v1", model="m"))
    assert local.remote_note == ""


# -- a plain HTTP server for the faults -----------------------------------------------------------


class FaultServer:
    """Answers every request per ``mode``: "malformed" (a broken event stream), "500", "silent"
    (accepts, never answers) or "slow-stream" (one token, then silence)."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.requests = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        self.requests += 1
        with conn:
            conn.recv(65536)
            if self.mode == "silent":
                time.sleep(30)
                return
            if self.mode == "500":
                body = b'{"error": {"message": "boom"}}'
                conn.sendall(
                    b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                return
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
            good = {
                "id": "x",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}],
            }
            conn.sendall(head + b"data: " + json.dumps(good).encode() + b"\n\n")
            if self.mode == "malformed":
                conn.sendall(b"data: {not json at all\n\n")
            elif self.mode == "slow-stream":
                time.sleep(30)

    def config(self, **over: object) -> AnswerConfig:
        base = {"engine": "openai", "base_url": f"http://127.0.0.1:{self.port}/v1", "model": "m"}
        return AnswerConfig(**{**base, "retries": 0, **over})  # type: ignore[arg-type]

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize(
    ("mode", "says"),
    [("malformed", "malformed stream"), ("500", "HTTP 500"), ("silent", "did not answer in time")],
)
def test_a_broken_server_is_a_clear_error_within_the_timeouts(mode: str, says: str) -> None:
    server = FaultServer(mode)
    try:
        model = ServedLLM(server.config(first_token_timeout_s=1.0, connect_timeout_s=1.0))
        # "did not answer in time" is the timeout's own error: the silent server would only
        # close the connection (not reachable) after its 30 s
        with pytest.raises(ServedModelError, match=says):
            list(model.stream([{"role": "user", "content": "hi"}]))
    finally:
        server.close()


def test_nothing_listening_is_not_reachable_after_bounded_retries() -> None:
    port = free_port()
    model = ServedLLM(
        AnswerConfig(engine="openai", base_url=f"http://127.0.0.1:{port}/v1", model="m", retries=2)
    )
    with pytest.raises(ServedModelError, match="not reachable"):
        list(model.stream([{"role": "user", "content": "hi"}]))


# -- the real llama.cpp server ---------------------------------------------------------------------

needs_model = pytest.mark.skipif(
    not model_files.llama_available() or model_files.packaged_parts() is None,
    reason="the answer model is not installed (GROUNDLS_NO_LLM=1)",
)


def _start_llama(port: int, *extra: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "groundls.answer.model.llama_server", "--host", "127.0.0.1",
            "--port", str(port), "--model_alias", "qwen", "--n_ctx", "4096", *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the llama.cpp server exited at start")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return proc
        except OSError as exc:
            if "401" in str(exc):
                return proc
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("the llama.cpp server did not start")


@pytest.fixture(scope="module")
def llama_port() -> Iterator[int]:
    port = free_port()
    proc = _start_llama(port)
    yield port
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def served_workspace(tmp_path_factory, llama_port: int) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("served") / "ws"
    shutil.copytree(FIXTURE, root)
    config, warnings = Config.from_dict(
        {
            "answer": {
                "engine": "openai",
                "baseUrl": f"http://127.0.0.1:{llama_port}/v1",
                "model": "qwen",
                "timeLimitS": 600,
            }
        }
    )
    assert not warnings
    workspace = Workspace.open(root, config, tmp_path_factory.mktemp("index"))
    workspace.index()
    yield workspace
    workspace.close()


@pytest.mark.slow
@needs_model
def test_a_served_model_streams_a_cited_answer(served_workspace: Workspace) -> None:
    pieces: list[str] = []
    answer = served_workspace.answers.ask(
        "Where do we retry failed uploads?", on_token=pieces.append
    )
    # the served model wrote it; where its words only restate the question, the check puts the
    # excerpts' key lines in their place (which of the two depends on the model's words)
    assert answer.mode in ("llm", "extractive") and answer.found, answer.answer
    assert answer.model == "qwen @ 127.0.0.1"
    assert answer.citations and answer.citations[0].path == "src/uploader.py", answer.answer
    assert len(pieces) > 1 and "".join(pieces).strip()
    assert served_workspace.answers.status()["engine"] == "openai"


@pytest.mark.slow
@needs_model
def test_a_follow_up_through_a_served_model_continues_the_conversation(
    served_workspace: Workspace,
) -> None:
    first = served_workspace.answers.ask("Where do we retry failed uploads?")
    second = served_workspace.answers.ask(
        "How long does it wait between the attempts?", thread=first.thread
    )
    assert second.thread == first.thread
    assert second.found and second.citations[0].path == "src/uploader.py", second.answer


@pytest.mark.slow
@needs_model
def test_a_served_model_rewrites_a_japanese_question_for_search(
    served_workspace: Workspace,
) -> None:
    english = served_workspace.translations.english(
        f"アップロードの再試行はどこ？ {time.time_ns()}"
    )
    assert english and english.isascii()


@pytest.mark.slow
@needs_model
def test_a_wrong_key_is_unauthorised_and_the_answer_says_so(tmp_path: Path, monkeypatch) -> None:
    port = free_port()
    proc = _start_llama(port, "--api_key", "right-key")
    try:
        monkeypatch.setenv("GROUNDLS_TEST_KEY", "wrong-key")
        model = ServedLLM(
            AnswerConfig(
                engine="openai",
                base_url=f"http://127.0.0.1:{port}/v1",
                model="qwen",
                api_key_env="GROUNDLS_TEST_KEY",
            )
        )
        with pytest.raises(ServedModelError, match="unauthorised") as caught:
            list(model.stream([{"role": "user", "content": "hi"}], max_tokens=4))
        assert "wrong-key" not in str(caught.value)
        monkeypatch.setenv("GROUNDLS_TEST_KEY", "right-key")
        good = ServedLLM(model.config)
        assert "".join(good.stream([{"role": "user", "content": "Say hi"}], max_tokens=4))
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow
@needs_model
def test_a_server_killed_mid_answer_gives_an_extractive_answer_and_history_holds(
    tmp_path: Path,
) -> None:
    port = free_port()
    proc = _start_llama(port)
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    config, _ = Config.from_dict(
        {"answer": {"engine": "openai", "baseUrl": f"http://127.0.0.1:{port}/v1", "model": "qwen",
                    "retries": 0, "timeLimitS": 600}}
    )  # fmt: skip
    workspace = Workspace.open(root, config, tmp_path / "index")
    workspace.index()
    try:

        def kill_on_first_token(piece: str) -> None:
            if proc.poll() is None:
                proc.kill()

        answer = workspace.answers.ask(
            "Where do we retry failed uploads?", on_token=kill_on_first_token
        )
        assert answer.mode == "extractive", answer.answer
        assert "not reachable" in answer.notice or "malformed" in answer.notice, answer.notice
        history = workspace.history(5)
        assert history and history[0]["question"] == "Where do we retry failed uploads?"
        assert history[0]["mode"] == answer.mode
    finally:
        proc.kill()
        workspace.close()


EXCERPTS = (
    "Excerpts:\n[1] src/cats.md:1-3\nCats sleep for most of the day.\n"
    "[2] src/geo.md:1-3\nThe capital of France is Paris.\n"
    "[3] src/rust.md:1-3\nRust has no garbage collector.\n\n"
    "Question: What is the capital of France?"
)


@pytest.mark.slow
@needs_model
def test_a_served_model_with_token_logprobs_chooses_the_excerpt_that_answers(
    llama_port: int,
) -> None:
    from groundls.answer.stages.choose import LEAD, choose

    model = ServedLLM(
        AnswerConfig(engine="openai", base_url=f"http://127.0.0.1:{llama_port}/v1", model="qwen")
    )
    messages = [
        {"role": "system", "content": "Answer only from the numbered excerpts."},
        {"role": "user", "content": EXCERPTS},
    ]
    scores = model.next_token_logprobs(messages, LEAD["en"], ["1", "2", "3"])
    assert scores is not None and len(scores) == 3
    assert max(range(3), key=scores.__getitem__) == 1  # excerpt 2 holds the answer
    choice = choose(model, messages, "en", 3)
    assert choice is not None and choice.excerpt == 2


def test_a_server_without_token_logprobs_chooses_nothing() -> None:
    from types import SimpleNamespace as NS

    from groundls.answer.model.served_choice import scores_after_lead, served_logprobs

    def token(text: str, top: dict[str, float]) -> NS:
        return NS(token=text, top_logprobs=[NS(token=t, logprob=p) for t, p in top.items()])

    lead = "The excerpt that answers this is ["
    written = [token("The excerpt that answers this is", {}), token(" [", {}), token("2", {})]
    written[2] = token("2", {"2": -0.1, "1": -2.5})
    # read at the token after the lead's bracket; a number not listed counts below the rest
    assert scores_after_lead(written, lead, ["1", "2", "3"]) == [-2.5, -0.1, -3.5]
    # the reply never wrote the lead: nothing is chosen
    assert scores_after_lead([token("Paris", {"Paris": -0.1})], lead, ["1", "2"]) is None

    class NoLogprobs:
        class chat:  # noqa: N801 - the OpenAI client's shape
            class completions:  # noqa: N801
                @staticmethod
                def create(**_: object) -> NS:
                    return NS(choices=[NS(logprobs=None)])

    assert (
        served_logprobs(NoLogprobs(), "m", [{"role": "user", "content": "q"}], lead, ["1"]) is None
    )
