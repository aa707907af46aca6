"""A shared base index: exported with its manifest, started from by a teammate's checkout, which
indexes only what differs; a base of other models is refused; the base file is never written."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from groundls.cli.main import main as cli
from groundls.config import Config
from groundls.index import base as base_index
from groundls.index.db import connect
from groundls.workspace import Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "search_ws"

pytestmark = pytest.mark.slow


def git_checkout(root: Path) -> Path:
    shutil.copytree(FIXTURE, root)
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base"],
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True)
    return root


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, Path, base_index.Manifest]:
    """A CI machine's checkout, indexed and exported (with a question in its history)."""
    ci = git_checkout(tmp_path / "ci" / "repo")
    ws = Workspace.open(ci, Config(), tmp_path / "ci-index")
    ws.index()
    ws.add_history({"question": "private question", "answer": "x", "mode": "answer"})
    manifest = ws.export(tmp_path / "shared" / "repo.groundls")
    ws.close()
    return ci, tmp_path / "shared" / "repo.groundls", manifest


def base_config(base: Path) -> Config:
    config = Config()
    config.index.base = str(base)
    return config


def test_an_export_is_one_file_with_its_manifest_and_no_question_history(exported, tmp_path):
    ci, base, manifest = exported
    head = subprocess.run(
        ["git", "-C", str(ci), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    assert manifest.commit == head and not manifest.dirty
    assert manifest.files > 3 and manifest.chunks > manifest.files
    assert {"static", "use"} <= set(manifest.spaces)
    assert manifest.spaces["static"]["dim"] == 256
    assert base_index.read_manifest(base) == manifest
    conn = connect(base, readonly=True)
    assert conn.execute("SELECT count(*) FROM history").fetchone()[0] == 0
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
    assert not list(base.parent.glob("*-wal"))


def test_a_teammate_starts_from_the_base_and_indexes_only_what_differs(exported, tmp_path):
    ci, base, manifest = exported
    before = digest(base)
    mine = tmp_path / "me" / "repo"
    shutil.copytree(ci, mine)  # another checkout of the same commit, other mtimes and path
    ws = Workspace.open(mine, base_config(base), tmp_path / "my-index")
    first = ws.refresh()
    assert first is None or first.files_indexed == 0  # nothing embedded again
    assert ws.search("retry failed uploads").hits[0].path == "src/storage/uploads.py"
    assert ws.base_status()["overlaid"] == 0
    assert ws.base_status()["commit"] == manifest.commit

    # an edit, a new file and a deleted one: the overlay, searched with the base
    uploads = mine / "src" / "storage" / "uploads.py"
    uploads.write_text(
        uploads.read_text() + "\n\ndef quarantine_bad_upload(path):\n    return path\n"
    )
    (mine / "docs" / "glacier.md").write_text(
        "# Cold storage\n\nOld uploads move to glacier tiers.\n"
    )
    (mine / "docs" / "guide.md").unlink()
    report = ws.refresh()
    assert report is not None and report.files_indexed == 2 and report.files_removed == 1
    assert ws.base_status()["overlaid"] == 3
    assert ws.search("quarantine_bad_upload").hits[0].path == "src/storage/uploads.py"
    assert ws.search("glacier cold storage").hits[0].path == "docs/glacier.md"
    assert all(h.path != "docs/guide.md" for h in ws.search("guide").hits)
    ws.close()
    assert digest(base) == before  # only ever read

    # opening again keeps the overlay (the base is not copied over it a second time)
    again = Workspace.open(mine, base_config(base), tmp_path / "my-index")
    assert again.base_status()["overlaid"] == 3
    again.close()


def test_a_base_built_with_other_models_is_refused_with_the_reason(exported, tmp_path):
    _, base, _ = exported
    other = tmp_path / "other.groundls"
    shutil.copyfile(base, other)
    conn = connect(other)
    data = json.loads(
        conn.execute("SELECT value FROM meta WHERE key = ?", (base_index.MANIFEST_KEY,)).fetchone()[
            0
        ]
    )
    data["spaces"]["static"]["version"] = "another-static-model"
    conn.execute(
        "UPDATE meta SET value = ? WHERE key = ?", (json.dumps(data), base_index.MANIFEST_KEY)
    )
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    with pytest.raises(base_index.BaseRefused, match="another-static-model.*export it again"):
        Workspace.open(tmp_path / "ci" / "repo", base_config(other), tmp_path / "x-index")
    not_an_index = tmp_path / "notes.groundls"
    not_an_index.write_text("hello")
    with pytest.raises(base_index.BaseRefused, match="not a groundls index"):
        Workspace.open(tmp_path / "ci" / "repo", base_config(not_an_index), tmp_path / "y")


def test_the_command_line_exports_and_reports_the_base(exported, tmp_path, capsys):
    ci, base, manifest = exported
    mine = tmp_path / "cli" / "repo"
    shutil.copytree(ci, mine)
    (mine / "notes.md").write_text("# Notes\n\nA new file only here.\n")
    code = cli(["status", "-w", str(mine), "--index-dir", str(tmp_path / "cli-index"),
                "--base", str(base), "--json"])  # fmt: skip
    assert code == 0
    status = json.loads(capsys.readouterr().out)
    assert status["base"]["commit"] == manifest.commit
    code = cli(["search", "-w", str(mine), "--index-dir", str(tmp_path / "cli-index"),
                "--base", str(base), "--json", "new file only here"])  # fmt: skip
    assert code == 0
    assert "notes.md" in capsys.readouterr().out
    code = cli(["status", "-w", str(mine), "--index-dir", str(tmp_path / "cli-index"),
                "--base", str(base)])  # fmt: skip
    assert "1 file(s) differ from it" in capsys.readouterr().out
    missing = cli(["status", "-w", str(mine), "--base", str(tmp_path / "nope.groundls")])
    assert missing == 2
    assert "base index not found: " in capsys.readouterr().err
