"""The answer model's threads for one generation, from what the CPU is doing now."""

from __future__ import annotations

from typing import Any

from groundls.cpu import METER, Threads, model_threads


def fit_threads(llm: Any, cores: int, current: Threads | None, adapt: bool) -> Threads:
    """Set the loaded model's threads for the next generation (``groundls.cpu.model_threads``
    from the CPU time other processes took since the question arrived; all ``cores`` when
    ``adapt`` is off) and return them. A llama.cpp context takes new counts between calls."""
    threads = model_threads(cores, METER.busy_elsewhere() if adapt else 0.0)
    if threads != current:
        import llama_cpp

        llama_cpp.llama_set_n_threads(llm._ctx.ctx, threads.decode, threads.batch)
    return threads
