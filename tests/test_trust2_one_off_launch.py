"""A launch-bound kernel whose launch idle is one multi-millisecond launch call is not told only to fuse.

Kind: "launch-bound: fuse it with its neighbours so one launch does more work" presumes many launches each paying a
few µs of launch cost. On the rocprofv3 llama.cpp decode trace, k_get_rows_float's 3.09 ms at stake (beside 209 µs
of its own time) is almost all one gap: its first dispatch waited on a hipLaunchKernel call of 3.05 ms (first use:
code loading). Fusing it, or capturing graphs, leaves that call; the first step now names the one-off and warm-up.
"""

from __future__ import annotations

import csv
from pathlib import Path

from gpulens.analyzers.verdict_rules import Evidence, ONE_OFF_LAUNCH_NS, one_off_launch, steps_for
from gpulens.report import analyze

RUN = Path(__file__).parent / "data" / "rocprof" / "v3_csv_unified_viewer_decode"


def _hand() -> tuple[int, int]:
    """From the CSVs: the gap before k_get_rows_float's first dispatch (its start − the previous dispatch's end on
    the same queue) and its hipLaunchKernel call's duration (same Correlation_Id) [ns]."""
    with open(RUN / "decode_kernel_trace.csv", newline="") as fh:
        k = sorted(csv.DictReader(fh), key=lambda r: int(r["Start_Timestamp"]))
    i = next(i for i, r in enumerate(k) if r["Kernel_Name"].startswith("void k_get_rows_float"))
    gap = int(k[i]["Start_Timestamp"]) - max(int(r["End_Timestamp"]) for r in k[:i])
    with open(RUN / "decode_hip_api_trace.csv", newline="") as fh:
        call = next(r for r in csv.DictReader(fh) if r["Correlation_Id"] == k[i]["Correlation_Id"])
    return gap, int(call["End_Timestamp"]) - int(call["Start_Timestamp"])


def test_one_slow_launch_call_is_named_before_fusion():
    gap, call = _hand()
    assert gap == 3_053_750 and call == 3_046_606 and gap >= ONE_OFF_LAUNCH_NS
    src = analyze([str(RUN)]).sources[0]
    v = src.results["verdicts"].table.set_index("name")
    name = next(n for n in v.index if n.startswith("void k_get_rows_float"))
    row = v.loc[name]
    assert row["verdict"] == "launch-bound"
    first = row["next_steps"][0]
    assert first.startswith("3.05 ms of its 3.09 ms launch idle is the GPU waiting on one slow launch call")
    assert "warm-up" in first
    f = next(f for f in src.findings() if f.kernel == name and f.category == "launch-bound")
    assert f.action == first
    # the other launch-bound kernels (launch idle spread over many µs-long gaps) keep "fuse" first; the 23 kernels
    # replayed by the run's one hipGraphLaunch have no launch call of their own, so no launch figures (s33)
    others = [r["next_steps"][0] for n, r in v.iterrows() if r["verdict"] == "launch-bound" and n != name]
    assert all(s.startswith("Fuse it with its neighbours") for s in others)
    assert not any("replayed by a graph launch" in r["evidence"] for _, r in v.iterrows()
                   if r["verdict"] == "launch-bound")


def test_one_off_rule_bounds():
    e = Evidence("k", "kernel", 12, 209_000, short_launch_frac=1.0, launch_idle_ns=3_093_629,
                 launch_idle_max_ns=3_053_750)
    assert one_off_launch(e) and "warm-up" in steps_for("launch-bound", e)[0]
    e.launch_idle_max_ns = 999_999  # under a millisecond: launch overhead of one call, not a one-off
    assert not one_off_launch(e) and steps_for("launch-bound", e)[0].startswith("Fuse")
    e.launch_idle_max_ns, e.launch_idle_ns = 1_500_000, 3_100_000  # under half the idle: the many gaps lead
    assert not one_off_launch(e)
