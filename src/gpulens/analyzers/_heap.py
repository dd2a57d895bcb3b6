"""Handing the C heap's free pages back between analyzers only when the process is large (glibc; a no-op elsewhere).

numpy arrays of a few MB live in the C heap; once freed, their pages stay resident in holes between live blocks and
count in the process's RSS. ``malloc_trim(0)`` between analyzers (:func:`gpulens.analyzers.run_all`) hands them back.
But the next arrays allocated there fault those pages in again, and on virtual machines a page fault is expensive
(15–25 µs on the Firecracker VMs this was measured on): 8 rank files × 25k kernels (~500 MB resident) spent 1.1 s
of system time out of 5 s of analysis on trimming, for no change in its peak, and a 1M-kernel analysis faulted
twice as many pages with trimming from 1 GiB on as without, at the same peak (its peak is reached inside one
analyzer, not carried over from the previous one). So :func:`return_free_memory` trims only once the resident size
is near the 2 GB budget (:data:`TRIM_ABOVE_BYTES`); the values computed are unaffected either way.

The command line goes further (:mod:`gpulens._memory`): every block comes from the heap and free space at its top
is kept, so the next arrays reuse pages already faulted in; :func:`return_free_memory` then trims only near the
budget (the fragmentation rule is off). At 1M kernels: 0.38M page faults instead of 0.83–0.90M, 1.2–1.5 s less system
time, a peak 25–50 MiB higher; at 5M kernels 2.6× fewer faults and 23 % less CPU (nineteenth session). An earlier
try of ``M_MMAP_MAX = 0`` that kept the trims between analyzers raised the 1M peak from 1,801 to 1,868 MiB for less
of a gain.

Transparent huge pages (:func:`use_small_pages`): numpy asks the kernel for 2 MiB pages (``madvise(MADV_HUGEPAGE)``)
for every array of at least 4 MiB. With the kernel's ``defrag`` setting at its default ``madvise``, each fault in such
an array allocates and zeroes a whole huge page, compacting memory first when none is free. On the 2-core VMs gpulens
is benchmarked on, huge-page faults cost most of the system time of ``gpulens analyze`` on a 1M-kernel trace (load
5.6 s, analyzers 7.3 s of ~54 s CPU, quiet machine); with 4 KiB pages the same run faults more often but spends far
less system time (on a loaded machine: analyzers 15.5–18.2 → 5.8–6.2 s, load 5.6–6.1 → 2.0 s), at the same peak
resident size and user time (sixth session, benchmarks/RESULTS.md). The command line
(:func:`gpulens.cli.main`) therefore turns numpy's advice off for its own process, unless the user chose a policy with
numpy's ``NUMPY_MADVISE_HUGEPAGE`` environment variable. The library leaves numpy's setting alone.
"""

from __future__ import annotations

from typing import Any

from gpulens._memory import keeping_freed_memory, libc

#: :func:`return_free_memory` trims only while the process's resident size is at least this many bytes: 1.75 GiB,
#: near the 2 GB a 1M-kernel analysis is held to. Below it, freed pages stay for the next analyzer to reuse: at
#: 1M kernels (resident 0.9–1.77 GiB between analyzers) trimming from 1 GiB on faulted 1.53M pages back in
#: (analysis 5.3 s of system time) against 0.74M pages (2.4 s) without trimming, at the same peak (1,832 MiB;
#: the peak is reached inside the occupancy analyzer, not carried from one analyzer to the next).
TRIM_ABOVE_BYTES = 7 << 28

#: The Timeline rows of a 1M-kernel trace (benchmarks/gen_kineto.py: 3,000,010 — kernels and collectives, their
#: launch calls, CPU ops and annotations), the size :data:`TRIM_ABOVE_BYTES` is set for. A larger Timeline is held
#: to a budget that grows with it (issue 16: 2 GB at 1M kernels, 10 GB at 5M), so its threshold grows in proportion
#: (:func:`trim_threshold`).
BUDGET_ROWS = 3_000_000

#: With the default threshold, :func:`return_free_memory` trims from this resident size too (1.375 GiB)...
FRAGMENTED_ABOVE_BYTES = 11 << 27
#: ... when the heap holds at least this many bytes of free blocks (320 MiB).
FRAGMENTED_FREE_BYTES = 320 << 20

_LIBC: list = []


def _mallinfo2_type() -> Any:
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                    "fsmblks", "uordblks", "fordblks", "keepcost")]
    return MallInfo2


_MallInfo2 = _mallinfo2_type()


def _libc() -> Any:
    """glibc (with ``malloc_trim`` typed), or None where the C library is another one."""
    if not _LIBC:
        lib = libc()
        if lib is not None:
            try:
                import ctypes

                lib.malloc_trim.argtypes, lib.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
            except AttributeError:
                lib = None
        _LIBC.append(lib)
    return _LIBC[0]


def use_small_pages() -> bool:
    """Stop numpy from advising huge pages for its large arrays in this process (see the module doc); returns
    whether numpy's setting was changed. Nothing is changed when ``NUMPY_MADVISE_HUGEPAGE`` is set (the user's
    choice) or when this numpy has no such switch. Values computed are unaffected."""
    import os

    if os.environ.get("NUMPY_MADVISE_HUGEPAGE") is not None:
        return False
    try:
        from numpy._core import multiarray  # numpy >= 2
    except ImportError:  # pragma: no cover - numpy 1.x
        from numpy.core import multiarray  # type: ignore[no-redef]
    switch = getattr(multiarray, "_set_madvise_hugepage", None)
    if switch is None:
        return False
    switch(False)
    return True


def resident_bytes() -> int | None:
    """The process's resident set size in bytes now (``/proc/self/statm``; None where there is no such file)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    import resource

    return pages * resource.getpagesize()


def trim_threshold(rows: int) -> int:
    """The resident size [bytes] from which :func:`return_free_memory` trims while analysing a Timeline of ``rows``
    event rows: :data:`TRIM_ABOVE_BYTES` up to :data:`BUDGET_ROWS` rows, in proportion above (a 5M-kernel trace:
    ~8.75 GiB). Between analyzers the heap's free pages are the next analyzer's working memory; handing them back
    below that size only makes the next one fault them in again. Measured on the 5M-kernel trace (twentieth
    session, command line): trimming from 1.75 GiB 121.5 s CPU, 6.6M page faults, peak 9.78 GB; from 8.75 GiB
    99.8 s CPU, 2.1M faults, peak 9.84 GB; the 1M-kernel threshold is unchanged."""
    return int(TRIM_ABOVE_BYTES * _budget_scale(rows))


def _budget_scale(rows: int | None) -> float:
    """How many times the 1M-kernel budget a Timeline of ``rows`` event rows is held to (at least 1)."""
    return max(1.0, rows / BUDGET_ROWS) if rows else 1.0


def return_free_memory(above: int | None = None, rows: int | None = None) -> bool:
    """``malloc_trim(0)`` (the heap's free pages back to the OS) when the resident size is at least ``above`` bytes
    or unknown. Without ``above``: from :data:`TRIM_ABOVE_BYTES` (:func:`trim_threshold` of the Timeline's ``rows``
    when given), or from :data:`FRAGMENTED_ABOVE_BYTES` (scaled alike) when the heap holds at least
    :data:`FRAGMENTED_FREE_BYTES` of free blocks — that second rule not in a process that keeps freed memory for
    reuse (:func:`gpulens._memory.keep_freed_memory`: the command line). Returns whether it trimmed."""
    lib = _libc()
    if lib is None:
        return False
    rss = resident_bytes()
    if rss is not None and rss < (trim_threshold(rows or 0) if above is None else above):
        if above is not None or keeping_freed_memory() or rss < FRAGMENTED_ABOVE_BYTES * _budget_scale(rows) \
                or heap_free_bytes() < FRAGMENTED_FREE_BYTES:
            return False
    lib.malloc_trim(0)
    return True


def heap_free_bytes() -> int:
    """Bytes of free blocks the C heap holds resident or not (glibc ``mallinfo2().fordblks``; 0 where unknown)."""
    lib = _libc()
    fn = getattr(lib, "mallinfo2", None) if lib is not None else None
    if fn is None:
        return 0
    if fn.restype is not _MallInfo2:
        fn.restype, fn.argtypes = _MallInfo2, []
    return int(fn().fordblks)
