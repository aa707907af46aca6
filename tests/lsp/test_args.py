"""Unit tests for the language server's pure parts: arguments, settings, ranges, hover text."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from groundls import wire
from groundls.config import Config
from groundls.lsp import args as c
from groundls.lsp.folder_set import Folders
from groundls.lsp.folders import Folder, uri_to_path
from groundls.lsp.hover import related
from groundls.lsp.main import _parse_args, main
from groundls.lsp.settings import ClientLogHandler, Settings, index_settings_changed, merge
from groundls.results import Hit, Note, Related


def test_search_arguments_accept_camel_case_filters() -> None:
    args = c.parse(
        c.SearchArgs, {"query": "tax", "k": 3, "paths": "src/**", "kinds": ["code", "doc"]}
    )
    assert args.query == "tax"
    assert args.filters.k == 3
    assert args.filters.paths == ("src/**",)
    assert args.filters.kinds == ("code", "doc")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, '"query" is required'),
        ({"query": None}, '"query" is required'),
        ({"query": True}, "must be a string, got boolean"),
        ({"query": "x", "k": 1.5}, "must be an integer, got number"),
        ({"query": "x", "k": True}, "must be an integer, got boolean"),
        ({"query": "x", "k": 101}, "between 1 and 100"),
        ({"query": "x", "kinds": ["code", "prose"]}, "unknown kind(s) 'prose'"),
        ({"query": "x", "paths": [""]}, "array of non-empty strings"),
        ({"query": "x", "limit": 3}, "unknown argument(s) 'limit'"),
    ],
)
def test_bad_search_arguments_say_what_to_fix(args: dict, message: str) -> None:
    with pytest.raises(c.ArgError) as caught:
        c.parse(c.SearchArgs, args)
    assert message in str(caught.value)


def test_one_object_argument_is_required_shape() -> None:
    assert c.one_object(c.StatusArgs, None) == {}
    assert c.one_object(c.StatusArgs, []) == {}
    assert c.one_object(c.StatusArgs, [None]) == {}
    assert c.one_object(c.StatusArgs, [[]]) == {}  # Neovim sends an empty Lua table as []
    with pytest.raises(c.ArgError, match="must be an object, got array"):
        c.one_object(c.SearchArgs, [["q"]])
    with pytest.raises(c.ArgError, match="expected one argument, got 2"):
        c.one_object(c.SearchArgs, [{}, {}])


def test_similar_takes_a_position_or_a_chunk_id_but_not_both() -> None:
    by_pos = c.parse(
        c.SimilarArgs, {"uri": "file:///w/a.py", "position": {"line": 4, "character": 0}}
    )
    assert (by_pos.uri, by_pos.line, by_pos.chunk_id) == ("file:///w/a.py", 4, None)
    assert c.parse(c.SimilarArgs, {"chunkId": "0123456789abcdef"}).chunk_id == "0123456789abcdef"
    with pytest.raises(c.ArgError, match="not both"):
        c.parse(c.SimilarArgs, {"chunkId": "0123456789abcdef", "uri": "file:///w/a.py"})
    with pytest.raises(c.ArgError, match="position"):
        c.parse(c.SimilarArgs, {"uri": "file:///w/a.py"})
    with pytest.raises(c.ArgError, match="file: URI"):
        c.parse(c.SimilarArgs, {"uri": "https://x/a.py", "position": {"line": 0}})


@pytest.mark.parametrize("bad", ["0123456789ABCDEF", "0123", "g" * 16, "../../etc/passwd"])
def test_malformed_chunk_ids_are_rejected_before_any_lookup(bad: str) -> None:
    with pytest.raises(c.ArgError, match="16 lowercase hex digits"):
        c.parse(c.ReferenceArgs, {"chunkId": bad})


def test_ask_limits_k_and_history_limits_limit() -> None:
    assert c.parse(c.AskArgs, {"question": "why?", "k": 50}).filters.k == 50
    with pytest.raises(c.ArgError, match="between 1 and 50"):
        c.parse(c.AskArgs, {"question": "why?", "k": 51})
    assert c.parse(c.HistoryArgs, {}).limit == 50
    with pytest.raises(c.ArgError):
        c.parse(c.HistoryArgs, {"limit": 0})


def test_ask_takes_a_detail_of_brief_or_full_only() -> None:
    assert c.parse(c.AskArgs, {"question": "why?", "detail": "full"}).detail == "full"
    assert c.parse(c.AskArgs, {"question": "why?"}).detail is None
    with pytest.raises(c.ArgError, match='"detail" must be "brief" or "full"'):
        c.parse(c.AskArgs, {"question": "why?", "detail": "long"})


def test_ranges_are_zero_based_and_cover_whole_lines() -> None:
    assert wire.lsp_range(1, 1) == {
        "start": {"line": 0, "character": 0},
        "end": {"line": 1, "character": 0},
    }
    assert wire.lsp_range(10, 14)["start"]["line"] == 9
    assert wire.lsp_range(10, 14)["end"]["line"] == 14


def _folder(tmp_path: Path, name: str = "ws") -> Folder:
    root = tmp_path / name
    root.mkdir(exist_ok=True)
    return Folder(name, root.as_uri(), root.resolve(), Config(), open_workspace=lambda r, cfg: None)


def test_paths_leaving_the_server_are_never_absolute(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    inside = str(folder.root / "src" / "a.py")
    assert wire.relative(folder, inside) == "src/a.py"
    assert wire.relative(folder, "/etc/passwd") == "passwd"
    scrubbed = wire.scrub({"index_path": "/var/cache/x.sqlite", "n": 3, "p": inside}, folder)
    assert scrubbed == {"index_path": "x.sqlite", "n": 3, "p": "src/a.py"}


def test_uris_map_to_the_innermost_folder(tmp_path: Path) -> None:
    folders = Folders()
    outer = _folder(tmp_path, "outer")
    inner_root = outer.root / "inner"
    inner_root.mkdir()
    inner = Folder("inner", inner_root.as_uri(), inner_root, Config(), lambda r, cfg: None)
    assert folders.add(outer) and folders.add(inner)
    assert not folders.add(_folder(tmp_path, "outer"))  # the same root twice
    found = folders.for_uri((inner_root / "docs" / "a b.md").as_uri())
    assert found is not None and found[0] is inner and found[1] == "docs/a b.md"
    assert folders.for_uri("untitled:Untitled-1") is None
    assert folders.for_uri((tmp_path / "elsewhere.md").as_uri()) is None
    assert uri_to_path("file:///tmp/%E4%BC%91%E6%9A%87.md") == Path("/tmp/休暇.md")


def test_settings_merge_initialization_options_with_client_settings() -> None:
    settings = Settings()
    settings.update(init_options={"groundls": {"hover": {"count": 5}, "logLevel": "debug"}})
    old, new, warnings = settings.update(client_settings={"hover": {"enabled": False}})
    assert (new.hover.count, new.hover.enabled, new.log_level) == (5, False, "debug")
    assert warnings == []
    assert not index_settings_changed(old, new)
    _, newer, warnings = settings.update(client_settings={"exclude": ["dist/**"], "k": 1})
    assert index_settings_changed(new, newer)
    assert any("k" in w for w in warnings)
    assert merge({"a": {"b": 1}}, {"a": {"c": 2}}) == {"a": {"b": 1, "c": 2}}


def test_log_records_are_forwarded_with_lsp_message_types() -> None:
    sent: list[tuple[int, str]] = []
    handler = ClientLogHandler(lambda kind, text: sent.append((kind, text)), logging.DEBUG)
    logger = logging.getLogger("groundls.test_forwarding")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        logger.error("e")
        logger.warning("w")
        logger.info("i")
        logger.debug("d")
    finally:
        logger.removeHandler(handler)
    assert [k for k, _ in sent] == [1, 2, 3, 4]
    assert sent[0][1] == "groundls.test_forwarding: e"


def _hit(cid: str, path: str, start: int, end: int, title: str, text: str) -> Hit:
    return Hit(cid, path, start, end, "doc", "markdown", "paragraph", title, ("Doc", title), text)


class _TinyEngine:
    """Just enough workspace for the hover's rendering."""

    def __init__(self, hits: list[Hit], found: Related) -> None:
        self.hits, self.found = hits, found

    def chunk_at(self, rel: str, line: int) -> Hit | None:
        return next(
            (h for h in self.hits if h.path == rel and h.start_line <= line <= h.end_line), None
        )

    def related(self, chunk_id: str, k: int = 3) -> Related:
        return self.found


def test_hover_links_its_notes_tests_and_first_caller_and_escapes_markdown(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    here = _hit("a" * 16, "a.md", 1, 10, "Here", "text")
    other = _hit("c" * 16, "b.md", 3, 4, "Other [x]", "*bold* `code` line\nsecond line")
    test = replace(_hit("d" * 16, "tests/test_a.py", 7, 9, "test_here", "here()"), kind="code")
    caller = replace(_hit("e" * 16, "src/c.py", 20, 30, "use_here", "here()"), kind="code")
    found = Related((Note(other, "doc", True),), (test,), (caller,), called=4)
    folder.workspace = _TinyEngine([here], found)  # type: ignore[assignment]
    result = related(folder, "a.md", 0, 3)
    assert result is not None
    assert [h.chunk_id for h in result.hits] == ["c" * 16, "d" * 16, "e" * 16]
    assert f"]({folder.uri_for('b.md')}#L3)" in result.markdown
    assert "Other \\[x\\]" in result.markdown
    assert "\\*bold\\* \\`code\\` line" in result.markdown
    assert "second line" not in result.markdown
    tested = next(line for line in result.markdown.splitlines() if "Tested in" in line)
    assert f"]({folder.uri_for('tests/test_a.py')}#L7)" in tested and "test\\_here" in tested
    called = next(line for line in result.markdown.splitlines() if "Called from" in line)
    assert "4 places" in called and f"]({folder.uri_for('src/c.py')}#L20)" in called
    assert related(folder, "a.md", 40, 3) is None  # no chunk there
    folder.workspace = _TinyEngine([here], Related())  # type: ignore[assignment]
    assert related(folder, "a.md", 0, 3) is None  # nothing from another place


def test_serve_arguments_accept_stdio_tcp_and_reject_garbage() -> None:
    assert _parse_args(["--stdio"]).stdio is True
    assert _parse_args(["--tcp", "127.0.0.1:2087"]).tcp == "127.0.0.1:2087"
    assert main(["--tcp", "nonsense"]) == 2
    assert main(["--bogus"]) == 2


def test_engine_dictionaries_become_camel_case() -> None:
    record = {"created_at": "t", "citations": [{"chunk_id": "x", "start_line": 1}], "k": 1}
    assert wire.camel(record) == {
        "createdAt": "t",
        "citations": [{"chunkId": "x", "startLine": 1}],
        "k": 1,
    }
