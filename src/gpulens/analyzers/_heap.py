"""The C heap while the analyzers run: keep freed memory for reuse, hand it back only when the process is large.

glibc only; every function here is a no-op elsewhere (macOS, musl, Windows) and never changes a computed value.

Why: the analyzers allocate and free many arrays of millions of rows. glibc serves allocations above its mmap
threshold (dynamic, at most 32 MiB) with fresh ``mmap`` pages and unmaps them on ``free``; the next such array faults
its pages in again. ``malloc_trim`` between analyzers (to keep the peak of a 1M-kernel run under 2 GB) does the same
to the free pages inside the heap. On virtual machines a page fault is expensive (15–25 µs on the Firecracker VMs
this was measured on), and system time was half of the analyzers' CPU at 1M kernels (13 of 26 s).

What :func:`run_all <gpulens.analyzers.run_all>` does instead (measured on the benchmark's traces, load average ~7):

* :func:`keep_freed_memory` while the analyzers run: ``M_MMAP_MAX = 0`` (every allocation from the heap, freed
  blocks reused without new faults) and no automatic trimming; the defaults come back afterwards.
* :func:`return_free_memory` between analyzers: ``malloc_trim(0)`` only while the resident size is at least
  :data:`TRIM_ABOVE_BYTES`. Below it a process is far from any limit worth the faults: 8 rank files × 25k kernels
  (~500 MB resident) spent 1.1 s of system time out of 5 s of analysis trimming, with no change to its peak.

1M kernels, analyzers only: 25.7 s CPU (13.0 s system), peak 1,800 MiB with a trim after every analyzer;
24.6 s, peak 1,803 MiB with both rules above; never trimming would be 18.6 s at 1,902 MiB (over 2 GB with the rest
of the command).

Setting ``M_MMAP_MAX`` or ``M_TRIM_THRESHOLD`` turns glibc's dynamic mmap threshold off for the rest of the process
(mallopt(3)): the mmap threshold stays where it was; the values restored are glibc's defaults.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

#: :func:`return_free_memory` trims only while the process's resident size is at least this many bytes. 1 GiB: a
#: 1M-kernel analysis (the largest run held to 2 GB) is above it throughout and keeps its peak; a 1.4 GiB threshold
#: saved it ~4 s of CPU but raised the whole command's peak to 1,879 MiB, too near 2 GB.
TRIM_ABOVE_BYTES = 1 << 30

_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # glibc <malloc.h>
_DEFAULT_TRIM, _DEFAULT_MMAP_MAX = 128 * 1024, 65536  # glibc's defaults (mallopt(3))
_LIBC: list = []


def _libc() -> Any:
    """glibc, or None where the C library is another one (no ``malloc_trim``/``mallopt``)."""
    if not _LIBC:
        lib = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                lib = ctypes.CDLL("libc.so.6")
                lib.malloc_trim.argtypes, lib.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
                lib.mallopt.argtypes, lib.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
            except (OSError, AttributeError):
                lib = None
        _LIBC.append(lib)
    return _LIBC[0]


def resident_bytes() -> int | None:
    """The process's resident set size in bytes now (``/proc/self/statm``; None where there is no such file)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    import resource

    return pages * resource.getpagesize()


def return_free_memory(above: int | None = None) -> bool:
    """``malloc_trim(0)`` (the heap's free pages back to the OS) when the resident size is at least ``above`` bytes
    (default :data:`TRIM_ABOVE_BYTES`) or unknown; returns whether it trimmed."""
    lib = _libc()
    if lib is None:
        return False
    rss = resident_bytes()
    if rss is not None and rss < (TRIM_ABOVE_BYTES if above is None else above):
        return False
    lib.malloc_trim(0)
    return True


def keep_freed_memory() -> Callable[[], None]:
    """Serve every allocation from the heap and stop automatic trimming (see the module docstring); returns the
    function that restores glibc's defaults. A no-op pair where the C library is not glibc."""
    lib = _libc()
    if lib is None or not lib.mallopt(_M_MMAP_MAX, 0):
        return lambda: None
    lib.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)

    def restore() -> None:
        lib.mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
        lib.mallopt(_M_TRIM_THRESHOLD, _DEFAULT_TRIM)

    return restore
