"""Milliseconds since a moment, as every stage of an answer records its timing."""

from __future__ import annotations

import time


def ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 1)
