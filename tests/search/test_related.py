"""What the hover calls related: vector neighbours and the other side of a mention (the doc
passages that name a function as code, the definitions a doc passage names)."""

from __future__ import annotations

from pathlib import Path

from groundls.results import Hit, Related
from groundls.search.related import mentioned_names, notes, own_names
from groundls.search.usage import calls, named_after
from groundls.workspace import Workspace
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


def test_a_role_with_a_title_names_its_target():
    text = (
        "The :func:`run <cli.run_command>` command starts a server;"
        " :meth:`app.config.from_pyfile() <Config.from_pyfile>` overrides it."
    )
    assert mentioned_names(text) == ["run_command", "from_pyfile"]


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
        notes = workspace.related(code.chunk_id, k=2).notes
        assert notes[0].hit.chunk_id == doc.chunk_id and notes[0].kind == "doc"
        assert notes[0].mention  # the passage that names it comes first
        back = workspace.related(doc.chunk_id, k=2).notes
        assert code.chunk_id in [n.hit.chunk_id for n in back]
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
        related = [n.hit.path for n in workspace.related(code.chunk_id, k=6).notes]
        # the same text in the current code and in its older copy: the current one first
        assert related.index("pkg/uploads.py") < related.index("pkg/v1/uploads.py")
    finally:
        workspace.close()


LIBRARY = {
    "src/shapes.py": (
        "def evolve(shape, **changes):\n"
        '    """A copy of shape with the changes applied."""\n'
        "    return replace(shape, **changes)\n\n\n"
        "def area(shape):\n"
        '    """The area of a shape."""\n'
        "    return shape.width * shape.height\n"
    ),
    "src/use.py": (
        "def grow(shape):\n    return evolve(shape, width=shape.width * 2)\n\n\n"
        "def shrink(shape):\n    return evolve(shape, width=shape.width / 2)\n\n\n"
        "def describe(shape):\n    return f'evolve is not called here: {shape}'\n"
    ),
    "docs/guide.md": (
        "# Shapes\n\n## Changing a shape\n\nUse `evolve` to get a copy of a shape with some of "
        "its fields changed; the original stays as it was.\n\n## Areas\n\n"
        "The area of a shape is its width times its height.\n"
    ),
    "CHANGES.md": "# Changes\n\n## 2.0\n\n- `evolve` keeps the shape's type.\n",
    "tests/test_shapes.py": (
        "def test_evolve_keeps_other_fields():\n"
        "    assert evolve(Shape(1, 2), width=3).height == 2\n\n\n"
        "def test_growing_doubles_the_width():\n"
        "    assert grow(Shape(1, 2)).width == 2\n\n\n"
        "def test_area():\n    assert area(Shape(2, 3)) == 6\n"
    ),
    "shapes_test.go": (
        "package shapes\n\nfunc TestEvolveKeepsFields(t *testing.T) {\n"
        "\tif Evolve(Shape{1, 2}).Height != 2 {\n\t\tt.Fail()\n\t}\n}\n"
    ),
    "shapes.go": (
        "package shapes\n\n// Evolve returns a copy of s.\nfunc Evolve(s Shape) Shape {\n"
        "\treturn s\n}\n"
    ),
}


def _library(tmp_path: Path, fake_embedders) -> Workspace:
    ws_dir = tmp_path / "ws"
    for name, text in LIBRARY.items():
        (ws_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (ws_dir / name).write_text(text)
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    workspace.index()
    return workspace


def test_a_functions_notes_are_other_places_with_the_passage_naming_it_first(
    tmp_path: Path, fake_embedders
):
    workspace = _library(tmp_path, fake_embedders)
    try:
        evolve = workspace.chunk_at("src/shapes.py", 1)
        found = workspace.related(evolve.chunk_id, k=3)
        first = found.notes[0]
        assert (first.hit.path, first.kind, first.mention) == ("docs/guide.md", "doc", True)
        paths = [n.hit.path for n in found.notes]
        assert "src/shapes.py" not in paths  # not the file being read: something else relates
        assert "CHANGES.md" not in paths  # the guide names it: the change log is not a note
        assert not any(p.startswith("tests/") for p in paths)  # tests are listed apart
        keys = [(n.hit.path, n.hit.title, *n.hit.breadcrumb) for n in found.notes]
        assert len(keys) == len(set(keys))
    finally:
        workspace.close()


def test_where_a_function_is_tested_and_who_calls_it(tmp_path: Path, fake_embedders):
    workspace = _library(tmp_path, fake_embedders)
    try:
        evolve = workspace.chunk_at("src/shapes.py", 1)
        found = workspace.related(evolve.chunk_id, k=3)
        # named after it first; the test of grow() never calls evolve() itself
        assert [t.title for t in found.tests] == [
            "tests.test_shapes.test_evolve_keeps_other_fields"
        ]
        assert [c.path for c in found.callers] == ["src/use.py", "src/use.py"]  # grow, shrink
        assert found.called == 2 and not found.more  # describe() only says the word
        relations = [kind for kind, _ in found.entries()]
        assert relations[-3:] == ["test", "caller", "caller"]
        # the same in Go: a test named after the function, no caller
        go = workspace.related(workspace.chunk_at("shapes.go", 4).chunk_id, k=3)
        assert [t.path for t in go.tests] == ["shapes_test.go"] and go.called == 0
    finally:
        workspace.close()


def test_a_test_is_named_after_a_function_when_its_words_hold_the_names():
    assert named_after("test_evolve_keeps_fields", "evolve")
    assert named_after("TestEvolveKeepsFields", "Evolve") and named_after("testEvolve", "evolve")
    assert not named_after("test_evolved", "evolve") and not named_after("evolve", "evolve")
    assert calls("x = obj.evolve(s)", "evolve") and calls("evolve::<T>(s)", "evolve")
    assert not calls("def evolve(s):", "evolve") and not calls("func evolve(s)", "evolve")
    assert not calls("evolved(s)", "evolve")


SHARED_NAMES = {
    "src/streams.py": (
        "class Stream:\n    def read(self, n):\n        return self.buffer[:n]\n\n\n"
        "class TagDict:\n    def tag(self, value):\n        return dict(value)\n"
    ),
    # calls a file's read(), and defines a TagDict of its own
    "tests/test_files.py": (
        "def test_read_returns_the_file():\n"
        "    with open('x') as f:\n        assert f.read()\n\n\n"
        "def test_tag_dict_of_its_own():\n"
        "    class TagDict(dict):\n        pass\n\n"
        "    assert TagDict(a=1)\n"
    ),
    "tests/test_streams.py": (
        "from src.streams import Stream, TagDict\n\n\n"
        "def test_stream_read_stops_at_n():\n"
        "    assert Stream().read(2) == b'ab'\n\n\n"
        "def test_tag_dict_tags():\n    assert TagDict().tag({})\n"
    ),
}


def test_a_test_that_calls_another_types_method_of_the_same_name_is_not_its_test(
    tmp_path: Path, fake_embedders
):
    ws_dir = tmp_path / "ws"
    for name, text in SHARED_NAMES.items():
        (ws_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (ws_dir / name).write_text(text)
    workspace = open_workspace(ws_dir, tmp_path, fake_embedders)
    try:
        workspace.index()
        read = workspace.related(workspace.chunk_at("src/streams.py", 2).chunk_id, k=3)
        assert [t.path for t in read.tests] == ["tests/test_streams.py"]  # it names Stream
        tag_dict = workspace.related(workspace.chunk_at("src/streams.py", 6).chunk_id, k=3)
        assert [t.title for t in tag_dict.tests] == ["tests.test_streams.test_tag_dict_tags"]
    finally:
        workspace.close()


def test_a_passage_that_describes_a_function_comes_before_one_whose_example_calls_it():
    own = Hit("own".ljust(16, "0"), "src/config.py", 1, 9, "code", "python", "method",
              "flask.config.Config.from_envvar", (), "def from_envvar(self, name): ...")  # fmt: skip

    def doc(n: int, title: str) -> Hit:
        return Hit(str(n).ljust(16, "0"), f"docs/{n}.rst", 1, 9, "doc", "rst", "section",
                   title, (title,), "...")  # fmt: skip

    nearest, example, described = doc(1, "Nearest"), doc(2, "Example"), doc(3, "Reference")
    scored = [(nearest, 0.9), (example, 0.8), (described, 0.1)]
    tiers = {example.chunk_id: 1, described.chunk_id: 0}
    chosen = notes(own, "from_envvar", scored, tiers, 3)
    assert [n.hit.title for n in chosen] == ["Reference", "Example", "Nearest"]


def test_how_many_places_call_a_symbol_reads_as_people_count():
    assert Related(called=1).call_count == "1 place"
    assert Related(called=3).call_count == "3 places"
    assert Related(called=1, more=True).call_count == "1+ places"
    assert Related(called=200, more=True).call_count == "200+ places"


def test_the_windows_of_one_long_test_are_one_test():
    from groundls.search.usage import _one_each

    def window(chunk_id: str, path: str, title: str) -> Hit:
        return Hit(chunk_id * 16, path, 1, 2, "code", "", "function", title, (), "")

    hits = [
        window("a", "test/a.spec.ts", "describe parse"),
        window("b", "test/a.spec.ts", "describe parse"),
        window("c", "test/b.spec.ts", "describe parse"),
    ]
    assert [h.chunk_id[0] for h in _one_each(hits)] == ["a", "c"]
