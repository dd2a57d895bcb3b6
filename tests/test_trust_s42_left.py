"""Session 42, one definition per figure (leftovers): the gate's limit columns and headline, the ncu bound's level,
the run verdict in ``repr``, the demo from Python. Expected values are worked out by hand in each test."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import gpulens
from gpulens.gate.result import GateResult, MetricResult
from gpulens.gate.stats import compare_timing

ROOT = Path(__file__).resolve().parent
H200_CSV = ROOT / "data" / "nvidia" / "h200" / "h200_kernels_details.csv"

# a noisy 3-run baseline: median 100, |x − 100| = 0, 10, 5 → MAD 5 → noise 1.4826 · 5 / 100 = 7.413 %;
# PASS band max(5 %, 2 × 7.413 %) = 14.826 %; 3 vs 3 runs: 1 / C(6, 3) = 0.05 > 0.01, so no test: the band decides
BASE = [100.0, 110.0, 95.0]


def test_threshold_only_rows_keep_the_configured_threshold_and_name_the_band():
    c = compare_timing(BASE, [110.0, 110.0, 110.0])  # +10 %: inside 14.8 %, outside 5 %
    assert c.method == "threshold" and c.verdict == "PASS"
    assert c.threshold == 0.05 and c.band == pytest.approx(0.14826) and c.spread == pytest.approx(0.07413)
    assert c.reason.startswith("within the 14.8 % PASS band — 2 × baseline noise 7.4 %, wider than the 5.0 % "
                               "threshold")
    r = compare_timing(BASE, [120.0, 120.0, 120.0])  # +20 % > 14.8 %
    assert r.verdict == "REGRESSED" and r.reason.startswith("20.0 % worse, over the 14.8 % PASS band")
    # a quiet baseline: the band is the threshold, said as before
    q = compare_timing([100.0, 100.0, 100.0], [103.0, 103.0, 103.0])
    assert q.verdict == "PASS" and q.reason.startswith("within the 5.0 % threshold (no test")


def _result() -> GateResult:
    row = MetricResult("kernel:gemm", "timing", "ns", "lower", "PASS", True,
                       "within the 14.8 % PASS band — 2 × baseline noise 7.4 %, wider than the 5.0 % threshold",
                       base_n=3, cand_n=3, base_median=100.0, cand_median=110.0, base_spread=0.07413, ratio=1.1,
                       threshold=0.05, band=0.14826, method="threshold", share=0.9)
    return GateResult("PASS", "the only gating metric within its threshold (3 candidate runs)", [row], None,
                      {"runs": [1, 2, 3], "excluded": [], "machine_key": "m"},
                      config={"threshold": 0.05, "noise_multiplier": 2.0, "alpha": 0.01, "min_kernel_share": 0.01})


def test_every_gate_report_shows_threshold_noise_and_band_alike():
    from gpulens.reports import gate_console, gate_html, gate_markdown

    res = _result()
    md = gate_markdown.render(res)
    head = next(line for line in md.splitlines() if line.startswith("|  | metric"))
    assert "| threshold | baseline noise | PASS band |" in head
    assert "| ±5.0 % | ±7.4 % | ±14.8 % |" in md
    html = gate_html.render(res)
    assert all(f'<th scope="col">{t}</th>' in html for t in ("threshold", "baseline noise", "PASS band"))
    text = gate_console.render(res, width=200)
    for words in ("threshold", "±5.0 %", "±7.4 %", "±14.8 %"):
        assert words in text
    assert "noise" in text and "band" in text  # headers (rich may fold a two-word header)
    assert res.to_dict()["metrics"][0]["threshold"] == 0.05 and res.to_dict()["metrics"][0]["band"] == 0.14826
    from gpulens.reports import gate_junit

    assert "threshold ±5.0 %, baseline noise ±7.4 %, PASS band ±14.8 %," in gate_junit.render(res)


def test_headline_names_the_regressed_kernels_before_the_run_aggregates():
    from gpulens.gate.compare import _order, _overall

    def row(metric: str, ratio: float, base: float, share: float | None = None) -> MetricResult:
        return MetricResult(metric, "timing", "ns", "lower", "REGRESSED", True, "", base_n=5, cand_n=5,
                            base_median=base, cand_median=base * ratio, ratio=ratio, share=share,
                            method="threshold")

    rows = _order([row("span_ns", 1.114, 2_730_000), row("gpu_busy_ns", 1.116, 2_670_000),
                   row("kernel:relu", 1.30, 100_000, 0.05), row("kernel:gemm", 1.228, 1_620_000, 0.6)])
    verdict, reason = _overall(rows, SimpleNamespace(runs=[1, 2, 3, 4, 5]), "")
    # kernels by absolute change: gemm 0.228 × 1.62 ms = 369 µs > relu 0.30 × 100 µs = 30 µs; then span (first run
    # timing); 4 hit − 3 named = 1 more
    assert verdict == "REGRESSED"
    assert reason == ("4 of 4 gating metrics regressed: kernel:gemm (+22.8 %), kernel:relu (+30.0 %), "
                      "span_ns (+11.4 %) and 1 more")


def test_the_memory_throughput_is_named_by_the_level_it_is():
    from gpulens.analyzers._stake import sol_limit

    # H200 CSV gemm_naive: Memory Throughput 97.22 %, L1 over elapsed cycles 97.15 % (0.07 points apart), L2 19.56 %
    naive = {"compute_pct": 64.79, "memory_pct": 97.22, "dram_pct": 0.3, "l1_run_pct": 97.15, "l2_pct": 19.56}
    assert sol_limit(naive) == (97.22, "L1")
    # no level within a point of it (80 vs L1 50, L2 40, DRAM 30): the profiler's word stays
    assert sol_limit({"compute_pct": 10.0, "memory_pct": 80.0, "dram_pct": 30.0, "l1_run_pct": 50.0,
                      "l2_pct": 40.0}) == (80.0, "memory")


def test_bound_column_names_the_level_its_percentage_is_of():
    from gpulens.reports._roofline_text import bound_words

    assert bound_words("memory", None, "DRAM") == "memory (DRAM)"
    assert bound_words("memory", "L2", "L2") == "memory (L2)"
    assert bound_words("compute", None, "compute") == "compute"


@pytest.fixture(scope="module")
def h200():
    return gpulens.analyze([H200_CSV])


def test_h200_bound_and_percentage_name_one_unit(h200):
    from gpulens.reports import console
    from gpulens.reports._roofline_text import roofline_display

    t = roofline_display(h200.sources[0].results["roofline"].table)
    rows = {str(n).split("(")[0]: (b, u) for n, b, u in zip(t["name"], t["bound"], t["bound_pct_unit"])}
    # the CSV: saxpy L2 79.61 % is its busiest unit (DRAM 66.83); gemm_naive's 97.22 % Memory Throughput is L1's
    assert rows["saxpy"] == ("memory (L2)", "L2") and rows["gemm_naive"] == ("memory (L1)", "L1")
    text = " ".join(console.render(h200, width=250).split())
    assert "97.2 (L1)" in text and "79.6 (L2)" in text and "97.2 (memory)" not in text


def test_repr_names_the_run_verdict(h200):
    src = h200.sources[0]
    # 3 of the CSV's 4 kernels (88.4 + 22.5 + 11.6 µs of stake) are memory-bound by their counters
    assert src.results["verdicts"].summary["run_verdict"] == "memory-bound"
    assert ", verdict memory-bound, " in repr(src) and ", verdict memory-bound, " in repr(h200)


def test_the_demo_runs_from_python():
    from gpulens.cli.analyze import demo_trace_path

    p = gpulens.demo_trace()
    assert "demo_trace" in gpulens.__all__ and p.is_file() and p.name.endswith(".pt.trace.json.gz")
    assert demo_trace_path() == p  # `gpulens analyze --demo` reads the same file
    readme = (ROOT.parent / "README.md")
    if readme.is_file():  # the README's Python section shows the route
        assert "gpulens.analyze([gpulens.demo_trace()])" in readme.read_text()


def test_launch_latency_counts_each_device_kernel_of_a_multi_device_launch():
    from gpulens.analyzers.launch_latency import latencies

    # nvprof V100×4 NCCL trace: 8 cudaLaunchCooperativeKernelMultiDevice calls start 24 kernels (one per call and
    # device); each is measured, so the table counts what the kernel tables beside it count (it read 8 = 4 + 4)
    tl = gpulens.collect(ROOT / "data" / "nvidia" / "blinkplus_v100x4_nccl_output.nvvp.gz")
    ev = tl.events
    k = ev[ev["kind"].astype(str).isin(["kernel", "comm"])]
    pairs = set(zip(k["correlation_id"].astype("int64"), k["device_id"].astype("int64")))
    assert k["correlation_id"].nunique() == 8 and len(pairs) == 24
    lat = latencies(tl)
    assert len(lat) == len(pairs) == 24
    assert lat.groupby("name").size().to_dict() == k.groupby(k["name"].astype(str)).size().to_dict()


def test_start_up_host_wait_qualifies_host_bound_instead_of_denying_it():
    from gpulens.analyzers._run_shares import setup_text

    # nvprof V100×4: set-up calls fill 8.52 s of the 13.38 s the GPUs waited for the host (63.7 %)
    text = setup_text({"setup_ns": 8_520_000_000, "host_ns": 13_380_000_000})
    assert text.startswith("host-bound by start-up work") and "8.52 s of the 13.38 s" in text
    assert "not a steady-state host bottleneck" not in text  # the verdict word is host-bound: never denied


def test_the_computing_secondary_says_what_the_share_is_and_what_its_kernels_are():
    from gpulens.analyzers._run_shares import computing_words

    # the share is computing time; the class describes most of its kernel time — not "the computing share
    # (launch-bound)", which read as the share itself being a launch bound
    assert computing_words("launch-bound", "34.5 %") == "computing, 34.5 % of the span, its kernel time mostly " \
                                                         "launch-bound"
    assert computing_words("gpu-bound", "11.1 %", "of the GPU steady span") == "computing, 11.1 % of the GPU steady span"


def _metric(name, samples):
    from gpulens.gate.runs import Metric

    return Metric(name, "timing", "ns", list(samples), "lower", [0.1] * len(samples), [1] * len(samples))


def test_an_eager_rms_norm_compiled_into_a_fused_reduction_is_one_replacement():
    from gpulens.gate.replaced import replaced

    # eager: rms_norm_kernel 300/310 ns and the residual add 100/100 ns; compiled: Inductor's RMS norm, a persistent
    # reduction by name (mean, mul, pow, rsqrt), 450/460 ns. Sums per run: 400, 410 against 450, 460 — one metric,
    # not "rms_norm −100 %" beside a new kernel that gates nothing
    norm = "kernel:void rms_norm_kernel<c10::BFloat16>"
    add = "kernel:void at::native::vectorized_elementwise_kernel<4, add>"
    fused = "kernel:triton_per_fused_add_mean_mul_pow_rsqrt_0"
    pairs, members = replaced({norm: _metric(norm, (300, 310)), add: _metric(add, (100, 100))},
                              {fused: _metric(fused, (450, 460))})
    assert list(pairs) == ["kernels:elementwise + reduction + normalisation replaced"]
    b, c = pairs["kernels:elementwise + reduction + normalisation replaced"]
    assert b.samples == [400, 410] and c.samples == [450, 460] and set(members) == {norm, add, fused}


def test_partial_flop_counts_read_as_lower_bounds_in_console_and_markdown(h200):
    from gpulens.reports import console, markdown

    # gemm_wmma: bf16 tensor FLOPs 2 · 2048³ = 17,179,869,184 = 17.18 GFLOP, its FP add/mul/fma counters not collected
    assert 2 * 2048 ** 3 == 17_179_869_184
    text = console.render(h200, width=250)
    hier = text[text.index("Hierarchical roofline"):]
    assert "≥ 17.18 GFLOP" in hier and "FLOP figures of gemm_wmma: a lower bound (" in " ".join(hier.split())
    md = markdown.render(h200)
    sec = md[md.index("### Hierarchical roofline"):]
    assert "\n\n_FLOP figures of gemm\\_wmma: a lower bound (" in sec


def test_the_issue_figure_is_named_as_each_profiler_names_it():
    from gpulens.reports._vendor_words import vendor_label

    # ncu's section metric "Issue Slots Busy"; rocprof-compute reports IPC (peak 5 per cycle on CDNA)
    assert vendor_label("issue_slot_pct", "nvidia") == "issue slots busy"
    assert vendor_label("issue_slot_pct", "amd") == "IPC (% of 5/cycle)"
