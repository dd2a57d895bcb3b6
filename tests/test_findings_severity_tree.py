"""A finding is at least as severe as any finding under it in the findings tree (fresh-user walk: the demo's
layer-norm verdict was ``info`` above two ``warning`` children, a rocprof run's 22 % idle root ``info`` above a
``warning`` child)."""

from __future__ import annotations

from gpulens.analyzers import AnalysisResult, Finding
from gpulens.analyzers._tree import arrange, cap_children

LEVEL = {"info": 0, "warning": 1, "critical": 2}


def _f(title, severity, key=None, parent=None, kernel=None, stake=100):
    return Finding(title=title, severity=severity, category="x", detail="", key=key, parent=parent, kernel=kernel,
                   time_at_stake_ns=stake)


def test_parents_are_raised_to_their_most_severe_descendant():
    verdict = _f("verdict k", "info", key="kernel:k", kernel="k")
    # linked to the verdict by its kernel, no explicit parent; its own estimate (50 ns), not the verdict's figure (s36:
    # a child showing its parent's very figure is rated as the parent is and never raises it)
    occ = _f("occupancy of k", "warning", kernel="k", stake=50)
    idle = _f("idle", "info", key="idle")
    host = _f("idle/host", "warning", key="idle/host", parent="idle", stake=60)  # a part of the idle, as in reports
    deep = _f("idle/host/x", "critical", parent="idle/host", stake=30)
    other = _f("other root", "info", key="other")
    leaf = _f("other's child", "info", parent="other")
    results = {"a": AnalysisResult(analyzer="a", findings=[verdict, idle, other]),
               "b": AnalysisResult(analyzer="b", findings=[occ, host, deep, leaf])}
    cap_children(results)
    # hand-derived: each parent takes the highest severity below it; children and unrelated findings keep theirs
    assert verdict.severity == "warning" and occ.severity == "warning"
    assert idle.severity == "critical" and host.severity == "critical" and deep.severity == "critical"
    assert other.severity == "info" and leaf.severity == "info"


def test_no_parent_below_a_child_in_the_demo_report():
    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze

    s = analyze([demo_trace_path()]).sources[0]
    tree = arrange(s.findings())
    by_key = {f.key: f for f in tree if f.key}
    pairs = [(by_key[f.parent], f) for f in tree if f.parent in by_key]
    assert pairs  # the demo has nested findings
    assert all(LEVEL[p.severity] >= LEVEL[c.severity] for p, c in pairs), \
        [(p.title[:40], p.severity, c.title[:40], c.severity) for p, c in pairs if LEVEL[p.severity] < LEVEL[c.severity]]


def test_a_wave_finding_under_a_fuse_first_verdict_says_it_comes_after_the_fusion():
    """The demo's layer-norm verdict asks to fuse its launches first (each runs shorter than its launch call, so
    "more blocks per launch alone would not pay back the launch"); the wave finding under it asked for more blocks
    with no word of that (fresh-user walk: read as contradictory advice). It now says it comes after the fusion;
    wave findings of kernels whose verdict does not ask to fuse are unchanged."""
    from gpulens.analyzers._occ_findings import AFTER_FUSION
    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze

    s = analyze([demo_trace_path()]).sources[0]
    vt = s.results["verdicts"].table
    fuse_first = {str(r["name"]) for r in vt.to_dict("records")
                  if r["next_steps"] is not None and len(r["next_steps"]) and "fuse it" in r["next_steps"][0]}
    assert any("layer_norm" in n for n in fuse_first)
    waves = [f for f in s.findings() if (f.key or "").endswith("/waves")]
    assert waves and any(f.kernel in fuse_first for f in waves)
    for f in waves:
        assert f.action.startswith(AFTER_FUSION) == (f.kernel in fuse_first), (f.kernel, f.action[:80])


def test_the_idle_tables_say_which_columns_are_busy_time():
    """The per-GPU idle table carries two busy-time columns (exposed communication, small-grid kernels) beside the
    idle split; the console and HTML said nothing of it (fresh-user walk: read as idle causes). The demo's idle
    causes add up to its idle time and the small-grid column is not part of it: both reports say so."""
    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze
    from gpulens.reports import console, html

    rep = analyze([demo_trace_path()])
    t = rep.sources[0].results["bottlenecks"].table
    row = t.iloc[0]
    causes = [c for c in t.columns if c.startswith("idle_") and c.endswith("_ns") and c != "idle_ns"]
    assert sum(int(row[c] or 0) for c in causes) == int(row["idle_ns"])  # the causes are the idle time
    assert row["small_grid_ns"] > 0  # and the small-grid time is beside it
    text = " ".join(console.render(rep).split())
    assert "exposed comm and small-grid kernels are busy time, shown beside it" in text
    assert "busy time beside the idle split" in html.render(rep)


def test_the_steps_summary_names_step_numbers_apart_from_the_step_count():
    """The steps summary's ``steps`` holds the ProfilerStep numbers, shown as "steps 6" beside "step count 1"
    (fresh-user walk); it reads "step numbers (ProfilerStep#N)". The numbers come from the trace's annotations."""
    import gzip
    import json
    import re

    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze
    from gpulens.reports import html

    with gzip.open(demo_trace_path(), "rt") as fh:
        names = {e.get("name", "") for e in json.load(fh)["traceEvents"]}
    numbers = sorted({int(m.group(1)) for n in names if (m := re.fullmatch(r"ProfilerStep#(\d+)", str(n)))})
    assert numbers
    page = html.render(analyze([demo_trace_path()]))
    shown = ", ".join(str(n) for n in numbers)
    assert f'<th scope="row">step numbers (ProfilerStep#N)</th><td>{shown}</td>' in page
    assert f'<th scope="row">step count</th><td>{len(numbers)}</td>' in page


def test_the_shape_tables_peak_is_labelled_datasheet_peak_apart_from_the_roofline_roof():
    """The kernel page showed "compute roof 795.00 TFLOP/s" (the roofline's achievable BF16 roof of an H100) and, in
    the GEMM-shapes box, "compute roof 989.40 TFLOP/s" (the datasheet's dense BF16 peak: NVIDIA H100 SXM datasheet,
    989.4 TFLOPS) with no word of which is which (fresh-user walk). The shape tables' figure reads "datasheet peak"
    and its share "% of datasheet peak"; the roofline's keeps "compute roof"."""
    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze
    from gpulens.reports import html
    from gpulens.reports._format import column_label

    s = analyze([demo_trace_path()]).sources[0]
    g, r = s.results["gemm_shapes"], s.results["roofline"]
    assert column_label("peak_flops_per_s", g.columns["peak_flops_per_s"]) == "datasheet peak"
    assert column_label("peak_pct", g.columns["peak_pct"]) == "% of datasheet peak"
    assert column_label("peak_flops_per_s", r.columns["peak_flops_per_s"]) == "compute roof"
    assert set(g.table["peak_flops_per_s"].round(-11)) == {9.894e14}
    page = html.render(analyze([demo_trace_path()]))
    assert "datasheet peak" in page and "989.40 TFLOP/s" in page


def test_the_kernel_time_line_names_the_gpu_busy_time_beside_the_kernels():
    """Two busy figures were shown without saying which (fresh-user walk): the key figures' "307.20 µs busy
    (union)" (kernels) and the verdict table's GPU busy 309.44 µs (kernels + the demo's memcpy). The kernel line
    now gives both. Expected from the trace: the union of the kernels' intervals, and of every GPU event's."""
    import gzip
    import json

    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze
    from gpulens.reports import console
    from gpulens.reports._format import fmt_ns

    def union(iv):
        total, end = 0.0, None
        for s, e in sorted(iv):
            if end is None or s > end:
                total += e - s
                end = e
            elif e > end:
                total += e - end
                end = e
        return total

    with gzip.open(demo_trace_path(), "rt") as fh:
        ev = [e for e in json.load(fh)["traceEvents"] if e.get("ph") == "X"]
    kern = [(e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("cat") == "kernel"]
    gpu = [(e["ts"], e["ts"] + e["dur"]) for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    k_ns, g_ns = round(union(kern) * 1000), round(union(gpu) * 1000)
    assert g_ns > k_ns
    text = " ".join(console.render(analyze([demo_trace_path()])).split())
    assert f"{fmt_ns(k_ns)} busy (union) (GPU busy with copies and memsets: {fmt_ns(g_ns)})" in text


def test_cpu_ops_flop_figures_say_they_are_the_profilers_own():
    """"ops with flops 0, total flops unknown" read against the roofline's FLOPs known for all critical time
    (estimated from input shapes) as a contradiction (fresh-user walk). The CPU-op figures are the profiler's own
    counts (torch.profiler with_flops), and say so. The demo trace records none: no cpu_op event has a flops arg."""
    import gzip
    import json

    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze
    from gpulens.reports import html

    with gzip.open(demo_trace_path(), "rt") as fh:
        ev = json.load(fh)["traceEvents"]
    assert not [e for e in ev if e.get("cat") == "cpu_op" and "flops" in (e.get("args") or {})]
    page = html.render(analyze([demo_trace_path()]))
    assert '<th scope="row">ops with FLOPs recorded by the profiler (with_flops)</th><td>0</td>' in page
    assert '<th scope="row">ops with flops</th>' not in page


def test_host_idle_advice_of_a_trace_without_framework_ops_does_not_name_ops():
    """The nvFuser H200 nsys export (tests/data/nvidia) records runtime calls and NVTX ranges but no framework op;
    its critical path is held by host-idle gaps and the step said "look for data loading or Python outside the
    ops" (fresh-user walk: the input has no ops). It now says the ops are not recorded and how to record them; a
    trace with ops (the demo) keeps the old step."""
    from pathlib import Path

    from gpulens.cli.analyze import demo_trace_path
    from gpulens.report import analyze

    f = Path(__file__).parent / "data" / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"
    s = analyze([f]).sources[0]
    assert not (s.timeline.events["kind"].astype(str) == "cpu_op").any()
    cp = s.results["critical_path"]
    assert cp.summary["top_class"] == "host_idle"
    assert "records no framework ops" in cp.findings[0].action and "outside the ops" not in cp.findings[0].action
    d = analyze([demo_trace_path()]).sources[0]
    assert d.results["critical_path"].summary["top_class"] == "host_idle"
    assert "data loading or Python outside the ops" in d.results["critical_path"].findings[0].action


def test_a_capped_time_at_stake_says_what_it_is_capped_to():
    """A child's time at stake is capped at its parent's; its text then says so, with both figures, once — however
    many ancestors cap it (fresh-user walk: "… hold 90 % of the step time" beside 2.57 ms at stake read as a
    contradiction of the 81.00 ms the finding describes)."""
    idle = _f("idle", "warning", key="idle", stake=2_570_000)
    mid = _f("idle/host", "warning", key="idle/host", parent="idle", stake=5_000_000)
    path = _f("critical path", "info", key="critical_path", parent="idle/host", stake=81_000_000)
    free = _f("within", "info", key="within", parent="idle", stake=1_000_000)
    cap_children({"a": AnalysisResult(analyzer="a", findings=[idle, mid, path, free])})
    assert path.time_at_stake_ns == 2_570_000 and mid.time_at_stake_ns == 2_570_000
    assert path.detail.count("At stake:") == 1
    assert "At stake: 2.57 ms of the 81.00 ms described" in path.detail  # the time first described, not 5 ms
    assert "At stake: 2.57 ms of the 5.00 ms described" in mid.detail
    # any parent-child pair is capped, not only idle causes: the sentence names no idle time
    assert "idle" not in path.detail and "idle" not in mid.detail
    assert free.time_at_stake_ns == 1_000_000 and "At stake" not in free.detail  # under its parent: unchanged
