"""End to end with the real bundled embedding models: English, Japanese and cross-lingual queries."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from groundls.config import Config
from groundls.results import SearchFilters
from groundls.workspace import Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "search_ws"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Workspace:
    root = tmp_path_factory.mktemp("e2e")
    ws = root / "ws"
    shutil.copytree(FIXTURE, ws)
    eng = Workspace.open(ws, Config(), root / "index")
    eng.index()
    yield eng
    eng.close()


def top_titles(workspace: Workspace, query: str, n: int = 3) -> list[str]:
    return [h.title for h in workspace.search(query)[:n]]


def test_english_question_finds_the_retry_method(workspace):
    hits = workspace.search("where do we retry failed uploads?")
    assert hits[0].path == "src/storage/uploads.py"
    assert hits[0].title.endswith("UploadClient.upload_with_retry")
    assert hits[0].start_line <= 16 <= hits[0].end_line


def test_japanese_question_finds_the_japanese_section(workspace):
    hits = workspace.search("ログレベルはどこで変更しますか？")
    assert hits[0].path == "docs/logging.ja.md"
    assert "ログレベルの変更" in hits[0].breadcrumb


def test_english_question_about_japanese_docs_finds_them(workspace):
    hits = workspace.search("How long are log files kept?", SearchFilters(kinds=("doc",)))
    assert any(
        h.path == "docs/logging.ja.md" and "ログの保存期間" in h.breadcrumb for h in hits[:3]
    )


def test_identifier_query_ranks_the_definition_first(workspace):
    assert workspace.search("parse_bucket_url")[0].title.endswith("parse_bucket_url")


def test_unrelated_question_is_marked_low_confidence(workspace):
    plain = workspace.search("where do we retry failed uploads?")
    assert plain.confidence in ("high", "medium")
    unrelated = workspace.search("How is GPU memory allocated for tensors in the training loop?")
    assert unrelated.confidence == "low"
    assert unrelated.reason


def test_editing_a_file_reembeds_only_the_changed_chunk_with_the_real_model(workspace):
    path = workspace.root / "docs" / "guide.md"
    path.write_text(
        path.read_text().replace("delete the cache directory", "remove the cache folder")
    )
    report = workspace.index_paths(["docs/guide.md"])
    assert report.files_indexed == 1
    # one changed section, embedded in each space English prose uses (MiniLM and USE)
    assert report.embedded == 2
    assert report.reused >= 2


def run_cli(*args: str, env_dir: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, GROUNDLS_INDEX_DIR=str(env_dir))
    return subprocess.run(
        [sys.executable, "-m", "groundls.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_cli_batch_search_writes_eval_format_with_relative_paths(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    lines = "\n".join(
        json.dumps({"id": i, "query": q}, ensure_ascii=False)
        for i, q in enumerate(["retry failed uploads", "ログレベルの変更"])
    )
    out = run_cli("search", "--batch", "-w", str(ws), env_dir=tmp_path / "idx", stdin=lines + "\n")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["id"] for r in rows] == [0, 1]
    # a bad line is reported in its place; the lines after it are still searched
    bad = run_cli(
        "search", "--batch", "-w", str(ws), env_dir=tmp_path / "idx", stdin=f"not json\n{lines}\n"
    )
    assert bad.returncode == 1
    bad_rows = [json.loads(line) for line in bad.stdout.splitlines()]
    assert bad_rows[0]["error"].startswith("line 1: ") and bad_rows[1:] == rows
    first = rows[0]["hits"][0]
    assert set(first) >= {"path", "start_line", "end_line", "score", "chunk_id", "kind", "title"}
    assert first["path"] == "src/storage/uploads.py"
    assert rows[1]["hits"][0]["path"] == "docs/logging.ja.md"
    assert str(ws) not in out.stdout


def test_cli_errors_are_one_line_without_traceback(tmp_path):
    out = run_cli("search", "-w", str(tmp_path / "missing"), "x", env_dir=tmp_path / "idx")
    assert out.returncode != 0
    assert out.stderr.strip().startswith("groundls: error: workspace not found")
    assert "Traceback" not in out.stderr
    out = run_cli("similar", "nonsense", "-w", str(tmp_path), env_dir=tmp_path / "idx")
    assert out.returncode != 0 and "PATH:LINE" in out.stderr
    # -k out of range is refused before anything is indexed, by every command that takes it
    commands = (
        ("search", "0", 100),
        ("similar", "101", 100),
        ("related", "0", 100),
        ("ask", "51", 50),
    )
    for command, k, most in commands:
        target = "a.py:1" if command in ("similar", "related") else "x"
        out = run_cli(command, "-k", k, "-w", str(tmp_path), target, env_dir=tmp_path / "idx")
        assert out.returncode != 0, command
        assert out.stderr.strip() == f"groundls: error: -k must be from 1 to {most}, got {k}"
    assert not (tmp_path / "idx").exists() or not any((tmp_path / "idx").iterdir())


def test_cli_stats_reports_files_chunks_and_models(tmp_path):
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURE, ws)
    assert run_cli("index", "-q", "-w", str(ws), env_dir=tmp_path / "idx").returncode == 0
    out = run_cli("stats", "--json", "-w", str(ws), env_dir=tmp_path / "idx")
    stats = json.loads(out.stdout)
    assert stats["files"] == 4 and stats["chunks"] > 4
    assert stats["skipped"] == {"secret": 2}  # .env and secrets.yaml, by name
    assert stats["models"]["static"]["model"] == "minilm-static"


def test_a_quoted_phrase_finds_the_text_that_says_it(workspace):
    # without the phrase, "downloaded" and "thumbnails" lead to settings.cache_directory
    hit = workspace.search("where does it say 'nothing is downloaded' about thumbnails?")[0]
    assert hit.path == "docs/guide.md"
    assert hit.title == "Offline"
