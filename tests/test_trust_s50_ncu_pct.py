"""Which ncu percentages may exceed 100 and which are faults (session 50).

ncu divides every ``*_active`` rollup by the unit's *average* active cycles (``<unit>__cycles_active.avg``), so the
``.max`` rollup of a ``pct_of_peak_sustained_active`` ratio — the busiest unit's count over one unit's peak — exceeds
100 when the work sits on few of the units (a 1-block grid), up to 100 × the unit count. Those are measurements:
kept, no warning. A hit rate or an ``.avg`` utilisation above 100 stays impossible: dropped, counted in ONE warning.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpulens.timeline.percent import exceeds_100_by_design, percent_over, warning_of

H200_REP = Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_kernels.ncu-rep"
#: resident warps per SM of compute capability 9.0 (CUDA C++ Programming Guide, "Technical Specifications per
#: Compute Capability": maximum number of resident warps per SM = 64)
WARPS_PER_SM_CC90 = 64


def test_rollup_max_over_active_cycles_is_kept_and_hit_rates_are_not():
    metrics = pd.Series(["sm__warps_active.max.pct_of_peak_sustained_active",       # 1 of 128 SMs busy: legit
                         "smsp__issue_inst0.max.pct_of_peak_burst_active",
                         "lts__t_sector_op_write_hit_rate.pct",                      # hit rate > 100: fault
                         "sm__warps_active.avg.pct_of_peak_sustained_active",        # an average > 100: fault
                         "dram__throughput.max.pct_of_peak_sustained_elapsed",       # elapsed denominators: fault
                         "sm__warps_active.max.pct_of_peak_sustained_active"])       # below 100: nothing to drop
    units = pd.Series(["%"] * 6)
    values = np.array([5642.59, 11812.7, 129.52, 150.0, 101.0, 44.0])
    over = percent_over(metrics, units, values)
    assert over.tolist() == [False, False, True, True, True, False]
    # one warning for all three faults, counted, not one per metric
    w = warning_of(over, metrics)
    assert w.startswith("3 percentage counter values above 100 dropped") and "sm__warps_active.max" not in w
    assert exceeds_100_by_design("l1tex__throughput.max.pct_of_peak_sustained_active")
    assert not exceeds_100_by_design("l1tex__throughput.avg.pct_of_peak_sustained_active")
    assert not exceeds_100_by_design("sm__throughput.max.pct_of_peak_sustained_elapsed")


def _counters():
    import gpulens.collectors as C

    if not H200_REP.exists():
        pytest.skip("tests/data/nvidia/h200/h200_kernels.ncu-rep absent")
    tl = C.collect_file(C.sniff(H200_REP), H200_REP)
    co = tl.counters
    return tl, co.assign(metric=co["metric"].astype(str))


def test_real_capture_keeps_the_rollup_values_and_they_check_by_hand():
    """The H200 capture's 1-block kernel: one SM active for 1,276 cycles, sm__cycles_active.avg = 1,276 / 132 SMs;
    the busiest SM held 132 warps per average active cycle, so 132 / 64 warps per SM = 206.25 % — and that is 132
    (the SM count) × the .avg rollup's 1.5625 %."""
    tl, co = _counters()
    assert not any("above 100 dropped" in w for w in tl.meta.warnings)

    def val(eid, m):
        v = co[(co["event_id"] == eid) & (co["metric"] == m)]["value"]
        return float(v.iloc[0]) if len(v) else None

    big = co[co["metric"].str.endswith(".max.pct_of_peak_sustained_active") & (co["value"] > 100)]
    assert len(big) >= 3  # kept, as recorded (l1tex, sm__warps_active, smsp__issue_active …)
    eid = int(big[big["metric"] == "sm__warps_active.max.pct_of_peak_sustained_active"]["event_id"].iloc[0])
    per_cycle = val(eid, "sm__warps_active.max.per_cycle_active")
    assert val(eid, "sm__warps_active.max.pct_of_peak_sustained_active") == pytest.approx(
        100 * per_cycle / WARPS_PER_SM_CC90, rel=1e-6)
    # all the work on one SM (sum of active cycles == the busiest SM's): max = SM count × avg
    assert val(eid, "sm__cycles_active.sum") == val(eid, "sm__cycles_active.max")
    sms = tl.meta.devices[0]["num_sms"]
    assert val(eid, "sm__warps_active.max.pct_of_peak_sustained_active") == pytest.approx(
        sms * val(eid, "sm__warps_active.avg.pct_of_peak_sustained_active"), rel=1e-6)
    # the bound the definition gives: never above 100 × the unit count
    assert (big[big["metric"].str.startswith("sm__")]["value"] <= 100 * sms).all()


def test_no_report_figure_shows_the_rollup_as_a_utilisation():
    """The speed-of-light and occupancy figures read the .avg rollups only: none above 100 on this capture."""
    import gpulens

    if not H200_REP.exists():
        pytest.skip("tests/data/nvidia/h200/h200_kernels.ncu-rep absent")
    src = gpulens.analyze([H200_REP]).sources[0]
    for name in ("speed_of_light", "occupancy"):
        r = src.results.get(name)
        if r is None or r.table is None:
            continue
        for c in [c for c in r.table.columns if str(c).endswith("_pct")]:
            v = pd.to_numeric(r.table[c], errors="coerce")
            assert not (v > 100).any(), (name, c)
