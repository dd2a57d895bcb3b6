"""The analyzers that feed the HTML report: the decimated stream timeline and the per-rank kernel comparison."""

import pandas as pd
import pytest

import gpulens
from gpulens.analyzers.rank_kernels import RankKernels
from gpulens.analyzers.stream_timeline import StreamTimeline
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table
from tests.conftest import KINETO


def _tl(rows):
    """rows: (kind, name, start_ns, dur_ns, stream, rank)."""
    n = len(rows)
    keys = ["kind", "name", "start_ns", "dur_ns", "stream_id", "rank"]
    cols = {k: [r[i] for r in rows] for i, k in enumerate(keys)}
    return Timeline(make_table(EVENT_COLUMNS, {**cols, "event_id": list(range(n)), "device_id": [0] * n,
                                               "source": ["t"] * n})).validate()


def test_stream_timeline_keeps_every_event_when_small():
    tl = _tl([("kernel", "a", 100, 10, 1, 0), ("memcpy", "Memcpy HtoD", 105, 20, 2, 0), ("kernel", "b", 130, 5, 1, 0)])
    r = StreamTimeline(max_segments=10).analyze(tl)
    t = r.table
    assert t[["stream_id", "start_ns", "end_ns", "offset_ns", "busy_ns", "events"]].values.tolist() == [
        [1, 100, 110, 0, 10, 1], [1, 130, 135, 30, 5, 1], [2, 105, 125, 5, 20, 1]]
    assert r.summary["decimated"] is False


def test_stream_timeline_bins_when_large():
    # 5 events > max_segments 4 → binning; 2 streams → 4 // 2 = 2 bins over the span 0..1000 ns: 500 ns each
    rows = [("kernel", "a", 0, 100, 1, 0), ("kernel", "big", 200, 250, 1, 0), ("kernel", "c", 600, 50, 1, 0),
            ("comm", "ncclAllReduce", 100, 300, 2, 0), ("kernel", "d", 900, 100, 2, 0)]
    r = StreamTimeline(max_segments=4, min_bins=2).analyze(_tl(rows))
    t = r.table
    assert r.summary["bin_ns"] == 500 and r.summary["decimated"]
    # stream 1, bin 0: a [0,100) + big [200,450) → one segment 0..450, busy 350, named after the longest (big)
    assert t[["stream_id", "start_ns", "end_ns", "busy_ns", "events", "name"]].values.tolist() == [
        [1, 0, 450, 350, 2, "big"], [1, 600, 650, 50, 1, "c"],
        [2, 100, 400, 300, 1, "ncclAllReduce"], [2, 900, 1000, 100, 1, "d"]]
    assert t["kind"].tolist() == ["kernel", "kernel", "comm", "kernel"]


def test_stream_timeline_is_bounded_for_many_events():
    rows = [("kernel", f"k{i % 7}", i * 10, 5, i % 3, 0) for i in range(20_000)]
    r = StreamTimeline(max_segments=900).analyze(_tl(rows))
    assert r.summary["event_count"] == 20_000
    assert len(r.table) <= 900
    top = r.table[r.table["level"] == 0]
    assert int(top["busy_ns"].sum()) == 20_000 * 5  # level 0 covers the run: nothing lost, only merged
    assert int(top["events"].sum()) == 20_000
    # finer levels: window = the start's bin (bin_ns / 8**level wide) // bins; a refined window's events are all there
    sm = r.summary
    for lv, g in r.table[r.table["level"] > 0].groupby("level"):
        win = ((g["start_ns"] - sm["start_ns"]) * 8 ** lv // sm["bin_ns"]) // sm["bins"]
        assert (win == g["window"]).all()
        starts = pd.Series([i * 10 for i in range(20_000)])
        for w, gw in g.groupby(g["window"] // 8):  # the parent window holds exactly the events starting in it
            inside = ((starts * 8 ** (lv - 1) // sm["bin_ns"]) // sm["bins"]) == w
            assert int(gw["events"].sum()) == int(inside.sum())


def test_stream_timeline_zoom_levels_reach_single_events():
    # 4,000 kernels every 10 ns on one stream (span 39,994 ns), budget 1,500: level 0 merges 100 kernels per bin
    # (40 bins of 1,000 ns); the finer levels must end in windows whose segments are single events, each equal to
    # its kernel (start, end, name)
    rows = [("kernel", f"k{i}", i * 10, 4, 1, 0) for i in range(4_000)]
    r = StreamTimeline(max_segments=1500, bins=40).analyze(_tl(rows))
    t = r.table
    assert r.summary["decimated"] and r.summary["bin_ns"] == 1_000 and r.summary["levels"] >= 3
    assert len(t) <= 1500 and (t.loc[t["level"] == 0, "events"] == 100).all()
    deepest = t[t["level"] == t["level"].max()]
    assert (deepest["events"] == 1).all() and len(deepest) > 0
    for x in deepest.itertuples():  # k{i} starts at 10·i and lasts 4 ns
        assert x.name == f"k{x.start_ns // 10}" and x.end_ns == x.start_ns + 4 and x.busy_ns == 4


def test_stream_timeline_host_lanes_and_launch_links():
    # a CPU op (tid 9) launches a kernel through cudaLaunchKernel (correlation 5); the kernel lane names its launch
    n = 3
    cols = {"kind": ["cpu_op", "runtime", "kernel"], "name": ["aten::mm", "cudaLaunchKernel", "gemm"],
            "start_ns": [100, 120, 400], "dur_ns": [200, 30, 50], "stream_id": [None, None, 7],
            "device_id": [-1, -1, 0], "tid": [9, 9, None], "pid": [1, 1, None], "rank": [0] * n,
            "correlation_id": [None, 5, 5], "external_id": [3, 3, 3], "event_id": list(range(n)),
            "source": ["t"] * n}
    tl = Timeline(make_table(EVENT_COLUMNS, cols)).validate()
    t = StreamTimeline().analyze(tl).table
    host = t[t["device_id"] == -1]
    assert host[["thread_id", "kind", "offset_ns"]].values.tolist() == [[9, "cpu_op", 0], [9, "runtime", 20]]
    k = t[t["device_id"] == 0].iloc[0]
    # origin = the first event (the CPU op at 100 ns): the launch call starts at +20 ns, the kernel at +300 ns
    assert (k["offset_ns"], k["launch_offset_ns"], k["launch_thread"]) == (300, 20, 9)
    assert (k["launch_name"], k["op_name"]) == ("cudaLaunchKernel", "aten::mm")


def test_stream_timeline_launch_offset_exact_at_epoch_clock():
    # the same launch link on an epoch clock (Kineto µs since 1970: ~1.7e18 ns, where a double steps by 256 ns):
    # the launch call's offset from the origin is 20 ns + 1 ns exactly, not rounded to a multiple of 256 ns
    base = 1_730_156_791_096_100_149
    n = 3
    cols = {"kind": ["cpu_op", "runtime", "kernel"], "name": ["aten::mm", "cudaLaunchKernel", "gemm"],
            "start_ns": [base + 100, base + 121, base + 400], "dur_ns": [200, 30, 50],
            "stream_id": [None, None, 7], "device_id": [-1, -1, 0], "tid": [9, 9, None], "pid": [1, 1, None],
            "rank": [0] * n, "correlation_id": [None, 5, 5], "external_id": [3, 3, 3], "event_id": list(range(n)),
            "source": ["t"] * n}
    tl = Timeline(make_table(EVENT_COLUMNS, cols)).validate()
    k = StreamTimeline().analyze(tl).table.query("device_id == 0").iloc[0]
    assert (k["offset_ns"], k["launch_offset_ns"]) == (300, 21)


def test_rank_kernels_hand_computed():
    # rank 0: a 60 + b 40 = 100; rank 1: a 90 + b 50 = 140 → imbalance (140-100)/120 = 33.3 %
    tl = _tl([("kernel", "a", 0, 60, 1, 0), ("kernel", "b", 100, 40, 1, 0),
              ("kernel", "a", 0, 90, 1, 1), ("kernel", "b", 100, 50, 1, 1)])
    r = RankKernels().analyze(tl)
    assert r.summary["imbalance_pct"] == pytest.approx(100 * 40 / 120)
    assert r.summary["slowest_rank"] == 1 and r.summary["kernel_time_ns_by_rank"] == {"0": 100, "1": 140}
    got = {(x.rank, x.name): (x.time_ns, round(x.share, 4)) for x in r.table.itertuples()}
    assert got == {(0, "a"): (60, 0.6), (0, "b"): (40, 0.4), (1, "a"): (90, round(90 / 140, 4)),
                   (1, "b"): (50, round(50 / 140, 4))}
    # no collective on either rank: no rank is seen waiting, the 40 ns are rank 1's own kernels' (s28 fuzz)
    assert r.findings and r.findings[0].rank == 1 and r.findings[0].time_at_stake_ns is None


def test_rank_kernels_skips_single_rank_with_reason():
    r = RankKernels().analyze(_tl([("kernel", "a", 0, 60, 1, 0)]))
    assert r.skipped and "nothing to compare" in r.skipped_reason


def test_rank_kernels_on_the_multirank_pair_matches_a_direct_sum():
    src = gpulens.analyze([KINETO / "multirank"]).sources[0]
    ev = src.timeline.of_kind("kernel", "comm")
    direct = ev.groupby("rank")["dur_ns"].sum().to_dict()
    assert src.results["rank_kernels"].summary["kernel_time_ns_by_rank"] == {str(k): v for k, v in direct.items()}
