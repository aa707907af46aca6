"""Unit tests for prompt building, token budgeting and language detection."""

from __future__ import annotations

from groundls.chunkers.textrules import estimate_llm_tokens

from groundls.answer.stages.focus import question_terms
from groundls.answer.stages.prompt import (
    build_messages,
    detect_language,
    excerpt_header,
    excerpt_label,
    fit_excerpts,
    system_prompt,
    user_prompt,
)
from groundls.results import Hit


def hit(n: int, text: str, path: str = "src/a.py", title: str = "f", crumbs=("a.py",)) -> Hit:
    return Hit(f"{n:016x}", path, n * 10, n * 10 + 5, "code", "python", "code", title, crumbs, text)


def test_english_question_is_detected_as_english():
    assert detect_language("where do we retry failed uploads?") == "en"


def test_japanese_question_with_latin_identifiers_is_detected_as_japanese():
    assert detect_language("ログレベルはどこで変更しますか？") == "ja"
    assert detect_language("Debian の version 番号はどう比較される？") == "ja"
    assert detect_language("get_app_dir の Windows での動作は？") == "ja"


def test_english_question_quoting_a_japanese_word_stays_english():
    assert (
        detect_language("Where is the section titled 設定 about log levels and rotation?") == "en"
    )


def test_symbols_only_question_defaults_to_english():
    assert detect_language("??? 123") == "en"


def test_token_estimate_counts_japanese_denser_than_english():
    assert estimate_llm_tokens("") == 0
    assert estimate_llm_tokens("あいうえおかきくけこ") > estimate_llm_tokens("abcdefghij")


def test_excerpt_label_has_path_line_range_and_breadcrumb():
    h = hit(1, "x", path="docs/log.md", title="Log level", crumbs=("Ops", "Logging"))
    assert excerpt_label(h) == "docs/log.md:10-15 (Ops > Logging > Log level)"


def test_excerpts_are_numbered_in_rank_order_within_budget():
    hits = [hit(i, f"line {i}\n" * 5) for i in range(1, 4)]
    ex = fit_excerpts(hits, 500)
    assert [e.n for e in ex] == [1, 2, 3]
    assert [e.hit.chunk_id for e in ex] == [h.chunk_id for h in hits]


def test_budget_cuts_long_excerpts_at_line_boundaries_and_skips_what_does_not_fit():
    long_text = "\n".join(f"value_{i} = compute_something({i})" for i in range(200))
    hits = [hit(1, long_text), hit(2, long_text), hit(3, long_text)]
    ex = fit_excerpts(hits, 400)
    total = sum(estimate_llm_tokens(e.render()) for e in ex)
    assert total <= 400 + 20
    assert ex[0].truncated
    assert ex[0].text.splitlines()[0] == "value_0 = compute_something(0)"
    # every kept line is a whole original line or the mark of what was left out
    assert all(line in long_text.splitlines() or line == "…" for line in ex[0].text.splitlines())


def test_long_excerpts_keep_the_lines_that_bear_on_the_question():
    body = [f"value_{i} = compute_something({i})" for i in range(100)]
    body[60] = "timeout = read_timeout_from_settings(retry_count)"
    ex = fit_excerpts([hit(1, "def setup():\n" + "\n".join(body))], 200, terms={"timeo", "retry"})
    lines = ex[0].text.splitlines()
    assert lines[0] == "def setup():"  # what the excerpt is
    assert "timeout = read_timeout_from_settings(retry_count)" in lines
    assert "value_59 = compute_something(59)" in lines  # one line of context either side
    assert "value_61 = compute_something(61)" in lines
    assert "value_30 = compute_something(30)" not in lines
    assert lines.count("…") == 2 and ex[0].truncated


def test_a_second_hits_line_that_bears_on_the_question_is_read_after_a_long_first_hit():
    filler = "\n".join(
        f"{i}行目: パッケージをアップロードする前に確認すること。" for i in range(80)
    )
    answer = "バージョンは dpkg --compare-versions で比較できます:"
    second = filler.replace("40行目: パッケージをアップロードする前に確認すること。", answer)
    crumbs = ("パッケージの取扱い方", "新しいパッケージのアップロード")
    hits = [
        hit(i, text, "docs/pkgs.html", "手順", crumbs) for i, text in ((1, filler), (2, second))
    ]
    terms = question_terms(["バージョンはどう比較する？"])
    ex = fit_excerpts(hits, 200, terms=terms)
    assert [e.n for e in ex] == [1, 2] and answer in ex[1].text
    assert sum(estimate_llm_tokens(e.render()) for e in ex) <= 200 + 10


def test_a_long_header_counts_against_its_excerpts_half_so_the_second_excerpt_still_fits():
    crumbs = ("パッケージの取扱い方", "新しいパッケージのアップロード", "上流の変更を取り込む")
    long_text = "\n".join(
        f"{i}行目: パッケージをアップロードする前に確認すること。" for i in range(80)
    )
    title = "新しい版の上流ソースをパッケージに取り込むときの手順と注意点"
    hits = [hit(i, long_text, "docs/pkgs.html", title, crumbs) for i in (1, 2)]
    header = estimate_llm_tokens(excerpt_header(1, hits[0]) + "\n") + 2
    assert header > 30  # a Japanese breadcrumb is long
    ex = fit_excerpts(hits, 200)
    assert [e.n for e in ex] == [1, 2]
    assert sum(estimate_llm_tokens(e.render()) for e in ex) <= 200 + 10


def test_a_line_that_announces_a_code_block_brings_it():
    body = [f"他の説明 {i} です。" for i in range(60)]
    body[30:31] = [
        "比較はこのコマンドでできます:",
        "```",
        "$ dpkg --compare-versions 1.0 lt 1.1",
        "```",
    ]
    readme = Hit(
        "0" * 16, "guide.md", 1, 64, "doc", "markdown", "section", "t", ("t",), "\n".join(body)
    )
    (ex,) = fit_excerpts([readme], 120, terms=question_terms(["比較のコマンドは？"]))
    assert "$ dpkg --compare-versions 1.0 lt 1.1" in ex.text


def test_a_readmes_badges_are_left_out_so_the_paragraph_the_question_is_about_fits():
    badge = (
        "[![{0}](https://github.com/o/r/workflows/{0}/badge.svg)](https://github.com/o/r/actions)"
    )
    heading = "# textlint-rule-max-ten " + " ".join(
        badge.format(w) for w in ("test", "lint", "npm")
    )
    text = "\n".join(
        [heading, "", "一文に利用できる読点の数を制限するルールです。", "", "Install it with npm."]
    )
    readme = Hit("0" * 16, "README.md", 1, 5, "doc", "markdown", "section", "t", ("t",), text)
    assert estimate_llm_tokens(heading) > 60  # the badges alone outweigh the excerpt's room
    (ex,) = fit_excerpts([readme], 100, terms={"読点", "点の", "の数"})
    assert "読点の数を制限する" in ex.text
    assert "badge.svg" not in ex.text and ex.text.startswith("# textlint-rule-max-ten")


def test_best_hit_is_kept_even_when_the_budget_is_tiny():
    ex = fit_excerpts([hit(1, "word " * 500)], 10)
    assert len(ex) == 1 and ex[0].truncated and ex[0].text


def test_budget_uses_the_given_token_counter():
    hits = [hit(i, "abc\n" * 10) for i in range(1, 6)]
    ex = fit_excerpts(hits, 300, count=lambda s: len(s) * 10)
    assert len(ex) < 5


def test_english_prompt_has_rules_numbered_excerpts_and_citation_reminder_last():
    ex = fit_excerpts([hit(1, "def retry_upload(): ..."), hit(2, "print()")], 500)
    msgs = build_messages("where do we retry uploads?", ex, "en")
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert "Use only facts" in msgs[0]["content"]
    user = msgs[1]["content"]
    assert "[1] src/a.py\n" in user and "[2] src/a.py (f)\n" in user
    assert user.index("where do we retry uploads?") < user.index(
        "End each sentence with the number"
    )
    assert user.rstrip().endswith("like [1].")


def test_japanese_prompt_uses_a_japanese_system_prompt():
    ex = fit_excerpts([hit(1, "log_level = debug")], 500)
    msgs = build_messages("ログレベルはどこで変更しますか？", ex, "ja")
    assert "抜粋に書かれている事実だけ" in msgs[0]["content"]
    assert "日本語の文章で書いて" in msgs[1]["content"]
    assert "Use only facts" not in msgs[0]["content"]


def test_empty_context_says_no_matching_excerpts():
    assert "No matching excerpts were found." in user_prompt("q?", [], "en")
    assert "一致する抜粋は見つかりませんでした" in user_prompt("質問？", [], "ja")


def test_system_prompt_is_a_fixed_prefix_independent_of_the_question():
    a = build_messages("first?", fit_excerpts([hit(1, "a")], 100), "en")
    b = build_messages("second?", fit_excerpts([hit(2, "b")], 100), "en")
    assert a[0] == b[0]
    assert "JSON" in system_prompt("en", "json") and "JSON" not in system_prompt("en", "text")


def test_excerpt_label_does_not_repeat_a_qualified_code_title():
    h = hit(1, "x", path="src/up.py", title="up.retry", crumbs=("up", "retry"))
    assert excerpt_label(h) == "src/up.py:10-15 (up > retry)"


def test_excerpt_header_has_no_line_numbers_and_only_the_section_not_already_said():
    method = Hit(
        "0" * 16,
        "src/requests/models.py",
        750,
        779,
        "code",
        "python",
        "method",
        "requests.models.Response.iter_content",
        ("requests", "models", "Response", "iter_content"),
        "    def iter_content(self, chunk_size=1):\n        ...",
    )
    # the module is the path and the method its first line: the class is what is left to say
    assert excerpt_header(1, method) == "[1] src/requests/models.py (Response)"
    section = Hit(
        "1" * 16,
        "resources.html",
        5,
        9,
        "doc",
        "html",
        "section",
        "4.1.1. 基本ルール¶",
        ("4. Resources¶", "4.1. メーリングリスト¶", "4.1.1. 基本ルール¶"),
        "4.1.1. 基本ルール¶\n投稿する前に読んでください。",
    )
    assert excerpt_header(2, section) == "[2] resources.html (4.1. メーリングリスト¶)"
    assert "750" not in excerpt_header(1, method)
