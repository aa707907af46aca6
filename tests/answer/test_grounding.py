"""The grounded-specifics check compares text as a reader reads it: a full-width number or name
in a Japanese manual supports the same one written in ASCII, and the other way round."""

from __future__ import annotations

from groundls.answer.stages.prompt import instructions
from groundls.answer.text import grounding, sentences
from groundls.answer.text.grounding import (
    Evidence,
    drop_instruction_echoes,
    drop_unsupported,
    numbers_in,
    specifics,
)
from groundls.answer.text.language_checks import (
    drop_chinese,
    drop_meta_talk,
    drop_pasted_english,
    written_language,
)


def test_full_width_digits_are_the_same_numbers():
    assert numbers_in("保存期間は７日です") == {"7"}
    assert numbers_in("保存期間は7日です") == {"7"}


def test_an_answer_in_ascii_is_supported_by_a_manual_written_in_full_width():
    manual = Evidence(["ログは７日後に `ｌｏｇｒｏｔａｔｅ` が削除します（ｄａｉｌｙ）。"])
    said = "ログは 7 日後に `logrotate` が削除します [1]。"
    assert drop_unsupported(said, manual) == (said, [])


def test_a_number_the_manual_does_not_state_is_still_unsupported():
    manual = Evidence(["ログは７日後に削除されます。"])
    kept, missing = drop_unsupported("ログは 30 日後に削除されます [1]。", manual)
    assert kept == "" and missing == ["30"]


def test_a_name_written_right_before_japanese_text_is_read_without_it():
    named, _ = specifics("設定は docs/documentation.rstで説明され、--verboseで詳しく出ます [1]。")
    assert named == {"docs/documentation.rst", "documentation.rst", "--verbose"}


def test_an_acronym_no_excerpt_names_is_unsupported_in_any_language():
    guide = Evidence(["Debian は 1993 年に始まりました。ロゴは Debian のロゴ使用許諾に従います。"])
    said = "You may print the logo under the Debian Free Software License (DFSL) [1]."
    assert drop_unsupported(said, guide) == ("", ["DFSL"])
    # one the excerpts write (in a Japanese sentence) stands
    manual = Evidence(
        ["UEFI のセキュアブートが有効な PC では、署名されたブートローダーだけが動きます。"]
    )
    said = "With UEFI Secure Boot on, only signed boot loaders start [1]."
    assert drop_unsupported(said, manual) == (said, [])


def test_japanese_prose_between_two_code_spans_is_not_a_specific():
    named, _ = specifics("`python -m click` でモジュールとして実行した場合、`__main__ が呼ばれます")
    assert named == {"python -m click"}


def test_a_name_qualified_by_its_module_is_supported_by_its_parts():
    excerpt = Evidence(
        ["[1] src/click/testing.py:10-40 (CliRunner)\nclass CliRunner:\n    def isolation(self):"]
    )
    assert excerpt.holds("click.testing.CliRunner")
    assert excerpt.holds("CliRunner.isolation")
    assert not excerpt.holds("click.testing.FloatRange")  # a part the excerpt never names
    assert not excerpt.holds("CliRunnerFactory")


def test_a_sentence_in_chinese_is_dropped_from_a_japanese_answer():
    said = (
        "依存関係の解決案は順に試されます [1]。\n"
        "- 如果依赖是多个包组合在一起，逐一检查每个选项。\n"
        "解決案は `r` キーで却下できます [1]。"
    )
    kept, dropped = drop_chinese(said)
    assert dropped == 1
    assert kept == "依存関係の解決案は順に試されます [1]。\n解決案は `r` キーで却下できます [1]。"


def test_a_chinese_sentence_with_a_stray_kana_is_chinese_and_one_slipped_letter_is_not():
    said = (
        "要回答この質問，我们需要分析提供的信息来确定如何实现一个后台进程。\n"
        "コマンドは `CliRunner.invoke` で実行します [1]。\n"
        "この设定はファイルに書き込まれます [1]。"
    )
    kept, dropped = drop_chinese(said)
    assert dropped == 1
    assert kept == (
        "コマンドは `CliRunner.invoke` で実行します [1]。\nこの设定はファイルに書き込まれます [1]。"
    )


def test_an_answer_wholly_in_chinese_is_kept_whole_and_is_not_in_japanese():
    said = "需要将 `DESTDIR` 环境变量设置为临时目录。 [1]"
    assert drop_chinese(said) == (said, 0)
    assert written_language(said) == "zh"


def test_japanese_with_kana_or_only_japanese_kanji_is_not_chinese():
    # kana, and kanji Japanese writes (a heading with none), and a Windows-only variant (髙)
    for said in (
        "設定ファイルは /etc に置きます [1]。",
        "共有ライブラリ管理方針 [1]",
        "髙橋氏の手順 [1]",
    ):
        assert written_language(said) == "ja"
        assert drop_chinese(said) == (said, 0)


GUIDE = "`debdiff` は二つのソースパッケージの差分を表示します。`interdiff` はパッチの差分です。"


def test_a_sentence_that_repeats_the_instructions_is_dropped_from_an_answer():
    said = (
        "旧版と新版の比較には `debdiff` コマンドを使用します [1]。"
        "この回答は、抜粋に書かれている事実だけを使って、質問への答えを日本語の文章で書いています。"
    )
    kept, dropped = drop_instruction_echoes(
        said, "旧版と新版のパッケージを比較するには？", [GUIDE], instructions("ja")
    )
    assert dropped == 1
    assert kept == "旧版と新版の比較には `debdiff` コマンドを使用します [1]。"
    said = "Use `debdiff` to compare the two source packages [1]. The excerpt that supports this answer is [1]."
    kept, dropped = drop_instruction_echoes(
        said, "How do I compare two versions?", [GUIDE], instructions("en")
    )
    assert (kept, dropped) == ("Use `debdiff` to compare the two source packages [1].", 1)


def test_a_sentence_with_instruction_words_that_names_what_the_excerpts_say_stays():
    # コマンド is an instruction word (「コマンド名を挙げてください」), debdiff is the excerpt's
    said = "比較には `debdiff` コマンドを使用します [1]。"
    assert drop_instruction_echoes(said, "比較するには？", [GUIDE], instructions("ja")) == (said, 0)


def test_a_sentence_announcing_a_list_stays_and_an_answer_that_is_all_echo_is_kept_whole():
    asked = "どのエディタを起動するかはどうやって決まる？"
    intro = "どのエディタを起動するかは、以下の手順で決まります。"  # 手順: the full reminder's word
    editor = ["def edit(text=None, editor=None): the EDITOR environment variable, then vi"]
    said = f"`EDITOR` が優先されます [1]。\n{intro}\n1. `EDITOR` を見ます [1]。"
    assert drop_instruction_echoes(said, asked, editor, instructions("ja")) == (said, 0)
    said = f"`EDITOR` が優先されます [1]。\n{intro}"  # announcing nothing: it goes
    assert drop_instruction_echoes(said, asked, editor, instructions("ja"))[1] == 1
    # nothing else to say: judged as a whole answer (content-free), not emptied here
    said = "この回答は、抜粋に書かれている事実だけを使って書いています [1]。"
    assert drop_instruction_echoes(said, asked, editor, instructions("ja")) == (said, 0)


def test_a_dropped_list_item_takes_its_number_with_it():
    evidence = grounding.Evidence(["Open a terminal. Follow the prompts to finish."])
    said = "步骤： 1. 打开终端 [1]。 2. 运行 `pip install foo` 命令 [1]。 3. 按照提示完成安装 [1]。"
    kept, missing = grounding.drop_unsupported(said, evidence)
    assert "pip install foo" in missing
    assert kept == "步骤： 1. 打开终端 [1]。 3. 按照提示完成安装 [1]。"
    kept, _ = grounding.drop_unsupported(
        "Steps: 1. Open a terminal [1]. 2. Run `pip install foo` [1]. 3. Follow the prompts [1].",
        evidence,
    )
    assert kept == "Steps: 1. Open a terminal [1]. 3. Follow the prompts [1]."
    # a number that ends a sentence is no list item
    assert sentences.sentence_units("It is version 2. It works.") == [
        "It is version 2. ",
        "It works.",
    ]


def test_a_sentence_about_the_excerpt_is_dropped_and_the_facts_after_it_stay():
    said = (
        "この抜粋は、Click が optparse から独自に作られた理由を説明しています。\n\n"
        "Click は独自の引数解析を持ちます [1]。"
    )
    assert drop_meta_talk(said) == ("Click は独自の引数解析を持ちます [1]。", 1)
    said = "The excerpt describes the retry loop. Uploads are retried three times [2]."
    assert drop_meta_talk(said) == ("Uploads are retried three times [2].", 1)


def test_an_answer_about_itself_loses_that_sentence():
    said = "`-i` で対話的に選べます [1]。この回答は、質問に答えるための情報を提供しています。"
    assert drop_meta_talk(said) == ("`-i` で対話的に選べます [1]。", 1)


def test_an_answer_about_itself_loses_that_sentence_even_when_it_quotes_a_negation():
    said = (
        "`pbuilder` が便利です [1]。この回答は、抜粋の内容を基に、ビルド依存の書き漏れがないか"
        "確かめたいという質問に対して、適切な答えを提供しています。"
    )
    assert drop_meta_talk(said) == ("`pbuilder` が便利です [1]。", 1)


def test_saying_the_excerpts_lack_something_and_plain_answers_are_not_meta_talk():
    for said in (
        "抜粋には、パスワードの保存方法は書かれていません。",
        "抜粋には、ログの保存先についての記述がない [1]。",
        "この質問への答えは抜粋にはありませんでした。",
        "抜粋には、キャッシュについての記載はないようです。",
        "The excerpts do not say how tokens are refreshed.",
        "答えは `--force` オプションです [1]。",
        "このコードは設定ファイルを読み込みます [1]。",
        "The answer is the `--force` option [1].",
    ):
        assert drop_meta_talk(said) == (said, 0)


def test_an_answer_that_is_only_meta_talk_is_kept_whole_and_says_nothing():
    said = "上記の抜粋は、requests の Response クラスの json メソッドを指しています [1]。"
    assert drop_meta_talk(said) == (said, 0)
    excerpt = "class Response:\n    def json(self, **kwargs):"
    assert grounding.says_nothing(said, ["JSON を読むには？"], [excerpt])
    assert not grounding.says_nothing(
        "`Response.json` で読みます [1]。", ["JSON を読むには？"], [excerpt]
    )


def test_english_lines_pasted_into_a_japanese_answer_go_with_the_line_announcing_them():
    said = (
        "サブコマンドの前にオプションを書く必要があります [1]。次のように書かれています:\n\n"
        "Click strictly separates parameters between commands and subcommands. What this\n"
        "means is that options and arguments for a specific command have to be specified\n\n"
        "```\n$ tool --help sub\n```"
    )
    kept, dropped = drop_pasted_english(said, "ja")
    assert dropped == 2
    assert (
        kept
        == "サブコマンドの前にオプションを書く必要があります [1]。\n\n```\n$ tool --help sub\n```"
    )


def test_an_english_quote_inside_a_japanese_line_and_lists_of_names_stay():
    said = (
        "説明には「If the value is None, the default is used.」とあります [1]。\n"
        "- `--count`: Number of greetings"
    )
    assert drop_pasted_english(said, "ja") == (said, 0)
    english = "Options come before the subcommand, as the guide says [1]."
    assert drop_pasted_english(english, "en") == (english, 0)
    assert drop_pasted_english(english, "ja") == (english, 0)  # all of it: judged as a whole


def test_a_sentence_resting_on_an_unsupported_command_goes_whole_and_leaves_no_hole():
    manual = Evidence(["状態を確認するには `systemctl status` を使います。"])
    said = "状態を確認するには、コマンド `journalctl -xe` を実行します。`systemctl status` でも確認できます [1]。"
    kept, missing = drop_unsupported(said, manual)
    assert kept == "`systemctl status` でも確認できます [1]。"
    assert any("journalctl" in m for m in missing)


def test_an_excerpt_that_shows_a_fact_gives_the_fact_as_the_sentence():
    said = "The excerpt [2] shows that uploads are retried three times [2]."
    assert drop_meta_talk(said) == ("Uploads are retried three times [2].", 1)
