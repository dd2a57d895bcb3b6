"""GEMM problems whose only GPU work is not a GEMM (session 50, a new user's multi-rank report): four addmm/mm ops of
the HTA multirank trace whose only linked GPU work is a ``Memset (Device)`` headed the report as "GEMM problems
faster than the GPU's peak", named nowhere, and still so with --device-spec "A100 80GB SXM". The kind of fault: the
GPU work linked to the op is not its computation — its rate is unknown with the reason on its row, never computed
from a memset's time, whatever the device; a rate that is impossible for another reason names its problems.

Traces built here (tests.dig_traces.KTrace, an H100: 989 TFLOP/s dense bf16 is its highest datasheet peak below fp8's
1979 TFLOP/s); FLOPs by hand: 2·M·N·K.
"""

from __future__ import annotations

from gpulens.report import analyze
from tests.dig_traces import KTrace

MM = ([[4096, 4096], [4096, 4096]], ["float", "float"])  # 2·4096³ = 137.4 GFLOP per call


def _trace(tmp_path, memset_only: bool, fast_kernel: bool = False):
    t = KTrace()
    # a normal GEMM: 137.4 GFLOP in 1 ms = 137.4 TFLOP/s (under every peak)
    e = t.op("aten::mm", 100, 20, [[2048, 4096], [4096, 8192]], MM[1])
    t.launch(e, 105, [("ampere_sgemm_128x64_nn", 1000.0, 1000.0)])
    # the op whose only GPU work is a 2 µs memset
    e = t.op("aten::mm", 200, 20, *MM)
    t.launch(e, 205, [("Memset (Device)", 3000.0, 2.0)], api="cudaMemsetAsync", cat="gpu_memset")
    if fast_kernel:  # a kernel of 1 µs for 137.4 GFLOP: 137 PFLOP/s, impossible on any GPU
        e = t.op("aten::addmm", 300, 20, [[64], [4096, 4096], [4096, 4096]], ["float", "float", "float"])
        t.launch(e, 305, [("sm90_xmma_gemm_f32f32_tn", 4000.0, 1.0)])
    return t.write(tmp_path / "t.json")


def test_memset_only_gemm_has_an_unknown_rate_with_its_reason(tmp_path):
    p = _trace(tmp_path, memset_only=True)
    for spec in (None, "A100 80GB SXM"):
        s = analyze([p], cache=False, device_spec=spec).sources[0]
        t = s.results["gemm_shapes"].table
        row = t[(t["M"] == 4096) & (t["N"] == 4096) & (t["K"] == 4096)].iloc[0]
        assert row["flops"] == 2 * 4096 ** 3
        assert row["flops_per_s"] != row["flops_per_s"] and row["peak_pct"] != row["peak_pct"]  # unknown (NaN)
        assert "only GPU work is Memset (Device)" in row["rate_note"]
        ok = t[(t["M"] == 2048)].iloc[0]  # the real GEMM keeps its rate: 2·2048·8192·4096 / 1 ms
        assert abs(ok["flops_per_s"] - 2 * 2048 * 8192 * 4096 / 1e-3) < 1e6 and ok["rate_note"] == ""
        assert not any("faster than the GPU's peak" in w for w in s.timeline.meta.warnings), spec


def test_an_impossible_rate_names_its_problem(tmp_path):
    s = analyze([_trace(tmp_path, memset_only=True, fast_kernel=True)], cache=False).sources[0]
    said = [w for w in s.timeline.meta.warnings if "faster than the GPU's peak" in w]
    assert len(said) == 1
    assert "1 problem " in said[0] and "aten::addmm 4096×4096×4096 (M×N×K, GPU work: sm90_xmma_gemm_f32f32_tn)" \
        in said[0]
    assert "Memset" not in said[0]  # the memset-only op is not "faster than the peak": its rate is not computed
