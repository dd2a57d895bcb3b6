"""Session 46: conclusions and advice that contradicted the evidence beside them.

1. theoretical occupancy "unknown" where the block size alone bounds it (registers / shared memory not recorded):
   the bound, "≤ 66.7 % (registers and shared memory not recorded)", in every report and in the verdict's evidence;
2. launch-overhead fix advice beside a run verdict that calls the same idle "too little evidence" (2 gaps): the
   advice says so and gives the step only as "if this idle recurs there, then: …";
3. "collect X" advice naming a counter the input already holds (rocprofv3 counter CSV with SQ_WAVES told
   "rocprofv3 --pmc SQ_WAVES …"): a checker over the corpus (:func:`collect_contradictions`);
4. a part reported larger than its whole (:func:`part_contradictions`): a child finding's time at stake against its
   parent's, and per rank a collective wait, the wait a straggler caused, exposed and excess communication against
   the rank's communication time — the definitions: a collective's wait for late ranks is time inside that rank's
   collectives (``comm_ns``), exposed or not; exposed communication is the part of ``comm_ns`` no compute overlaps.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import gpulens
from gpulens.errors import GpulensError
from tests.conftest import shared_trace
from tests.test_trust_s45_verdict import _corpus, _id

# --- 1. the block size's bound on theoretical occupancy ----------------------------------------------------------


def test_block_size_bound_hand_calculated():
    from gpulens.devices.arch import CUDA_LIMITS
    from gpulens.devices.occupancy import block_size_bound

    # CUDA C Programming Guide "Compute Capabilities": 8.6 / 8.9 / 12.0 hold 1,536 threads (48 warps) per SM, 9.0
    # holds 2,048 (64 warps) and 32 blocks. 1,024 threads = 32 warps: one block fits 48 slots → 32 / 48 = 66.7 %
    for cc in ("8.6", "8.9", "12.0"):
        occ = block_size_bound(CUDA_LIMITS[cc], 1024)
        assert occ.active_blocks == 1 and occ.occupancy_pct == pytest.approx(100 * 32 / 48), cc
    # on 9.0 two such blocks fill all 64 warps: 100 %, the bound says nothing
    assert block_size_bound(CUDA_LIMITS["9.0"], 1024).occupancy_pct == pytest.approx(100.0)
    # 32-thread blocks on 9.0: the 32-block cap binds first — 32 warps of 64, 50 %
    occ = block_size_bound(CUDA_LIMITS["9.0"], 32)
    assert occ.active_blocks == 32 and occ.occupancy_pct == pytest.approx(50.0)
    assert block_size_bound(CUDA_LIMITS["9.0"], 2048) is None  # over the 1,024-thread block limit: cannot run
    # 1-thread blocks on 8.6: its 16-block cap binds — 16 warps of 48, 33.3 %
    assert block_size_bound(CUDA_LIMITS["8.6"], 1).occupancy_pct == pytest.approx(100 * 16 / 48)


def test_unknown_theoretical_occupancy_shows_its_block_size_bound():
    import html as _html

    from gpulens.reports import console, html, json_report, markdown

    path = shared_trace("ncu/olajide_rtx5070_metrics_gemm_naive.csv")
    rows = list(csv.DictReader(l for l in open(path, encoding="utf-8-sig") if l.startswith('"')))
    # the file: "Block Size" (32, 32, 1) on CC 12.0, no registers or shared memory metrics
    assert {r["Block Size"] for r in rows} == {"(32, 32, 1)"} and {r["CC"] for r in rows} == {"12.0"}
    assert not any("registers" in r["Metric Name"] or "shared_mem" in r["Metric Name"] for r in rows)
    rep = gpulens.analyze([path])
    src = rep.sources[0]
    row = src.results["occupancy"].table.iloc[0]
    want = 100 * 32 / 48  # 1,024 threads = 32 warps; one block in 48 warp slots (sm_120: 1,536 threads per SM)
    assert row["theoretical_occupancy_pct"] is None or row["theoretical_occupancy_pct"] != row["theoretical_occupancy_pct"]
    assert row["theoretical_max_pct"] == pytest.approx(want)
    # ncu's measured achieved occupancy (66.61 %) sits under the bound, as it must
    assert row["achieved_occupancy_pct"] <= row["theoretical_max_pct"]
    text = " ".join(console.render(rep, width=200).split())
    assert "│ ≤ 66.7 │ 66.6 │" in text
    assert "≤ x: theoretical occupancy unknown (registers and shared memory not recorded)" in text
    cell = "≤ 66.7 % (registers and shared memory not recorded)"
    assert cell in markdown.render(rep)
    page = " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", html.render(rep))).split())
    assert cell in page and "nothing limits it" not in page  # its limiter is unknown, not "nothing"
    assert "theoretical_max_pct" in json_report.render(rep)
    # the verdict's evidence and the occupancy finding say the bound, not a bare "theoretical not counted"
    ev = src.results["verdicts"].table.iloc[0]["evidence"]
    assert "66.6 % achieved / at most 66.7 % theoretical (its block size alone: registers and shared memory not " \
           "recorded)" in ev and "theoretical not counted" not in ev
    f = next(f for f in src.findings() if f.key == "occupancy/theoretical-missing")
    assert "Bounded by the block size alone: gemm_naive_kernel at most 66.7 % (1,024-thread blocks" in f.title


def test_verdict_uses_a_low_bound_as_the_occupancy_limit():
    from gpulens.analyzers.verdict_rules import Evidence, decide

    # 20 % achieved under the 40 % low-occupancy line; the block size caps theoretical at 33.3 % (1-thread blocks on
    # sm_86: the 16-block cap, 16 of 48 warps): the limit is known to be low, so the kernel is
    # latency/occupancy-bound; without the bound nothing names a limit: undetermined
    v = decide(Evidence("k", "kernel", 1, 100_000, achieved_occupancy_pct=20.0, theoretical_max_pct=100 * 16 / 48,
                        vendor="nvidia"))
    assert v.verdict == "latency/occupancy-bound"
    assert v.evidence == ("occupancy 20.0 % achieved / at most 33.3 % theoretical (its block size alone: registers and "
                          "shared memory not recorded), limiter not known")
    v = decide(Evidence("k", "kernel", 1, 100_000, achieved_occupancy_pct=20.0, vendor="nvidia"))
    assert v.verdict == "undetermined" and "theoretical not counted" in v.evidence


def test_known_theoretical_or_full_bound_has_no_bound():
    # ncu's own theoretical (128-thread blocks, 100 %) stands; no bound beside it
    path = shared_trace("ncu/codegandee_rtx5090_ncu-v2_kernel_0010_details.csv")
    t = gpulens.analyze([path]).sources[0].results["occupancy"].table
    assert t["theoretical_occupancy_pct"].iloc[0] == 100.0 and t["theoretical_max_pct"].isna().all()


# --- 2. launch advice follows the evidence -----------------------------------------------------------------------


def test_launch_advice_beside_too_little_evidence_is_conditional():
    path = shared_trace("nsys/lashi_rtx4090_streamSimple.sqlite")
    src = gpulens.analyze([path]).sources[0]
    bn = src.results["bottlenecks"].summary
    # the run verdict's own reason: the launch idle comes from 2 gaps, fewer than the 3 a verdict needs
    assert bn["gaps_launch"] == 2 and "comes from only 2 gaps" in bn["verdict_evidence"]
    idle = next(f for f in src.findings() if f.key == "idle")
    launch = next(f for f in src.findings() if f.key == "idle/launch")
    assert launch.detail.startswith("Too little evidence to act on yet: 10.14 µs of it over only 2 gaps (an idle "
                                    "cause needs at least 3 gaps, or half the span"), launch.detail
    assert idle.action == (
        "Too little evidence to act on yet (an idle cause needs at least 3 gaps, or half the span, to make a verdict: "
        "fewer show no pattern). Profile more iterations (a longer capture); if this idle recurs there, then: start "
        "with the largest cause, 10.14 µs on launch overhead over 2 gaps: fuse small kernels or capture the loop in "
        "CUDA graphs (stream capture).")
    assert "Profile more iterations (a longer capture); if this idle recurs there, then: " in launch.detail
    assert not idle.action.startswith("Start with the largest cause")
    assert evidence_contradictions(src) == (1, [])


_THIN = re.compile(r"of (\w+) idle \(.*?\) comes from only (\d+) gaps?", re.A)


def evidence_contradictions(src) -> tuple[int, list[str]]:
    """(idle causes the run verdict calls too little evidence, fix advice given for one): where the bottlenecks
    summary says an idle cause "comes from only N gaps", the idle findings' advice for it must say so first."""
    bn = src.results.get("bottlenecks")
    m = _THIN.search(str(bn.summary.get("verdict_evidence") or "")) if bn is not None and not bn.skipped else None
    if not m:
        return 0, []
    root = next((f for f in src.findings() if f.key == "idle"), None)
    child = next((f for f in src.findings() if f.key == f"idle/{m.group(1)}"), None)
    out = [f"{f.key}: {t[:100]}" for f, t in ((root, root and root.action), (child, child and child.detail))
           if f is not None and t and not t.startswith("Too little evidence to act on yet")
           and (f is child or t.startswith("Start with the largest cause"))]
    return 1, out


def test_the_evidence_checker_finds_fix_advice_beside_too_little_evidence():
    from types import SimpleNamespace

    from gpulens.analyzers.base import Finding

    # lashi streamSimple before s46: the run verdict's reason beside the idle finding's fix advice
    bn = SimpleNamespace(skipped=False, summary={"verdict_evidence": "10.14 µs of launch idle (13.2 % of the span) "
                                                                     "comes from only 2 gaps (an idle cause needs …)"})
    root = Finding("GPU idle", "", key="idle", action="Start with the largest cause, 10.14 µs on launch overhead over "
                                                      "2 gaps: fuse small kernels or capture the loop in CUDA graphs.")
    src = SimpleNamespace(results={"bottlenecks": bn}, findings=lambda: [root])
    assert evidence_contradictions(src)[1]
    root.action = "Too little evidence to act on yet (…); if this idle recurs there, then: start with … fuse …"
    assert evidence_contradictions(src) == (1, [])


def test_thin_evidence_rule_is_one_definition():
    from gpulens.analyzers.bottlenecks import too_few_gaps

    # fewer than 3 gaps holding under half the span: too few; 3 gaps, or half the span, is evidence
    assert too_few_gaps(2, 10_140, 76_900) and not too_few_gaps(3, 10_140, 76_900)
    assert not too_few_gaps(2, 40_000, 76_900) and not too_few_gaps(None, 10, 100)


# --- 3. collect advice vs the counters present -------------------------------------------------------------------

_PMC = re.compile(r"--pmc ((?:[A-Z][A-Z0-9_]+[ ,]*)+)", re.A)
_NCU_METRICS = re.compile(r"--metrics ([a-z0-9_.,]+)", re.A)


def _advice_texts(src) -> list[str]:
    out = []
    for f in src.findings():
        out += [f.title or "", f.detail or "", f.action or ""]
    for res in src.results.values():
        if res.skipped:
            out.append(res.skipped_reason or "")
    v = src.results.get("verdicts")
    if v is not None and not v.skipped and v.table is not None and "next_steps" in v.table:
        out += [s for steps in v.table["next_steps"] if isinstance(steps, list) for s in steps]
    return out


def collect_contradictions(src) -> tuple[int, list[str]]:
    """(collect-advice sentences checked, those naming a counter the input already holds): every "--pmc A B" /
    "--metrics a,b" in findings, verdict steps and skip reasons, against the counter names of its timeline."""
    have = set(map(str, src.timeline.counters["metric"].unique())) if len(src.timeline.counters) else set()
    n, out = 0, []
    for text in _advice_texts(src):
        for m in _PMC.finditer(text):
            n += 1
            # "A, collected already, …" after the command names what the input holds: not asked for
            asked = [x for x in re.split(r"[ ,]+", m.group(1).strip()) if x]
            out += [f"asks for {x}, present: {text[:120]}" for x in asked if x in have]
        for m in _NCU_METRICS.finditer(text):
            n += 1
            out += [f"asks for {x}, present: {text[:120]}" for x in m.group(1).split(",") if x in have]
    return n, out


def test_collect_advice_names_only_counters_not_collected():
    path = shared_trace("rocprof/v3_csv_sdk_docs")
    src = gpulens.analyze([path], strict=False).sources[0]
    names = {r["Counter_Name"] for r in csv.DictReader(open(path / "counter_collection.csv"))}
    assert names == {"SQ_WAVES"}  # the file's only counter
    v = src.results["verdicts"].table
    steps = [s for x in v["next_steps"] for s in x]
    assert any("rocprofv3 --pmc SQ_INSTS_VALU SQ_WAVE_CYCLES SQ_WAIT_INST_ANY; SQ_WAVES, collected already, does "
               "not classify a kernel alone" in s for s in steps), steps
    n, found = collect_contradictions(src)
    assert n and not found, found


def test_the_collect_checker_finds_a_counter_asked_for_again():
    from gpulens.analyzers._verdict_steps import amd_collect, undetermined_steps

    assert amd_collect() == "rocprofv3 --pmc SQ_WAVES SQ_INSTS_VALU SQ_WAVE_CYCLES SQ_WAIT_INST_ANY"
    assert amd_collect(frozenset({"SQ_WAVES", "SQ_WAVE_CYCLES"})) == (
        "rocprofv3 --pmc SQ_INSTS_VALU SQ_WAIT_INST_ANY; SQ_WAVES, SQ_WAVE_CYCLES, collected already, do not classify "
        "a kernel alone")
    before = undetermined_steps("amd", False)[0]  # what the SQ_WAVES file was told before s46
    assert _PMC.search(before) and "SQ_WAVES" in _PMC.search(before).group(1)


@pytest.mark.parametrize("path", _corpus(), ids=_id)
def test_no_collect_advice_for_collected_counters_no_part_above_its_whole(path: Path):
    try:
        rep = gpulens.analyze([path], strict=False)
    except GpulensError as exc:
        assert "\n" not in str(exc)
        return
    from tests.test_trust_s46_w2verdict import kind_contradictions  # advice about work that holds no time (s46w2)

    found = [x for s in rep.sources for f in (collect_contradictions, part_contradictions, evidence_contradictions,
                                              kind_contradictions)
             for x in f(s)[1]]
    assert not found, found


# --- 4. a part is never larger than its whole --------------------------------------------------------------------


def part_contradictions(src) -> tuple[int, list[str]]:
    """(part/whole pairs checked, parts larger than their whole): every child finding's time at stake against its
    parent's; per rank (``ranks``, ``breakdown``, ``collectives`` tables) the collective wait, exposed and excess
    communication against its communication time, and a collective's exposed time against its time."""
    fs = src.findings()
    by = {f.key: f for f in fs if f.key}
    n, out = 0, []
    for f in fs:
        p = by.get(f.parent) if f.parent else None
        if p is None or f.time_at_stake_ns is None or p.time_at_stake_ns is None:
            continue
        n += 1
        if f.time_at_stake_ns > p.time_at_stake_ns + 1:
            out.append(f"{f.key} at stake {f.time_at_stake_ns} > its parent {p.key}'s {p.time_at_stake_ns}")
    for res, whole, parts in (("ranks", "comm_ns", ("collective_wait_ns", "exposed_comm_ns", "excess_comm_ns")),
                              ("breakdown", "comm_ns", ("exposed_comm_ns",)),
                              ("collectives", "time_ns", ("exposed_ns",))):
        r = src.results.get(res)
        if r is None or r.skipped or r.table is None or whole not in r.table:
            continue
        for row in r.table.to_dict("records"):
            w = row.get(whole)
            for c in parts:
                x = row.get(c)
                if w is None or x is None or w != w or x != x:
                    continue
                n += 1
                if x > w + 1:
                    out.append(f"{res} rank {row.get('rank')}: {c} {x} > {whole} {w}")
    return n, out


def test_the_part_checker_finds_a_part_above_its_whole():
    from types import SimpleNamespace

    import pandas as pd

    from gpulens.analyzers.base import Finding

    parent = Finding("exposed", "", time_at_stake_ns=100, key="exposed-comm")
    child = Finding("straggler", "", time_at_stake_ns=150, key="ranks/straggler", parent="exposed-comm")
    ranks = SimpleNamespace(skipped=False, table=pd.DataFrame([{"rank": 0, "comm_ns": 50, "collective_wait_ns": 80,
                                                                "exposed_comm_ns": 40, "excess_comm_ns": 0}]))
    src = SimpleNamespace(findings=lambda: [parent, child], results={"ranks": ranks})
    n, found = part_contradictions(src)
    assert n == 4 and len(found) == 2, found


def test_multirank_waits_are_parts_of_their_communication():
    src = gpulens.analyze([Path(__file__).parent / "data" / "kineto" / "multirank"]).sources[0]
    n, found = part_contradictions(src)
    assert n >= 8 and not found, found
    rk = src.results["ranks"].table.set_index("rank")
    # rank 0 waited 27.01 ms for rank 1 in their overlapping collectives: within its 396.20 ms of communication
    assert rk.loc[0, "collective_wait_ns"] == rk.loc[1, "caused_wait_ns"] == 27_006_000
    assert rk.loc[0, "collective_wait_ns"] <= rk.loc[0, "comm_ns"]


# --- 5. compute roofs at the SM clock the measurement ran at -----------------------------------------------------


def test_compute_roofs_scale_to_the_recorded_sm_clock():
    from gpulens.devices import get_spec
    from gpulens.devices.clocks import at_recorded_clock

    spec = get_spec("RTX 5090")  # whitepaper: 209.5 TFLOP/s bf16 at the 2,407 MHz boost, 1,792 GB/s
    scaled, words = at_recorded_clock(spec, 2.00e9)
    assert scaled.peak_flops("bf16")[0] == pytest.approx(209.5e12 * 2.00 / 2.407)
    assert scaled.memory_bandwidth == spec.memory_bandwidth  # ncu's DRAM clock does not convert without its factor
    assert words == "compute roofs at the 2.00 GHz SM clock the profiler recorded, not the datasheet's 2.41 GHz; " \
                    "memory roof as rated"
    # within 1 % of the datasheet clock (an H200 at 1.965 of 1.98 GHz) or none recorded: the roofs as they are
    h200 = get_spec("H200")
    assert at_recorded_clock(h200, 1.965e9) == (h200, None) and at_recorded_clock(spec, None) == (spec, None)


def test_rtx5090_roofline_uses_the_clock_ncu_recorded():
    from gpulens.reports import console

    path = shared_trace("ncu/codegandee_rtx5090_ncu-v2_kernel_0005_details.csv")
    rows = list(csv.DictReader(open(path, newline="")))
    ghz = float(next(r["Metric Value"] for r in rows if r["Metric Name"] == "SM Frequency"))  # "Ghz"
    flop = float(next(r["Metric Value"] for r in rows if r["Metric Name"] ==
                      "sm__ops_path_tensor_src_bf16_dst_fp32.sum").replace(",", ""))
    dur_ms = float(next(r["Metric Value"] for r in rows if r["Metric Name"] == "Duration")) / 1e3  # "us"
    assert ghz == 2.00
    rep = gpulens.analyze([path])
    rf = rep.sources[0].results["roofline"]
    row = rf.table.iloc[0]
    roof = 209.5e12 * ghz / 2.407  # the bf16 peak at the recorded clock
    assert row["peak_flops_per_s"] == pytest.approx(roof)
    assert row["roof_pct"] == pytest.approx(100 * flop / (dur_ms * 1e-3) / roof)  # 64.4 %
    assert "compute roofs at the 2.00 GHz SM clock the profiler recorded" in " ".join(
        console.render(rep, width=250).split())


def _rank_file(d: Path, rank: int, events: list[tuple[str, int, int, int]]) -> None:
    """A Kineto rank file of (name, stream, start µs, duration µs) kernels on device ``rank``."""
    import json

    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": s, "ts": 1_000_000 + t, "dur": dur,
           "args": {"device": rank, "stream": s, "correlation": 100 + i}} for i, (n, s, t, dur) in enumerate(events)]
    (d / f"rank{rank}.pt.trace.json").write_text(json.dumps(
        {"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": ev}))


def test_rank_imbalance_at_stake_is_within_the_light_ranks_exposed_communication(tmp_path):
    # rank 1 computes 150 µs before its all-reduce; rank 0 computes 50 µs, then its host keeps the GPU idle until
    # 145 µs (no collective waiting), then the all-reduce: rank 0's exposed communication is 15 µs (145 → 160, no
    # compute beside it). The compute difference is 100 µs, but the imbalance finding is part of the exposed
    # communication (its parent): at most rank 0's 15 µs of it — not the 100 µs its span less its computation allowed
    ar = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    _rank_file(tmp_path, 0, [("gemm", 7, 0, 50), (ar, 20, 145, 15)])
    _rank_file(tmp_path, 1, [("gemm", 7, 0, 150), (ar, 20, 150, 10)])
    src = gpulens.analyze([tmp_path]).sources[0]
    bd = src.results["breakdown"].table.set_index("rank")
    assert bd.loc[0, "exposed_comm_ns"] == 15_000 and bd.loc[0, "computation_ns"] == 50_000
    f = next(f for f in src.findings() if f.key == "rank-imbalance")
    # (before s46: min(100 µs, 160 − 50 µs of span less computation) = 100 µs, beside 15 µs of exposed communication;
    # its parent finding is dropped here only because 2 × 15 µs of exposed communication is too small to report)
    assert f.time_at_stake_ns == 15_000
    n, found = part_contradictions(src)
    assert n and not found, found


def test_straggler_stake_is_within_the_waiting_ranks_exposed_communication():
    import pandas as pd

    from gpulens.analyzers.ranks import exposed_part

    # rank 2 the straggler; rank 0 waited 30 µs of its 10 µs exposed communication (the rest ran under compute),
    # rank 1 waited 20 µs of its 50 µs exposed: min(30, 10) + min(20, 50) = 30 µs can be exposed, not 50
    t = pd.DataFrame({"rank": [0, 1, 2], "collective_wait_ns": [30_000, 20_000, 0],
                      "exposed_comm_ns": [10_000, 50_000, 5_000]})
    assert exposed_part(50_000, t, 2) == 30_000
    assert exposed_part(25_000, t, 2) == 25_000  # within it: the measured waits stand
    t.loc[0, "exposed_comm_ns"] = None  # an unknown exposed figure caps nothing
    assert exposed_part(50_000, t, 2) == 50_000
