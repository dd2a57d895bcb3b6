"""Session 45: the run-level verdict and the order of findings, as a fresh user read them.

1. An overhead cause with too little evidence to be judged (an idle cause seen in fewer than 3 gaps and under half
   the span) no longer stops a GPU-side verdict it would lose anyway: the README defines gpu-bound as "the GPU
   computes more than any overhead costs", which holds whether that cause were proven or not (nsys lashi
   streamSimple: 10.14 µs of launch idle from 2 gaps, 13.2 %, against 82.0 % computing read "undetermined").
2. Host-only time outside the GPU span (start-up, teardown), which the verdict does not judge, ranks after the
   workload's findings (HTA AlexNet: "30.51 s Host-only time outside the GPU span" was finding #1).
3. The verdict line leads with the answer — the class with a short badge, the share that proves it and its time at
   stake — and the rest goes to a "Detail" line, the same in console, Markdown and HTML.

Inputs are built here; expected figures are hand calculations written beside them.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import gpulens
from gpulens.analyzers._run_shares import scope_label, unproven_loses
from gpulens.analyzers._tree import rank_key
from gpulens.analyzers.base import Finding
from gpulens.reports import console, html, markdown
from gpulens.reports._answer import answer, root_findings, top_findings
from tests.conftest import shared_trace


def _kineto(tmp_path, n: int, dur: int = 10, host_before: int = 0):
    """:func:`tests.test_trust_first_screen._kineto`'s trace (``n`` kernels of ``dur`` µs starting 14 µs apart from
    t = 1000 µs, each launched by a 2 µs call ending 1 µs before it: gaps under 20 µs before work not yet enqueued,
    launch overhead); with ``host_before`` > 0 its events move host_before + 20 µs later, after a CPU op of that
    length from t = 1000 µs (host-only time before the GPU span: host_before + 20 µs)."""
    from tests.test_trust_first_screen import _kineto as base

    p = base(tmp_path, n, dur)
    if host_before:
        doc = json.loads(p.read_text())
        for e in doc["traceEvents"]:
            e["ts"] += host_before + 20
        doc["traceEvents"].insert(0, {"ph": "X", "cat": "cpu_op", "name": "aten::setup", "pid": 9, "tid": 9,
                                      "ts": 1000, "dur": host_before})
        p = p.with_name(f"{p.stem}_host{host_before}.json")
        p.write_text(json.dumps(doc))
    return p


def _verdict_lines(rep) -> tuple[str, str, str]:
    """The verdict line of the console, Markdown and HTML reports of ``rep``'s first source."""
    con = next(ln for ln in console.render(rep, width=2000).splitlines() if ln.startswith("Verdict: "))
    md = next(ln for ln in markdown.render(rep).splitlines() if ln.startswith("> **Verdict:**"))
    page = html.render(rep)
    page = page.decode() if isinstance(page, bytes) else page
    ht = re.search(r'<div class="verdict">(.*?)</div>', page, re.S).group(1)
    return con, md, ht


# 1. thin overhead evidence against a busier GPU ---------------------------------------------------------------

def test_two_thin_launch_gaps_smaller_than_the_computing_make_a_gpu_bound_run(tmp_path):
    # 3 kernels of 10 µs, 14 µs apart: span 3 × 10 + 2 × 4 = 38 µs; launch idle 2 × 4 = 8 µs (21.1 %, 2 gaps: too
    # few to prove a cause) against 30 µs computing (78.9 %): even proven, the launch cause would lose — gpu-bound
    src = gpulens.analyze([_kineto(tmp_path, 3)]).sources[0]
    bn = src.results["bottlenecks"].summary
    assert (bn["idle_launch_ns"], bn["computation_ns"], bn["device_span_ns"]) == (8_000, 30_000, 38_000)
    assert bn["verdict"] == "undetermined" and "only 2 gaps" in bn["verdict_evidence"]  # the overhead stays unjudged
    vd = src.results["verdicts"].summary
    assert vd["run_verdict"] == "gpu-bound"
    assert vd["secondary_cause"] is None  # an unproven cause is never named as the secondary cause
    assert "too little evidence to name a secondary cause" in vd["basis"]
    assert f"computing holds more ({100 * 30 / 38:.1f} % of the span)" in vd["basis"]
    con, md, ht = _verdict_lines(gpulens.analyze([_kineto(tmp_path, 3)]))
    assert con.startswith("Verdict: gpu-bound — ") and md.startswith("> **Verdict:** gpu-bound — ")
    assert '<span class="vlabel">gpu-bound</span>' in ht


def _bn(**s):
    base = {"verdict": "undetermined", "min_share": 0.1, "device_span_ns": 100_000,
            "verdict_evidence": "40.00 µs of launch idle (40.0 % of the span) comes from only 2 gaps"}
    return SimpleNamespace(skipped=False, summary={**base, **s})


def test_a_thin_cause_larger_than_the_computing_leaves_the_run_undetermined():
    # launch idle 40 µs of a 100 µs span (2 gaps) against 35 µs computing: proven, it would be the verdict — no
    # verdict either way; against 60 µs computing it would lose: the GPU-side verdict stands
    assert unproven_loses(_bn(idle_launch_ns=40_000, computation_ns=35_000)) is None
    assert unproven_loses(_bn(idle_launch_ns=40_000, computation_ns=40_000)) is None  # a tie: the cause may win
    words = unproven_loses(_bn(idle_launch_ns=40_000, computation_ns=60_000))
    assert words.startswith("too little evidence to name a secondary cause: 40.00 µs of launch idle")
    assert words.endswith("computing holds more (60.0 % of the span)")
    # the largest cause decides, as in bottlenecks: a smaller one never stands in for it
    assert unproven_loses(_bn(idle_launch_ns=20_000, idle_host_ns=45_000, computation_ns=35_000)) is None
    # not undetermined, or computing not measured: nothing to say
    assert unproven_loses(_bn(verdict="launch-bound", idle_launch_ns=40_000, computation_ns=60_000)) is None
    assert unproven_loses(_bn(idle_launch_ns=40_000, computation_ns=None)) is None


def test_lashi_stream_simple_is_gpu_bound_with_its_thin_launch_idle_named():
    # SOURCES.md: 16 kernels within 76,929 ns; 2 launch gaps (10.14 µs, 13.2 %) against 82.0 % busy
    src = gpulens.analyze([shared_trace("nsys/lashi_rtx4090_streamSimple.sqlite")]).sources[0]
    vd = src.results["verdicts"].summary
    assert src.results["bottlenecks"].summary["verdict"] == "undetermined"
    assert vd["run_verdict"] == "gpu-bound" and vd["secondary_cause"] is None
    assert "only 2 gaps" in vd["basis"] and vd["outside_span"]["before_ns"] > 50_000_000
    a = answer(src)
    assert a.verdict == "gpu-bound" and "GPU idle" in top_findings(src.findings())[0].title
    assert "75.94 ms of host-only time outside the GPU span" in a.path_note


# 2. host-only time outside the GPU span ranks after the workload's findings ---------------------------------------

def test_outside_span_findings_rank_after_the_workloads_whatever_their_size():
    outside = Finding("Host-only time outside the GPU span: 30.51 s", category="host-only-window",
                      time_at_stake_ns=30_510_000_000)
    measured = Finding("GPU idle", category="gpu-idle", time_at_stake_ns=1_000)
    premised = Finding("Last wave", category="occupancy", time_at_stake_ns=2_000, premise="if it is not memory-bound")
    unknown = Finding("No gain known", category="occupancy", time_at_stake_ns=None)
    assert sorted([outside, unknown, premised, measured], key=rank_key) == [measured, premised, outside, unknown]


def test_host_only_start_up_is_listed_after_the_idle_inside_the_span_in_every_report(tmp_path):
    # a 1,000 µs CPU op, then 6 kernels of 10 µs 14 µs apart from 20 µs after it: GPU span 6 × 10 + 5 × 4 = 80 µs
    # with 5 × 4 = 20 µs of launch idle; 1,000 + 20 = 1,020 µs of host-only time before the span (92.7 % of the
    # 1,100 µs window) — 51 times the idle, yet ranked after it
    rep = gpulens.analyze([_kineto(tmp_path, 6, host_before=1000)])
    src = rep.sources[0]
    assert src.summary["span_ns"] == 80_000
    roots = [f for f in root_findings(src.findings()) if f.time_at_stake_ns]
    cats = [f.category for f in roots]
    assert "host-only-window" in cats and cats.index("gpu-idle") < cats.index("host-only-window")
    window = next(f for f in roots if f.category == "host-only-window")
    assert window.time_at_stake_ns == 1_020_000 and "1.02 ms (92.7 % of the profiled window)" in window.title
    assert [f.category for f in top_findings(src.findings())][:2] == ["gpu-idle", "host-only-window"]
    con = console.render(rep, width=2000)
    md = markdown.render(rep)
    for text in (con, md):
        assert text.index("GPU idle 25.0 % of its span") < text.index("Host-only time outside the GPU span")
    # the critical path, walked over the whole 1,100 µs window, runs through that start-up: said so, not as a rival
    # reading of the verdict
    assert answer(src).path_note.endswith("mostly the 1.02 ms of host-only time outside the GPU span (start-up, "
                                          "teardown), which the verdict does not judge.")


# 3. the verdict line leads with the answer; the rest is the detail, the same in every report ---------------------

def test_scope_badge_is_short_and_the_figures_stay_in_the_summary():
    assert scope_label("judged on the steady state: 11.09 ms, 12.2 % of the span") == "steady state"
    assert scope_label("judged on the span less a one-off gap: 2.89 s, 22.3 % of the span") == "one-off gap left out"
    assert scope_label("judged on the span less one-off gaps: 2.89 s, 22.3 % of the span") == "one-off gaps left out"
    assert scope_label("something else") == "something else"


def test_the_detail_holds_what_the_headline_leaves_out_in_every_report(tmp_path):
    rep = gpulens.analyze([_kineto(tmp_path, 6, host_before=1000)])
    a = answer(rep.sources[0])
    # the start-up outside the span is no part of the answer: it is the detail
    assert "outside the GPU span" not in a.headline and a.detail.startswith("outside the GPU span, not judged")
    assert a.sentence == a.short_sentence[:-1] + f"; {a.detail}."  # the whole sentence keeps both, in order
    con, md, ht = _verdict_lines(rep)
    assert con == f"Verdict: {a.verdict} — {a.headline}."
    assert md == f"> **Verdict:** {a.verdict} — {a.headline}."  # the console's form (s49)
    assert a.headline[:1].upper() + a.headline[1:] + "." in ht
    page = html.render(rep)
    page = page.decode() if isinstance(page, bytes) else page
    assert f"Detail: {a.detail}." in console.render(rep, width=2000)
    assert f"> **Detail:** {a.detail}." in markdown.render(rep)
    assert "<summary><strong>Detail</strong></summary>" + a.detail.replace("'", "&#x27;") + ".</details>" in page


def test_alexnet_headline_leads_with_the_host_share_and_its_stake():
    # HTA AlexNet (A100): 2.82 s of the GPU waiting for the host, 97.6 % of the 2.89 s judged (a 10.03 s one-off gap
    # left out); the start-up set-up calls and the 30.43 s before the span are the detail
    rep = gpulens.analyze([shared_trace("kineto/hta_alexnet_a100.json.gz")])
    a = answer(rep.sources[0])
    assert a.verdict == "host-bound (one-off gap left out)"
    # the stake once the 2.68 s of one-off set-up calls are done leads (s46: tests/test_trust_s46_w2dash.py)
    # s50: the share on the stake's basis, the set-up left out of both (139.81 / 2,886.52 ms = 4.8 %)
    assert a.headline.startswith("139.81 ms at stake in steady state from this cause alone: the host-bound share is "
                                 "the largest (139.81 ms, 4.8 % of the steady span)")
    assert "left out: 2.68 s of one-off set-up calls in the host wait" in a.headline
    assert "set-up calls" in a.detail and "outside the GPU span" in a.detail
    con, md, _ = _verdict_lines(rep)
    # was 600 characters; the s46 headline's split of the stake (139.81 ms in steady state, 2.68 s one-off set-up)
    # adds about 80: 376 then; s50q's share on the stake's basis ("139.81 ms" for "2.82 s") 3 more
    assert len(con) < 410 and len(md) < 410
    tops = [f.category for f in top_findings(rep.sources[0].findings())]
    assert "host-only-window" not in tops[:1]
