"""Held-back real traces (session 33): counts, sums and spans of two new public inputs, exact, and the one fault
the new files showed — a '%' table cell rounded to a false 100.0 %.

Files (unmodified copies, see ``tests/data/PROVENANCE.md``). Expected values computed from the raw files with plain
``json``/``gzip``/``csv`` (Kineto: ``ph == "X"``, kernels ``cat == "kernel"``, GPU events kernels + ``gpu_memcpy`` +
``gpu_memset``, span = first GPU start → last GPU end, a launch = a GPU event whose ``args.correlation`` is on a
``cuda_runtime`` event; rocprof v1: one row per dispatch, Σ ``DurationNs``, span = max ``EndNs`` − min ``BeginNs``):

| file | kernels (unique) | Σ kernel time | GPU span | launches per stream |
|---|---|---|---|---|
| HTA ``simple_add`` A100 Kineto | 79 (16) | 10,728,000 ns | 16,025,575,000 ns | stream 7: 91, stream 20: 7 |
| aiter rocprof v1 ``results.csv`` (gfx950, gpu-id 1) | 10 (3) | 4,870,186 ns | 29,195,323 ns | (v1 records no launches) |

The fault: the sglang graph-capture trace of AMD-AGI/TraceLens (``bs_32_rank0``, MI300X) has two kernels filling
an 11.016 µs span but 1 ns; its breakdown row read "busy % 100.0 %" beside "idle 1 ns" (the headline said "over
99.9 %"). A ``[%]`` cell now keeps the never-a-false-extreme rule shares already had.
"""

from __future__ import annotations

import json

import pytest

from gpulens.cli import main
from gpulens.reports._format import fmt_unit
from tests.conftest import DATA, KINETO
from tests.real_figures import assert_exact_figures

FACTS = {
    KINETO / "hta_a100_simple_add_two_streams.json.gz": dict(
        kernels=79, unique=16, kernel_ns=10_728_000, span_ns=16_025_575_000, launches={7: 91, 20: 7}),
    DATA / "rocprof" / "v1_aiter_gfx950" / "results.csv": dict(
        kernels=10, unique=3, kernel_ns=4_870_186, span_ns=29_195_323, launches={}),
}


@pytest.mark.parametrize("path", sorted(FACTS), ids=lambda p: p.parent.name + "/" + p.name)
def test_new_real_inputs_figures_are_exact_and_consistent(tmp_path, path):
    assert_exact_figures(tmp_path, path, FACTS[path])

def test_aiter_gfx950_rocprof_v1_is_identified_from_its_rocminfo(tmp_path):
    # results.sysinfo.txt names its one GPU agent 'AMD Radeon Graphics', gfx950, 256 compute units: an MI350-series
    # part (the name does not say which), found from the architecture and the CU count, never from the name
    info = (DATA / "rocprof" / "v1_aiter_gfx950" / "results.sysinfo.txt").read_text()
    assert "gfx950" in info and "AMD Radeon Graphics" in info
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(DATA / "rocprof" / "v1_aiter_gfx950" / "results.csv"),
                 "--json", str(out)]) == 0
    text = json.loads(out.read_text())["sources"][0]["device_text"]
    assert "gfx950" in text and "256 CUs" in text and "MI35" in text


def test_percent_cell_is_never_a_false_extreme():
    # 2 kernels covering 11.016 µs of an 11.016 µs span less 1 ns: 100 × 11015 / 11016 = 99.9909 %
    assert fmt_unit(100 * 11_015 / 11_016, "%") == "over 99.9 %"
    # 30 µs of work in a 58 ms span: 0.0517 % rounds honestly; 11 µs of 34 ms (0.032 %) is not "0.0 %"
    assert fmt_unit(100 * 30e-6 / 58e-3, "%") == "0.1 %"
    assert fmt_unit(100 * 11e-6 / 34e-3, "%") == "under 0.1 %"
    # the extremes themselves and ratios outside 0–100 (a spread, a change) are printed as they are
    assert fmt_unit(100.0, "%") == "100.0 %" and fmt_unit(0.0, "%") == "0.0 %"
    assert fmt_unit(250.0, "%") == "250.0 %" and fmt_unit(-12.5, "%") == "-12.5 %"


def test_breakdown_busy_cell_with_one_idle_nanosecond(tmp_path):
    # two back-to-back kernels, 1 ns apart: span 11.001 µs, busy 11.000 µs → busy 99.99 %, not "100.0 %"
    ev = [
        {"ph": "X", "cat": "kernel", "name": "k_a", "pid": 0, "tid": 7, "ts": 1000.0, "dur": 5.0,
         "args": {"device": 0, "stream": 7, "correlation": 1}},
        {"ph": "X", "cat": "kernel", "name": "k_b", "pid": 0, "tid": 7, "ts": 1005.001, "dur": 6.0,
         "args": {"device": 0, "stream": 7, "correlation": 2}},
    ]
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}]}))
    md = tmp_path / "o.md"
    assert main(["analyze", "-q", "--no-cache", str(trace), "--markdown", str(md)]) == 0
    rows = [ln for ln in md.read_text().splitlines() if ln.startswith("| 0 | 0 | 11.00 µs")]
    assert rows, md.read_text()[:3000]
    assert rows[0].rstrip(" |").endswith("over 99.9 %") and "100.0 %" not in rows[0]


def test_near_tie_gap_under_a_tenth_of_a_point_is_not_zero(tmp_path):
    # TraceLens sglang Qwen3-8B prefill+decode (MI300X): sync-bound 49.961 % beside computing 49.911 % read
    # "a near tie: 0.0 percentage points apart" while the two shares printed as 50.0 % and 49.9 %.
    # By hand: a 50.02 µs kernel then a 49.98 µs copy, span 100 µs: 50.02 % vs 49.98 %, 0.04 points apart
    import gpulens
    from gpulens.reports._answer import answer
    from tests.test_trust_s11_verdict_share import _copies_beside_kernels

    src = gpulens.analyze([_copies_beside_kernels(tmp_path, 49.98, 50.02)]).sources[0]
    vd = src.results["verdicts"].summary
    assert vd["verdict_share_pct"] == pytest.approx(50.02) and vd["secondary_share_pct"] == pytest.approx(49.98)
    s = answer(src).sentence
    assert "a near tie: under 0.1 percentage points apart" in s and "0.0 percentage points" not in s
