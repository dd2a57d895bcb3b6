"""Session 42, new-user walk: faults found by running gpulens as a new user on real inputs, each fixed as a kind.

1. A rocprof counter pass without timestamps (``rocprof --pmc``, the usual form: no ``--timestamp on``) records each
   dispatch's launch configuration (``grd``, ``wgr``, ``lds``, ``arch_vgpr``, ``accum_vgpr``) beside its counters.
   Joined to a trace that lacks them (a ROCm Kineto trace records no VGPRs or LDS; a rocprof v1 ``results.db``
   folder's ``OPS`` table neither), the counters were attached but the launch configuration was dropped, so the
   occupancy analysis said "no launch data: the trace records no workgroup size, registers per thread or LDS" on a
   folder that records all three (``v1_hip_programming_mi300a``: ``output_vec_add_gpu.csv`` has wgr 256,
   arch_vgpr 8, lds 0 for the one kernel).

2. A rank folder read with ``--steps`` or ``--window`` that keeps no GPU event said "2 of 2 input files hold no GPU
   work (no kernel, collective, copy or fill)" about files that hold plenty (``multirank_hta_trace_filter
   --steps 3:4``: 1,154 and 1,104 kernels): the selection holds none, not the files. The note now names the
   selection; without one it is unchanged.

3. Plural agreement: "a per-name summary (1 rows, kernel domain)" now reads "(1 row, …)".

Every expected value is written here from the files' own fields and the AMD occupancy rules (hand calculation in
the comments), never from gpulens's output.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.collectors.join import join_dispatches
from gpulens.timeline.selection import Selection
from tests.conftest import SHARED

T0_US = 1_800_000_000_000
GEMM = "void gemm_tile<float, 128>(float const*, float const*, float*, int)"
RELU = "elementwise_relu(float*, int)"
# (name, start µs, dur µs) on device 0, stream 0 (ROCm's default stream)
RUN = [(GEMM, 0, 400), (RELU, 410, 350), (GEMM, 770, 420), (RELU, 1200, 380)]  # both kernels are hot
PMC_HEADER = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
              "wave_size,sig,obj,GPUBusy,Wavefronts")
# per kernel: grd (work-items), wgr, lds (bytes), arch_vgpr, accum_vgpr
RES = {GEMM: (1_048_576, 256, 16_384, 128, 64), RELU: (4_194_304, 512, 0, 12, 0)}


def write_kineto(path, device="AMD Instinct MI300X", regs=None):
    """A ROCm Kineto trace: kernels with grid/block but, as the PyTorch profiler writes them on ROCm, no registers
    or LDS (``regs`` adds a registers-per-thread field to show a recorded value is kept)."""
    events = []
    for i, (n, s, d) in enumerate(RUN):
        wg = RES[n][1]
        args = {"device": 0, "stream": 0, "correlation": 10 + i, "grid": [RES[n][0] // wg, 1, 1], "block": [wg, 1, 1]}
        if regs is not None:
            args["registers per thread"] = regs
        events.append({"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 0, "ts": T0_US + s, "dur": d,
                       "args": args})
    props = [{"id": 0, "name": device, "numSms": 304, "warpSize": 64, "computeMajor": 9, "computeMinor": 4,
              "totalGlobalMem": 205822885888}]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events, "deviceProperties": props}))


def write_pmc(path):
    """rocprof v1 ``--pmc`` output of the same run: no timestamp columns; one row per dispatch, in launch order."""
    rows = [PMC_HEADER]
    for i, (n, _, _) in enumerate(RUN):
        grd, wgr, lds, arch, accum = RES[n]
        rows.append(f'{i},"{n} [clone .kd]",2,0,{i},9,9,{grd},{wgr},{lds},0,{arch},{accum},32,64,0x0,0x1,'
                    f"{90 + i},{grd // 64}")
    path.write_text("\n".join(rows) + "\n")


def joined(tmp_path, **kineto):
    """Both files written and loaded, then joined: (Kineto Timeline, counter-pass Timeline, JoinResult)."""
    write_kineto(tmp_path / "run.pt.trace.json", **kineto)
    write_pmc(tmp_path / "pmc.csv")
    kin, pmc = (collect(tmp_path / n) for n in ("run.pt.trace.json", "pmc.csv"))
    return kin, pmc, join_dispatches(kin, pmc)


def test_untimed_counter_pass_gives_its_launch_configuration_to_the_joined_kernels(tmp_path):
    kin, pmc, res = joined(tmp_path)
    assert len(pmc.events) == 0  # no timestamps: no event, the dispatches are untimed
    k0 = kin.of_kind("kernel")
    assert k0["regs_per_thread"].isna().all() and k0["smem_static_bytes"].isna().all()
    assert res.matched == 4
    k = res.timeline.of_kind("kernel").sort_values("start_ns")
    for (_, row), (n, _, _) in zip(k.iterrows(), RUN):
        grd, wgr, lds, arch, accum = RES[n]
        assert row["regs_per_thread"] == arch + accum  # unified VGPR file (gfx90a+): arch + accumulation VGPRs
        assert row["smem_static_bytes"] == lds
        assert (row["grid_x"], row["block_x"]) == (grd // wgr, wgr)  # the trace's own grid (workgroups) kept
    # the counters still land on the right kernels (GPUBusy of dispatch i is 90 + i)
    busy = res.timeline.counters[res.timeline.counters["metric"] == "GPUBusy"].set_index("event_id")["value"]
    assert [busy[e] for e in k["event_id"]] == [90.0, 91.0, 92.0, 93.0]


def test_a_value_the_primary_records_is_kept(tmp_path):
    k = joined(tmp_path, regs=40)[2].timeline.of_kind("kernel")
    assert set(k["regs_per_thread"]) == {40}  # recorded by the primary: not replaced
    assert sorted(set(k["smem_static_bytes"])) == [0, 16_384]  # missing there: filled from the counter pass


def test_occupancy_of_a_kineto_trace_joined_with_a_counter_pass(tmp_path):
    write_kineto(tmp_path / "run.pt.trace.json")
    write_pmc(tmp_path / "pmc.csv")
    # the README's `gpulens analyze run.pt.trace.json rocprof_out/`: folded into the trace (most kernels match)
    rep = gpulens.analyze([tmp_path / "run.pt.trace.json", tmp_path / "pmc.csv"], cache=False)
    assert len(rep.sources) == 1
    occ = rep.sources[0].results["occupancy"]
    assert not occ.skipped, occ.skipped_reason
    t = occ.table.set_index("name")
    # MI300X (gfx942, CDNA3): 4 SIMDs per CU, 8 waves per SIMD, 512 VGPRs per lane (unified, granule 8),
    # 64 KiB LDS per CU, at most 16 workgroups per CU.
    # GEMM: 256 work-items = 4 waves; 192 VGPRs -> floor(512 / 192) = 2 waves per SIMD = 8 per CU -> 2 WGs;
    #       LDS 16 KiB -> 4 WGs; so 2 WGs x 4 waves = 8 of 32 wave slots = 25 %, limited by registers.
    g = t.loc[GEMM]
    assert (g["block_size"], g["regs_per_thread"], g["smem_bytes"]) == (256, 192, 16_384)
    assert g["active_blocks_per_sm"] == 2 and g["theoretical_occupancy_pct"] == pytest.approx(25.0)
    assert g["limiter"] == "registers"
    # RELU: 512 work-items = 8 waves; 12 VGPRs -> 16 after the granule of 8 -> 32 waves per SIMD, capped at 8 ->
    #       32 per CU -> 4 WGs; no LDS; 4 x 8 = 32 of 32 slots = 100 %.
    r = t.loc[RELU]
    assert (r["block_size"], r["smem_bytes"]) == (512, 0)
    assert r["active_blocks_per_sm"] == 4 and r["theoretical_occupancy_pct"] == pytest.approx(100.0)


HIP_DIR = SHARED / "rocprof" / "v1_hip_programming_mi300a"


@pytest.mark.skipif(not HIP_DIR.is_dir(), reason="developer corpus ../shared/traces absent")
def test_rocprof_v1_folder_with_a_counter_pass_has_occupancy():
    rep = gpulens.analyze([HIP_DIR], cache=False)
    occ = rep.sources[0].results["occupancy"]
    assert not occ.skipped, occ.skipped_reason
    row = occ.table.set_index("name").iloc[0]
    # output_vec_add_gpu.csv: grd 1000000000, wgr 256, lds 0, arch_vgpr 8, accum_vgpr 0 (results.db's OPS table
    # records no launch configuration at all)
    assert (row["block_size"], row["regs_per_thread"], row["smem_bytes"]) == (256, 8, 0)
    assert row["grid_blocks"] == 1_000_000_000 // 256  # 3,906,250 workgroups
    # MI300A (gfx942, 228 CUs): 4 waves per WG, 8 VGPRs -> 64 waves per SIMD, capped at 8 -> 8 WGs per CU = 100 %;
    # grid waves = 3,906,250 / (8 x 228) = 2,141.6
    assert row["active_blocks_per_sm"] == 8 and row["theoretical_occupancy_pct"] == pytest.approx(100.0)


def write_rank(path, rank, steps_with_gpu):
    """A Kineto rank file: ProfilerStep#5 and #6 (1 ms each); a launched kernel in each step of ``steps_with_gpu``."""
    ev = []
    for step in (5, 6):
        t0 = T0_US + (step - 5) * 1000
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1, "tid": 1,
                   "ts": t0, "dur": 1000})
        if step in steps_with_gpu:  # the launch call inside the step, its kernel after it (same correlation)
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t0 + 50, "dur": 20, "args": {"correlation": step}})
            ev.append({"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": t0 + 100,
                       "dur": 200, "args": {"device": 0, "stream": 7, "correlation": step}})
    path.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": 2},
                                "traceEvents": ev}))


def rank_note(tl):
    return next((w for w in tl.meta.warnings if "input files hold" in w), None)


def test_a_selection_that_keeps_no_gpu_event_of_a_rank_names_the_selection(tmp_path):
    write_rank(tmp_path / "rank0.json", 0, {5, 6})
    write_rank(tmp_path / "rank1.json", 1, {5, 6})
    assert rank_note(collect(tmp_path)) is None  # both files hold GPU work
    tl = collect(tmp_path, select=Selection.parse(steps="1:2"))  # the files record steps 5 and 6 only
    note = rank_note(tl)
    assert "2 of 2 input files hold no GPU work (no kernel, collective, copy or fill) in the selection (steps 1:2)" \
        in note
    # one rank without GPU work in step 6 alone: that rank's file is named, under the selection
    write_rank(tmp_path / "rank1.json", 1, {5})
    note = rank_note(collect(tmp_path, select=Selection.parse(steps="6:6")))
    assert "1 of 2 input files holds no GPU work (no kernel, collective, copy or fill) in the selection (steps 6:6): " \
           "rank1.json (rank 1)" in note


def test_without_a_selection_the_empty_rank_note_is_unchanged(tmp_path):
    write_rank(tmp_path / "rank0.json", 0, {5, 6})
    write_rank(tmp_path / "rank1.json", 1, set())
    note = rank_note(collect(tmp_path))
    assert "1 of 2 input files holds no GPU work (no kernel, collective, copy or fill): rank1.json (rank 1)" in note
    assert "selection" not in note.split(": ", 1)[1]  # (the folder's own name, before ": ", is pytest's)


def test_a_one_row_summary_says_one_row(tmp_path):
    """``results.stats.csv`` of one kernel (v1_hip_programming_mi300a) read "a per-name summary (1 rows, …)"."""
    p = tmp_path / "results.stats.csv"
    p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                 '"vector_add(float*, float*, float*, int)",1,3431611,3431611,100.0\n')
    note = next(w for w in collect(p).meta.warnings if "per-name summary" in w)
    assert "a per-name summary (1 row, kernel domain), not a trace" in note


# 4. rocprof-compute's vcopy on an MI300X (timestamps.csv in scientific notation: start == end, durations lost)
#    counts the DRAM traffic (TCC_EA0_RDREQ/WRREQ) but has no time to divide it by. The verdict said "memory not
#    counted" and told the user to "Collect a memory throughput counter (rocprof-compute HBM bandwidth)" — a counter
#    the input already holds; what is missing is the dispatches' durations.

def test_untimed_memory_side_asks_for_the_duration_not_a_counter():
    from gpulens.analyzers._verdict_text import _evidence_text
    from gpulens.analyzers.speed_of_light import UNTIMED_MEMORY_MISSING, missing_for_bound
    from gpulens.analyzers.verdict_rules import Evidence

    untimed = missing_for_bound(0.1, None, vendor="amd", memory_untimed=True)
    assert untimed == UNTIMED_MEMORY_MISSING and "memory throughput counter" not in untimed
    assert missing_for_bound(0.1, None, vendor="amd").startswith("a memory throughput counter")  # not counted
    e = Evidence("vecCopy", "kernel", 3, None, vendor="amd", compute_pct=0.1, memory_pct=None, sol_pct=0.1,
                 sol_missing=untimed, memory_untimed=True)
    assert "memory throughput unknown (DRAM traffic counted, no duration recorded)" in _evidence_text(e)
    e.memory_untimed = False
    assert "memory not counted" in _evidence_text(e)


MI300X_VCOPY = SHARED / "omniperf" / "vcopy_MI300X_A1"


@pytest.mark.skipif(not MI300X_VCOPY.is_dir(), reason="developer corpus ../shared/traces absent")
def test_rocprof_compute_vcopy_without_durations_names_the_durations():
    src = gpulens.analyze([MI300X_VCOPY], cache=False).sources[0]
    sol = src.results["speed_of_light"].table.iloc[0]
    # the DRAM traffic is counted: vecCopy -n 1048576 of doubles reads and writes 8 MiB each, at least 16,777,216 B
    assert sol["dram_bytes"] >= 2 * 1_048_576 * 8 and sol["time_ns"] is None
    row = src.results["verdicts"].table.iloc[0]
    assert row["verdict"] == "undetermined"
    assert "DRAM traffic counted, no duration recorded" in row["evidence"]
    assert "memory not counted" not in row["evidence"]
    assert "durations" in row["next_steps"][0] and "memory throughput counter" not in row["next_steps"][0]


# 5. hta_mi250_minitoy ("AMD Radeon Graphics", gfx90a, 104 CUs): "analysed as AMD Instinct MI210 … an MI250 GCD has
#    the same per-device figures; also matches AMD Instinct MI250 (one GCD) (first taken)" — the MI250 said twice,
#    and "(first taken)" read as if the MI250 had been taken.

def test_an_equivalent_second_part_is_named_once_and_plainly():
    from gpulens.devices import identify_device

    spec = identify_device({"name": "AMD Radeon Graphics", "gfx_arch": "gfx90a", "num_sms": 104})
    assert spec.name == "AMD Instinct MI210"
    # datasheets: MI210 181.0 dense BF16 TFLOPS, 1.6 TB/s; MI250 362.1 TFLOPS and 3.2 TB/s over its two GCDs
    assert "also matches AMD Instinct MI250 (one GCD), whose clock and peaks are the same (within 3 %)" in spec.note
    assert "first taken" not in spec.note and spec.note.count("MI250") == 1


# 6. aorta_mi350x: "18 launches of 8 kernels" beside "ROCm grid sizes converted …: 20 kernels with grid and
#    workgroup sizes in swapped places" — the 20 are the trace's kernel records, two of them the runtime's fill
#    kernels (__amd_rocclr_fillBufferAligned), counted as memsets. The note counts records, and says so.

def test_rocm_grid_note_counts_kernel_records(tmp_path):
    ev = []
    for i, (n, grid, block) in enumerate([("gemm_kernel", [256, 1, 1], [65536, 1, 1]),
                                          ("__amd_rocclr_fillBufferAligned.kd", [256, 1, 1], [256, 1, 1])]):
        ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 2, "tid": 1, "ts": T0_US + 100 * i, "dur": 10,
                   "args": {"device": 0, "stream": 1, "correlation": i + 1, "grid": grid, "block": block}})
    p = tmp_path / "rocm.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "rocprofiler-sdk_version": "0.6.0", "traceEvents": ev,
                             "deviceProperties": [{"id": 0, "name": "AMD Instinct MI350X", "numSms": 256,
                                                   "warpSize": 64}]}))
    tl = collect(p)
    assert (len(tl.of_kind("kernel")), len(tl.of_kind("memset"))) == (1, 1)
    # rocprofiler-sdk writes the workgroup size as "grid" and the work-items as "block": 65536 / 256 = 256 WGs
    assert tl.of_kind("kernel")["grid_x"].iloc[0] == 256 and tl.of_kind("kernel")["block_x"].iloc[0] == 256
    note = next(w for w in tl.meta.warnings if "ROCm grid sizes converted" in w)
    assert "in work-items" not in note and "2 kernel records with grid and workgroup sizes in swapped places" in note


# 7. `gpulens diff --help` said the top contributors to the total Δ "sum to it"; the README says they "need not sum
#    to the total Δ, which nets rises and falls". Both hold, for different rows: the top rows alone do not, the table
#    with its closing "all other rows" line does. The help now says which.

def write_run(path, durs):
    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": T0_US + 1000 * i, "dur": d,
           "args": {"device": 0, "stream": 7, "correlation": i}} for i, (n, d) in enumerate(durs.items())]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))


def test_diff_top_contributors_and_the_help_agree(tmp_path):
    from typer.testing import CliRunner

    from gpulens.cli import app
    from gpulens.diff import diff

    write_run(tmp_path / "base.json", {"gemm": 100, "softmax": 50, "add": 10})
    write_run(tmp_path / "cand.json", {"gemm": 130, "softmax": 20, "add": 15})  # +30, -30, +5: total +5 µs
    top = diff(tmp_path / "base.json", tmp_path / "cand.json", top=1).tables["contributors"]
    assert top["kernel"].tolist()[0] in ("gemm", "softmax") and abs(top["delta_ns"].iloc[0]) == 30_000
    assert top["delta_ns"].iloc[0] != 5_000  # the top row alone is not the total
    assert top["kernel"].iloc[-1] == "all other rows (2)" and top["delta_ns"].sum() == 5_000  # with it, it is
    help_text = " ".join(CliRunner().invoke(app, ["diff", "--help"], terminal_width=200).output.split())
    assert "they sum to it)" not in help_text and "alone they need not sum to it" in help_text
