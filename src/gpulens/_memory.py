"""The C heap policy of a ``gpulens`` command-line process: freed blocks stay in the heap for reuse (glibc only).

glibc returns memory to the OS in two ways: a block of at least ``M_MMAP_THRESHOLD`` bytes is a mapping of its own,
unmapped when freed, and free space at the top of the heap beyond ``M_TRIM_THRESHOLD`` bytes is trimmed. Either
way the next array of that size is faulted in again, and every fault zeroes a fresh 4 KiB page in the kernel. On the
2-core VMs gpulens is benchmarked on, ``gpulens analyze`` on a 1M-kernel trace faulted 0.76–0.89M pages (4.0–4.6 s
of system time out of ~20 s of CPU); with the mapping threshold at its 64-bit maximum and trimming left to the
explicit rule of :func:`gpulens.analyzers._heap.return_free_memory` (near the 2 GB budget only), 0.37M pages
(2.3–2.5 s of system time) at a peak resident size 25–50 MiB higher (benchmarks/RESULTS.md, nineteenth session).

Only the command line (:func:`gpulens.cli.main`, as the console script: the process ends with the command) asks for
this; a program importing gpulens keeps its C library's settings. The values computed are unaffected.

Constants from glibc's ``<malloc.h>``: ``M_TRIM_THRESHOLD`` = -1, ``M_MMAP_THRESHOLD`` = -3; the mapping threshold
may be at most ``HEAP_MAX_SIZE / 2`` = 32 MiB on 64-bit (``DEFAULT_MMAP_THRESHOLD_MAX``, glibc ``malloc/malloc.c``),
``mallopt`` takes an ``int`` (so the trim threshold is at most 2 GiB - 1).
"""

from __future__ import annotations

import sys
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: the largest mapping threshold glibc accepts on 64-bit (32 MiB): smaller blocks come from the heap and are reused
MMAP_THRESHOLD_BYTES = 32 << 20
#: heap-top trimming only past 2 GiB - 1 of free space (``mallopt`` takes an ``int``): in effect never
TRIM_THRESHOLD_BYTES = (1 << 31) - 1

_STATE: dict[str, Any] = {"keeping": False}


def _mallopt() -> Any:
    """glibc's ``mallopt`` typed, or None (another C library, another OS)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        fn = ctypes.CDLL("libc.so.6").mallopt
        fn.argtypes, fn.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        return fn
    except (OSError, AttributeError):
        return None


def keep_freed_memory(mallopt: Any = None) -> bool:
    """Ask glibc to keep freed blocks for reuse in this process (see the module doc); returns whether both settings
    were taken. ``mallopt``: the function to call (glibc's by default; tests pass a recorder)."""
    fn = _mallopt() if mallopt is None else mallopt
    if fn is None:
        return False
    ok = fn(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) == 1 and fn(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES) == 1
    _STATE["keeping"] = ok
    return ok


def keeping_freed_memory() -> bool:
    """Whether :func:`keep_freed_memory` took effect in this process: heap trims are then left to the rule near the
    memory budget (:func:`gpulens.analyzers._heap.return_free_memory`)."""
    return bool(_STATE["keeping"])
