"""The answer model's threads follow what the CPU is doing (groundls.cpu)."""

from __future__ import annotations

import multiprocessing
import time

from groundls import cpu
from groundls.cpu import CpuMeter, Threads, model_threads, physical_cores


def test_an_idle_machine_gives_every_core_to_reading_and_writing():
    assert model_threads(2, 0.0) == Threads(batch=2, decode=2)
    assert model_threads(8, 0.3) == Threads(batch=8, decode=8)
    assert model_threads(4, None) == Threads(batch=4, decode=4)  # unknown: as idle


def test_busy_cores_leave_writing_the_free_ones_and_reading_one_more_thread_each():
    assert model_threads(2, 1.0) == Threads(batch=3, decode=1)
    assert model_threads(2, 2.2) == Threads(batch=4, decode=1)
    assert model_threads(8, 3.0) == Threads(batch=11, decode=5)
    # more busy than there are cores: at most a thread per core more, never fewer than one
    assert model_threads(2, 6.0) == Threads(batch=4, decode=1)


def test_physical_cores_count_smt_siblings_once():
    cores = physical_cores()
    assert 1 <= cores <= len(cpu.usable_cpus())


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_the_meter_sees_another_process_keep_a_core_busy_and_not_its_own_work():
    meter = CpuMeter()
    if cpu._sample() is None:  # not Linux: nothing to read, and nothing is guessed
        assert meter.busy_elsewhere() is None
        return
    other = multiprocessing.get_context("spawn").Process(target=_spin, args=(3.0,))
    other.start()
    try:
        time.sleep(0.5)
        meter.mark()
        time.sleep(0.5)
        busy = meter.busy_elsewhere()
    finally:
        other.join()
    assert busy is not None and busy >= 0.5  # the other process: about one core
    meter.mark()
    _spin(0.5)  # this process's own work is not "elsewhere"
    own = meter.busy_elsewhere()
    assert own is not None and own < busy


def test_a_background_fill_waits_while_another_process_writes_an_answer(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys
    import threading

    monkeypatch.setattr(cpu, "_answering_dir", lambda: tmp_path)
    monkeypatch.setattr(cpu, "POLL_S", 0.01)
    assert not cpu.answering_elsewhere()
    with cpu.answering():  # this process's own answer is not "elsewhere"
        assert (tmp_path / str(os.getpid())).exists() and not cpu.answering_elsewhere()
    assert not (tmp_path / str(os.getpid())).exists()
    # another live process writing an answer: a fill waits until it is done
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / str(other.pid)).touch()
        assert cpu.answering_elsewhere()
        done = threading.Timer(0.3, lambda: (tmp_path / str(other.pid)).unlink())
        done.start()
        cpu.wait_for_answers()
        assert not (tmp_path / str(other.pid)).exists()  # it waited until the answer was done
        # one that died while answering leaves a marker nobody waits for
        (tmp_path / str(other.pid)).touch()
    finally:
        other.kill()
        other.wait()
    assert not cpu.answering_elsewhere() and not (tmp_path / str(other.pid)).exists()
