"""A --steps/--window selection that holds no GPU work says so: not "nothing ran on a GPU" about an input that has
GPU work outside the selection (the fresh-user walk's alexnet trace with --steps 40:45)."""

from __future__ import annotations

import json

from tests.conftest import KINETO
from tests.test_cli import run


def test_steps_outside_the_trace_say_the_selection_is_empty(tmp_path):
    out = tmp_path / "r.json"
    r = run("analyze", str(KINETO / "hta_alexnet_a100.json.gz"), "--no-cache", "--steps", "40:45", "--json", str(out))
    assert r.returncode == 5  # no GPU work (in the selection): the exit code stays the documented one
    line = next(x for x in r.stdout.splitlines() if x.startswith("Verdict:"))
    assert line.startswith("Verdict: no GPU work in the selection — the selection (steps 40:45) holds none")
    assert "nothing ran on a GPU" not in r.stdout
    src = json.loads(out.read_text())["sources"][0]
    assert src["status"] == "no_gpu_work" and src["inputs"][0]["selection"] == "steps 40:45"
    vd = src["analyses"]["verdicts"]["summary"]
    assert (vd["run_verdict"], vd["basis"]) == ("no-gpu-work", "no GPU work in the selection (steps 40:45)")


def test_without_a_selection_an_input_with_no_gpu_work_says_nothing_ran(tmp_path):
    r = run("analyze", str(KINETO / "hta_cpu_only_rank34.pt.trace.json.gz"), "--no-cache")
    assert r.returncode == 5
    assert "Verdict: no GPU work — nothing ran on a GPU to analyse." in r.stdout


def test_counter_replay_timeline_analyses_give_the_one_reason(tmp_path):
    """An ncu CSV is a counter-collection replay: every analysis that needs when the work ran (critical path, queue
    lengths) skips with the same 'no workload timeline: …' reason, not 'no GPU event is linked to a launch call'."""
    from tests.conftest import shared_trace

    p = shared_trace("ncu/olajide_rtx5070_metrics_saxpy.csv")
    out = tmp_path / "r.json"
    assert run("analyze", str(p), "--no-cache", "-q", "--json", str(out)).returncode == 0
    a = json.loads(out.read_text())["sources"][0]["analyses"]
    reasons = {a[k]["skipped_reason"] for k in ("critical_path", "queue_length", "queue_length_series")}
    assert len(reasons) == 1 and next(iter(reasons)).startswith("no workload timeline: counter-collection run")
