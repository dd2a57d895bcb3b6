"""One rule decides whether launch cost matters for a kernel (session 50, a new user's `gpulens analyze --demo`):
the BERT demo's CUTLASS 64x64_64x6 GEMM was told first to "batch … or capture them in CUDA graphs … so the launch
cost is paid once" while its evidence said "0 ns of launch idle before it" and the roofline finding under it said
"nor launch cost (its launches last 6.13 µs … against the 2.00 µs any launch takes)".

The rule (gpulens.analyzers._verdict_facts.launch_cost_reason): launch cost bounds a kernel when its launches last at
most twice the 2 µs floor any launch takes (torchao's KERNEL_LAUNCH_OVERHEAD_SEC), or when most of its launches run
shorter than their call AND the GPU idled before them (launch idle ≥ 10 % of its time). Expected figures come from
the demo trace's own kernel records, read here with json.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

import gpulens
from gpulens.analyzers._verdict_facts import Evidence, launch_cost_reason
from gpulens.analyzers._verdict_steps import _latency_steps

DEMO = Path(gpulens.__file__).parent / "data" / "demo_h100_bert-small.pt.trace.json.gz"
FUSE_FIRST = ("so the launch cost is paid once", "would not pay back the launch")


def _kernel_durations_us(fragment: str) -> list[float]:
    doc = json.loads(gzip.decompress(DEMO.read_bytes()))
    return [float(e["dur"]) for e in doc["traceEvents"]
            if e.get("cat") == "kernel" and e.get("ph") == "X" and fragment in e.get("name", "")]


@pytest.fixture(scope="module")
def demo():
    return gpulens.analyze([DEMO], cache=False).sources[0]


def test_demo_gemm_leads_with_its_grid_and_says_graphs_pay_only_when_the_host_paces(demo):
    durs = _kernel_durations_us("64x64_64x6")
    assert len(durs) == 4
    mean_us = sum(durs) / len(durs)
    assert mean_us > 2 * 2.0  # 6.13 µs: over twice the 2 µs any launch takes — the GPU-side floor does not hold it
    v = demo.results["verdicts"].table
    row = v[v["name"].str.contains("64x64_64x6")].iloc[0]
    assert "0 ns of launch idle before it" in row["evidence"]  # the GPU never waited on its launches
    steps = list(row["next_steps"])
    assert steps[0].startswith("The grid")  # the grid/occupancy step leads
    assert not any(x in steps[0] for x in FUSE_FIRST)
    graphs = [s for s in steps if "CUDA graphs" in s]
    assert graphs and all("pays only while the host paces the run" in s for s in graphs)
    assert f"{mean_us:.2f} µs on average" in graphs[0]
    # the roofline finding under it says launch cost does not bound it — now in agreement
    roof = [f for f in demo.results["roofline"].findings if f.key == f"roofline:{row['name']}"]
    assert roof and "nor launch cost" in roof[0].detail


def test_every_fuse_first_step_of_the_demo_rests_on_the_rule(demo):
    """Each kernel told to fuse/batch first either has launches within twice the 2 µs floor (from the trace's own
    durations) or recorded launch idle ≥ 10 % of its time (its evidence)."""
    v = demo.results["verdicts"].table
    told = 0
    for r in v.itertuples():
        if not r.next_steps or not any(x in r.next_steps[0] for x in FUSE_FIRST):
            continue
        told += 1
        m = re.search(r"([0-9.]+) (ns|µs|ms) of launch idle before it", r.evidence)
        idle_ns = float(m.group(1)) * {"ns": 1, "µs": 1e3, "ms": 1e6}[m.group(2)] if m else 0.0
        assert r.time_ns <= 2 * r.calls * 2_000 or idle_ns >= 0.1 * r.time_ns, r.name
    assert told >= 1  # the layer norm: 10 launches of 3.09 µs, within twice the floor


def _e(**kw) -> Evidence:
    base = dict(name="my_kernel", kind="kernel", calls=10, time_ns=100_000, short_launch_frac=1.0,
                waves_per_sm=0.2, mean_blocks=20, num_sms=132)
    base.update(kw)
    return Evidence(**base)


def test_the_rule_by_hand():
    # 10 launches of 10 µs each (over 2 × 2 µs), all shorter than their call
    assert launch_cost_reason(100_000, 10, 1.0, 0) == ""            # no idle before them: not launch cost
    assert launch_cost_reason(100_000, 10, 1.0, 9_999) == ""        # idle under 10 % of its 100 µs
    assert launch_cost_reason(100_000, 10, 1.0, 10_000) == "host"   # 10 µs idle = 10 %: the host paced it
    assert launch_cost_reason(100_000, 10, 1.0, 50_000, 60_000) == ""  # queued 60 µs behind earlier work
    assert launch_cost_reason(100_000, 10, 0.4, 50_000) == ""       # most launches outlast their call
    assert launch_cost_reason(40_000, 10, None, 0) == "floor"        # 4 µs each = twice the 2 µs floor
    assert launch_cost_reason(40_010, 10, None, 0) == ""


def test_steps_follow_the_rule():
    paced = _latency_steps(_e(launch_idle_ns=30_000))
    assert "would not pay back the launch" in paced[0]  # the host paced it: fusion first
    not_paced = _latency_steps(_e(launch_idle_ns=0))
    assert not_paced[0].startswith("The grid")
    assert "pays only while the host paces the run" in not_paced[1]
    assert "never waited on them (0 ns of launch idle before it)" in not_paced[1]
    floor = _latency_steps(_e(time_ns=30_000, launch_idle_ns=0))  # 3 µs per launch: the floor holds it
    assert "would not pay back the launch" in floor[0]


def test_roofline_note_follows_the_rule_when_the_host_paced_it():
    """A kernel of 10 µs launches (over the floor) whose host paced it: the roofline's "nor launch cost" is replaced,
    so it agrees with the verdict's fuse/batch-first step; with no idle it stays."""
    from types import SimpleNamespace

    from gpulens.analyzers._roof_notes import below_roofs_detail, settle_launch_note
    from gpulens.analyzers.base import Finding

    def roof():
        return SimpleNamespace(findings=[Finding("k runs below both roofs", below_roofs_detail(100_000, 10),
                                                 key="roofline:k")])

    r = roof()
    assert "nor launch cost" in r.findings[0].detail
    settle_launch_note(r, "k", launch_cost_reason(100_000, 10, 1.0, 0))
    assert "nor launch cost" in r.findings[0].detail
    settle_launch_note(r, "k", launch_cost_reason(100_000, 10, 1.0, 30_000))
    assert "nor launch cost" not in r.findings[0].detail and "launch calls do" in r.findings[0].detail


def test_roofline_note_settled_from_the_verdicts_evidence():
    """The verdict analyzer hands its Evidence (as verdicts.py does): the same rule decides."""
    from types import SimpleNamespace

    from gpulens.analyzers._roof_notes import below_roofs_detail, settle_launch_note
    from gpulens.analyzers.base import Finding

    r = SimpleNamespace(findings=[Finding("t", below_roofs_detail(100_000, 10), key="roofline:my_kernel")])
    settle_launch_note(r, "my_kernel", _e(launch_idle_ns=0))
    assert "nor launch cost" in r.findings[0].detail
    settle_launch_note(r, "my_kernel", _e(launch_idle_ns=30_000))
    assert "launch calls do" in r.findings[0].detail
