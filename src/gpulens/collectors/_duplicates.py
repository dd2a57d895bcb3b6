"""Exact duplicate GPU rows — one capture/export artefact, one rule for every trace database collector.

A GPU queue (CUDA stream, HIP queue) runs one piece of work at a time, so two rows of the same kind and name on the
same device and stream with the same start, the same end, the same correlation id — and every other recorded field
equal, counters included — are one kernel written twice (an nsys export whose ``CUPTI_ACTIVITY_KIND_KERNEL`` holds
a row twice, a rocpd database merged from overlapping parts), not two launches: counted twice they add calls and time
that never ran (16 launches read as 19, 66.7 µs as 79.5 µs). :func:`drop_exact_duplicates` keeps the first of each
such group and says how many it dropped. Rows that merely share a name (every launch of a kernel in a loop) differ in
their times and are all kept; host rows (API calls, annotations) are left alone, as nesting may repeat them.

Used by :mod:`.nsys_sqlite` and by :func:`._dispatch.build_timeline` (rocpd, rocprofv3 CSV/JSON, rocprof v1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from gpulens.timeline import GPU_KINDS
from gpulens.units import plural


def _counter_signatures(counters: pd.DataFrame | None, ids: np.ndarray) -> pd.Series:
    """Per event id of ``ids``, its counters as one sortable text (metric, unit, value), ``""`` without any."""
    out = pd.Series("", index=pd.Index(ids), dtype=object)
    if counters is None or not len(counters):
        return out
    c = counters[counters["event_id"].isin(ids)]
    if len(c):
        txt = (c["metric"].astype(str) + "\x1f" + c["unit"].astype(str) + "\x1f" + c["value"].astype(str) + "\x1e")
        s = pd.DataFrame({"e": c["event_id"].to_numpy(), "t": txt.to_numpy(dtype=object)}).sort_values(["e", "t"])
        e, t = s["e"].to_numpy(), s["t"].to_numpy(dtype=object)
        starts = np.concatenate([[0], np.flatnonzero(e[1:] != e[:-1]) + 1])
        # per event, its sorted texts joined: one C loop of string additions, not a Python call per event (a
        # flood of 300,000 rows of one start and duration was 60 s here)
        out.loc[e[starts]] = np.add.reduceat(t, starts)
    return out


def drop_exact_duplicates(events: pd.DataFrame, counters: pd.DataFrame | None, path: str | Path
                          ) -> tuple[pd.DataFrame, pd.DataFrame | None, str | None]:
    """``(events, counters, warning)`` without the second and later copies of exact duplicate GPU rows (see the
    module docstring); events renumbered ``0..n-1`` in order, counters and ``parent_id`` following them; the
    warning counts the rows dropped and names a few (None when there were none)."""
    if not len(events):
        return events, counters, None
    gone_ids, names = exact_duplicate_ids(events, counters)
    if not len(gone_ids):
        return events, counters, None
    keep = ~events["event_id"].isin(gone_ids).to_numpy()
    old_ids = events["event_id"].to_numpy()[keep]
    out = events[keep].reset_index(drop=True)
    new_of = pd.Series(np.arange(len(out), dtype="int64"), index=old_ids)
    out["event_id"] = np.arange(len(out), dtype="int64")
    if "parent_id" in out and out["parent_id"].notna().any():
        out["parent_id"] = pd.array(out["parent_id"].map(new_of), dtype=out["parent_id"].dtype)
    if counters is not None and len(counters):
        counters = counters[counters["event_id"].isin(old_ids)].reset_index(drop=True)
        counters["event_id"] = counters["event_id"].map(new_of).to_numpy(dtype="int64")
    return out, counters, duplicates_note(path, len(gone_ids), names)


def exact_duplicate_ids(events: pd.DataFrame, counters: pd.DataFrame | None) -> tuple[np.ndarray, list[str]]:
    """The ``event_id`` of the second and later copies of exact duplicate GPU rows of ``events`` (see the module
    docstring; ``counters`` by ``event_id``), and the sorted distinct names of those rows."""
    none = np.zeros(0, dtype="int64"), []
    if not len(events):
        return none
    gpu = events["kind"].astype(str).isin(GPU_KINDS).to_numpy()
    if not gpu.any():
        return none
    g = events[gpu]
    # cheap first pass on the times alone; the full comparison only where two GPU rows share start and duration
    cand = pd.DataFrame({"s": g["start_ns"].to_numpy(), "d": g["dur_ns"].to_numpy()}).duplicated(keep=False)
    if not cand.any():
        return none
    c = g[cand.to_numpy()]
    key = c.drop(columns=["event_id"]).astype(object).where(c.drop(columns=["event_id"]).notna(), None)
    key["_counters"] = _counter_signatures(counters, c["event_id"].to_numpy()).to_numpy()
    dup = key.astype(str).duplicated(keep="first").to_numpy()
    if not dup.any():
        return none
    return c["event_id"].to_numpy()[dup], sorted(set(c.loc[dup, "name"].astype(str)))


def duplicates_note(path: str | Path, n: int, names: list[str]) -> str:
    """The warning of :func:`drop_exact_duplicates`: ``n`` rows dropped from ``path``, a few of their ``names``."""
    return (f"{path}: {plural(n, 'exact duplicate GPU row(s)')} dropped (the same kind, name, device, stream, start, end, "
            "correlation id and every other field as a row kept: one kernel written twice by the capture or "
            f"export), counted once: {', '.join(names[:3])[:160]}")
