"""The copies and fills a profiler's own *summary* lists beside its kernel rows, said in one warning.

A per-name summary (``rocprofv3 --summary``'s ``MEMORY_COPY`` rows, ``nsys stats``' ``cuda_gpu_mem_time_sum``
report) gives how many copies and fills ran and their summed time, but places none of them in time: they are no
kernels (kept out of the kernel figures) and cannot enter a busy/idle figure, so the report's copy figures stay
unknown. Dropping them without a word hid GPU work — in rocprofiler-sdk's example summary the copies take 4.32 ms
beside 453 µs of kernels. :func:`summary_copies_note` is that warning, one wording for every summary reader.
"""

from __future__ import annotations

from pathlib import Path

from gpulens.units import fmt_ns, plural


def summary_copies_note(path: str | Path, copies: int, fills: int, total_ns: float, rows: int, what: str) -> str:
    """The warning for a summary's copy/fill rows: ``copies`` and ``fills`` (calls), their summed duration
    ``total_ns`` [ns], the ``rows`` they take in the table named ``what`` (``MEMORY_COPY``, ``cuda_gpu_mem_time_sum``)."""
    items = " and ".join(x for x in (plural(copies, "copy", "copies") if copies else "",
                                     plural(fills, "fill") if fills else "") if x) or "no copy"
    return (f"{path}: the summary also lists {items} ({plural(rows, f'{what} row')}, {fmt_ns(round(total_ns))} "
            "summed): GPU work kept out of the kernel figures; the report's copy figures stay unknown (a summary "
            "places no copy in time)")
