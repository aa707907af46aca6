"""A shared base index: exported with its manifest, read in place by a teammate's checkout, whose
own index holds only what differs (the overlay); search over both ranks as one index of the
workspace would; a base of other models is refused; the base file is never written."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from groundls.cli.main import main as cli
from groundls.config import Config
from groundls.index.storage import base as base_index
from groundls.index.storage import fts_totals
from groundls.index.storage.db import connect
from groundls.index.storage.terms import match_expression
from groundls.workspace import Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "search_ws"
#: a larger workspace for comparing rankings: this project's own engine source
ENGINE = Path(__file__).parents[2] / "server" / "groundls"

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
    conn = connect(other)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(base_index.BaseRefused, match="schema version 99.*export it again"):
        Workspace.open(tmp_path / "ci" / "repo", base_config(other), tmp_path / "z-index")
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


def own_chunks(ws: Workspace) -> int:
    """Chunks held in the workspace's own index file (not read from the base)."""
    return ws.store.conn.execute("SELECT count(*) FROM main.chunks").fetchone()[0]


def test_the_workspace_index_holds_only_the_overlay_and_the_base_is_read_in_place(
    exported, tmp_path
):
    ci, base, manifest = exported
    mine = tmp_path / "me" / "repo"
    shutil.copytree(ci, mine)
    ws = Workspace.open(mine, base_config(base), tmp_path / "my-index")
    ws.refresh()
    assert own_chunks(ws) == 0
    assert ws.store.stats()["chunks"] == manifest.chunks
    assert ws.search("retry failed uploads").hits[0].path == "src/storage/uploads.py"
    assert ws.store.holds_code()  # its code is in the base alone

    (mine / "docs" / "glacier.md").write_text("# Cold storage\n\nOld uploads move to glacier.\n")
    guide = (mine / "docs" / "guide.md").read_text()
    (mine / "docs" / "guide.md").unlink()
    ws.refresh()
    assert own_chunks(ws) == 1  # the new file's one chunk; the deletion is a record
    assert ws.store.file_checksum("docs/guide.md") is None

    # the deleted file back as it was: the base's version is seen again
    (mine / "docs" / "guide.md").write_text(guide)
    ws.refresh()
    assert ws.store.file_checksum("docs/guide.md") is not None
    assert any(h.path == "docs/guide.md" for h in ws.search("guide").hits)
    ws.close()


def test_search_over_a_base_and_its_overlay_ranks_as_one_index_of_the_workspace(tmp_path):
    ci = tmp_path / "ci"
    shutil.copytree(ENGINE, ci, ignore=shutil.ignore_patterns("__pycache__"))
    built = Workspace.open(ci, Config(), tmp_path / "ci-index")
    built.index()
    base = tmp_path / "engine.groundls"
    built.export(base)
    built.close()
    mine = tmp_path / "me"
    shutil.copytree(ci, mine)
    edited = mine / "index" / "storage" / "store.py"
    edited.write_text(
        edited.read_text() + "\n\ndef quarantine_upload(path):\n"
        '    """Move an upload that failed its checks aside."""\n    return path\n'
    )
    (mine / "NOTES.md").write_text("# Cold storage\n\nOld uploads move to glacier tiers.\n")
    (mine / "answer" / "text" / "passes.py").unlink()
    layered = Workspace.open(mine, base_config(base), tmp_path / "my-index")
    layered.refresh()
    whole = Workspace.open(mine, Config(), tmp_path / "whole-index")
    whole.index()
    assert layered.store.stats()["chunks"] == whole.store.stats()["chunks"]
    assert own_chunks(layered) < own_chunks(whole) / 10
    questions = [
        "quarantine upload that failed its checks",
        "glacier cold storage",
        "how is the confidence of a search decided",
        "where are a file's chunks written to the database",
        "keyword search with bm25",
        "export a base index with its manifest",
        "reciprocal rank fusion of ranked lists",
        "answer passes that repair a draft",
    ]
    overlap = swapped = 0
    for question in questions:
        mine_best = [h.chunk_id for h in layered.search(question).hits[:5]]
        whole_best = [h.chunk_id for h in whole.search(question).hits[:5]]
        if mine_best[:1] != whole_best[:1]:
            # two firsts within a percent or two of each other: the overlay's own average
            # chunk length (see below) may swap them, and nothing else
            assert mine_best[:2] == whole_best[1::-1], question
            swapped += 1
        overlap += len(set(mine_best) & set(whole_best))
        assert all(h.path != "answer/text/passes.py" for h in layered.search(question).hits)
    assert swapped <= 1
    assert overlap >= 0.9 * 5 * len(questions)
    hits = layered.search("quarantine_upload").hits
    assert hits[0].path == "index/storage/store.py"
    # the edited file's keyword scores are on the base's scale: within the difference that the
    # overlay's own average chunk length makes, not the overlay's own (tiny) document counts
    for terms in (["chunk", "vector", "transaction"], ["file", "checksum"], ["quarantine"]):
        expression = match_expression(terms)
        mine_scores = keyword_scores(layered, expression)
        whole_scores = keyword_scores(whole, expression)
        edited = [c for c in mine_scores if c[0] == "index/storage/store.py" and c in whole_scores]
        assert edited, terms
        for chunk in edited:
            assert mine_scores[chunk] == pytest.approx(whole_scores[chunk], rel=0.2), terms
    # a word's rarity (the confidence weighs words by it) counts the base's chunks too
    words = ["chunk", "vector", "transaction", "quarantine", "glacier"]
    mine_rarity = layered.store.term_rarity(words)
    whole_rarity = whole.store.term_rarity(words)
    for word in words:
        assert mine_rarity[word] == pytest.approx(whole_rarity[word], rel=0.1), word
    # hover's related notes read a base chunk's vectors through the overlay
    at = layered.store.chunk_at("search/fusion.py", 30)
    assert at is not None
    mine_vectors = layered.store.chunk_vectors(layered.store.chunk_rowid(at.chunk_id))
    whole_vectors = whole.store.chunk_vectors(whole.store.chunk_rowid(at.chunk_id))
    assert mine_vectors and set(mine_vectors) == set(whole_vectors)
    assert all(np.allclose(mine_vectors[s], whole_vectors[s]) for s in mine_vectors)
    layered.close()
    whole.close()


def keyword_scores(ws: Workspace, expression: str) -> dict[tuple[str, str], float]:
    """(path, chunk id) -> BM25 score of the best 30 keyword matches."""
    found = ws.store.keyword(expression, 30)
    hits = ws.store.hits_by_rowid([rowid for rowid, _ in found])
    return {(hits[rowid].path, hits[rowid].chunk_id): score for rowid, score in found}


def test_a_teammate_fills_the_deep_tier_of_the_base_chunks_in_the_overlay(exported, tmp_path):
    ci, base, _ = exported
    before = digest(base)
    mine = tmp_path / "me" / "repo"
    shutil.copytree(ci, mine)
    ws = Workspace.open(mine, base_config(base), tmp_path / "my-index")
    ws.refresh()
    have, wanted = ws.deep_status()
    assert have == 0 and wanted > 0  # the base was exported before its deep tier was filled
    assert ws.fill_deep() == wanted
    assert ws.deep_status() == (wanted, wanted)
    assert own_chunks(ws) == 0  # the vectors are the overlay's, the chunks still the base's
    whole = Workspace.open(mine, Config(), tmp_path / "whole-index")
    whole.index()
    whole.fill_deep()
    for question in ("retry failed uploads", "ログの設定はどこ", "where are settings read"):
        got = [h.chunk_id for h in ws.search(question).hits[:5]]
        assert got == [h.chunk_id for h in whole.search(question).hits[:5]], question
    ws.close()
    whole.close()
    assert digest(base) == before


def test_a_workspace_reading_a_base_refuses_to_export_itself(exported, tmp_path):
    ci, base, _ = exported
    ws = Workspace.open(ci, base_config(base), tmp_path / "my-index")
    with pytest.raises(base_index.BaseRefused, match="overlay of a base"):
        ws.export(tmp_path / "again.groundls")
    ws.close()


def test_a_base_gone_while_the_workspace_is_open_is_a_clear_error(exported, tmp_path):
    ci, base, _ = exported
    moved = tmp_path / "elsewhere.groundls"
    shutil.copyfile(base, moved)
    ws = Workspace.open(ci, base_config(moved), tmp_path / "my-index")
    ws.refresh()
    assert ws.search("retry failed uploads").hits
    moved.unlink()
    failed: list[Exception] = []

    def search_on_a_new_thread() -> None:  # a new connection attaches the base again
        try:
            ws.search("retry failed uploads")
        except Exception as exc:  # noqa: BLE001 - what the face would be given
            failed.append(exc)

    worker = threading.Thread(target=search_on_a_new_thread)
    worker.start()
    worker.join()
    assert len(failed) == 1 and isinstance(failed[0], base_index.BaseRefused)
    assert str(failed[0]) == "base index elsewhere.groundls cannot be read: unable to open database"
    ws.close()


def test_a_base_exported_with_out_of_date_keyword_totals_says_to_export_it_again(
    exported, tmp_path
):
    ci, base, _ = exported
    fresh = Workspace.open(ci, base_config(base), tmp_path / "fresh-index")
    assert fresh.base_status()["stale_keyword_totals"] is False
    assert "export it again" not in base_index.describe(fresh.base_status())
    fresh.close()
    # an index that older versions updated in place counted the chunks it had replaced too
    conn = connect(base)
    right = fts_totals.totals(conn)
    conn.execute(
        "UPDATE chunks_fts_data SET block = ? WHERE id = 1",
        (fts_totals.encode([right[0] + 40, *right[1:]]),),
    )
    conn.commit()
    conn.close()
    ws = Workspace.open(ci, base_config(base), tmp_path / "my-index")
    assert ws.base_status()["stale_keyword_totals"] is True
    assert "export it again" in base_index.describe(ws.base_status())
    assert fts_totals.totals(connect(base, readonly=True))[0] == right[0] + 40  # read-only
    ws.close()
