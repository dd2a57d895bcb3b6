"""Conclusions that contradicted the numbers beside them (newcomer walk of 2026-12-01, second session): one test per
class of fault, each expected value derived from the trace file itself or by hand in the test.
"""

from __future__ import annotations

import gzip
import io
import json
import re

import numpy as np
from rich.console import Console

import gpulens
from tests.conftest import shared_trace


def _merged(iv: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def _render(renderable, width: int) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, legacy_windows=False).print(renderable)
    return buf.getvalue()


# ---- class 4: idle that no host cause explains is shown, with its time --------------------------------------------

def test_alexnet_idle_split_shows_the_one_off_gap_with_its_time():
    """hta_alexnet_a100: the GPU events (cat kernel/gpu_memcpy/gpu_memset, µs in the file) merge into busy
    segments whose largest gap is 10.033725 s (computed here from the JSON), during which the host sits in a
    6.008692 s ``cudaFree`` (cuda_runtime event). The idle finding and the console must show that gap and its time,
    not only the 2.82 s host-bound share."""
    path = shared_trace("kineto/hta_alexnet_a100.json.gz")
    ev = json.load(gzip.open(path))["traceEvents"]
    gpu = [(round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in ev
           if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    seg = _merged(gpu)
    gaps = [(b[0] - a[1], a[1], b[0]) for a, b in zip(seg, seg[1:])]
    big, g0, g1 = max(gaps)
    idle = sum(g[0] for g in gaps)
    assert big == 10_033_725_000
    rt = [(min(round((e["ts"] + e["dur"]) * 1000), g1) - max(round(e["ts"] * 1000), g0), e["name"]) for e in ev
          if e.get("cat") == "cuda_runtime"]
    longest_call = max(rt)
    assert longest_call[1] == "cudaFree"

    rep = gpulens.analyze([path])
    s = rep.sources[0]
    root = next(f for f in s.findings() if f.key == "idle")
    assert root.time_at_stake_ns == idle
    assert "10.03 s in one one-off gap" in root.title
    assert "2.82 s waiting for the host" in root.title
    assert "cudaFree 6.01 s" in root.action                     # 6,008,692 µs of cudaFree inside the gap
    bn = s.results["bottlenecks"].table.iloc[0]
    causes = sum(int(bn[f"idle_{c}_ns"]) for c in ("host", "launch", "sync", "queued", "unattributed", "boundary"))
    assert causes == idle                                       # every idle nanosecond has a cause column
    from gpulens.reports.console import source_renderable

    text = _render(source_renderable(s), 100)
    table = text[text.index("Where the idle time went"):]
    assert "one-off" in table and "10.03 s" in table.split("\n\n")[0]


def test_gpu_only_idle_without_launches_is_shown_as_no_cause():
    """A GPU-only trace (no launch calls): two kernels 100 µs apart → the 90 µs gap has no cause in the trace; the
    idle finding says so with its time (hand calculation: 10 µs kernel at 0, 10 µs kernel at 100 µs)."""
    import tempfile
    from pathlib import Path

    trace = {"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k_a", "pid": 0, "tid": 7, "ts": 1000.0, "dur": 10.0,
         "args": {"device": 0, "stream": 7}},
        {"ph": "X", "cat": "kernel", "name": "k_b", "pid": 0, "tid": 7, "ts": 1100.0, "dur": 10.0,
         "args": {"device": 0, "stream": 7}}]}
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "gpu_only.json"
        p.write_text(json.dumps(trace))
        s = gpulens.analyze([p]).sources[0]
    root = next(f for f in s.findings() if f.key == "idle")
    assert root.time_at_stake_ns == 90_000
    assert "90.00 µs with no cause the trace shows" in root.title


# ---- class 7: figures never wrap -------------------------------------------------------------------------------------

FIGURE_SPLIT = re.compile(r"│\s*(?:ns|µs|ms|s|%|B|kB|MB|GB)\s*│|│\s*\d[^│]*…\s*│")


def test_fit_table_keeps_every_figure_on_one_line_at_80_columns():
    from gpulens.reports._fit import Col, FitTable

    cols = [Col("kernel", "left", figure=False)] + [Col(f"figure {i}", optional=i > 2) for i in range(10)]
    rows = [["a_rather_long_kernel_name_that_must_wrap_somewhere"] + ["625.56 ms"] * 10 for _ in range(3)]
    text = _render(FitTable("t", cols, rows), 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    shown = text.count("625.56 ms")
    assert shown >= 3 * 3 and shown % 3 == 0                    # whole figures only, the same columns in every row
    assert not FIGURE_SPLIT.search(text)
    assert "left out at this terminal width" in text
    assert all(line.rstrip().endswith(("│", "┃", "┓", "┩", "┘")) for line in text.splitlines()
               if line.startswith(("│", "┃", "┏", "┡", "└")))


def test_console_report_never_splits_a_figure_at_80_columns():
    path = shared_trace("kineto/hta_alexnet_a100.json.gz")
    from gpulens.reports.console import source_renderable

    s = gpulens.analyze([path]).sources[0]
    text = _render(source_renderable(s), 80)
    assert not FIGURE_SPLIT.search(text), FIGURE_SPLIT.search(text)
    # the idle figures of the bottleneck table are whole (they wrapped as "169.00\n µs" before)
    assert re.search(r"│\s*12\.85 s\s*│", text)
    assert np.all([len(line) <= 80 for line in text.splitlines()])
    # no table is cut at the right edge (rich crops lines wider than the terminal)
    assert all(line.rstrip().endswith(("│", "┃", "┓", "┩", "┛", "┘", "┐", "┤")) for line in text.splitlines()
               if line.startswith(("│", "┃", "┏", "┡", "└")))


# ---- class 6: no compute/memory verdict without the counters that support it ---------------------------------------

NVIDIA = __import__("pathlib").Path(__file__).parent / "data" / "nvidia"


def test_bound_needs_the_counters_that_support_it():
    from gpulens.analyzers.speed_of_light import bound_of

    assert bound_of(70.0, None) == "unknown"                   # the memory side may be the busier one
    assert bound_of(None, 93.0) == "memory"                    # ≥ 80 %: saturated whatever compute does
    assert bound_of(12.0, 94.0) == "memory"
    assert bound_of(97.3, 1.3, compute_is_sm=True) == "unknown"  # SM throughput: any SM unit, not FLOPs
    assert bound_of(90.0, 20.0, compute_is_sm=False) == "compute"
    assert bound_of(30.0, 20.0) == "latency"


def test_ncu_sm_throughput_alone_is_not_compute_bound():
    """olajide gemm_naive (ncu --metrics, 12 metrics): sm__throughput 97.32 %, DRAM bytes, no FLOP
    (sm__sass_thread_inst_executed_op_*) and no pipe (sm__inst_executed_pipe_*) metric — read from the file here.
    A compute verdict ("use tensor cores at a lower precision") is not supported; the next step names the missing
    counters."""
    path = NVIDIA / "olajide_rtx5070_metrics_gemm_naive.csv"
    metrics = {ln.split('","')[12] for ln in path.read_text(encoding="utf-8-sig").splitlines()
               if ln.startswith('"0"')}
    assert "sm__throughput.avg.pct_of_peak_sustained_elapsed" in metrics
    assert not [m for m in metrics if "inst_executed_op" in m or "inst_executed_pipe" in m]
    s = gpulens.analyze([path]).sources[0]
    v = s.results["verdicts"].table.iloc[0]
    assert v["verdict"] not in ("compute-bound", "memory-bound")
    assert "FLOP or pipe counters" in v["next_steps"][0]
    assert s.results["verdicts"].summary["run_verdict"] != "compute-bound"


def test_ncu_tensor_pipe_without_memory_side_gives_no_bound():
    """meinie B200 raw page: the only throughput figure is the tensor pipe (68.4 %, below the 80 % at which a unit
    is saturated whatever the other side does); no memory-throughput column (SOURCES.md: "No warp-stall and no
    memory-throughput columns", checked here on the header)."""
    path = shared_trace("ncu/meinie_b200_raw_torch_sdpa_flash__gqa_bf16_b32_ctx8k_p64.ncu.csv")
    header = next(ln for ln in path.read_text().splitlines() if ln.startswith('"ID"'))
    assert "dram__throughput" not in header and "gpu__compute_memory_throughput" not in header
    s = gpulens.analyze([path]).sources[0]
    v = s.results["verdicts"].table.iloc[0]
    assert v["verdict"] == "undetermined"
    assert "memory throughput counter" in v["next_steps"][0]
    assert "68 % of peak" in v["evidence"]


# ---- class 1: counter-only / timestamp-less inputs get no timing verdicts -------------------------------------------

OMNI = __import__("pathlib").Path(__file__).parent / "data" / "omniperf"


def test_rocprof_compute_without_timestamps_gets_no_timing_verdict():
    """vcopy_MI300X_A1 (rocprof-compute): timestamps.csv writes Start/End as 8.1097E+14 — End − Start is 0 for
    every dispatch (read here). No busy %, no idle, no launch-bound, no 'unlinked launch' warning (the profiler
    replayed the kernels itself); kernel times are unknown (never 0 ns); the verdict comes from counters only."""
    import csv

    folder = OMNI / "vcopy_MI300X_A1"
    rows = list(csv.DictReader(open(folder / "timestamps.csv")))
    assert rows and all(float(r["End_Timestamp"]) - float(r["Start_Timestamp"]) == 0 for r in rows)
    s = gpulens.analyze([folder]).sources[0]
    assert s.summary["gpu_busy_pct"] is None
    assert s.results["bottlenecks"].skipped and s.results["launch_latency"].skipped
    titles = [f.title for f in s.findings()]
    assert not [t for t in titles if "not linked to a launch" in t or "idle" in t.lower()]
    hs = s.results["hotspots"]
    assert hs.summary["kernel_time_ns"] is None and hs.table["effective_ns"].isna().all()
    assert int(hs.table["calls"].sum()) == len(rows)
    v = s.results["verdicts"]
    assert v.summary["basis"].startswith("counters only")
    assert v.summary["run_verdict"] not in ("host-bound", "launch-bound", "sync-bound", "idle-unattributed")
    assert v.table["time_ns"].isna().all() and v.table["time_at_stake_ns"].isna().all()
    assert s.results["kernel_distributions"].skipped and s.results["kernel_outliers"].skipped
    from gpulens.reports.console import source_renderable

    text = _render(source_renderable(s), 120)
    assert not re.search(r"\b0 ns\b|\bnan\b", text)
    assert "durations not recorded" in text


def test_full_theoretical_occupancy_has_no_limiter_advice():
    """A kernel at 100 % theoretical occupancy with 26 % achieved: the block size limits nothing, so "use 128–256
    threads per block" (for a 256-thread block) must not be the advice."""
    from gpulens.analyzers.verdict_rules import Evidence, decide

    v = decide(Evidence("vecCopy", "kernel", 3, 0, achieved_occupancy_pct=26.3, theoretical_occupancy_pct=100.0,
                        limiter="warps", stall_class="memory_latency", stall_pct=75.8))
    assert not any("threads per block" in s for s in v.next_steps)
    assert any("theoretical 100 %" in s for s in v.next_steps)
