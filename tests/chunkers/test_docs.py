"""Prose and config chunkers: Markdown, reST, HTML, plain text and XML into stable pieces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from groundls.chunkers import Chunk, ChunkOptions, chunk_file, sentence_parts
from groundls.chunkers.base import CHUNK_ID_RE
from groundls.chunkers.blocks import sentence_spans, table_key_values
from groundls.chunkers.markdown import HEADING_CHARS, heading_text
from groundls.chunkers.textrules import estimate_encoder_tokens

FIXTURES = Path(__file__).parents[1] / "fixtures" / "docs"


def _chunks(name: str, options: ChunkOptions | None = None, text: str | None = None) -> list[Chunk]:
    body = (FIXTURES / name).read_text(encoding="utf-8") if text is None else text
    return chunk_file(f"docs/{name}", body, options or ChunkOptions())


def _by_title(chunks: list[Chunk], title: str) -> list[Chunk]:
    return [c for c in chunks if c.title == title]


def _lines(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").split("\n")


# --- Markdown ---------------------------------------------------------------------------------


def test_markdown_front_matter_is_not_content_but_its_title_heads_the_breadcrumb() -> None:
    chunks = _chunks("guide_ja.md")
    assert all("tags:" not in c.text and "---\ntitle" not in c.text for c in chunks)
    assert min(c.start_line for c in chunks) == 6  # the first line after the front matter
    preamble = [c for c in chunks if c.start_line == 6][0]
    assert preamble.title == "グラウンド利用ガイド"
    install = _by_title(chunks, "インストール")[0]
    assert install.breadcrumb == ("グラウンド利用ガイド", "インストール")


def test_markdown_heading_chain_becomes_breadcrumb_key_and_embedded_context() -> None:
    chunks = _chunks("guide_ja.md")
    offline = _by_title(chunks, "オフライン環境")
    assert len(offline) == 1
    chunk = offline[0]
    assert chunk.breadcrumb == ("グラウンド利用ガイド", "インストール", "オフライン環境")
    assert chunk.embed_text.startswith(
        "docs/guide_ja.md: グラウンド利用ガイド > インストール > オフライン環境\n"
    )
    assert chunk.text.startswith("### オフライン環境")
    assert chunk.text_type == "section"
    assert chunk.language == "markdown" and chunk.kind == "doc"


def test_markdown_heading_breadcrumb_leaves_out_badges_tags_and_link_targets() -> None:
    text = (
        "# textlint-rule-max-ten [![Actions Status: test](https://github.com/o/r/badge.svg)]"
        "(https://github.com/o/r/actions)\n\n"
        "一文に利用できる読点の数を制限するルールです。\n\n"
        "## The `max` option and [its default](#defaults) <sup>new</sup>\n\n"
        "The **maximum** count of commas in one sentence, three by default.\n\n"
        "## __init__ files and the `<script>` tag\n\nPackages start here.\n\n"
        "# ![logo](logo.png)\n\nA project without a name in words.\n"
    )
    chunks = _chunks("badges.md", text=text)
    crumbs = {c.breadcrumb for c in chunks}
    assert ("textlint-rule-max-ten",) in crumbs
    assert ("textlint-rule-max-ten", "The `max` option and its default new") in crumbs
    assert ("textlint-rule-max-ten", "__init__ files and the `<script>` tag") in crumbs
    assert ("logo",) in crumbs  # a heading of images only keeps their alt text
    first = next(c for c in chunks if c.breadcrumb == ("textlint-rule-max-ten",))
    assert "badge.svg" not in first.embed_text.splitlines()[0]
    assert first.text.startswith("# textlint-rule-max-ten [![")  # the source stays as written


def test_markdown_heading_code_spans_pair_backtick_runs_of_one_length_and_a_long_line_stays() -> (
    None
):
    assert heading_text("``a`[b](c)`` and [d](e)") == "``a`[b](c)`` and d"
    assert heading_text("a `b [c](d)") == "a `b c"  # an unclosed run is a backtick
    ticks = "`" * (HEADING_CHARS * 10)  # a line a regular expression would pair for seconds
    assert heading_text(ticks) == ticks


def test_markdown_hash_lines_inside_backtick_and_tilde_fences_are_not_headings() -> None:
    chunks = _chunks("guide_ja.md")
    titles = {c.title for c in chunks}
    assert "not a heading" not in titles and "also not a heading" not in titles
    install = _by_title(chunks, "インストール")[0]
    assert "# not a heading\npip install groundls\n```" in install.text
    settings = _by_title(chunks, "設定ファイル")[0]
    assert "# also not a heading" in settings.text


def test_markdown_setext_heading_opens_a_sibling_section() -> None:
    chunks = _chunks("guide_ja.md")
    settings = _by_title(chunks, "設定ファイル")
    assert settings and settings[0].breadcrumb == ("グラウンド利用ガイド", "設定ファイル")
    lines = _lines("guide_ja.md")
    assert lines[settings[0].start_line - 1] == "設定ファイル"
    assert lines[settings[0].start_line].startswith("-----")


def test_markdown_short_section_is_one_piece_from_heading_to_last_nonblank_line() -> None:
    chunks = _chunks("guide_ja.md")
    lines = _lines("guide_ja.md")
    install = _by_title(chunks, "インストール")[0]
    assert lines[install.start_line - 1] == "## インストール"
    assert lines[install.end_line - 1] == "```"  # closing fence, the blank line after is not in
    assert lines[install.end_line].strip() == ""
    assert install.text == "\n".join(lines[install.start_line - 1 : install.end_line])


def test_markdown_table_keeps_markdown_text_and_embeds_key_value_rows() -> None:
    small = ChunkOptions(max_tokens=70, overlap_tokens=10)
    chunks = _chunks("guide_ja.md", small)
    tables = [c for c in chunks if c.text_type == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert table.text.startswith("| キー | 既定値 | 説明 |\n|------|")
    assert "キー: max_tokens; 既定値: 400; 説明: チャンクの最大トークン数" in table.embed_text
    assert table.embed_text.index("キー: min_chars") < table.embed_text.index("| min_chars |")
    other = [c for c in chunks if c.title == "設定ファイル" and c.text_type != "table"]
    assert other and all(c.id != table.id for c in other)


def test_short_section_with_a_table_still_embeds_key_value_rows() -> None:
    settings = _by_title(_chunks("guide_ja.md"), "設定ファイル")[0]
    assert settings.text_type == "section"
    assert "キー: overlap_tokens; 既定値: 30" in settings.embed_text
    assert "キー: overlap_tokens" not in settings.text


def test_long_japanese_section_splits_at_sentence_ends_with_overlap() -> None:
    options = ChunkOptions(max_tokens=120, overlap_tokens=40)
    parts = _by_title(_chunks("guide_ja.md", options), "長い説明")
    assert len(parts) >= 3
    assert parts[0].text.startswith("## 長い説明")
    for part in parts:
        assert part.text.endswith(("。", "！", "？")), part.text[-20:]
        assert estimate_encoder_tokens(part.text) <= options.max_tokens + options.overlap_tokens
    for before, after in zip(parts, parts[1:], strict=False):
        last_sentence = re.split(r"(?<=[。！？])", before.text.rstrip("。！？"))[-1]
        assert last_sentence and last_sentence in after.text  # the border sentence is repeated


def test_a_paragraph_and_the_list_it_introduces_stay_together() -> None:
    text = (
        "# Setup\n\n"
        + "\n\n".join(f"Background paragraph {n} " + "with filler words " * 12 for n in range(4))
        + "\n\nTo install, do the following:\n\n"
        + "\n".join(f"- step {n} of the installation" for n in range(6))
        + "\n"
    )
    chunks = chunk_file("setup.md", text, ChunkOptions(max_tokens=120))
    holder = [c for c in chunks if "do the following:" in c.text]
    assert len(holder) == 1 and "- step 5 of the installation" in holder[0].text
    assert len(chunks) > 1


def test_a_list_alone_over_budget_is_cut_only_between_items() -> None:
    items = [f"- item {n}: " + "words " * 20 + f"\n  continued {n}" for n in range(12)]
    text = "# Big list\n\n" + "\n".join(items) + "\n"
    chunks = chunk_file("list.md", text, ChunkOptions(max_tokens=100))
    assert len(chunks) > 2
    for chunk in chunks:
        body = chunk.text.removeprefix("# Big list\n\n")
        assert body.startswith("- item ")
        assert chunk.text.rstrip().split("\n")[-1].startswith("  continued")
    assert {c.text_type for c in chunks[1:]} == {"list"}


def test_markdown_unterminated_fence_runs_to_the_end_without_raising() -> None:
    text = "# Title\n\nSome intro text that is long enough.\n\n```python\n# comment\n## also\n"
    chunks = chunk_file("broken.md", text)
    assert [c.title for c in chunks] == ["Title"]
    assert chunks[0].end_line == 7


def test_markdown_tiny_trailing_paragraph_merges_with_its_neighbour() -> None:
    text = "# Notes\n\n" + "A long paragraph of words. " * 30 + "\n\nOk.\n"
    chunks = chunk_file("notes.md", text, ChunkOptions(max_tokens=220, min_chars=50))
    assert not any(c.text.strip() == "Ok." for c in chunks)
    assert chunks[-1].text.endswith("Ok.")


def test_symbol_only_markdown_yields_no_chunks() -> None:
    assert chunk_file("rule.md", "---\n\n***\n\n- - -\n\n| | |\n") == []
    assert chunk_file("empty.md", "") == []


def test_empty_parent_heading_is_carried_into_its_first_child() -> None:
    text = "# Parent\n\n## Child\n\nChild text that is long enough to stand alone here.\n"
    chunks = chunk_file("p.md", text)
    assert len(chunks) == 1
    assert chunks[0].start_line == 1 and chunks[0].breadcrumb == ("Parent", "Child")


def test_crlf_line_endings_keep_line_numbers() -> None:
    text = "# A\r\n\r\nFirst section text, long enough for a piece.\r\n\r\n# B\r\n\r\nSecond.\r\n"
    chunks = chunk_file("crlf.md", text)
    assert [(c.title, c.start_line, c.end_line) for c in chunks] == [("A", 1, 3), ("B", 5, 7)]
    assert "\r" not in chunks[0].text


def test_editing_one_section_keeps_other_chunk_ids_and_hashes() -> None:
    original = (FIXTURES / "guide_ja.md").read_text(encoding="utf-8")
    edited = original.replace(
        "事前にホイールを用意してからインストールします。",
        "事前にホイールを別のマシンで用意してから、改めてインストールします。",
    )
    assert edited != original
    options = ChunkOptions(max_tokens=120, overlap_tokens=40)
    before = {c.id: c for c in chunk_file("docs/guide_ja.md", original, options)}
    after = {c.id: c for c in chunk_file("docs/guide_ja.md", edited, options)}
    assert set(before) == set(after)
    changed = [cid for cid in before if before[cid].content_hash != after[cid].content_hash]
    assert [before[cid].title for cid in changed] == ["オフライン環境"]
    assert all(CHUNK_ID_RE.match(cid) for cid in after)


def test_inserting_a_section_does_not_change_ids_of_later_sections() -> None:
    original = (FIXTURES / "guide_ja.md").read_text(encoding="utf-8")
    edited = original.replace(
        "## 長い説明",
        "## 新しい節\n\n新しく追加した節の本文です。十分な長さがあります。\n\n## 長い説明",
    )
    before = {c.title: c.id for c in chunk_file("docs/guide_ja.md", original)}
    after = {c.title: c.id for c in chunk_file("docs/guide_ja.md", edited)}
    assert after["長い説明"] == before["長い説明"]
    assert after["設定ファイル"] == before["設定ファイル"]


def test_every_markdown_chunk_line_range_matches_its_text() -> None:
    lines = _lines("guide_ja.md")
    for chunk in _chunks("guide_ja.md", ChunkOptions(max_tokens=90, overlap_tokens=0)):
        first = chunk.text.split("\n")[0]
        last = chunk.text.split("\n")[-1]
        assert first in lines[chunk.start_line - 1] or lines[chunk.start_line - 1] in first
        assert last.strip() and last in lines[chunk.end_line - 1]


# --- reStructuredText -------------------------------------------------------------------------


def test_rst_titles_nest_by_adornment_order_of_appearance() -> None:
    chunks = _chunks("guide.rst")
    crumbs = {c.title: c.breadcrumb for c in chunks}
    assert crumbs["Field Guide"] == ("Field Guide",)
    assert crumbs["Installation"] == ("Field Guide", "Installation")
    assert crumbs["Offline mode"] == ("Field Guide", "Installation", "Offline mode")
    assert crumbs["Configuration"] == ("Field Guide", "Configuration")
    assert all(c.language == "rst" and c.kind == "doc" for c in chunks)


def test_rst_literal_blocks_and_directives_are_kept_whole() -> None:
    options = ChunkOptions(max_tokens=40, overlap_tokens=0, min_chars=10)
    chunks = _chunks("guide.rst", options)
    assert "# not a title" not in {c.title for c in chunks}
    literal = [c for c in chunks if "pip install groundls" in c.text]
    assert len(literal) == 1 and "groundls --version" in literal[0].text
    directive = [c for c in chunks if ".. code-block:: python" in c.text]
    assert len(directive) == 1 and "groundls.run(offline=True)" in directive[0].text


def test_rst_section_starts_at_its_title_line() -> None:
    lines = _lines("guide.rst")
    for chunk in _chunks("guide.rst"):
        assert lines[chunk.start_line - 1].strip().startswith(("=", chunk.title))


# --- HTML -------------------------------------------------------------------------------------


def test_html_headings_make_sections_and_script_style_nav_are_dropped() -> None:
    chunks = _chunks("page.html")
    assert [c.breadcrumb for c in chunks] == [
        ("Tool Manual",),
        ("Tool Manual", "Install"),
        ("Tool Manual", "Options"),
    ]
    everything = "\n".join(c.embed_text for c in chunks)
    for secret in ("secretScript", "secret-style", "Secret navigation"):
        assert secret not in everything
    assert all(c.language == "html" and c.kind == "doc" for c in chunks)


def test_html_line_numbers_come_from_the_parser_positions() -> None:
    lines = _lines("page.html")
    chunks = _chunks("page.html")
    install = _by_title(chunks, "Install")[0]
    assert lines[install.start_line - 1] == "<h2>Install</h2>"
    assert "</li>" in lines[install.end_line - 1]
    assert "pip install tool\n# not a heading inside pre" in install.text
    assert "- Works offline after installation." in install.text
    intro = _by_title(chunks, "Tool Manual")[0]
    assert (intro.start_line, intro.end_line) == (10, 12)
    assert "use it in daily work" in intro.text  # source line breaks become spaces


def test_html_table_is_rendered_as_markdown_with_key_value_embedding() -> None:
    options = _by_title(_chunks("page.html"), "Options")[0]
    assert "| Option | Default |\n|---|---|\n| max_tokens | 400 |" in options.text
    assert "Option: max_tokens; Default: 400" in options.embed_text


def _long_html(kind: str) -> str:
    """A page whose one long table (or list) is written over several source lines a row (an
    item), as DocBook and Sphinx write them, so the chunker has to split it."""
    if kind == "table":
        rows = "".join(
            f"<tr><td>Option{n}</td>\n<td>Sets the option number {n}: a\nlonger description of"
            f" what it does to the package list and when it applies.</td></tr>\n"
            for n in range(60)
        )
        return (
            f"<h2>Options</h2>\n<table>\n<tr><th>Name</th><th>Meaning</th></tr>\n{rows}</table>\n"
        )
    items = "".join(
        f"<li>Item {n} explains one step\nover two lines of what the user does next.</li>\n"
        for n in range(80)
    )
    return f"<h2>Steps</h2>\n<ul>\n{items}</ul>\n"


@pytest.mark.parametrize("kind", ["table", "list"])
def test_html_table_rows_and_list_items_split_into_chunks_keep_their_own_source_lines(
    kind: str,
) -> None:
    page = _long_html(kind)
    lines = page.split("\n")
    options = ChunkOptions(max_tokens=120)
    chunks = _chunks("long.html", options, page)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.start_line <= chunk.end_line
        # the last row (item) the chunk shows is written within its lines
        last = chunk.text.rstrip().split("\n")[-1]
        word = re.findall(r"(?:Option|Item) ?(\d+)", last)[-1]
        label = f"Option{word}" if kind == "table" else f"Item {word} "
        shown = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert label in shown, (chunk.start_line, chunk.end_line, last)
        first = re.findall(r"(?:Option|Item) ?(\d+)", chunk.text)
        if first:
            head = f"Option{first[0]}" if kind == "table" else f"Item {first[0]} "
            assert head in shown


@pytest.mark.parametrize("language", ["en", "ja"])
def test_a_long_html_paragraph_split_into_chunks_cites_each_part_at_its_own_source_lines(
    language: str,
) -> None:
    # one <p> written over many source lines (its line breaks are spaces, or nothing between
    # Japanese letters), long enough to be split at sentences
    if language == "en":
        sentences = [
            f"Sentence {n} says what step {n} does\nto the package list and why it is safe."
            for n in range(60)
        ]
    else:
        sentences = [
            f"文{n}では手順{n}がパッケージ一覧に\nどう作用するかを説明します。" for n in range(60)
        ]
    page = "<h2>Notes</h2>\n<p>" + "\n".join(sentences) + "</p>\n"
    lines = page.split("\n")
    chunks = _chunks("para.html", ChunkOptions(max_tokens=120), page)
    assert len(chunks) > 2
    pattern = r"(?:Sentence |文)(\d+)"
    for chunk in chunks:
        shown = "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        numbers = re.findall(pattern, chunk.text)
        for n in (numbers[0], numbers[-1]):  # its first and last sentence are within its lines
            label = f"Sentence {n} " if language == "en" else f"文{n}で"
            assert label in shown, (chunk.start_line, chunk.end_line, n)


@pytest.mark.parametrize(
    "broken",
    [
        "<h2>Open heading<p>text without closing <b>bold",
        "<table><tr><td>cell<td>other",
        "</div></p><<>><!-- unterminated",
        "<pre>never closed\n# hash",
        "<ul><li>one<li>two",
        "",
    ],
)
def test_broken_html_never_raises(broken: str) -> None:
    chunks = chunk_file("broken.html", broken)
    assert all(CHUNK_ID_RE.match(c.id) for c in chunks)


# --- plain text -------------------------------------------------------------------------------


def test_text_underlined_and_numbered_headings_open_sections() -> None:
    chunks = _chunks("notes.txt")
    crumbs = [c.breadcrumb for c in chunks]
    assert crumbs == [
        ("Release Notes",),
        ("Release Notes", "1. Version 2.0"),
        ("Release Notes", "1. Version 2.0", "1.1 Upgrading"),
        ("Release Notes", "2. Version 1.0"),
    ]
    assert [(c.start_line, c.end_line) for c in chunks][:2] == [(1, 4), (6, 8)]


def test_text_without_headings_is_split_into_paragraph_pieces() -> None:
    paragraphs = [f"Paragraph {n} talks about topic {n}. " * 12 for n in range(6)]
    chunks = chunk_file("plain.txt", "\n\n".join(paragraphs), ChunkOptions(max_tokens=150))
    assert len(chunks) >= 3
    assert all(c.text_type == "paragraph" for c in chunks)
    assert all(not c.text.startswith("\n") and c.text.strip() == c.text for c in chunks)


def test_long_japanese_text_paragraph_splits_at_kuten() -> None:
    sentence = "これは長い段落の一文であり、検索のために適切な大きさへ分割される必要があります。"
    chunks = chunk_file("ja.txt", sentence * 30, ChunkOptions(max_tokens=100, overlap_tokens=0))
    assert len(chunks) > 3
    assert all(c.text.endswith("。") and c.text.startswith("これは") for c in chunks)


def test_asciidoc_headings_are_recognised_in_adoc_files() -> None:
    text = "= Manual\n\nIntro text, long enough to stand on its own here.\n\n== Usage\nRun it.\n"
    chunks = chunk_file("m.adoc", text)
    assert [c.breadcrumb for c in chunks] == [("Manual",), ("Manual", "Usage")]


# --- XML --------------------------------------------------------------------------------------


def test_xml_one_piece_per_top_level_element_with_root_breadcrumb() -> None:
    chunks = [c for c in _chunks("config.xml") if len(c.breadcrumb) == 2]
    assert [(c.start_line, c.end_line) for c in chunks] == [(3, 7), (9, 11), (13, 16)]
    component = chunks[0]
    assert component.breadcrumb == (
        "component-configuration",
        'component[name="dbConnectionManager"]',
    )
    assert 'value="jdbc:h2:mem:test"' in component.text  # attributes kept
    assert "in-memory database" in component.text  # text kept
    assert component.embed_text.startswith("docs/config.xml: component-configuration > component")
    assert all(c.language == "xml" and c.kind == "config" for c in chunks)


def test_xml_element_over_budget_is_split_by_its_children() -> None:
    deps = "\n".join(
        f"    <dependency>\n      <artifactId>lib{n}</artifactId>\n"
        f"      <version>1.{n}</version>\n    </dependency>"
        for n in range(30)
    )
    text = f"<project>\n  <dependencies>\n{deps}\n  </dependencies>\n</project>\n"
    chunks = chunk_file("pom.xml", text, ChunkOptions(max_tokens=100))
    assert len(chunks) > 3
    assert chunks[0].breadcrumb[:2] == ("project", "dependencies")
    assert any(c.title == 'dependency[artifactId="lib7"]' for c in chunks)
    assert all(estimate_encoder_tokens(c.text) <= 100 for c in chunks)


@pytest.mark.parametrize(
    "broken",
    [
        "<a><b></a>",
        "<root>\n<child attr='x'>\n",
        "plain words, not xml at all",
        "<a>&undefined;</a>",
    ],
)
def test_malformed_xml_falls_back_to_line_windows(broken: str) -> None:
    chunks = chunk_file("bad.xml", broken)
    assert chunks and all(c.text_type == "window" for c in chunks)
    assert chunks[0].start_line == 1


# --- shared helpers ---------------------------------------------------------------------------


def test_sentence_spans_end_at_japanese_and_english_punctuation() -> None:
    text = "最初の文です。次は質問？ Then English. Version 1.2 is fine! 最後"
    parts = [text[a:b].strip() for a, b in sentence_spans(text)]
    assert parts == [
        "最初の文です。",
        "次は質問？",
        "Then English.",
        "Version 1.2 is fine!",
        "最後",
    ]


def test_table_key_values_render_each_row_with_its_headers() -> None:
    table = "| Name | Size |\n|---|---|\n| a \\| b | 1 |\n| c | |"
    assert table_key_values(table) == "Name: a | b; Size: 1\nName: c"


def test_a_heading_with_nothing_under_it_is_a_heading_chunk() -> None:
    chunks = chunk_file("h.md", "# Only A Heading Here\n\n## Sibling Section Title\n")
    assert [c.text_type for c in chunks] == ["heading"]
    assert chunks[0].breadcrumb == ("Only A Heading Here", "Sibling Section Title")
    assert (chunks[0].start_line, chunks[0].end_line) == (1, 3)


def test_code_only_and_list_only_pieces_are_typed() -> None:
    code = "\n".join(f"value_{n} = compute({n})  # step" for n in range(40))
    items = "\n".join(f"- point {n} of the checklist with some words" for n in range(30))
    text = f"# Mixed\n\nIntro paragraph of the section.\n\n```python\n{code}\n```\n\n{items}\n"
    chunks = chunk_file("m.md", text, ChunkOptions(max_tokens=200))
    types = [c.text_type for c in chunks]
    assert "code" in types and "list" in types
    for chunk in chunks:
        if chunk.text_type == "code":
            assert "- point" not in chunk.text
        if chunk.text_type == "list":
            assert "compute(" not in chunk.text


def test_overlap_repeats_the_closing_clause_when_a_whole_sentence_is_too_long() -> None:
    sentence = "{n}番目の文はとても長く、途中に読点をいくつも含み、最後の節だけが次へ重なります。"
    text = "".join(sentence.format(n=n) for n in range(12))
    chunks = chunk_file("ja.txt", text, ChunkOptions(max_tokens=120, overlap_tokens=12))
    assert len(chunks) >= 3
    for before, after in zip(chunks, chunks[1:], strict=False):
        head = after.text.split("。")[0] + "。"
        assert not head[0].isdigit()  # a clause, not the whole last sentence
        assert before.text.endswith("、" + head)


def test_html_navigation_landmarks_and_hidden_blocks_are_dropped() -> None:
    page = (
        '<div role="navigation"><div>Menu entry one</div><p>Menu entry two</p></div>\n'
        "<div hidden><p>Hidden dialog text</p></div>\n"
        "<h1>Visible</h1><p>Visible text that is long enough to be kept as content.</p>\n"
    )
    chunks = chunk_file("nav.html", page)
    assert [c.title for c in chunks] == ["Visible"]
    assert "Menu entry" not in chunks[0].embed_text and "Hidden" not in chunks[0].embed_text


def test_html_tables_of_contents_and_navigation_headers_are_dropped() -> None:
    page = (
        '<div class="navheader"><a href="ch02.html">Next</a></div>\n'
        "<h1>Chapter 3. Booting</h1>\n"
        '<div class="toc"><p><strong>Contents</strong></p><dl class="toc">\n'
        "<dt>3.1. Kernel messages</dt><dt>3.2. Host name</dt></dl></div>\n"
        '<div class="list-of-tables"><p>Table 3.1. Error levels</p></div>\n'
        "<p>How the system starts, from the boot loader to the login prompt.</p>\n"
        "<h2>3.1. Kernel messages</h2><p>Read them with dmesg after the boot.</p>\n"
    )
    chunks = chunk_file("ch03.html", page)
    first = chunks[0]
    assert first.title == "Chapter 3. Booting" and "boot loader" in first.text
    for word in ("Next", "Contents", "Host name", "Error levels"):
        assert word not in first.text
    assert [c.title for c in chunks[1:]] == ["3.1. Kernel messages"]


def test_html_text_after_the_last_tag_end_is_read_as_text_even_when_it_holds_lt_signs() -> None:
    # after the page's last ">" no tag can end: ``<a <a …`` and ``x <y …`` stay text (the
    # parser's search for each one's end grew with the square of their length: timed in
    # BENCHMARKS.md, not here)
    for tail in ("<a " * 3000, "x <y " * 2000):
        chunk = chunk_file("docs/broken.html", "<h1>Notes</h1><p>" + tail)[0]
        assert chunk.title == "Notes" and chunk.text.startswith("Notes\n\n" + tail[:20])


def test_html_heading_permalinks_are_not_part_of_titles_or_text() -> None:
    page = (
        '<h1>4. Resources<a class="headerlink" href="#r" title="Permalink">¶</a></h1>\n'
        '<h2>4.1. メーリングリスト<a class="headerlink" href="#m">¶</a></h2>\n'
        "<p>投稿する前に利用の基本ルールを読んでください。長い議論は避けましょう。</p>\n"
        '<h2><a aria-hidden="true" class="anchor" href="#x">#</a>4.2. Archive</h2>\n'
        '<p>Read the <a href="rules.html">rules</a> of the archive before you upload.</p>\n'
    )
    chunks = chunk_file("resources.html", page)
    assert [c.title for c in chunks] == ["4.1. メーリングリスト", "4.2. Archive"]
    assert chunks[0].breadcrumb == ("4. Resources", "4.1. メーリングリスト")
    assert all("¶" not in c.embed_text for c in chunks)
    assert "rules of the archive" in chunks[1].text  # an ordinary link is text


def test_sentence_parts_are_the_sentences_of_a_chunk_each_under_its_section_path() -> None:
    text = (
        "# ログの設定\n\n## ログの保存期間\n\n"
        "ログファイルは七日間保存されます。その後は自動的に削除されます。\n"
        "短い。\n"
        "Old files are compressed first. Then they are removed.\n"
    )
    (chunk,) = chunk_file("docs/log.ja.md", text)
    parts = sentence_parts(chunk)
    assert parts == [
        "ログの設定 > ログの保存期間\nログファイルは七日間保存されます。",
        "ログの設定 > ログの保存期間\nその後は自動的に削除されます。",
        "ログの設定 > ログの保存期間\nOld files are compressed first.",
        "ログの設定 > ログの保存期間\nThen they are removed.",
    ]  # headings and fragments under 8 characters ("短い。") are not parts of their own


def test_sentence_parts_of_a_very_long_chunk_are_packed_under_the_cap() -> None:
    body = "".join(f"これは{i}番目の文で、内容は少しずつ違います。" for i in range(100))
    (chunk,) = chunk_file("notes.txt", body, ChunkOptions(max_tokens=5000))
    parts = sentence_parts(chunk, max_parts=10)
    assert len(parts) == 10
    assert "0番目" in parts[0] and "99番目" in parts[-1]
