"""The deep tier: its spaces filled in the order the workspace wants them, and a partly filled
space counting only as much as it covers (fake embedders: logic only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from groundls.config import Config
from groundls.index.embedders import E5Embedder
from groundls.results import SearchFilters
from groundls.workspace import Workspace
from tests.helpers.fakes import FakeEmbedder

JA_PROSE = "# 設定\n\nログの保存期間は七日間です。古いログは自動的に削除されます。\n"
CODE = "def upload_with_retry(path, attempts=3):\n    return send(path)\n"


def fakes() -> dict[str, FakeEmbedder]:
    return {
        "static": FakeEmbedder("fake-static", 32),
        "use": FakeEmbedder("fake-use", 32),
        "minilm": FakeEmbedder("fake-minilm", 32),
        "e5": FakeEmbedder("fake-e5", 32),
    }


def open_ws(root: Path, tmp_path: Path) -> Workspace:
    config, _ = Config.from_dict({"search": {"rewriteQuestions": False}})
    return Workspace.open(root, config, tmp_path / "index", embedders=fakes())


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_a_japanese_manual_fills_its_multilingual_space_first(tmp_path: Path) -> None:
    root = tmp_path / "manual"
    write(root, {f"ch{n}.md": JA_PROSE.replace("七", str(n)) for n in range(6)} | {"a.py": CODE})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    assert workspace.indexer.deep_order() == ["e5", "minilm"]


def test_a_code_repository_fills_minilm_first(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {f"m{n}.py": CODE.replace("upload", f"upload{n}") for n in range(6)})
    write(root, {"README.md": JA_PROSE})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    assert workspace.indexer.deep_order() == ["minilm", "e5"]


def test_a_partly_filled_deep_space_counts_as_much_as_it_covers(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {f"m{n}.py": CODE.replace("upload", f"upload{n}") for n in range(8)})
    workspace = open_ws(root, tmp_path)
    workspace.index()
    fraction = workspace.indexer.fill_fraction
    assert fraction("static") == 1.0 and fraction("minilm") == 0.0
    workspace.fill_deep(max_chunks=2)
    assert 0.0 < fraction("minilm") < 1.0
    workspace.fill_deep()
    assert fraction("minilm") == 1.0
    assert workspace.search("upload3 with retry", SearchFilters(k=3)).hits


@pytest.mark.slow
def test_e5_embeds_queries_and_passages_with_their_own_prefixes() -> None:
    model = E5Embedder(max_chars=600)
    text = "ログの保存期間は七日間です。"
    passage = model.embed([text])[0]
    query = model.embed_query(text)
    assert passage.shape == query.shape == (384,)
    assert not np.allclose(passage, query)  # "passage: " and "query: " differ
    assert abs(float(np.linalg.norm(passage)) - 1.0) < 1e-3
    # a passage is embedded as its first max_chars characters
    long = text * 100
    assert np.allclose(model.embed([long])[0], model.embed([long[:600]])[0], atol=1e-5)
    assert model.version.endswith("/chars=600")
