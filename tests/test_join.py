"""Joining a Kineto trace and a rocprof kernel trace of the same (synthetic) run: counters and resources must land
on the right Kineto kernels. Both files are written here; every expected value is set by hand below."""

from __future__ import annotations

import json

from gpulens.collectors import collect
from gpulens.collectors.join import join_dispatches
from gpulens.timeline.names import normalize_kernel_name, truncate_kernel_name

T0_US = 1_700_000_000_000  # Kineto start (µs)
CLOCK_OFFSET_NS = 123_456_789  # rocprof's clock reads this much later than Kineto's
GEMM = "void gemm_tile<float, 128>(float const*, float const*, float*, int)"
RELU = "elementwise_relu(float*, int)"
RED = "reduce_sum(float const*, float*, int)"
# (name, start offset µs, duration µs); order of the run on device 0 / stream 7
RUN = [(GEMM, 0, 40), (RELU, 50, 5), (GEMM, 60, 42), (RELU, 110, 6), (RED, 120, 9), (GEMM, 140, 41)]
V1_HEADER = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
             "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,SQ_WAVES,GRBM_GUI_ACTIVE")


def write_kineto(path):
    events = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": T0_US + s, "dur": d,
               "args": {"device": 0, "stream": 7, "correlation": 100 + i}} for i, (n, s, d) in enumerate(RUN)]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events,
                                "deviceProperties": [{"id": 0, "name": "AMD Radeon Graphics"}]}))


def write_rocprof(path, skew_ns=None):
    """rocprof v1 kernel trace of the same run, with one extra runtime-internal dispatch first (not in Kineto).
    SQ_WAVES of dispatch i is 1000 + i, so each Kineto kernel's expected counter is known."""
    lines = [V1_HEADER]
    begin = (T0_US - 30) * 1000 + CLOCK_OFFSET_NS
    lines.append(f'0,"__amd_rocclr_fillBufferAligned.kd",2,0,0,9,9,4096,256,0,0,8,0,16,64,0x0,0x1,0,{begin},'
                 f"{begin + 2000},{begin + 2100},999,1")
    for i, (n, s, d) in enumerate(RUN, start=1):
        b = (T0_US + s) * 1000 + CLOCK_OFFSET_NS + 250 * i + (skew_ns or {}).get(i, 0)  # small jitter
        vgpr = {GEMM: 128, RELU: 8, RED: 24}[n]
        lines.append(f'{i},"{n} [clone .kd]",2,0,{i},9,9,65536,256,{4096 if n == GEMM else 0},0,{vgpr},'
                     f"{64 if n == GEMM else 0},32,64,0x0,0x1,0,{b},{b + d * 1000},{b + d * 1000 + 50},"
                     f"{1000 + i},{5000 + i}")
    path.write_text("\n".join(lines) + "\n")


def test_kineto_and_rocprof_join_attaches_counters_to_the_right_kernels(tmp_path):
    write_kineto(tmp_path / "run.pt.trace.json")
    write_rocprof(tmp_path / "results.csv")
    kin, roc = collect(tmp_path / "run.pt.trace.json"), collect(tmp_path / "results.csv")
    # the runtime's fill dispatch (__amd_rocclr_fillBufferAligned) is a memset (issue 13 class 4), still a dispatch
    assert len(kin.of_kind("kernel")) == 6 and len(roc.of_kind("kernel")) == 6 and len(roc.of_kind("memset")) == 1
    res = join_dispatches(kin, roc)
    assert (res.matched, res.primary_kernels, res.secondary_dispatches) == (6, 6, 7)
    assert res.device_pairs == {0: 2}  # Kineto device 0 <-> rocprof gpu-id 2 (one GPU each side)
    # fitted offset = median of (kineto - rocprof) starts = -(offset + median jitter 250 * 3.5)
    assert res.offsets_ns[0] == -(CLOCK_OFFSET_NS + 875)
    tl = res.timeline
    k = tl.of_kind("kernel").sort_values("start_ns")
    c = tl.counters
    for i, (_, row) in enumerate(k.iterrows(), start=1):
        mine = c[c["event_id"] == row["event_id"]].set_index("metric")["value"]
        assert mine["SQ_WAVES"] == 1000 + i and mine["GRBM_GUI_ACTIVE"] == 5000 + i
        assert row["regs_per_thread"] == {GEMM: 128 + 64, RELU: 8, RED: 24}[row["name"]]
        assert row["grid_x"] == 65536 // 256 and row["block_x"] == 256
    assert 999 not in set(c["value"])  # the runtime's own dispatch matched nothing
    assert len(tl.tables["joined_dispatches"]) == 6
    assert any("joined 6 of 6 kernels" in w for w in tl.meta.warnings)


def test_join_drops_pairs_whose_times_disagree(tmp_path):
    write_kineto(tmp_path / "run.pt.trace.json")
    write_rocprof(tmp_path / "results.csv", skew_ns={5: 5_000_000})  # dispatch 5 (reduce) 5 ms off
    res = join_dispatches(collect(tmp_path / "run.pt.trace.json"), collect(tmp_path / "results.csv"),
                          tolerance_ns=100_000)
    assert res.matched == 5 and res.rejected_by_time == 1
    red = res.timeline.events.loc[res.timeline.events["name"] == RED, "event_id"].iloc[0]
    assert res.timeline.counters[res.timeline.counters["event_id"] == red].empty


def test_join_untimed_counter_dispatches_by_name_order(tmp_path):
    write_kineto(tmp_path / "run.pt.trace.json")
    header = "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr," \
             "wave_size,sig,obj,GPUBusy"
    rows = [f'{i},"{n} [clone .kd]",4,0,{i},9,9,256,256,0,0,8,0,16,64,0x0,0x1,{10 * i}' for i, (n, _, _) in
            enumerate(RUN)]
    (tmp_path / "pmc.csv").write_text("\n".join([header] + rows))
    pmc = collect(tmp_path / "pmc.csv")
    assert len(pmc.events) == 0 and len(pmc.tables["unattached_counters"]) > 0
    res = join_dispatches(collect(tmp_path / "run.pt.trace.json"), pmc)
    assert res.matched == 6
    k = res.timeline.of_kind("kernel").sort_values("start_ns")
    busy = res.timeline.counters[res.timeline.counters["metric"] == "GPUBusy"].set_index("event_id")["value"]
    assert [busy[e] for e in k["event_id"]] == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]


def test_name_helpers():
    assert normalize_kernel_name("vecCopy(double*, double*, double*, int, int) [clone .kd]") == \
        "vecCopy(double*, double*, double*, int, int)"
    assert normalize_kernel_name("vecCopy(double*, int) (.kd)") == "vecCopy(double*, int)"
    assert normalize_kernel_name("__amd_rocclr_copyBuffer.kd") == "__amd_rocclr_copyBuffer"
    assert normalize_kernel_name("Cijk_Ailk_Bjlk_S_B") == "Cijk_Ailk_Bjlk_S_B"
    assert truncate_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::Foo<float> >"
                                "(int, float*)") == "vectorized_elementwise_kernel"
    assert truncate_kernel_name(GEMM + " [clone .kd]") == "gemm_tile"
    assert truncate_kernel_name("ncclDevKernel_Generic_1") == "ncclDevKernel_Generic_1"


def test_generic_amd_kineto_device_is_narrowed_by_cu_count_and_arch():
    from gpulens.collectors._amd import device_candidates
    from tests.conftest import KINETO

    dev = collect(KINETO / "hta_mi250_minitoy_rocm6.2.json.gz").meta.devices[0]
    assert dev["name"] == "AMD Radeon Graphics"
    assert device_candidates(dev) == ("AMD Instinct MI210", "AMD Instinct MI250 (one GCD)")
    mi350 = collect(KINETO / "aorta_mi350x_train_step.pt.trace.json").meta.devices[0]
    assert device_candidates(mi350) == ("AMD Instinct MI350X", "AMD Instinct MI355X")
