"""Quote-first answers: the excerpts as numbered lines, the picks read from a reply, the answer
built from them, and the lead kept only where it stands on the picks."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from groundls.answer.model.runtime import GenerationStats
from groundls.answer.stages import lead, quotes
from groundls.answer.stages.prompt import Excerpt
from groundls.answer.stages.quote_first import quote_first
from groundls.answer.stages.quotes import QuotePrompt, Unit
from groundls.answer.stages.write import Shown
from groundls.results import Hit
from tests.helpers.excerpts import doc_and_code, hit

DOC = (
    "To find which package installed a file, run dpkg --search with its path. "
    "It prints the package name.\n…\n- dpkg -L lists the files of a package\n| col | value |"
)
CODE = "def limit():\n    }\n    return DEFAULT_REDIRECT_LIMIT  # 30\n"


def excerpts() -> list[Excerpt]:
    return doc_and_code(DOC, CODE)


def test_prose_is_split_by_sentence_and_item_while_code_keeps_its_lines():
    units = quotes.units_of(excerpts())
    assert [u.text for u in units] == [
        "To find which package installed a file, run dpkg --search with its path.",
        "It prints the package name.",
        "- dpkg -L lists the files of a package",
        "| col | value |",
        "def limit():",
        "    return DEFAULT_REDIRECT_LIMIT  # 30",
    ]
    assert [u.number for u in units] == [1, 2, 3, 4, 5, 6]
    assert [u.excerpt for u in units] == [1, 1, 1, 1, 2, 2]
    assert [u.code for u in units] == [False] * 4 + [True] * 2


def test_the_prompt_numbers_every_line_under_its_excerpt_header():
    prompt = QuotePrompt("Which package installed this file?", "en", "quote")
    user = prompt.messages(excerpts())[1]["content"]
    assert "[1] docs/faq.md" in user
    assert "1| To find which package installed a file" in user
    assert "[2] src/limits.py" in user and "6|     return DEFAULT_REDIRECT_LIMIT" in user
    assert user.rstrip().endswith("([] if none does):")
    assert "JSON array" in prompt.system
    japanese = QuotePrompt("どのパッケージ?", "ja", "quote").messages(excerpts())
    assert japanese[1]["content"].startswith("抜粋:")


def test_the_grammar_allows_only_the_unit_numbers_and_at_most_four():
    schema = quotes.pick_schema(6)
    assert schema["items"]["enum"] == [1, 2, 3, 4, 5, 6]
    assert schema["maxItems"] == quotes.MAX_PICKS


def test_picks_are_read_once_each_in_order_and_within_range():
    assert quotes.read_picks("[3, 1, 3]", 6) == [3, 1]
    assert quotes.read_picks("[]", 6) == []
    assert quotes.read_picks("[7, 2]", 6) == [2]
    assert quotes.read_picks("[2, 5", 6) == [2, 5]  # cut short: the numbers it holds
    assert quotes.read_picks("[1,2,3,4,5,6]", 6) == [1, 2, 3, 4]


def test_picks_are_shown_by_excerpt_in_reading_order_with_code_fenced():
    units = quotes.units_of(excerpts())
    picks = [units[5], units[1], units[0]]
    groups = quotes.in_reading_order(picks)
    assert [[u.number for u in g] for g in groups] == [[6], [1, 2]]
    text = quotes.quoted(groups, units)
    # a code quote begins with its function's first line
    assert text.startswith("```\ndef limit():\n    return DEFAULT_REDIRECT_LIMIT  # 30\n```\n[2]")
    assert text.endswith("run dpkg --search with its path. It prints the package name. [1]")


def test_a_heading_is_no_line_to_pick():
    text = "Managing Resources\n# Usage\nClose the file with ctx.call_on_close."
    doc = Hit("a" * 16, "docs/r.md", 1, 3, "doc", "markdown", "doc", "Managing Resources", (), text)
    units = quotes.units_of([Excerpt(1, doc, text)])
    assert [u.text for u in units] == ["Close the file with ctx.call_on_close."]


def _unit(text: str) -> Unit:
    return Unit(1, 1, text, False)


def test_a_lead_stands_only_on_specifics_the_picks_or_question_hold():
    picks = [_unit("Run dpkg --search with the file's path.")]
    question = "Which package installed this file?"
    assert lead.stands("Use dpkg --search with the path.", question, "en", picks)
    # a neighbouring command the picks never name
    assert not lead.stands("Use dpkg -l and grep for it.", question, "en", picks)
    # the question restated says nothing
    assert not lead.stands("Which package installed this file?", question, "en", picks)
    # not in the question's language
    assert not lead.stands("Use dpkg --search with the path.", "どのパッケージ?", "ja", picks)
    assert lead.stands("dpkg --search にパスを渡して実行します。", "どのパッケージ?", "ja", picks)


def test_the_language_of_the_picks_decides_between_lead_and_translation():
    assert lead.sources_language([_unit("Run dpkg --search with the path.")]) == "en"
    assert lead.sources_language([_unit("dpkg --search を実行します。")]) == "ja"


class PickingModel:
    """A model double that replies with fixed picks and a fixed lead (logic only)."""

    name = "double"

    def __init__(self, picks: list[int], lead_text: str) -> None:
        self.picks, self.lead_text = picks, lead_text
        self.calls: list[dict[str, Any]] = []

    def stream(self, messages: list[dict[str, str]], **kw: Any) -> Iterator[str]:
        self.calls.append(kw)
        stats: GenerationStats = kw["stats"]
        stats.stop_reason = "stop"
        yield json.dumps(self.picks) if kw.get("schema") else self.lead_text


class Got:
    question, language = "Which package installed this file?", "en"

    def __init__(self) -> None:
        self.timing: dict[str, float | None] = {"first_token_ms": None}


def _answer(model: PickingModel, hedge: str = "") -> tuple[Any, list[str]]:
    seen: list[str] = []
    got = Got()
    show = Shown(got.timing, time.perf_counter(), hedge, seen.append)
    ans = quote_first(model, got, excerpts(), [], show)  # type: ignore[arg-type]
    return ans, seen


def test_the_answer_is_the_lead_then_the_quotes_each_cited():
    ans, seen = _answer(PickingModel([1], "Run dpkg --search with the file's path."))
    assert ans.answer == (
        "Run dpkg --search with the file's path. [1]\n\n"
        "To find which package installed a file, run dpkg --search with its path. [1]"
    )
    assert [c.n for c in ans.citations] == [1] and ans.chosen == 1
    assert seen[0].startswith("To find which package")  # the quotes are shown first
    assert ans.timing["first_token_ms"] is not None


def test_a_lead_naming_what_no_pick_holds_is_left_out():
    ans, _ = _answer(PickingModel([1], "Run dpkg -l | grep foo."))
    assert ans.answer.startswith("To find which package installed a file")
    assert "dpkg -l" not in ans.answer and ans.repairs["lead"] == 0


def test_no_pick_is_no_answer():
    ans, seen = _answer(PickingModel([], "anything"))
    assert ans is None and seen == []


def test_a_hedge_begins_the_quoted_answer():
    ans, seen = _answer(PickingModel([2], ""), hedge="Likely: ")
    assert ans.answer.startswith("Likely: It prints the package name. [1]")
    assert seen[0].startswith("Likely: ")


def test_a_wrapped_paragraph_is_read_whole_before_it_is_split_into_sentences():
    text = "The default is to split on\nwhitespace. Set the\nsplitter to change it.\n- an item\n  wrapped"
    doc = Hit("b" * 16, "docs/e.rst", 1, 5, "doc", "rst", "doc", "t", (), text)
    units = quotes.units_of([Excerpt(1, doc, text)])
    assert [u.text for u in units] == [
        "The default is to split on whitespace.",
        "Set the splitter to change it.",
        "- an item wrapped",
    ]
    japanese = "バージョンは整数として\n比較されます。"
    doc = Hit("c" * 16, "first.ja.md", 1, 2, "doc", "markdown", "doc", "t", (), japanese)
    assert [u.text for u in quotes.units_of([Excerpt(1, doc, japanese)])] == [
        "バージョンは整数として比較されます。"
    ]


def test_a_pick_that_announces_a_list_brings_the_list():
    text = "比較のルールは以下のとおりです:\n- 数字は整数として比較します\n- 文字は ASCII 順です\n\n別の段落です。"
    doc = Hit("d" * 16, "first.ja.md", 1, 5, "doc", "markdown", "doc", "t", (), text)
    units = quotes.units_of([Excerpt(1, doc, text)])
    picked = quotes.with_what_follows([units[0]], units)
    assert [u.text for u in picked] == [
        "比較のルールは以下のとおりです:",
        "- 数字は整数として比較します",
        "- 文字は ASCII 順です",
    ]
    assert quotes.with_what_follows([units[3]], units) == [units[3]]


def test_the_answer_style_is_a_setting_and_a_bad_one_warns():
    from groundls.config import Config

    config, warnings = Config.from_dict({"answer": {"style": "quote"}})
    assert config.answer.style == "quote" and not warnings
    config, warnings = Config.from_dict({"answer": {"style": "poem"}})
    assert config.answer.style == "text" and "answer.style" in warnings[0]
    assert Config.from_dict({})[0].answer.style == "text"


def test_a_footnote_mark_in_prose_is_no_citation_and_a_colon_before_it_still_announces():
    text = "バージョン文字列[18]は次のように比較できます: [77]\n- dpkg --compare-versions を使う"
    doc = Hit("e" * 16, "first.ja.md", 1, 2, "doc", "markdown", "doc", "t", (), text)
    units = quotes.units_of([Excerpt(1, doc, text)])
    assert units[0].text == "バージョン文字列は次のように比較できます:"
    assert quotes.with_what_follows([units[0]], units) == units
    # code keeps its brackets: they are the code's
    assert quotes.units_of(excerpts())[-1].text.endswith("# 30")
    code = "x = args[1]\n"
    assert quotes.units_of([Excerpt(1, hit(3, code, "code"), code)])[0].text == "x = args[1]"


def test_a_hedge_before_a_quoted_code_block_stands_on_its_own_line():
    ans, seen = _answer(PickingModel([6], ""), hedge="Likely: ")
    assert ans.answer.startswith("Likely:\n\n```\ndef limit():")
    assert seen[0].startswith("Likely:\n\n```\ndef limit():") and seen[0].count("Likely") == 1
