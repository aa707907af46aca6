"""``groundls index --ray``: an index built on a real Ray cluster of several nodes on this machine
(``ray.cluster_utils.Cluster``) equals the local build, and survives a node killed mid-build."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from groundls.config import Config
from groundls.index import cluster as ray_cluster
from groundls.index.storage.store import Store
from groundls.results import IndexProgress
from groundls.workspace import Workspace

ray = pytest.importorskip("ray", reason="the ray extra (scripts/test.sh installs it)")
from ray.cluster_utils import Cluster  # noqa: E402

FIXTURES = Path(__file__).parents[1] / "fixtures"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head that runs nothing and two one-CPU worker nodes, each its own raylet."""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(2):
        c.add_node(num_cpus=1)
    c.wait_for_nodes()
    if ray.is_initialized():
        ray.shutdown()  # a test before this one left its own Ray in this process
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


def make_workspace(root: Path, copies: int = 1) -> Path:
    """Code, English and Japanese prose (every tier's models), ``copies`` times over."""
    for n in range(copies):
        for name in ("search_ws", "docs", "code"):
            shutil.copytree(FIXTURES / name, root / f"{name}{n}", dirs_exist_ok=True)
    return root


def contents(index: Path) -> tuple[dict, dict[str, dict[str, np.ndarray]]]:
    """(path, chunk id) -> (content hash, text) for every chunk, and per space chunk id ->
    vector."""
    store = Store(index)
    conn = store.conn
    chunks = {
        (path, cid): (h, text)
        for path, cid, h, text in conn.execute(
            "SELECT path, chunk_id, content_hash, text FROM chunks"
        )
    }
    vectors: dict[str, dict[str, np.ndarray]] = {}
    for space in store.spaces():
        try:
            rows = conn.execute(
                f"SELECT c.path || ':' || c.chunk_id, v.embedding FROM vec_{space} v "
                "JOIN chunks c ON c.id = v.chunk"
            ).fetchall()
        except sqlite3.OperationalError:
            continue
        vectors[space] = {key: np.frombuffer(blob, dtype=np.float32) for key, blob in rows}
    store.close()
    return chunks, vectors


def assert_same_index(local: Path, built: Path) -> None:
    chunks_local, vectors_local = contents(local)
    chunks_ray, vectors_ray = contents(built)
    assert chunks_local and chunks_ray == chunks_local  # same ids, hashes and text
    assert set(vectors_ray) == set(vectors_local)
    for space, mine in vectors_local.items():
        theirs = vectors_ray[space]
        assert set(theirs) == set(mine), space
        for key, vec in mine.items():
            np.testing.assert_allclose(theirs[key], vec, atol=2e-3, err_msg=f"{space} {key}")


def local_build(root: Path, index_dir: Path, *, deep: bool = True) -> Path:
    ws = Workspace.open(root, Config(), index_dir)
    ws.index()
    if deep:
        ws.fill_deep()
    ws.close()
    return ws.index_path


def test_an_index_built_on_a_ray_cluster_equals_the_local_build_every_tier(
    cluster: Cluster, tmp_path: Path
) -> None:
    root = make_workspace(tmp_path / "ws")
    local = local_build(root, tmp_path / "local")
    ws = Workspace.open(root, Config(), tmp_path / "ray")
    report = ws.index(ray=ray_cluster.RayPlan(cluster.address, workers=2, deep=True))
    filled, wanted = ws.deep_status()
    ws.close()
    assert report.files_indexed > 10 and not report.errors
    assert report.by_space.get("e5") and report.by_space.get("minilm")  # deep tier on workers
    assert filled == wanted  # nothing left to fill here
    assert_same_index(local, ws.index_path)


def test_a_node_killed_mid_build_leaves_the_same_index_as_the_local_build(
    cluster: Cluster, tmp_path: Path
) -> None:
    root = make_workspace(tmp_path / "ws", copies=6)
    local = local_build(root, tmp_path / "local", deep=False)
    victim = next(n for n in cluster.worker_nodes)
    killed: list[int] = []

    def on_progress(p: IndexProgress) -> None:
        # after the first written files, the node running one of the two actors dies; a fresh
        # node joins (as an autoscaler would), and Ray Data restarts the actor there
        if not killed and p.done_files >= 3:
            killed.append(p.done_files)
            cluster.remove_node(victim)
            cluster.add_node(num_cpus=1)

    ws = Workspace.open(root, Config(), tmp_path / "ray")
    plan = ray_cluster.RayPlan(cluster.address, workers=2, files_per_batch=4)
    report = ws.index(progress=on_progress, ray=plan)
    ws.close()
    assert killed and killed[0] < report.files_seen  # the node died while files were left
    assert report.files_indexed == local_build_files(local)
    assert_same_index(local, ws.index_path)


def local_build_files(index: Path) -> int:
    store = Store(index)
    n = len(store.file_checksums())
    store.close()
    return n


def test_a_second_ray_run_resumes_and_writes_only_what_changed(
    cluster: Cluster, tmp_path: Path
) -> None:
    root = make_workspace(tmp_path / "ws")
    plan = ray_cluster.RayPlan(cluster.address, workers=2)
    ws = Workspace.open(root, Config(), tmp_path / "ray")
    first = ws.index(ray=plan)
    (root / "code0" / "added.py").write_text("def added_here():\n    return 42\n")
    second = ws.index(ray=plan)
    ws.close()
    assert first.files_indexed > 10
    assert second.files_indexed == 1 and second.files_unchanged == first.files_indexed


def files_written(index_dir: Path) -> int:
    """How many files the index being built in ``index_dir`` holds (0 while it cannot be read)."""
    written = 0
    for path in index_dir.glob("*.sqlite"):
        with contextlib.suppress(Exception):
            written = max(written, local_build_files(path))
    return written


def kill_driver_mid_build(cluster: Cluster, root: Path, index_dir: Path) -> int:
    """Run `groundls index --ray` into ``index_dir`` and kill its driver once it has written
    five files or more; how many it had written."""
    driver = subprocess.Popen(
        [sys.executable, "-m", "groundls.cli", "index", "-q", "--ray", cluster.address,
         "--workers", "2", "--index-dir", str(index_dir), str(root)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    written = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and driver.poll() is None:
        written = max(written, files_written(index_dir))
        if written >= 5:
            driver.kill()  # the driver dies between files
            break
        time.sleep(0.2)
    driver.wait(timeout=30)
    return max(written, files_written(index_dir))


def test_a_driver_killed_mid_build_resumes_on_the_next_run_to_the_same_index(
    cluster: Cluster, tmp_path: Path
) -> None:
    root = make_workspace(tmp_path / "ws", copies=6)
    local = local_build(root, tmp_path / "local", deep=False)
    total = local_build_files(local)
    for attempt in range(3):
        # a driver that wrote everything between two looks was not killed mid-build: again,
        # into a fresh index (on a busy machine the index may not be readable until it is done)
        index_dir = tmp_path / f"ray{attempt}"
        written = kill_driver_mid_build(cluster, root, index_dir)
        if written < total:
            break
    assert 5 <= written < total
    ws = Workspace.open(root, Config(), index_dir)
    report = ws.index(ray=ray_cluster.RayPlan(cluster.address, workers=2))
    ws.close()
    assert report.files_unchanged >= written  # what the killed run wrote is kept
    assert_same_index(local, ws.index_path)


def test_without_ray_installed_the_build_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "ray", None)
    with pytest.raises(ray_cluster.RayUnavailable, match=r"pip install 'groundls\[ray\]'"):
        ray_cluster.connect("local")
