"""Stream timeline: a light, size-bounded picture of when each GPU stream was busy (for the HTML timeline page).

Big traces hold millions of GPU events; a report must not carry them all. This analyzer keeps every event when
there are at most ``max_segments`` of them, and otherwise cuts the run's GPU span into equal time bins and merges,
per stream, the events that *start* in the same bin into one segment (first start → last end, with the summed
busy time, the event count, and the name and kind of the longest event in it). The table is therefore at most
about ``max_segments`` rows (never fewer than ``min_bins`` bins per stream) whatever the input size.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer
from gpulens.analyzers.context import context_of, text_series
from gpulens.timeline import Timeline

COLUMNS = {
    "rank": "distributed rank",
    "device_id": "GPU index",
    "stream_id": "CUDA stream / HIP queue (-1 when not recorded)",
    "start_ns": "segment start (first event start) on the Timeline's clock [ns]",
    "end_ns": "segment end (last event end) [ns]",
    "offset_ns": "segment start − the first GPU event's start (the timeline's origin) [ns]",
    "busy_ns": "sum of the durations of the events merged into the segment [ns]",
    "events": "number of GPU events merged into the segment",
    "kind": "kind of the longest event in the segment (kernel, comm, memcpy, memset)",
    "name": "name of the longest event in the segment",
}


class StreamTimeline(Analyzer):
    """Per-stream busy segments, decimated to a bounded size (see module docstring).

    Args:
        max_segments: keep every event up to this many GPU events; above it, bin (default 4000).
        min_bins: fewest time bins per stream when binning (default 10).
    """

    name = "stream_timeline"
    order = 80

    def __init__(self, max_segments: int = 4000, min_bins: int = 10):
        self.max_segments = max_segments
        self.min_bins = min_bins

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        gpu = context_of(timeline).gpu
        if not len(gpu):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  {"event_count": 0, "segment_count": 0, "decimated": False, "bin_ns": 0},
                                  skipped_reason="no GPU events in the trace")
        df = pd.DataFrame({
            "rank": gpu["rank"].to_numpy("int64"),
            "device_id": gpu["device_id"].to_numpy("int64"),
            "stream_id": gpu["stream_id"].fillna(-1).to_numpy("int64"),
            "start_ns": gpu["start_ns"].to_numpy("int64"),
            "dur_ns": gpu["dur_ns"].to_numpy("int64"),
            "kind": text_series(gpu["kind"]),
            "name": text_series(gpu["name"]),
        })
        df["end_ns"] = df["start_ns"] + df["dur_ns"]
        keys = ["rank", "device_id", "stream_id"]
        n_tracks = int(df.groupby(keys).ngroups)
        t0, t1 = int(df["start_ns"].min()), int(df["end_ns"].max())
        if len(df) <= self.max_segments:
            t = df.rename(columns={"dur_ns": "busy_ns"}).assign(events=1)
            bin_ns = 0
        else:
            bins = max(self.min_bins, self.max_segments // max(n_tracks, 1))
            bin_ns = max(1, -(-(t1 - t0) // bins))
            df["bin"] = (df["start_ns"] - t0) // bin_ns
            g = df.groupby(keys + ["bin"], sort=True)
            longest = df.loc[g["dur_ns"].idxmax().to_numpy(), ["kind", "name"]].to_numpy()
            t = pd.DataFrame({"start_ns": g["start_ns"].min(), "end_ns": g["end_ns"].max(),
                              "busy_ns": g["dur_ns"].sum(), "events": g.size()}).reset_index()
            t["kind"], t["name"] = longest[:, 0], longest[:, 1]
        t = t.sort_values(keys + ["start_ns"], kind="stable")[[c for c in COLUMNS if c != "offset_ns"]]
        t = t.reset_index(drop=True)
        t["events"] = t["events"].astype(np.int64)
        t.insert(list(COLUMNS).index("offset_ns"), "offset_ns", t["start_ns"] - t0)
        summary = {"event_count": int(len(df)), "segment_count": int(len(t)), "track_count": n_tracks,
                   "decimated": bool(bin_ns), "bin_ns": int(bin_ns), "start_ns": t0, "end_ns": t1}
        return AnalysisResult(self.name, t, COLUMNS, summary)
