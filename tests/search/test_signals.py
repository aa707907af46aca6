from groundls.results import Hit
from groundls.search import signals
from groundls.search.query import analyse


def code(path: str, text: str = "x", score: float = 1.0, crumbs: tuple[str, ...] = ()) -> Hit:
    return Hit("0" * 16, path, 1, 5, "code", "python", "code", "f", crumbs, text, score)


def doc(path: str, crumbs: tuple[str, ...], score: float = 1.0) -> Hit:
    return Hit("1" * 16, path, 1, 5, "doc", "markdown", "prose", crumbs[-1], crumbs, "x", score)


def test_the_definition_of_a_queried_symbol_is_boosted_most_exact_case_first():
    q = analyse("Request")
    hit = code("src/app.py")
    assert signals.multiplier(q, hit, "Request") == signals.DEFINES_QUERIED_SYMBOL
    assert signals.multiplier(q, hit, "request") == signals.DEFINES_MENTIONED_SYMBOL
    assert signals.multiplier(q, hit, "Response") == 1.0
    # once the workspace defines the name as asked, the other spellings are other things
    assert signals.multiplier(q, hit, "request", other_case=False) == 1.0


def test_a_qualified_name_boosts_its_own_definition_over_a_namesakes():
    def method(title: str) -> Hit:
        return Hit("0" * 16, "src/lib.rs", 1, 5, "code", "rust", "method", title, (), "")

    q = analyse("Router::route")
    own, namesake = method("routing.Router.route"), method("path_router.PathRouter.route")
    assert signals.multiplier(q, own, "route") == signals.DEFINES_QUERIED_SYMBOL
    assert signals.multiplier(q, namesake, "route") == signals.DEFINES_MENTIONED_SYMBOL
    # a qualifier's parts need not be adjacent: ``click.echo`` is ``click.utils.echo``
    assert signals.qualified_as_asked(analyse("click.echo"), method("click.utils.echo"), "echo")
    # in a question too, the namesake is one step weaker
    asked = analyse("What does Context.ensure_object do?")
    meant = signals.multiplier(asked, method("core.Context.ensure_object"), "ensure_object")
    other = signals.multiplier(asked, method("core.Group.ensure_object"), "ensure_object")
    assert meant == signals.DEFINES_MENTIONED_SYMBOL and 1.0 < other < meant


def test_a_source_file_is_placed_by_its_stem_and_folders():
    q = analyse("where is the router middleware set up?")
    assert signals.place_matches(q, code("src/middleware/router.go")) == 2
    assert signals.place_matches(q, code("src/server/handler.go")) == 0


def test_two_adjacent_query_words_may_be_one_file_name():
    q = analyse("which IP address is trusted")
    assert signals.place_matches(q, code("net/ipaddress.go")) == 1


def test_a_source_file_whose_whole_stem_the_query_names_is_lifted_over_a_partial_name():
    q = analyse("syslog handler for system-level logging")
    whole, partial = code("src/Handler/SyslogHandler.php"), code("src/Handler/SyslogUdpHandler.php")
    assert signals.named_whole(q, whole) and not signals.named_whole(q, partial)
    assert signals.multiplier(q, whole, "") > signals.multiplier(q, partial, "")


def test_a_short_document_heading_is_not_a_whole_name():
    q = analyse("how are parameters validated?")
    assert not signals.named_whole(q, doc("docs/guide.md", ("Guide", "Parameters")))


def test_a_document_section_is_placed_by_its_headings_not_its_file_name():
    q = analyse("how do I configure shell completion?")
    assert signals.place_matches(q, doc("docs/shell.md", ("Guide", "Completion"))) == 1
    assert signals.place_matches(q, doc("docs/completion.md", ("Guide", "Install"))) == 0


def test_a_japanese_questions_latin_words_place_files_but_not_japanese_headings():
    q = analyse("Debian のバージョン番号はどう比較される？")
    titled = doc("first.ja.md", ("第2章 はじめの一歩", "2.8. 最初の Debian パッケージ"))
    untitled = doc("first.ja.md", ("第2章 はじめの一歩", "2.6. パッケージ名とバージョン"))
    # its Japanese words cannot match a Japanese heading; its one Latin word alone would favour
    # every section that carries the workspace's own name
    assert signals.multiplier(q, titled, "", whole=False) == signals.multiplier(
        q, untitled, "", whole=False
    )
    assert signals.multiplier(q, titled, "") > signals.multiplier(q, untitled, "")
    # a file is still placed by the names a Japanese question writes in Latin letters
    cors = analyse("CORS のプリフライトはどこで処理される？")
    assert signals.multiplier(cors, code("middleware/cors.py"), "", whole=False) > 1.0


def is_noise(path: str) -> bool:
    return signals.noise(path) < 1.0


def test_tests_and_examples_restate_and_vendored_code_is_aside_unless_asked_for():
    hit = code("tests/test_app.py")
    assert signals.noise("tests/test_app.py") == signals.RESTATES
    assert signals.noise("vendor/x/y.go") == signals.ASIDE == signals.noise("src/_compat.py")
    assert signals.noise("types/index.d.ts") == signals.ASIDE
    assert signals.RESTATES < signals.ASIDE < 1.0 == signals.noise("src/app.py")
    # test files by each language's naming convention, not by a word in any file's name
    assert is_noise("pkg/mux_test.go") and is_noise("web/cart.spec.ts")
    assert is_noise("src/CartSpec.scala") and is_noise("test/cart_test.exs")
    assert not is_noise("lib/bats-core/test_functions.bash")
    # folders hidden by a leading underscore (Go's ``_examples``, jest's ``__fixtures__``)
    assert is_noise("_examples/rest/main.go") and is_noise("src/__fixtures__/a.js")
    assert is_noise("src/__mocks__/fs.js") and is_noise("src/__tests__/a.js")
    assert not is_noise("src/_internal/app.py")
    # test doubles shipped beside the code they stand in for
    assert is_noise("lib/rack/mock_request.rb") and is_noise("pkg/clock_fake.go")
    assert not is_noise("src/mockingbird.py")
    assert signals.multiplier(analyse("request dispatch"), hit, "") == signals.RESTATES
    # asked for: no penalty (and the folder named "tests" matches the question)
    assert signals.multiplier(analyse("request dispatch tests"), hit, "") == 1 + signals.PLACE_WORD


def test_change_logs_are_noise_unless_the_question_asks_about_changes():
    assert is_noise("CHANGES.rst") and is_noise("docs/changelog.md")
    assert is_noise("HISTORY") and is_noise("release-notes.md")
    # source files of the same name are code, not logs
    assert not is_noise("src/news.py") and not is_noise("lib/changes.ts")
    log = doc("CHANGES.rst", ("8.1.0",))
    assert signals.multiplier(analyse("how are options parsed"), log, "") == signals.ASIDE
    assert signals.multiplier(analyse("which version changed option parsing"), log, "") == 1.0


def test_an_older_version_kept_beside_the_current_one_is_aside_unless_asked_for():
    pydantic = ["pydantic/fields.py", "pydantic/main.py", "pydantic/networks.py"]
    pydantic += ["pydantic/v1/fields.py", "pydantic/v1/main.py", "pydantic/v1/typing.py"]
    zod = ["src/v3/types.ts", "src/v4/core/schemas.ts", "src/v4-mini/index.ts"]
    assert signals.superseded_versions([*pydantic, *zod]) == {"pydantic/v1", "src/v3"}
    # the only tree, named by its major version, is the current code; so is a Go module's
    # later major version beside its unversioned first
    exposed = ["org/exposed/v1/core/Table.kt", "org/exposed/v1/core/Column.kt"]
    go = ["client.go", "options.go", "v2/client.go", "v2/options.go"]
    assert signals.superseded_versions([*exposed, *go]) == frozenset()
    older = {"pydantic/v1"}
    assert signals.noise("pydantic/v1/fields.py", older) == signals.ASIDE
    assert signals.noise("pydantic/fields.py", older) == 1.0
    hit = code("pydantic/v1/fields.py")
    assert signals.multiplier(analyse("alias handling"), hit, "", superseded=older) == signals.ASIDE
    assert signals.multiplier(analyse("alias handling in v1"), hit, "", superseded=older) == 1.0


def test_same_stem_joins_word_forms_but_not_short_prefixes():
    assert signals.same_stem("utility", "utils") and signals.same_stem("recovery", "recoverer")
    assert not signals.same_stem("map", "mapper")


def test_coherence_lifts_the_best_chunk_of_a_file_with_several_candidates():
    scores = {1: 1.0, 2: 0.5, 3: 0.9}
    signals.coherence(scores, {1: "a.py", 2: "a.py", 3: "b.py"})
    assert scores == {1: 1.0 + signals.COHERENCE_STEP, 2: 0.5, 3: 0.9}


def test_spread_lets_other_places_through_before_a_files_later_hits():
    hits = [code("a.py", score=1.0), code("a.py", score=0.9), code("b.py", score=0.8)]
    assert [h.path for h in signals.spread(hits)] == ["a.py", "b.py", "a.py"]
