from groundls.answer.text.hygiene import (
    citations_to_line_ends,
    drop_lead_in,
    drop_scaffolding,
    paragraphs,
    pasted_share,
    restates,
)
from groundls.answer.text.labels import LabelFilter, strip_labels
from groundls.answer.text.repeats import (
    drop_repeated_lines,
    drop_repeated_sentences,
    third_copy_start,
)
from groundls.answer.text.repoint import (
    best_source,
    cite_better_ranked,
    cite_named_paths,
    repoint_citations,
)
from groundls.answer.text.sentences import code_blocks
from groundls.results import Hit


def _hit(title: str, kind: str = "code", text_type: str = "method") -> Hit:
    return Hit("0" * 16, "src/a.py", 1, 9, kind, "python", text_type, title, (), "")


def test_an_echoed_label_line_is_dropped():
    text, n = strip_labels(
        "[1] src/click/utils.py:296-319 (echo)\nThe echo function strips codes [1]."
    )
    assert text == "The echo function strips codes [1]." and n == 1


def test_a_bold_numbered_label_heading_is_dropped():
    text, n = strip_labels("**[2] docs/utils.rst:50-86 (Utilities > ANSI Colors)**\n\nColors [2].")
    assert text == "Colors [2]." and n == 1


def test_an_inline_label_becomes_its_bare_path():
    text, n = strip_labels("It is done in src/click/_compat.py:496-503 (should_strip_ansi) [2].")
    assert text == "It is done in src/click/_compat.py [2]." and n == 1


def test_a_loose_echo_of_a_known_excerpt_path_is_removed():
    paths = {"start.ja.md", "src/click/utils.py"}
    text, n = strip_labels(
        "[1] start.ja.md:17 (第1章 はじめに) 初めての人は小さなソフトから [1]", paths
    )
    assert text == "[1] 初めての人は小さなソフトから [1]" and n == 1
    text, n = strip_labels(
        "[2] src/click/utils.py (Utilities > get_app_dir)\nIt is here [2].", paths
    )
    assert text == "It is here [2]." and n == 1
    text, n = strip_labels("It is in src/click/utils.py:446 (get_app_dir) [1].", paths)
    assert text == "It is in src/click/utils.py [1]." and n == 1
    # other paths, ports and plain brackets stay
    kept = "See src/click/utils.py (the helpers) [1], localhost:8080 and docs/a.md:3 [2]."
    assert strip_labels(kept, paths) == (kept, 0)


def test_an_echoed_header_section_is_removed_after_its_path_keeping_the_citation():
    paths, sections = {"build.ja.md", "src/click/formatting.py"}, {"第6章 パッケージのビルド"}
    text, n = strip_labels(
        "手順は build.ja.md [1] (第6章 パッケージのビルド) にあります。", paths, sections
    )
    assert text == "手順は build.ja.md [1] にあります。" and n == 1
    text, n = strip_labels("It is in build.ja.md (第6章 パッケージのビルド).", paths, sections)
    assert text == "It is in build.ja.md." and n == 1
    # a bracket that is not a shown section is the answer's own words
    kept = "See src/click/formatting.py (the help formatter) [1]."
    assert strip_labels(kept, paths, sections) == (kept, 0)


def test_a_citation_right_after_an_excerpts_path_cites_that_excerpt_first():
    paths = {1: "docs/advanced.rst", 2: "docs/commands.rst", 3: "docs/commands.rst"}
    text = "辞書をデフォルト値として使っているのは docs/commands.rst [1, 2] の部分です。"
    assert cite_named_paths(text, paths) == (text.replace("[1, 2]", "[2, 1]"), 1)
    # a citation that already begins with one of the path's excerpts stays
    same = "It is in `docs/commands.rst` [3] and docs/advanced.rst [1]."
    assert cite_named_paths(same, paths) == (same, 0)
    # a path no excerpt has, or a citation after other words, stays
    other = "See mydocs/commands.rst [1] and the commands docs [1]."
    assert cite_named_paths(other, paths) == (other, 0)


def test_an_excerpt_number_before_its_path_moves_after_the_path():
    paths = {"src/click/formatting.py", "docs/advanced.rst", "docs/parameters.rst"}
    text, n = strip_labels("処理は、[1] src/click/formatting.py にある `wrap_text` です。", paths)
    assert text == "処理は、src/click/formatting.py [1] にある `wrap_text` です。" and n == 1
    text, n = strip_labels("[1] docs/advanced.rst と [1, 2] `docs/parameters.rst` です。", paths)
    assert text == "docs/advanced.rst [1] と `docs/parameters.rst` [1, 2] です。" and n == 2
    # a path of no excerpt, a longer path and a number after the path stay as they are
    kept = "See [1] docs/other.rst, [2] docs/advanced.rst.bak and docs/advanced.rst [3]."
    assert strip_labels(kept, paths) == (kept, 0)


def test_a_label_after_a_lead_in_word_is_dropped_whole_and_held_back_while_streamed():
    reply = "答え: [1] build.ja.md:130-198\n\npbuilder でクリーンな環境を作ります。"
    text, n = strip_labels(reply, {"build.ja.md"})
    assert text == "pbuilder でクリーンな環境を作ります。" and n == 1
    f = LabelFilter(paths={"build.ja.md"})
    pieces = [
        "答え",
        ":",
        " [",
        "1",
        "]",
        " build",
        ".ja",
        ".md",
        ":130",
        "-198",
        "\n\n",
        "pbuilder",
    ]
    assert "".join([*(f.feed(p) for p in pieces), f.finish()]).strip() == "pbuilder"
    # a line that only begins like a lead-in is let through
    g = LabelFilter(paths={"build.ja.md"})
    assert "".join(g.feed(p) for p in ["答え", "は", "簡単"]) == "答えは簡単"


def test_a_lead_in_word_at_the_start_of_an_answer_is_dropped():
    assert drop_lead_in("答え: パッケージを作る人は [1]。") == "パッケージを作る人は [1]。"
    assert drop_lead_in("回答：要修正です。") == "要修正です。"
    assert drop_lead_in("**Answer:** It retries [1].") == "It retries [1]."
    assert drop_lead_in("答え:") == "答え:"  # nothing else: kept
    assert drop_lead_in("答えは簡単です。") == "答えは簡単です。"


def test_text_without_labels_is_untouched():
    source = "Meetings run 10:30-11:00 and the ratio is 1:2-3 [1]."
    assert strip_labels(source) == (source, 0)


EXCERPTS = {
    1: "def open_url(url): launches the browser with webbrowser.open",
    2: "def should_strip_ansi(stream): strip colors when the stream is not a tty, e.g. piped to a file",
}


def test_a_citation_of_an_unrelated_excerpt_moves_to_the_one_holding_the_sentence():
    text, moves = repoint_citations(
        "Colors are stripped when the stream is piped to a file [1]. The browser opens urls [1].",
        EXCERPTS,
    )
    assert text == (
        "Colors are stripped when the stream is piped to a file [2]. The browser opens urls [1]."
    )
    assert moves == [(1, 2)]


def test_a_citation_that_shares_words_with_its_excerpt_stays():
    source = "The browser is launched by open_url [1]."
    assert repoint_citations(source, EXCERPTS) == (source, [])


def test_pasted_share_is_high_for_a_copy_and_low_for_own_words():
    body = EXCERPTS[2]
    assert pasted_share(body + " [2]", [body]) == 1.0
    assert pasted_share("Output loses its colours when it is not a terminal [2].", [body]) < 0.2


def stream(pieces: list[str]) -> tuple[str, int]:
    f = LabelFilter()
    text = "".join(f.feed(p) for p in pieces) + f.finish()
    return text, f.dropped


def test_streaming_drops_a_label_line_split_over_pieces():
    text, dropped = stream(["[1] src/cl", "ick/utils.py:29", "6-319 (echo)\n", "It strips [1]."])
    assert text == "It strips [1]." and dropped == 1


def test_streaming_passes_ordinary_text_as_soon_as_its_first_word_is_done():
    f = LabelFilter()
    assert f.feed("The") == ""  # might still become a label
    assert f.feed(" echo function") == "The echo function"
    assert f.feed(" strips [1].") == " strips [1]."
    assert f.finish() == ""


def test_streaming_drops_a_label_of_a_known_excerpt_path():
    f = LabelFilter(paths={"src/click/utils.py", "docs/utils.rst"})
    pieces = ["[1] src/cl", "ick/utils.py:29", "6-319 (echo)\n", "It strips [1]."]
    assert "".join(f.feed(p) for p in pieces) + f.finish() == "It strips [1]."
    assert f.dropped == 1


def test_streaming_passes_japanese_text_at_once_when_it_cannot_begin_an_excerpt_path():
    f = LabelFilter(paths={"src/click/utils.py"})
    assert f.feed("推測") == "推測"  # no space for a first word to end at: not held back
    assert f.feed("ですが、") == "ですが、"
    assert LabelFilter().feed("推測ですが、") == ""  # without the paths it waits for a space


def test_streaming_keeps_a_line_that_merely_mentions_a_location_later():
    text, dropped = stream(["See the code in src/a.py:1-5 (f) [1].\n", "Done."])
    assert text == "See the code in src/a.py:1-5 (f) [1].\nDone." and dropped == 0


def test_a_marker_inside_a_sentence_is_judged_by_the_whole_sentence():
    text, moves = repoint_citations(
        "It is [1] stripped when the stream is piped to a file. The browser opens urls [1].",
        EXCERPTS,
    )
    assert moves == [(1, 2)] and text.startswith("It is [2] stripped")


def test_a_marker_after_the_full_stop_cites_the_sentence_before_it():
    text, moves = repoint_citations(
        "Colors are stripped when the stream is piped to a file. [1]\nDone.", EXCERPTS
    )
    assert moves == [(1, 2)]


def test_streaming_strips_a_loose_label_before_the_lines_text():
    f = LabelFilter(paths={"start.ja.md", "src/click/utils.py"})
    pieces = [
        "[1] start.ja",
        ".md:1",
        "7 (第1章 まずは",
        "正攻法) 初めての",
        "人は [1]。\n",
        "次の行",
    ]
    assert "".join(f.feed(p) for p in pieces) + f.finish() == "[1] 初めての人は [1]。\n次の行"
    assert f.dropped == 1
    # a bare path with an ordinary bracket after it is the answer's own text
    g = LabelFilter(paths={"src/click/utils.py"})
    pieces = ["[2] src/click/utils.py (the hel", "pers) holds it [2]."]
    assert "".join(g.feed(p) for p in pieces) + g.finish() == (
        "[2] src/click/utils.py (the helpers) holds it [2]."
    )
    assert g.dropped == 0


def test_streaming_holds_a_lone_opening_bracket_until_the_label_shows():
    f = LabelFilter(paths={"docs/logging.ja.md"})
    pieces = ["[", "1", "]", " docs/logging.ja.md", ":1-9 (ログの設定 > ログレベルの変更)"]
    assert "".join(f.feed(p) for p in pieces) == ""
    assert f.finish() == "" and f.dropped == 1
    # a citation-first answer still streams once its text begins
    g = LabelFilter(paths={"docs/logging.ja.md"})
    assert "".join(g.feed(p) for p in ["[", "1", "] ", "ログレベルは"]) == "[1] ログレベルは"


def test_a_label_cut_off_at_the_end_of_an_answer_is_removed():
    text, n = strip_labels(
        "パッケージは簡単です [1]。\n\n start.ja.md (第1章 まずは > …", {"start.ja.md"}
    )
    assert text == "パッケージは簡単です [1]。" and n == 1
    kept = "See start.ja.md (the guide) [1]."
    assert strip_labels(kept, {"start.ja.md"}) == (kept, 0)


def test_an_uncited_answer_is_sourced_from_the_excerpt_sharing_most_of_its_words():
    excerpts = {
        1: "def configure(): load settings from the environment",
        2: "ログレベルは config.toml の log_level で変更します。",
        3: "retry_upload sends the file again after a failed upload",
    }
    assert best_source("Failed uploads are sent again by retry_upload.", excerpts) == 3
    assert best_source("ログレベルは log_level で変えます。", excerpts) == 2


def test_an_uncited_answer_sharing_nothing_is_sourced_from_the_first_excerpt():
    assert best_source("どこにも載っていない話です。", {2: "alpha", 1: "beta"}) == 1
    assert best_source("anything", {}) is None


def test_a_better_ranked_excerpt_holding_the_cited_sentence_is_cited_first():
    excerpts = {
        1: "def ensure_object(self, object_type): rv = self.find_object(object_type); "
        "if rv is None: self.obj = rv = object_type()",
        2: "Context.ensure_object will find the object, and if it cannot find it, will create one",
    }
    text = "If find_object returns None, a new object_type instance is created [2]."
    fixed, added = cite_better_ranked(text, excerpts, "What does Context.ensure_object do?")
    assert fixed.endswith("[1, 2].") and added == 1


def test_a_citation_is_left_alone_when_no_better_ranked_excerpt_holds_its_sentence():
    excerpts = {1: "colour output and terminals", 2: "retry_upload sends the file again"}
    text = "Failed uploads are sent again by retry_upload [2]."
    assert cite_better_ranked(text, excerpts, "how are uploads retried?") == (text, 0)


GUIDE = (
    "Why No Auto Correction?\n-----------------------\n\nThe question came up why Click does not "
    "auto correct parameters given that even optparse and argparse support automatic expansion "
    "of long arguments.\n\n$ pip install click\n"
)


def test_paragraphs_do_not_split_a_fenced_code_block_at_its_blank_lines():
    text = "前置き\n\n```python\nimport click\n\nclick.echo('x')\n```\n\n後書き"
    assert paragraphs(text) == [
        "前置き",
        "```python\nimport click\n\nclick.echo('x')\n```",
        "後書き",
    ]


def test_the_question_restated_as_a_title_line_is_dropped():
    question = "lintian でパッケージをチェックする方法"
    answer = (
        "lintian でパッケージをチェックする方法\n\ndebuild コマンドを使えば一気に実行できます。 [1]"
    )
    assert drop_scaffolding(answer, question, []) == (
        "debuild コマンドを使えば一気に実行できます。 [1]",
        1,
    )
    # with a hedge word in front, and in English
    assert restates("推測ですが、lintian でパッケージをチェックする方法", question)
    assert restates("How to check a package with lintian", "How to check a package with lintian?")


def test_a_sentence_that_repeats_the_question_is_kept():
    question = "ヘルプの一覧に出る1行の説明は docstring からどう作られる？"
    # a sentence (it ends), a line that opens a list (a colon), a line citing an excerpt
    for line in (
        "ヘルプの一覧に出る1行の説明は docstring から作られます。",
        "ヘルプの一覧に出る1行の説明は docstring から次の手順で作られる：",
        "ヘルプの一覧に出る1行の説明は docstring から作られる [2]",
    ):
        assert not restates(line, question)
        assert drop_scaffolding(line + "\n\n1. 先頭の段落を取る。", question, []) == (
            line + "\n\n1. 先頭の段落を取る。",
            0,
        )
    # only the first line can be a title
    later = "まず説明します。\n\nヘルプの一覧に出る1行の説明は docstring からどう作られる"
    assert drop_scaffolding(later, question, [])[1] == 0


def test_copied_excerpt_scaffolding_is_dropped_but_code_blocks_are_left_alone():
    source = "## 3.1. quilt のセットアップ\n\nquilt を使うには dquilt を作ります。"
    answer = (
        "## 3.1. quilt のセットアップ\n…\ndquilt エイリアスを作ります [1]。\n\n---\n\n"
        "click > parser > OptionParser\n```\n---\n...\n```"
    )
    text, dropped = drop_scaffolding(
        answer, "dquilt の設定", [source], {"click > parser > OptionParser"}
    )
    assert text == "dquilt エイリアスを作ります [1]。\n\n```\n---\n...\n```"
    assert dropped == 4
    # a heading of the model's own is not an excerpt's
    assert drop_scaffolding("## 手順\n作ります [1]。", "x", [source])[1] == 0
    # an answer that is nothing but scaffolding is kept as it is
    assert drop_scaffolding("---", "x", []) == ("---", 0)


def test_a_copied_rest_heading_underline_is_dropped():
    answer = (
        "有効にするには、以下の手順を実行します。\n\n================\n\n^^^^^\n\neval します [1]。"
    )
    text, dropped = drop_scaffolding(answer, "補完を有効にするには？", [])
    assert text == "有効にするには、以下の手順を実行します。\n\neval します [1]。" and dropped == 2
    # inside fenced code it is the code's own
    fenced = "Like this [1]:\n\n```\nTitle\n=====\n```"
    assert drop_scaffolding(fenced, "x", []) == (fenced, 0)


def test_an_excerpt_name_that_ends_in_code_quotes_is_dropped_as_scaffolding():
    name = "第5章 `debian`ディレクトリーにあるその他のファイル > 5.5. `dirs`"
    for line in (name, f"**{name}**"):
        text, dropped = drop_scaffolding(f"{line}\n\nこのファイルは…です [1]。", "x", [], {name})
        assert (text, dropped) == ("このファイルは…です [1]。", 1)


def test_a_path_header_under_a_list_number_or_excerpt_number_is_dropped():
    paths = {"docs/shell-completion.rst", "first.ja.md"}
    text = "手順です。\n\n1. [1] docs/shell-completion.rst\n   - `eval` は遅い。\n2. first.ja.md\n## first.ja.md\n終わり [1]."
    got, dropped = strip_labels(text, paths)
    assert got == "手順です。\n\n   - `eval` は遅い。\n終わり [1]." and dropped == 3
    f = LabelFilter(paths)
    assert "".join(f.feed(c) for c in text) + f.finish() == (
        "手順です。\n\n   - `eval` は遅い。\n終わり [1]."
    )


def test_a_path_alone_or_in_a_sentence_is_kept_as_an_answer():
    paths = {"src/router.go"}
    assert (
        strip_labels("`src/router.go`\nIt routes [1].", paths)[0]
        == "`src/router.go`\nIt routes [1]."
    )
    assert strip_labels("1. src/router.go\n", paths) == ("1. src/router.go\n", 0)  # nothing else
    assert strip_labels("1. src/router.go does the routing [1].", paths)[1] == 0


def test_streaming_passes_an_answer_that_begins_with_a_number_once_it_is_not_a_list_head():
    f = LabelFilter(paths={"src/a.py"})
    assert f.feed("1") == ""  # may become "1. [1] src/a.py"
    assert f.feed(".5 秒待ちます") == "1.5 秒待ちます"


def test_a_paragraph_written_a_third_time_is_a_loop_and_its_second_copy_is_dropped():
    para = "このファイルにはパッケージの著作権やライセンスなどの情報を記載します。"
    twice = f"はじめに [1]。\n\n{para}\n\n{para}\n\n"
    assert third_copy_start(twice + "ほかの話 [2]。\n") is None  # a slip it may go on from
    text = f"{twice}{para}\n\n{para[:10]}"
    cut = third_copy_start(text)
    assert cut is not None and text[:cut] == twice[:-1]
    assert drop_repeated_lines(text[:cut]) == (f"はじめに [1]。\n\n{para}", 1)


def test_two_sentences_going_round_on_one_line_are_a_loop_and_their_copies_go():
    cycle = (
        "This might replace objects placed there earlier. "
        "In this case, the innermost context gets an object created if it is missing. "
    )
    text = "It creates the object [1]. " + cycle * 3 + "This might"
    cut = third_copy_start(text)
    assert cut is not None and text[:cut] == "It creates the object [1]. " + cycle * 2
    assert drop_repeated_sentences(text[:cut]) == ("It creates the object [1]. " + cycle.strip(), 2)


def test_a_sentence_written_twice_keeps_its_first_copy_and_short_ones_and_code_stay():
    said = "Set `FOO` in the environment before the command runs [1]."
    twice = f"{said} Then run it. {said}"
    assert drop_repeated_sentences(twice) == (f"{said} Then run it.", 1)
    assert third_copy_start(twice) is None  # a slip it may go on from
    short = "Then run it. Then run it. Then run it."
    assert drop_repeated_sentences(short) == (short, 0)
    code = "result = runner.invoke(cli, ['--name', 'x'], catch_exceptions=False)."
    fenced = f"Calls:\n```python\n{code} {code} {code}\n```"
    assert drop_repeated_sentences(fenced) == (fenced, 0)
    assert third_copy_start(fenced) is None


def test_code_in_a_tilde_fence_is_code_to_every_check():
    code = "result = runner.invoke(cli, ['--name', 'x'], catch_exceptions=False)."
    fenced = f"Calls:\n~~~python\n{code} {code} {code}\n{code}\n{code}\n~~~"
    assert third_copy_start(fenced) is None
    assert drop_repeated_sentences(fenced) == (fenced, 0)
    assert drop_repeated_lines(fenced) == (fenced, 0)
    assert paragraphs("前置き\n\n~~~\na = 1\n\nb = 2\n~~~") == [
        "前置き",
        "~~~\na = 1\n\nb = 2\n~~~",
    ]


def test_a_fence_closes_only_at_its_own_kind_of_fence():
    lines = ["Run:", "````markdown", "```", "x", "```", "````", "After.", "~~~", "y"]
    assert code_blocks(lines) == [-1, 0, 0, 0, 0, 0, -1, 1, 1]


def test_a_repeated_list_item_goes_with_the_numbered_header_above_it():
    item = "   - `eval` runs the command each time the shell starts, which is slow."
    text = f"Steps:\n\n1. [1] guide.rst\n{item}\n\n2. [1] guide.rst\n{item}\n\nDone [1]."
    assert drop_repeated_lines(text) == (f"Steps:\n\n1. [1] guide.rst\n{item}\n\nDone [1].", 2)


def test_short_recurring_lines_and_code_are_not_a_loop():
    assert drop_repeated_lines("- Default: none\n- Type: str\n- Default: none\n")[1] == 0
    code = "    result = runner.invoke(cli, ['--name', 'x'], catch_exceptions=False)\n"
    assert drop_repeated_lines(f"Two calls:\n```python\n{code}{code}{code}```\nDone.")[1] == 0
    line = "The decorator registers the callback on the group before parsing."
    assert drop_repeated_lines(f"{line} [1]\nAnd then {line}\n")[1] == 0  # not the same line


def test_a_line_is_measured_in_display_columns_so_a_short_japanese_sentence_can_repeat():
    line = "具体的には、以下のステップが行われます："  # 20 characters, 40 columns
    assert drop_repeated_lines(f"{line}\n- 一つ目 [1]\n{line}\n- 二つ目 [2]")[1] == 1
    latin = "Specifically, these steps are run now:"  # 38 columns: a list's recurring line
    assert drop_repeated_lines(f"{latin}\n- one [1]\n{latin}\n- two [2]")[1] == 0


def test_a_line_that_is_only_a_citation_joins_the_prose_line_above_it():
    assert citations_to_line_ends("番号は頭から比較されます。\n\n[1]") == (
        "番号は頭から比較されます [1]。",
        1,
    )
    assert citations_to_line_ends("1. one\n2. two\n\n[2]\n\nMore [3].") == (
        "1. one\n2. two [2]\n\nMore [3].",
        1,
    )
    assert citations_to_line_ends("It retries [1].\n\n[1]") == ("It retries [1].", 1)
    assert citations_to_line_ends("It retries.\n[1], [2]") == ("It retries [1, 2].", 1)
    # numbers a line is about, not its citation, stay ("[1], [2] are both guides.")
    assert citations_to_line_ends("[1], [2] are both guides.")[1] == 0
    # code above it, or nothing above it, keeps the line
    code = "```\nalias dquilt=quilt\n```\n\n[1]"
    assert citations_to_line_ends(code) == (code, 0)
    assert citations_to_line_ends("[1]") == ("[1]", 0)


def test_a_citation_that_opens_a_line_moves_to_its_end():
    text = "手順:\n1. [1] `local-options` に書きます。\n2. [1, 2] 確認します。\n[2] dpkg-depcheck - 調べます"
    assert citations_to_line_ends(text) == (
        "手順:\n1. `local-options` に書きます [1]。\n2. 確認します [1, 2]。\ndpkg-depcheck - 調べます [2]",
        3,
    )
    code = "```\n[1] not a citation\n```"
    assert citations_to_line_ends(code) == (code, 0)


def test_a_citation_the_sentence_is_about_stays_where_it_is_and_leaves_no_hole():
    # moved to the end, each would leave a particle or verb with nothing before it
    for line in (
        "[1] によると、`--force` を使います。",
        "[1]에서 `iter_content` 메서드를 사용합니다.",
        "[2] says that uploads are retried.",
    ):
        assert citations_to_line_ends(line) == (line, 0)
    assert citations_to_line_ends("[1] 설정 파일을 읽습니다.") == ("설정 파일을 읽습니다 [1].", 1)


ENSURE_GUIDE = (
    "The alternative is to find the object, and if it cannot find it, to create one and\n"
    "store it in the innermost context.  This behavior can also be enabled for\n"
    ":func:`make_pass_decorator` by passing ``ensure=True``:\n"
    "\n"
    ".. click:example::\n"
    "\n"
    "    pass_repo = click.make_pass_decorator(Repo, ensure=True)\n"
    "\n"
    "In this case, the innermost context gets an object created if it is missing.\n"
)


def test_a_numbered_label_item_goes_whole_and_a_label_the_sentence_names_keeps_its_path():
    paths = {"new-maintainer.html"}
    sections = {"2.3. Registering as a Debian member"}
    listed = (
        "手順です。\n\n3. [2] new-maintainer.html (2.3. Registering as a Debian member)\n"
        "4. バグを直します。"
    )
    assert strip_labels(listed, paths, sections)[0] == "手順です。\n\n4. バグを直します。"
    # the path is what the sentence registers with: cutting it would leave 「[1] で登録します」
    named = "1. [1] new-maintainer.html (2.3. Registering as a Debian member) で登録します。"
    assert strip_labels(named, paths, sections)[0] == "1. new-maintainer.html [1] で登録します。"


def test_an_excerpt_headers_section_copied_as_a_list_item_is_scaffolding():
    said = "以下の手順です。\n\n2. Applying to Become a Member\n3. 鍵に署名してもらいます [1]。"
    names = {"Applying to Become a Member"}
    assert drop_scaffolding(said, "どうやって参加する？", [], names) == (
        "以下の手順です。\n\n3. 鍵に署名してもらいます [1]。",
        1,
    )


def test_streaming_keeps_the_path_a_sentence_names_after_its_label():
    labels = LabelFilter({"new-maintainer.html"}, {"2.3. Registering as a Debian member"})
    shown = labels.feed("1. [1] new-maintainer.html (2.3. Registering as a Debian member) で登")
    shown += labels.feed("録します。\n") + labels.finish()
    assert shown == "1. [1] new-maintainer.html で登録します。\n"


def test_a_numbered_label_left_as_a_bare_path_item_goes_unless_it_is_the_whole_answer():
    paths, sections = {"pkgs.html"}, {"5.9.6. パッケージを手放す"}
    said = "手順です。\n\n1. pkgs.html (5.9.6. パッケージを手放す)\n以前のメンテナに連絡を取りましょう [1]。"
    assert (
        strip_labels(said, paths, sections)[0]
        == "手順です。\n\n以前のメンテナに連絡を取りましょう [1]。"
    )
    assert (
        strip_labels("1. pkgs.html (5.9.6. パッケージを手放す)", paths, sections)[0]
        == "1. pkgs.html"
    )
