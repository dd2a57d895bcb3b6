"""The C-heap rule of the analyzer run loop (gpulens.analyzers._heap): free pages are handed back between analyzers
only by a large process."""

from __future__ import annotations

import sys

import pytest

from gpulens.analyzers import _heap

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc and /proc only on Linux")


class _FakeLibc:
    def __init__(self):
        self.calls: list[tuple] = []

    def malloc_trim(self, pad):
        self.calls.append(("trim", pad))
        return 1


@pytest.fixture
def fake(monkeypatch):
    lib = _FakeLibc()
    monkeypatch.setattr(_heap, "_LIBC", [lib])
    return lib


@linux_only
def test_resident_bytes_reads_this_process():
    # independent source: the RSS field ("VmRSS", kB) of /proc/self/status, read a moment apart
    with open("/proc/self/status") as fh:
        vmrss_kb = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
    got = _heap.resident_bytes()
    assert got is not None and abs(got / 1024 - vmrss_kb) < 16 * 1024  # within 16 MB of each other


def test_trims_only_at_or_above_the_threshold(fake, monkeypatch):
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 500 << 20)
    assert _heap.return_free_memory() is False  # 500 MiB < 1.75 GiB: free pages are kept for reuse
    assert fake.calls == []
    assert _heap.return_free_memory(above=500 << 20) is True  # at the threshold: trimmed
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 1 << 30)  # 1 GiB: below 1.75 GiB, kept
    assert _heap.return_free_memory() is False
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 2 << 30)  # 2 GiB: near the 2 GB budget, trimmed
    assert _heap.return_free_memory() is True
    monkeypatch.setattr(_heap, "resident_bytes", lambda: None)  # size unknown: trim (the old behaviour)
    assert _heap.return_free_memory() is True
    assert fake.calls == [("trim", 0)] * 3


def test_no_glibc_means_no_calls(monkeypatch):
    monkeypatch.setattr(_heap, "_LIBC", [None])
    assert _heap.return_free_memory(above=0) is False


def test_run_all_trims_only_in_a_large_process(fake, monkeypatch):
    from gpulens.analyzers import base, run_all

    ran = []

    class Probe:
        order, name = -1, "probe"

        def analyze(self, *a):
            ran.append(list(fake.calls))
            return None

    base.registry()  # every real analyzer registered first
    monkeypatch.setitem(base._REGISTRY, "probe", Probe)
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 300 << 20)  # 300 MiB: nothing handed back
    from gpulens.timeline import Timeline

    tl = Timeline()  # an empty Timeline: run_all's own steps after the analyzers read its (empty) events
    run_all(tl, None, only=["probe"])
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 3 << 30)  # 3 GiB: trimmed before the analyzer
    run_all(tl, None, only=["probe"])
    assert ran == [[], [("trim", 0)]]


def test_threshold_grows_with_the_timeline(fake, monkeypatch):
    """A Timeline larger than the 1M-kernel one (3,000,010 rows: BUDGET_ROWS) is held to a budget that grows with it
    (2 GB at 1M kernels, 10 GB at 5M): the trim threshold scales alike — 1.75 GiB × rows / BUDGET_ROWS."""
    assert _heap.trim_threshold(0) == _heap.trim_threshold(_heap.BUDGET_ROWS) == 7 << 28  # 1.75 GiB
    assert _heap.trim_threshold(5 * _heap.BUDGET_ROWS) == 5 * (7 << 28)  # 5M kernels: 8.75 GiB
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 4 << 30)  # 4 GiB resident
    assert _heap.return_free_memory(rows=_heap.BUDGET_ROWS) is True  # a 1M-kernel Timeline: over 1.75 GiB, trimmed
    assert _heap.return_free_memory(rows=5 * _heap.BUDGET_ROWS) is False  # 5M: under 8.75 GiB, pages kept for reuse
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 9 << 30)
    assert _heap.return_free_memory(rows=5 * _heap.BUDGET_ROWS) is True  # near its 10 GB budget: trimmed
    assert fake.calls == [("trim", 0)] * 2


def test_run_all_passes_the_timeline_size(fake, monkeypatch):
    from gpulens.analyzers import base, run_all
    from gpulens.collectors import collect
    from tests.conftest import KINETO

    class Probe:
        order, name = -1, "probe"

        def analyze(self, *a):
            return None

    base.registry()
    monkeypatch.setitem(base._REGISTRY, "probe", Probe)
    seen = []
    monkeypatch.setattr(_heap, "return_free_memory", lambda above=None, rows=None: seen.append(rows) or False)
    tl = collect(KINETO / "tracelens_h100_bert-small.json.gz")
    run_all(tl, None, only=["probe"])
    assert seen == [len(tl.events)] and seen[0] > 2000  # the demo's 2,060 events


def _numpy_hugepage_switch():
    try:
        from numpy._core import multiarray
    except ImportError:  # numpy 1.x
        from numpy.core import multiarray
    return getattr(multiarray, "_get_madvise_hugepage", None), getattr(multiarray, "_set_madvise_hugepage", None)


@pytest.fixture
def hugepage_state():
    get, put = _numpy_hugepage_switch()
    if get is None or put is None:
        pytest.skip("this numpy has no huge-page switch")
    before = get()
    yield get, put
    put(before)


def test_small_pages_turns_numpys_hugepage_advice_off(hugepage_state, monkeypatch):
    get, put = hugepage_state
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    put(True)
    assert _heap.use_small_pages() is True
    assert get() is False


def test_small_pages_leaves_the_users_numpy_choice(hugepage_state, monkeypatch):
    # NUMPY_MADVISE_HUGEPAGE=1 is numpy's documented way to choose huge pages: the user's choice wins
    get, put = hugepage_state
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    put(True)
    assert _heap.use_small_pages() is False
    assert get() is True


def test_cli_uses_small_pages_except_for_profile(hugepage_state, monkeypatch):
    # `gpulens profile` runs the user's script in-process: its numpy keeps numpy's default
    from gpulens.cli import main

    get, put = hugepage_state
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    put(True)
    main(["profile", "--help"])
    assert get() is True
    main(["devices", "--help"])
    assert get() is False


def test_cli_in_a_fresh_process_sets_numpys_switch_before_numpy_is_imported():
    # a fresh interpreter: the CLI must not import numpy itself (cache hits stay light), yet numpy imported
    # afterwards (by the analysis) has huge-page advice off, through numpy's NUMPY_MADVISE_HUGEPAGE switch
    import os
    import subprocess
    import sys

    if _numpy_hugepage_switch()[0] is None:
        pytest.skip("this numpy has no huge-page switch")
    code = ("import sys; from gpulens.cli import main; main(['devices', '--help']); "
            "before = 'numpy' in sys.modules; import numpy; "
            "from numpy._core import multiarray as m; print(before, m._get_madvise_hugepage())")
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.stdout.split()[-2:] == ["False", "False"], out.stdout + out.stderr


def test_heap_trimmed_when_fragmented(monkeypatch):
    """``return_free_memory``: below the plain threshold it trims only when the process is above the fragmentation
    threshold *and* the heap holds that much free space (both thresholds set here around fixed sizes)."""
    if _heap._libc() is None:
        pytest.skip("no glibc")
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 1000)
    monkeypatch.setattr(_heap, "TRIM_ABOVE_BYTES", 2000)
    monkeypatch.setattr(_heap, "FRAGMENTED_ABOVE_BYTES", 500)
    monkeypatch.setattr(_heap, "FRAGMENTED_FREE_BYTES", 100)
    monkeypatch.setattr(_heap, "heap_free_bytes", lambda: 99)
    assert _heap.return_free_memory() is False  # 1000 B resident < 2000, free 99 B < 100
    monkeypatch.setattr(_heap, "heap_free_bytes", lambda: 100)
    assert _heap.return_free_memory() is True  # 1000 ≥ 500 resident and 100 B free
    assert _heap.return_free_memory(above=2000) is False  # an explicit threshold is the only rule
    monkeypatch.setattr(_heap, "FRAGMENTED_ABOVE_BYTES", 1001)
    assert _heap.return_free_memory() is False  # resident below the fragmentation threshold


def test_heap_free_bytes_counts_a_freed_block():
    """glibc's count of free heap bytes grows when a block in the middle of the heap is freed (a hole)."""
    import ctypes

    lib = _heap._libc()
    if lib is None or getattr(lib, "mallinfo2", None) is None:
        pytest.skip("no glibc mallinfo2")
    lib.malloc.restype, lib.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    lib.free.argtypes = [ctypes.c_void_p]
    # 64 KiB blocks: below the mmap threshold (128 KiB at start), so they come from the heap
    blocks = [lib.malloc(64 << 10) for _ in range(3)]
    before = _heap.heap_free_bytes()
    lib.free(blocks[1])  # the middle block: a hole that cannot be given back by shrinking the heap's top
    assert _heap.heap_free_bytes() >= before + (64 << 10)
    lib.free(blocks[0])
    lib.free(blocks[2])


# --- the command line keeps freed blocks in the C heap (gpulens._memory) ---------------------------------------

from gpulens import _memory  # noqa: E402


@pytest.fixture
def not_keeping(monkeypatch):
    monkeypatch.setitem(_memory._STATE, "keeping", False)  # restored after the test: the test process keeps glibc's
    return _memory._STATE


def test_keep_freed_memory_sets_glibcs_two_settings(not_keeping):
    calls = []

    def mallopt(param, value):
        calls.append((param, value))
        return 1

    assert _memory.keep_freed_memory(mallopt) is True
    # glibc <malloc.h>: M_MMAP_MAX is -4 (0: no block mapped on its own), M_TRIM_THRESHOLD is -1; mallopt's int
    # argument caps the trim threshold at 2**31 - 1; M_ARENA_MAX is -8 (1: every thread in the main arena, session 50)
    assert calls == [(-4, 0), (-1, 2**31 - 1), (-8, 1)]
    assert _memory.keeping_freed_memory() is True


def test_keep_freed_memory_refused_leaves_the_policy_off(not_keeping):
    assert _memory.keep_freed_memory(lambda param, value: 0) is False  # glibc answers 0 for a value it refuses
    assert _memory.keeping_freed_memory() is False


def test_keeping_process_trims_only_near_the_budget(fake, monkeypatch, not_keeping):
    # fragmented (1.5 GiB resident, 400 MiB free in the heap) would trim by the second rule — not when keeping
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 3 << 29)
    monkeypatch.setattr(_heap, "heap_free_bytes", lambda: 400 << 20)
    assert _heap.return_free_memory() is True
    not_keeping["keeping"] = True
    assert _heap.return_free_memory() is False
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 15 << 27)  # 1.875 GiB >= 1.75 GiB: trimmed all the same
    assert _heap.return_free_memory() is True
    assert fake.calls == [("trim", 0)] * 2


@linux_only
def test_glibc_serves_a_20_mib_block_from_the_heap_once_keeping():
    # independent check through glibc's own accounting (mallinfo2: hblkhd = bytes in mmapped blocks), in a fresh
    # process: a 20 MiB malloc is a mapping of its own by default (threshold 128 KiB at start), from the heap after,
    # and so is a 64 MiB one (beyond the largest mapping threshold glibc allows, 32 MiB: only M_MMAP_MAX = 0 does it)
    import subprocess

    code = (
        "import ctypes\n"
        "from gpulens import _memory\n"
        "from gpulens.analyzers._heap import _MallInfo2\n"
        "lib = ctypes.CDLL('libc.so.6')\n"
        "lib.mallinfo2.restype = _MallInfo2\n"
        "lib.malloc.restype, lib.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]\n"
        "lib.free.argtypes = [ctypes.c_void_p]\n"
        "def mapped_by(n):\n"
        "    before = lib.mallinfo2().hblkhd\n"
        "    p = lib.malloc(n)\n"
        "    grew = lib.mallinfo2().hblkhd - before\n"
        "    lib.free(p)\n"
        "    return grew\n"
        "a = mapped_by(20 << 20)\n"
        "ok = _memory.keep_freed_memory()\n"
        "print(a >= 20 << 20, ok, mapped_by(20 << 20), mapped_by(64 << 20))\n")
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if "AttributeError" in out.stderr and "mallinfo2" in out.stderr:
        pytest.skip("glibc without mallinfo2")
    # before: mapped; keeping: 20 MiB and 64 MiB from the heap (0 bytes mapped)
    assert out.stdout.split() == ["True", "True", "0", "0"], out.stdout + out.stderr


def test_only_the_console_script_keeps_freed_memory(not_keeping):
    import subprocess
    import sys

    from gpulens.cli import main

    main(["devices", "--help"])  # in-process (a program or a test calling main): glibc's settings are left alone
    assert _memory.keeping_freed_memory() is False
    # the console script's main() ends the process itself (cli.end_process): its atexit handlers still run
    code = ("import atexit, sys; from gpulens import _memory; from gpulens.cli import main\n"
            "atexit.register(lambda: print('KEEPING', _memory.keeping_freed_memory(), flush=True))\n"
            "sys.argv = ['gpulens', 'devices', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    expected = "True" if sys.platform.startswith("linux") else "False"
    assert out.stdout.split()[-2:] == ["KEEPING", expected], out.stdout + out.stderr


def test_kineto_collect_skips_the_trims_a_keeping_process_reuses(monkeypatch, not_keeping):
    # the trim after decoding (millions of small objects in a big trace) runs only after TRIM_AFTER_BYTES of text
    # (session 47: ~5-10 ms a file, a folder of 10,000 small rank files; set to 0 here so it runs); the one after
    # the columns are assembled is skipped when the process keeps freed memory, and so is the one after decoding a
    # large file (session 50: its pages were faulted in again at once by the join and the analyzers)
    from pathlib import Path

    from gpulens.collectors import kineto

    trace = next(iter(sorted((Path(__file__).parent / "data" / "kineto").glob("*.json"))))
    trims: list[int] = []
    monkeypatch.setattr(kineto, "release_free_memory", lambda: trims.append(1))
    monkeypatch.setattr(kineto, "TRIM_AFTER_BYTES", 0)  # the decode trim of a file of any size (a small one skips it)
    kineto.KinetoCollector().collect(trace)
    plain = len(trims)
    trims.clear()
    not_keeping["keeping"] = True
    kineto.KinetoCollector().collect(trace)
    small = len(trims)
    trims.clear()
    monkeypatch.setattr(kineto, "LARGE_FILE_BYTES", 0)  # every file large
    kineto.KinetoCollector().collect(trace)
    assert (plain, small, len(trims)) == (2, 1, 0)


@linux_only
def test_one_glibc_handle_serves_mallopt_and_the_trims():
    from gpulens.collectors import _kineto_columns

    lib = _memory.libc()
    assert lib is not None and _memory.libc() is lib  # loaded once
    assert _heap._libc() is lib  # malloc_trim / mallinfo2 of the analyzers' rule: the same handle
    _kineto_columns.release_free_memory()  # the collector's trim goes through it too
    assert _kineto_columns._TRIM is not False and _kineto_columns._TRIM.__name__ == "malloc_trim"
