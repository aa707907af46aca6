"""Which CPU buffers llama.cpp loads the model with, chosen once per machine by timing.

llama-cpp-python compiles llama.cpp with -march=native. On a VM whose CPU advertises AMX but
does not let guests use it, the AMX matrix kernels (an "extra buffer type") die with SIGILL on
the first prompt batch — the whole process is killed, no exception. So before the first load on
a machine, a child process evaluates a short batch; if it dies, models load with extra buffer
types disabled (slower prompt reading, but it works). The verdict is remembered per machine and
llama.cpp build.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from groundls.answer.model.model_files import write_atomic
from groundls.cache import models_dir

#: The machine's llama.cpp kernel timings, measured at install (``prepare``), kept per machine.
PROBE_FILE = "cpu_probe.json"

log = logging.getLogger("groundls.answer")

#: Prompt tokens per llama.cpp compute batch: small batches read slowly (each streams all weights),
#: from 64 up the speed is flat.
UBATCH = 128

#: A child process loads the model with (argv 2 = "1") or without llama.cpp's extra CPU buffer
#: types and prints how fast it reads a prompt and writes tokens; the kernels of the extra types
#: can die with SIGILL (AMX advertised to a VM guest that may not use it).
_PROBE = """
import json, sys, time
import llama_cpp.llama_cpp as capi
from llama_cpp import Llama
if sys.argv[2] != "1":
    original = capi.llama_model_default_params
    def patched():
        params = original()
        params.use_extra_bufts = False
        return params
    capi.llama_model_default_params = patched
threads = int(sys.argv[3])
llm = Llama(model_path=sys.argv[1], n_ctx=512, n_threads=threads, n_threads_batch=threads,
            n_batch=512, n_ubatch=int(sys.argv[4]), verbose=False)
prompt = llm.tokenize(b"def retry_upload(path): return send(path) # probe " * 30)[:256]
t = time.perf_counter()
llm.eval(prompt)
prefill = len(prompt) / (time.perf_counter() - t)
t = time.perf_counter()
for _ in range(16):
    llm.eval(prompt[-1:])
decode = 16 / (time.perf_counter() - t)
print(json.dumps({"prefill": prefill, "decode": decode}))
"""
#: What the choice of buffers is timed on: a typical answer, its prompt and what it writes.
TYPICAL_PROMPT_TOKENS = 900
TYPICAL_ANSWER_TOKENS = 120
#: Machines and llama.cpp builds whose timing is kept in the record.
PROBES_KEPT = 4
_PARAMS_LOCK = threading.Lock()


def library_stamp(lib: Path) -> str:
    """llama.cpp's CPU library by its bytes, not its file times: the same build installed again
    (a new virtualenv, a clean clone's install from pip's cached wheel) is the same build. (By
    size and time, every clean clone's install was a new build, and the newest few pushed the
    user's own install out of the record: it was timed again, at whatever moment.)"""
    digest = hashlib.sha256()
    for path in sorted({p.resolve() for p in lib.glob("libggml-cpu*")}) if lib.is_dir() else []:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.cache
def machine_key() -> str:
    """This machine and llama.cpp build (the same for the whole process: hashed once)."""
    import platform

    import llama_cpp

    stamp = library_stamp(Path(llama_cpp.__file__).parent / "lib")
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                cpu = hashlib.sha256(line.encode()).hexdigest()[:16]
                break
    return f"{llama_cpp.__version__}|{platform.machine()}|{cpu}|{stamp}"


def use_extra_buffers(model_path: Path) -> bool:
    """Whether to load with llama.cpp's extra CPU buffer types (weight repacking, AMX): only
    when they run on this machine and make a typical answer quicker. Measured once per machine
    and llama.cpp build, in child processes (install_llm.sh does it at install): on a Zen 5 they
    wrote tokens a third faster but read prompts a third slower; where they crash, never."""
    import subprocess
    import sys

    if os.environ.get("GROUNDLS_LLM_EXTRA_BUFFERS") in ("0", "1"):
        return os.environ["GROUNDLS_LLM_EXTRA_BUFFERS"] == "1"
    try:
        key = machine_key() + "|timed"
    except Exception:  # noqa: BLE001 - no key, no probe: use the safe setting
        return False
    record_path = models_dir() / PROBE_FILE
    record: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        record = json.loads(record_path.read_text())
    if isinstance(record.get(key), dict):
        return bool(record[key].get("extra"))

    def timed(extra: bool) -> dict[str, float] | None:
        threads = str(os.cpu_count() or 2)
        command = [sys.executable, "-c", _PROBE, str(model_path), str(int(extra)), threads]
        try:
            proc = subprocess.run([*command, str(UBATCH)], capture_output=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if proc.returncode != 0:
            return None
        with contextlib.suppress(ValueError, IndexError):
            speeds = json.loads(proc.stdout.decode().strip().splitlines()[-1])
            if speeds.get("prefill", 0) > 0 and speeds.get("decode", 0) > 0:
                return speeds
        return None

    # each setting twice, alternating, keeping its better speeds: a burst of other work during
    # one run should not decide (a probe run beside a test suite once chose the slower setting)
    with_extra = timed(True)
    without = timed(False) if with_extra is not None else None
    if with_extra is not None and without is not None:
        with_extra = _better(with_extra, timed(True))
        without = _better(without, timed(False))
    if with_extra is None:
        log.warning("llama.cpp's optimised CPU kernels crash on this machine; loading without them")
    extra = with_extra is not None and (
        without is None or _answer_seconds(with_extra) < _answer_seconds(without)
    )
    # a rebuilt llama.cpp is a new key: keep the newest few timings, not every build's
    kept = [k for k, v in record.items() if isinstance(v, dict) and k != key][-(PROBES_KEPT - 1) :]
    record = {k: record[k] for k in kept}
    record[key] = {"extra": extra, "with": with_extra, "without": without}
    write_atomic(record_path, json.dumps(record, indent=1).encode())
    return extra


def _better(first: dict[str, float], second: dict[str, float] | None) -> dict[str, float]:
    """Each speed at the better of two runs of one setting."""
    if second is None:
        return first
    return {k: max(first[k], second.get(k, 0.0)) for k in first}


def _answer_seconds(speeds: dict[str, float]) -> float:
    """Seconds a typical answer takes at these speeds (reading its prompt, writing it)."""
    return TYPICAL_PROMPT_TOKENS / speeds["prefill"] + TYPICAL_ANSWER_TOKENS / speeds["decode"]


@contextlib.contextmanager
def model_params(*, use_extra_bufts: bool) -> Iterator[None]:
    """Make Llama() build its model params with ``use_extra_bufts`` (it has no argument for it)."""
    import llama_cpp.llama_cpp as capi

    if use_extra_bufts:
        yield
        return
    with _PARAMS_LOCK:
        original = capi.llama_model_default_params

        def patched() -> Any:
            params = original()
            params.use_extra_bufts = False
            return params

        capi.llama_model_default_params = patched
        try:
            yield
        finally:
            capi.llama_model_default_params = original
