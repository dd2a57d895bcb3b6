"""One definition per figure (session 35): figures that disagree between outputs, or cannot be derived from what is
shown beside them. Expected values come from the traces' own events or from hand calculations written here.

Kinds covered:

* a run's window — the SGLang MI300X decode trace printed "window time 473.77 ms" (critical path) beside "profiled
  window 473.83 ms" and a Timeline "over 473.77 ms": three window figures for one run. Each is now one definition,
  named where they differ: the GPU span (first → last GPU event), the profiled window (first → last event, Python
  functions and annotations included) and the critical path's path window (first → last CPU op, runtime call or GPU
  event: what the walk reads).

* the host's share of the critical path ("74.1 %" for GPT-2 on an H200) could not be derived from the path's rows
  shown beside it (CPU ops 64.1 %, runtime 15.1 %, host idle 20.7 % of a step): the headline now says what it is
  read from (host rows less the host's waits while the GPU was busy, over the path) and the summary's label too.
* a whole-trace figure (the median launch wait) beside steady-state ones says its window.
* one rounding rule for a percentage in prose and in tables: an occupancy of 12.5 % (1 of 8 waves) read "13 %" in a
  finding beside "12.5 %" in the occupancy table.
* a next step said once along a branch of the findings tree (BERT-small H100: the align2 GEMM's padding step under
  its verdict, its roofline finding and its occupancy finding), and an occupancy-limiter step that says what to
  measure rather than "if it is shown latency-bound" (H200 cuBLAS nvjet GEMM).
* the diff's Markdown cut cells at 100 characters without saying where the whole names are; README's run-class words
  lacked "gpu-bound" (every class word a verdict can print is explained there now).
* a kernel's time at stake counted its one-off launch (the MI300A OpenMP pattern: a 430.65 ms first launch, then
  0.63 ms for the same grid: 388.15 ms at stake for a class that "does not describe" that launch); it is now its
  class's stake over the steady launches (that launch counted at the others' median), as the run verdict leaves
  one-off idle gaps out.
* kernel outliers — a launch is compared with the median of the kernel's *other* launches of its grid (with two
  launches the group median is their mean: the MI300A OpenMP kernel's 430.65 ms first launch read "2× the median"
  beside a 0.63 ms second); launches without a recorded duration, and launches whose start is no workload time (an
  ncu replay's launches laid end to end from 0 ns), are never listed.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest

import gpulens
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

DATA = Path(__file__).parent / "data"
US = 1_000


# --- kernel outliers: leave-one-out median, untimed and unplaced launches left out ------------------------------

def _timeline(durs_us: list[float], grid: int = 912) -> Timeline:
    n, t, starts = len(durs_us), 0, []
    for d in durs_us:
        starts.append(t)
        t += int(d * US) + 5 * US
    return Timeline(make_table(EVENT_COLUMNS, {
        "kind": ["kernel"] * n, "name": ["k"] * n, "start_ns": starts, "dur_ns": [int(d * US) for d in durs_us],
        "grid_x": [grid] * n, "grid_y": [1] * n, "grid_z": [1] * n, "block_x": [256] * n,
        "stream_id": [7] * n, "device_id": [0] * n, "rank": [0] * n, "pid": [1] * n, "tid": [1] * n,
        "event_id": list(range(n)), "source": ["t"] * n})).validate()


def test_two_launches_compare_the_slow_one_with_the_other():
    slow, fast = 430_646.701, 629.122  # µs: the MI300A capture's pattern (first launch, then the second)
    out = gpulens.analyze_timeline(_timeline([slow, fast])).results["kernel_outliers"].table
    assert len(out) == 1
    row = out.iloc[0]
    assert int(row["dur_ns"]) == int(slow * US)
    assert float(row["grid_median_ns"]) == int(fast * US)  # the other launch, not (slow + fast) / 2
    assert abs(float(row["vs_median"]) - int(slow * US) / int(fast * US)) < 1e-9  # about 684×, never 2×


def test_two_close_launches_are_no_outlier():
    """10 and 14 µs: 14 / 10 = 1.4 < 1.5 — neither is an outlier of the other."""
    res = gpulens.analyze_timeline(_timeline([10, 14])).results["kernel_outliers"]
    assert len(res.table) == 0 and res.skipped


def test_three_launches_one_slow_compares_with_the_two_others():
    """12, 10 and 50 µs: the others of the 50 µs launch are 10 and 12 µs, median 11 µs → 50 / 11 (the group median,
    12 µs, would give 50 / 12)."""
    out = gpulens.analyze_timeline(_timeline([12, 10, 50])).results["kernel_outliers"].table
    assert len(out) == 1 and float(out.iloc[0]["grid_median_ns"]) == np.median([10, 12]) * US
    assert abs(float(out.iloc[0]["vs_median"]) - 50 / 11) < 1e-9


NCU = DATA / "nvidia"


def _ncu_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    return rows[0], [r for r in rows[1:] if r]


@pytest.fixture(scope="module")
def ncu_mixed(tmp_path_factory) -> Path:
    """Real ncu rows (Olajide RTX 5070): saxpy three times — once without its duration row — and one gemm; the
    saxpy launch without a duration is the one the reverted change listed as an outlier at a synthetic 0 ns."""
    files = {k: NCU / f"olajide_rtx5070_metrics_{k}.csv" for k in ("saxpy", "gemm_naive")}
    out = tmp_path_factory.mktemp("ncu") / "mixed.ncu.csv"
    head, _ = _ncu_rows(files["saxpy"])
    with out.open("w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(head)
        for i, (k, timed) in enumerate([("saxpy", False), ("gemm_naive", True), ("saxpy", True), ("saxpy", True)]):
            for r in _ncu_rows(files[k])[1]:
                if not timed and r[head.index("Metric Name")] == "gpu__time_duration.sum":
                    continue
                w.writerow([str(i), *r[1:]])
    return out


def test_replayed_and_untimed_launches_are_never_listed(ncu_mixed, tmp_path):
    from gpulens.reports.markdown import render as md

    rep = gpulens.analyze([ncu_mixed])
    res = rep.sources[0].results["kernel_outliers"]
    assert len(res.table) == 0 and res.skipped
    assert "not the workload's" in res.skipped_reason and "1 without a recorded duration" in res.skipped_reason
    page = md(rep)
    assert "Kernel outliers" not in page.split("Not analysed")[0]


# --- one run, its windows named ---------------------------------------------------------------------------------

SGLANG = DATA / "kineto" / "tracelens_mi300x_sglang_qwen3_decode.json.gz"


def _extent_us(events: list[dict], cats: set[str] | None) -> float:
    sel = [e for e in events if e.get("ph") == "X" and (cats is None or e.get("cat") in cats)]
    return max(e["ts"] + e.get("dur", 0) for e in sel) - min(e["ts"] for e in sel)


@pytest.fixture(scope="module")
def sglang():
    events = json.load(gzip.open(SGLANG))["traceEvents"]
    return gpulens.analyze([SGLANG]), events


def test_each_window_figure_has_one_definition(sglang):
    from gpulens.reports._format import column_label
    from gpulens.units import fmt_ns

    rep, events = sglang
    gpu = {"kernel", "gpu_memcpy", "gpu_memset"}
    span_us = _extent_us(events, gpu)  # 473,749.94 µs: first kernel → last memcpy end
    profiled_us = _extent_us(events, None)  # 473,830.53 µs: opened by the user annotation
    path_us = _extent_us(events, gpu | {"cpu_op", "cuda_runtime"})  # 473,767.79 µs: opened by the first cpu_op
    res = rep.sources[0].results
    assert abs(res["breakdown"].summary["span_ns"] / 1e3 - span_us) < 1
    assert abs(res["breakdown"].summary["window_ns"] / 1e3 - profiled_us) < 1
    cp = res["critical_path"]
    assert abs(float(cp.table["step_ns"].iloc[0]) / 1e3 - path_us) < 1
    # three different quantities: each printed under its own name
    assert len({fmt_ns(span_us * 1e3), fmt_ns(profiled_us * 1e3), fmt_ns(path_us * 1e3)}) == 3
    assert column_label("step_ns", cp.columns["step_ns"]) == "path window"
    assert column_label("share", cp.columns["share"]) == "share of path window"
    assert "path window" in cp.findings[0].title and "traced time" not in cp.findings[0].title


def test_timeline_names_its_extent_when_it_prints_differently(sglang):
    from gpulens.reports.html import render
    from gpulens.units import fmt_ns

    rep, events = sglang
    drawn = fmt_ns(_extent_us(events, {"kernel", "gpu_memcpy", "cpu_op", "cuda_runtime"}) * 1e3)
    profiled = fmt_ns(_extent_us(events, None) * 1e3)
    page = render(rep)
    i = page.index(f"over {drawn}")
    note = page[i:i + 400]
    assert "first to last event drawn" in note and f"is {profiled}" in note


# --- the host's share of the path, derivable from its rows --------------------------------------------------------

GPT2 = DATA / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"


def test_host_share_reads_off_the_path_rows():
    from gpulens.analyzers._critical_paths import GPU_CLASSES
    from gpulens.reports._answer import answer
    from gpulens.reports._format import column_label
    from gpulens.units import fmt_ns

    src = gpulens.analyze([GPT2]).sources[0]
    cp = src.results["critical_path"]
    t = cp.table
    host_rows = int(t.loc[~t["class"].isin(GPU_CLASSES | {"unattributed"}), "time_ns"].sum())
    path = int(t.drop_duplicates(["rank", "step"])["step_ns"].sum())  # 3 steps: 226.13 ms
    waits = int(cp.summary["host_wait_gpu_busy_ns"])
    host = host_rows - waits
    assert f"{100 * host / path:.1f}" == "74.1"  # the figure the headline quotes, from the rows
    sentence = answer(src).path_note  # its own line after the verdict since s36
    assert (f"host work (74.1 % of it: {fmt_ns(host)} of the {fmt_ns(path)} path summed over 3 steps — its host rows' "
            f"{fmt_ns(host_rows)} less {fmt_ns(waits)} of host waits while the GPU was busy)") in sentence
    assert "less host waits while the GPU was busy" in column_label("host_share", cp.summary_columns["host_share"])


def test_whole_trace_launch_wait_beside_a_steady_state_path_says_so():
    from types import SimpleNamespace as NS

    from gpulens.analyzers._run_shares import path_disagreement

    # whole path 100 µs; the steady state 40 µs of it, host-held (60 %); launches wait a median 100 µs (a backlog)
    s = {"path_ns": 100_000.0, "gpu_share": 0.3, "host_wait_gpu_busy_ns": 0, "unattributed_share": 0.0,
         "host_share": 0.7, "gpu_held_share": 0.3, "bound": "cpu", "steady_path_ns": 40_000.0,
         "steady_host_share": 0.6, "steady_gpu_held_share": 0.4, "steady_bound": "cpu"}
    res = {"critical_path": NS(skipped=False, summary=s),
           "launch_latency": NS(skipped=False, summary={"queue_p50_ns": 100_000}),
           "bottlenecks": NS(skipped=False, summary={"steady_span_ns": 40_000})}
    text = path_disagreement(res, "gpu-bound")
    assert "over the verdict's steady state" in text and "median launch of the whole trace" in text
    res["bottlenecks"] = NS(skipped=False, summary={})  # no gaps left out: one window, nothing to name
    assert "whole trace" not in path_disagreement(res, "gpu-bound")


# --- one rounding rule for percentages -----------------------------------------------------------------------------

@pytest.mark.parametrize("pct, table, prose", [
    (100 * 1 / 8, "12.5 %", "12.5 %"),  # 1 of 8 waves resident: was "13 %" in prose
    (100 * 5 / 8, "62.5 %", "62.5 %"),
    (46.0, "46.0 %", "46.0 %"),  # the same figure with its ".0" (s48: "46 %" beside "46.0 %" read as two)
    (0.25, "0.3 %", "0.3 %"),  # halves up in both (a table's f"{:.1f}" read 0.2 %)
    (0.04, "under 0.1 %", "under 0.1 %"), (99.96, "over 99.9 %", "over 99.9 %")])
def test_prose_and_tables_read_a_percentage_alike(pct, table, prose):
    from gpulens.units import pct_words, share_pct_text

    assert share_pct_text(pct) == table and pct_words(pct) == prose


def test_occupancy_finding_and_table_read_alike():
    """BERT-small on an H100: each limiter finding's title quotes the theoretical occupancy of the occupancy table's
    row with the table's digits (flash_fwd and two CUTLASS GEMMs at 12.5 %: "to 12.5 %", never "to 13 %")."""
    from gpulens.units import share_pct_text

    src = gpulens.analyze([DATA / "kineto" / "tracelens_h100_bert-small.json.gz"]).sources[0]
    occ = src.results["occupancy"]
    for f in occ.findings:
        if not (f.key or "").endswith("/limiter"):
            continue
        theo = float(occ.table.loc[occ.table["name"] == f.kernel, "theoretical_occupancy_pct"].iloc[0])
        assert f.title.endswith(f" to {share_pct_text(theo).replace('.0 %', ' %')}"), (f.title, theo)
        if abs(theo - 12.5) < 1e-9:
            assert f.title.endswith(" to 12.5 %")


# --- a next step said once; what to measure, not a conditional guess -----------------------------------------------

def test_a_child_finding_does_not_repeat_its_parents_step():
    from gpulens.analyzers._tree import SAME_STEP, resolve_parents

    src = gpulens.analyze([DATA / "kineto" / "tracelens_h100_bert-small.json.gz"]).sources[0]
    every = [f for r in src.results.values() for f in (getattr(r, "findings", None) or [])]
    by_key = {f.key: f for f in every if f.key}
    pad = "pad 30522 to 30528"  # the align2 GEMM's N = 30522 is not a multiple of 8 bf16 elements (16 bytes)
    said = [f for f in every if pad in (f.action or "") + (f.detail or "")]
    assert len(said) == 1 and said[0].key.startswith("kernel:")  # once, in the verdict
    for f, r in zip(every, resolve_parents(every)):
        parent = by_key.get(r.parent) if r.parent else None
        if parent is not None and parent.action and f.action:
            assert f.action.startswith(SAME_STEP) or parent.action not in f.action


def test_limiter_step_says_what_to_measure_not_a_condition():
    from gpulens.analyzers import _advice

    name = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"  # cuBLAS (H200 trace)
    step = _advice.limiter("registers", name, pytorch=True, latency_bound=False, vendor="nvidia")
    assert "if it is" not in step and "ncu --section Occupancy --section WarpStateStats" in step
    assert "first measure whether it is latency-bound" in step
    assert "first measure" not in _advice.limiter("registers", name, pytorch=True, latency_bound=True,
                                                  vendor="nvidia")
    amd = _advice.limiter("shared_memory", "my_kernel", vendor="amd")
    assert "rocprof-compute" in amd and "wavefronts" in amd and "if it is" not in amd
    src = gpulens.analyze([DATA / "nvidia" / "h200" / "h200_kineto.pt.trace.json.gz"]).sources[0]
    steps = [f.action or "" for r in src.results.values() for f in (getattr(r, "findings", None) or [])]
    steps += [s for ns in src.results["verdicts"].table["next_steps"] for s in ns]
    assert not any("if it is shown latency-bound" in s or "if it is latency-bound" in s for s in steps)


# --- diff Markdown cut cells; README class words -------------------------------------------------------------------

def test_diff_markdown_says_where_a_cut_name_is_whole(tmp_path):
    from gpulens.diff import diff
    from gpulens.reports.diff import MD_CELL_CHARS, render_markdown
    from tests.test_diff import _program

    r = diff(_program(tmp_path / "b.json", 50.0), _program(tmp_path / "c.json", 65.0))
    assert "are cut (…)" not in render_markdown(r)  # nothing cut: no note
    ops = r.tables["operators"]
    name = "aten::" + "very_long_operator_name_" * 8  # 198 characters: over the cell's 100
    r.tables["operators"] = ops.assign(op=[name] + ops["op"].tolist()[1:])
    md = render_markdown(r)
    cut = name[: MD_CELL_CHARS - 1] + "…"
    assert cut.replace("_", "\\_") in md and name.replace("_", "\\_") not in md
    block = md.split("### Per operator")[1].split("###")[0]
    assert f"Cells longer than {MD_CELL_CHARS} characters are cut (…); the full names are in the JSON output" in block


def test_readme_explains_every_class_word_a_verdict_prints():
    from gpulens.analyzers._verdict_facts import CLASSES
    from gpulens.analyzers.bottlenecks import RANK_CLASSES, class_label

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    words = set(CLASSES) | set(RANK_CLASSES.values()) | {"gpu-bound", "no-gpu-work"}
    missing = sorted(w for w in words if f"**{w}**" not in readme and f"`{w}`" not in readme)
    assert not missing, missing
    # and as the reports print them (a label in words: "GPU idle, cause not recorded")
    labels = {class_label(w).split(" (")[0] for w in words}
    assert not sorted(x for x in labels if x not in readme)


# --- time at stake over the steady launches -------------------------------------------------------------------------

def test_one_off_launch_is_left_out_of_the_class_stake(tmp_path):
    from tests.test_trust_s34_real_one_off_launch import _ncu_csv

    slow, fast = 430_650.0, 629.0  # µs, two launches of one grid; speed of light: memory 10 % → a latency class
    src = gpulens.analyze([_ncu_csv(tmp_path / "k.csv", [slow, fast])]).sources[0]
    row = src.results["verdicts"].table.iloc[0]
    assert row["verdict"] == "latency/occupancy-bound"
    steady_us = fast + fast  # the slow launch counted at the median of the other(s)
    # latency class: at stake what running at the roof would save, (1 − 10 %) of its time; each launch keeps 2 µs
    expected = min(round(steady_us * 1000 * (1 - 0.10)), round(steady_us * 1000) - 2 * 2000)
    assert abs(int(row["time_at_stake_ns"]) - expected) <= 1  # 1.13 ms, not 388.15 ms
    assert "counted at the others' median" in row["next_steps"][0]
    # without a one-off launch the stake is over the whole time, as before: 100 + 120 µs × 0.9
    row = gpulens.analyze([_ncu_csv(tmp_path / "k2.csv", [100.0, 120.0])]).sources[0].results["verdicts"].table.iloc[0]
    assert abs(int(row["time_at_stake_ns"]) - round(220_000 * 0.9)) <= 1


def test_the_step_pointer_names_the_finding_it_points_to():
    """A child's pointer says which finding holds the step (a new user read 'The next step of the finding it
    details, above.' as an unfilled template): under a kernel's verdict, that verdict; else the parent's title."""
    from gpulens.analyzers import Finding
    from gpulens.analyzers._tree import same_step

    verdict = Finding("k: below-roofs", "", key="kernel:k", action="Pad N to 64.")
    assert same_step(verdict) == "The same next step as the finding above: this kernel's verdict."
    idle = Finding("GPU idle 54.0 % of the span.", "", key="idle", action="Start with the host.")
    assert same_step(idle) == "The same next step as the finding above (“GPU idle 54.0 % of the span”)."
