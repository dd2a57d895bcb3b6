"""Distributions, outliers, queue length and variation on hand-made traces (expected values derived by hand)."""

from __future__ import annotations

import pytest

from gpulens.report import analyze
from tests.dig_traces import KTrace

NAMES = ["hotspots", "kernel_distributions", "kernel_outliers", "queue_length", "queue_length_series",
         "kernel_variation"]


def _steps_trace(tmp_path):
    """4 steps × 8 launches of kernel "k"; instance j of step s lasts (10 + j) µs, ×2 in step 3."""
    t = KTrace()
    gpu = 10_000.0
    durs = {}
    for s in range(1, 5):
        t.annotation(f"ProfilerStep#{s}", s * 1000.0, 900)
        for j in range(8):
            d = (10.0 + j) * (2 if s == 3 else 1)
            e = t.op("aten::mm", s * 1000.0 + 10 + 100 * j, 50)
            t.launch(e, s * 1000.0 + 20 + 100 * j, [("k", gpu, d)])
            durs[(s, j)] = d
            gpu += 100
    return t.write(tmp_path / "steps.json"), durs


def test_percentiles_outliers_and_step_variation(tmp_path):
    path, durs = _steps_trace(tmp_path)
    r = analyze([path], only=NAMES).sources[0].results
    d = r["kernel_distributions"].table.set_index("name").loc["k"]
    vals = sorted(durs.values())  # 32 values: 10..17 three times, 20..34 (even) once
    # linear interpolation between order statistics: position p/100·(n−1)
    def pct(p):
        x = p / 100 * (len(vals) - 1)
        lo = int(x)
        return (vals[lo] + (x - lo) * (vals[min(lo + 1, len(vals) - 1)] - vals[lo])) * 1000
    assert d["calls"] == 32
    assert d["p50_ns"] == pytest.approx(pct(50)) and d["p90_ns"] == pytest.approx(pct(90))
    assert d["p99_ns"] == pytest.approx(pct(99)) and d["max_ns"] == 34_000
    # sorted: three each of 10..17 (positions 0–23), then 20..34: positions 15 and 16 are both 15 µs
    assert d["p50_ns"] == 15_000
    o = r["kernel_outliers"].table
    assert o.loc[0, "dur_ns"] == 34_000 and o.loc[0, "step"] == 3 and o.loc[0, "rank"] == 0
    assert o.loc[0, "vs_median"] == pytest.approx(34 / 15)
    v = r["kernel_variation"].table.set_index("dimension").loc["step"]
    # step medians: 13.5 µs in steps 1, 2, 4 and 27 µs in step 3 → spread 100 %
    assert bool(v["varies"]) and v["slowest_group"] == 3 and v["spread_pct"] == pytest.approx(100.0)
    assert v["excess_ns"] == pytest.approx(8 * (27.0 - 13.5) * 1000)  # 8 instances of step 3 at +13.5 µs


def _alike_steps(tmp_path, dur_us, by_step=None):
    """3 steps × 4 launches of kernel "k"; launch j of every step lasts ``dur_us(j)`` µs (``by_step(s, j)`` instead
    when given)."""
    t = KTrace()
    gpu = 10_000.0
    for s in range(1, 4):
        t.annotation(f"ProfilerStep#{s}", s * 1000.0, 900)
        for j in range(4):
            e = t.op("aten::mm", s * 1000.0 + 10 + 100 * j, 50)
            t.launch(e, s * 1000.0 + 20 + 100 * j, [("k", gpu, by_step(s, j) if by_step else dur_us(j))])
            gpu += 100
    return t.write(tmp_path / "a.json")


def test_no_variation_when_steps_are_alike(tmp_path):
    path = _alike_steps(tmp_path, lambda j: 10.0 + j)  # same 4 durations every step
    v = analyze([path], only=NAMES).sources[0].results["kernel_variation"].table
    assert not v["varies"].any() and v.loc[0, "spread_pct"] == 0


def test_identical_durations_everywhere_have_p_value_one(tmp_path):
    """Every launch lasts the same 10 µs in every step: all values tie, Kruskal–Wallis' H is 0/0 (scipy returns
    NaN with a warning, older versions raise). Nothing varies, so the test's p-value is 1, never NaN."""
    import warnings

    path = _alike_steps(tmp_path, lambda j: 10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        v = analyze([path], only=NAMES).sources[0].results["kernel_variation"].table
    row = v.set_index("dimension").loc["step"]
    assert row["p_value"] == 1.0 and not bool(row["varies"]) and row["spread_pct"] == 0


def test_queue_length_step_function(tmp_path):
    t = KTrace()
    for i in range(3):  # launches at 100, 101, 102 µs; kernels run back to back 110–120, 120–130, 130–140
        e = t.op("aten::add", 100.0 + i, 0.5)
        t.launch(e, 100.0 + i, [(f"k{i}", 110.0 + 10 * i, 10.0)], dur=0.5)
    r = analyze([t.write(tmp_path / "q.json")], only=NAMES).sources[0].results
    q = r["queue_length"].table.iloc[0]
    # queue: 1 on [100,101), 2 on [101,102), 3 on [102,120), 2 on [120,130), 1 on [130,140): span 40 µs
    assert q["max_queue"] == 3 and q["launches"] == 3 and q["span_ns"] == 40_000
    assert q["mean_queue"] == pytest.approx((1 * 1 + 2 * 1 + 3 * 18 + 2 * 10 + 1 * 10) / 40)
    assert q["empty_share"] == 0
    s = r["queue_length_series"].table
    assert s["max_queue"].max() == 3 and s.iloc[-1]["max_queue"] == 1


def test_outliers_are_instances_well_above_their_median(tmp_path):
    """Durations 10, 11, 12, 13 µs every step (12 launches, median 11.5 µs): the slowest is 13/11.5 = 1.13×
    its median — jitter, not an outlier. The table used to list the 3 slowest anyway ("vs median 1.1")."""
    path = _alike_steps(tmp_path, lambda j: 10.0 + j)
    o = analyze([path], only=NAMES).sources[0].results["kernel_outliers"]
    assert o.skipped and "1.5×" in o.skipped_reason and len(o.table) == 0


def test_outlier_threshold_is_one_and_a_half_medians(tmp_path):
    """Launch 3 of each step lasts 16 µs, 17.5 µs in step 2 (others 10 µs): median of the 12 durations is 10 µs, so
    17.5 µs (1.75×) and the two 16 µs (1.6×) are outliers; a 14.9 µs instance (1.49×) would not be."""
    durs = {(1, 3): 16.0, (2, 3): 17.5, (3, 3): 16.0, (3, 2): 14.9}
    path = _alike_steps(tmp_path, None, by_step=lambda s, j: durs.get((s, j), 10.0))
    o = analyze([path], only=NAMES).sources[0].results["kernel_outliers"].table
    assert list(o["dur_ns"]) == [17_500, 16_000, 16_000]
    assert o.loc[0, "vs_median"] == pytest.approx(1.75) and list(o["step"]) == [2, 1, 3]
