"""What shortening one class of the critical path can recover: at most the GPU idle time of the cause that class is.

The critical path (:mod:`gpulens.analyzers.critical_path`) of a step held by host work (CPU ops, runtime calls, host
idle gaps) says the *host's* chain decides the step; it does not say the GPU waited all that time. Removing the host
work shortens what the GPU runs by at most the time the GPU sat idle *because of* that host work — the idle gaps the
bottlenecks classification (:func:`gpulens.analyzers.bottlenecks.classify_gaps`) attributes to the host — and the
step can never get shorter than the GPU work in it. A path of 1.24 s of CPU ops beside 702.52 ms of GPU idle waiting
for the host (the rest of the idle waiting on work already queued: another stream, an event) has at most 702.52 ms
at stake (HTA trace_filter sample, 2 ranks).

Per class of the path, the idle causes it can remove (the gap classes of :mod:`gpulens.analyzers.bottlenecks`; the
one-off ``boundary`` gaps, which the idle finding leaves out, never count):

* ``cpu_op``, ``host_idle`` — ``host``: the next work was not enqueued and the host was doing something else;
* ``runtime`` — ``host`` and ``launch`` (the launch path itself);
* ``launch_delay`` — ``host`` and ``launch``: the path's wait from a launch call to its GPU work, up to a normal
  start after the call's return, is the launch path;
* ``queued`` — ``queued``: a late start after the launch call returned (over ``LAUNCH_GAP_NS``), the idle split's
  name and cause for the same time;
* ``sync`` — the part of gaps during which the host was blocked in a synchronisation;
* ``gpu_gap`` — ``queued`` (work enqueued, waiting on another stream, an event or a late start);
* ``unattributed`` — ``unattributed``.

Queued gaps after launch calls with no GPU record (:func:`gpulens.analyzers._lost_work.lost_queued_mask`: lost GPU
work most likely ran there) are no measured idle and never count.

The bound is taken per rank (a rank's path cannot recover another rank's idle): ``Σ_rank min(path time of the
class, the rank's idle of those causes)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers._gap_codes import gap_class_mask
from gpulens.timeline import Timeline

#: Path class → the idle-gap causes (bottlenecks gap classes; ``sync``: the gaps' blocked part) it can remove.
CAUSES: dict[str, tuple[str, ...]] = {
    "cpu_op": ("host",), "host_idle": ("host",), "runtime": ("host", "launch"),
    "launch_delay": ("host", "launch"), "sync": ("sync",), "gpu_gap": ("queued",), "queued": ("queued",),
    "unattributed": ("unattributed",),
}
#: How the capped part reads after "only the part that is also …" (:func:`gpulens.analyzers._tree.note_capped`).
WORDS: dict[tuple[str, ...], str] = {
    ("host",): "GPU idle time waiting for the host",
    ("host", "launch"): "GPU idle time waiting for the host or on launch overhead",
    ("host", "launch", "queued"): "GPU idle time waiting for the host, on launch overhead or on work already queued",
    ("sync",): "GPU idle time while the host was blocked in synchronisations",
    ("queued",): "GPU idle time with work already queued",
    ("unattributed",): "GPU idle time for reasons the trace does not show",
}


def cause_idle_by_rank(timeline: Timeline, causes: tuple[str, ...]) -> dict[int, int]:
    """Per rank, the GPU idle time [ns] of the given causes, as the bottlenecks analyzer sums them (a gap's time
    less its blocked part for its class; the blocked parts for ``sync``); ranks without such idle are absent."""
    from gpulens.analyzers.bottlenecks import classify_gaps

    gaps = classify_gaps(timeline)
    if not len(gaps):
        return {}
    sync = gaps["sync_ns"].to_numpy("int64")
    mask = gap_class_mask(gaps, [c for c in causes if c != "sync"])
    if "queued" in causes:  # queued gaps lost GPU work most likely filled: no measured idle, nothing to recover
        from gpulens.analyzers._gap_codes import gap_class_codes
        from gpulens.analyzers._lost_work import lost_calls, lost_queued_mask

        if len(lost_calls(timeline)):  # memoised; no gap codes built when no launch call is lost (the usual case)
            mask = mask & ~lost_queued_mask(timeline, gaps, gap_class_codes(gaps))
    own = np.where(mask, gaps["dur_ns"].to_numpy("int64") - sync, 0)
    if "sync" in causes:
        own = own + sync
    per = pd.Series(own).groupby(gaps["rank"].to_numpy()).sum()
    return {int(r): int(v) for r, v in per.items() if v > 0}


def recoverable_ns(timeline: Timeline, table: pd.DataFrame, cls: str) -> int | None:
    """``Σ_rank min(time of path class cls on the rank, the rank's idle of the causes cls can remove)`` [ns];
    None for a class with no idle cause (GPU work). ``table``: the critical_path table (rank, class, time_ns)."""
    causes = CAUSES.get(cls)
    if causes is None:
        return None
    idle = cause_idle_by_rank(timeline, causes)
    on_path = table.loc[table["class"] == cls].groupby("rank")["time_ns"].sum()
    return int(sum(min(int(v), idle.get(int(r), 0)) for r, v in on_path.items()))
