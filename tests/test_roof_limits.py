"""No kernel runs above its roof: when the figures put one there, the figures are wrong and % of roof is unknown;
and the op-shape byte model follows PyTorch's type promotion (a scalar does not widen a tensor's output).

Expected values are hand calculations written here: bytes = Σ inputs + output, each numel × bytes per element
(bf16 2, fp16 2, fp32 4, int64 8, fp64 8), output dtype per the torch docs' "Type Promotion" page.
"""

from __future__ import annotations

import json
import math

import pytest

from gpulens.analyzers._flop_models import op_cost
from gpulens.report import analyze


@pytest.mark.parametrize("dims, types, want", [
    # bf16 tensor × Python float: result bf16 → 2n in + 8 (the scalar) + 2n out
    ([[8, 12, 64, 64], []], ["c10::BFloat16", "double"], 2 * 393216 + 8 + 2 * 393216),
    # fp16 + bf16 tensors promote to fp32: 2n + 2n in, 4n out (n = 16)
    ([[4, 4], [4, 4]], ["c10::Half", "c10::BFloat16"], 32 + 32 + 64),
    # int64 tensor × float scalar: a higher category scalar gives the default dtype float32 (4 B)
    ([[4, 4], []], ["long int", "double"], 128 + 8 + 64),
    # broadcast fp32 [4,4] + [4]: output [4,4] fp32
    ([[4, 4], [4]], ["float", "float"], 64 + 16 + 64),
    # int64 tensor + fp32 tensor: the float category wins, fp32 (not the wider int64)
    ([[4], [4]], ["long int", "float"], 32 + 16 + 16),
])
def test_elementwise_output_dtype_follows_type_promotion(dims, types, want):
    c = op_cost("aten::mul", json.dumps(dims), json.dumps(types))
    assert c is not None and c.bytes == want


def test_where_output_from_its_values_not_the_condition():
    # where(bool cond, fp16 a, fp16 b): 16 + 32 + 32 in, fp16 out 32
    c = op_cost("aten::where", json.dumps([[16], [16], [16]]), json.dumps(["bool", "c10::Half", "c10::Half"]))
    assert c is not None and c.bytes == 16 + 32 + 32 + 32


def _trace(tmp_path, dur_us):
    ev = []
    for i in range(5):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 100 + 100 * i,
                   "dur": 20, "args": {"External id": i + 1, "Input Dims": [[1024, 1024], [1024, 1024], []],
                                       "Input type": ["float", "float", "Scalar"]}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": 105 + 100 * i, "dur": 5, "args": {"correlation": i + 1, "External id": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 115 + 100 * i,
                   "dur": dur_us, "args": {"correlation": i + 1, "External id": i + 1, "device": 0, "stream": 7,
                                           "grid": [4096, 1, 1], "block": [256, 1, 1]}})
    p = tmp_path / f"t{dur_us}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132}]}))
    return p


def test_above_the_roof_is_unknown_with_a_note(tmp_path):
    # fp32 add of two 1024×1024 tensors: 3 × 4 MiB = 12,582,912 B per call. In 1 µs that is 12.6 TB/s, above the
    # H100 SXM's 3.35 TB/s HBM3 (datasheet): impossible, so % of roof and the attained rates are unknown
    res = analyze([_trace(tmp_path, 1.0)]).sources[0].results["roofline"]
    row = res.table.iloc[0]
    assert row["bytes"] == 5 * 12_582_912
    assert math.isnan(row["roof_pct"]) and math.isnan(row["bytes_per_s"]) and math.isnan(row["flops_per_s"])
    assert row["bound"] is None and pd_isna(row["time_at_stake_ns"])
    assert "% of the roof" in row["roof_note"]
    # the table's digits (one decimal): 12,582,912 B in 1 µs = 12.58 TB/s over 3.35 TB/s = 375.6 %
    assert float(row["roof_note"].split(" % ")[0].rsplit(" ", 1)[-1]) == round(12_582_912 / 1e-6 / 3.35e12 * 100, 1)
    (f,) = [f for f in res.findings if "exceed its roof" in f.title]
    assert f.time_at_stake_ns is None and f.category == "data-quality"


def test_the_kernel_page_shows_a_roof_note_that_applies(tmp_path):
    # the kernel page lists a note only where it applies: this kernel's note (above its roof) is shown in full
    import html as _html
    import re

    from gpulens.reports import html

    rep = analyze([_trace(tmp_path, 1.0)])
    note = rep.sources[0].results["roofline"].table.iloc[0]["roof_note"]
    rows = re.findall(r'<th scope="row">roof note</th><td>([^<]*)</td>', html.render(rep))
    assert rows and {_html.unescape(r) for r in rows} == {note}


def test_below_the_roof_is_kept(tmp_path):
    # the same work in 10 µs: 1.26 TB/s = 37.6 % of 3.35 TB/s
    row = analyze([_trace(tmp_path, 10.0)]).sources[0].results["roofline"].table.iloc[0]
    assert row["roof_pct"] == pytest.approx(12_582_912 / 10e-6 / 3.35e12 * 100, rel=1e-6)
    assert row["roof_note"] is None


def pd_isna(v):
    import pandas as pd

    return pd.isna(v)


@pytest.mark.parametrize("op, dims, types, want", [
    ("aten::fill_", [[1024], []], ["float", "Scalar"], 4096),              # writes 1024 fp32, reads nothing
    ("aten::zero_", [[1024]], ["c10::BFloat16"], 2048),
    ("aten::copy_", [[1024], [1024], []], ["c10::BFloat16", "float", "bool"], 4096 + 2048),  # read fp32, write bf16
    ("aten::relu", [[1024]], ["float"], 4096 + 4096),                      # out-of-place: read + write
])
def test_fill_and_copy_bytes(op, dims, types, want):
    c = op_cost(op, json.dumps(dims), json.dumps(types))
    assert c is not None and c.bytes == want


@pytest.mark.parametrize("dims, types, want", [
    # fuzzer: a dict where a dtype name belongs (was TypeError): only the fp32 [4,4] operand is a tensor → 64 in + 64 out
    ([[4, 4], [4, 4]], [{"dtype": "float"}, "float"], 128),
    ([[10 ** 200, 10 ** 200], [1]], ["float", "float"], 8),   # no dimension of 10^200: only [1] fp32 → 4 in + 4 out
    ([[-4, 4], [4, 4]], ["float", "float"], 128),             # a negative dimension is no shape
    ([[4, 4], [4, 4]], [["float"], "float"], 128),
    ([[-4, 4]], ["float"], None),                              # nothing left to model
])
def test_ill_typed_shapes_give_no_cost_and_no_error(dims, types, want):
    c = op_cost("aten::add", json.dumps(dims), json.dumps(types))
    assert (c.bytes if c is not None else None) == want
