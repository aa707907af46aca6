"""A shared base index: one machine (a CI job, a Ray cluster) builds and exports it, teammates
start from it instead of indexing the same commit again.

``groundls index --export FILE`` writes a self-contained copy of the index (no question history)
with a manifest: the models of its spaces and their versions, the chunker, the source commit and
the groundls version. A workspace whose ``index.base`` (``--base FILE``) names such a file reads
it in place, read-only: the workspace's own index holds only an overlay (see
:mod:`groundls.index.storage.layered`), and the usual incremental run fills it with exactly the files
whose content differs from the base, the new files and the deleted ones. A base whose models
differ from this groundls's is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from groundls import __version__
from groundls.chunkers import CHUNKER_VERSION
from groundls.index.storage.db import MIGRATIONS, connect, migrate, transaction
from groundls.results import WorkspaceError

MANIFEST_KEY = "base_manifest"
#: The oldest index schema a base may have: the first with every table reads use (the names a
#: chunk binds, ``chunk_names``); later versions changed only the question history.
SCHEMA_READ = 5
#: The meta key of an overlay: the id of the shared index it lies over.
BASE_ID_KEY = "base_id"


class BaseRefused(WorkspaceError):
    """A base index that cannot be used: missing, not an export, or built with other models."""


@dataclass(frozen=True)
class Manifest:
    """What a base index was built from."""

    groundls: str
    chunker: int
    #: space -> {model, version, dim}
    spaces: dict[str, dict[str, Any]]
    #: the workspace's git commit when exported ("" outside git), and whether files differed
    commit: str
    dirty: bool
    created: str
    files: int
    chunks: int

    @property
    def id(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


def source_commit(root: Path) -> tuple[str, bool]:
    """(HEAD commit, whether the work tree differs from it) of a git workspace; ("", False)
    elsewhere."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if head.returncode != 0:
            return "", False
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return head.stdout.strip(), bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        return "", False


def export(index_path: Path, root: Path, dest: Path) -> Manifest:
    """Write a self-contained copy of the index at ``index_path`` to ``dest``, without the
    question history, with its manifest."""
    dest = dest.expanduser().resolve()
    if dest == index_path.resolve():
        raise BaseRefused("the export must not overwrite the workspace's own index")
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    partial.unlink(missing_ok=True)
    source = connect(index_path)
    try:
        source.execute("VACUUM INTO ?", (str(partial),))
    finally:
        source.close()
    conn = connect(partial)
    try:
        spaces = {
            key.removeprefix("space:"): json.loads(value)
            for key, value in conn.execute("SELECT key, value FROM meta WHERE key LIKE 'space:%'")
        }
        files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        commit, dirty = source_commit(root)
        manifest = Manifest(
            groundls=__version__,
            chunker=CHUNKER_VERSION,
            spaces={name: _model_of(info) for name, info in spaces.items()},
            commit=commit,
            dirty=dirty,
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            files=files,
            chunks=chunks,
        )
        with transaction(conn):
            conn.execute("DELETE FROM history")  # a teammate's questions are theirs
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                (MANIFEST_KEY, json.dumps(asdict(manifest))),
            )
            conn.execute("DELETE FROM meta WHERE key = ?", (BASE_ID_KEY,))
        conn.execute("VACUUM")
        conn.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, read without a WAL
    finally:
        conn.close()
    os.replace(partial, dest)
    return manifest


def _model_of(info: dict[str, Any]) -> dict[str, Any]:
    return {key: info.get(key) for key in ("model", "version", "dim")}


def read_manifest(path: Path) -> Manifest:
    """The manifest of a base index file (opened read-only)."""
    path = path.expanduser()
    if not path.is_file():
        raise BaseRefused(f"base index not found: {path.name}")  # no machine path in replies
    try:
        conn = connect(path, readonly=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (MANIFEST_KEY,)).fetchone()
            schema = conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except Exception as exc:  # noqa: BLE001 - not SQLite, or not groundls's
        raise BaseRefused(f"{path.name} is not a groundls index ({exc})") from None
    if row is None:
        raise BaseRefused(f"{path.name} has no manifest: make it with `groundls index --export`")
    _check_schema(path, schema)
    return Manifest(**json.loads(row[0]))


def _check_schema(path: Path, version: int) -> None:
    """A base is read as it is (never migrated): its tables must be the ones this groundls
    reads."""
    if version < SCHEMA_READ or version > len(MIGRATIONS):
        raise BaseRefused(
            f"base {path.name} has index schema version {version}, this groundls reads "
            f"{SCHEMA_READ} to {len(MIGRATIONS)}: export it again with this version"
        )


def check_models(
    manifest: Any,
    wanted: dict[str, dict[str, Any]],
    subject: str,
    redo: str = "export it again",
    refused: type[WorkspaceError] = BaseRefused,
) -> None:
    """Refuse a shared index (a base's or a served store's ``manifest``: its chunker and
    spaces) whose spaces were embedded by other models, or chunked by another chunker, than
    this groundls's (``wanted``: space -> {model, version, dim}); ``subject`` names it in the
    message, ``redo`` says what makes it anew."""
    if manifest.chunker != CHUNKER_VERSION:
        raise refused(
            f"{subject} was chunked by chunker version {manifest.chunker}, this groundls "
            f"uses {CHUNKER_VERSION}: {redo} with this version"
        )
    for space, model in wanted.items():
        theirs = manifest.spaces.get(space)
        if theirs is not None and _model_of(theirs) != _model_of(model):
            raise refused(
                f"{subject} was built with {theirs.get('model')} {theirs.get('version')} for "
                f"the {space} space, this groundls uses {model.get('model')} "
                f"{model.get('version')}: {redo} with this version"
            )


def start_overlay(index_path: Path, shared_id: str) -> bool:
    """Make ``index_path`` an overlay of the shared index ``shared_id`` names (a base's
    manifest id, a served store's source) unless it already is one: any other index there (a
    whole index, or the overlay of another) is removed with the files kept beside it. Returns
    whether a new overlay was started."""
    if index_path.is_file():
        with contextlib.suppress(Exception):
            conn = connect(index_path)
            try:
                row = conn.execute(
                    "SELECT value FROM meta WHERE key = ?", (BASE_ID_KEY,)
                ).fetchone()
            finally:
                conn.close()
            if row is not None and row[0] == shared_id:
                return False
    index_path.parent.mkdir(parents=True, exist_ok=True)
    for stale in index_path.parent.glob(index_path.stem + ".*"):
        if stale.name.endswith(
            (".sqlite", ".sqlite-wal", ".sqlite-shm", ".usearch", ".npz", ".json")
        ):
            stale.unlink(missing_ok=True)
    conn = connect(index_path)
    try:
        migrate(conn)
        with transaction(conn):
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (BASE_ID_KEY, shared_id)
            )
    finally:
        conn.close()
    return True


def describe(status: dict[str, Any]) -> str:
    """One line for a person: the base a workspace reads and how many files differ from it."""
    stale = (
        "; its keyword statistics are out of date (exported before groundls kept them true"
        " after edits): export it again"
        if status.get("stale_keyword_totals")
        else ""
    )
    return (
        f"base: {status['file']} at {status['commit'][:12] or 'no git commit'}, "
        f"{status['overlaid']} file(s) differ from it (indexed here){stale}"
    )
