"""Session 50: a host-bound verdict whose host wait is mostly one-off set-up calls leads with its time at stake in
steady state and names what it leaves out once, in one "left out" clause — the nsys fuser H200 headline said two
exclusions in two places (set-up calls after the stake, the warm-up gap after the busy share) and its idle finding
five ms figures before its stake. The idle finding says the same: its stake, its causes (adding up to the stake: the
host wait less the set-up calls) and one "left out" clause naming both one-off parts.

Expected values are worked out by hand from the hand-made trace below (or read from the shared nsys trace's
bottlenecks figures, whose derivation tests/test_idle_stake.py checks against the SQLite rows).
"""

from __future__ import annotations

import json
import re

import gpulens
from gpulens.reports import console, html, json_report, markdown
from gpulens.reports._answer import answer
from gpulens.reports._format import fmt_ns
from tests.conftest import shared_trace
from tests.test_idle_stake import _write as write_events, setup_gap_events


def _trace(tmp_path):
    """8 kernels of 10 µs, each launched by a 5 µs cudaLaunchKernel that follows 40 µs of cudaMalloc (set-up), the
    kernel starting 5 µs after its call ends; before kernel 5 the host runs 4,985 µs of cudaMalloc (a one-off stall).
    Gaps between kernels: 40 + 5 + 5 = 50 µs (six of them) and 5,000 µs (one).

    By hand: span 8 × 10 + 6 × 50 + 5,000 = 5,380 µs; the 5,000 µs gap is the one-off gap the verdict leaves out, so
    the steady span is 380 µs, 300 µs of it the GPU waiting for the host (78.9 %), 80 µs busy (21.1 %; 80 / 5,380 =
    1.5 % of the whole span). Of each 50 µs host wait 40 µs is cudaMalloc: 240 µs one-off set-up, 60 µs at stake."""
    return write_events(tmp_path, setup_gap_events())  # the same hand-made run as test_idle_stake's one-off gap test


def test_stake_leads_and_one_clause_names_both_one_off_parts(tmp_path):
    rep = gpulens.analyze([_trace(tmp_path)])
    s = rep.sources[0]
    a = answer(s)
    # s50q: the share that chooses the verdict leaves the set-up out as the stake does: 60 µs (15.8 %) of host wait
    # against 80 µs (21.1 %) computing no longer makes the run host-bound by its share; the host holds the steps'
    # critical path (300 of its 380 µs, 78.9 %: each step's cudaMalloc and launch before its kernel), which does
    want = ("GPU was busy 21.1 % of the 380.00 µs steady span (busy 1.5 % of its whole 5.38 ms span); left out: "
            "240.00 µs of one-off set-up calls in the host wait (once per run, not per step) and the 5.00 ms "
            "warm-up/one-off idle gap, but the host holds 78.9 % of the steps' critical path")
    assert a.headline.startswith("the " + want), a.headline  # "The GPU …" where a reporter starts a sentence
    # each one-off part named once in the headline: never the old second place ("the other 240.00 µs being …",
    # "outside the 5.00 ms warm-up/one-off idle gap the verdict leaves out")
    assert a.headline.count("240.00 µs") == 1 and a.headline.count("5.00 ms") == 1
    assert "left out" not in a.headline.replace("; left out: ", "", 1)
    # one sentence in every reporter: console, Markdown, the HTML banner and the JSON answer
    con = " ".join(console.render(rep, width=400).split())
    assert " ".join(want.split()) in con
    assert want in markdown.render(rep).replace("\\", "")
    page = html.render(rep)
    page = page.decode() if isinstance(page, bytes) else page
    from html import unescape  # the steps' apostrophe: &#39; or &#x27;

    assert want in unescape(re.sub(r"<[^>]+>", "", page))
    js = json.loads(json_report.render(rep))["sources"][0]["answer"]
    assert want in js["headline"]


def test_idle_finding_gives_its_stake_causes_and_one_left_out_clause(tmp_path):
    s = gpulens.analyze([_trace(tmp_path)]).sources[0]
    root = next(f for f in s.findings() if f.key == "idle")
    # by hand (see _trace): 6 × (50 − 40) µs at stake, all of it waiting for the host; 240 µs + the 5 ms gap left out
    assert root.time_at_stake_ns == 60_000
    assert root.title == ("GPU idle in steady state: 60.00 µs at stake (every idle cause) — by cause: 60.00 µs "
                          "waiting for the host; left out, as by the verdict: 240.00 µs of one-off set-up calls in the "
                          "host wait (once per run, not per step) and 5.00 ms in a single one-off gap (warm-up, tail "
                          "or a stall: profiling-window note)")


def test_without_set_up_calls_the_steady_wording_is_unchanged(tmp_path):
    """The same trace with cudaEventQuery (no set-up call) in place of cudaMalloc: nothing of the host wait is
    one-off, so the stake is the whole steady host wait (300 µs) and the one-off gap keeps its own clause."""
    p = _trace(tmp_path)
    p.write_text(p.read_text().replace("cudaMalloc", "cudaEventQuery"))
    s = gpulens.analyze([p]).sources[0]
    head = answer(s).headline
    assert "300.00 µs at stake from this cause alone" in head and "set-up" not in head
    assert "outside the 5.00 ms warm-up/one-off idle gap the verdict leaves out" in head
    root = next(f for f in s.findings() if f.key == "idle")
    # 300 of the 380 µs steady span idle (78.9 %), 300 / 5,380 µs = 5.6 % of the whole span
    assert root.time_at_stake_ns == 300_000 and root.title.startswith(
        "GPU idle 78.9 % of the 380.00 µs outside the one-off gap (300.00 µs; 5.6 % of its whole 5.38 ms span): "
        "300.00 µs waiting for the host; 5.00 ms in a single one-off gap left out")


def test_fuser_h200_headline_leads_with_the_steady_stake():
    path = shared_trace("nsys/fuser_h200_nsys2024.6_report1.sqlite")  # skips without ../shared
    s = gpulens.analyze([path]).sources[0]
    bn = s.results["bottlenecks"].summary
    host, setup = bn["idle_host_ns"], bn["idle_host_setup_ns"]
    assert setup >= 0.5 * host  # the trace's set-up calls (cuLibraryLoadData, lazy-loading launches) fill most of it
    head = answer(s).headline
    gap = sum(g["dur_ns"] for g in bn["boundary_gaps"])
    assert head.startswith(f"{fmt_ns(host - setup)} at stake in steady state from this cause alone")
    assert head.endswith(f"; left out: {fmt_ns(setup)} of one-off set-up calls in the host wait (once per run, not "
                         f"per step) and the {fmt_ns(gap)} warm-up/one-off idle gap")
    root = next(f for f in s.findings() if f.key == "idle")
    # its causes add up to its stake (rounded figures: each within 10 ns of the summed nanoseconds)
    causes = re.search(r"by cause: (.*?); left out", root.title).group(1)
    assert root.title.startswith(f"GPU idle in steady state: {fmt_ns(root.time_at_stake_ns)} at stake")
    assert f"{fmt_ns(host - setup)} waiting for the host" in causes
    assert root.title.count(fmt_ns(setup)) == 1 and root.title.count(fmt_ns(gap)) == 1


def test_causes_are_ranked_by_their_steady_time_and_the_step_starts_with_the_largest():
    """tests/data/rocprof/rpd_matmul (MI300X, rocm rpd): 28.53 ms waiting for the host, 27.20 ms of it set-up calls
    (lazy code loading in hipLaunchKernel, hipMalloc), beside 13.16 ms of launch overhead and 870.70 µs of blocking
    syncs. In steady state the launch overhead is the largest cause: the title lists it first and the next step starts
    with it (it said "Start with the largest cause, 28.53 ms waiting for the host" under a title whose host figure was
    1.33 ms). The causes add up to the stake."""
    from tests.conftest import DATA

    s = gpulens.analyze([DATA / "rocprof" / "rpd_matmul"]).sources[0]
    bn = s.results["bottlenecks"].summary
    steady_host = bn["idle_host_ns"] - bn["idle_host_setup_ns"]
    assert bn["idle_launch_ns"] > steady_host and bn["idle_host_ns"] > bn["idle_launch_ns"]  # the case's premise
    root = next(f for f in s.findings() if f.key == "idle")
    assert root.time_at_stake_ns == steady_host + bn["idle_launch_ns"] + bn["idle_sync_ns"]
    assert (f"by cause: {fmt_ns(bn['idle_launch_ns'])} on launch overhead, {fmt_ns(steady_host)} waiting for the host, "
            f"{fmt_ns(bn['idle_sync_ns'])} with the host blocked") in root.title
    assert root.action.startswith(f"Start with the largest cause, {fmt_ns(bn['idle_launch_ns'])} on launch overhead")


def test_a_host_wait_that_still_leads_names_its_steady_and_whole_time(tmp_path):
    """The hand-made trace of this file: the host wait is the only cause: 60 µs in steady state, 300 µs with the
    240 µs of cudaMalloc — the step gives both, the title's figure first."""
    s = gpulens.analyze([_trace(tmp_path)]).sources[0]
    root = next(f for f in s.findings() if f.key == "idle")
    assert root.action.startswith("Start with the largest cause, waiting for the host (60.00 µs in steady state, "
                                  "300.00 µs with its one-off set-up calls) over 6 gaps")


def test_a_host_wait_mostly_set_up_is_weighed_without_it_as_a_secondary_cause():
    """rpd matmul: 28.53 ms of host wait, 27.20 ms of it set-up calls — the secondary cause read "host-bound (12.6 %
    of the steady span)" beside an idle finding counting 1.33 ms of host wait at stake. On the stake's basis (s50q) the
    host wait is 1.33 ms, 0.6 % of the 226.49 ms steady span, under the 10 % floor; computing (26.40 ms, 11.7 %) is
    the runner-up."""
    from tests.conftest import DATA

    s = gpulens.analyze([DATA / "rocprof" / "rpd_matmul"]).sources[0]
    bn, vd = s.results["bottlenecks"].summary, s.results["verdicts"].summary
    steady = bn["idle_host_ns"] - bn["idle_host_setup_ns"]
    assert bn["idle_host_setup_ns"] >= 0.5 * bn["idle_host_ns"] and steady < 0.1 * bn["steady_span_ns"]  # premise
    assert bn["computation_ns"] >= 0.1 * bn["steady_span_ns"]
    assert vd["secondary_cause"] == "gpu-bound" and vd["secondary_host_setup"] is None
    pct = 100 * bn["computation_ns"] / bn["steady_span_ns"]
    assert answer(s).detail == f"GPU computing is the secondary share ({pct:.1f} % of the steady span)"
