"""Workspace walker: ignore files, default excludes, include/exclude, secrets, symlinks, text."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from groundls.config import Config
from groundls.index.files import walk as walk_module
from groundls.index.files.ignore import compile_rules
from groundls.index.files.read import LONG_LINE, Skipped, WorkspaceFile, read_text
from groundls.index.files.walk import WorkspaceWalker, is_secret


def make(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create ``files`` (workspace-relative path -> content) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def listed(root: Path, config: Config | None = None, **kwargs: object) -> list[str]:
    files, _ = WorkspaceWalker(root, config or Config(), **kwargs).walk()  # type: ignore[arg-type]
    return [f.path for f in files]


def skipped(root: Path, config: Config | None = None) -> dict[str, str]:
    _, skips = WorkspaceWalker(root, config or Config()).walk()
    return {s.path: s.reason for s in skips}


# ----------------------------------------------------------------------------- ignore files


def test_nested_gitignore_applies_only_below_its_directory_and_supports_negation(
    tmp_path: Path,
) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "*.txt\n!keep.txt\n",
            "a.txt": "x",
            "keep.txt": "x",
            "main.py": "x",
            "sub/.gitignore": "*.py\n!wanted.py\n",
            "sub/drop.py": "x",
            "sub/wanted.py": "x",
            "sub/keep.txt": "x",
            "sub/other.txt": "x",
            "sub/deeper/also_dropped.py": "x",
            "sibling/drop.py": "x",
        },
    )
    assert listed(tmp_path) == [
        "keep.txt",
        "main.py",
        "sibling/drop.py",
        "sub/keep.txt",
        "sub/wanted.py",
    ]


def test_deeper_gitignore_can_reinclude_what_a_parent_ignored(tmp_path: Path) -> None:
    make(
        tmp_path,
        {".gitignore": "*.md\n", "docs/.gitignore": "!*.md\n", "docs/a.md": "x", "b.md": "x"},
    )
    assert listed(tmp_path) == ["docs/a.md"]


def test_files_inside_an_ignored_directory_cannot_be_reincluded_like_git(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "generated/\n!generated/keep.md\nlogs/*\n!logs/keep.md\n",
            "generated/keep.md": "x",
            "logs/keep.md": "x",
            "logs/drop.md": "x",
        },
    )
    # "dir/" prunes the directory; "dir/*" ignores its contents, so a negation can win.
    assert listed(tmp_path) == ["logs/keep.md"]


def test_anchored_and_directory_only_patterns(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "/top.py\ncache/\n",
            "top.py": "x",
            "pkg/top.py": "x",
            "pkg/cache/a.py": "x",
            "pkg/cache.py": "x",
        },
    )
    assert listed(tmp_path) == ["pkg/cache.py", "pkg/top.py"]


def test_git_info_exclude_is_respected(tmp_path: Path) -> None:
    make(tmp_path, {".git/info/exclude": "scratch.py\n", "scratch.py": "x", "real.py": "x"})
    assert listed(tmp_path) == ["real.py"]


def test_groundlsignore_is_nested_and_outranks_gitignore(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "notes.md\n",
            ".groundlsignore": "!notes.md\nfixtures/\n",
            "notes.md": "x",
            "fixtures/big.json": "{}",
            "src/.groundlsignore": "*_pb2.py\n",
            "src/api_pb2.py": "x",
            "src/api.py": "x",
            "api_pb2.py": "x",
        },
    )
    assert listed(tmp_path) == ["api_pb2.py", "notes.md", "src/api.py"]


def test_malformed_ignore_lines_are_dropped_without_crashing(tmp_path: Path) -> None:
    make(
        tmp_path,
        {".gitignore": "!\n\\\n# comment\n\n*.log.py\n", "a.log.py": "x", "b.py": "x"},
    )
    assert listed(tmp_path) == ["b.py"]


def test_ignore_file_changes_are_picked_up_by_the_same_walker(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "x", "b.py": "x"})
    walker = WorkspaceWalker(tmp_path, Config())
    assert [f.path for f in walker.walk()[0]] == ["a.py", "b.py"]
    (tmp_path / ".gitignore").write_text("a.py\n# a longer file so the size changes\n")
    assert [f.path for f in walker.walk()[0]] == ["b.py"]
    assert walker.check("a.py") is None


# ----------------------------------------------------------------------------- default excludes


def test_default_excludes_skip_vcs_dependencies_build_output_locks_and_minified(
    tmp_path: Path,
) -> None:
    make(
        tmp_path,
        {
            ".git/config.json": "{}",
            ".hg/x.py": "x",
            ".svn/x.py": "x",
            "node_modules/lib/index.js": "x",
            "web/node_modules/lib/index.js": "x",
            ".venv/lib/site.py": "x",
            "venv/lib/site.py": "x",
            "myenv/pyvenv.cfg": "home = /usr",
            "myenv/lib/site.py": "x",
            "conda/conda-meta/history.json": "{}",
            "conda/lib/x.py": "x",
            "pkg/__pycache__/m.py": "x",
            "build/out.py": "x",
            "dist/app.js": "x",
            "target/debug/x.rs": "x",
            ".mypy_cache/x.json": "{}",
            ".idea/workspace.xml": "<x/>",
            ".vscode/settings.json": "{}",
            "src/pkg.egg-info/SOURCES.txt": "x",
            "package-lock.json": "{}",
            "pnpm-lock.yaml": "x: 1",
            "static/app.min.js": "x",
            "static/app.min.css": "x",
            "static/app.js": "x",
            "src/main.py": "x",
            ".groundls/index.json": "{}",
        },
    )
    assert listed(tmp_path) == ["src/main.py", "static/app.js"]


def test_node_modules_is_pruned_without_being_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, {"app.js": "x"})
    for i in range(50):
        make(tmp_path, {f"node_modules/pkg{i}/index.js": "x"})
    scanned: list[str] = []
    real_scandir = os.scandir

    def spy(path: str) -> object:
        scanned.append(str(path))
        return real_scandir(path)

    monkeypatch.setattr(walk_module.os, "scandir", spy)
    assert listed(tmp_path) == ["app.js"]
    pruned = str(tmp_path / "node_modules")
    assert scanned == [str(tmp_path)]
    assert not any(p.startswith(pruned) for p in scanned)


def test_groundlsignore_negation_reincludes_a_default_excluded_directory(tmp_path: Path) -> None:
    make(tmp_path, {".groundlsignore": "!build/\n", "build/gen.py": "x", "dist/x.py": "x"})
    assert listed(tmp_path) == ["build/gen.py"]


def test_config_exclude_negation_reincludes_a_default_excluded_directory(tmp_path: Path) -> None:
    make(tmp_path, {"out/report.md": "x"})
    assert listed(tmp_path, Config(exclude=["!out/"])) == ["out/report.md"]


def test_gitignore_whitelist_cannot_resurrect_node_modules(tmp_path: Path) -> None:
    make(
        tmp_path,
        {".gitignore": "*\n!*/\n!*.py\n", "a.py": "x", "b.md": "x", "node_modules/x/y.py": "x"},
    )
    assert listed(tmp_path) == ["a.py"]


def test_dotnet_bin_and_obj_are_excluded_only_next_to_a_project_file(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "App/App.csproj": "<Project/>",
            "App/Program.cs": "x",
            "App/bin/Debug/App.xml": "<x/>",
            "App/obj/project.assets.json": "{}",
            "tools/bin/deploy.sh": "echo",
        },
    )
    assert listed(tmp_path) == ["App/App.csproj", "App/Program.cs", "tools/bin/deploy.sh"]


def test_index_dir_inside_the_workspace_is_never_walked(tmp_path: Path) -> None:
    make(tmp_path, {"idx/meta.json": "{}", "a.py": "x"})
    assert listed(tmp_path, index_dir=tmp_path / "idx") == ["a.py"]
    assert listed(tmp_path, index_dir=tmp_path.parent / "elsewhere") == ["a.py", "idx/meta.json"]


def test_unknown_file_types_are_silently_ignored(tmp_path: Path) -> None:
    make(tmp_path, {"logo.png": b"\x89PNG", "data.bin": b"\0\1", "notes.md": "x", "Makefile": "x"})
    files, skips = WorkspaceWalker(tmp_path, Config()).walk()
    assert [f.path for f in files] == ["Makefile", "notes.md"]
    assert skips == []


# ----------------------------------------------------------------------------- include / exclude


def test_config_include_keeps_only_matching_files(tmp_path: Path) -> None:
    make(tmp_path, {"src/a.py": "x", "src/b.md": "x", "docs/c.md": "x", "d.py": "x"})
    config = Config(include=["src/", "*.md"])
    assert listed(tmp_path, config) == ["docs/c.md", "src/a.py", "src/b.md"]


def test_config_exclude_uses_gitignore_syntax_on_top_of_ignore_files(tmp_path: Path) -> None:
    make(tmp_path, {"tests/t.py": "x", "a/tests/t.py": "x", "a/m.py": "x", "a/m_test.py": "x"})
    config = Config(exclude=["/tests/", "*_test.py"])
    assert listed(tmp_path, config) == ["a/m.py", "a/tests/t.py"]


def test_include_and_exclude_combine(tmp_path: Path) -> None:
    make(tmp_path, {"src/a.py": "x", "src/gen/b.py": "x", "c.py": "x"})
    config = Config(include=["src/"], exclude=["gen/"])
    assert listed(tmp_path, config) == ["src/a.py"]


# ----------------------------------------------------------------------------- secrets


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.local",
        "config/.env.production",
        "certs/server.pem",
        "server.key",
        "store.p12",
        "id_rsa",
        "home/.ssh/id_ed25519.pub",
        ".aws/credentials",
        "credentials.json",
        "gcp/service-account-prod.json",
        "secrets.yaml",
        "deploy/app-secrets.yml",
        "client_secret.json",
        ".netrc",
        ".npmrc",
        ".pypirc",
        "Secrets.TOML",
    ],
)
def test_secret_looking_paths_are_recognised(path: str) -> None:
    assert is_secret(path)


@pytest.mark.parametrize(
    "path",
    [".env.example", ".env.sample", ".env.template", "environment.py", "keys.py", "secret.py",
     "docs/secret-management.md", "src/keyboard.ts", "README.md"],
)  # fmt: skip
def test_ordinary_paths_and_env_templates_are_not_secret(path: str) -> None:
    assert not is_secret(path)


def test_secret_files_are_skipped_with_a_reason_unless_opted_in(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            "secrets.yaml": "token: abc",
            "config/credentials.json": "{}",
            "sa/service-account.json": "{}",
            ".env": "TOKEN=abc",
            "app.py": "x",
        },
    )
    assert listed(tmp_path) == ["app.py"]
    # .env is reported as a secret by its name, although no chunker knows its type
    assert skipped(tmp_path) == {
        ".env": "secret",
        "config/credentials.json": "secret",
        "sa/service-account.json": "secret",
        "secrets.yaml": "secret",
    }
    opted_in = Config(index_secrets=True)
    assert listed(tmp_path, opted_in) == [
        "app.py",
        "config/credentials.json",
        "sa/service-account.json",
        "secrets.yaml",
    ]
    assert skipped(tmp_path, opted_in) == {}


# ----------------------------------------------------------------------------- reading text


def file_for(tmp_path: Path, name: str, content: bytes) -> WorkspaceFile:
    path = tmp_path / name
    path.write_bytes(content)
    info = path.stat()
    return WorkspaceFile(name, path, info.st_size, info.st_mtime_ns)


def test_read_text_rejects_a_nul_byte_in_the_first_8k_as_binary(tmp_path: Path) -> None:
    assert read_text(file_for(tmp_path, "a.txt", b"abc\0def"), 1000) == Skipped("a.txt", "binary")
    late_nul = b"x" * 9000 + b"\0"
    assert read_text(file_for(tmp_path, "b.txt", late_nul), 100_000) == "x" * 9000 + "\0"


def test_read_text_rejects_files_over_the_limit(tmp_path: Path) -> None:
    file = file_for(tmp_path, "a.txt", b"x" * 101)
    assert read_text(file, 100) == Skipped("a.txt", "too-large")
    assert read_text(file, 101) == "x" * 101


def test_read_text_skips_machine_written_text_and_cuts_a_very_long_line(tmp_path: Path) -> None:
    drawing = b'<svg>\n<path d="' + b"M 1 2 L 3 4 " * 2000 + b'"/>\n</svg>\n'
    assert read_text(file_for(tmp_path, "a.svg", drawing), 10**6) == Skipped("a.svg", "minified")
    # a short one-line note is written text
    note = b"One paragraph, never wrapped. " * 40
    assert read_text(file_for(tmp_path, "note.txt", note), 10**6) == note.decode()
    # in a written file, one enormous line (an inline image) is cut; the lines stay in place
    lines = [b"# Guide", b"![logo](data:image/png;base64," + b"A" * 50_000 + b")"] + [b"text"] * 60
    text = read_text(file_for(tmp_path, "guide.md", b"\n".join(lines)), 10**6)
    assert isinstance(text, str) and len(text.splitlines()) == 62
    assert text.splitlines()[1].endswith(" …") and len(text.splitlines()[1]) == LONG_LINE + 2
    assert text.splitlines()[2] == "text"


def test_read_text_rejects_invalid_utf8(tmp_path: Path) -> None:
    latin1 = "café".encode("latin-1")
    assert read_text(file_for(tmp_path, "a.txt", latin1), 100) == Skipped("a.txt", "invalid-utf8")


def test_read_text_strips_a_bom_and_normalises_line_endings(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbfone\r\ntwo\rthree\nf\xc3\xbcr\r\n"
    assert read_text(file_for(tmp_path, "a.txt", data), 100) == "one\ntwo\nthree\nfür\n"


def test_read_text_of_a_file_that_vanished_is_unreadable(tmp_path: Path) -> None:
    file = file_for(tmp_path, "gone.py", b"x")
    (tmp_path / "gone.py").unlink()
    assert read_text(file, 100) == Skipped("gone.py", "unreadable")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_fifos_are_ignored_by_walk_and_never_block_read_text(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    make(tmp_path, {"a.py": "x"})
    assert listed(tmp_path) == ["a.py"]
    result: list[object] = []
    fake = WorkspaceFile("pipe.py", tmp_path / "pipe.py", 0, 0)
    reader = threading.Thread(target=lambda: result.append(read_text(fake, 100)), daemon=True)
    reader.start()
    reader.join(timeout=5)
    assert result == [Skipped("pipe.py", "unreadable")]


def test_walk_records_too_large_files_from_their_size(tmp_path: Path) -> None:
    make(tmp_path, {"big.md": "x" * 2000, "small.md": "x"})
    config = Config(max_file_bytes=1000)
    assert listed(tmp_path, config) == ["small.md"]
    assert skipped(tmp_path, config) == {"big.md": "too-large"}


def test_walk_gives_posix_relative_paths_sizes_and_mtimes(tmp_path: Path) -> None:
    make(tmp_path, {"b/c/d.py": "hello", "a.md": "x"})
    files, _ = WorkspaceWalker(tmp_path, Config()).walk()
    assert [f.path for f in files] == ["a.md", "b/c/d.py"]
    d = files[1]
    assert d.abs_path == tmp_path / "b" / "c" / "d.py"
    assert d.size == 5
    assert d.mtime_ns == (tmp_path / "b/c/d.py").stat().st_mtime_ns


# ----------------------------------------------------------------------------- symlinks


def test_symlinks_out_of_the_workspace_are_skipped(tmp_path: Path) -> None:
    outside = make(tmp_path / "outside", {"secret_notes.md": "x", "lib/code.py": "x"})
    ws = make(tmp_path / "ws", {"a.py": "x"})
    (ws / "notes.md").symlink_to(outside / "secret_notes.md")
    (ws / "vendor").symlink_to(outside / "lib", target_is_directory=True)
    (ws / "pic.gif").symlink_to(outside / "secret_notes.md")  # unknown type: silent
    assert listed(ws) == ["a.py"]
    assert skipped(ws) == {"notes.md": "symlink-outside", "vendor": "symlink-outside"}


def test_symlinks_inside_the_workspace_are_followed_without_looping(tmp_path: Path) -> None:
    ws = make(tmp_path, {"src/a.py": "x", "src/deep/b.py": "x"})
    (tmp_path / "src" / "deep" / "loop").symlink_to(tmp_path / "src", target_is_directory=True)
    (tmp_path / "self").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "alias.py").symlink_to(tmp_path / "src" / "a.py")
    assert listed(ws) == ["alias.py", "src/a.py", "src/deep/b.py"]
    assert skipped(ws) == {}


def test_a_directory_reached_by_symlink_and_directly_is_listed_under_its_real_path(
    tmp_path: Path,
) -> None:
    make(tmp_path, {"zreal/a.py": "x"})
    (tmp_path / "alink").symlink_to(tmp_path / "zreal", target_is_directory=True)
    assert listed(tmp_path) == ["zreal/a.py"]


def test_broken_symlinks_are_unreadable_not_fatal(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "x"})
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "self_loop.py").symlink_to(tmp_path / "self_loop.py")
    assert listed(tmp_path) == ["a.py"]
    assert skipped(tmp_path)["dangling.py"] == "unreadable"


# ----------------------------------------------------------------------------- hostile trees


def test_unreadable_file_is_skipped(tmp_path: Path) -> None:
    make(tmp_path, {"locked.py": "x", "open.py": "x"})
    (tmp_path / "locked.py").chmod(0)
    try:
        if os.access(tmp_path / "locked.py", os.R_OK):
            pytest.skip("running as root (or similar): chmod 000 does not stop reading here")
        assert listed(tmp_path) == ["open.py"]
        assert skipped(tmp_path) == {"locked.py": "unreadable"}
        file = WorkspaceFile("locked.py", tmp_path / "locked.py", 1, 0)
        assert read_text(file, 100) == Skipped("locked.py", "unreadable")
    finally:
        (tmp_path / "locked.py").chmod(0o644)


def test_a_directory_that_cannot_be_listed_is_skipped_and_the_walk_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # chmod 000 does not stop root, so simulate the PermissionError the OS would raise.
    make(tmp_path, {"private/a.py": "x", "public/b.py": "x"})
    real_scandir = os.scandir
    blocked = str(tmp_path / "private")

    def scandir(path: str) -> object:
        if str(path) == blocked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(walk_module.os, "scandir", scandir)
    assert listed(tmp_path) == ["public/b.py"]
    assert skipped(tmp_path) == {"private": "unreadable"}


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="needs a byte-name filesystem")
def test_non_utf8_file_names_are_skipped_as_unreadable(tmp_path: Path) -> None:
    make(tmp_path, {"ok.py": "x"})
    bad = os.path.join(os.fsencode(tmp_path), b"caf\xe9.py")
    try:
        with open(bad, "wb") as fh:
            fh.write(b"x")
    except OSError:
        pytest.skip("filesystem refuses non-UTF-8 names")
    assert listed(tmp_path) == ["ok.py"]
    assert skipped(tmp_path) == {"caf\ufffd.py": "unreadable"}


def test_weird_but_valid_names_are_listed(tmp_path: Path) -> None:
    names = ["#hash.py", "!bang.py", "sp ace.md", "new\nline.py", "[x].md", "ünï.md"]
    make(tmp_path, dict.fromkeys(names, "x"))
    assert listed(tmp_path) == sorted(names)


def test_a_missing_workspace_gives_an_empty_result_not_an_exception(tmp_path: Path) -> None:
    walker = WorkspaceWalker(tmp_path / "missing", Config())
    assert walker.walk() == ([], [Skipped(".", "unreadable")])
    assert walker.check("a.py") is None


# ----------------------------------------------------------------------------- check()


def test_check_agrees_with_walk_for_every_listed_and_skipped_file(tmp_path: Path) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "*.log.md\n",
            "sub/.groundlsignore": "gen/\n",
            "a.py": "x",
            "sub/b.md": "x",
            "secrets.json": "{}",
            "big.txt": "x" * 50,
        },
    )
    config = Config(max_file_bytes=10)
    walker = WorkspaceWalker(tmp_path, config)
    files, skips = walker.walk()
    for f in files:
        assert walker.check(f.path) == f
    for s in skips:
        assert walker.check(s.path) == s
    assert {s.reason for s in skips} == {"secret", "too-large"}


@pytest.mark.parametrize(
    "rel",
    [
        "x.log.md",  # gitignored
        "sub/gen/c.py",  # .groundlsignore in sub/
        "node_modules/m/index.js",  # default exclude
        ".git/HEAD.md",  # VCS dir
        "env2/lib/x.py",  # virtualenv detected by pyvenv.cfg
        "pic.png",  # unknown type
        "missing.py",  # does not exist
        "sub",  # a directory
        "../outside.py",  # escapes the workspace
        "",  # empty
    ],
)
def test_check_returns_none_for_ignored_unknown_missing_or_invalid_paths(
    tmp_path: Path, rel: str
) -> None:
    make(
        tmp_path,
        {
            ".gitignore": "*.log.md\n",
            "x.log.md": "x",
            "sub/.groundlsignore": "gen/\n",
            "sub/gen/c.py": "x",
            "node_modules/m/index.js": "x",
            ".git/HEAD.md": "x",
            "env2/pyvenv.cfg": "x",
            "env2/lib/x.py": "x",
            "pic.png": b"\x89PNG",
        },
    )
    (tmp_path.parent / "outside.py").write_text("x")
    assert WorkspaceWalker(tmp_path, Config()).check(rel) is None


def test_check_rejects_absolute_paths(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "x"})
    assert WorkspaceWalker(tmp_path, Config()).check(str(tmp_path / "a.py")) is None


def test_check_reports_files_behind_a_symlink_out_of_the_workspace(tmp_path: Path) -> None:
    outside = make(tmp_path / "outside", {"lib/code.py": "x"})
    ws = make(tmp_path / "ws", {"a.py": "x"})
    (ws / "vendor").symlink_to(outside / "lib", target_is_directory=True)
    (ws / "link.py").symlink_to(outside / "lib" / "code.py")
    walker = WorkspaceWalker(ws, Config())
    assert walker.check("vendor/code.py") == Skipped("vendor/code.py", "symlink-outside")
    assert walker.check("link.py") == Skipped("link.py", "symlink-outside")


def test_check_sees_a_file_created_after_the_walk(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "x"})
    walker = WorkspaceWalker(tmp_path, Config())
    walker.walk()
    make(tmp_path, {"pkg/new.py": "hello"})
    result = walker.check("pkg/new.py")
    assert isinstance(result, WorkspaceFile)
    assert (result.path, result.size) == ("pkg/new.py", 5)
    assert walker.check("./pkg//new.py") == result


def test_fast_reject_regex_agrees_with_pathspec_on_tricky_patterns() -> None:
    lines = [
        "*.log", "!keep.log", "/root_only", "build/", "docs/*", "!docs/keep.md", "a/**/b",
        "**/cache", "x?y.py", "[ab]c.md", "\\#hash", "\\!bang", "trailing\\ ", "dir/sub/",
        "!*/", "**/", "name", "*.min.*",
    ]  # fmt: skip
    rules = compile_rules(lines)
    assert rules is not None and rules.quick is not None
    paths = [
        "a.log", "keep.log", "x/keep.log", "root_only", "x/root_only", "build/", "x/build/",
        "build", "docs/a.md", "docs/keep.md", "docs/", "a/b", "a/x/y/b", "a/b/", "z/cache",
        "cache/", "xzy.py", "ac.md", "cc.md", "#hash", "!bang", "trailing ", "dir/sub/",
        "q/dir/sub/", "name", "q/name/", "app.min.js", "plain.py", "deep/er/plain.py",
        "new\nline.log", "a/new\nname", "x\n/keep.log",
    ]  # fmt: skip
    for path in paths:
        assert rules.verdict(path) == rules.spec.check_file(path).include, path


def test_a_workspace_opened_through_a_symlink_is_walked_normally(tmp_path: Path) -> None:
    real = make(tmp_path / "real", {"a.py": "x", "lib/b.py": "x"})
    (real / "alias.py").symlink_to(real / "a.py")
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    files, skips = WorkspaceWalker(tmp_path / "link", Config()).walk()
    assert [f.path for f in files] == ["a.py", "alias.py", "lib/b.py"]
    assert skips == []
    assert files[0].abs_path == tmp_path / "link" / "a.py"


def test_invalid_patterns_in_config_exclude_are_dropped_not_fatal(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "x", "a_test.py": "x"})
    assert listed(tmp_path, Config(exclude=["!", "\\", "*_test.py"])) == ["a.py"]


def test_documents_are_listed_legacy_formats_said_skipped_and_images_left_out_silently(
    tmp_path: Path,
) -> None:
    make(
        tmp_path,
        {
            "manual/guide.html": "<h1>Guide</h1>",
            "manual/guide.pdf": b"%PDF-1.7\n\x00\x01",
            "manual/guide.EPUB": b"PK\x03\x04",
            "spec/design.docx": b"PK\x03\x04",
            "spec/old.doc": b"\xd0\xcf\x11\xe0",
            "lab/analysis.ipynb": "{}",
            "manual/images/figure.png": b"\x89PNG\x00",
            "old/notes.pdf": b"%PDF-1.4",
            ".gitignore": "old/\n",
        },
    )
    assert listed(tmp_path) == [
        "lab/analysis.ipynb",
        "manual/guide.EPUB",
        "manual/guide.html",
        "manual/guide.pdf",
        "spec/design.docx",
    ]
    assert skipped(tmp_path) == {"spec/old.doc": "unsupported-document"}
    _, skips = WorkspaceWalker(tmp_path, Config()).walk()
    assert skips[0].detail == "save it as .docx"


def test_a_document_larger_than_the_text_file_limit_is_still_listed(tmp_path: Path) -> None:
    make(tmp_path, {"manual.pdf": b"%PDF-1.7\n" + b"x" * 3000, "notes.md": "y" * 3000})
    assert listed(tmp_path, Config(max_file_bytes=1000)) == ["manual.pdf"]
