"""Session 45 (lead): a measured speed of light that names no bound but has a saturated unit says so first.

Kind: ncu counters with SM throughput alone (no FLOP or pipe counters) cannot tell arithmetic from load/store
work, so the kernel stays undetermined — but a unit at >= 60 % of its peak is the answer a GPU engineer needs on
the first screen (Olajide RTX 5070 gemm_naive: sm__throughput 97.32 %, DRAM 1.3 %: the run's headline only said
"collect more counters").
"""

from __future__ import annotations

import gpulens
from gpulens.devices import get_spec
from tests.test_verdict_trust import _one_kernel


def _verdict(sm_pct: float):
    tl = _one_kernel({"sm__throughput.avg.pct_of_peak_sustained_elapsed": sm_pct,
                      "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 1.3},
                     name="gemm_naive_kernel(const float *, const float *, float *, int, int, int)",
                     dur_ns=9_589_248, grid=4096)
    return gpulens.analyze_timeline(tl, device_spec=get_spec("H100 SXM")).results["verdicts"].table.iloc[0]


def test_a_saturated_sm_without_pipe_counters_is_said_first():
    v = _verdict(97.32)
    assert v["verdict"] == "undetermined"  # arithmetic vs load/store not told apart: no class guessed
    # the saturation, measured, leads the next step; then the counters that would name the pipe
    assert v["next_steps"][0].startswith("The SM runs at 97.3 % of its peak (measured): saturated, not latency-bound")
    assert "collect" in v["next_steps"][0]
    assert "→ no bound named, but the SM is saturated" in v["evidence"]


def test_an_sm_below_the_threshold_keeps_the_plain_step():
    v = _verdict(30.0)  # 30 % and 1.3 %: no unit near its peak — nothing saturated to say
    assert "saturated" not in v["next_steps"][0] and "saturated" not in v["evidence"]


# --- a log line inside an ncu CSV is no launch ---------------------------------------------------------------------

def test_a_quoted_log_line_inside_an_ncu_csv_is_not_a_launch(tmp_path):
    """ncu's own log lines are skipped before the CSV header and when they start a line; quoted by a tool that
    re-wrote the file ('"==PROF== Disconnected from process 859"'), one read as a launch of no name or duration
    (a fifth kernel, "(unnamed)", beside the H200 details file's four)."""
    import csv
    from pathlib import Path

    src = Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_kernels_details.csv"
    lines = src.read_text().splitlines()
    launches = {r["ID"] for r in csv.DictReader(lines)}  # the file's own launch IDs, counted here
    bad = tmp_path / "details_with_log.csv"
    bad.write_text("\n".join([lines[0], '"==PROF== Disconnected from process 859"', *lines[1:],
                              '"==PROF== Report: /tmp/x.ncu-rep"']) + "\n")
    src_rep = gpulens.analyze([bad]).sources[0]
    hs = src_rep.results["hotspots"].table
    assert int(hs["calls"].sum()) == len(launches) == 4 and "(unnamed)" not in set(hs["name"].astype(str))
    warned = [w for w in src_rep.timeline.meta.warnings if "single field" in w]
    assert len(warned) == 1 and warned[0].startswith(f"{bad}: 2 lines of a single field inside the CSV (a log line, "
                                                     "not a launch) skipped (first: '==PROF== Disconnected")


# --- the findings list says its order where it is headed ------------------------------------------------------------

def test_findings_headings_say_outside_span_time_comes_last():
    """Findings about time outside the GPU span rank after the workload's (analyzers._tree.rank_key): lashi's 75.94 ms
    of start-up listed after 13.86 µs of GPU idle under a heading that said only "largest time at stake first"
    (a new user read it as out of order). Console and HTML headings say the same order."""
    import html as _html

    from gpulens.reports import console, html

    rep = gpulens.analyze([gpulens.demo_trace()])
    said = "largest time at stake first; time outside the GPU span (not judged by the verdict)"
    assert said in " ".join(console.render(rep, width=400).split())
    assert said in _html.unescape(html.render(rep))
