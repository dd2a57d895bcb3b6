"""Variants of the shared cases (../shared/cases/README.md) that another public project could produce (session 41),
each generated here with its answer worked out by hand in the docstring from the values written (µs in Kineto
files, ns in rocprofv3 CSV and Nsight Systems SQLite, ns in reports) — never copied from gpulens output.

* B06 + B07 (a corrupt timestamp making one GPU event last days) in Kineto, rocprofv3 CSV and nsys SQLite: the
  warning about GPU events longer than a day said "the GPU span and busy time include it" where the stream clip or
  the runaway rule had cut it, or left its duration unknown; it now says what they include.
* B07's runaway (a stream's last event recorded far past the rest of the run) in the CI gate: a candidate whose
  runaway has an unknown duration PASSED (its span, busy and kernel times silently "not recorded"), and one whose
  runaway was cut at the end of the rest of the run was IMPROVED by −75 % against a clean baseline; the fault in the
  baseline did the same the other way round. The figures that include an unknown duration are now AMBIGUOUS
  "cannot be judged: …" where the metric gates.
* The one-off gap rule (a gap ≥ 10 × the median of the others holding ≥ 25 % of the idle): a warm-up gap holding
  most of the idle hid a second one-off gap that holds most of the *rest* (15 % of the whole, 69 % of what is
  left once the warm-up is left out); a later pass now leaves out such a gap when it also stands alone (10 × the
  next gap), so gaps of a like size stay a pattern.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main

US = 1000  # ns per µs
DAY_US = 86_400_000_000  # µs in a day


def _k(name: str, ts: int, dur: int, stream: int = 7, corr: int | None = None, cat: str = "kernel", **a) -> dict:
    args = {"device": 0, "stream": stream, **({"correlation": corr} if corr is not None else {}), **a}
    return {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": args}


def _launch(ts: int, corr: int) -> dict:
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": ts, "dur": 3,
            "args": {"correlation": corr}}


def _kineto(path: Path, events: list[dict]) -> Path:
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return path


def _analyze(path: Path, tmp_path: Path) -> dict:
    out = tmp_path / f"{path.stem}.out.json"
    assert main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


def _day_warning(src: dict) -> str:
    (w,) = [w for w in src["warnings"] if "longer than a day" in w]
    return w


# --- B06 + B07: a GPU event lasting days --------------------------------------------------------------------------

def test_day_long_runaway_of_unknown_duration_is_said_to_be_left_out(tmp_path):
    """Kineto: launches 990 and 995 (3 µs each), ka 1000+10, kb 1015 + 2 days on stream 7. kb is the stream's last
    event and starts after every other event ended (ka at 1010): the runaway rule leaves it no time — its duration
    is unknown. GPU span 1000 → 1015 = 15 µs, busy 10 µs; the warning says none of its 172,800 s is included."""
    src = _analyze(_kineto(tmp_path / "t.json", [_launch(990, 1), _launch(995, 2), _k("ka", 1000, 10, corr=1),
                                                  _k("kb", 1015, 2 * DAY_US, corr=2)]), tmp_path)
    sm = src["summary"]
    assert (sm["span_ns"], sm["gpu_busy_ns"], sm["kernel_runaway_events"]) == (15 * US, 10 * US, 1)
    w = _day_warning(src)
    assert "1 GPU event lasts longer than a day (the longest 2.00 days: kb)" in w
    assert "include none of its recorded duration" in w and "its duration is unknown" in w
    assert "include it" not in w


_ROCPROF_HDR = ("Kind,Agent_Id,Queue_Id,Stream_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,"
                "Start_Timestamp,End_Timestamp,Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,"
                "Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n")


def test_day_long_event_clipped_at_the_next_on_its_queue_rocprofv3(tmp_path):
    """rocprofv3 kernel trace (ns), one queue: ka [1,000,000, 1,010,000], kb from 1,015,000 with an end two days
    later (172,800,000,000,000 ns recorded), kc [1,030,000, 1,035,000]. kb is clipped at kc's start: 15,000 ns kept.
    Busy 10 + 15 + 5 = 30 µs over the span 1,000,000 → 1,035,000 = 35 µs; the warning says 15.00 µs of 172800.00 s (2.00 days),
    clipped at the next event on its stream."""
    day_ns = DAY_US * US
    rows = [("ka", 1_000_000, 1_010_000), ("kb", 1_015_000, 1_015_000 + 2 * day_ns), ("kc", 1_030_000, 1_035_000)]
    p = tmp_path / "run_kernel_trace.csv"
    p.write_text(_ROCPROF_HDR + "".join(f"KERNEL_DISPATCH,1,1,0,100,{i},{i},{n},{i},{s},{e},0,0,256,1,1,1024,1,1\n"
                                        for i, (n, s, e) in enumerate(rows, 1)))
    src = _analyze(p, tmp_path)
    sm = src["summary"]
    assert (sm["span_ns"], sm["gpu_busy_ns"]) == (35 * US, 30 * US)
    w = _day_warning(src)
    assert "include 15.00 µs of its 2.00 days recorded (1 clipped at the next event on its stream)" in w


def _nsys(path: Path, kernels: list[tuple[int, int, int, str]]) -> Path:
    """Nsight Systems export: ``kernels`` = [(start ns, end ns, streamId, name)], each launched 500 ns before."""
    from tests.case_variants import _nsys_db

    names = sorted({n for *_, n in kernels})
    strings = ["cudaLaunchKernel_v7000", *names]
    kern = [(s, e, st, i + 1, strings.index(n) + 1, strings.index(n) + 1) for i, (s, e, st, n) in enumerate(kernels)]
    rt = [(s - 500, s - 400, i + 1, 1) for i, (s, *_r) in enumerate(kernels)]
    return _nsys_db(path, strings, rt, kern, [])


def test_two_day_long_events_one_cut_one_unknown_nsys(tmp_path):
    """nsys SQLite (ns): stream 7: ka [1,000,000, 1,010,000], kb from 1,005,000 for 2 days; stream 8: kc [1,000,000,
    1,040,000], kd from 1,020,000 for 3 days. ka is clipped at kb's start (1,005,000: 5 µs), kc at kd's (1,020,000:
    20 µs). kb and kd are their streams' last events, judged together against the rest (ka, kc, the launches from
    999,500): that rest ends at 1,020,000, and both end days past it — runaways, cut at 1,020,000: kb keeps 15 µs,
    kd (starting there) none: its duration is unknown. 15 µs of their 5 days (432,000 s) recorded; busy = span =
    1,000,000 → 1,020,000 = 20 µs."""
    day_ns = DAY_US * US
    p = _nsys(tmp_path / "run.sqlite", [(1_000_000, 1_010_000, 7, "ka"), (1_005_000, 1_005_000 + 2 * day_ns, 7, "kb"),
                                        (1_000_000, 1_040_000, 8, "kc"), (1_020_000, 1_020_000 + 3 * day_ns, 8, "kd")])
    src = _analyze(p, tmp_path)
    sm = src["summary"]
    assert (sm["span_ns"], sm["gpu_busy_ns"], sm["kernel_runaway_events"]) == (20 * US, 20 * US, 2)
    w = _day_warning(src)
    assert "2 GPU events last longer than a day (the longest 3.00 days: kd)" in w
    assert ("include 15.00 µs of their 5.00 days recorded (1 cut at the end of the rest of the run, 1 of unknown "
            "duration (starting after the rest of the run ended))") in w


def test_day_long_event_nothing_bounds_is_included_in_full(tmp_path):
    """A host op of 3 days beside a kernel of 2 days (Kineto): the kernel ends inside the host op, so the runaway
    rule does not cut it — the span and busy time hold its 172,800 s, and the warning says so."""
    src = _analyze(_kineto(tmp_path / "t.json", [
        {"ph": "X", "cat": "cpu_op", "name": "aten::long_host_op", "pid": 1, "tid": 1, "ts": 0, "dur": 3 * DAY_US},
        _k("k_two_days", 10, 2 * DAY_US), _k("k_short", 10, 5, stream=8)]), tmp_path)
    assert src["summary"]["gpu_busy_ns"] == 2 * DAY_US * US
    assert _day_warning(src).endswith("and the GPU span and busy time include it in full")


# --- B07's runaway in the CI gate ---------------------------------------------------------------------------------

def _clean(path: Path, ka: int = 10) -> Path:
    """ka 1000+ka, kb 1015+20 on stream 7, each launched: span 1000 → 1035 = 35 µs, busy ka + 20 µs."""
    return _kineto(path, [_launch(990, 1), _launch(995, 2), _k("ka", 1000, ka, corr=1), _k("kb", 1015, 20, corr=2)])


def _gate(tmp_path: Path, cands: list[Path], base: list[Path], *extra: str) -> tuple[int, dict]:
    out = tmp_path / "gate.json"
    b = base[0]
    if len(base) > 1:
        b = tmp_path / "base_report.json"
        assert main(["analyze", "-q", "--no-cache", *map(str, base), "--json", str(b)]) == 0
    code = main(["gate", *map(str, cands), "-b", str(b), "-q", "--json", str(out), *extra])
    return code, json.loads(out.read_text())


RUN_TIMES = ("span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_time_ns", "kernel:kb")


@pytest.mark.parametrize("kb_start,stream", [(1015, 7), (1005, 8)], ids=["unknown", "cut"])
def test_gate_cannot_judge_the_figures_a_runaway_candidate_holds(tmp_path, kb_start, stream):
    """Baseline: 3 clean runs (ka 10/11/10 µs, kb 20 µs: span 35 µs). Candidate: ka 10 µs and kb recorded 3 s —
    starting at 1015 after ka ended (unknown: no time kept), or at 1005 on stream 8 (cut at ka's end 1010: 5 µs
    kept, which read as kb −75 %, span 10 µs −71.4 %: IMPROVED). Either way kb's duration is unknown: the span, busy,
    kernel-time and kb rows cannot be judged — 5 gating rows AMBIGUOUS, the run AMBIGUOUS (exit 0; 1 with
    --fail-on-ambiguous); ka and the counts (2 launches, 2 kernels) still PASS."""
    base = [_clean(tmp_path / f"b{i}.json", ka) for i, ka in enumerate((10, 11, 10))]
    cand = _kineto(tmp_path / "c.json", [_launch(990, 1), _launch(995, 2), _k("ka", 1000, 10, corr=1),
                                         _k("kb", kb_start, 3_000_000, stream=stream, corr=2)])
    code, g = _gate(tmp_path, [cand], base)
    rows = {m["metric"]: m for m in g["metrics"]}
    assert code == 0 and g["verdict"] == "AMBIGUOUS"
    for m in RUN_TIMES:
        assert rows[m]["verdict"] == "AMBIGUOUS" and rows[m]["gating"], m
        assert rows[m]["reason"].startswith("cannot be judged: 1 GPU event (kb) recorded far past the rest of the run")
    assert all(rows[m]["verdict"] == "PASS" for m in ("kernel:ka", "kernel_count", "launch_calls"))
    assert "cannot be judged" in g["reason"]
    assert _gate(tmp_path, [cand], base, "--fail-on-ambiguous")[0] == 1


def test_gate_cannot_judge_against_a_baseline_holding_a_runaway(tmp_path):
    """The fault in the baseline: a run whose kb (stream 8, 1005 + 3 s) is cut at 1010 given as the baseline; a
    clean candidate (span 35 µs) is not "REGRESSED +250 %" against its 10 µs span: the span, busy, kernel-time and
    kb rows are AMBIGUOUS, "in the baseline"."""
    bad = _kineto(tmp_path / "bad.json", [_launch(990, 1), _launch(995, 2), _k("ka", 1000, 10, corr=1),
                                          _k("kb", 1005, 3_000_000, stream=8, corr=2)])
    code, g = _gate(tmp_path, [_clean(tmp_path / "c.json")], [bad])
    rows = {m["metric"]: m for m in g["metrics"]}
    assert code == 0 and g["verdict"] == "AMBIGUOUS"
    for m in RUN_TIMES:
        assert rows[m]["verdict"] == "AMBIGUOUS" and rows[m]["reason"].startswith("cannot be judged: in the baseline")


def test_gate_judges_on_the_candidate_runs_that_measured_it(tmp_path):
    """3 candidate runs, one with kb's runaway (unknown duration): the other two measure every figure, so the span
    row compares 2 candidate samples (35 µs each) with the baseline's 35 µs — PASS, not AMBIGUOUS."""
    base = [_clean(tmp_path / f"b{i}.json") for i in range(3)]
    cands = [_clean(tmp_path / "c0.json"), _clean(tmp_path / "c1.json"),
             _kineto(tmp_path / "c2.json", [_launch(990, 1), _launch(995, 2), _k("ka", 1000, 10, corr=1),
                                            _k("kb", 1015, 3_000_000, corr=2)])]
    code, g = _gate(tmp_path, cands, base)
    span = next(m for m in g["metrics"] if m["metric"] == "span_ns")
    assert (span["cand_n"], span["cand_median"], span["verdict"]) == (2, 35 * US, "PASS")


def test_saved_baseline_keeps_which_figures_were_unknown(tmp_path):
    """Round trip of the baseline file: a run with a runaway kb saved as a baseline records ``unknown`` for the 5
    figures that include kb's unknown duration; a clean run's baseline has no such key."""
    from gpulens.gate.baseline import Baseline, baseline_from_runs
    from gpulens.gate.runs import collect_runs

    bad = _kineto(tmp_path / "bad.json", [_launch(990, 1), _launch(995, 2), _k("ka", 1000, 10, corr=1),
                                          _k("kb", 1015, 3_000_000, corr=2)])
    d = baseline_from_runs("b", collect_runs([bad])).to_dict()
    assert sorted(d["unknown"]) == sorted(RUN_TIMES)
    assert Baseline.from_dict(json.loads(json.dumps(d))).unknown == d["unknown"]
    assert "unknown" not in baseline_from_runs("c", collect_runs([_clean(tmp_path / "c.json")])).to_dict()


# --- one-off gaps -------------------------------------------------------------------------------------------------

def _gapped(path: Path, inner: list[int]) -> Path:
    """A 10 µs HtoD copy at 0, then after a 1,000 µs pause 20 kernels of 20 µs on stream 7, 5 µs apart except for
    the gaps in ``inner`` (after the kernel of that index: 200 µs)."""
    ev = [_k("Memcpy HtoD (Pageable -> Device)", 0, 10, cat="gpu_memcpy", bytes=4096)]
    t = 1010
    for i in range(20):
        ev.append(_k("step_k", t, 20))
        t += 20 + (200 if i in inner else 5)
    return _kineto(path, ev)


def test_a_second_one_off_gap_behind_a_warm_up_gap(tmp_path):
    """Gaps: 1,000 µs before the first kernel (warm-up), 200 µs after kernel 10, 18 × 5 µs: idle 1,290 µs. The
    200 µs gap is 40 × the median (5 µs) but only 15.5 % of all idle — under the 25 % share while the warm-up is
    counted; once it is left out, 200 / 290 = 69 % of the idle left, and 40 × the next gap: a one-off too. Left out: 1,200 µs; steady idle
    90 µs; span 0 → 1,700 µs, steady span 1,700 − 1,200 = 500 µs."""
    b = _analyze(_gapped(tmp_path / "t.json", [10]), tmp_path)["analyses"]["bottlenecks"]["summary"]
    assert [(g["offset_ns"], g["dur_ns"], g["position"]) for g in b["boundary_gaps"]] == [
        (10 * US, 1000 * US, "leading"), (1280 * US, 200 * US, "one-off")]
    assert (b["idle_boundary_ns"], b["steady_idle_ns"], b["steady_span_ns"]) == (1200 * US, 90 * US, 500 * US)


def test_two_long_gaps_between_kernels_stay_a_pattern(tmp_path):
    """The same with two 200 µs gaps between kernels (after kernels 5 and 12): each holds 200 / 485 = 41 % of the
    idle the warm-up leaves, but the other is as long — two long gaps between kernels recur: counted, not
    one-offs. Only the 1,000 µs warm-up is left out; steady idle 2 × 200 + 17 × 5 = 485 µs."""
    b = _analyze(_gapped(tmp_path / "t.json", [5, 12]), tmp_path)["analyses"]["bottlenecks"]["summary"]
    assert [(g["dur_ns"], g["position"]) for g in b["boundary_gaps"]] == [(1000 * US, "leading")]
    assert (b["idle_boundary_ns"], b["steady_idle_ns"]) == (1000 * US, 485 * US)


def test_boundary_rule_directly():
    """Pure rule: gaps [100, 30, 1, 1, 1, 1]: 100 ≥ 10 × 1 and ≥ 25 % of 134 → out (first pass); 30 < 25 % of 134
    ends the first pass, but of the 34 left it holds 88 %, is 30 × the median 1 and 30 × the next gap: out. Before,
    the first pass alone stopped the rule. Gaps 10^17, 10^16, …, 10^0 then five of 1 ns: 10^17 passes first; each
    next power holds ≥ 25 % of what is left and is 10 × the next one, down to 10 ns (the 17th, past the ordered head
    of 17, judged by the full order); 1 ns is not 10 × the next 1 ns."""
    from gpulens.analyzers._gap_classes import boundary_gaps

    assert boundary_gaps([100, 30, 1, 1, 1, 1]).tolist() == [True, True, False, False, False, False]
    dur = [10 ** (17 - i) for i in range(18)] + [1] * 5
    assert boundary_gaps(dur).tolist() == [True] * 17 + [False] * 6
    # two like gaps after the first (halving): a pattern, no later pass
    assert boundary_gaps([1000, 300, 200, 1, 1, 1]).tolist() == [True] + [False] * 5


# --- B07's runaway in gpulens diff --------------------------------------------------------------------------------

@pytest.mark.parametrize("as_report", [False, True], ids=["trace", "report"])
def test_diff_leaves_a_runaway_kernel_unknown(tmp_path, as_report):
    """Base: ka 10 + kb 20 µs (span 35 µs). Candidate: kb on stream 8 from 1005 recorded 3 s, cut at ka's end (1010)
    to 5 µs — which read as kb −15 µs (−75 %), span 35 → 10 µs (−71.4 %), and a warning that it "ran past the start
    of the next event on its stream" (there is none). Now kb's time, the summed time and the candidate's span are
    unknown, ka compares 10 → 10 µs, and the warning names kb as recorded far past the rest of the run — from the
    trace and from its JSON report alike."""
    from gpulens.diff import diff

    base = _clean(tmp_path / "b.json")
    cand = _kineto(tmp_path / "c.json", [_launch(990, 1), _launch(995, 2), _k("ka", 1000, 10, corr=1),
                                         _k("kb", 1005, 3_000_000, stream=8, corr=2)])
    if as_report:
        rep = tmp_path / "c.report.json"
        assert main(["analyze", "-q", "--no-cache", str(cand), "--json", str(rep)]) == 0
        cand = rep
    r = diff(base, cand)
    sm = r.summary
    assert sm["cand_span_ns"] is None and sm["cand_time_ns"] is None
    rows = {x["kernel"]: x for x in r.tables["kernels"].to_dict("records")}
    assert rows["ka"]["base_time_ns"] == rows["ka"]["cand_time_ns"] == 10 * US
    assert rows["kb"]["base_time_ns"] == 20 * US and rows["kb"]["cand_time_ns"] != rows["kb"]["cand_time_ns"]  # NaN
    assert any("(kb) recorded far past the rest of the run" in w for w in r.warnings)
    assert not any("next event on their stream" in w for w in r.warnings)


def test_two_one_off_gaps_of_unlike_size_between_kernels(tmp_path):
    """One kernel, a 5,000 µs pause, then 20 kernels of 10 µs 2 µs apart but for one 60 µs gap (after the 10th):
    idle 5,000 + 60 + 18 × 2 = 5,096 µs. The pause is a one-off (98 % of the idle, 2,500 × the 2 µs median); the
    60 µs gap holds 60 / 96 = 62.5 % of what is left and is 30 × the median: a one-off too — before, it hid behind
    the pause's share (1.2 % of all idle). It stands alone (30 × the next gap): no pattern. Left out 5,060 µs;
    steady idle 36 µs."""
    ev = [_k("gemm", 1_000_000, 10)]
    t = 1_005_010
    for i in range(20):
        ev.append(_k("gemm", t, 10))
        t += 10 + (60 if i == 9 else 2)
    b = _analyze(_kineto(tmp_path / "t.json", ev), tmp_path)["analyses"]["bottlenecks"]["summary"]
    assert [(g["dur_ns"], g["position"]) for g in b["boundary_gaps"]] == [(5000 * US, "one-off"), (60 * US, "one-off")]
    assert (b["idle_boundary_ns"], b["steady_idle_ns"]) == (5060 * US, 36 * US)
