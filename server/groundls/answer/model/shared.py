"""One loaded answer model per process, shared by every workspace that asks for it."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from groundls.answer.model.model_files import ModelSpec
from groundls.answer.model.runtime import LocalLLM

_SHARED: dict[tuple[str, str, int], tuple[LocalLLM, int]] = {}
_SHARED_LOCK = threading.Lock()


def acquire_shared(
    spec: ModelSpec, *, n_ctx: int, idle_unload_s: float, adapt_threads: bool = True
) -> LocalLLM:
    """One loaded model per process for the same file and context size (multi-root workspaces
    each get an AnswerService; they share the model). Pair with :func:`release_shared`."""
    key = (spec.source, str(spec.path or ""), n_ctx)
    with _SHARED_LOCK:
        entry = _SHARED.get(key)
        if entry is None or entry[0]._closed:
            model = LocalLLM(
                spec, n_ctx=n_ctx, idle_unload_s=idle_unload_s, adapt_threads=adapt_threads
            )
            _SHARED[key] = (model, 1)
            return model
        model, refs = entry
        model.adapt_threads = adapt_threads  # the latest settings hold for every workspace
        _SHARED[key] = (model, refs + 1)
        return model


def generating() -> bool:
    """Whether a shared model is generating right now (background work waits for it: prompt
    reading needs both cores)."""
    with _SHARED_LOCK:
        models = [m for m, _ in _SHARED.values()]
    return any(m.busy for m in models)


def release_shared(model: LocalLLM) -> None:
    """Drop one reference; the last one closes (unloads) the model."""
    with _SHARED_LOCK:
        for key, (m, refs) in list(_SHARED.items()):
            if m is model:
                if refs <= 1:
                    del _SHARED[key]
                    break
                _SHARED[key] = (m, refs - 1)
                return
    model.close()


def load_early(model: Any) -> threading.Thread | None:
    """Start loading the model while the search runs, when it is not loaded yet (the first
    question of a process or after the idle unload would otherwise wait for the load, one
    to two seconds on 2 cores, after the search). A failed load is reported by the answer
    itself, which tries again. The thread is not a daemon: a process that exits at once
    (a "not found" answer needs no model) waits for the load instead of cutting it off, and
    the answer itself does not wait for it."""
    if model is None or getattr(model, "loaded", True) or not hasattr(model, "load"):
        return None

    def load() -> None:
        with contextlib.suppress(Exception):
            model.load()

    thread = threading.Thread(target=load, name="groundls-model-load", daemon=False)
    thread.start()
    return thread
