"""A rewritten Japanese question in a workspace of Japanese and English passages: which
language's passages are the less likely answer."""

from __future__ import annotations

from pathlib import Path

from groundls import wire
from groundls.index.embed.spaces import SpacePolicy
from groundls.results import Hit, SearchFilters
from groundls.search import judge as judge_module
from groundls.search import searcher as searcher_module
from groundls.search import signals
from groundls.search.fusion import RankedList
from groundls.search.language import LanguageDecision
from groundls.search.lists import Evidence
from groundls.search.query import analyse
from groundls.search.vectors import embed_queries
from groundls.workspace import Workspace
from tests.test_workspace import open_workspace


def _hit(kind: str, text: str) -> Hit:
    return Hit("h" * 16, "x", 1, 2, kind, "", "section", "t", (), text)


def _log_and_retry_docs(tmp_path: Path, fake_embedders, **config) -> Workspace:
    """An indexed workspace of one Japanese passage (log retention) and one English passage
    (upload retries), written spaced for the fake embedder."""
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    (ws_dir / "docs" / "logs.ja.md").write_text("# ログ\n\nログ の 保存 期間 は 七日 です 。\n")
    (ws_dir / "docs" / "retry.md").write_text("# Retries\n\nfailed uploads are retried\n")
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders, **config)
    workspace.index()
    return workspace


def test_japanese_prose_is_japanese_and_code_is_english_whatever_its_comments():
    assert signals.passage_language(_hit("doc", "ログは七日間保存されます。")) == "ja"
    assert signals.passage_language(_hit("doc", "Logs are kept for seven days.")) == "en"
    assert signals.passage_language(_hit("code", "def keep():  # 七日間保存する")) == "en"


def test_the_language_farther_from_both_the_question_and_its_rewrite_is_the_unlikely_one(
    tmp_path: Path, fake_embedders
):
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    # the fake embedder reads words between spaces, so the Japanese text is written spaced
    (ws_dir / "docs" / "logs.ja.md").write_text(
        "# ログ\n\nログ の 保存 期間 は 七日 です 。 journald keeps logs seven days\n"
    )
    (ws_dir / "docs" / "retry.md").write_text(
        "# Retries\n\nfailed uploads are retried three times with a growing pause\n"
    )
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    try:
        workspace.index()
        searcher = workspace.searcher
        filled = {"static", "use"}

        def unlikely(question: str, rewrite: str) -> str | None:
            stage = searcher.language
            own = stage._leaning(question, SearchFilters(), filled)
            theirs = stage._leaning(analyse(rewrite).text, SearchFilters(), filled)
            return judge_module.judge(own, theirs)

        assert unlikely("uploads 再試行", "failed uploads are retried three times") == "ja"
        assert unlikely("ログ の 保存 期間 は ？", "journald keeps logs seven days") == "en"
        # the question's own words are near neither passage and its rewrite is nearer the
        # Japanese one than the English one: the answer reads Japanese, however near the
        # rewrite is to the English passage compared with the question to the Japanese one
        assert unlikely("設定 残る", "journald keeps logs long") == "en"
        # without a passage in one of the languages there is nothing to compare
        (ws_dir / "docs" / "logs.ja.md").unlink()
        workspace.index()
        assert unlikely("uploads 再試行", "failed uploads retried") is None
    finally:
        workspace.close()


def test_the_judge_gives_no_verdict_when_its_two_sums_are_too_close_to_call():
    verdict = judge_module.verdict
    margin = judge_module.JUDGE_MARGIN
    assert verdict({"ja": 1.20, "en": 1.20 + 2 * margin}) == "ja"  # English nearer: ja unlikely
    assert verdict({"ja": 1.20 + 2 * margin, "en": 1.20}) == "en"
    # a near-identical rewrite must not turn it: within the margin both lists stay whole
    assert verdict({"ja": 1.20, "en": 1.20 + margin / 2}) is None
    assert verdict({"ja": 1.20 + margin / 2, "en": 1.20}) is None


def test_the_questions_own_lists_reach_the_likely_languages_passages_beyond_the_others(
    tmp_path: Path, fake_embedders
):
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    sections = "".join(f"## 節 {i}\n\nログ の 設定 {i} です 。\n\n" for i in range(15))
    (ws_dir / "docs" / "guide.ja.md").write_text("# 手引き\n\n" + sections)
    (ws_dir / "docs" / "retry.md").write_text("# Retries\n\nfailed uploads are retried\n")
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    try:
        workspace.index()
        searcher = workspace.searcher
        q = analyse("ログ の 設定")
        filters = SearchFilters()
        english = workspace.store.chunk_at("docs/retry.md", 3)
        assert english is not None
        rowid = workspace.store.chunk_rowid(english.chunk_id)
        vectors = embed_queries(searcher.models, [("static", q.text), ("use", q.text)])
        spaces = searcher.language.space_weights(q, {"static", "use"})
        found = Evidence()
        searcher.lists.vector_lists(LanguageDecision(q, spaces), filters, 10, found, vectors)
        own = next(x for x in found.lists if x.name == "vector:use")
        assert rowid not in own.ids  # fifteen Japanese sections fill its ten places
        found = Evidence()
        split = LanguageDecision(q, spaces, unlikely="ja")
        searcher.lists.vector_lists(split, filters, 10, found, vectors)
        likely = next(x for x in found.lists if x.name == "vector:use")
        other = next(x for x in found.lists if x.name == "vector:use:ja")
        assert rowid in likely.ids and likely.weight == other.weight
        assert all(r != rowid for r in other.ids) and len(other.ids) == 10
    finally:
        workspace.close()


def test_nearer_japanese_passages_a_question_is_searched_without_its_english_rewrite(
    tmp_path: Path, fake_embedders, monkeypatch
):
    workspace = _log_and_retry_docs(tmp_path, fake_embedders, search={"rewrite_questions": True})
    try:
        rewrites = {
            "ログ 保存 期間": "log retention period",
            "uploads 再試行": "failed uploads",
        }
        workspace.searcher.rewrite = rewrites.get
        fused: list[list] = []
        real_rrf = searcher_module.rrf
        monkeypatch.setattr(
            searcher_module, "rrf", lambda lists, k=None: fused.append(lists) or real_rrf(lists, k)
        )

        def searched(question: str) -> tuple[list[str], str]:
            fused.clear()
            result = workspace.search(question)
            return [x.name for x in fused[0]], result.searched_as

        names, rewrite = searched("uploads 再試行")  # nearer the English passage
        assert {"vector:static:english", "keyword:english"} <= set(names)
        assert rewrite == "failed uploads"
        names, rewrite = searched("ログ 保存 期間")  # nearer the Japanese passage
        assert not [n for n in names if n.endswith(":english")] and rewrite == ""
        assert "keyword" in names
    finally:
        workspace.close()


def test_a_japanese_questions_own_text_is_not_embedded_in_the_spaces_that_read_english_only(
    tmp_path: Path, fake_embedders
):
    workspace = _log_and_retry_docs(tmp_path, fake_embedders)
    try:
        searcher = workspace.searcher
        filled = {"static", "use"}
        assert set(searcher.language.space_weights(analyse("ログ の 保存 期間"), filled)) == {"use"}
        assert (
            set(searcher.language.space_weights(analyse("how long logs are kept"), filled))
            == filled
        )
    finally:
        workspace.close()


def test_a_japanese_questions_first_places_outweigh_a_section_middling_in_every_list(
    tmp_path: Path, fake_embedders
):
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    for n in range(12):
        (ws_dir / "docs" / f"s{n:02}.md").write_text(f"# 節 {n}\n\n本文 {n} です 。\n")
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    try:
        workspace.index()
        searcher = workspace.searcher
        rowids = sorted(searcher.store.hits_by_rowid(list(range(1, 100))))
        first, middling, others = rowids[0], rowids[1], rowids[2:]
        # ``first`` leads the keyword list and is second by sentence; ``middling`` is tenth in
        # every list
        tenth = others[:9]
        lists = [
            RankedList("keyword", 2.0, [first, *tenth[:8], middling]),
            RankedList("vector:use:sentences", 1.0, [others[0], first, *tenth[1:8], middling]),
            RankedList("vector:use", 1.0, [*tenth, middling]),
            RankedList("vector:e5", 1.0, [*tenth, middling]),
        ]

        def order(question: str) -> list[int]:
            ranked = searcher._rank(analyse(question), lists, {}, set(), 50)
            assert ranked is not None
            return [r for r in ranked[1] if r in (first, middling)]

        assert order("保存 期間 は どこ で 決まる ？") == [first, middling]
        # an English question's fusion still rewards agreement across lists (k = 60)
        assert order("where is the retention period decided") == [middling, first]
    finally:
        workspace.close()


def test_a_question_plainly_nearer_japanese_passages_is_not_rewritten_at_all(
    tmp_path: Path, fake_embedders
):
    workspace = _log_and_retry_docs(tmp_path, fake_embedders, search={"rewrite_questions": True})
    try:
        asked: list[str] = []

        def rewrite(question: str, cancel: object = None) -> str:
            asked.append(question)
            return "how long logs are kept"

        workspace.searcher.rewrite = rewrite
        # the answer model is not asked for a rewrite the language judge would drop anyway
        assert workspace.search("ログ の 保存 期間 は ？").searched_as == ""
        assert asked == []
        # a question as near the English passage is rewritten (and judged with its rewrite)
        workspace.search("uploads 再試行")
        assert asked == ["uploads 再試行"]
    finally:
        workspace.close()


def test_a_question_in_another_language_is_searched_by_meaning_and_its_translation(
    tmp_path: Path, fake_embedders
):
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    (ws_dir / "docs" / "retry.md").write_text("# Retries\n\nfailed uploads are retried\n")
    (ws_dir / "docs" / "logs.md").write_text("# Logs\n\nlogs are kept for seven days\n")
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders, search={"rewrite_questions": True})
    workspace.index()
    try:
        searcher = workspace.searcher
        german = "Wie oft werden fehlgeschlagene Uploads wiederholt?"
        # its own words go to the multilingual spaces only, as a Japanese question's do
        assert set(searcher.language.space_weights(analyse(german), {"static", "use"})) == {"use"}
        # without a translation, its words (none of them in the workspace) refuse nothing
        searcher.rewrite = lambda text, cancel=None: None
        assert workspace.search(german).coverage is None
        # translated, the English words are searched and their share counted
        searcher.rewrite = {german: "how often are failed uploads retried"}.get
        result = workspace.search(german)
        assert result.searched_as == "how often are failed uploads retried"
        assert result.coverage is not None and result.coverage > 0.5
        assert result.hits[0].path == "docs/retry.md"
    finally:
        workspace.close()


def test_explain_shows_the_language_stages_one_decision(tmp_path: Path, fake_embedders):
    workspace = _log_and_retry_docs(tmp_path, fake_embedders, search={"rewrite_questions": True})
    try:
        workspace.searcher.rewrite = {"uploads 再試行": "failed uploads"}.get
        assert workspace.search("uploads 再試行").language is None  # only when asked
        rewritten = workspace.search("uploads 再試行", explain=True).language
        assert rewritten is not None and rewritten.script == "cjk"
        assert rewritten.searched_as == "failed uploads"
        assert rewritten.rewrite == "searched beside the question"
        assert set(rewritten.leaning) == {"ja", "en"} and set(rewritten.spaces) == {"use"}
        plain = workspace.search("ログ の 保存 期間 は ？", explain=True).language
        assert plain is not None and plain.rewrite.startswith("not written")
        english = workspace.search("how long are logs kept", explain=True).language
        assert english is not None and english.rewrite == "not needed"
        record = wire.search_json(workspace.search("uploads 再試行", explain=True))
        assert record["language"]["searched_as"] == "failed uploads"
    finally:
        workspace.close()


def test_each_space_says_which_languages_its_model_reads():
    policy = SpacePolicy("default")
    assert policy.reads_both("static", "en", "en") and policy.reads_both("minilm", "en", "en")
    assert not policy.reads_both("static", "en", "ja")  # MiniLM and its copy read English
    assert not policy.reads_both("minilm", "ja", "en")
    assert policy.reads_both("use", "en", "ja") and policy.reads_both("e5", "ja", "en")
    # a served model reads English unless its configuration says more
    assert not SpacePolicy("default", served=True).reads_both("served", "en", "ja")
    told = SpacePolicy("default", served=True, served_reads=("en", "ja"))
    assert told.reads_both("served", "en", "ja")
    # the packaged English models embed only code and English text: nothing to check there
    assert not policy.holds_unread("static") and not policy.holds_unread("use")
    assert SpacePolicy("default", served=True).holds_unread("served")
    assert not told.holds_unread("served")


def test_a_list_votes_only_on_chunks_its_model_reads(tmp_path: Path, fake_embedders):
    workspace = _log_and_retry_docs(tmp_path, fake_embedders)
    try:
        store, lists = workspace.store, workspace.searcher.lists
        japanese = store.chunk_rowid(store.chunk_at("docs/logs.ja.md", 3).chunk_id)
        english = store.chunk_rowid(store.chunk_at("docs/retry.md", 3).chunk_id)
        found = [(japanese, 0.1), (english, 0.2)]
        assert lists.readable("use", "en", found) == [japanese, english]
        served = SpacePolicy("default", served=True)  # an English model that embeds everything
        lists.policy = served
        assert lists.readable("served", "en", found) == [english]
    finally:
        workspace.close()


def test_a_question_not_in_japanese_is_also_searched_as_its_japanese_translation(
    tmp_path: Path, fake_embedders
):
    workspace = _log_and_retry_docs(tmp_path, fake_embedders, search={"rewrite_questions": True})
    try:
        asked = "how long are logs kept"
        workspace.searcher.language.to_japanese = {asked: "ログ の 保存 期間 は ？"}.get
        result = workspace.search(asked, explain=True)
        assert result.language is not None
        assert result.language.translation == "searched beside the question"
        assert result.language.translated == "ログ の 保存 期間 は ？"
        assert result.hits[0].path == "docs/logs.ja.md"
        found_by = {place.name for place in result.explanations[0].lists}
        assert "vector:use:japanese" in found_by and "keyword:japanese" in found_by
        record = wire.search_json(result)
        assert record["language"]["translated"] == "ログ の 保存 期間 は ？"
        # a Japanese question is not translated into Japanese
        japanese = workspace.search("ログ の 保存 期間 は ？", explain=True).language
        assert japanese is not None and japanese.translation == "not needed"
    finally:
        workspace.close()


def test_a_workspace_without_japanese_prose_asks_for_no_translation(tmp_path: Path, fake_embedders):
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    (ws_dir / "docs" / "retry.md").write_text("# Retries\n\nfailed uploads are retried\n")
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders, search={"rewrite_questions": True})
    workspace.index()
    asked: list[str] = []

    def to_japanese(text: str, cancel=None) -> str:
        asked.append(text)
        return "アップロード の 再試行"

    try:
        workspace.searcher.language.to_japanese = to_japanese
        result = workspace.search("how often are uploads retried", explain=True)
        assert asked == [] and result.language is not None
        assert result.language.translation == "not needed"
    finally:
        workspace.close()


def test_a_translated_question_is_asked_again_in_japanese_with_its_own_english_words(
    tmp_path: Path, fake_embedders, monkeypatch
):
    workspace = _log_and_retry_docs(tmp_path, fake_embedders, search={"rewrite_questions": True})
    searcher = workspace.searcher
    rewritten: list[str] = []
    searched: list[tuple[str, str | None]] = []
    real = searcher._searched

    def spy(asked, filters, filled, cancel, explain, english_words=None):
        searched.append((asked.text, english_words))
        return real(asked, filters, filled, cancel, explain, english_words)

    monkeypatch.setattr(searcher, "_searched", spy)
    try:
        asked = "how long are logs kept"
        searcher.language.to_japanese = {asked: "ログ の 保存 期間 は ？"}.get
        searcher.language.rewrite = lambda text, cancel=None: rewritten.append(text) or "logs"
        result = workspace.search(asked)
        # the translation searched as a Japanese question whose English is the question itself:
        # no English rewrite is asked of the model
        assert searched == [(asked, None), ("ログ の 保存 期間 は ？", asked)]
        assert rewritten == []
        assert result.hits[0].path == "docs/logs.ja.md"
        # a Japanese question is asked once
        searched.clear()
        workspace.search("ログ の 保存 期間 は ？")
        assert [text for text, _ in searched] == ["ログ の 保存 期間 は ？"]
    finally:
        workspace.close()
