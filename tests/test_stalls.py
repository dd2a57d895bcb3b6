"""Stall classification: one test per class, from a hand-written ncu details CSV and rocprof-compute counter rows.

The files in tests/data/stalls are read here with the csv module (independently of any gpulens collector) into a
Timeline with hand-built Counters; expected shares are written out as the arithmetic on the file's numbers.
"""

import csv

import pytest

import gpulens
from gpulens.analyzers.stall_classes import STALL_CLASSES, parse_metric
from gpulens.analyzers.verdict_rules import Evidence, decide
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table
from tests.conftest import DATA

STALLS = DATA / "stalls"
_UNIT_NS = {"nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9}


def _timeline(kernels, counters):
    """kernels: [(event_id, name, dur_ns)]; counters: [(event_id, metric, value, unit)]."""
    start, ev = 0, {k: [] for k in ("event_id", "name", "start_ns", "dur_ns")}
    for eid, name, dur in kernels:
        for k, v in zip(ev, (eid, name, start, dur)):
            ev[k].append(v)
        start += dur + 1000
    n = len(kernels)
    events = make_table(EVENT_COLUMNS, {**ev, "kind": ["kernel"] * n, "rank": [0] * n, "device_id": [0] * n,
                                        "stream_id": [7] * n, "source": ["test"] * n})
    co = make_table(COUNTER_COLUMNS, {"event_id": [c[0] for c in counters], "metric": [c[1] for c in counters],
                                      "value": [c[2] for c in counters], "unit": [c[3] for c in counters],
                                      "source": ["test"] * len(counters)})
    return Timeline(events, co).validate()


def ncu_details_timeline(path):
    """Read an ncu --page details CSV (non-CSV lines skipped, thousands separators stripped)."""
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith('"')]
    kernels, counters = {}, []
    for r in csv.DictReader(lines):
        eid, metric, unit = int(r["ID"]), r["Metric Name"], r["Metric Unit"]
        value = float(r["Metric Value"].replace(",", ""))
        if metric == "Duration":
            kernels[eid] = (eid, r["Kernel Name"], int(round(value * _UNIT_NS[unit])))
        else:
            counters.append((eid, metric, value, unit))
    return _timeline([kernels[k] for k in sorted(kernels)], counters)


def pmc_perf_timeline(path):
    """Read rocprof-compute pmc_perf.csv rows: one kernel per Dispatch_ID, every SQ_* column a counter."""
    kernels, counters = [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            eid = int(r["Dispatch_ID"])
            kernels.append((eid, r["Kernel_Name"], int(r["End_Timestamp"]) - int(r["Start_Timestamp"])))
            counters += [(eid, k, float(v), "") for k, v in r.items() if k.startswith("SQ_")]
    return _timeline(kernels, counters)


def _stalls(tl):
    res = gpulens.analyze_timeline(tl).results
    return res["stalls"].table.set_index("name"), res


@pytest.fixture(scope="module")
def ncu():
    return _stalls(ncu_details_timeline(STALLS / "ncu_details_stalls.csv"))


@pytest.fixture(scope="module")
def amd():
    return _stalls(pmc_perf_timeline(STALLS / "pmc_perf_stalls.csv"))


# expected (kernel, class, share %) — shares are the file's numbers divided out by hand
NCU_EXPECTED = [
    # PC sampling summed over two launches: long_scoreboard 700+300 of stalls 1000+50+30+20+40+60 (selected excluded,
    # _not_issued variant ignored)
    ("gather_rows(float const*, long const*, float*, int)", "memory_latency", 100 * 1000 / 1200),
    ("spill_heavy_kernel(double*, int)", "memory_throughput", 100 * 9.5 / 13.5),       # lg_throttle per issue
    ("fma_chain(float*, int)", "compute_pipe", 100 * (4.0 + 3.0) / 8.5),               # math_pipe + wait
    ("block_reduce<1024>(float const*, float*, int)", "synchronization", 100 * 50 / 90),  # barrier + membar
    ("giant_switch_interpreter(int const*, float*, int)", "instruction_fetch", 100 * 700 / 900),
    ("well_fed_gemm(half const*, half const*, half*, int)", "scheduling", 100 * 7.5 / 10),  # not_selected+dispatch
]


@pytest.mark.parametrize("kernel,cls,pct", NCU_EXPECTED, ids=[c for _, c, _ in NCU_EXPECTED])
def test_ncu_stall_class(ncu, kernel, cls, pct):
    t, _ = ncu
    row = t.loc[kernel]
    assert row["vendor"] == "nvidia"
    assert row["dominant_class"] == cls
    assert row["dominant_pct"] == pytest.approx(pct, rel=1e-9)
    assert sum(row[f"{c}_pct"] for c in STALL_CLASSES) == pytest.approx(100.0)


@pytest.fixture(scope="module")
def ncu_collected():
    return gpulens.analyze([STALLS / "ncu_details_stalls.csv"]).sources[0]


@pytest.mark.parametrize("kernel,cls,pct", NCU_EXPECTED, ids=[c for _, c, _ in NCU_EXPECTED])
def test_ncu_stall_class_through_the_ncu_collector(ncu_collected, kernel, cls, pct):
    # the same file read by gpulens' own ncu CSV collector: identical classes and shares
    row = ncu_collected.results["stalls"].table.set_index("name").loc[kernel]
    assert row["dominant_class"] == cls
    assert row["dominant_pct"] == pytest.approx(pct, rel=1e-9)


def test_ncu_collected_verdicts_name_their_collector(ncu_collected):
    v = ncu_collected.results["verdicts"].table.set_index("name")
    spill = v.loc["spill_heavy_kernel(double*, int)"]
    assert spill["verdict"] == "memory-bound" and "collector:ncu_csv" in spill["inputs"]
    assert v.loc["gather_rows(float const*, long const*, float*, int)", "time_at_stake_ns"] == round(1_800_000 * 0.15)


def test_ncu_aggregation_and_families(ncu):
    t, _ = ncu
    g = t.loc["gather_rows(float const*, long const*, float*, int)"]
    assert g["calls"] == 2 and g["time_ns"] == 1_800_000
    assert g["metric_family"] == "pcsamp" and g["top_reason"] == "long_scoreboard"
    assert g["issue_pct"] == pytest.approx(100 * 120 / 1320)   # selected 100+20 of all samples
    assert g["memory_sol_pct"] == pytest.approx(85.0)
    s = t.loc["spill_heavy_kernel(double*, int)"]
    assert s["time_ns"] == 2_500_000 and s["metric_family"] == "per_issue"
    assert s["memory_sol_pct"] is None or s["memory_sol_pct"] != s["memory_sol_pct"]  # GB/s row is not a %
    assert t.loc["block_reduce<1024>(float const*, float*, int)", "metric_family"] == "per_warp"
    assert t.loc["well_fed_gemm(half const*, half const*, half*, int)", "metric_family"] == "latency"


AMD_EXPECTED = [
    # vecCopy: dependency wait 9,564,806 vs issue wait 711,776 (no LDS) — real MI200 counts, rocprofiler-compute test
    ("vecCopy(double*, double*, double*, int, int) [clone .kd]", "memory_latency", 100 * 9564806 / (9564806 + 711776)),
    # LDS issue wait 450k is split out of issue wait 600k: stalls 200k dep + 150k issue + 450k LDS
    ("lds_transpose(float const*, float*, int) [clone .kd]", "memory_throughput", 100 * 450 / 800),
    ("mfma_gemm_bf16(bf16 const*, bf16 const*, float*) [clone .kd]", "compute_pipe", 100 * 450 / 650),
]


@pytest.mark.parametrize("kernel,cls,pct", AMD_EXPECTED, ids=[c for _, c, _ in AMD_EXPECTED])
def test_rocprof_compute_stall_class(amd, kernel, cls, pct):
    t, _ = amd
    row = t.loc[kernel]
    assert (row["vendor"], row["metric_family"]) == ("amd", "wave_cycles")
    assert row["dominant_class"] == cls
    assert row["dominant_pct"] == pytest.approx(pct, rel=1e-9)


def test_amd_active_share_is_issue_not_stall(amd):
    t, _ = amd
    # dependency + issue + active = wave cycles exactly for vecCopy, so nothing is "unaccounted"
    v = t.loc["vecCopy(double*, double*, double*, int, int) [clone .kd]"]
    assert v["issue_pct"] == pytest.approx(100 * 344064 / 10620646)
    assert "unaccounted" not in v["reasons"]
    g = t.loc["mfma_gemm_bf16(bf16 const*, bf16 const*, float*) [clone .kd]"]
    assert g["issue_pct"] == pytest.approx(35.0)


@pytest.mark.parametrize("reason,cls", [("BARRIER_WAIT", "synchronization"),
                                        ("NO_INSTRUCTION_AVAILABLE", "instruction_fetch"),
                                        ("ARBITER_NOT_WIN", "scheduling"), ("WAITCNT", "memory_latency"),
                                        ("ALU_DEPENDENCY", "compute_pipe")])
def test_amd_pc_sampling_reason_classes(reason, cls):
    others = [("WAITCNT", 10.0), ("ALU_DEPENDENCY", 10.0), ("OTHER_WAIT", 5.0)]
    counters = [(0, reason, 60.0, "")] + [(0, r, v, "") for r, v in others if r != reason]
    t, _ = _stalls(_timeline([(0, "k", 1000)], counters))
    total = 60.0 + sum(v for r, v in others if r != reason)
    assert t.loc["k", "vendor"] == "amd" and t.loc["k", "dominant_class"] == cls
    assert t.loc["k", "dominant_pct"] == pytest.approx(100 * 60 / total)


def test_parse_metric_spellings():
    assert parse_metric("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued") is None
    assert parse_metric("smsp__pcsamp_warps_issue_stalled_no_instructions").stall_class == "instruction_fetch"
    assert parse_metric("smsp__average_warp_latency_issue_stalled_barrier.ratio").reason == "barrier"
    assert parse_metric("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio").stall_class == "issue"
    assert parse_metric("smsp__warp_issue_stalled_misc_per_warp_active.pct").stall_class == "other"
    assert parse_metric("sm__warps_active.avg.pct_of_peak_sustained_active") is None
    assert parse_metric("SQ_BUSY_CYCLES") is None


def test_no_stall_counters_is_skipped_with_reason():
    """B13 records CUDA runtime calls (cudaLaunchKernel, cudaGraphLaunch) and no device: an NVIDIA trace, so the
    reason names NVIDIA's counters only, never AMD's SQ_WAVE_CYCLES."""
    res = gpulens.analyze([DATA / "cases" / "B13.json"]).sources[0].results["stalls"]
    assert res.skipped and "ncu" in res.skipped_reason and "SQ_WAVE_CYCLES" not in res.skipped_reason


def test_verdicts_from_stalls_and_speed_of_light(ncu):
    _, res = ncu
    v = res["verdicts"].table.set_index("name")
    # critical set: spill 2.5 ms + gemm 2.0 ms + gather 1.8 ms = 6.3 of 7.85 ms (80.3 %)
    assert len(v) == 3
    spill = v.loc["spill_heavy_kernel(double*, int)"]
    assert spill["verdict"] == "memory-bound"
    assert spill["time_at_stake_ns"] == round(2_500_000 * 9.5 / 13.5)
    assert v.loc["well_fed_gemm(half const*, half const*, half*, int)", "verdict"] == "compute-bound"
    gather = v.loc["gather_rows(float const*, long const*, float*, int)"]
    assert gather["verdict"] == "memory-bound"                     # 85 % of memory speed of light
    assert gather["time_at_stake_ns"] == round(1_800_000 * 0.15)
    assert "stalls" in gather["inputs"] and "collector:test" in gather["inputs"]


def test_verdict_rules_roofline_and_occupancy():
    far = decide(Evidence("k", "kernel", 10, 1_000_000, bound="memory", roof_pct=20.0, limiter="registers",
                          achieved_occupancy_pct=25.0, theoretical_occupancy_pct=25.0))
    assert far.verdict == "latency/occupancy-bound" and far.time_at_stake_ns == 800_000
    assert "__launch_bounds__" in far.next_steps[0]
    near = decide(Evidence("k", "kernel", 10, 1_000_000, bound="compute", roof_pct=90.0))
    assert near.verdict == "compute-bound" and near.time_at_stake_ns == 100_000
    neither = decide(Evidence("k", "kernel", 10, 1_000_000, bound=None, roof_pct=4.0))   # below both roofs
    # nothing beside it says latency or occupancy: below-roofs (s33)
    assert neither.verdict == "below-roofs" and neither.time_at_stake_ns == 960_000
    grid = decide(Evidence("k", "kernel", 1, 1_000_000, mean_blocks=33, num_sms=132))
    assert grid.verdict == "latency/occupancy-bound" and grid.time_at_stake_ns == 750_000
    assert decide(Evidence("k", "kernel", 1, 1000)).verdict == "undetermined"


def test_real_rocprof_compute_vcopy_mi200():
    p = DATA / "omniperf" / "vcopy_MI200" / "pmc_perf.csv"
    src = gpulens.analyze([p.parent]).sources[0]       # through the rocprof-compute workload collector
    t = src.results["stalls"].table
    with open(p, newline="") as f:
        rows = list(csv.DictReader(f))
    dep = sum(float(r["SQ_WAIT_ANY"]) for r in rows)
    iss = sum(float(r["SQ_WAIT_INST_ANY"]) for r in rows)
    wave = sum(float(r["SQ_WAVE_CYCLES"]) for r in rows)
    act = sum(float(r["SQ_ACTIVE_INST_ANY"]) for r in rows)
    row = t.iloc[0]
    assert row["calls"] == 3 and row["dominant_class"] == "memory_latency"
    rest = max(wave - dep - iss - act, 0.0)
    assert row["dominant_pct"] == pytest.approx(100 * dep / (dep + iss + rest))
    # a counter-collection run has no real timeline: no idle classification, the verdict comes from the stalls
    assert src.results["bottlenecks"].skipped and "counter-collection" in src.results["bottlenecks"].skipped_reason
    # the roofline (measured roofs of roofline.csv) puts it on the memory side at 62 % of the roof, and so does the
    # speed of light: DRAM 52.7 % of the rated HBM peak but 62.2 % of the measured one (>= 60 %), VALU 4.4 % — the
    # memory waits are bandwidth (session 46: judged against what the hardware was measured to reach)
    roof = src.results["roofline"].table.iloc[0]
    sol = src.results["speed_of_light"].table.iloc[0]
    v = src.results["verdicts"]
    row = v.table.iloc[0]
    assert roof["roof_pct"] >= 60 and sol["dram_pct"] < 60 <= sol["dram_measured_pct"] and sol["compute_pct"] < 60
    assert roof["bound"] == "memory"
    assert row["verdict"] == "memory-bound" and {"roofline", "stalls"} <= set(row["inputs"])
    assert row["time_at_stake_ns"] == round(row["time_ns"] * (1 - sol["dram_measured_pct"] / 100))
    assert v.summary["run_verdict"] == "memory-bound"
    assert "95.3 % memory latency" in row["evidence"]  # one decimal, as the stalls table


def test_verdicts_read_roofline_and_occupancy_results_by_contract():
    import pandas as pd

    from gpulens.analyzers import AnalysisResult
    from gpulens.analyzers.verdicts import Verdicts

    tl = _timeline([(0, "gemm_rf", 3_000_000), (1, "softmax_rf", 1_000_000)], [])
    res = gpulens.analyze_timeline(tl).results
    res["roofline"] = AnalysisResult("roofline", pd.DataFrame({
        "name": ["gemm_rf", "softmax_rf"], "calls": [1, 1], "time_ns": [3_000_000, 1_000_000],
        "arithmetic_intensity": [200.0, 0.5], "bound": ["compute", "memory"], "roof_pct": [70.0, 15.0]}))
    res["occupancy"] = AnalysisResult("occupancy", pd.DataFrame({
        "name": ["softmax_rf"], "calls": [1], "time_ns": [1_000_000], "theoretical_occupancy_pct": [25.0],
        "achieved_occupancy_pct": [22.0], "limiter": ["registers"]}))
    v = Verdicts().analyze(tl, None, res).table.set_index("name")
    assert v.loc["gemm_rf", "verdict"] == "compute-bound"
    assert v.loc["gemm_rf", "time_at_stake_ns"] == 900_000                 # 3 ms × (1 − 0.70)
    sm = v.loc["softmax_rf"]
    assert sm["verdict"] == "latency/occupancy-bound"                     # 15 % of the memory roof
    assert sm["time_at_stake_ns"] == 850_000
    assert "registers" in sm["next_steps"][0].lower() and "occupancy" in sm["inputs"]
    assert "22.0 % achieved / 25.0 % theoretical, limiter registers" in sm["evidence"]


def test_real_ncu_details_speed_of_light_gives_the_verdict():
    # codegandee RTX 5090 elementwise add (tests/data/nvidia, MIT): SpeedOfLight "Memory Throughput" in % and the
    # Duration, read here with csv; no stall counters and no roofline row are needed
    p = DATA / "nvidia" / "codegandee_rtx5090_ncu-v2_kernel_0010_details.csv"
    lines = [ln for ln in p.read_text().splitlines() if ln.startswith('"')]
    rows = list(csv.DictReader(lines))
    mem = next(float(r["Metric Value"]) for r in rows if r["Metric Name"] == "Memory Throughput"
               and r["Metric Unit"] == "%")
    dur = next(float(r["Metric Value"].replace(",", "")) * _UNIT_NS[r["Metric Unit"]] for r in rows
               if r["Metric Name"] == "Duration")
    res = gpulens.analyze([p]).sources[0].results
    assert res["bottlenecks"].skipped                  # ncu replays kernels: its start times are synthetic
    v = res["verdicts"].table.iloc[0]
    assert mem > 50 and v["verdict"] == "memory-bound"
    assert v["time_at_stake_ns"] == round(round(dur) * (1 - mem / 100))
    # the speed_of_light analyzer's row when it ran, else the verdicts' own reading of the raw percentages
    assert "speed_of_light" in v["inputs"] or "counters:speed-of-light" in v["inputs"]


@pytest.mark.parametrize("kernel,cls,pct", AMD_EXPECTED, ids=[c for _, c, _ in AMD_EXPECTED])
def test_rocprof_compute_row_through_the_amd_collector(kernel, cls, pct):
    from gpulens.collectors import sniff

    path = STALLS / "pmc_perf_stalls.csv"
    if sniff(path) is None:
        pytest.skip("no collector for rocprof-compute pmc_perf.csv in this build")
    row = gpulens.analyze([path]).sources[0].results["stalls"].table.set_index("name").loc[kernel]
    assert (row["vendor"], row["dominant_class"]) == ("amd", cls)
    assert row["dominant_pct"] == pytest.approx(pct, rel=1e-9)
