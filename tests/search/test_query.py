from groundls.search.query import analyse


def test_quoted_text_of_several_words_is_a_phrase_stopwords_included():
    q = analyse("where does it come up with 'did you mean' suggestions?")
    assert q.phrases == ("did you mean",)
    assert analyse('which handler prints "no such option"?').phrases == ("no such option",)
    assert analyse("run `git status -s` first").phrases == ("git status -s",)


def test_a_japanese_quote_is_a_phrase():
    assert analyse("エラー「ファイルが見つかりません」はどこで出る？").phrases == (
        "ファイルが見つかりません",
    )


def test_apostrophes_and_single_quoted_words_are_not_phrases():
    assert analyse("it's the user's turn to choose").phrases == ()
    assert analyse("how is 'on', 'f' or '1' turned into a boolean?").phrases == ()


def test_adjacent_words_are_also_the_one_name_code_would_write():
    assert analyse("JSON element hierarchy and tree model").compounds == (
        "jsonelement",
        "elementhierarchy",
        "treemodel",
    )
    assert analyse("which IP address is trusted").compounds == ("ipaddress",)
    # an identifier is a name already, and one letter is not a word
    assert analyse("ZodObject shape and z.pipe output").compounds == ("pipeoutput",)


def test_each_name_is_kept_with_the_qualifier_it_is_written_with():
    q = analyse("Router::route vs app.Router.route and `route_layer`")
    assert sorted(q.qualifiers("route")) == [("app", "router"), ("router",)]
    assert q.qualifiers("route_layer") == [()] and q.qualifiers("missing") == []
    # a query stays a value: equal for the same text, usable as a key
    assert hash(q) == hash(analyse("Router::route vs app.Router.route and `route_layer`"))


def test_a_katakana_word_of_four_letters_or_more_loses_its_final_long_vowel_mark():
    from groundls.chunkers.textrules import katakana_stems

    assert katakana_stems("サーバーとユーザーのメモリー") == "サーバとユーザのメモリ"
    # three letters or fewer keep it (キー, エラー), and only a final mark goes
    assert katakana_stems("キーとエラーとバージョン") == "キーとエラーとバージョン"


def test_a_questions_katakana_words_are_searched_by_their_stem():
    # the stem's bigrams occur in サーバ and in サーバー alike; バー would also match バージョン
    assert analyse("サーバーの設定").terms == ("サー", "ーバ", "バの", "の設", "設定")


def test_a_pasted_file_is_read_only_as_far_as_the_lists_can_use_it():
    from groundls.search.query import MAX_QUERY_CHARS, MAX_TERMS, latin_names

    pasted = " ".join(f"word{i} Name{i}Thing 'quoted phrase {i}'" for i in range(100_000))
    q = analyse(pasted)
    assert len(q.text) <= MAX_QUERY_CHARS
    assert len(q.terms) == MAX_TERMS and q.terms[0] == "word0"
    assert len(q.compounds) <= MAX_TERMS and len(q.phrases) <= MAX_TERMS
    assert len(latin_names(pasted)) == MAX_TERMS


def test_an_encoder_reads_the_head_of_a_long_text_that_fits_its_window():
    from groundls.chunkers.textrules import estimate_encoder_tokens, head_within

    short = "ログレベルはどこで変更しますか"
    assert head_within(short, 512) == short
    for text in ("日本語の文章です。" * 20_000, "English words here. " * 20_000):
        head = head_within(text, 512)
        assert text.startswith(head)
        assert 500 <= estimate_encoder_tokens(head) <= 512


def test_each_model_embeds_only_as_much_of_a_question_as_its_window_holds():
    from groundls.index.embed.embedders import QUERY_TOKENS, Embedders
    from tests.helpers.fakes import FakeEmbedder

    class Recording(FakeEmbedder):
        def __init__(self) -> None:
            super().__init__("recording", 8)
            self.seen: list[str] = []

        def embed(self, texts):  # type: ignore[no-untyped-def]
            self.seen += list(texts)
            return super().embed(texts)

    class Windowed(Recording):
        query_tokens = 16

    windowed, plain = Windowed(), Recording()  # the second says nothing of its window
    models = Embedders({"a": windowed, "b": plain})
    question = "a long pasted question " * 10_000
    models.query_vector("a", question)
    models.query_vector("b", question)
    assert question.startswith(windowed.seen[0]) and len(windowed.seen[0]) <= 16 * 4
    assert question.startswith(plain.seen[0]) and len(plain.seen[0]) <= QUERY_TOKENS * 4


def test_the_names_a_question_writes_in_each_language():
    from groundls.search.query import question_names

    assert question_names("How do I read a YAML file into PostgreSQL?", "en") == [
        "PostgreSQL",
        "YAML",
    ]
    # a capitalised word inside an English sentence is a name; one that starts it is not
    assert question_names("Can I ship it as a Flatpak on crates.io?", "en") == [
        "Flatpak",
        "crates.io",
    ]
    assert question_names("Which numeric IDs, e.g. for a user, are free?", "en") == ["ID"]
    assert question_names("What does `Context.invoke` return?", "en") == ["Context.invoke"]
    # German capitalises every noun: only acronyms and names shaped as code count
    assert question_names("Wie schalte ich die Vervollständigung in der CLI ein?", "de") == ["CLI"]
    assert question_names("YAML の設定ファイルから読み込むには？", "ja") == ["YAML"]
