"""What the hover calls related: vector neighbours and the other side of a mention (the doc
passages that name a function as code, the definitions a doc passage names)."""

from __future__ import annotations

from pathlib import Path

from groundls.results import Hit
from groundls.search.related import mentioned_names, own_names
from tests.test_workspace import open_workspace

CODE = '''\
def retry_upload(path, attempts):
    """Send the file again after a failure, waiting longer each time."""
    for attempt in range(attempts):
        if send_file(path):
            return True
    return False


def send_file(path):
    """Send the file once."""
    return bool(path)


def send_file_later(path, attempts):
    """Queue the file so it is sent after the current transfer, with attempts."""
    return send_file(path) or attempts > 0


def send_file_now(path, attempts):
    """Send the file at once, counting attempts."""
    return send_file(path) and attempts >= 0
'''

GUIDE = """\
# Guide

## Flaky networks

When the network drops, ``retry_upload()`` tries again with growing pauses between tries.

## Colours

The interface follows the terminal's palette and needs no set-up.

## Themes

Dark and light themes are chosen by the operating system.
"""


def _hit(kind: str, title: str, text: str) -> Hit:
    return Hit("c" * 16, "x", 1, 2, kind, "", "method", title, (), text)


def test_names_written_as_code_are_mentions_and_bare_words_in_code_spans_are_not():
    text = (
        "Call :func:`click.getchar` or ``Context.invoke()``; `SessionMiddleware` signs it,"
        " `lookup_default` reads it, while `path` and `max` are plain words; echo(text)."
    )
    assert mentioned_names(text) == [
        "getchar",
        "invoke",
        "SessionMiddleware",
        "lookup_default",
        "echo",
    ]


def test_a_heading_that_is_a_code_name_is_a_mention():
    assert mentioned_names("Signs the cookie.", title="SessionMiddleware") == ["SessionMiddleware"]
    assert mentioned_names("Signs the cookie.", title="Sessions and cookies") == []


def test_a_dunder_method_is_known_by_its_class():
    hit = _hit("code", "starlette.middleware.sessions.SessionMiddleware.__call__", "")
    assert own_names(hit, "__call__") == ["SessionMiddleware"]
    method = _hit("code", "click.core.Context.lookup_default", "")
    assert own_names(method, "lookup_default") == ["lookup_default", "Context"]


def test_a_function_and_the_doc_passage_naming_it_are_related(tmp_path: Path, fake_embedders):
    ws_dir = tmp_path / "ws"
    (ws_dir / "src").mkdir(parents=True)
    (ws_dir / "docs").mkdir()
    (ws_dir / "src" / "uploads.py").write_text(CODE)
    (ws_dir / "docs" / "guide.md").write_text(GUIDE)
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    try:
        workspace.index()
        code = workspace.chunk_at("src/uploads.py", 3)
        doc = workspace.chunk_at("docs/guide.md", 5)
        assert code is not None and code.title.endswith("retry_upload")
        assert doc is not None and doc.title == "Flaky networks"
        # the neighbours by (fake) vectors alone are the other send_file functions
        assert all(h.kind == "code" for h in workspace.similar(code.chunk_id, k=2))
        assert doc.chunk_id in [h.chunk_id for h in workspace.related(code.chunk_id, k=2)]
        assert code.chunk_id in [h.chunk_id for h in workspace.related(doc.chunk_id, k=2)]
    finally:
        workspace.close()


def test_an_older_version_kept_beside_the_code_comes_after_the_current_code(
    tmp_path: Path, fake_embedders
):
    ws_dir = tmp_path / "ws"
    for folder in ("pkg", "pkg/v1"):
        (ws_dir / folder).mkdir(parents=True)
        (ws_dir / folder / "uploads.py").write_text(CODE.replace("file", f"file ({folder})"))
        (ws_dir / folder / "other.py").write_text("def helper():\n    return 1\n")
    (ws_dir / "pkg" / "twice.py").write_text(
        "def send_twice(path):\n    return send_file(path) and send_file(path)\n"
    )
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    try:
        workspace.index()
        code = workspace.chunk_at("pkg/twice.py", 1)
        assert code is not None
        related = [h.path for h in workspace.related(code.chunk_id, k=6)]
        # the same text in the current code and in its older copy: the current one first
        assert related.index("pkg/uploads.py") < related.index("pkg/v1/uploads.py")
    finally:
        workspace.close()
