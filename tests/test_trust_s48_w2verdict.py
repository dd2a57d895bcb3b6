"""Session 48, wave 2 (w2verdict): a new user's check of the verdict and its findings. One test per kind; expected
values are derived here (hand calculation, the trace's own figures).

1. a one-off idle gap too small to move the busy share (3.28 µs of a 10.74 ms MI300X decode span) was left out of
   the verdict and offered as a --window cut;
2. an L1-led kernel's stake read "at stake at least, from L1 at 97.2 % of its peak" (garbled), and from an
   .ncu-rep its distance to the roofline on a lower-bound FLOP count read as a measured figure;
3. the verdict's "3.56 ms at stake" (the host wait alone) under/over the idle finding's 3.60 ms (every idle cause)
   read as a contradiction;
4. a finding on an assumed GPU named the assumption twice ("on an assumed A100 — if the GPU is the assumed A100");
5. the exposed-communication finding's 640.51 ms and the NCCL kernel's 640.51 ms at stake read as two times to add.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from gpulens.report import analyze

DATA = Path(__file__).parent / "data"
DEMO = Path(__file__).parents[1] / "src" / "gpulens" / "data" / "demo_h100_bert-small.pt.trace.json.gz"


def _fmt(ns):
    from gpulens.units import fmt_ns

    return fmt_ns(ns)


def test_a_gap_under_one_percent_of_the_span_is_never_left_out():
    from gpulens.analyzers._gap_classes import boundary_mask

    # four 100 ns gaps and one of 5 µs between kernels: 50× the median, 5000/5400 = 93 % of the idle — a one-off by
    # size; it is 0.5 % of a 1 ms span (leaving it out moves a busy share by ≤ 5000/995000 = 0.5 points), 1.25 % of
    # a 400 µs one
    dur = np.array([100, 100, 5_000, 100, 100], dtype="int64")
    gs = np.array([1_000, 2_000, 3_000, 9_000, 10_000], dtype="int64")
    ge, blocked = gs + dur, np.zeros(5, dtype="int64")
    small = boundary_mask(dur, gs, ge, blocked, 0, 10**9, span=(0, 1_000_000))
    large = boundary_mask(dur, gs, ge, blocked, 0, 10**9, span=(0, 400_000))
    assert not small.any()
    assert large.tolist() == [False, False, True, False, False]


def test_the_mi300x_decode_run_has_no_one_off_gap_left_out():
    rep = analyze([str(DATA / "kineto" / "tracelens_mi300x_vllm_decode_graph_exec.json.gz")])
    s = rep.sources[0]
    bn = s.results["bottlenecks"].summary
    assert not bn.get("boundary_gaps") and not bn.get("steady_span_ns")
    from gpulens.reports._answer import answer

    a = answer(s)
    span = int(s.results["bottlenecks"].table["span_ns"].sum())
    busy = int(s.results["bottlenecks"].table["busy_ns"].sum())
    assert f"busy {100 * busy / span:.1f} % of its {_fmt(span)} span" in a.sentence
    assert "one-off" not in a.sentence and "--window" not in " ".join(f.action for f in a.findings)


def test_the_l1_stake_clause_reads_as_a_sentence():
    from gpulens.analyzers._stake import upper_clause

    basis = "from L1 at 97.2 % of its peak (measured speed of light)"
    assert upper_clause(None, None, True, basis) == (
        "at least its distance to the L1 peak (at 97.2 % of it, measured speed of light); up to its distance to "
        "the roofline, unknown without its FLOP count")
    rep = analyze([str(DATA / "nvidia" / "h200" / "h200_kernels_details.csv")])
    s = rep.sources[0]
    f = next(f for f in s.results["verdicts"].findings if str(f.kernel).startswith("gemm_naive"))
    row = s.results["verdicts"].table.set_index("name").loc[f.kernel]
    assert "at least," not in f.title and "at stake at least its distance to the L1 peak (at 97.2 % of it" in f.title
    assert row["stake_note"] in f.title  # one sentence in the finding and in every table's stake note


@pytest.mark.skipif(importlib.util.find_spec("ncu_report") is None, reason="needs Nsight Compute's ncu_report")
def test_a_roofline_stake_on_lower_bound_flops_says_up_to():
    rep = analyze([str(DATA / "nvidia" / "h200" / "h200_kernels.ncu-rep")])
    s = rep.sources[0]
    f = next(f for f in s.results["verdicts"].findings if str(f.kernel).startswith("gemm_naive"))
    roof = s.results["roofline"].table.set_index("name").loc[f.kernel]
    assert isinstance(roof["flops_lower_bound"], str)  # the trace's FLOP count is a lower bound
    # its distance to the roofline: time × (1 − % of roofline); attained FLOP/s at least → the distance at most
    t = float(s.results["verdicts"].table.set_index("name").loc[f.kernel, "time_ns"])
    assert f.time_at_stake_ns == pytest.approx(t * (1 - float(roof["roof_pct"]) / 100), rel=1e-3)
    assert "at stake up to: its distance to the roofline, whose FLOP count is a lower bound" in f.title


def test_the_verdict_says_its_stake_is_one_cause_of_the_idle():
    from gpulens.reports._answer import answer

    s = analyze([str(DEMO)]).sources[0]
    a = answer(s)
    host = int(s.results["bottlenecks"].summary["idle_host_ns"])
    idle = next(f for f in a.findings if f.category == "gpu-idle")
    assert idle.time_at_stake_ns > host  # every idle cause, not the host wait alone
    assert f"{_fmt(host)} at stake from this cause alone" in a.sentence


@pytest.fixture(scope="module")
def multirank():
    return analyze([str(DATA / "kineto" / "multirank")]).sources[0]


def test_an_assumed_gpu_is_named_once_per_finding(multirank):
    from gpulens.analyzers._stake import premise_beside
    from gpulens.reports._answer import shown_title

    premise = "if the GPU is the assumed X1 (the input does not name it; the figure rests on its peaks)"
    assert premise_beside("46.3 % of its roofline on an assumed X1", premise) == (
        "if the GPU is that one (the input does not name it; the figure rests on its peaks)")
    assert premise_beside("46.3 % of its roofline", premise) == premise
    shown = [shown_title(f) for r in multirank.results.values() for f in r.findings if f.premise]
    name = multirank.device.name
    assert shown and all(t.count(f"assumed {name}") <= 1 for t in shown)


def test_exposed_communication_is_not_listed_as_more_time(multirank):
    from gpulens.analyzers._verdict_order import COMM_PART

    comm = next(f for r in multirank.results.values() for f in r.findings if f.key == "exposed-comm")
    t = multirank.results["verdicts"].table
    nccl = t[t["verdict"] == "communication-bound"]
    # the NCCL kernel's stake is its exposed time: the exposed-communication finding's, once
    assert int(nccl["time_at_stake_ns"].sum()) == comm.time_at_stake_ns
    assert (nccl["stake_note"] == COMM_PART).all()
    fix = multirank.results["verdicts"].summary["fix_first"]
    # the banner's "At stake" line names the exposed time once (as the largest kernel stake), never as an extra item
    assert fix.count(_fmt(comm.time_at_stake_ns)) == 1
