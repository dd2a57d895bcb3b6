"""rocprofiler-compute (Omniperf) workload folders: SOURCES.md facts, roofs, sysinfo, scientific-notation timestamps."""

from __future__ import annotations

import csv

import pytest

from gpulens.collectors import collect, sniff
from tests.conftest import DATA

MI200 = DATA / "omniperf" / "vcopy_MI200"
MI300 = DATA / "omniperf" / "vcopy_MI300X_A1"


def test_mi200_workload_dispatches_and_counters():
    tl = collect(MI200)
    assert sniff(MI200).name == "omniperf"
    k = tl.of_kind("kernel").sort_values("event_id")
    assert len(k) == 3 and set(k["name"].astype(str)) == {"vecCopy(double*, double*, double*, int, int) [clone .kd]"}
    assert list(k["dur_ns"]) == [20480, 16320, 15520]  # timestamps.csv End - Start
    e0 = k.iloc[0]
    assert (e0["block_x"], e0["grid_x"], e0["regs_per_thread"], e0["device_id"]) == (256, 1048576 // 256, 8, 2)
    c = tl.counters[tl.counters["event_id"] == e0["event_id"]].set_index("metric")["value"]
    assert (c["SQ_WAVES"], c["SQ_INSTS_VALU"], c["SQ_INSTS_SALU"]) == (16384, 163840, 49152)
    assert c["GRBM_GUI_ACTIVE"] == 29465
    # the tool's own _sum column is kept (72935), not recomputed from TCC_HIT[n] of another pass (72906)
    assert (c["TCC_HIT_sum"], c["TCC_MISS_sum"]) == (72935.0, 131081.0)
    assert "wave_size_1" not in c and "obj_3" not in c and "TCC_HIT[0]" not in c
    assert "SQC_DCACHE_REQ_READ_8" in c  # a real counter whose name ends in _<n>


def test_instance_columns_without_sum_are_summed():
    with open(MI200 / "pmc_perf.csv", newline="") as fh:
        row = next(csv.DictReader(fh))
    base = "TCC_EA_WRREQ_DRAM_CREDIT_STALL"
    assert f"{base}_sum" not in row
    expected = sum(float(v) for k, v in row.items() if k.startswith(base + "["))
    tl = collect(MI200)
    c = tl.counters[(tl.counters["event_id"] == 0) & (tl.counters["metric"] == f"{base}_sum")]["value"]
    assert list(c) == [expected]


def test_mi200_sysinfo_and_empirical_roofs():
    tl = collect(MI200)
    dev = tl.meta.devices[0]
    assert (dev["name"], dev["gfx_arch"], dev["num_sms"], dev["warp_size"]) == ("MI200", "gfx90a", 104, 64)
    assert dev["hbm_bandwidth_bytes_per_s"] == pytest.approx(1638.4e9)
    assert dev["rocm_version"] == "6.0.2-115" and dev["command"] == "./tests/vcopy -n 1048576 -b 256 -i 3"
    roofs = tl.tables["empirical_roofs"]
    assert len(roofs) == 4 * 11 and sorted(roofs["device"].unique()) == [0, 1, 2, 3]
    d0 = roofs[roofs["device"] == 0].set_index("roof")
    assert d0.loc["HBMBw", "value"] == pytest.approx(1388.9302e9) and d0.loc["HBMBw", "unit"] == "bytes/s"
    assert d0.loc["HBMBw", "high"] == pytest.approx(1389.4768e9)  # header spelled hbmBwHigh
    assert d0.loc["FP64Flops", "value"] == pytest.approx(20272.537e9) and d0.loc["FP64Flops", "unit"] == "FLOP/s"
    assert d0.loc["MFMAF64Flops", "value"] == pytest.approx(41497.562e9)
    assert d0.loc["MFMAI8Ops", "unit"] == "OP/s" and d0.loc["MFMAI8Ops", "low"] == pytest.approx(165911.17e9)


def test_mi300_scientific_notation_timestamps_keep_counters_with_unknown_duration():
    # issue 15.5(c): 8.1097E+14 start and end lost their ns digits: the dispatches stay (duration unknown, flagged)
    # so their counters are analysed, rather than "no GPU events"
    tl = collect(MI300)
    assert len(tl.events) == 3 and set(tl.events["dur_ns"]) == {0}
    assert tl.meta.sources[0]["durations_unknown"] == 3
    assert any("scientific notation" in w and "unknown duration" in w for w in tl.meta.warnings)
    c = tl.counters
    first = c[c["event_id"] == 0].assign(metric=lambda x: x["metric"].astype(str)).set_index("metric")["value"]
    assert (first["SQ_WAVES"], first["SQ_INSTS_VALU"], first["GRBM_GUI_ACTIVE"]) == (16384, 98304, 2572147)
    assert (first["TCC_HIT_sum"], first["TCC_MISS_sum"]) == (66160, 131311)
    dev = tl.meta.devices[0]
    assert (dev["gfx_arch"], dev["num_sms"], dev["num_xcc"]) == ("gfx942", 304, 8)
    assert dev["hbm_bandwidth_bytes_per_s"] == pytest.approx(5324.8e9)
    assert "empirical_roofs" not in tl.tables  # roofline.csv absent on this workload


def test_single_pass_csv_loads_alone():
    tl = collect(MI200 / "SQ_LEVEL_WAVES.csv")
    assert sniff(MI200 / "SQ_LEVEL_WAVES.csv").name == "rocprof_v1"
    c = tl.counters[tl.counters["metric"] == "SQ_WAVES"]
    assert list(c["value"]) == [16384.0] * 3


def test_sysinfo_and_roofline_load_alone():
    s = collect(MI300 / "sysinfo.csv")
    assert sniff(MI300 / "sysinfo.csv").name == "omniperf_sysinfo"
    assert (s.meta.devices[0]["name"], s.meta.devices[0]["gfx_arch"]) == ("MI300X_A1", "gfx942")
    r = collect(MI200 / "roofline.csv").tables["empirical_roofs"]
    assert len(r) == 44 and r.loc[(r["device"] == 3) & (r["roof"] == "HBMBw"), "value"].iloc[0] == \
        pytest.approx(1389.0236e9)
