"""Which llama.cpp CPU buffers the model loads with: timed once in child processes, then kept."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from groundls.answer.model import cpu_buffers


class _Children:
    """Stands in for the probe's child processes: each setting's speeds, or a crash (None)."""

    def __init__(self, with_extra: Any, without: Any) -> None:
        """Each setting's speeds, or a list of them: one per run, in turn."""
        self.speeds = {"1": with_extra, "0": without}
        self.calls: list[str] = []

    def run(self, command: list[str], **_: Any) -> subprocess.CompletedProcess[bytes]:
        extra = command[4]
        runs = self.speeds[extra]
        speeds = runs[self.calls.count(extra)] if isinstance(runs, list) else runs
        self.calls.append(extra)
        if speeds is None:
            return subprocess.CompletedProcess(command, -4, b"", b"Illegal instruction")
        return subprocess.CompletedProcess(command, 0, json.dumps(speeds).encode(), b"")


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.delenv("GROUNDLS_LLM_EXTRA_BUFFERS", raising=False)
    monkeypatch.setattr(cpu_buffers, "models_dir", lambda: tmp_path)
    monkeypatch.setattr(cpu_buffers, "machine_key", lambda: "machine")

    def make(with_extra: dict[str, float] | None, without: dict[str, float]) -> _Children:
        fake = _Children(with_extra, without)
        monkeypatch.setattr(subprocess, "run", fake.run)
        return fake

    return make


def test_extra_buffers_are_used_only_when_a_typical_answer_is_quicker_with_them(children):
    # quicker to write but slower to read 900 prompt tokens: 900/170 + 120/37 > 900/270 + 120/28
    children({"prefill": 170.0, "decode": 37.0}, {"prefill": 270.0, "decode": 28.0})
    assert cpu_buffers.use_extra_buffers(Path("model.gguf")) is False


def test_extra_buffers_are_used_when_they_are_quicker(children, tmp_path: Path):
    fake = children({"prefill": 300.0, "decode": 40.0}, {"prefill": 200.0, "decode": 30.0})
    assert cpu_buffers.use_extra_buffers(Path("model.gguf")) is True
    assert fake.calls == ["1", "0", "1", "0"]
    # measured once: the choice and the speeds are kept for the next process
    record = json.loads((tmp_path / "cpu_probe.json").read_text())
    assert record["machine|timed"]["extra"] is True
    assert record["machine|timed"]["without"] == {"prefill": 200.0, "decode": 30.0}
    assert cpu_buffers.use_extra_buffers(Path("model.gguf")) is True
    assert fake.calls == ["1", "0", "1", "0"]


def test_each_setting_is_timed_twice_in_turn_so_a_burst_of_other_work_does_not_decide(children):
    # plain buffers' first run met a burst of other work; their second shows their speed
    plain = [{"prefill": 90.0, "decode": 20.0}, {"prefill": 270.0, "decode": 28.0}]
    extra = [{"prefill": 170.0, "decode": 37.0}, {"prefill": 165.0, "decode": 36.0}]
    fake = children(extra, plain)
    assert cpu_buffers.use_extra_buffers(Path("model.gguf")) is False
    assert fake.calls == ["1", "0", "1", "0"]


def test_the_same_build_installed_again_is_the_same_build(tmp_path: Path):
    first, second, rebuilt = (tmp_path / d for d in ("venv1", "venv2", "venv3"))
    for lib, content in ((first, b"kernels"), (second, b"kernels"), (rebuilt, b"kernels v2")):
        lib.mkdir()
        (lib / "libggml-cpu.so").write_bytes(content)
    os.utime(second / "libggml-cpu.so", (1, 1))  # installed at another time
    assert cpu_buffers.library_stamp(first) == cpu_buffers.library_stamp(second)
    assert cpu_buffers.library_stamp(first) != cpu_buffers.library_stamp(rebuilt)


def test_extra_buffers_that_crash_are_never_used(children):
    fake = children(None, {"prefill": 200.0, "decode": 30.0})
    assert cpu_buffers.use_extra_buffers(Path("model.gguf")) is False
    assert fake.calls == ["1"]


def test_the_record_keeps_the_newest_timings_only(children, tmp_path: Path, monkeypatch):
    children({"prefill": 300.0, "decode": 40.0}, {"prefill": 200.0, "decode": 30.0})
    (tmp_path / "cpu_probe.json").write_text(json.dumps({"an older build": True}))
    for build in range(6):
        monkeypatch.setattr(cpu_buffers, "machine_key", lambda build=build: f"build {build}")
        cpu_buffers.use_extra_buffers(Path("model.gguf"))
    record = json.loads((tmp_path / "cpu_probe.json").read_text())
    assert list(record) == [f"build {b}|timed" for b in range(6 - cpu_buffers.PROBES_KEPT, 6)]
