"""Figures in reports that were wrong, unlabelled or impossible (session 44's known list): each test builds the
input, and its expected values are hand calculations written beside it.

1. a device spec file's figure no GPU could have (a unit slip) is refused in one line;
2. the gate's PASS band and the baseline noise it is derived from read as figures that add up;
3. lower-bound FLOP figures carry "≥" in every report;
4. a multi-GPU breakdown's busy % over a GPU with work of unknown duration says "at least";
5. a kernel above its roof: the reason is shown where "unknown" is shown;
6. `gpulens diff` of a graph-level trace against a kernel-level one says they are not like for like;
7. a kernel's time summed over several GPUs says so where it is shown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gpulens
from gpulens.errors import TraceFormatError


# --- 1. device spec figures no GPU could have -------------------------------------------------------------------


def _spec_file(tmp_path: Path, figures: dict) -> Path:
    p = tmp_path / "spec.json"
    p.write_text(json.dumps({"base": "H100 SXM", "figures": figures}))
    return p


@pytest.mark.parametrize("figures, words", [
    # an H100's 3.35 TB/s written in MB/s: 3,350,000 GB/s = 3,350,000 / 8,000 (B200, the largest built-in) = 419 ×
    ({"memory_bandwidth": 3_350_000}, "figure 'memory_bandwidth' 3,350,000 GB/s is 419 × the largest built-in GPU's "
                                      "(8,000 GB/s, NVIDIA B200)"),
    # written in TB/s: 3.35 GB/s is 192 / 3.35 = 57.3 → 1/57 of the smallest (GTX 1060 6GB since session 47: 192-bit
    # GDDR5 at 8 Gbps = 192 GB/s)
    ({"memory_bandwidth": 3.35}, "figure 'memory_bandwidth' 3.35 GB/s is 1/57 of the smallest built-in GPU's "
                                 "(192 GB/s, NVIDIA GeForce GTX 1060 6GB)"),
    # H100 bf16 989 TFLOPS written in GFLOPS: 989,000 / 2,516.6 (MI355X) = 393 ×
    ({"matrix.bf16": 989_000}, "figure 'matrix.bf16' 989,000 TFLOPS is 393 × the largest built-in GPU's "
                               "(2,516.6 TFLOPS, AMD Instinct MI355X)"),
    # a clock in GHz: 1.98 MHz is 706 / 1.98 = 356.6 → 1/357 of the smallest (Tesla K20m's 706 MHz since session 47)
    ({"clock_mhz": 1.98}, "figure 'clock_mhz' 1.98 MHz is 1/357 of the smallest built-in GPU's (706 MHz"),
])
def test_spec_figure_no_gpu_has_is_one_line_error(tmp_path, figures, words):
    from gpulens.devices.spec import load_spec

    p = _spec_file(tmp_path, figures)
    with pytest.raises(TraceFormatError) as e:
        load_spec(p)
    msg = str(e.value)
    assert words in msg and str(p) in msg and "\n" not in msg and "a unit slip?" in msg


def test_spec_figures_within_the_known_range_are_kept(tmp_path):
    from gpulens.devices.spec import load_spec

    # 2,000 GB/s (H100 PCIe) and 50 × the largest bandwidth (400,000 GB/s, the limit) are kept
    assert load_spec(_spec_file(tmp_path, {"memory_bandwidth": 2000})).memory_bandwidth == 2000e9
    assert load_spec(_spec_file(tmp_path, {"memory_bandwidth": 400_000})).memory_bandwidth == 400_000e9


# --- 2. the gate's PASS band and the noise it comes from add up ------------------------------------------------


def _gate_row(base: list[float], cand: list[float]):
    from gpulens.gate.compare import compare_metric
    from gpulens.gate.config import GateConfig
    from gpulens.gate.runs import Metric

    return compare_metric("span_ns", Metric("span_ns", "timing", "ns", base), Metric("span_ns", "timing", "ns", cand),
                          GateConfig())


def test_gate_band_and_noise_shown_add_up():
    from gpulens.reports.gate_fmt import limit_cells

    # baseline 97, 100, 103: median 100, MAD 3 → noise 1.4826 × 3 / 100 = 4.4478 %, band 2 × it = 8.8956 %. With one
    # decimal they read "8.9 % band — 2 × noise 4.4 %" (2 × 4.4 = 8.8); with two, 2 × 4.45 = 8.90 = the band shown
    r = _gate_row([97.0, 100.0, 103.0], [104.0, 104.0, 104.0])
    assert r.base_spread == pytest.approx(0.044478) and r.band == pytest.approx(0.088956)
    assert "the 8.90 % PASS band — 2 × baseline noise 4.45 %, wider than the 5.0 % threshold" in r.reason
    assert limit_cells(r) == ["±5.0 %", "±4.45 %", "±8.90 %"]
    # baseline 95, 100, 105: noise 7.413 %, band 14.826 %: 2 × 7.4 = 14.8 = the band shown, one decimal is enough
    r = _gate_row([95.0, 100.0, 105.0], [104.0, 104.0, 104.0])
    assert "the 14.8 % PASS band — 2 × baseline noise 7.4 %" in r.reason and limit_cells(r)[1:] == ["±7.4 %", "±14.8 %"]


@pytest.mark.parametrize("mad", [0.5 + 0.173 * i for i in range(40)])
def test_gate_band_shown_is_k_times_the_noise_shown(mad):
    from gpulens.reports.gate_fmt import limit_cells

    r = _gate_row([100.0 - mad, 100.0, 100.0 + mad], [100.0, 100.0, 100.0])
    noise, band = (float(c.strip("±% ")) for c in limit_cells(r)[1:])
    if r.band > r.threshold:
        digits = len(limit_cells(r)[2].split(".")[1].split()[0])
        assert round(2 * noise, digits) == band


# --- 3. lower-bound FLOP figures carry "≥" in every report --------------------------------------------------------

H200_CSV = Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_kernels_details.csv"


def test_lower_bound_flops_are_marked_in_markdown_and_html():
    import html as _html
    import re

    from gpulens.reports import html, markdown

    # the CSV collects no FP-instruction counter (sm__sass_thread_inst_executed_op_*), only the bf16 tensor path:
    # gemm_wmma's 17,179,869,184 FLOP are a lower bound. The DRAM point: 17.18 GFLOP / 19.12 MB ≈ 899 FLOP/B and
    # 17.18 GFLOP / 625.54 µs = 27.46 TFLOP/s — each "≥"; the roof it is judged against (795 TFLOP/s) is no bound
    rep = gpulens.analyze([H200_CSV])
    md = markdown.render(rep)
    sec = md[md.index("### Hierarchical roofline"):]
    assert "| gemm\\_wmma | dram | 1 | 625.54 µs | ≥ 17.18 GFLOP | 19.12 MB | ≥ 899 FLOP/B | ≥ 27.46 TFLOP/s |" in sec
    page = _html.unescape(re.sub(r"<[^>]+>", " ", html.render(rep)))
    assert page.count("≥ 17.18 GFLOP") >= 3 and "17.18 GFLOP  19.12" not in page.replace("≥ 17.18", "")
    assert "≥ 27.46 TFLOP/s" in page and "≥ 795.00 TFLOP/s" not in page and "≥ 989.40 TFLOP/s" not in page
    assert "≥ 166 FLOP/B" not in page  # the ridge point is the roofs' ratio, not a measured figure


# --- 4. a multi-GPU breakdown's busy % over work of unknown duration says "at least" ------------------------------


def _untimed_two_gpus(tmp_path: Path) -> Path:
    """Two GPUs of one rank, µs from the first kernel: kA 0+10, kB 20+30, kC 60+? (no duration on GPU 0; 30 on GPU
    1), kA 100+10. GPU 0: span 110, timed busy 10 + 30 + 10 = 50 → 45.45 %; GPU 1: busy 80 → 72.73 %. The untimed
    kC is a refused row that records no device, so either GPU may hold it: both busy shares are lower bounds, both
    idles (60 and 30 µs) upper bounds."""
    evs, c = [], 0
    for dev in (0, 1):
        for n, t, du in (("kA", 0, 10), ("kB", 20, 30), ("kC", 60, None if dev == 0 else 30), ("kA", 100, 10)):
            c += 1
            k = {"ph": "X", "cat": "kernel", "name": n, "pid": dev, "tid": "stream 7", "ts": 1000 + t,
                 "args": {"device": dev, "stream": 7, "correlation": c}}
            if du is not None:
                k["dur"] = du
            evs += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70 + dev,
                     "ts": 995 + t, "dur": 4, "args": {"correlation": c}}, k]
    p = tmp_path / "untimed2.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3"}, {"id": 1, "name": "NVIDIA H100 80GB HBM3"}]}))
    return p


def test_multi_gpu_breakdown_busy_is_at_least_in_every_report(tmp_path):
    import html as _html
    import re

    from gpulens.reports import console, html, markdown

    rep = gpulens.analyze([_untimed_two_gpus(tmp_path)])
    bd = rep.sources[0].results["breakdown"]
    assert bd.summary["busy_bound"] == "at least"
    assert list(bd.table["busy_pct"].round(2)) == [round(100 * 50 / 110, 2), round(100 * 80 / 110, 2)]
    md = markdown.render(rep)
    assert "| 0 | 0 | 110.00 µs | 50.00 µs | 0 ns | 0 ns | 0 ns | ≤ 60.00 µs | 60.00 µs | at least 45.5 % |" in md
    assert "≤ 30.00 µs | 30.00 µs | at least 72.7 % |" in md
    page = _html.unescape(re.sub(r"<[^>]+>", " ", html.render(rep)))
    assert "at least 45.5 %" in page and "at least 72.7 %" in page and "≤ 60.00 µs" in page
    text = console.render(rep, width=200)
    assert "at least 45.5" in text and "at least 72.7" in text


# --- 5. a kernel above its roof: the reason where "unknown" is shown ------------------------------------------


def test_above_roof_reason_is_shown_beside_unknown_in_every_report(tmp_path):
    import html as _html
    import re

    from gpulens.reports import console, html, markdown
    from tests.test_roof_limits import _trace

    # 5 launches of an fp32 add of two 1024×1024 tensors in 1 µs each: 3 × 4 MiB = 12,582,912 B per call, 12.58 TB/s
    # — 12,582,912 / 1e-6 / 3.35e12 = 375.6 % of the H100 SXM's 3.35 TB/s: the op-shape bytes exceed the roof
    rep = gpulens.analyze([_trace(tmp_path, 1.0)])
    pct = round(12_582_912 / 1e-6 / 3.35e12 * 100, 1)  # 375.6
    # s45: every figure of the row resting on the impossible value is marked (test_trust_s45_verdict)
    why = (f"* the marked figures of this row are unknown or rest on a figure above its roof: the op shapes give {pct} "
           "% of the roof: this kernel moved less data than")
    text = console.render(rep, width=200)
    assert "│ unknown * │" in text and why in " ".join(text.split())
    md = markdown.render(rep)
    assert "| fp32 | unknown \\* | unknown \\* | unknown \\* |" in md and "_\\" + why in md
    page = _html.unescape(re.sub(r"<[^>]+>", " ", html.render(rep)))
    assert " unknown * " in page and why in page


def test_above_a_spec_files_roof_names_the_file(tmp_path):
    # the H200 ncu CSV's gemm_wmma: 17.18 GFLOP (tensor path) over 19.12 MB of DRAM bytes = 899 FLOP/B in
    # 625.54 µs = 27.46 TFLOP/s; a spec file's 20 GB/s memory roof caps it at 899 × 20 GB/s = 17.98 TFLOP/s: 153 %
    # of the roof. The file's figures are what to check, and the note names it (it said "pass --device-spec" to a
    # user who had)
    from gpulens.reports import console

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"base": "H200", "figures": {"memory_bandwidth": 20}}))
    rep = gpulens.analyze([H200_CSV], device_spec=str(spec))
    rf = rep.sources[0].results["roofline"].table
    note = rf.set_index(rf["name"].astype(str).str.split("(").str[0]).loc["gemm_wmma", "roof_note"]
    assert f"check the figures of the device spec file {spec} and their units" in note
    assert "unknown *" in console.render(rep, width=220)


# --- 6. diff of a graph-level trace against a kernel-level one ---------------------------------------------------


def _kernel_level(tmp_path: Path) -> Path:
    """One stream: embedding_lookup_kernel 5 µs, gemm_kernel 100 + 100 µs, softmax_kernel 50 µs,
    sampler_topk_kernel 5 µs, launched one by one (a kernel-level trace)."""
    ks = [("embedding_lookup_kernel", 0, 5), ("gemm_kernel", 10, 100), ("softmax_kernel", 120, 50),
          ("gemm_kernel", 180, 100), ("sampler_topk_kernel", 300, 5)]
    evs = []
    for i, (n, t, d) in enumerate(ks):
        evs += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": 995 + t,
                 "dur": 4, "args": {"correlation": i + 1}},
                {"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": "stream 7", "ts": 1000 + t, "dur": d,
                 "args": {"device": 0, "stream": 7, "correlation": i + 1}}]
    p = tmp_path / "kernels.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs,
                             "deviceProperties": [{"id": 0, "name": "NVIDIA L40S"}]}))
    return p


def test_diff_of_graph_level_against_kernel_level_says_not_like_for_like(tmp_path):
    from gpulens.diff import diff
    from gpulens.reports import diff as diff_report
    from tests.conftest import SHARED

    t07 = SHARED.parent / "cases" / "T07.nsys.sqlite"  # nsys --cuda-graph-trace=graph: 2 replays of CUDA graph 5
    if not t07.exists():
        pytest.skip("shared case T07 not present")
    words = ("the base traced CUDA graphs at graph level (CUDA graph 5: each replay one record, its kernels not "
             "counted one by one) and the candidate did not: the runs are not like for like")
    r = diff(t07, _kernel_level(tmp_path))
    assert r.summary["graph_capture_differs"] == "base" and any(w.startswith(words) for w in r.warnings)
    assert words in diff_report.render_markdown(r) and words in diff_report.render_console(r, width=400)
    assert json.loads(diff_report.render_json(r))["summary"]["graph_capture_differs"] == "base"
    back = diff(_kernel_level(tmp_path), t07)
    assert back.summary["graph_capture_differs"] == "candidate"
    assert any(w.startswith("the candidate traced CUDA graphs at graph level") for w in back.warnings)
    # both sides graph-level, or neither: like for like, no warning
    assert diff(t07, t07).summary["graph_capture_differs"] is None
    same = diff(_kernel_level(tmp_path), _kernel_level(tmp_path))
    assert same.summary["graph_capture_differs"] is None and not any("graph level" in w for w in same.warnings)


# --- 7. a kernel's time summed over several GPUs says so where it is shown ----------------------------------------

V100X4 = Path(__file__).parent / "data" / "nvidia" / "blinkplus_v100x4_nccl_output.nvvp.gz"


def test_kernel_time_summed_over_gpus_is_labelled_in_every_report():
    import html as _html
    import re
    from gpulens.reports import console, html, markdown

    rep = gpulens.analyze([V100X4])
    hs = rep.sources[0].results["hotspots"]
    row = hs.table.set_index(hs.table["name"].astype(str).str.split("(").str[0]).loc[
        "ncclAllReduceTreeLLKernel_sum_i32"]
    # the file's CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL rows (sqlite3: count, Σ end − start by deviceId): devices 0-3
    # ran 4, 4, 2, 2 launches for 116,655,229 + 117,178,192 + 117,195,247 + 117,216,421 ns — the 468.25 ms total
    # is the 4 GPUs' sum, ≈ 4 × 117 ms, not one GPU's time
    assert row["gpus"] == 4 and row["calls"] == 12 and hs.summary["kernel_gpus"] == 4
    assert row["total_ns"] == 116_655_229 + 117_178_192 + 117_195_247 + 117_216_421
    text = console.render(rep, width=220)
    assert "total (Σ" in text and "at stake (Σ" in text and text.count("over GPUs)") >= 3  # headers wrap
    assert "ncclAllReduceTreeLLKernel_sum_i32: communication-bound (Σ over 4 GPUs)" in text
    md = markdown.render(rep)
    assert "| kernel | kind | calls | GPUs | time (Σ over GPUs) |" in md
    assert "| # | kernel | time (Σ over GPUs) | verdict | at stake (Σ over GPUs) |" in md
    assert "**468.25 ms** ncclAllReduceTreeLLKernel\\_sum\\_i32: communication-bound (Σ over 4 GPUs)" in md
    page = _html.unescape(re.sub(r"<[^>]+>", " ", html.render(rep)))
    # the first screen's banner (800 px): "Σ time", the header tooltip in full; the Hot kernels page in full
    assert "Σ time · share of kernel time" in page and "Σ time at stake" in page
    assert "summed over the GPUs the kernel ran on" in html.render(rep)
    assert " time (Σ over GPUs) " in page


def test_one_gpu_kernel_times_carry_no_sum_label(tmp_path):
    from gpulens.reports import console, markdown
    from tests.test_roof_limits import _trace

    rep = gpulens.analyze([_trace(tmp_path, 10.0)])  # one H100: add_kernel ×5 on device 0
    assert rep.sources[0].results["hotspots"].summary["kernel_gpus"] == 1
    assert "Σ over GPUs" not in console.render(rep, width=220) + markdown.render(rep)
    assert "Σ over" not in " ".join(f.title for f in rep.sources[0].findings() if f.kernel)


# --- 8. relative clocks: a placeholder start 0 / duration 0 is no measurement -------------------------------------


def _relative(tmp_path: Path, first: tuple[str, int, int]) -> Path:
    """A Kineto trace on a clock from 0 (baseTimeNanoseconds set, ``ts`` in µs from it): kA 5+10, kB 20+15, kA
    40+10 and ``first``."""
    evs = []
    for i, (n, t, d) in enumerate([("kA", 5, 10), ("kB", 20, 15), first, ("kA", 40, 10)]):
        evs += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70,
                 "ts": max(t - 3, 0), "dur": 2, "args": {"correlation": i + 1}},
                {"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": "stream 7", "ts": t, "dur": d,
                 "args": {"device": 0, "stream": 7, "correlation": i + 1}}]
    p = tmp_path / f"rel_{first[0]}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "baseTimeNanoseconds": 1_700_000_000_000_000_000,
                             "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": evs}))
    return p


def test_relative_clock_zero_start_zero_duration_is_a_placeholder(tmp_path):
    from gpulens.reports import console

    # kC at ts 0 with dur 0: no start, no length. Counted, it made the span 0 → 50 µs and busy 35 / 50 = 70.0 %
    # (its 0 → 50 µs widens the others' 5 → 50 µs only 10/9 ×, under the 11 × placeholder rule). Left out as never
    # recorded: span 5 → 50 = 45 µs, busy (10 + 15 + 10) / 45 = 77.8 %, 3 launches of 2 kernels
    rep = gpulens.analyze([_relative(tmp_path, ("kC", 0, 0))])
    sm = rep.sources[0].summary
    assert sm["span_ns"] == 45_000 and sm["kernel_count"] == 3 and sm["gpu_busy_pct"] == pytest.approx(3500 / 45)
    assert "kC" not in set(rep.sources[0].results["hotspots"].table["name"].astype(str))
    text = console.render(rep, width=200)
    # session 45: kC ran, when is unknown (a placeholder start of 0 lies outside the span): the 10 µs of idle may
    # hold it, so the busy share is unknown and the timed work's 77.8 % is said as that, never as the busy share
    assert "1 invalid event excluded: zero timestamp (never recorded) ×1" in text
    assert "busy unknown (1 GPU event recorded without a usable start or end; the timed work alone: 77.8 % of its " \
           "span)" in text


def test_relative_clock_real_first_kernel_at_zero_is_kept(tmp_path):
    # a rebased clock's first kernel at ts 0 with a duration is the first real instant: span 0 → 50 µs, busy
    # (3 + 10 + 15 + 10) / 50 = 76.0 %, 4 launches
    sm = gpulens.analyze([_relative(tmp_path, ("kC", 0, 3))]).sources[0].summary
    assert sm["span_ns"] == 50_000 and sm["kernel_count"] == 4 and sm["gpu_busy_pct"] == pytest.approx(76.0)
