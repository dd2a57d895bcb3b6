"""A rank selection applied to a built Timeline (``Selection.apply``: cached Timelines, the one-off-gap check of a
suggested ``--window``) keeps only the selected ranks — their events and also their side-table rows (allocator
events) — and does no work per unselected rank.

Found on a folder of many small rank files: the suggested window's check applied ``ranks=R`` to the whole folder's
Timeline and built one empty part per other rank (a second per ~20 ranks); those empty parts also carried the other
ranks' allocator rows into the selection.

Expected values are counted by hand from the two tiny rank files written below.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.collectors import collect
from gpulens.timeline.selection import Selection

#: rank r: 2 + r kernels (10 µs each, 1 ms apart) and 3 allocator events
def _rank_file(path: Path, rank: int) -> None:
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000.0 * (i + 1), "dur": 10.0,
           "args": {"device": 0, "stream": 7}} for i in range(2 + rank)]
    ev += [{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
            "ts": 1500.0 + 100 * j, "args": {"Total Reserved": 1024, "Total Allocated": 100 * (j + 1), "Bytes": 8,
                                             "Addr": 1, "Device Id": 0, "Device Type": 1}} for j in range(3)]
    path.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": 2},
                                "traceEvents": ev, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132}]}))


def test_rank_selection_keeps_only_that_ranks_rows(tmp_path):
    for r in (0, 1):
        _rank_file(tmp_path / f"rank{r}.pt.trace.json", r)
    tl = collect(tmp_path)
    assert sorted(set(tl.events["rank"].astype(int))) == [0, 1]
    sub = Selection.parse(ranks="1").apply(tl)
    ev = sub.events
    assert set(ev["rank"].astype(int)) == {1}
    assert int((ev["kind"].astype(str) == "kernel").sum()) == 3  # rank 1 wrote 2 + 1 kernels
    for name, df in sub.tables.items():
        if "rank" in getattr(df, "columns", ()):
            assert set(df["rank"].dropna().astype(int)) <= {1}, name
    mem = [df for name, df in tl.tables.items() if "rank" in getattr(df, "columns", ()) and "time_ns" in df.columns]
    assert mem, "the allocator events form a rank-keyed side table"


def test_rank_selection_of_no_present_rank_is_empty(tmp_path):
    for r in (0, 1):
        _rank_file(tmp_path / f"rank{r}.pt.trace.json", r)
    tl = collect(tmp_path)
    assert len(Selection.parse(ranks="5").apply(tl).events) == 0
