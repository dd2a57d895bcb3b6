"""FLOP counts torch computes in-process (``with_flops=True``) but does not write to the trace JSON.

torch 2.13's ``export_chrome_trace`` omits the per-op ``flops`` that its formula table (``torch/csrc/profiler/
util.cpp``: ``aten::mm``/``addmm``/``bmm``/``conv*``/``mul``/``add``) computes. The profiler's in-memory Kineto
events keep them (``_KinetoEvent.flops()``), with ``start_ns()`` on exactly the clock the trace writes
(``ts``·1000 + ``baseTimeNanoseconds``), so each count is matched to its Timeline row by (name, start ns).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpulens.timeline import Timeline


def flops_by_start(prof: Any) -> dict[tuple[str, int], float]:
    """``(op name, start ns) → FLOP`` for every op of a finished torch.profiler run that has a FLOP count.

    Args:
        prof: a ``torch.profiler.profile`` after its recording stopped (e.g. inside ``on_trace_ready``).

    Returns:
        an empty dict when the profiler kept no results.
    """
    results = getattr(getattr(prof, "profiler", None), "kineto_results", None)
    if results is None:
        return {}
    out: dict[tuple[str, int], float] = {}
    for e in results.events():
        f = e.flops()
        if f:
            out[(e.name(), int(e.start_ns()))] = float(f)
    return out


def attach_flops(timeline: Timeline, flops: dict[tuple[str, int], float]) -> int:
    """Fill the ``flops`` column [FLOP] of ``timeline``'s cpu_op rows from ``flops`` (keys: name, start ns).

    Rows that already carry a FLOP count (a trace that wrote them) keep it. Returns the number of rows filled.
    """
    if not flops:
        return 0
    ev = timeline.events
    ops = ev.index[(ev["kind"] == "cpu_op").to_numpy() & ev["flops"].isna().to_numpy()]
    names = ev.loc[ops, "name"].astype(str).to_numpy()
    starts = ev.loc[ops, "start_ns"].to_numpy()
    vals = np.array([flops.get((n, int(s)), np.nan) for n, s in zip(names, starts)], dtype="float64")
    hit = ~np.isnan(vals)
    ev.loc[ops[hit], "flops"] = vals[hit]
    return int(hit.sum())
