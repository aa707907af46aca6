"""End-to-end: the real server over stdio, the real workspace and bundled models, recorded clients."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.helpers.lsp_client import (
    CLIENTS,
    INDEX_TIMEOUT_S,
    Session,
    command,
    command_error,
    copy_workspace,
    hover,
    index_tokens,
    path_fields,
    start_session,
    stop_session,
)

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=CLIENTS)
async def session(request: pytest.FixtureRequest, tmp_path_factory) -> AsyncIterator[Session]:
    base = tmp_path_factory.mktemp(request.param)
    ws = copy_workspace(base)
    s = await start_session(
        request.param,
        [ws],
        base / "index",
        # Answers in extractive mode: fast and deterministic here; the LLM path is the answer
        # service's own end-to-end test.
        init_options={
            "groundls": {
                "logLevel": "debug",
                "hover": {"count": 3},
                "answer": {"usePackagedModel": False, "modelPath": ""},
            }
        },
        # An invalid value from workspace/configuration must warn and fall back to the default.
        client_config={"search": {"k": "ten"}},
    )
    yield s
    code = await stop_session(s)
    assert code == 0, f"server exit code {code}"


# -- start-up ---------------------------------------------------------------------------------


async def test_every_command_is_listed_in_execute_command_provider(session: Session) -> None:
    provider = session.init_result.capabilities.execute_command_provider
    assert provider is not None
    assert set(provider.commands) == {
        "groundls.search",
        "groundls.similar",
        "groundls.ask",
        "groundls.reindex",
        "groundls.reference",
        "groundls.status",
        "groundls.history",
        "groundls.documentText",
        "groundls.deleteHistory",
        "groundls.related",
        "groundls.askInDocument",
    }
    assert session.init_result.capabilities.hover_provider


async def test_initial_indexing_reports_begin_report_end_with_file_counts(
    session: Session,
) -> None:
    # the first indexing progress is the initial index (tests that ran before may have
    # re-indexed since)
    tokens = index_tokens(session.client)
    assert tokens
    reports = session.client.progress_reports[tokens[0]]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert "indexing" in reports[0].title
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    middle = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert middle, "no $/progress report between begin and end"
    percentages = [r.percentage for r in middle]
    assert percentages == sorted(percentages)
    assert middle[-1].percentage == 100
    assert "7 of 7 files" in middle[-1].message
    assert "7 files" in reports[-1].message


async def test_the_deep_tier_fills_in_the_background_with_its_own_progress_in_chunks(
    session: Session,
) -> None:
    caps = session.client.capabilities
    if not (caps and caps.window and caps.window.work_done_progress):
        pytest.skip("this client takes no $/progress")
    reports = session.client.progress_reports
    deadline = time.monotonic() + INDEX_TIMEOUT_S
    while time.monotonic() < deadline:
        # a token is known from its create request, before its first report arrives
        deep = [t for t in reports if str(t).startswith("groundls/deep/") and reports[t]]
        if deep and isinstance(reports[deep[0]][-1], types.WorkDoneProgressEnd):
            break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError("the deep tier did not finish")
    sequence = reports[deep[0]]
    assert isinstance(sequence[0], types.WorkDoneProgressBegin)
    assert "deep tier" in sequence[0].title
    middle = [r for r in sequence if isinstance(r, types.WorkDoneProgressReport)]
    assert middle and "chunks" in middle[-1].message
    assert "deep tier ready" in sequence[-1].message
    status = await command(session, "groundls.status", {})
    assert all(f["deepTier"] == "" for f in status["folders"])  # not filling any more
    result = await command(session, "groundls.search", {"query": "invoice total"})
    assert result["hits"]


async def test_invalid_setting_from_the_client_warns_and_falls_back(session: Session) -> None:
    warnings = [m for m in session.client.messages if m.type == types.MessageType.Warning]
    assert any("search.k" in m.message and "ten" in m.message for m in warnings), warnings
    result = await command(session, "groundls.search", {"query": "invoice total"})
    assert 0 < len(result["hits"]) <= 10  # the default k


async def test_watched_files_are_registered_only_when_the_client_supports_it(
    session: Session,
) -> None:
    methods = [r.method for r in session.registrations]
    dynamic = session.client_name == "visual-studio-code"
    assert (types.WORKSPACE_DID_CHANGE_WATCHED_FILES in methods) == dynamic


async def test_logs_reach_the_client_as_log_messages(session: Session) -> None:
    assert any("serving 1 folder" in m.message for m in session.client.log_messages)


# -- groundls.search ----------------------------------------------------------------------------


async def test_search_returns_relative_paths_with_zero_based_lsp_ranges(session: Session) -> None:
    result = await command(session, "groundls.search", {"query": "sales tax rate", "k": 5})
    hits = result["hits"]
    assert hits and len(hits) <= 5
    assert result["indexing"] is False
    paths = [h["path"] for h in hits]
    assert "docs/billing.md" in paths or "src/billing/invoice.py" in paths
    for hit in hits:
        assert not hit["path"].startswith("/")
        assert hit["uri"] == session.uri(hit["path"])
        assert hit["range"]["start"]["line"] == hit["startLine"] - 1
        assert hit["range"]["end"]["line"] >= hit["endLine"] - 1
        assert len(hit["chunkId"]) == 16
        assert set(hit) >= {"kind", "title", "breadcrumb", "snippet", "score"}


async def test_search_explains_each_hit_when_asked_and_only_then(session: Session) -> None:
    asked = {"query": "sales tax rate", "k": 3}
    plain = await command(session, "groundls.search", asked)
    assert all("explain" not in hit for hit in plain["hits"]) and "language" not in plain
    result = await command(session, "groundls.search", {**asked, "explain": True})
    # the language stage's decision, per folder
    assert [d["script"] for d in result["language"].values()] == ["latin"]
    assert all(d["rewrite"] == "not needed" for d in result["language"].values())
    assert [h["chunkId"] for h in result["hits"]] == [h["chunkId"] for h in plain["hits"]]
    for hit in result["hits"]:
        why = hit["explain"]
        assert why["score"] == pytest.approx(hit["score"], abs=1e-3)
        assert why["lists"] and {"list", "rank", "weight", "share"} <= set(why["lists"][0])
        assert sum(p["share"] for p in why["lists"]) == pytest.approx(1.0, abs=0.01)
    status = await command(session, "groundls.status", {})
    ranking = status["folders"][0]["ranking"]
    assert ranking["english"]["keyword"] > 0 and ranking["japanese"]["vector:use"] > 0
    assert any("keyword list" in rule for rule in ranking["perQuestion"])


async def test_a_pasted_file_as_the_query_is_answered_and_so_is_the_next_one(
    session: Session,
) -> None:
    # agents paste whole files and logs: each list reads only what its model can use, so the
    # server answers instead of embedding a megabyte window by window (a hang guard, not a time)
    pasted = "年次有給休暇の付与日数と繰り越しについての規程。" * 12_000  # ~300,000 characters
    for query in (pasted, pasted * 3 + " sales tax rate"):
        result = await asyncio.wait_for(
            command(session, "groundls.search", {"query": query, "k": 3}), 120
        )
        assert result["hits"]
    after = await command(session, "groundls.search", {"query": "sales tax rate", "k": 3})
    assert after["hits"]


async def test_search_in_japanese_finds_the_japanese_note(session: Session) -> None:
    query = "年次有給休暇は何日付与されますか"
    result = await command(session, "groundls.search", {"query": query})
    assert result["hits"][0]["path"] == "docs/ja/休暇.md"


async def test_search_filters_by_kind_and_path(session: Session) -> None:
    docs = await command(session, "groundls.search", {"query": "discount", "kinds": ["doc"]})
    assert docs["hits"] and {h["kind"] for h in docs["hits"]} == {"doc"}
    web = await command(session, "groundls.search", {"query": "discount", "paths": ["web/**"]})
    assert web["hits"] and all(h["path"].startswith("web/") for h in web["hits"])


@pytest.mark.parametrize(
    ("arguments", "hint"),
    [
        ([], '"query" is required'),
        ([{}], '"query" is required'),
        ([{"query": 3}], '"query" must be a string'),
        ([{"query": "  "}], "must not be empty"),
        ([{"query": "x", "k": "5"}], '"k" must be an integer'),
        ([{"query": "x", "k": 0}], '"k" must be between 1 and 100'),
        ([{"query": "x", "kinds": ["bogus"]}], "unknown kind"),
        ([{"query": "x", "paths": "src/**", "languages": [1]}], '"languages" must be an array'),
        ([{"querry": "x"}], "unknown argument(s) 'querry'"),
        (["sales tax"], "the argument must be an object"),
        ([{"query": "x"}, {"k": 1}], "expected one argument, got 2"),
    ],
)
async def test_search_with_bad_arguments_is_invalid_params(
    session: Session, arguments: list, hint: str
) -> None:
    error = await command_error(session, "groundls.search", arguments)
    assert error.code == INVALID_PARAMS
    assert hint in error.message


async def test_unknown_command_is_invalid_params_listing_the_commands(session: Session) -> None:
    error = await command_error(session, "groundls.serch", [{"query": "x"}])
    assert error.code == INVALID_PARAMS
    assert "groundls.search" in error.message


# -- groundls.similar / reference ------------------------------------------------------------


async def test_similar_at_a_position_excludes_the_chunk_itself(session: Session) -> None:
    # line 18 (0-based 17) is inside apply_discount in src/billing/invoice.py
    result = await command(
        session,
        "groundls.similar",
        {"uri": session.uri("src/billing/invoice.py"), "position": {"line": 17, "character": 4}},
    )
    source = result["source"]
    assert source["path"] == "src/billing/invoice.py"
    assert source["startLine"] <= 18 <= source["endLine"]
    ids = [h["chunkId"] for h in result["hits"]]
    assert ids and source["chunkId"] not in ids
    assert {h["path"] for h in result["hits"]} & {"docs/billing.md", "web/src/cart.ts"}


async def test_similar_by_chunk_id_and_its_errors(session: Session) -> None:
    found = await command(session, "groundls.search", {"query": "logout ends the session"})
    chunk_id = found["hits"][0]["chunkId"]
    result = await command(session, "groundls.similar", {"chunkId": chunk_id, "k": 2})
    assert 0 < len(result["hits"]) <= 2
    assert chunk_id not in [h["chunkId"] for h in result["hits"]]

    missing = await command_error(session, "groundls.similar", [{"chunkId": "0" * 16}])
    assert missing.code == REQUEST_FAILED and "chunk not found" in missing.message
    malformed = await command_error(session, "groundls.similar", [{"chunkId": "xyz"}])
    assert malformed.code == INVALID_PARAMS and "16" in malformed.message
    nowhere = await command_error(
        session, "groundls.similar", [{"uri": session.uri("x.py"), "position": {"line": -1}}]
    )
    assert nowhere.code == INVALID_PARAMS and "position.line" in nowhere.message


async def test_reference_returns_the_seed_003_shape(session: Session) -> None:
    found = await command(session, "groundls.search", {"query": "standard rate 20 percent"})
    hit = next(h for h in found["hits"] if h["path"] == "docs/billing.md")
    result = await command(session, "groundls.reference", {"chunkId": hit["chunkId"]})
    ref = result["reference"]
    assert ref["doc"]["path"] == "docs/billing.md"
    assert ref["doc"]["title"] == "Billing"
    assert len(ref["doc"]["id"]) == 16
    chunk = ref["chunk"]
    assert chunk["chunkId"] == hit["chunkId"]
    assert chunk["textType"] and chunk["content"]
    assert chunk["display"]["breadcrumb"][0] == "Billing"
    assert [p["level"] for p in chunk["sectionPath"]] == list(
        range(1, len(chunk["sectionPath"]) + 1)
    )
    assert isinstance(ref["relatedChunks"], list)
    for related in ref["relatedChunks"]:
        assert related["chunkId"] != chunk["chunkId"]
    assert all(not p.startswith("/") for p in path_fields(result))


async def test_reference_errors_mean_not_found_and_invalid_params(session: Session) -> None:
    missing = await command_error(session, "groundls.reference", [{"chunkId": "f" * 16}])
    assert missing.code == REQUEST_FAILED
    assert missing.message.startswith("chunk not found: ffff")
    for bad in ([{"chunkId": "ABC"}], [{"chunkId": 12}], [{}], [{"chunkId": "a" * 16, "x": 1}]):
        error = await command_error(session, "groundls.reference", bad)
        assert error.code == INVALID_PARAMS, bad


# -- groundls.status / reindex / history / ask -----------------------------------------------


async def test_status_reports_the_folder_without_absolute_paths(session: Session) -> None:
    result = await command(session, "groundls.status", {})
    (folder,) = result["folders"]
    assert folder["uri"] == session.root.as_uri()
    assert folder["state"] == "ready" and folder["indexing"] is False
    assert folder["files"] >= 6 and folder["chunks"] >= 10
    assert folder["model"]
    assert folder["answers"]["engine"] == "local" and "loaded" in folder["answers"]
    assert {t["space"] for t in folder["tiers"]} >= {"static", "minilm", "use", "e5"}
    assert folder["sendsTo"] == []
    assert folder["index"]["file"].endswith(".sqlite")
    text = json.dumps(result, ensure_ascii=False)
    assert str(session.index_dir) not in text
    assert all(not p.startswith("/") for p in path_fields(result))
    error = await command_error(session, "groundls.status", [{"verbose": True}])
    assert error.code == INVALID_PARAMS


async def test_reindex_returns_counts_for_the_workspace_and_one_file(session: Session) -> None:
    whole = await command(session, "groundls.reindex", {})
    assert whole["files"] >= 6
    assert whole["cancelled"] is False
    assert set(whole) >= {"files", "chunks", "embedded", "reused", "skipped", "seconds"}
    one = await command(session, "groundls.reindex", {"uri": session.uri("docs/auth.md")})
    assert one["files"] == 1
    error = await command_error(session, "groundls.reindex", [{"uri": "file:///elsewhere/x.md"}])
    assert error.code == INVALID_PARAMS and "not inside" in error.message


async def test_ask_streams_progress_and_returns_cited_answer(session: Session) -> None:
    token = f"ask-{session.client_name}"
    session.client.progress_reports.setdefault(token, [])
    question = "What is the standard sales tax rate?"
    result = await command(session, "groundls.ask", {"question": question}, token=token)
    assert result["found"] is True
    assert result["mode"] == "extractive"
    assert result["confidence"] in ("high", "medium", "low")
    assert "20 percent" in result["answer"]
    assert result["citations"]
    for cite in result["citations"]:
        assert set(cite) >= {"n", "chunkId", "uri", "range", "path", "startLine", "endLine"}
        assert cite["range"]["start"]["line"] == cite["startLine"] - 1
    assert {c["path"] for c in result["citations"]} & {"docs/billing.md", "src/billing/invoice.py"}
    reports = session.client.progress_reports[token]
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    streamed = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert result["answer"] in streamed  # the answer text arrived before the result
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)

    history = await command(session, "groundls.history", {"limit": 5})
    entry = next(e for e in history["entries"] if e.get("question") == question)
    assert entry["folder"] == session.root.name
    assert all("_" not in key for key in entry), entry  # camelCase like the rest
    for cite in entry["citations"]:
        assert cite["uri"] == session.uri(cite["path"])
        assert cite["range"]["start"]["line"] == cite["startLine"] - 1
        # supporting lines as in an answer: {line, text}, not the stored pairs
        assert all(set(line) == {"line", "text"} for line in cite["support"])
    assert all(not p.startswith("/") for p in path_fields(history))


async def test_a_history_thread_can_be_deleted_and_a_second_delete_is_not_found(
    session: Session,
) -> None:
    question = "What is the sales tax rate, asked to be forgotten?"
    await command(session, "groundls.ask", {"question": question})
    history = await command(session, "groundls.history", {"limit": 20})
    entry = next(e for e in history["entries"] if e.get("question") == question)
    gone = await command(session, "groundls.deleteHistory", {"thread": entry["thread"]})
    assert gone == {"thread": entry["thread"], "deleted": 1}
    history = await command(session, "groundls.history", {"limit": 20})
    assert all(e.get("question") != question for e in history["entries"])
    error = await command_error(session, "groundls.deleteHistory", [{"thread": entry["thread"]}])
    assert error.code == REQUEST_FAILED and "no history thread" in error.message
    error = await command_error(session, "groundls.deleteHistory", [{"thread": 0}])
    assert error.code == INVALID_PARAMS


async def test_ask_with_bad_arguments_is_invalid_params(session: Session) -> None:
    for bad in ([{}], [{"question": ["a"]}], [{"question": "x", "k": 99}]):
        error = await command_error(session, "groundls.ask", bad)
        assert error.code == INVALID_PARAMS, bad
    error = await command_error(session, "groundls.history", [{"limit": "all"}])
    assert error.code == INVALID_PARAMS


# -- hover --------------------------------------------------------------------------------------


async def test_hover_lists_related_chunks_from_other_places(session: Session) -> None:
    result = await hover(session, "src/billing/invoice.py", 17)
    assert result is not None
    text = result.contents.value
    assert text.startswith("**Related in this workspace**")
    items = [line for line in text.splitlines() if line[:3] in ("1. ", "2. ", "3. ")]
    assert len(items) == 3
    for item in items:
        assert "](file://" in item and "#L" in item
        assert "src/billing/invoice.py:17`" not in item  # not the chunk under the cursor
    assert "docs/billing.md" in text or "web/src/cart.ts" in text
    assert result.range is not None and result.range.start.line <= 17


async def test_hover_outside_indexed_files_is_null(session: Session) -> None:
    outside = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=Path("/tmp/none.py").as_uri()),
            position=types.Position(line=0, character=0),
        )
    )
    assert outside is None
    assert await hover(session, "src/billing/does_not_exist.py", 0) is None
