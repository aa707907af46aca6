"""Stopping llama.cpp mid-computation: a switch it reads between compute steps without Python's lock, and whether a model is busy now."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any


def held(lock: threading.Lock) -> bool:
    """Whether another thread holds ``lock`` now (a model busy generating), without waiting."""
    if not lock.acquire(blocking=False):
        return True
    lock.release()
    return False


class AbortSwitch:
    """A stop switch llama.cpp reads between compute steps without taking Python's GIL.

    ggml asks its abort callback before every graph node, hundreds of times per batch. A Python
    callback takes the GIL each time, and while another thread of the process runs Python (the
    language server re-indexing a saved file) every call waits for it: prompt reading fell from
    14 to 9 tok/s with one busy thread (BENCHMARKS.md, fifth session). The callback is therefore
    C's ``atoi`` over a two-byte flag (``"0"``/``"1"``), which only reads memory; a watcher
    thread turns it on when ``stop()`` says so, checked every ``POLL_S``. Where libc cannot be
    found, a Python callback does the same check directly."""

    POLL_S = 0.02

    def __init__(self) -> None:
        import ctypes

        self._flag = ctypes.create_string_buffer(b"0", 2)
        self._callback: Any = None
        self._stop: Callable[[], bool] | None = None
        self.native = False

    def install(self, llm: Any) -> None:
        import ctypes

        import llama_cpp

        atoi = _libc_atoi()
        if atoi is not None:
            self._callback = ctypes.cast(atoi, llama_cpp.ggml_abort_callback)
            data = ctypes.cast(self._flag, ctypes.c_void_p)
            self.native = True
        else:

            def check(_data: Any) -> bool:
                stop = self._stop
                return bool(stop is not None and stop())

            self._callback = llama_cpp.ggml_abort_callback(check)  # kept: llama.cpp holds it
            data = None
        llama_cpp.llama_set_abort_callback(llm._ctx.ctx, self._callback, data)

    @contextlib.contextmanager
    def watching(self, stop: Callable[[], bool]) -> Iterator[None]:
        """While the block runs, llama.cpp stops computing soon after ``stop()`` is true."""
        self._flag.value = b"0"
        self._stop = stop
        done = threading.Event()
        watcher = None
        if self.native:

            def watch() -> None:
                while not done.wait(self.POLL_S):
                    if stop():
                        self._flag.value = b"1"
                        return

            watcher = threading.Thread(target=watch, name="groundls-abort", daemon=True)
            watcher.start()
        try:
            yield
        finally:
            done.set()
            if watcher is not None:
                watcher.join()
            self._stop = None
            self._flag.value = b"0"


def _libc_atoi() -> Any:
    """C's ``atoi`` (``int atoi(const char *)``: 0 or 1 for the flag, returned where a ``bool``
    is read), or None."""
    import ctypes
    import ctypes.util

    for name in (None, ctypes.util.find_library("c"), "msvcrt"):
        try:
            return ctypes.CDLL(name).atoi
        except (OSError, AttributeError, TypeError):
            continue
    return None
