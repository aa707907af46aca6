"""The stop switch llama.cpp reads between compute steps (no model needed)."""

from __future__ import annotations

import ctypes
import threading
import time

from groundls.answer.model.abort import AbortSwitch, _libc_atoi


def native_answer(switch: AbortSwitch) -> int:
    """What llama.cpp's call of the installed C callback returns right now."""
    atoi = _libc_atoi()
    assert atoi is not None
    atoi.restype = ctypes.c_int
    return int(atoi(ctypes.cast(switch._flag, ctypes.c_void_p)))


def test_the_switch_turns_on_soon_after_stop_says_so_and_off_after_the_block():
    switch = AbortSwitch()
    switch.native = True
    stop = threading.Event()
    with switch.watching(stop.is_set):
        assert native_answer(switch) == 0
        stop.set()
        deadline = time.monotonic() + 5
        while native_answer(switch) == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert native_answer(switch) == 1
    assert native_answer(switch) == 0  # generation after the prompt is never aborted


def test_the_switch_stays_off_while_stop_is_false():
    switch = AbortSwitch()
    switch.native = True
    with switch.watching(lambda: False):
        time.sleep(AbortSwitch.POLL_S * 3)
        assert native_answer(switch) == 0
