"""The house matches its plan (docs/ARCHITECTURE.md): no import cycle, the faces reach the engine
only through ``workspace`` and the shared types, and the chunkers stay pure. The checks live in
``scripts/lab/house.py``, which also prints the module and function sizes."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

HOUSE = Path(__file__).resolve().parents[1] / "scripts" / "lab" / "house.py"


@pytest.fixture(scope="module")
def house():
    spec = importlib.util.spec_from_file_location("house", HOUSE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["house"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def modules(house):
    return house.modules()


def _module(house, name: str, code: str):
    return house.Module(name, Path(f"/x/{name.replace('.', '/')}.py"), ast.parse(code), 1)


def test_no_module_imports_itself_back_through_another(house, modules):
    assert house.cycles(house.graph(modules)) == []


def test_a_cycle_through_a_function_local_import_is_found(house):
    a = _module(house, "groundls.a", "def f():\n    from groundls import b\n")
    b = _module(house, "groundls.b", "from groundls.a import f\n")
    assert house.cycles(house.graph([a, b])) == [["groundls.a", "groundls.b"]]


def test_the_faces_import_the_engine_only_through_the_workspace_and_shared_types(house, modules):
    assert house.face_breaches(modules) == []


def test_a_face_that_imports_a_stage_is_named(house):
    face = _module(house, "groundls.lsp.x", "from groundls.index.storage.store import Store\n")
    store = _module(house, "groundls.index.storage.store", "")
    fine = _module(house, "groundls.mcp.y", "from groundls.workspace import Workspace\n")
    workspace = _module(house, "groundls.workspace", "")
    assert house.face_breaches([face, store, fine, workspace]) == [
        "groundls.lsp.x:1 imports groundls.index.storage.store"
    ]


def test_the_chunkers_import_nothing_of_the_engine(house, modules):
    assert house.chunker_breaches(modules) == []


def test_no_module_is_longer_than_a_reader_can_hold(house, modules):
    assert house.long_modules(modules) == []


def test_no_function_is_longer_than_a_screen_but_a_faces_table_of_handlers(house, modules):
    assert house.long_functions(modules) == []


def test_no_comment_names_an_evaluation_set_or_a_measured_delta(house, modules):
    assert house.set_names(modules) == []


def test_a_comment_that_names_a_set_is_found(house, tmp_path):
    path = tmp_path / "m.py"
    path.write_text('X = 5  #: RRF k (click-ja 0.519 -> 0.552)\n"""Fine."""\n')
    module = house.Module("groundls.m", path, ast.parse(path.read_text()), 2)
    house.ROOT, root = tmp_path, house.ROOT
    try:
        assert len(house.set_names([module])) == 1
    finally:
        house.ROOT = root
