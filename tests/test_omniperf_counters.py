"""rocprof-compute workloads as they come (issue 15.5): exact scientific-notation timestamps, wave-occupancy
accumulators paired with SQ_LEVEL_WAVES by pass, workloads without usable timestamps analysed from counters, and
per-XCD normalisation (rocprof-compute ``$GRBM_GUI_ACTIVE_PER_XCD = GRBM_GUI_ACTIVE / $num_xcd``,
ROCm/rocprofiler-compute ``src/utils/parser.py``; "Wavefront Occupancy" in
``analysis_configs/gfx942/0200_system-speed-of-light.yaml``: 100 · SQ_ACCUM_PREV_HIRES / GRBM_GUI_ACTIVE_PER_XCD /
(max_waves_per_cu · cu_per_gpu), ``coll_level: SQ_LEVEL_WAVES``)."""

from __future__ import annotations

import csv

import pytest

import gpulens
from tests.conftest import DATA as _DATA, shared_trace


def _omni(name):
    """The committed rocprof-compute workload under tests/data/omniperf, else the developer corpus."""
    p = _DATA / "omniperf" / name
    return p if p.exists() else shared_trace(f"omniperf/{name}")

SYSINFO = ("workload_name,gpu_model,gpu_arch,cu_per_gpu,simd_per_cu,wave_size,max_waves_per_cu,max_sclk,hbm_bw,"
           "num_xcd,total_l2_chan\nw,MI300A,gfx942,228,4,64,32,2100,5300,6,96\n")


def _mi300a_folder(tmp_path, start="1.411551767635712e+15", end="1.411551767656192e+15"):
    # two passes in pmc_perf.csv: the instruction-fetch pass (SQ_IFETCH_LEVEL with the bare SQ_ACCUM_PREV_HIRES) and
    # the wave pass (SQ_LEVEL_WAVES with SQ_ACCUM_PREV_HIRES_1), each with its own GRBM_GUI_ACTIVE
    d = tmp_path / "mi300a"
    d.mkdir()
    (d / "sysinfo.csv").write_text(SYSINFO)
    (d / "pmc_perf.csv").write_text(
        "Dispatch_ID,GPU_ID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,"
        "SGPR,wave_size,Kernel_Name,Start_Timestamp,End_Timestamp,SQ_IFETCH_LEVEL,SQ_ACCUM_PREV_HIRES,GRBM_GUI_ACTIVE,"
        "wave_size_1,SQ_LEVEL_WAVES,SQ_ACCUM_PREV_HIRES_1,GRBM_GUI_ACTIVE_1,SQ_WAVES\n"
        f'0,2,1048576,256,0,0,32,0,16,64,"stream_triad(double*) (.kd)",{start},{end},0,1234,590000,'
        "64,0,364800000,600000,16384\n")
    return d


def test_wave_occupancy_pairs_the_level_waves_accumulator_by_pass(tmp_path):
    # the SQ_LEVEL_WAVES pass: 364,800,000 / (600,000 / 6 XCDs) = 3,648 resident waves of 32 × 228 = 7,296 slots
    # → 50.0 %. The instruction-fetch accumulator (1,234) would give ≈ 0 %, and no per-XCD division 8.3 %.
    src = gpulens.analyze([_mi300a_folder(tmp_path)]).sources[0]
    expected = 100 * 364_800_000 / (600_000 / 6) / (32 * 228)
    assert expected == pytest.approx(50.0)
    sol = src.results["speed_of_light"].table.iloc[0]
    assert sol["achieved_occupancy_pct"] == pytest.approx(expected)
    occ = src.results["occupancy"].table.iloc[0]
    assert occ["achieved_occupancy_pct"] == pytest.approx(expected)


def test_scientific_notation_with_all_digits_is_exact(tmp_path):
    # 1.411551767656192e+15 − 1.411551767635712e+15 = 20,480 ns exactly (float64 parsing would also round here,
    # but the start must keep its last digit: 1,411,551,767,635,712)
    tl = gpulens.collect(_mi300a_folder(tmp_path))
    e = tl.events.iloc[0]
    assert (int(e["start_ns"]), int(e["dur_ns"])) == (1_411_551_767_635_712, 20_480)


def test_timestamps_without_digits_still_analysed_from_counters(tmp_path):
    # 8.1097E+14 for both start and end: duration unknown; the dispatch stays, its counters are analysed (exit 0)
    d = _mi300a_folder(tmp_path, "8.1097E+14", "8.1097E+14")
    src = gpulens.analyze([d]).sources[0]
    assert src.status == "ok" and len(src.timeline.of_kind("kernel")) == 1
    assert src.timeline.meta.sources[0]["durations_unknown"] == 1
    sol = src.results["speed_of_light"].table.iloc[0]
    assert sol["achieved_occupancy_pct"] == pytest.approx(50.0)
    assert sol["time_ns"] is None and sol["time_at_stake_ns"] is None  # unknown, not 0
    assert sol["dram_pct"] != sol["dram_pct"]  # NaN: a bandwidth needs a duration


def test_real_mi300x_workload_with_lost_timestamps():
    folder = _omni("vcopy_MI300X_A1")
    with open(folder / "SQ_LEVEL_WAVES.csv", newline="") as f:
        lw = list(csv.DictReader(f))
    with open(folder / "sysinfo.csv", newline="") as f:
        si = next(csv.DictReader(f))
    occ = [100 * float(r["SQ_ACCUM_PREV_HIRES"]) / (float(r["GRBM_GUI_ACTIVE"]) / float(si["num_xcd"]))
           / (float(si["max_waves_per_cu"]) * float(si["cu_per_gpu"])) for r in lw]
    src = gpulens.analyze([folder]).sources[0]
    assert src.status == "ok" and len(src.timeline.of_kind("kernel")) == len(lw) == 3
    row = src.results["speed_of_light"].table.iloc[0]
    assert row["vendor"] == "amd"
    assert row["achieved_occupancy_pct"] == pytest.approx(sum(occ) / len(occ))  # no durations: plain mean
