"""The C heap policy of a ``gpulens`` command-line process: freed blocks stay in the heap for reuse (glibc only).

glibc returns memory to the OS in two ways: a block of at least ``M_MMAP_THRESHOLD`` bytes (128 KiB at start, raised
dynamically up to 32 MiB) is a mapping of its own, unmapped when freed, and free space at the top of the heap beyond
``M_TRIM_THRESHOLD`` bytes is trimmed. Either way the next array of that size is faulted in again, and every fault
zeroes a fresh 4 KiB page in the kernel. On the 2-core VMs gpulens is benchmarked on, a perf profile of
``gpulens analyze`` on a 1M-kernel trace put 25 % of its samples in the kernel, 11 % zeroing fresh pages.

So the command line has every block come from the heap (``M_MMAP_MAX`` = 0: no mappings of their own) and never trims
its top by itself (``M_TRIM_THRESHOLD`` at ``mallopt``'s largest ``int``); heap trims are left to the explicit rule of
:func:`gpulens.analyzers._heap.return_free_memory` (near the 2 GB budget only). Measured (nineteenth session,
benchmarks/RESULTS.md), ``analyze --no-cache --json``:

* 1M kernels: 0.83–0.90M page faults → ~0.38M, 1.2–1.5 s less system time, peak 25–50 MiB higher (1.7 GiB);
* 5M kernels: 16.9M page faults → 6.5M, 66.9 → 38.8 s of system time, 158.8 → 122.1 s of CPU, peak 9.54 → 9.68
  GB (``ru_maxrss``, within the 10 GB target). With the mapping threshold at 32 MiB instead, arrays of 5M rows
  (40 MB) were still mapped afresh each time.

The Kineto collector's trim after decoding a file of at least ``LARGE_FILE_BYTES`` of text (512 MiB;
:func:`gpulens.collectors._kineto_columns.release_free_memory`, before its columns are joined) is skipped in such a
process too: the ~180 MB of free blocks (mostly the stream's text buffers) it handed back at 1M kernels were faulted
in again at once by the join and the analyzers. Measured (fiftieth session, ``analyze --no-cache -q --json``, 1M
kernels, 6 alternated runs each, 2 shared cores): 467–472k → 426–430k page faults, system time 1.04–1.12 →
0.92–1.00 s (user time within noise, 4.98–5.09 → 5.08–5.24 s, on a VM whose memory had been backed already: a
fresh one spends ~3× the system time per fault), peak 1.63–1.65 → 1.65–1.67 GB. A smaller file still trims: at 100k
kernels the analysis reused too little of them (8 % fewer faults, the same CPU, but a peak 42 MB (12 %) higher).

Every thread's blocks come from that one heap too (``M_ARENA_MAX`` = 1): glibc otherwise gives each thread that
allocates while another holds the heap's lock an arena of its own (mapped heaps of 64 MiB), and the blocks freed in
it serve only the threads that use it. gpulens's threads (the Kineto stream's read-ahead scanner, the preloading of
the next rank file, the HTML timeline's compression) allocate large arrays that the main thread frees; the main
thread's next arrays were faulted in afresh beside them. Measured (fiftieth session, 2 shared cores at load 10–12,
``analyze --no-cache -q --json``, alternated runs: 2–3 with ``MALLOC_ARENA_MAX=1``, the same setting, then 3):
8 rank files × 25k kernels peak 541–551 → 472–475 MB, page faults 319–332k → 289–299k, system time 0.66–0.82 →
0.63–0.72 s; 1M kernels peak 1.655–1.663 → 1.629–1.637 GB, faults 426–428k → 420–422k; 100k kernels peak 357 →
351–355 MB; CPU time (user + system) within noise in each (two threads seldom wait on the one lock).

Only the command line (:func:`gpulens.cli.main`, as the console script: the process ends with the command) asks for
this; a program importing gpulens keeps its C library's settings. The values computed are unaffected.

Constants from glibc's ``<malloc.h>``: ``M_TRIM_THRESHOLD`` = -1, ``M_MMAP_MAX`` = -4, ``M_ARENA_MAX`` = -8;
``mallopt`` takes an ``int`` (so the trim threshold is at most 2 GiB - 1) and answers 1 when it took the setting.
"""

from __future__ import annotations

import sys
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
M_ARENA_MAX = -8
#: heap-top trimming only past 2 GiB - 1 of free space (``mallopt`` takes an ``int``): in effect never
TRIM_THRESHOLD_BYTES = (1 << 31) - 1

_STATE: dict[str, Any] = {"keeping": False}


def libc() -> Any:
    """glibc loaded once per process (``ctypes.CDLL``), or None where the C library is another one (another OS,
    musl): the one handle of the C heap's functions (``mallopt`` here, ``malloc_trim`` and ``mallinfo2`` in
    :mod:`gpulens.analyzers._heap` and the Kineto collector)."""
    if "libc" not in _STATE:
        lib = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                lib = ctypes.CDLL("libc.so.6")
            except OSError:
                lib = None
        _STATE["libc"] = lib
    return _STATE["libc"]


def _mallopt() -> Any:
    """glibc's ``mallopt`` typed, or None."""
    lib = libc()
    fn = getattr(lib, "mallopt", None) if lib is not None else None
    if fn is not None:
        import ctypes

        fn.argtypes, fn.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return fn


def keep_freed_memory(mallopt: Any = None) -> bool:
    """Ask glibc to keep freed blocks for reuse in this process, in one arena for every thread (see the module doc);
    returns whether the two settings that keep them (no mapped blocks, no trimming) were taken — the arena limit is
    asked for after them, and takes effect only where no thread has had an arena of its own yet (the command line
    calls this before it starts any). ``mallopt``: the function to call (glibc's by default; tests pass a
    recorder)."""
    fn = _mallopt() if mallopt is None else mallopt
    if fn is None:
        return False
    ok = fn(M_MMAP_MAX, 0) == 1 and fn(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES) == 1
    if ok:
        fn(M_ARENA_MAX, 1)
    _STATE["keeping"] = ok
    return ok


def keeping_freed_memory() -> bool:
    """Whether :func:`keep_freed_memory` took effect in this process: heap trims are then left to the rule near the
    memory budget (:func:`gpulens.analyzers._heap.return_free_memory`)."""
    return bool(_STATE["keeping"])
