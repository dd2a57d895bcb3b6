"""Sixth-session fuzzing (tests/fuzz_fresh.py): figures no run can have.

* op roll-up: a call nested in a call of the same op (reentrant backward under activation checkpointing, a
  recursive op) had its GPU time summed twice into its row — a row's share of the GPU time reached 2.9;
* kernel counters of timestamp-less counter inputs (rocprof v1 ``pmc`` without ``--timestamp``): a negative or
  infinite counter value was averaged in (GPUBusy -5 and 100 gave a mean of 47.5; ``inf`` showed as ``inf`` in the
  Markdown table), and a mean past float64 (two values of 1e308) was ``inf``.

Inputs are written inline; expected values are hand sums of the durations / counter values written here.
"""

from __future__ import annotations

import json
import re

import pytest

import gpulens
from gpulens.reports import markdown


def _ev(cat, name, ts, dur, tid=1, pid=1, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def test_op_nested_in_itself_counts_its_gpu_time_once(tmp_path):
    # outer ck_fn [1000, 1100] launches k_outer (10 µs); inner ck_fn [1020, 1060] inside it launches k_inner (20 µs)
    evs = [_ev("cpu_op", "ck_fn", 1000, 100, **{"External id": 1}),
           _ev("cuda_runtime", "cudaLaunchKernel", 1005, 2, correlation=1),
           _ev("cpu_op", "ck_fn", 1020, 40, **{"External id": 2}),
           _ev("cuda_runtime", "cudaLaunchKernel", 1025, 2, correlation=2),
           _ev("kernel", "k_outer", 1010, 10, tid=7, pid=0, device=0, stream=7, correlation=1),
           _ev("kernel", "k_inner", 1030, 20, tid=7, pid=0, device=0, stream=7, correlation=2)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    r = gpulens.analyze([p]).sources[0].results["op_rollup"]
    row = r.table.set_index("op").loc["ck_fn"]
    assert row["calls"] == 2
    assert row["gpu_time_ns"] == 30_000      # 10 + 20 µs: the inner call's 20 µs is inside the outer call's
    assert row["gpu_events"] == 2
    assert row["share"] == 1.0               # all 30 µs of GPU time, not 50 / 30


# rocprof v1 counter mode (pmc: GPUBusy Wavefronts), no --timestamp: the header of a real rocprof v1 file
_HEAD = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,"
         "sig,obj,GPUBusy,Wavefronts\n")


def _pmc(tmp_path, busy: list[str], counter: str = "GPUBusy"):
    rows = [f'{i},"vadd(float*, int) [clone .kd]",4,0,0,1,1,1024,256,0,0,8,0,16,64,0x0,0x7f,{b},16.0\n'
            for i, b in enumerate(busy)]
    p = tmp_path / "pmc_results.csv"
    p.write_text(_HEAD.replace("GPUBusy", counter) + "".join(rows))
    return gpulens.analyze([p])


def test_negative_and_infinite_kernel_counters_are_dropped_and_counted(tmp_path):
    rep = _pmc(tmp_path, ["100.0", "-5.0", "inf", "80.0"])
    src = rep.sources[0]
    t = src.results["kernel_counters"].table.set_index("name")
    assert t.loc["vadd(float*, int) [clone .kd]", "GPUBusy"] == 90.0   # (100 + 80) / 2: -5 and inf left out
    assert t.loc["vadd(float*, int) [clone .kd]", "dispatches"] == 4
    assert any("2 per-kernel counter values negative or infinite dropped" in w for w in src.timeline.meta.warnings)
    md = markdown.render(rep)  # no table cell shows inf or -5 (the temporary path may hold "-5": pytest-5x)
    assert "| inf" not in md and not re.search(r"\|\s*-5(\.0*)?\s*\|", md)


def test_a_counter_mean_past_float64_is_unknown(tmp_path):
    # a count (SQ_WAVES), not a percentage: 1e308 is a value it could hold, the mean of two is past float64
    src = _pmc(tmp_path, ["1e308", "1e308"], counter="SQ_WAVES").sources[0]
    v = src.results["kernel_counters"].table.set_index("name").loc["vadd(float*, int) [clone .kd]", "SQ_WAVES"]
    assert v != v   # NaN (unknown): (1e308 + 1e308) / 2 overflows float64 on the way


# ncu ``--csv`` details page (``--metrics``): one Duration and the counters the hierarchical roofline reads
_NCU_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
             '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def _ncu_rows(i: int, name: str, flop: str, dram_mb: str, us: str) -> str:
    pre = f'"{i}","42","app","h","{name}","1","7","(256, 1, 1)","(132, 1, 1)","0","9.0",'
    return "".join(pre + f'"Command line profiler metrics","{m}","{u}","{v}"\n' for m, u, v in (
        ("dram__bytes_read.sum", "Mbyte", dram_mb), ("dram__bytes_write.sum", "byte", "0"),
        ("gpu__time_duration.sum", "usecond", us), ("sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", flop)))


def test_hierarchical_roofline_point_above_its_roof_is_unknown(tmp_path):
    # k_ok: 1e9 FLOP in 100 µs = 1e13 FLOP/s, a few % of any data-centre GPU's bf16 roof;
    # k_bad: 1e15 FLOP in 1 µs = 1e21 FLOP/s, a thousand times any GPU's peak: the figures are off, not the kernel
    p = tmp_path / "details.csv"
    p.write_text(_NCU_HEAD + _ncu_rows(0, "k_ok", "1,000,000,000", "10.00", "100.00")
                 + _ncu_rows(1, "k_bad", "1,000,000,000,000,000", "10.00", "1.00"))
    r = gpulens.analyze([p]).sources[0].results["hierarchical_roofline"]
    assert not r.skipped, r.skipped_reason
    t = r.table.set_index("name")
    assert 0 < t.loc["k_ok", "pct_of_attainable"] < 100
    assert t.loc["k_bad", "pct_of_attainable"] != t.loc["k_bad", "pct_of_attainable"]   # NaN: unknown
    assert t.loc["k_bad", "achieved_flops"] == pytest.approx(1e21)                                    # the measured figure stays
    assert r.summary["points_above_roof"] == 1


def test_a_duration_no_profiler_measured_is_excluded_not_summed(tmp_path):
    # kbig lasts 9,223,372,036,854 µs (~292 years: an end of 2^63 ns written by a broken export); summed with any
    # other duration it wrapped int64 and the kernel time came out as -9.2e18 ns. k0 and k1 are 5 µs each.
    evs = [_ev("kernel", "k0", 1000, 5, tid=7, pid=0, device=0, stream=7),
           _ev("kernel", "kbig", 1010, 9_223_372_036_854, tid=8, pid=0, device=0, stream=8),
           _ev("kernel", "kbig2", 1010, 9_223_372_036_854, tid=9, pid=0, device=0, stream=9),
           _ev("kernel", "k1", 1020, 5, tid=7, pid=0, device=0, stream=7)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    src = gpulens.analyze([p]).sources[0]
    sm = src.summary
    assert sm["kernel_count"] == 2 and sm["kernel_time_ns"] == 10_000 and sm["gpu_busy_ns"] == 10_000
    assert sm["span_ns"] == 25_000                  # 1000 µs → 1025 µs
    assert sm["rejected_event_count"] == 2
    # the warning names the file, as every input warning does (fuzzing: this one alone did not)
    assert any(w.startswith(f"{p}: 2 events with an impossible time excluded") for w in src.timeline.meta.warnings)


def test_gemm_faster_than_its_dtype_peak_has_no_percent_of_peak(tmp_path):
    # bf16 aten::mm 4096^3: 2 × 4096^3 = 137,438,953,472 FLOP in 92 µs = 1.494e15 FLOP/s — 151 % of the H100's dense
    # BF16 peak (989.4 TFLOP/s, NVIDIA datasheet) but below its FP8 peak (1,979 TFLOP/s): it ran at another
    # precision; a "151 % of peak" shown was impossible. The rate is possible: it stays.
    from tests.dig_traces import KTrace

    t = KTrace()
    e = t.op("aten::mm", 100.0, 120, [[4096, 4096], [4096, 4096]], ["c10::BFloat16"] * 2)
    t.launch(e, 105.0, [("ampere_bf16_s16816gemm_bf16_128x64_ldg8_nn", 1000.0, 92.0)])
    p = t.write(tmp_path / "mm.json")
    src = gpulens.analyze([p]).sources[0]
    row = src.results["gemm_shapes"].table.iloc[0]
    assert row["flops"] == 2 * 4096 ** 3
    assert row["flops_per_s"] == pytest.approx(2 * 4096 ** 3 / 92e-6)
    assert row["peak_pct"] != row["peak_pct"]     # NaN: unknown
    assert any("above their dtype's peak" in w for w in src.timeline.meta.warnings)
