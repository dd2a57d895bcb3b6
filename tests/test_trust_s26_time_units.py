"""A time unit is converted by its spelling, and a unit that is no time is never read as ns.

Kind: ``nsys stats`` headers ``Total Time (usec)``, ``(msecond)``, ``(msec)``, ``(second)`` — and ``(cycle)`` — were
all read as ns (11 ms of kernel time shown for 11 s, 11,000 s or an unknown amount); ncu ``Duration`` rows in
``usec``/``msec``/``cycle`` likewise. Expected values are the files' own figures times the unit's factor (T08 of
the shared cases: 8,000,000 + 3,000,000 in the printed unit; B20: 1,234.56 of the printed unit).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.collectors._time_units import ns_factor
from gpulens.errors import TraceFormatError

NSYS = ("Time (%),Total Time ({u}),Instances,Avg ({u}),Med ({u}),Min ({u}),Max ({u}),StdDev ({u}),Name\n"
        "72.7,8000000,20,400000.0,400000.0,390000,410000,5000.0,gemm_kernel\n"
        "27.3,3000000,10,300000.0,300000.0,290000,310000,6000.0,softmax_kernel\n")


@pytest.mark.parametrize("unit,factor", [("ns", 1), ("nsec", 1), ("us", 10**3), ("usec", 10**3), ("µs", 10**3),
                                         ("ms", 10**6), ("msec", 10**6), ("msecond", 10**6), ("s", 10**9),
                                         ("sec", 10**9), ("second", 10**9)])
def test_nsys_stats_time_units_convert(tmp_path, unit, factor):
    p = tmp_path / "kern_sum.csv"
    p.write_text(NSYS.format(u=unit), encoding="utf-8")
    src = gpulens.analyze([p]).sources[0]
    assert src.summary["kernel_time_ns"] == 11_000_000 * factor
    ks = src.timeline.tables["kernel_summary"]
    assert ks["max_ns"].tolist() == [410_000 * factor, 310_000 * factor]


def test_nsys_stats_total_time_in_cycles_is_an_error_not_ns(tmp_path):
    p = tmp_path / "kern_sum.csv"
    p.write_text(NSYS.format(u="cycle"))
    with pytest.raises(TraceFormatError, match=r"'Total Time \(cycle\)'.*no time unit"):
        collect(p)


def test_nsys_stats_statistic_in_an_unknown_unit_is_unknown(tmp_path):
    p = tmp_path / "kern_sum.csv"
    p.write_text(NSYS.format(u="ns").replace("Max (ns)", "Max (cycle)"))
    tl = collect(p)
    ks = tl.tables["kernel_summary"]
    assert ks["total_ns"].tolist() == [8_000_000, 3_000_000]
    assert ks["max_ns"].isna().all()
    assert any("'Max (cycle)'" in w and "unknown" in w for w in tl.meta.warnings)


def _ncu(tmp_path, unit: str) -> Path:
    p = tmp_path / "ncu.csv"
    p.write_text('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name",'
                 '"Metric Name","Metric Unit","Metric Value"\n'
                 f'"0","1","app","h","k","1","7","GPU Speed Of Light Throughput","Duration","{unit}","1,234.56"\n')
    return p


@pytest.mark.parametrize("unit,ns", [("nsecond", 1_235), ("usecond", 1_234_560), ("usec", 1_234_560),
                                     ("msec", 1_234_560_000), ("sec", 1_234_560_000_000)])
def test_ncu_duration_units_convert(tmp_path, unit, ns):
    assert collect(_ncu(tmp_path, unit)).events["dur_ns"].tolist() == [ns]


@pytest.mark.parametrize("unit", ["cycle", "fortnight"])
def test_ncu_duration_in_a_unit_that_is_no_time_is_unknown(tmp_path, unit):
    tl = collect(_ncu(tmp_path, unit))
    assert tl.meta.sources[0].get("durations_unknown") == 1
    assert any("no time" in w and unit in w for w in tl.meta.warnings)


def test_unit_table():
    assert ns_factor("msecond") == 1e6 and ns_factor("USEC") == 1e3 and ns_factor("cycle") is None
    assert ns_factor("") is None and ns_factor(None) is None
