"""Fixes from the session-15 fresh-user walk; each expected value is derived by hand from the input the test builds."""

from __future__ import annotations

import json

from tests.test_cli import run


def _steps_trace(path, steps=range(3, 8)):
    """A Kineto trace with one ``ProfilerStep#N`` range per step (1 ms apart, 500 µs long), each holding one
    100 µs kernel: GPU work in every step of ``steps``."""
    ev = []
    for i, n in enumerate(steps):
        t = 1000 + i * 1000
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1,
                   "ts": t, "dur": 500})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 100, "dur": 100,
                   "args": {"device": 0, "stream": 7}})
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return path


def test_empty_step_selection_names_the_steps_present(tmp_path):
    p = _steps_trace(tmp_path / "t.json")
    out = tmp_path / "r.json"
    r = run("analyze", str(p), "--no-cache", "--steps", "40:45", "--json", str(out))
    assert r.returncode == 5, r.stderr
    # steps 3..7 recorded; the hint picks every step but the last (3 to 7 - 1 = 6)
    hint = "the trace records steps 3–7: try --steps 3:6 (all but the last, which the profiler's stop often cuts)"
    text = " ".join(r.stdout.split())  # the console wraps long lines
    assert ("Verdict: no GPU work in the selection — the selection (steps 40:45) holds none of the input's "
            f"GPU events — {hint}.") in text
    assert f"No GPU work in the selection (steps 40:45) of {p}" in text and text.count(hint) == 2
    inp = json.loads(out.read_text())["sources"][0]["inputs"][0]
    assert (inp["selection_unmatched"], inp["selection_hint"]) == (True, hint)


def test_empty_window_selection_and_the_hint_works(tmp_path):
    p = _steps_trace(tmp_path / "t.json")
    # the trace ends at 1000 + 4*1000 + 500 µs = 5.5 ms after 0; a window from 1 s on holds nothing
    r = run("analyze", str(p), "--no-cache", "--window", "1s:2s")
    assert r.returncode == 5 and "try --steps 3:6" in " ".join(r.stdout.split())
    out = tmp_path / "r.json"
    r = run("analyze", str(p), "--no-cache", "--steps", "6:6", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    src = json.loads(out.read_text())["sources"][0]
    assert "selection_unmatched" not in src["inputs"][0]
    assert src["summary"]["kernel_count"] == 1  # step 6 holds one kernel


def test_matching_selection_is_not_marked(tmp_path):
    p = _steps_trace(tmp_path / "t.json", steps=[5])
    out = tmp_path / "r.json"
    r = run("analyze", str(p), "--no-cache", "--steps", "9", "--json", str(out))
    # one step only: the hint names it ("step 5", no "the step before the last")
    assert r.returncode == 5 and "the trace records step 5: try --steps 5:5" in " ".join(r.stdout.split())


def _rank_dir(folder, ranks, us):
    """One Kineto file per rank, each with 3 GEMMs of ``us`` µs launched by aten::mm."""
    from tests.dig_traces import H100, KTrace

    gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"

    folder.mkdir()
    for r in ranks:
        t = KTrace(H100, rank=r)
        for i in range(3):
            t.launch(t.op("aten::mm", 100 + 20 * i, 10), 101 + 20 * i, [(gemm, 1000 + 200 * i, us)])
        t.write(folder / f"rank{r}.json")
    return folder


def test_diff_of_runs_with_different_ranks_warns_and_lists_them(tmp_path):
    base = _rank_dir(tmp_path / "base", [0, 1], 100.0)
    cand = _rank_dir(tmp_path / "cand", [0, 1, 2, 3], 100.0)
    out = tmp_path / "d.json"
    r = run("diff", str(base), str(cand), "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    text = " ".join(r.stdout.split())
    # ranks 2 and 3 (3 × 100 µs each) are only in the candidate: +600 µs of the difference is theirs
    assert ("warning: the runs hold different ranks (base: 2 ranks (0, 1); candidate: 4 ranks (0, 1, 2, 3))" in text
            and "+600.00 µs of the difference" in text)
    s = json.loads(out.read_text())["summary"]
    assert s["ranks_differ"] == {"base": [0, 1], "candidate": [0, 1, 2, 3]}
    same = tmp_path / "same.json"
    assert run("diff", str(base), str(_rank_dir(tmp_path / "c2", [0, 1], 90.0)), "--json", str(same)).returncode == 0
    assert json.loads(same.read_text())["summary"]["ranks_differ"] is None


TIMED = ("breakdown", "bottlenecks", "launch_latency", "queue_length", "queue_length_series", "critical_path",
         "critical_path_segments")
REPLAY = ("no workload timeline: counter-collection run: the profiler replayed the kernels one at a time, so their "
          "start times and the gaps between them are not the workload's")


def test_counter_only_inputs_skip_timed_analyses_with_one_reason(tmp_path):
    """An ncu CSV and rocprof pmc / counter-collection files hold counters of replayed kernels; a rocprof stats file
    holds per-kernel totals without timestamps: every analysis that needs timed GPU events gives the one reason
    (not "no GPU events in the trace", which reads as "nothing ran", nor a text of its own)."""
    from tests.conftest import shared_trace

    cases = {"ncu/olajide_rtx5070_metrics_saxpy.csv": REPLAY,
             "rocprof/v1_pmc_seismic_mi250x/bankconflicts.csv": REPLAY,
             "rocprof/v3_csv_sdk_docs/counter_collection.csv": REPLAY,
             "rocprof/v1_pmc_seismic_mi250x/results.stats.csv":
                 "no workload timeline: the input is a per-kernel summary or counter table without timestamps: "
                 "there is no timeline"}
    for rel, want in cases.items():
        out = tmp_path / "r.json"
        assert run("analyze", str(shared_trace(rel)), "--no-cache", "-q", "--json", str(out)).returncode == 0, rel
        a = json.loads(out.read_text())["sources"][0]["analyses"]
        assert {k: a[k]["skipped_reason"] for k in TIMED} == dict.fromkeys(TIMED, want), rel


def test_strict_only_csv_error_names_lenient_and_lenient_reads_the_row(tmp_path):
    """A rocprof stats row one field short: strict mode stops with one line naming --lenient; --lenient reads it
    (calls 1 + 2 = 3 kernels, 1000 + 3000 = 4000 ns summed)."""
    p = tmp_path / "results.stats.csv"
    p.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"good",1,1000,1000,10.0\n'
                 '"k",2,3000,1500\n')
    r = run("analyze", str(p), "--no-cache", "-q")
    err = " ".join(r.stderr.split())
    assert r.returncode == 2 and "Traceback" not in r.stderr
    # session 16: the hint says what --lenient does now (a row is read only where one reading places every field —
    # here calls 2 × average 1500 = total 3000 agrees — else dropped), no longer "realigns"
    assert f"{p}: line 3: 4 fields but the header has 5 columns" in err and "--lenient reads such a row only" in err
    out = tmp_path / "r.json"
    assert run("analyze", str(p), "--no-cache", "-q", "--lenient", "--json", str(out)).returncode == 0
    s = json.loads(out.read_text())["sources"][0]["summary"]
    assert (s["kernel_count"], s["kernel_time_ns"]) == (3, 4000)
