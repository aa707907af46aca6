"""The CPU as it is now: the physical cores this process may use, and how many of them other
processes keep busy.

A laptop is never idle. llama.cpp splits each step's work evenly across its threads and waits
for the slowest, so a thread that loses its core to another process stalls the others: on two
cores beside one busy process, two threads generate at a third of one thread's speed
(BENCHMARKS.md). :func:`model_threads` picks the threads of one answer from what the CPU did
while its question was searched.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from groundls.cache import cache_dir

#: The shortest look at the CPU that says how busy it is (the scheduler's tick is 4-10 ms).
MIN_WINDOW_S = 0.05
#: A mark older than this says nothing about now.
STALE_S = 10.0

_SYS = Path("/sys/devices/system/cpu")
_STAT = Path("/proc/stat")


def usable_cpus() -> list[int]:
    """The logical CPUs this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


@functools.cache
def physical_cores() -> int:
    """The physical cores among the usable CPUs (two SMT siblings are one core); the logical
    count where the topology cannot be read."""
    cpus = usable_cpus()
    cores = set()
    for cpu in cpus:
        topology = _SYS / f"cpu{cpu}" / "topology"
        try:
            package = (topology / "physical_package_id").read_text().strip()
            core = (topology / "core_id").read_text().strip()
        except OSError:
            return len(cpus)
        cores.add((package, core))
    return max(1, len(cores))


def _busy_jiffies() -> tuple[float, float] | None:
    """(busy, total) seconds of CPU time of the whole machine since boot (None off Linux)."""
    try:
        first = _STAT.read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    if not first or first[0] != "cpu":
        return None
    ticks = [int(v) for v in first[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def _own_cpu_s() -> float:
    times = os.times()
    return times.user + times.system


@dataclass(frozen=True)
class Sample:
    wall: float
    busy: float
    own: float


def _sample() -> Sample | None:
    machine = _busy_jiffies()
    if machine is None:
        return None
    return Sample(time.monotonic(), machine[0], _own_cpu_s())


class CpuMeter:
    """How many cores other processes kept busy since a mark (the question's arrival)."""

    def __init__(self) -> None:
        self._mark: Sample | None = None
        self._lock = threading.Lock()

    def mark(self) -> None:
        """Start a look at the CPU (a question arrived; its search runs meanwhile)."""
        with self._lock:
            self._mark = _sample()

    def busy_elsewhere(self) -> float | None:
        """Cores kept busy by other processes since the mark (this process's own CPU time left
        out), looking at least ``MIN_WINDOW_S``; None where the machine's CPU time cannot be
        read."""
        with self._lock:
            start = self._mark
        now = time.monotonic()
        if start is None or now - start.wall > STALE_S:
            start = _sample()
            if start is None:
                return None
        left = MIN_WINDOW_S - (time.monotonic() - start.wall)
        if left > 0:
            time.sleep(left)
        end = _sample()
        if end is None:
            return None
        wall = end.wall - start.wall
        others = (end.busy - start.busy) - (end.own - start.own)
        return max(0.0, others / wall) if wall > 0 else None

    def free_cores(self) -> int | None:
        """Physical cores other processes left free since the last call (each call starts the
        next look); None where the CPU time cannot be read. For background work that runs in
        slices: the previous slice is the window."""
        busy = self.busy_elsewhere()
        self.mark()
        return None if busy is None else max(0, physical_cores() - round(busy))


#: The process's meter: the answer service marks it when a question arrives.
METER = CpuMeter()


@dataclass(frozen=True)
class Threads:
    """The threads of one answer: reading the prompt (a batch) and writing (one token a step)."""

    batch: int
    decode: int


def model_threads(cores: int, busy_elsewhere: float | None) -> Threads:
    """Threads for the answer model on ``cores`` physical cores with ``busy_elsewhere`` of them
    taken by other processes.

    Writing moves one token a step, so its threads wait for each other at every layer: it gets
    the free cores only (at least one). Reading the prompt is a batch of hundreds of tokens per
    step, and the scheduler shares a core among the threads that want it: one more thread for
    each busy core keeps the prompt's share of the machine near a fair one."""
    taken = round(busy_elsewhere or 0.0)
    taken = min(max(taken, 0), cores)
    return Threads(batch=cores + taken, decode=max(1, cores - taken))


# -- answers come first across processes ---------------------------------------------------------

#: How long a background fill waits for another process's answer at most, in one go.
LONGEST_WAIT_S = 120.0
#: How often it looks again.
POLL_S = 0.2


def _answering_dir() -> Path:
    return cache_dir() / "answering"


@contextlib.contextmanager
def answering() -> Iterator[None]:
    """Mark this process as writing an answer while the block runs: background work in every
    groundls process on this machine (a CLI ``index --deep``, another editor's deep tier) waits
    for it (see :func:`wait_for_answers`)."""
    marker = _answering_dir() / str(os.getpid())
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        marker = None  # type: ignore[assignment]  # a read-only cache: nobody waits, as before
    try:
        yield
    finally:
        if marker is not None:
            with contextlib.suppress(OSError):
                marker.unlink()


def answering_elsewhere() -> bool:
    """Whether another live groundls process is writing an answer now (a marker left by one
    that died is removed)."""
    try:
        markers = list(_answering_dir().iterdir())
    except OSError:
        return False
    for marker in markers:
        if not marker.name.isdigit() or int(marker.name) == os.getpid():
            continue
        if _alive(int(marker.name)):
            return True
        with contextlib.suppress(OSError):
            marker.unlink()
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


def wait_for_answers(cancel: threading.Event | None = None) -> float:
    """Wait while another groundls process writes an answer (at most ``LONGEST_WAIT_S``, or
    until ``cancel``); returns the seconds waited."""
    started = time.monotonic()
    while answering_elsewhere() and time.monotonic() - started < LONGEST_WAIT_S:
        if cancel is not None and cancel.wait(POLL_S):
            break
        if cancel is None:
            time.sleep(POLL_S)
    return time.monotonic() - started
