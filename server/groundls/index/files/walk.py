"""Find the workspace files worth indexing: ignore rules, default excludes, secrets, symlinks."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path, PurePath

from groundls.chunkers import classify
from groundls.config import Config
from groundls.index.files.documents import LEGACY_FORMATS, document_format
from groundls.index.files.documents.bounded import MAX_DOCUMENT_BYTES
from groundls.index.files.documents.scans import MIN_IMAGE_BYTES
from groundls.index.files.excludes import (
    ALWAYS_EXCLUDED_DIRS,
    DEFAULT_EXCLUDED_DIRS,
    DEFAULT_EXCLUDED_FILES,
    DOTNET_OUTPUT_DIRS,
    DOTNET_PROJECT_SUFFIXES,
    MINIFIED_SUFFIXES,
    is_secret,
    is_secret_name,
)
from groundls.index.files.ignore import Frame, Rules, compile_rules, decide
from groundls.index.files.read import Skipped, WorkspaceFile, _display, _undecodable

__all__ = ["WorkspaceWalker", "is_secret"]

#: Documents in formats groundls does not read (binary Office files, RTF): said as skipped, with
#: what to save them as, so that a user who asks about one knows why nothing is found. Other
#: files of unknown types (images, archives, binaries) are left out silently.
UNSUPPORTED_DOCUMENTS = tuple(LEGACY_FORMATS)

_IGNORE_FILES = (".gitignore", ".groundlsignore")


class WorkspaceWalker:
    """Walk one workspace, pruning ignored directories instead of descending into them.

    Precedence, highest first: ``config.exclude``; ``.groundlsignore`` files (deepest first);
    the default excludes; ``.gitignore`` files (deepest first); ``.git/info/exclude``. So a
    ``!build/`` in ``.groundlsignore`` or ``config.exclude`` re-includes a default-excluded
    directory, while a ``.gitignore`` whitelist such as ``!*/`` cannot resurrect node_modules.
    VCS directories and ``.groundls/`` are never walked; nor is any virtualenv (``pyvenv.cfg``
    or ``conda-meta/`` inside). ``config.include`` then keeps only matching files. Files whose
    type ``classify()`` does not know are silently left out, so ``Skipped`` lists only files
    that would otherwise have been indexed.
    """

    def __init__(self, root: Path, config: Config, *, index_dir: Path | None = None) -> None:
        self.root = Path(root).absolute()
        self.config = config
        self._root_str = str(self.root)
        self._root_real = os.path.realpath(self.root)
        self._exclude = compile_rules(config.exclude)
        self._include = compile_rules(config.include)
        self._spec_cache: dict[str, tuple[tuple[int, int], Rules | None]] = {}
        self._excluded_rel_dirs: set[str] = set()
        self._known_types: dict[str, bool] = {}
        if index_dir is not None:
            real = os.path.realpath(index_dir)
            rel = self._rel_inside(real)
            if rel:
                self._excluded_rel_dirs.add(rel)

    # ----------------------------------------------------------------------- public API

    def walk(self) -> tuple[list[WorkspaceFile], list[Skipped]]:
        """Every indexable file and every skipped one, both sorted by path; never raises.

        Contents are not read here: "binary" and "invalid-utf8" come from ``read_text``.
        """
        files: list[WorkspaceFile] = []
        skipped: list[Skipped] = []
        try:
            root_info = os.stat(self.root)
        except OSError:
            return [], [Skipped(".", "unreadable")]
        if not stat.S_ISDIR(root_info.st_mode):
            return [], [Skipped(".", "unreadable")]
        visited = {(root_info.st_dev, root_info.st_ino)}
        base = self._info_exclude_frame()
        stack: list[tuple[str, str, Frame]] = [("", self._root_str, base)]
        deferred: list[tuple[str, str, Frame]] = []
        while stack or deferred:
            if not stack:
                # Symlinked directories go last, so a directory reachable both directly and
                # through a link is listed under its real path.
                deferred.sort(key=lambda item: item[0], reverse=True)
                rel, abs_dir, frame = deferred.pop()
                try:
                    info = os.stat(abs_dir)
                except OSError:
                    continue
                key = (info.st_dev, info.st_ino)
                if key in visited:
                    continue
                visited.add(key)
            else:
                rel, abs_dir, frame = stack.pop()
            self._walk_dir(rel, abs_dir, frame, files, skipped, stack, deferred, visited)
        files.sort(key=lambda f: f.path)
        skipped.sort(key=lambda s: s.path)
        return files, skipped

    def check(self, rel_path: str) -> WorkspaceFile | Skipped | None:
        """Decide one file (after a save or watch event); None when ignored, excluded or gone."""
        try:
            return self._check(rel_path)
        except (OSError, ValueError):
            return None

    # ----------------------------------------------------------------------- walking

    def _walk_dir(
        self,
        rel: str,
        abs_dir: str,
        frame: Frame,
        files: list[WorkspaceFile],
        skipped: list[Skipped],
        stack: list[tuple[str, str, Frame]],
        deferred: list[tuple[str, str, Frame]],
        visited: set[tuple[int, int]],
    ) -> None:
        try:
            with os.scandir(abs_dir) as it:
                entries = list(it)
        except OSError:
            if rel:
                skipped.append(Skipped(_display(rel.rstrip("/")), "unreadable"))
            return
        names = {e.name for e in entries}
        if rel and ("pyvenv.cfg" in names or "conda-meta" in names):
            return  # a virtualenv or conda env under another name
        frame = self._extend(frame, rel, abs_dir, entries)
        dotnet = any(n.endswith(DOTNET_PROJECT_SUFFIXES) for n in names)
        parent = Path(abs_dir)  # "parent / name" is much cheaper than Path(full_path)
        for entry in entries:
            name = entry.name
            child = rel + name
            try:
                is_dir = entry.is_dir()
                is_link = entry.is_symlink()
            except OSError:
                continue
            if is_dir:
                self._subdir(entry, child, frame, dotnet, skipped, stack, deferred, visited)
                continue
            try:
                is_file = entry.is_file()
            except OSError:
                is_file = False
            if not is_file and not is_link:
                continue  # sockets, fifos, devices
            result = self._file(name, child, entry.path, frame, is_link, not is_file, parent)
            if isinstance(result, WorkspaceFile):
                files.append(result)
            elif result is not None:
                skipped.append(result)

    def _subdir(
        self,
        entry: os.DirEntry[str],
        child: str,
        frame: Frame,
        dotnet: bool,
        skipped: list[Skipped],
        stack: list[tuple[str, str, Frame]],
        deferred: list[tuple[str, str, Frame]],
        visited: set[tuple[int, int]],
    ) -> None:
        """A folder met on the walk: left out when ignored, walked later when it is a link that
        stays inside the workspace, else walked next (once, whatever leads to it)."""
        name = entry.name
        if self._dir_ignored(name, child, frame, dotnet):
            return
        if _undecodable(name):
            skipped.append(Skipped(_display(child), "unreadable"))
            return
        if entry.is_symlink():
            target = self._rel_inside(os.path.realpath(entry.path))
            if target is None:
                skipped.append(Skipped(child, "symlink-outside"))
            elif not ALWAYS_EXCLUDED_DIRS.intersection(target.split("/")):
                deferred.append((child + "/", entry.path, frame))
            return
        try:
            info = entry.stat()
        except OSError:
            skipped.append(Skipped(child, "unreadable"))
            return
        key = (info.st_dev, info.st_ino)
        if key in visited:
            return
        visited.add(key)
        stack.append((child + "/", entry.path, frame))

    def _file(
        self,
        name: str,
        rel: str,
        abs_path: str,
        frame: Frame,
        is_link: bool,
        broken: bool,
        parent: Path | None = None,
    ) -> WorkspaceFile | Skipped | None:
        """The verdict on one file, given the ignore files in force for its directory."""
        secret = not self.config.index_secrets and is_secret_name(name)
        document = name.lower().endswith(UNSUPPORTED_DOCUMENTS)
        if not secret and not document and not self._indexable_type(name):
            return None
        if self._file_ignored(name, rel, frame):
            return None
        if self._include is not None and not self._include.verdict(rel):
            return None
        if _undecodable(rel):
            return Skipped(_display(rel), "unreadable")
        if secret:
            return Skipped(rel, "secret")
        if document:
            suffix = name[name.rfind(".") :].lower()
            return Skipped(rel, "unsupported-document", LEGACY_FORMATS[suffix])
        if is_link:
            real = os.path.realpath(abs_path)
            if self._rel_inside(real) is None:
                return Skipped(rel, "symlink-outside")
        if broken:
            return Skipped(rel, "unreadable")
        try:
            info = os.stat(abs_path)
        except OSError:
            return Skipped(rel, "unreadable")
        if not stat.S_ISREG(info.st_mode):
            return None
        fmt = document_format(name)
        if fmt == "image" and info.st_size < MIN_IMAGE_BYTES:
            return None
        limit = MAX_DOCUMENT_BYTES if fmt else self.config.max_file_bytes
        if info.st_size > limit:
            return Skipped(rel, "too-large")
        if not os.access(abs_path, os.R_OK):
            return Skipped(rel, "unreadable")
        path = parent / name if parent is not None else Path(abs_path)
        return WorkspaceFile(rel, path, info.st_size, info.st_mtime_ns)

    # ----------------------------------------------------------------------- single file

    def _check(self, rel_path: str) -> WorkspaceFile | Skipped | None:
        if not isinstance(rel_path, str) or not rel_path or "\0" in rel_path:
            return None
        if os.sep != "/":
            rel_path = rel_path.replace(os.sep, "/")
        parts = [p for p in rel_path.split("/") if p not in ("", ".")]
        if not parts or ".." in parts or os.path.isabs(rel_path) or PurePath(rel_path).drive:
            return None
        frame = self._root_frame()
        rel = ""
        abs_dir = self._root_str
        for name in parts[:-1]:
            child = rel + name
            abs_child = os.path.join(abs_dir, name)
            if not os.path.isdir(abs_child):
                return None
            try:
                parent_names = os.listdir(abs_dir) if name in DOTNET_OUTPUT_DIRS else []
            except OSError:
                parent_names = []
            dotnet = any(n.endswith(DOTNET_PROJECT_SUFFIXES) for n in parent_names)
            if self._dir_ignored(name, child, frame, dotnet):
                return None
            if os.path.islink(abs_child) and self._rel_inside(os.path.realpath(abs_child)) is None:
                file_name = parts[-1]
                if not self._indexable_type(file_name):
                    return None
                return Skipped("/".join(parts), "symlink-outside")
            if os.path.exists(os.path.join(abs_child, "pyvenv.cfg")) or os.path.isdir(
                os.path.join(abs_child, "conda-meta")
            ):
                return None
            rel = child + "/"
            abs_dir = abs_child
            try:
                with os.scandir(abs_dir) as it:
                    entries = [e for e in it if e.name in _IGNORE_FILES]
            except OSError:
                return Skipped("/".join(parts), "unreadable")
            frame = self._extend(frame, rel, abs_dir, entries)
        name = parts[-1]
        abs_path = os.path.join(abs_dir, name)
        if not os.path.lexists(abs_path) or os.path.isdir(abs_path):
            return None
        is_link = os.path.islink(abs_path)
        broken = is_link and not os.path.exists(abs_path)
        if not broken and not os.path.isfile(abs_path):
            return None
        return self._file(name, rel + name, abs_path, frame, is_link, broken)

    # ----------------------------------------------------------------------- rules

    def _indexable_type(self, name: str) -> bool:
        """classify() knows the file type; memoised because names repeat (__init__.py, index.ts)."""
        known = self._known_types.get(name)
        if known is None:
            if len(self._known_types) > 100_000:
                self._known_types.clear()
            known = self._known_types[name] = classify(name) is not None
        return known

    def _dir_ignored(self, name: str, rel: str, frame: Frame, dotnet: bool) -> bool:
        if name in ALWAYS_EXCLUDED_DIRS or rel in self._excluded_rel_dirs:
            return True
        path = rel + "/"
        verdict = self._user_verdict(path, frame)
        if verdict is not None:
            return verdict
        if name in DEFAULT_EXCLUDED_DIRS or name.endswith(".egg-info"):
            return True
        if dotnet and name in DOTNET_OUTPUT_DIRS:
            return True
        return bool(decide(frame.git, path))

    def _file_ignored(self, name: str, rel: str, frame: Frame) -> bool:
        verdict = self._user_verdict(rel, frame)
        if verdict is not None:
            return verdict
        if name in DEFAULT_EXCLUDED_FILES or name.lower().endswith(MINIFIED_SUFFIXES):
            return True
        return bool(decide(frame.git, rel))

    def _user_verdict(self, path: str, frame: Frame) -> bool | None:
        """What config.exclude and .groundlsignore files say (they outrank the defaults)."""
        if self._exclude is not None:
            result = self._exclude.verdict(path)
            if result is not None:
                return result
        return decide(frame.groundls, path)

    def _info_exclude_frame(self) -> Frame:
        spec = self._load_spec(os.path.join(self._root_str, ".git", "info", "exclude"))
        return Frame((("", spec),) if spec is not None else (), ())

    def _root_frame(self) -> Frame:
        frame = self._info_exclude_frame()
        try:
            with os.scandir(self._root_str) as it:
                entries = [e for e in it if e.name in _IGNORE_FILES]
        except OSError:
            return frame
        return self._extend(frame, "", self._root_str, entries)

    def _extend(
        self, frame: Frame, rel: str, abs_dir: str, entries: list[os.DirEntry[str]]
    ) -> Frame:
        """The frame for a directory: its parent's plus its own ignore files, if any."""
        present = {e.name for e in entries if e.name in _IGNORE_FILES}
        if not present:
            return frame
        git, groundls = frame.git, frame.groundls
        if ".gitignore" in present:
            spec = self._load_spec(os.path.join(abs_dir, ".gitignore"))
            if spec is not None:
                git = (*git, (rel, spec))
        if ".groundlsignore" in present:
            spec = self._load_spec(os.path.join(abs_dir, ".groundlsignore"))
            if spec is not None:
                groundls = (*groundls, (rel, spec))
        return Frame(git, groundls)

    def _load_spec(self, path: str) -> Rules | None:
        """Compile an ignore file, cached until its size or mtime changes; None if absent/empty."""
        try:
            info = os.stat(path)
            if not stat.S_ISREG(info.st_mode):
                return None
            key = (info.st_mtime_ns, info.st_size)
            cached = self._spec_cache.get(path)
            if cached is not None and cached[0] == key:
                return cached[1]
            with open(path, "rb") as fh:
                data = fh.read(1_000_000)
        except OSError:
            return None
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8) :]
        spec = compile_rules(data.decode("utf-8", "replace").splitlines())
        self._spec_cache[path] = (key, spec)
        return spec

    def _rel_inside(self, real: str) -> str | None:
        """Workspace-relative POSIX path of a resolved path, "" for the root, None if outside."""
        root = self._root_real
        if real == root:
            return ""
        prefix = root if root.endswith(os.sep) else root + os.sep
        if not real.startswith(prefix):
            return None
        return real[len(prefix) :].replace(os.sep, "/")
