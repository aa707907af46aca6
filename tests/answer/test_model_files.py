"""Unit tests for model resolution and the one-time, checksummed assembly of split model parts."""

from __future__ import annotations

import hashlib
import json

import pytest

from groundls.answer.model import model_files, runtime


def make_parts(tmp_path, sizes=(5, 7, 3)):
    parts = []
    for i, size in enumerate(sizes, 1):
        p = tmp_path / f"part{i:02d}.bin"
        p.write_bytes(bytes([i]) * size)
        parts.append(p)
    return parts


def test_parts_are_joined_in_order_with_a_recorded_sha256(tmp_path):
    parts = make_parts(tmp_path)
    data = b"".join(p.read_bytes() for p in parts)
    dest = tmp_path / "cache" / "model.gguf"
    out = model_files.assemble(parts, dest, hashlib.sha256(data).hexdigest())
    assert out == dest and dest.read_bytes() == data
    record = json.loads((tmp_path / "cache" / "model.gguf.json").read_text())
    assert record["sha256"] == hashlib.sha256(data).hexdigest() and record["size"] == len(data)
    assert not list((tmp_path / "cache").glob("*.tmp"))


def test_assembled_file_is_reused_on_later_runs(tmp_path):
    parts = make_parts(tmp_path)
    dest = tmp_path / "model.gguf"
    model_files.assemble(parts, dest)
    mtime = dest.stat().st_mtime_ns
    model_files.assemble(parts, dest)
    assert dest.stat().st_mtime_ns == mtime


def test_changed_parts_cause_a_fresh_assembly(tmp_path):
    parts = make_parts(tmp_path)
    dest = tmp_path / "model.gguf"
    model_files.assemble(parts, dest)
    parts[1].write_bytes(b"x" * 9)
    model_files.assemble(parts, dest)
    assert dest.read_bytes() == b"".join(p.read_bytes() for p in parts)


def test_checksum_mismatch_raises_and_leaves_no_file(tmp_path):
    parts = make_parts(tmp_path)
    dest = tmp_path / "model.gguf"
    with pytest.raises(model_files.ModelError, match="checksum mismatch"):
        model_files.assemble(parts, dest, "0" * 64)
    assert not dest.exists() and not list(tmp_path.glob(".*.tmp"))


def test_configured_gguf_path_wins_over_the_packaged_model(tmp_path, monkeypatch):
    monkeypatch.setattr(model_files, "llama_available", lambda: True)
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    spec, note = model_files.resolve_model(str(gguf))
    assert spec is not None and spec.source == "config" and spec.path == gguf and note == ""


def test_missing_configured_path_is_reported_and_the_packaged_model_used(tmp_path, monkeypatch):
    monkeypatch.setattr(model_files, "llama_available", lambda: True)
    monkeypatch.setattr(model_files, "packaged_parts", lambda: [tmp_path / "p1"])
    spec, note = model_files.resolve_model(str(tmp_path / "nope.gguf"))
    assert spec is not None and spec.source == "packaged"
    assert "does not exist" in note


def test_no_model_means_none_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(model_files, "llama_available", lambda: True)
    monkeypatch.setattr(model_files, "packaged_parts", lambda: None)
    spec, note = model_files.resolve_model("")
    assert spec is None and "bash scripts/install_llm.sh" in note


def test_without_llama_cpp_there_is_no_model(monkeypatch):
    monkeypatch.setattr(model_files, "llama_available", lambda: False)
    spec, note = model_files.resolve_model("")
    assert spec is None and "llama-cpp-python" in note


def test_loading_a_file_that_is_not_a_model_is_a_clear_model_error(tmp_path):
    pytest.importorskip("llama_cpp")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model at all")
    model = runtime.LocalLLM(model_files.ModelSpec(name="bad", source="config", path=bad))
    with pytest.raises(model_files.ModelError, match="cannot load the model bad.gguf"):
        model.load()
    model.close()


def test_idle_timer_unloads_and_close_cancels_it(tmp_path):
    model = runtime.LocalLLM(
        model_files.ModelSpec(name="x", source="config", path=tmp_path / "x.gguf"), idle_unload_s=60
    )
    model._llm = object()  # pretend loaded
    model._touch()
    assert model._timer is not None and model._timer.daemon
    model._idle()
    assert not model.loaded
    model._touch()
    timer = model._timer
    model.close()
    assert timer is not None and timer.finished.is_set()
