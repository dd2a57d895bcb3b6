"""The C-heap rules of the analyzer run loop (gpulens.analyzers._heap): trimming only for a large process, glibc's
defaults back after the run, and no effect on what is computed."""

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

    def mallopt(self, param, value):
        self.calls.append(("mallopt", param, value))
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
    assert _heap.return_free_memory() is False  # 500 MiB < 1 GiB: free pages are kept for reuse
    assert fake.calls == []
    assert _heap.return_free_memory(above=500 << 20) is True  # at the threshold: trimmed
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 1 << 30)
    assert _heap.return_free_memory() is True
    monkeypatch.setattr(_heap, "resident_bytes", lambda: None)  # size unknown: trim (the old behaviour)
    assert _heap.return_free_memory() is True
    assert fake.calls == [("trim", 0)] * 3


def test_keep_freed_memory_restores_glibc_defaults(fake):
    restore = _heap.keep_freed_memory()
    # glibc <malloc.h>: M_MMAP_MAX = -4, M_TRIM_THRESHOLD = -1; mallopt(3): defaults 65536 and 128 KiB
    assert fake.calls == [("mallopt", -4, 0), ("mallopt", -1, 2**31 - 1)]
    restore()
    assert fake.calls[2:] == [("mallopt", -4, 65536), ("mallopt", -1, 128 * 1024)]


def test_no_glibc_means_no_calls(monkeypatch):
    monkeypatch.setattr(_heap, "_LIBC", [None])
    assert _heap.return_free_memory(above=0) is False
    _heap.keep_freed_memory()()  # a no-op pair, no error


def test_run_all_restores_the_defaults_even_when_an_analyzer_fails(fake, monkeypatch):
    from gpulens.analyzers import base, run_all

    class Boom:
        order, name = -1, "boom"

        def analyze(self, *a):
            raise RuntimeError("boom")

    base.registry()  # every real analyzer registered first
    monkeypatch.setitem(base._REGISTRY, "boom", Boom)
    monkeypatch.setattr(_heap, "resident_bytes", lambda: 0)  # a small process: no trim calls in between
    with pytest.raises(RuntimeError, match="boom"):
        run_all(object(), None, only=["boom"])
    assert fake.calls == [("mallopt", -4, 0), ("mallopt", -1, 2**31 - 1),
                          ("mallopt", -4, 65536), ("mallopt", -1, 128 * 1024)]
