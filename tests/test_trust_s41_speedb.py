"""Speed work on the analyzers (issue 16), s41speedb: the roofline reads each launch's precision, matrix flag and
work source as codes into small tables (``_work.shape_work`` returns categoricals; ``_work.text_codes`` reads them
and ``counter_work``'s object columns alike) instead of a million Python objects. These tests pin what that code
path must still get right, each against an independent source: pandas' own ``factorize(sort=True)`` for the
numbering the dominant-precision pick relies on, and hand-made traces whose expected figures are worked out in the
comments (KTrace: host and GPU times in µs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers import run_all
from gpulens.analyzers._work import shape_work, text_codes
from gpulens.analyzers._hot import hot_kernels
from gpulens.analyzers.roofline import _is_text, _lacks_counters, _sorted_codes
from gpulens.collectors import collect
from gpulens.devices import identify

from .dig_traces import KTrace

_VALUES = ["fp32", None, "bf16", "fp32", np.nan, "tf32", "bf16", "fp16"]


@pytest.mark.parametrize("as_cat", [False, True])
def test_sorted_codes_number_as_factorize_sort(as_cat):
    """The rows kept, then selected, numbered as pd.factorize(values, sort=True) numbers them (missing: −1), with
    the same sorted distinct values — whether the column is a categorical (with an unused category) or objects."""
    obj = pd.Series(np.array(_VALUES, dtype=object), dtype=object)
    col = pd.Series(pd.Categorical(_VALUES, categories=["tf32", "int8", "fp32", "bf16", "fp16"])) if as_cat else obj
    keep = np.array([True, True, True, True, True, True, False, True])
    pos = np.array([True, True, False, True, True, True, True])  # over the kept rows
    want_codes, want_uniq = pd.factorize(obj.to_numpy(dtype=object)[keep][pos], sort=True)
    codes, uniq, values = _sorted_codes(col, keep, pos)
    assert codes.tolist() == want_codes.tolist() == [1, -1, 1, -1, 2, 0]
    assert list(uniq) == list(want_uniq) == ["fp16", "fp32", "tf32"]
    got = values()
    assert [None if isinstance(x, float) else x for x in got] == ["fp32", None, "fp32", None, "tf32", "fp16"]


def test_text_codes_and_masks_read_objects_and_categoricals_alike():
    objs = pd.Series(np.array(["counters", None, "shapes", "counters", ""], dtype=object), dtype=object)
    cats = pd.Series(pd.Categorical(["counters", None, "shapes", "counters", ""]))
    for col in (objs, cats):
        codes, uniq = text_codes(col)
        assert [None if c < 0 else uniq[c] for c in codes] == ["counters", None, "shapes", "counters", ""]
        assert _is_text(col, "counters").tolist() == [True, False, False, True, False]
        assert _is_text(col, "absent").tolist() == [False] * 5
    # a FLOP figure lacks counters only where a launch from counters names some: '' (all collected) and None do not
    missing = pd.Series(np.array(["SQ_INSTS_VALU_FMA_F16", "", None, "x", "SQ_INSTS_VALU_ADD_F32"], dtype=object),
                        dtype=object)
    from_ctr = np.array([True, True, True, False, True])
    assert _lacks_counters(missing, from_ctr).tolist() == [True, False, False, False, True]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """(Timeline, run_all results) of a trace with one kernel name launched by an fp32 mm (3 ms on the GPU) and a
    bf16 mm (1 ms); a TF32 CUTLASS kernel from an fp32 mm (2 ms); a copy kernel inside an fp32 add (2.5 ms)."""
    k = KTrace()
    sq = [[1024, 1024], [1024, 1024]]
    e1 = k.op("aten::mm", 100, 50, dims=sq, types=["float", "float"])
    k.launch(e1, 110, [("gemm_kernel_x", 1000, 3000)])
    e2 = k.op("aten::mm", 200, 50, dims=sq, types=["c10::BFloat16", "c10::BFloat16"])
    k.launch(e2, 210, [("gemm_kernel_x", 5000, 1000)])
    e3 = k.op("aten::mm", 300, 50, dims=sq, types=["float", "float"])
    k.launch(e3, 310, [("cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1", 7000, 2000)])
    e4 = k.op("aten::add", 400, 50, dims=sq, types=["float", "float"])
    k.launch(e4, 410, [("direct_copy_kernel_cuda", 10000, 2500)])
    tl = collect(k.write(tmp_path_factory.mktemp("s41speedb") / "t.json"))
    return tl, run_all(tl, identify(tl))


def test_shape_work_codes_per_launch(mixed):
    tl, res = mixed
    hot = hot_kernels(tl, res)
    work, stats = shape_work(tl, hot)
    assert stats["linked"] == 4
    dec = {c: (lambda cu: [None if x < 0 else cu[1][x] for x in cu[0]])(text_codes(work[c]))
           for c in ("precision", "matrix", "source")}
    rows = list(zip(hot["name"].astype(str), hot["dur_ns"].tolist(), dec["precision"], dec["matrix"],
                    dec["source"]))
    got = sorted(rows)
    # the fp32 mm's TF32 CUTLASS kernel runs on the TF32 matrix units (its name says so); the copy inside the fp32
    # add is fp32 vector work; the gemm kernel's two launches keep their ops' precisions
    assert got == sorted([
        ("gemm_kernel_x", 3_000_000, "fp32", True, "shapes"),
        ("gemm_kernel_x", 1_000_000, "bf16", True, "shapes"),
        ("cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1", 2_000_000, "tf32", True, "shapes"),
        ("direct_copy_kernel_cuda", 2_500_000, "fp32", False, "shapes"),
    ])
    # FLOPs: 2·1024³ per mm, all on the one computing kernel of each op
    f = dict(zip(hot["dur_ns"].tolist(), work["flops"].tolist()))
    assert f[3_000_000] == f[1_000_000] == f[2_000_000] == 2.0 * 1024 ** 3


def test_roofline_row_takes_the_precision_with_most_time(mixed):
    """gemm_kernel_x: 3 ms of fp32 work against 1 ms of bf16 — its row is fp32 (most time), its FLOPs both
    launches' 2·2·1024³; every launch's work came from shapes, none from counters."""
    rl = mixed[1]["roofline"]
    assert not rl.skipped
    t = rl.table.set_index("name")
    assert t.loc["gemm_kernel_x", "precision"] == "fp32"
    assert t.loc["gemm_kernel_x", "flops"] == 2 * 2.0 * 1024 ** 3
    assert t.loc["gemm_kernel_x", "calls"] == 2
    assert t.loc["cutlass_80_tensorop_s1688gemm_128x64_32x6_nt_align1", "precision"] == "tf32"
    assert t.loc["direct_copy_kernel_cuda", "flops_source"] == "shapes"
    s = rl.summary
    assert (s["launches"], s["launches_from_shapes"], s["launches_from_counters"],
            s["launches_flops_lower_bound"]) == (4, 4, 0, 0)
