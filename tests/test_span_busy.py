"""One definition of span, busy % and utilisation (issue 14.5, issue 21.3/21.4/21.7).

Every expected value below is worked out by hand from the intervals written in the test.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.report import Report
from gpulens.reports import json_report
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table
from tests.conftest import CASES


def tl_of(rows):
    """rows: (kind, name, start_ns, dur_ns, stream, rank, device)."""
    n = len(rows)
    keys = ["kind", "name", "start_ns", "dur_ns", "stream_id", "rank", "device_id"]
    cols = {k: [r[i] for r in rows] for i, k in enumerate(keys)}
    return Timeline(make_table(EVENT_COLUMNS, {**cols, "event_id": list(range(n)), "source": ["t"] * n})).validate()


def test_span_includes_copies_and_window_includes_host_ops():
    # host op [1000, 1100); memcpy [1010, 1020) before the first kernel; kernels [1030, 1060), [1080, 1090)
    tl = tl_of([("cpu_op", "aten::mm", 1000, 100, None, 0, -1), ("memcpy", "Memcpy HtoD", 1010, 10, 7, 0, 0),
                ("kernel", "a", 1030, 30, 7, 0, 0), ("kernel", "b", 1080, 10, 7, 0, 0)])
    src = gpulens.analyze_timeline(tl)
    sm, bd = src.summary, src.results["breakdown"].summary
    # GPU span = 1010 → 1090 = 80 (the copy counts); busy = 10 + 30 + 10 = 50 → 62.5 %
    assert sm["span_ns"] == bd["span_ns"] == 80
    assert sm["gpu_busy_ns"] == 50 and sm["gpu_busy_pct"] == pytest.approx(62.5)
    # profiled window = 1000 → 1100 = 100 (host op included): 50 / 100 = 50 %
    assert sm["window_ns"] == 100 and sm["gpu_utilization_pct"] == pytest.approx(50.0)
    # the breakdown row shows the same figures as the summary
    row = src.results["breakdown"].table.iloc[0]
    assert row["span_ns"] == 80 and row["busy_pct"] == pytest.approx(62.5)


def test_b06_span_and_window_definitions():
    # cases/README B06: valid aten::mm [T-5, T+35], k_ok1 [T, T+10], k_ok2 [T+20, T+35]:
    # busy 25 µs, profiled window 40 µs → 62.5 %; GPU span T → T+35 = 35 µs → busy 25/35 = 71.4 %
    sm = gpulens.analyze([CASES / "B06.json"]).sources[0].summary
    assert sm["gpu_busy_ns"] == 25_000
    assert sm["window_ns"] == 40_000 and sm["gpu_utilization_pct"] == pytest.approx(62.5)
    assert sm["span_ns"] == 35_000 and sm["gpu_busy_pct"] == pytest.approx(100 * 25 / 35)


def test_multirank_spans_are_never_summed_and_busy_never_exceeds_100():
    # rank 0 GPU 0: kernels [0, 50), [90, 100) → span 100, busy 60
    # rank 1 GPU 0: kernel [10, 110) → span 100, busy 100
    tl = tl_of([("kernel", "a", 1000, 50, 1, 0, 0), ("kernel", "a", 1090, 10, 1, 0, 0),
                ("kernel", "b", 1010, 100, 1, 1, 0)])
    src = gpulens.analyze_timeline(tl)
    sm = src.summary
    assert sm["span_ns"] == 110                    # wall: 1000 → 1110, not 100 + 100
    assert sm["device_span_ns"] == 200
    assert sm["rank_span_ns"] == {0: 100, 1: 100}
    assert sm["gpu_busy_pct"] == pytest.approx(100 * 160 / 200)   # device-time ratio 80 %, not 160/110
    assert src.results["breakdown"].summary["busy_pct_mean"] == pytest.approx((60 + 100) / 2)
    ranks = src.results["ranks"].table.set_index("rank")
    assert ranks.loc[0, "span_ns"] == 100 and ranks.loc[1, "span_ns"] == 100


def test_ranks_on_disagreeing_clocks_give_the_longest_rank_span_and_one_warning():
    # rank 1's clock is a day ahead: wall span would be ~86,400 s for two 100 ns spans
    day = 86_400 * 10**9
    tl = tl_of([("kernel", "a", 1000, 100, 1, 0, 0), ("kernel", "a", 1000 + day, 80, 1, 1, 0)])
    src = gpulens.analyze_timeline(tl)
    sm = src.summary
    assert sm["span_ns"] == 100 and sm["span_basis"] == "longest rank"
    assert sm["span_ns"] <= sum(sm["rank_span_ns"].values())
    gpulens.analyze_timeline(tl)                 # analysing again does not repeat the warning
    assert sum("clocks disagree" in w for w in tl.meta.warnings) == 1
    skew = src.results["breakdown"].summary["clock_skew_ns"]
    assert skew == day + 80 - 180                # wall (day + 80) − Σ spans (100 + 80)


def test_partial_source_makes_the_report_partial():
    tl = tl_of([("kernel", "a", 1000, 100, 1, 0, 0)])
    tl.meta.truncated = True
    rep = Report([gpulens.analyze_timeline(tl)])
    assert rep.sources[0].status == "partial" and rep.status == "partial"
    assert json.loads(json_report.render(rep))["status"] == "partial"


def test_b04b_truncated_case_is_partial_at_the_top():
    rep = gpulens.analyze([CASES / "B04b.json"], strict=False)
    assert json.loads(json_report.render(rep))["status"] == "partial"


def test_every_overrun_is_named_with_its_amount():
    # stream 7: a [100, 150) overruns b@140 by 10; c [170, 3_000_170) overruns d@200 by 2_999_970; d ends at 220
    tl = tl_of([("kernel", "gemm_a", 100, 50, 7, 0, 0), ("kernel", "gemm_b", 140, 20, 7, 0, 0),
                ("kernel", "elementwise_c", 170, 3_000_000, 7, 0, 0), ("kernel", "softmax_d", 200, 20, 7, 0, 0)])
    hs = gpulens.analyze_timeline(tl).results["hotspots"]
    clipped = {c["name"]: c["overrun_ns"] for c in hs.summary["overruns"]}
    assert clipped == {"gemm_a": 10, "elementwise_c": 2_999_970}
    f = next(f for f in hs.findings if f.key == "overruns")
    # amounts written with their unit (gpulens.units.fmt_ns): 10 ns, and 2,999,970 ns = 3.00 ms
    assert "gemm_a" in f.detail and "elementwise_c" in f.detail and "by 3.00 ms" in f.detail and "by 10 ns" in f.detail


def test_files_on_different_clocks_never_give_an_impossible_span():
    # one GPU: kernels [1000, 1100) and [1200, 1250) on one clock, a copy 102 days later on another:
    # the 8.8 million s gap is two time bases, not idle: span = 250 + 40 = 290 ns, busy 190 ns
    later = 8_800_000 * 10**9
    tl = tl_of([("kernel", "a", 1000, 100, 1, 0, 0), ("kernel", "b", 1200, 50, 1, 0, 0),
                ("memcpy", "Memcpy HtoD", later, 40, 2, 0, 0)])
    src = gpulens.analyze_timeline(tl)
    sm = src.summary
    assert sm["span_ns"] == 290 and sm["gpu_busy_ns"] == 190
    assert sm["gpu_busy_pct"] == pytest.approx(100 * 190 / 290)
    assert sum("different clocks" in w for w in tl.meta.warnings) == 1
    # nor is it an idle gap: the only gap on the one clock is [1100, 1200) = 100 ns (= span − busy)
    from gpulens.analyzers.bottlenecks import classify_gaps

    assert classify_gaps(tl)["dur_ns"].tolist() == [100]
    assert all("8800000" not in (f.title + f.detail) for f in src.findings())


def test_a_folder_of_different_gpus_is_not_one_run(tmp_path):
    # an H100 trace and an MI300X trace, both rank 0, in one folder: two sources, each with its own device
    import json as _json

    for name, dev in (("h100.json", "NVIDIA H100 80GB HBM3"), ("mi300x.json", "AMD Instinct MI300X")):
        ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000, "dur": 10,
               "args": {"device": 0, "stream": 7}}]
        (tmp_path / name).write_text(_json.dumps({"schemaVersion": 1, "traceEvents": ev,
                                                  "deviceProperties": [{"id": 0, "name": dev}]}))
    rep = gpulens.analyze([tmp_path])
    assert len(rep.sources) == 2
    names = [{d.get("name") for d in s.timeline.meta.devices} for s in rep.sources]
    assert all(len(n) == 1 for n in names) and names[0] != names[1]
    assert all(s.summary["span_ns"] == 10_000 for s in rep.sources)
    # session 50: how the folder was split is a reading note (said once for the folder), not an input warning
    from gpulens.reports._warnings import reading_notes

    assert all(any("different GPUs" in w for w in reading_notes(s.timeline.meta)) for s in rep.sources)
