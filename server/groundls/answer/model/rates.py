"""Prompt-reading speeds measured on this machine, kept in the user cache by model and build:
the next answer sizes its excerpts by them before it has read anything."""

from __future__ import annotations

import contextlib
import json

from groundls.answer.model.model_files import write_atomic
from groundls.cache import models_dir


def known_rates() -> dict[str, float]:
    """Prompt-reading speeds measured earlier on this machine, by model and build."""
    with contextlib.suppress(OSError, ValueError):
        data = json.loads((models_dir() / "prefill_rates.json").read_text())
        if isinstance(data, dict):
            return {k: float(v) for k, v in data.items() if isinstance(v, (int, float))}
    return {}


def remember_rate(key: str, rate: float) -> None:
    rates = known_rates()
    rates[key] = round(rate, 2)
    write_atomic(models_dir() / "prefill_rates.json", json.dumps(rates, indent=1).encode())
