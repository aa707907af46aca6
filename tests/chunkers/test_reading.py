"""A document's text as a reader sees it: reStructuredText and Markdown without their markup,
line for line with the source."""

from __future__ import annotations

from groundls.chunkers import chunk_file
from groundls.chunkers.reading import read_words, readable

RST = """\
Log rotation
~~~~~~~~~~~~

.. _log-rotation:

The default is :java:extdoc:`FileSizeRotatePolicy <nablarch.core.log.basic.FileSizeRotatePolicy>`.
Use :func:`evolve` or :class:`~attr.Attribute`; see `the guide <https://example.org>`_.
ローテーション\\には ``rotate()`` を使う [#]_。

.. important::
   :class: strong

   Keep |product| running.

.. code-block:: python
   :linenos:

   title = "x"
   # ~~~~~~~~

Run this::

    $ app --rotate
    ==========

.. |product| replace:: the log service
.. a comment the page does not show
   over two lines
.. versionadded:: 2.0
"""


def test_rst_reads_as_prose_line_for_line_with_code_kept_as_written() -> None:
    read = readable(RST, "rst")
    lines = read.split("\n")
    assert len(lines) == len(RST.split("\n"))  # line i of the reading is line i of the source
    assert lines[0] == "Log rotation" and lines[1] == ""  # no underline
    assert "_log-rotation" not in read and "replace::" not in read and "comment" not in read
    assert "`FileSizeRotatePolicy`" in lines[5] and "nablarch" not in lines[5]
    assert lines[6] == "Use `evolve` or `Attribute`; see the guide."
    assert lines[7] == "ローテーションには `rotate()` を使う。"  # no escape, no footnote mark
    assert lines[9] == "Important:" and lines[10] == ""  # the directive's label, not its options
    assert "Keep the log service running." in read  # a substitution resolved
    assert '   title = "x"' in lines and "   # ~~~~~~~~" in lines  # code as written
    assert "Run this:" in lines and "    ==========" in lines  # a literal block is code
    assert "New in version 2.0." in lines
    assert not any(token in read for token in (":java:", ":func:", ".. ", "~~~~~~~~~~~~"))


def test_the_keyword_index_holds_the_words_only_the_reading_spells() -> None:
    # an escape joins two words, a directive reads as its label ("New in version 2.0."); the
    # source spells every other word the reading shows (``.. important::`` -> "Important:")
    assert read_words(RST, "rst") == ["ローテーションには", "New", "in", "version"]
    assert read_words("plain `words` only", "rst") == []
    assert read_words("ローテーション\\には", "text") == []  # text is read as written


def test_a_documents_chunk_is_searched_by_its_source_and_the_words_its_reading_adds() -> None:
    chunk = next(c for c in chunk_file("docs/log.rst", RST) if "Policy" in c.text)
    # a role's target is the source's own word: a question naming the class finds it
    assert "nablarch.core.log.basic.FileSizeRotatePolicy" in chunk.embed_text
    assert chunk.read_words == ("ローテーションには", "New", "in", "version")
    assert ":java:extdoc:" in chunk.text  # the chunk keeps its source for citations
    other = chunk_file("docs/log.rst", RST.replace("\\には", "には"))
    assert chunk.content_hash not in {c.content_hash for c in other}


def test_a_literal_roles_text_is_shown_as_written_and_a_domains_role_is_code() -> None:
    assert readable("Edit :file:`~/.skk` or press :kbd:`C-x ~`.", "rst") == (
        "Edit `~/.skk` or press `C-x ~`."
    )
    assert readable("関数 :el:defun:`car` と :py:func:`~a.b.f` を見る :doc:`guide`", "rst") == (
        "関数 `car` と `f` を見る guide"
    )


def test_a_context_directive_shows_nothing_and_its_name_stays_searchable() -> None:
    page = ".. currentmodule:: click.shell_completion\n\nShell Completion\n================\n"
    assert readable(page, "rst").split("\n") == ["", "", "Shell Completion", "", ""]
    chunk = chunk_file("docs/shell.rst", page)[0]
    assert "click.shell_completion" in chunk.embed_text and chunk.read_words == ()


MARKDOWN = """\
Setup
=====

<!-- maintainers: keep
this in sync -->
See [the guide](https://example.org/a_(b)) and ![logo](logo.png)<br/>.

[guide]: https://example.org

```rst
Title
=====
<!-- kept -->
```
***
"""


def test_markdown_reads_without_link_targets_comments_pictures_or_underlines() -> None:
    read = readable(MARKDOWN, "markdown")
    lines = read.split("\n")
    assert len(lines) == len(MARKDOWN.split("\n"))
    assert lines[:2] == ["Setup", ""]
    assert "maintainers" not in read and "sync" not in read
    assert lines[5] == "See the guide and ."
    assert lines[7] == ""  # a link definition
    assert lines[10:13] == ["Title", "=====", "<!-- kept -->"]  # a fence is code
    assert lines[14] == ""


def test_other_text_is_read_as_written() -> None:
    assert readable("a :func:`b`\n====", "python") == "a :func:`b`\n===="


NESTED = """\
.. class:: Context

   .. attribute:: parent

      A dict of read only values.

   .. note::
      :class: strong

      See :ref:`the guide <guide>`.

* an item

  .. code:: elisp

     (setq skk-preload t)

  .. _item-label:
"""


def test_markup_nested_in_a_directive_or_a_list_is_read_too() -> None:
    read = readable(NESTED, "rst")
    lines = read.split("\n")
    assert len(lines) == len(NESTED.split("\n"))
    assert ".. " not in read and ":class:" not in read and ":ref:" not in read
    assert "Context" in lines[0] and "parent" in lines[2] and "A dict of read only values." in read
    assert lines[6].strip() == "Note:" and "See the guide." in read
    assert "     (setq skk-preload t)" in lines  # nested code kept as written
    assert "item-label" not in read


def test_a_role_wrapped_over_two_lines_reads_as_its_words_on_the_first() -> None:
    text = "See :ref:`writing\nextensions <jinja-extensions>` for more.\nNext line."
    assert readable(text, "rst") == "See writing extensions\n for more.\nNext line."
