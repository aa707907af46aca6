"""A written answer backed by the excerpt lines its sentences rest on, quoted after it."""

from __future__ import annotations

from groundls.answer.stages.backing import backed, backing_lines, cited_sentences
from groundls.answer.stages.prompt import Excerpt
from tests.helpers.excerpts import doc_and_code, hit

FAQ = (
    "Which package installed a file?\n"
    "To find which package installed a file, run dpkg --search with its path.\n"
    "To list the files of a package, run dpkg -L with its name.\n"
    "The status of every package is kept in /var/lib/dpkg/status."
)
CODE = "def limit():\n    # the most redirects a session follows\n    return 30\n"


def excerpts() -> list[Excerpt]:
    return doc_and_code(FAQ, CODE)


def test_a_citation_at_a_paragraphs_end_vouches_for_each_of_its_sentences():
    text = "It looks the file up. It runs dpkg [1].\n\nIt follows 30 redirects [2]."
    assert cited_sentences(text) == [
        ("It looks the file up", [1]),
        ("It runs dpkg", [1]),
        ("It follows 30 redirects", [2]),
    ]


def test_a_garbled_sentence_is_backed_by_the_line_it_drew_on():
    # the model named the wrong command, but its sentence rests on the line that says it
    text = "To find which package installed a file, run dpkg -l piped to grep with its path [1]."
    quoted = backed(text, "Which package installed this file?", excerpts())
    assert "run dpkg --search with its path." in quoted and quoted.rstrip().endswith("[1]")
    assert "dpkg -L with its name" not in quoted


def test_a_sentence_that_only_restates_the_question_is_not_backed():
    text = "Which package installed a file [1]."
    assert backing_lines(text, "Which package installed a file?", excerpts()) == []


def test_a_line_the_answer_already_copied_is_not_quoted_again():
    text = "To list the files of a package, run dpkg -L with its name [1]."
    assert backed(text, "How do I list a package's files?", excerpts()) == ""


def test_code_is_backed_by_its_line_not_by_the_signature_it_is_shown_under():
    text = "The limit is the most redirects a session follows [2]."
    groups = backing_lines(text, "what is the redirect limit?", excerpts())
    assert [u.text for g in groups for u in g] == ["    # the most redirects a session follows"]
    assert backed(text, "what is the redirect limit?", excerpts()).count("def limit():") == 1


def test_an_uncited_answer_is_not_backed():
    assert backed("Run dpkg --search.", "Which package installed this file?", excerpts()) == ""


def test_prose_in_another_language_than_the_answers_is_not_quoted_after_it():
    doc = "ログの設定\n環境変数 APP_LOG_LEVEL がログレベルを上書きします。"
    text = "The environment variable APP_LOG_LEVEL overrides the log level [1]."
    (ex,) = [Excerpt(1, hit(1, doc, path="docs/logging.ja.md"), doc)]
    assert backed(text, "Which variable sets the level?", [ex]) == ""
