"""What this process holds in memory, and which of its models are loaded (``status``)."""

from __future__ import annotations

import contextlib
import ctypes
import gc
from pathlib import Path

_STATUS = Path("/proc/self/status")
_ROLLUP = Path("/proc/self/smaps_rollup")


def _kib(path: Path, fields: tuple[str, ...]) -> int | None:
    """The sum of ``fields`` (kB lines) of a /proc file; None where it cannot be read."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    total, seen = 0, False
    for line in lines:
        name, _, value = line.partition(":")
        if name in fields:
            total += int(value.split()[0])
            seen = True
    return total if seen else None


def process_memory() -> dict[str, float | None]:
    """Resident and private memory of this process in MB (None off Linux): resident counts the
    shared model files mapped in; private is what this process alone holds."""
    resident = _kib(_STATUS, ("VmRSS",))
    private = _kib(_ROLLUP, ("Private_Clean", "Private_Dirty"))
    return {
        "resident_mb": None if resident is None else round(resident / 1024, 1),
        "private_mb": None if private is None else round(private / 1024, 1),
    }


def give_back_memory() -> None:
    """Collect what a released model left and hand the C heap's free pages back to the system
    (glibc keeps them otherwise)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc
        ctypes.CDLL("libc.so.6").malloc_trim(0)
