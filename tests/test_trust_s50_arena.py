"""The command line's C heap policy puts every thread's blocks in glibc's main arena (session 50, issue 16).

glibc gives a thread that allocates an arena of its own (up to 8 per core by default): the blocks freed there serve
only the threads using it, so a large array the read-ahead scanner or the rank-file preloader allocated and the main
thread freed could not serve the main thread's next array, which was faulted in afresh. ``mallopt(M_ARENA_MAX, 1)``
(:func:`gpulens._memory.keep_freed_memory`) keeps one arena. Checked on the real glibc through its own report,
``malloc_stats()``, which prints one ``Arena N:`` block per arena on standard error.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_stats (Linux)")

_CODE = """
import ctypes, sys, threading
from gpulens import _memory
lib = _memory.libc()
if lib is None or not hasattr(lib, "malloc_stats"):
    print("NO-GLIBC"); sys.exit(0)
if sys.argv[1] == "keep":
    assert _memory.keep_freed_memory()
held = []
def work():
    held.append(bytearray(1 << 20))  # a 1 MiB block allocated by a second thread
t = threading.Thread(target=work)
t.start(); t.join()
sys.stderr.flush()
lib.malloc_stats()
"""


def _arenas(mode: str) -> int | None:
    out = subprocess.run([sys.executable, "-c", _CODE, mode], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    if "NO-GLIBC" in out.stdout:
        return None
    return sum(1 for line in out.stderr.splitlines() if line.startswith("Arena "))


@linux_only
def test_a_second_thread_allocates_in_the_main_arena_once_keeping():
    plain = _arenas("plain")
    if plain is None:
        pytest.skip("not glibc")
    # glibc's default: the second thread's first allocation made it an arena of its own (main + 1)
    assert plain == 2
    # keeping (the command line): one arena for every thread
    assert _arenas("keep") == 1


def test_the_arena_limit_is_asked_only_after_the_two_keeping_settings_took(monkeypatch):
    from gpulens import _memory

    monkeypatch.setitem(_memory._STATE, "keeping", False)
    calls: list[tuple[int, int]] = []

    def refuses_the_trim(param: int, value: int) -> int:  # glibc answers 0 for a setting it refuses
        calls.append((param, value))
        return 0 if param == -1 else 1

    assert _memory.keep_freed_memory(refuses_the_trim) is False
    assert calls == [(-4, 0), (-1, 2**31 - 1)]  # no M_ARENA_MAX (-8) when the policy is off
    assert _memory.keeping_freed_memory() is False
