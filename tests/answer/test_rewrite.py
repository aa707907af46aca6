"""The Japanese-question rewriter: which model replies are used, caching, an absent or busy model."""

from __future__ import annotations

from groundls.answer.stages.rewrite import (
    INSTRUCTION,
    PROSE_INSTRUCTION,
    QueryRewriter,
    clean_japanese,
    clean_reply,
)


class ScriptedModel:
    def __init__(self, reply: str, busy: bool = False) -> None:
        self.reply = reply
        self.busy = busy
        self.calls = 0
        self.pieces_read = 0

    def stream(self, messages, **kwargs):
        self.calls += 1
        self.system = messages[0]["content"]
        for piece in self.reply.split(" "):
            self.pieces_read += 1
            yield piece + " "


def test_a_plain_english_reply_is_used_without_its_label_or_quotes():
    assert clean_reply('Query: "pager for long output"\n') == "pager for long output"
    assert (
        clean_reply("echo_via_pager long output\nThis function ...") == "echo_via_pager long output"
    )


def test_replies_in_chinese_or_japanese_or_empty_are_rejected():
    assert clean_reply("长输出分页显示") is None
    assert clean_reply("長い出力をページ表示") is None
    assert clean_reply("   ") is None
    assert clean_reply("pager 分页") is None


def test_the_model_is_asked_once_per_question():
    model = ScriptedModel("pager for long output")
    rewriter = QueryRewriter()
    assert rewriter.english(model, "長い出力は？") == "pager for long output"
    assert rewriter.english(model, "長い出力は？") == "pager for long output"
    assert model.calls == 1


def test_no_model_or_a_busy_model_means_no_rewrite():
    rewriter = QueryRewriter()
    assert rewriter.english(None, "長い出力は？") is None
    busy = ScriptedModel("pager", busy=True)
    assert rewriter.english(busy, "長い出力は？") is None
    assert busy.calls == 0


def test_generation_stops_at_the_end_of_the_first_line():
    model = ScriptedModel("pager long output\n This function shows text one page at a time")
    assert QueryRewriter().english(model, "長い出力は？") == "pager long output"
    assert model.pieces_read == 3  # nothing after the line break was generated


def test_replies_are_kept_between_processes_per_model(tmp_path):
    path = tmp_path / "rewrites.json"
    first = ScriptedModel("pager for long output")
    first.name = "model-a"
    assert QueryRewriter(path).english(first, "長い出力は？") == "pager for long output"
    again = ScriptedModel("something else")
    again.name = "model-a"
    assert QueryRewriter(path).english(again, "長い出力は？") == "pager for long output"
    assert again.calls == 0
    other = ScriptedModel("long output paging")
    other.name = "model-b"
    assert QueryRewriter(path).english(other, "長い出力は？") == "long output paging"
    assert other.calls == 1


def test_an_unreadable_cache_file_is_ignored(tmp_path):
    path = tmp_path / "rewrites.json"
    path.write_text("{not json")
    model = ScriptedModel("pager for long output")
    assert QueryRewriter(path).english(model, "長い出力は？") == "pager for long output"
    assert model.calls == 1


def test_a_workspace_of_prose_asks_for_the_questions_meaning_and_keeps_it_apart():
    model = ScriptedModel("which packages conflict")
    rewriter = QueryRewriter()
    assert rewriter.english(model, "同時に入れられないパッケージは？", prose=True)
    assert model.system == PROSE_INSTRUCTION and "meaning" in PROSE_INSTRUCTION
    # the same question in a workspace of code is asked again, for its names
    rewriter.english(model, "同時に入れられないパッケージは？")
    assert model.system == INSTRUCTION and model.calls == 2


def test_a_japanese_translation_is_kept_only_when_it_reads_as_japanese():
    assert (
        clean_japanese("「ログはどこに保存されますか？」\n説明: ...")
        == "ログはどこに保存されますか？"
    )
    assert clean_japanese("日志保存在哪里？") is None  # Chinese: no kana
    assert clean_japanese("Where are logs kept?") is None
    assert clean_japanese("  ") is None
