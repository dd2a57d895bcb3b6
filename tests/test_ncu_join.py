"""Attaching Nsight Compute metrics to the kernels of a trace (`gpulens analyze trace.json report.ncu.csv`).

The trace is written here by hand around the launches of case B20 (15-column ncu CSV: gemm_kernel with grid
(4096,1,1)/block (256,1,1), then reduce_sum with grid (132,1,1)/block (1024,1,1)), so the right matching is known.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gpulens.collectors import collect
from gpulens.report import analyze
from gpulens.timeline.join import attach_ncu, base_name
from tests.conftest import CASES

GEMM = "gemm_kernel(float const*, float const*, float*, int)"
REDUCE = "reduce_sum(float const*, float*, int)"


@pytest.mark.parametrize("name, base", [
    ("void at::native::vectorized_elementwise_kernel<4, at::native::AbsFunctor<float>, std::array<char*, 2>>(int, "
     "at::native::AbsFunctor<float>, std::array<char*, 2>)", "vectorized_elementwise_kernel"),
    ("void vectorized_elementwise_kernel<4, AbsFunctor<float>, array<char *, 2>>(int, T2, T3)",
     "vectorized_elementwise_kernel"),
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(T1::Params)",
     "Kernel2"),
    ("gemm_kernel(float const*, float const*, float*, int)", "gemm_kernel"),
    ("nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT", "nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTT"),
    ("<unnamed>::nvfuser_none_f0_c0_r0_g0(<unnamed>::Tensor<__half, 3, 3>)", "nvfuser_none_f0_c0_r0_g0"),
])
def test_base_name(name, base):
    assert base_name(name) == base


def _kernel(name, ts, dur, grid, block, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": "stream 7", "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "grid": grid, "block": block, "correlation": corr}}


def _trace(path):
    events = [
        _kernel(GEMM, 100, 5, [64, 1, 1], [256, 1, 1], 1),        # same name, other configuration: not profiled
        _kernel("elementwise(float*)", 110, 2, [8, 1, 1], [128, 1, 1], 2),
        _kernel(GEMM, 120, 1235, [4096, 1, 1], [256, 1, 1], 3),    # ncu launch 0
        _kernel(REDUCE, 1400, 2050, [132, 1, 1], [1024, 1, 1], 4),  # ncu launch 1
        _kernel(REDUCE, 3500, 2050, [132, 1, 1], [1024, 1, 1], 5),  # a later launch ncu did not profile
    ]
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return path


def test_attach_by_name_order_and_configuration(tmp_path):
    trace = collect(_trace(tmp_path / "t.json"))
    ncu = collect(CASES / "B20.ncu_details_15col.csv")
    res = attach_ncu(trace, ncu)
    assert (res.launches, res.matched, res.config_mismatches) == (2, 2, 1)
    k = res.timeline.events.set_index("event_id")
    assert k.loc[res.mapping[0], "start_ns"] == 120_000 and k.loc[res.mapping[1], "start_ns"] == 1_400_000
    c = res.timeline.counters
    dur = c[(c["metric"] == "Duration")].set_index("event_id")["value"]
    assert dur.to_dict() == {res.mapping[0]: pytest.approx(1_234_560), res.mapping[1]: pytest.approx(2_050_000)}
    assert set(c.loc[c["metric"] == "Duration", "source"]) == {"ncu_csv"}
    assert any("attached to 2 of 2" in w for w in res.timeline.meta.warnings)
    assert len(trace.counters) == 0  # the input Timeline is not modified


def test_analyze_folds_the_ncu_input_into_the_trace(tmp_path):
    t = _trace(tmp_path / "t.json")
    rep = analyze([t, CASES / "B20.ncu_details_15col.csv"])
    assert len(rep.sources) == 1
    s = rep.sources[0]
    assert s.summary["kernel_count"] == 5  # the trace's kernels, not ncu's serialized replays
    assert {x["collector"] for x in s.timeline.meta.sources} == {"kineto", "ncu_csv"}
    assert [x.get("matched") for x in s.timeline.meta.sources if x["collector"] == "ncu_csv"] == [2]
    out = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", "analyze", str(t),
                        str(CASES / "B20.ncu_details_15col.csv"), "--json", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "attached to 2 of 2" in r.stdout.replace("\n", " ")


def test_ncu_input_that_matches_nothing_stays_its_own_source(tmp_path):
    t = tmp_path / "other.json"
    t.write_text(json.dumps({"traceEvents": [_kernel("unrelated(int)", 10, 5, [1, 1, 1], [32, 1, 1], 1)]}))
    rep = analyze([t, CASES / "B20.ncu_raw.csv"])
    assert len(rep.sources) == 2
    assert any("no profiled launch matched" in w for w in rep.sources[1].timeline.meta.warnings)
