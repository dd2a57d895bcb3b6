"""Verdicts that agree with the figures beside them (seventh session): big GEMMs judged at the achievable peak,
full grids never told to fill the GPU, a bounded time at stake, uncoalesced accesses named from ncu's sectors per
request. Every expected value is worked out by hand here from the inputs or from a documented figure."""

from __future__ import annotations

from pathlib import Path

import pytest

import gpulens
from gpulens.analyzers._stake import KERNEL_FLOOR_NS, time_at_stake
from gpulens.analyzers.verdict_rules import Evidence, decide
from gpulens.devices import get_spec
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table
from tests.conftest import shared_trace

GEMM = "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1"


def _one_kernel(metrics, name=GEMM, dur_ns=1_000_000, grid=296, calls=1):
    n = calls
    ev = make_table(EVENT_COLUMNS, {"event_id": list(range(n)), "kind": ["kernel"] * n, "name": [name] * n,
                                    "start_ns": [1000 + i * 2 * dur_ns for i in range(n)], "dur_ns": [dur_ns] * n,
                                    "rank": [0] * n, "device_id": [0] * n, "stream_id": [1] * n,
                                    "grid_x": [grid] * n, "grid_y": [1] * n, "grid_z": [1] * n,
                                    "block_x": [256] * n, "block_y": [1] * n, "block_z": [1] * n, "source": ["t"] * n})
    ids = [i for i in range(n) for _ in metrics]
    co = make_table(COUNTER_COLUMNS, {"event_id": ids, "metric": list(metrics) * n,
                                      "value": list(metrics.values()) * n,
                                      "unit": ["" for _ in metrics] * n, "source": ["t"] * len(ids)})
    return Timeline(ev, co).validate()


def test_mi300x_gemm_at_43_pct_of_the_datasheet_is_compute_bound_at_the_achievable_peak():
    # 1 ms MFMA BF16 GEMM: 512 FLOP per MOPS (rocprof-compute roofline formula) × 1,103,515,625 = 5.65e11 FLOP
    # → 565 TFLOP/s; FETCH_SIZE 1e5 KB + WRITE_SIZE 0 → 1.024e8 B → AI 5,517 FLOP/B: compute side.
    # Datasheet MI300X BF16 MFMA 1,307.4 TFLOP/s → 43.2 %; TraceLens' max-achievable 708 TFLOP/s → 79.8 %.
    tl = _one_kernel({"SQ_INSTS_VALU_MFMA_MOPS_BF16": 1_103_515_625, "FETCH_SIZE": 1e5, "WRITE_SIZE": 0.0})
    res = gpulens.analyze_timeline(tl, device_spec=get_spec("MI300X"))
    roof = res.results["roofline"].table.iloc[0]
    assert roof["compute_roof"] == "achievable.matrix.bf16" and roof["peak_flops_per_s"] == pytest.approx(708e12)
    assert roof["roof_pct"] == pytest.approx(100 * 565 / 708, rel=1e-3)
    assert roof["datasheet_roof_pct"] == pytest.approx(100 * 565 / 1307.4, rel=1e-3)
    assert roof["bound"] == "compute"
    # time at stake: the time above what the roof allows at the achievable peak, 1 ms × (1 − 565 / 708)
    assert roof["time_at_stake_ns"] == round(1_000_000 * (1 - 565 / 708))
    v = res.results["verdicts"].table.iloc[0]
    assert v["verdict"] == "compute-bound" and v["time_at_stake_ns"] == roof["time_at_stake_ns"]
    assert "43.2 % of the datasheet peak" in v["evidence"] and "79.8 %" in v["evidence"]  # 565/1307.4, 565/708
    assert not any("fill" in s.lower() or "more blocks" in s.lower() for s in v["next_steps"])


def test_a_grid_covering_nearly_every_cu_is_never_told_to_fill_the_gpu():
    # 296 blocks on 304 CUs (97 %): below its roof, but its grid is not the problem
    e = Evidence("gemm", "kernel", 1, 1_000_000, roof_pct=30.0, bound="below-roofs", ridge_side="compute",
                 mean_blocks=296, num_sms=304, family="gemm", library=True)
    v = decide(e)
    assert v.verdict == "below-roofs"  # 296 blocks cover the CUs: nothing says latency or occupancy (s33)
    assert not any("fill" in s.lower() for s in v.next_steps), v.next_steps
    # 150 blocks on 304 CUs (49 %) is: the grid step is there
    e.mean_blocks = 150
    assert any("fill" in s.lower() for s in decide(e).next_steps)
    # rule 5 (no roofline): a 296-block grid is not called latency-bound for its grid
    e2 = Evidence("k", "kernel", 1, 1_000_000, mean_blocks=296, num_sms=304)
    assert decide(e2).verdict == "undetermined"
    e2.mean_blocks = 100  # 100 of 304: at stake 1 ms × (1 − 100 / 304)
    v2 = decide(e2)
    assert v2.verdict == "latency/occupancy-bound" and v2.time_at_stake_ns == round(1_000_000 * (1 - 100 / 304))


def test_time_at_stake_keeps_two_microseconds_per_launch():
    # 1,000 launches of 3 µs at 1 % of the roof: the roof would allow 30 µs, but no launch runs under 2 µs,
    # so 2 ms stay: at stake 3 ms − 2 ms = 1 ms (not 2.97 ms)
    assert KERNEL_FLOOR_NS == 2_000
    assert time_at_stake(3_000_000, 1.0, calls=1000) == 1_000_000
    # one long launch: the floor does not bind, 1 ms × (1 − 0.25)
    assert time_at_stake(1_000_000, 25.0, calls=1) == 750_000
    # launches already at the floor: nothing at stake, never negative
    assert time_at_stake(1_500, 10.0, calls=1) == 0
    assert time_at_stake(1_000_000, None, calls=3) is None


def test_roofline_stake_of_many_short_launches_in_the_table():
    # 50 launches × 4 µs = 200 µs of an fp32 FFMA kernel at 2 × 1e6 FLOP per launch → 0.5 TFLOP/s each;
    # toy-free: H100 SXM vector fp32 66.9 TFLOP/s, 1 KB DRAM per launch → AI 2,000 (compute side) → 0.747 % of roof;
    # stake = 200 µs − max(200 µs × 0.747 %, 50 × 2 µs) = 100 µs
    tl = _one_kernel({"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1e6, "dram__bytes_read.sum": 1000.0},
                     name="tiny_kernel", dur_ns=4_000, grid=1, calls=50)
    roof = gpulens.analyze_timeline(tl, device_spec=get_spec("H100 SXM")).results["roofline"].table.iloc[0]
    assert roof["roof_pct"] == pytest.approx(100 * 0.5e12 / 66.9e12, rel=1e-3)
    assert roof["time_at_stake_ns"] == 100_000


def test_uncoalesced_stores_are_named_from_sectors_per_request():
    # naive transpose (Olajide RTX 5070 CSV figures): loads 524,288 sectors / 131,072 requests = 4 (coalesced),
    # stores 4,194,304 / 131,072 = 32 sectors per request = 8× a coalesced 32-bit access
    tl = _one_kernel({"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 524_288,
                      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 131_072,
                      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 4_194_304,
                      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 131_072,
                      "sm__throughput.avg.pct_of_peak_sustained_elapsed": 6.4,
                      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 21.4},
                     name="transpose_naive_kernel(const float *, float *, int, int)", dur_ns=163_072, grid=4096)
    res = gpulens.analyze_timeline(tl, device_spec=get_spec("H100 SXM"))
    v = res.results["verdicts"].table.iloc[0]
    assert "stores 32.0 sectors per request" in v["evidence"] and "loads 4.0" in v["evidence"]
    first = v["next_steps"][0]
    assert first.startswith("Global stores (32 sectors per request, 8×") and "uncoalesced" in first
    assert "loads" not in first  # the loads are coalesced
    f = [f for f in res.results["verdicts"].findings if (f.key or "").startswith("coalescing:")]
    assert len(f) == 1 and "stores" in f[0].title and f[0].severity == "warning"


@pytest.mark.parametrize("name, expected", [
    # 800 sectors / 100 requests = 8 per request. Unknown element type: 2× a coalesced 32-bit access (4), unless the
    # kernel uses wider vector accesses (float2 / double: 8) — said conditionally
    ("strided_copy", "loads (8 sectors per request, 2× a coalesced 32-bit access, unless they are wider vector"),
    # float* parameters: the same reading, its width named from the signature
    ("strided_copy(float const*, float*, int)", "2× a coalesced 32-bit access, unless"),
    # double* parameters: 32 threads × 8 B = 256 B = 8 sectors is the coalesced figure — nothing to name
    ("strided_copy(double const*, double*, int)", None),
])
def test_sectors_per_request_are_read_against_the_element_type(name, expected):
    tl = _one_kernel({"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 800,
                      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 100},
                     name=name, dur_ns=100_000, grid=4096)
    v = gpulens.analyze_timeline(tl, device_spec=get_spec("H100 SXM")).results["verdicts"].table.iloc[0]
    steps = " ".join(v["next_steps"])
    if expected is None:
        assert "uncoalesced" not in steps
    else:
        assert expected in steps


def test_real_naive_transpose_csv_names_its_uncoalesced_stores():
    path = shared_trace("ncu/olajide_rtx5070_metrics_transpose_naive.csv")
    v = gpulens.analyze([path]).sources[0].results["verdicts"].table.iloc[0]
    assert "uncoalesced" in v["next_steps"][0] and "32 sectors per request" in v["next_steps"][0]


def test_launch_bound_stake_may_exceed_the_kernel_and_says_so():
    # 20 launches of a 2 µs kernel (40 µs), each after 10 µs of launch idle: 200 µs of GPU idle at stake —
    # GPU time between kernels, removed by a graph however short the kernel; the evidence states both figures
    e = Evidence("tiny", "kernel", 20, 40_000, short_launch_frac=1.0, launch_idle_ns=200_000)
    v = decide(e)
    assert v.verdict == "launch-bound" and v.time_at_stake_ns == 200_000
    assert "more than the kernel's own 40.00 µs" in v.evidence and "200.00 µs" in v.evidence
    # idle below the kernel's time: no such sentence
    e2 = Evidence("tiny", "kernel", 20, 400_000, short_launch_frac=1.0, launch_idle_ns=200_000)
    assert "more than the kernel's own" not in decide(e2).evidence


def _rocprofv3_csv(tmp_path, n=4, dur=5_000, gap=100_000):
    # n kernels of 5 µs with 100 µs gaps, kernel trace only: no HIP API call says who launched them
    head = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
            '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
    rows = [f'"KERNEL_DISPATCH",1,1,69,{i + 1},16,"scale_kernel(float*, int)",{100 + i},{1_000_000 + i * (dur + gap)},'
            f'{1_000_000 + i * (dur + gap) + dur},0,0,256,1,1,1048576,1,1' for i in range(n)]
    p = tmp_path / "kernel_trace.csv"
    p.write_text("\n".join([head] + rows) + "\n")
    return p


def test_rocprofv3_idle_advice_names_rocprofv3_and_the_class_in_words(tmp_path):
    from gpulens.report import Report
    from gpulens.reports import markdown

    rep = Report([gpulens.analyze([_rocprofv3_csv(tmp_path)]).sources[0]])
    src = rep.sources[0]
    bn = src.results["bottlenecks"]
    # 3 gaps × 100 µs = 300 µs of idle that no launch call explains
    assert bn.summary["idle_unattributed_ns"] == 300_000 and bn.summary["verdict"] == "idle-unattributed"
    texts = " ".join(f"{f.title} {f.detail} {f.action}" for r in src.results.values() for f in r.findings)
    assert "rocprofv3 --runtime-trace" in texts and "torch.profiler" not in texts
    md = markdown.render(rep)
    assert "idle-unattributed" not in md and "GPU idle, cause not recorded" in md


def test_timeline_tab_names_its_extent_and_the_one_profiled_window(tmp_path):
    import json

    from gpulens.report import Report
    from gpulens.reports._html_timeline import timeline_page

    # Python function 1000 → 1100 µs; cpu op 1010–1020, its launch 1012–1014, kernel 1030–1040: the lanes drawn span
    # 1010 → 1040 = 30 µs, the profiled window (first → last recorded event) 1000 → 1100 = 100 µs
    ev = [{"ph": "X", "cat": "python_function", "name": "train.py(1): step", "pid": 9, "tid": 9, "ts": 1000,
           "dur": 100},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 9, "tid": 9, "ts": 1010, "dur": 10,
           "args": {"External id": 5}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 1012, "dur": 2,
           "args": {"correlation": 1, "External id": 5}},
          {"ph": "X", "cat": "kernel", "name": "mul_kernel", "pid": 0, "tid": 7, "ts": 1030, "dur": 10,
           "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 5}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    src = Report([gpulens.analyze([p]).sources[0]]).sources[0]
    assert src.results["breakdown"].summary["window_ns"] == 100_000
    take = timeline_page(src, 50, 10_000)[0].takeaway
    assert "over 30.00 µs (first to last event drawn" in take and "is 100.00 µs" in take


def test_undetermined_kernel_of_a_pytorch_program_recorded_by_nsys_is_told_its_own_tool():
    # a PyTorch program (aten kernels) recorded with nsys: the next step names ncu, not torch.profiler options
    e = Evidence("void at::native::vectorized_elementwise_kernel<4>", "kernel", 3, 30_000, pytorch=True,
                 torch_trace=False)
    steps = decide(e, vendor="nvidia").next_steps
    assert steps and "ncu --set full" in steps[0] and "torch.profiler" not in " ".join(steps)
    e.torch_trace = True  # recorded with torch.profiler: record_shapes / with_flops are its own options
    assert "torch.profiler with record_shapes" in decide(e, vendor="nvidia").next_steps[0]


def test_a_one_block_kernel_shorter_than_the_launch_floor_has_nothing_at_stake():
    # HTA's triton example: one 1.76 µs launch of 1 block on an A100's 108 SMs. Its grid leaves 107 SMs idle, but no
    # launch runs under 2 µs: at stake max(1,760 − 1 × 2,000, 0) = 0, not 1,760 × (1 − 1/108) = 1,744
    e = Evidence("triton_poi_fused_add_cos_sin_0", "kernel", 1, 1_760, mean_blocks=1, num_sms=108)
    v = decide(e)
    assert v.verdict == "latency/occupancy-bound" and v.time_at_stake_ns == 0
    # 10 launches of 36 µs (360 µs) with 1 block: (1 − 1/108) × 360 µs = 356.7 µs > 360 − 10 × 2 = 340 µs: capped
    e2 = Evidence("k", "kernel", 10, 360_000, mean_blocks=1, num_sms=108)
    assert decide(e2).time_at_stake_ns == 340_000
    # 10 launches of 360 µs with 54 blocks on 108 SMs: 0.5 × 3.6 ms = 1.8 ms, under 3.6 ms − 20 µs: unchanged
    e3 = Evidence("k", "kernel", 10, 3_600_000, mean_blocks=54, num_sms=108)
    assert decide(e3).time_at_stake_ns == 1_800_000


def test_a_grid_with_a_block_per_sm_but_few_waves_is_not_called_too_small_for_the_gpu():
    # H100 BERT layer norm: 141 blocks on 132 SMs, 12 resident per SM → 141 / 1,584 = 0.089 waves. Every SM has a
    # block, so "too few blocks to fill the GPU" would contradict "141 blocks on 132 SMs"; the step says each SM holds
    # about 141 / 132 = 1.1 of the 12 blocks it could
    e = Evidence("void at::native::vectorized_layer_norm_kernel<c10::BFloat16, float>", "kernel", 10, 30_912,
                 roof_pct=3.0, bound="below-roofs", ridge_side="memory", mean_blocks=141, num_sms=132,
                 waves_per_sm=141 / 1584, family="normalisation")
    step = decide(e).next_steps[0]
    assert "about 1.1 blocks on each SM/CU" in step and "8.9 %" in step
    assert "too few blocks to fill the GPU" not in step


def test_a_stake_near_the_whole_kernel_is_said_to_be_an_upper_bound():
    # 1 ms at 1 % of its roof, one launch: 1 ms − max(10 µs, 2 µs) = 990 µs at stake, 99 % of its time — stated as
    # the upper bound it is; at 40 % of its roof (600 µs, 60 %) no such sentence
    e = Evidence("k", "kernel", 1, 1_000_000, roof_pct=1.0, bound="below-roofs", ridge_side="memory")
    v = decide(e)
    assert v.time_at_stake_ns == 990_000 and "990.00 µs at stake is an upper bound" in v.evidence
    e.roof_pct = 40.0
    v = decide(e)
    assert v.time_at_stake_ns == 600_000 and "upper bound" not in v.evidence


def test_speed_of_light_evidence_shows_the_measured_share_beside_the_rated_one():
    # rocprof-compute vcopy on MI200: HBM at 52.7 % of the datasheet 1,638 GB/s but 62.2 % of the measured 1,389 GB/s
    # (864.2 GB/s / 1,388.9): memory-bound by the measured figure (≥ 60 %, session 46), both peaks in the evidence
    e = Evidence("vecCopy", "kernel", 3, 52_320, sol_bound="memory", compute_pct=4.4, memory_pct=52.7,
                 memory_measured_pct=62.2, roof_pct=62.2, roof_source="speed of light",
                 hbm_peaks_bps=(1388.93e9, 1638.4e9))
    v = decide(e)
    assert v.verdict == "memory-bound"
    assert ("memory 52.7 % of peak, 62.2 % of the measured HBM peak (1389 GB/s; rated 1638) → memory-bound"
            in v.evidence)


@pytest.mark.parametrize("name, size", [
    ("unnamed>::transpose_naive_kernel(const float *, float *, int, int)", 4),  # the Olajide ncu CSV's name
    ("transpose(double const*, double*, int)", 8),
    ("void k<c10::BFloat16>(c10::BFloat16 const*, c10::BFloat16*, long)", 2),
    ("k(double*, float*)", None),  # mixed element types: no single width
    ("triton_poi_fused_add_0", None),  # no signature
])
def test_element_size_from_the_kernel_signature(name, size):
    from gpulens.analyzers._coalescing import element_bytes

    assert element_bytes(name) == size


@pytest.mark.parametrize("pct, text", [(99.97, "over 99.9 %"), (100.0, "100.0 %"), (0.03, "under 0.1 %"),
                                       (0.0, "0.0 %"), (71.43, "71.4 %")])
def test_shares_never_round_to_a_false_extreme(pct, text):
    # 11 µs of GPU work in a 34.19 ms window: idle 99.97 % — "100.0 %" would say the GPU did nothing
    from gpulens.reports._format import share_pct_text

    assert share_pct_text(pct) == text


EXTRA = Path("/tmp/extra")


@pytest.mark.parametrize("trace", ["AMD-AGI__tests_traces_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                                   "AMD-AGI__tests_traces_mi300_google_owlv2-large-patch14-ensemble__1016001.json.gz"])
def test_real_mi300x_gemms_agree_with_their_figures(trace):
    # TraceLens MI300X traces: every verdict agrees with the numbers beside it — a compute-/memory-bound kernel is at
    # >= 50 % of its roof, a roof judged at the achievable bf16 peak is 708 TFLOP/s (TraceLens MAF), the datasheet
    # share is the achievable share × 708 / 1,307.4 on the compute side, and no grid of >= 90 % of the 304 CUs is
    # told to add blocks
    import re

    p = EXTRA / trace
    if not p.exists() or not p.stat().st_size:
        pytest.skip(f"{p} not present")
    src = gpulens.analyze([p]).sources[0]
    roof = src.results["roofline"].table.set_index("name")
    for r in src.results["verdicts"].table.to_dict("records"):
        rr = roof.loc[r["name"]] if r["name"] in roof.index else None
        if rr is not None and r["verdict"] in ("compute-bound", "memory-bound"):
            assert rr["roof_pct"] >= 50, r
        if rr is not None and rr["compute_roof"] == "achievable.matrix.bf16":
            assert rr["peak_flops_per_s"] == pytest.approx(708e12)
            # right of both ridges (achievable 708 / 5.3 = 134 FLOP/B, datasheet 1,307.4 / 5.3 = 247 FLOP/B)
            if rr["arithmetic_intensity"] >= 1307.4e12 / 5300e9 and rr["roof_pct"] < 100:
                assert rr["datasheet_roof_pct"] == pytest.approx(rr["roof_pct"] * 708 / 1307.4, rel=1e-6)
        m = re.search(r"(\d+) blocks on (\d+) SMs", r["evidence"])
        if m and int(m.group(1)) >= 0.9 * int(m.group(2)):
            assert not re.search(r"too few blocks|fills the GPU", " ".join(r["next_steps"])), r


def test_a_library_kernel_with_one_block_per_cu_is_told_smaller_tiles_not_more_work():
    # owlv2 on MI300X: a batched GEMM (library) at 36 % of its memory roof with 304 blocks on 304 CUs — every CU
    # has one block; the step is several blocks per CU (smaller tiles), not "more parallel work per call"
    e = Evidence("Cijk_Ailk_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT64x288x64_MI16x16x1", "kernel", 120, 55_060_000,
                 roof_pct=36.3, bound="below-roofs", ridge_side="memory", mean_blocks=304, num_sms=304,
                 family="gemm", library=True)
    step = decide(e).next_steps[0]
    assert "already gives every SM/CU a block (304 on 304)" in step and "smaller-tile" in step
    # MI300X BERT: 73,728 threads / 256 per block = 288 blocks on 304 CUs — 16 CUs get none: never "every CU"
    e.mean_blocks = 73_728 / 256
    step = decide(e).next_steps[0]
    assert "gives 288 of the 304 SMs/CUs a block" in step and "every SM/CU" not in step
    e.mean_blocks = 3000  # ten blocks per CU: the generic library step
    assert decide(e).next_steps[0].startswith("Give the library kernel more parallel work per call")


def test_a_gpu_sliver_in_a_host_only_window_is_not_a_gpu_bound_run(tmp_path):
    """nsys export of a run whose only GPU work is one 1.47 µs memset in a 131 ms window read "gpu-bound — busy
    100 % of its 1.47 µs span". By construction here: one 2 µs fill at 99,990 µs in a 100 ms host op, no kernel: the
    host-only time outside the GPU span is 99,998 µs of the 100 ms window (≥ half) and the GPU busy 2 µs of it (under
    the 10 % a verdict needs: negligible), so the run was host-bound by the window (session 16's rule); since s40 the verdict judges the GPU span,
    which holds one fill and no kernel: undetermined, the host-only time stated on its own — not GPU-bound; a run whose GPU span fills the window keeps its verdict."""
    import gpulens
    from tests.dig_traces import KTrace

    def run(fill_at: float, host_ms: float, fill_us: float = 2.0) -> tuple[str, str]:
        t = KTrace()
        ext = t.op("aten::zero_", 1000.0, host_ms * 1000)  # ts 0 reads as "never recorded" to Kineto readers
        t.launch(ext, 1000.0 + fill_at - 5.0, [("Memset (Device)", 1000.0 + fill_at, fill_us)], api="cudaMemsetAsync", cat="gpu_memset")
        rep = gpulens.analyze([t.write(tmp_path / f"t{fill_at}.json")])
        vd = rep.sources[0].results["verdicts"]
        return str(vd.summary["run_verdict"]), str(vd.summary["basis"])

    verdict, basis = run(99_990.0, 100.0)
    # s40: the verdict judges the GPU span, which holds one fill and no kernel: nothing to judge; the 99,990 µs of
    # host-only time before it and 8 µs after it (the 100 ms op ends at 100,000 µs) are stated on their own
    assert verdict == "undetermined" and basis.startswith("no kernel ran in the GPU span (copies or fills only)")
    assert "not judged by the verdict: 99.99 ms of host-only time before the first GPU work (start-up) and 8.00 µs " \
           "after the last" in basis
    # a 10 µs fill from 1 µs into a 12 µs host op: 2 µs of host-only time outside the GPU span, under half the
    # window, and the fill keeps the GPU busy over its whole span: GPU-bound as before
    verdict, basis = run(1.0, 0.012, 10.0)
    assert verdict == "gpu-bound"


def test_an_undetermined_kernel_whose_op_has_shapes_is_not_told_to_record_shapes():
    """b200 vLLM trace: the top kernel (launched by vllm::moe_forward, whose Input Dims are in the trace) was told
    "FLOP/byte figures (torch.profiler with record_shapes and with_flops)" — the shapes are there; what is missing is a
    FLOP model for that op. The step is then the counters, and the evidence names the op."""
    e = Evidence("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256", "kernel", 10, 1_000_000, pytorch=True, torch_trace=True,
                 shaped_op="vllm::moe_forward")
    v = decide(e, vendor="nvidia")
    assert v.verdict == "undetermined" and "record_shapes" not in " ".join(v.next_steps)
    assert v.next_steps[0].startswith("Collect counters") and "vllm::moe_forward" in v.evidence
    e.shaped_op = None  # no shapes recorded: torch.profiler's options are the step, as before
    assert "record_shapes" in decide(e, vendor="nvidia").next_steps[0]
