"""A rewritten Japanese question in a workspace of Japanese and English passages: which
language's passages are the less likely answer."""

from __future__ import annotations

from pathlib import Path

from groundls.results import Hit, SearchFilters
from groundls.search import signals
from groundls.search.query import analyse
from tests.test_workspace import open_workspace


def _hit(kind: str, text: str) -> Hit:
    return Hit("h" * 16, "x", 1, 2, kind, "", "section", "t", (), text)


def test_japanese_prose_is_japanese_and_code_is_english_whatever_its_comments():
    assert signals.passage_language(_hit("doc", "ログは七日間保存されます。")) == "ja"
    assert signals.passage_language(_hit("doc", "Logs are kept for seven days.")) == "en"
    assert signals.passage_language(_hit("code", "def keep():  # 七日間保存する")) == "en"


def test_the_language_whose_nearest_passage_is_farther_is_the_unlikely_one(
    tmp_path: Path, fake_embedders
):
    ws_dir = tmp_path / "ws"
    (ws_dir / "docs").mkdir(parents=True)
    # the fake embedder reads words between spaces, so the Japanese text is written spaced
    (ws_dir / "docs" / "logs.ja.md").write_text("# ログ\n\nログ の 保存 期間 は 七日 です 。\n")
    (ws_dir / "docs" / "retry.md").write_text(
        "# Retries\n\nfailed uploads are retried three times with a growing pause\n"
    )
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    try:
        workspace.index()
        searcher = workspace.searcher
        filled = {"static", "use"}

        def unlikely(question: str, rewrite: str) -> str | None:
            return searcher._unlikely_language(
                analyse(question), analyse(rewrite), SearchFilters(), filled
            )

        assert unlikely("アップロード 再試行", "failed uploads retried") == "ja"
        assert unlikely("ログ の 保存 期間 は ？", "how long logs are kept") == "en"
        # without a passage in one of the languages there is nothing to compare
        (ws_dir / "docs" / "logs.ja.md").unlink()
        workspace.index()
        assert unlikely("アップロード 再試行", "failed uploads retried") is None
    finally:
        workspace.close()
