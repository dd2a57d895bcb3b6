"""A correlation id carried by several launch calls one after another (a merged or edited trace, ids that wrapped):
each GPU event goes to the nearest such call before it, not to the first call of the run that carries the number.

A launch call and the GPU work it enqueues share one correlation id, numbered once per process. Where two calls of a
rank carry the same id and do not nest (the second starts after the first has ended), the id alone cannot say which
one launched a kernel. The first-wins link put every such kernel behind the earliest call — a kernel at 110 µs
behind a call at 0 µs when another call with its id was made at 100 µs: a 110 µs "launch latency" that is 10 µs.
Work starts after its launch call, so the call that launched it is the latest of those calls that starts no later
than the work (:func:`relink_reused_ids`). Calls nested inside another call of the same id (HIP's
``hipMemsetAsync`` making ``hipArray3DCreate`` under its id) are part of the enclosing call, not candidates. The
count of such ids is reported by the launches analyzer
(:func:`gpulens.analyzers.launches.shared_correlation_ids`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.units import plural


def top_level_reuses(calls: pd.DataFrame) -> pd.DataFrame:
    """The calls (``rank``, ``corr``, ``start``, ``end``, ``event_id``) of every (rank, correlation id) pair held by
    two or more calls that do not nest, without the calls nested in another of their pair; empty when none.
    Sorted by pair and start."""
    dup = calls.duplicated(["rank", "corr"], keep=False).to_numpy()
    if not dup.any():
        return calls.iloc[0:0]
    c = calls[dup].sort_values(["rank", "corr", "start", "end"], ascending=[True, True, True, False],
                               kind="stable").reset_index(drop=True)
    reach = c.groupby(["rank", "corr"], sort=False)["end"].cummax().to_numpy()
    rk, co, st = (c[k].to_numpy() for k in ("rank", "corr", "start"))
    same = np.r_[False, (rk[1:] == rk[:-1]) & (co[1:] == co[:-1])]
    prev = np.r_[np.iinfo(np.int64).min, reach[:-1]]
    nested = same & (st < prev)  # starts before an earlier call of its pair has ended: inside it
    top = c[~nested]
    many = top.groupby(["rank", "corr"], sort=False)["start"].transform("size").to_numpy() > 1
    return top[many].reset_index(drop=True)


def relink_reused_ids(calls: pd.DataFrame, gpu: pd.DataFrame, launch: np.ndarray) -> np.ndarray:
    """``launch`` (per GPU event, the launch call's event_id; -1 for none) with the events whose id is reused
    (:func:`top_level_reuses`) linked to the latest top-level call of their pair that starts no later than they do,
    or the earliest call of the pair when none does (a clock skew: the first-wins rule, kept).

    Args:
        calls: launch calls with a correlation id: ``rank``, ``corr``, ``start``, ``end`` (ns), ``event_id``.
        gpu: GPU events: ``rank``, ``corr`` (-1 for none), ``start`` (ns), in the order of ``launch``.
        launch: int64 event ids, edited copy returned.
    """
    top = top_level_reuses(calls)
    if not len(top):
        return launch
    pairs = top[["rank", "corr"]].drop_duplicates()
    g = gpu.reset_index(drop=True).assign(pos=np.arange(len(gpu)))
    g = g.merge(pairs, on=["rank", "corr"], how="inner")
    if not len(g):
        return launch
    m = pd.merge_asof(g.sort_values("start", kind="stable"), top[["rank", "corr", "start", "event_id"]]
                      .sort_values("start", kind="stable"), on="start", by=["rank", "corr"], direction="backward")
    first = top.groupby(["rank", "corr"], sort=False)["event_id"].first()
    miss = m["event_id"].isna().to_numpy()
    if miss.any():
        keys = pd.MultiIndex.from_frame(m.loc[miss, ["rank", "corr"]])
        m.loc[miss, "event_id"] = first.reindex(keys).to_numpy()
    out = launch.copy()
    out[m["pos"].to_numpy()] = m["event_id"].to_numpy(dtype="int64")
    return out


def reuse_summary(calls: pd.DataFrame, gpu_per_call: np.ndarray) -> dict | None:
    """What the reused correlation ids of ``calls`` did to the links: None when no id is reused.

    Args:
        calls: the launch calls (``rank``, ``correlation_id``, ``start_ns``, ``dur_ns``, ``event_id``).
        gpu_per_call: per call, the GPU events linked to it (after :func:`relink_reused_ids`).

    Returns:
        ``calls``: the top-level calls carrying a reused id (:func:`top_level_reuses`); ``doubtful``: GPU events
        linked to a call of such an id that holds two or more of them while another call of the same id holds none —
        one launch call enqueues one record, so at least one of them belongs to the empty call and their links cannot
        be trusted; ``idle_calls`` / ``idle_event_ids``: those empty calls (their work is recorded, behind the crowded
        call: not lost); ``example``: one such id (``None`` when no link is doubtful).
    """
    ok = calls["correlation_id"].notna().to_numpy() & calls["start_ns"].notna().to_numpy()
    if ok.sum() < 2:
        return None
    c = calls[ok]
    start = c["start_ns"].to_numpy(dtype="int64")
    frame = pd.DataFrame({"rank": c["rank"].to_numpy(dtype="int64", na_value=0),
                          "corr": c["correlation_id"].to_numpy(dtype="int64"), "start": start,
                          "end": start + c["dur_ns"].to_numpy(dtype="int64", na_value=0),
                          "event_id": c["event_id"].to_numpy(), "gpu": np.asarray(gpu_per_call)[ok]})
    top = top_level_reuses(frame)
    if not len(top):
        return None
    key = [top["rank"], top["corr"]]
    has_idle = top.groupby(key, sort=False)["gpu"].transform(lambda s: bool((s == 0).any())).to_numpy(dtype=bool)
    crowded = (top["gpu"] > 1).to_numpy() & has_idle
    idle = (top["gpu"] == 0).to_numpy() & top.groupby(key, sort=False)["gpu"].transform(
        lambda s: bool((s > 1).any())).to_numpy(dtype=bool)
    return {"calls": int(len(top)), "doubtful": int(top["gpu"].to_numpy()[crowded].sum()),
            "idle_calls": int(idle.sum()), "idle_event_ids": top["event_id"].to_numpy()[idle],
            "example": int(top["corr"].to_numpy()[crowded][0]) if crowded.any() else None}


def reuse_detail(shared: int, reuse: dict | None) -> str:
    """The launches finding's text for ``shared`` reused correlation ids (:func:`reuse_summary`'s ``reuse``)."""
    calls = plural(reuse["calls"] if reuse else 2, "call(s)")
    text = (f"A correlation id names one launch call; here {calls}, one after another, carry the same "
            f"{'id' if shared == 1 else 'ids'} (the trace was merged or edited, or the profiler's ids wrapped). Each "
            "GPU event with such an id is linked to the latest of those calls that started before it (the nearest "
            "preceding launch); where the calls interleave with their work that guess can be wrong, and launch "
            "latencies, launch-bound verdicts and idle causes follow the links.")
    if reuse and reuse["doubtful"]:
        text += (f" Here {plural(reuse['doubtful'], 'GPU event link(s)')} cannot be trusted: they put two or more GPU "
                 f"events behind one call while {plural(reuse['idle_calls'], 'other call(s)')} of the same id (e.g. "
                 f"{reuse['example']}) are linked to none, and one call enqueues one record; those calls are not "
                 "counted as launches that lost their GPU work.")
    return text
