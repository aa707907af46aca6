from groundls.chunkers.textrules import estimate_llm_tokens

from groundls.answer.stages.focus import ELISION, focus, question_terms, sentences, terms_of


def test_terms_are_stemmed_words_and_identifier_parts():
    assert {"strip", "color"} <= terms_of("should_strip_ansi stripping colors")
    assert "the" not in terms_of("the colour")


def test_japanese_terms_are_bigrams_without_kana_only_ones():
    terms = terms_of("設定ファイルをすること")
    assert {"設定", "ファ", "イル"} <= terms
    assert "する" not in terms


def test_question_terms_join_the_question_and_its_english_rewrite():
    terms = question_terms(["ページャーはどこ？", "pager program", ""])
    assert "pager" in terms and "ペー" in terms


def test_short_text_is_returned_whole():
    assert focus("a = 1\nb = 2", {"a"}, 100, estimate_llm_tokens) == ("a = 1\nb = 2", False)


def test_without_matching_lines_the_start_is_kept():
    text = "\n".join(f"line number {i} of the body" for i in range(200))
    out, cut = focus(text, {"nothing"}, 60, estimate_llm_tokens)
    lines = out.splitlines()
    assert (
        cut and lines[0] == "line number 0 of the body" and lines[1] == "line number 1 of the body"
    )
    assert lines[-1] == ELISION and estimate_llm_tokens(out) <= 60 + 2


def test_a_single_huge_line_is_cut_by_characters():
    out, cut = focus("x" * 10_000, set(), 50, estimate_llm_tokens)
    assert cut and out.endswith(ELISION) and len(out) < 1000


def test_a_long_prose_line_keeps_its_sentence_that_bears_on_the_question():
    para = "。".join(f"段落の{i}番目の文はここにあります" for i in range(30)) + "。"
    text = "見出し\n" + para.replace("12番目の文は", "12番目の文はログレベルの設定について")
    terms = terms_of("ログレベルの設定")
    prose, _ = focus(text, terms, 80, estimate_llm_tokens, prose=True)
    assert "ログレベルの設定" in prose and estimate_llm_tokens(prose) <= 80 + 4
    assert "段落の20番目" not in prose
    # code lines are never cut inside: the whole line or nothing
    code, _ = focus(text, terms, 80, estimate_llm_tokens)
    assert "ログレベルの設定" not in code or para in code


def test_sentences_split_after_full_stops_and_before_a_new_english_sentence():
    assert sentences("一つ目。二つ目！三つ目") == ["一つ目。", "二つ目！", "三つ目"]
    assert sentences("Read it first. Then run it, e.g. twice.") == [
        "Read it first.",
        "Then run it, e.g. twice.",
    ]


def test_a_closing_bracket_after_a_full_stop_stays_with_its_sentence():
    # a lone ")" cut off its sentence was kept as an excerpt line of its own
    line = "（名前を変えるには gosa.conf に追加します。）ユーザー作成後に Ok を押します。"
    assert sentences(line) == [
        "（名前を変えるには gosa.conf に追加します。）",
        "ユーザー作成後に Ok を押します。",
    ]
    assert sentences("「Create」を選びます。」次へ。") == ["「Create」を選びます。」", "次へ。"]


def test_a_line_with_a_rare_question_word_is_kept_before_lines_with_common_ones():
    # "package" and "version" are on every line of a packaging guide: they say nothing about
    # which line answers "how are package versions compared?"
    lines = [f"Build the package version {i} with the tools of the package." for i in range(40)]
    lines[25] = "Two strings are compared from left to right."
    text = "\n".join(["Versions", *lines])
    terms = question_terms(["How are package versions compared?"])
    out, cut = focus(text, terms, 40, estimate_llm_tokens, prose=True)
    assert cut and "Two strings are compared from left to right." in out
