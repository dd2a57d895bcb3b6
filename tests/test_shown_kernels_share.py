"""The kernel-verdict rows (HTML banner, console, Markdown) follow the findings' order — largest time at stake
first — and the sentence naming them says that order and the whole critical set's share of kernel time — derived
here from the trace's kernel durations (the demo trace has no concurrent kernels, so a kernel's effective time is
its summed duration) and from the verdicts table by a plain loop (session 46: the rows were by GPU time)."""

import re

from gpulens.cli.analyze import demo_trace_path
from gpulens.collectors import collect
from gpulens.report import analyze
from gpulens.reports._answer import critical_shown_text, verdict_rows
from gpulens.reports._html_answer import ANSWER_KERNELS, kernels_html, kernel_rows


def _shares():
    ev = collect(demo_trace_path()).events
    k = ev[ev["kind"].astype(str) == "kernel"]
    per = k.groupby(k["name"].astype(str))["dur_ns"].sum().sort_values(ascending=False)
    return (per.cumsum() / per.sum()).to_numpy()


def _by_stake(s):
    """The verdict rows by time at stake, largest first, ties and unknown stakes in GPU-time order — derived here
    by a plain loop over the verdicts table (the demo's critical kernels all have a stake)."""
    rows = list(enumerate(s.results["verdicts"].table.to_dict("records")))
    return [r for _, r in sorted(rows, key=lambda ir: (-ir[1]["time_at_stake_ns"], ir[0]))]


def test_rows_are_ranked_by_time_at_stake_so_a_cut_hides_no_larger_stake():
    s = analyze([demo_trace_path()]).sources[0]
    vt = s.results["verdicts"].table
    stake = list(vt["time_at_stake_ns"])
    # the demo trace: #6 by GPU time has more at stake than #5 (hand-checked: 16.5 µs vs 10.9 µs), and #3 more
    # than #2 (29.41 vs 29.32 µs): by GPU time the banner's top 5 hid the 6th's larger stake
    assert stake[5] > stake[4] and stake[2] > stake[1]
    want = [r["name"] for r in _by_stake(s)]
    for n in range(1, len(vt) + 1):
        shown, cut = verdict_rows(s, n)
        assert list(shown["name"]) == want[:n]
        assert "not shown" not in cut  # nothing left out has more at stake than a row shown
    assert want[1] == vt["name"].iloc[2] and want[4] == vt["name"].iloc[5]


def test_banner_states_the_share_of_the_kernels_shown_and_of_all_critical_ones():
    s = analyze([demo_trace_path()]).sources[0]
    n_crit = s.results["hotspots"].summary["critical_count"]
    assert n_crit > ANSWER_KERNELS  # the banner shows only some of them
    cum = _shares()
    html = kernels_html(s, kernel_rows(s))
    head = re.search(r'<h3 class="kh">([^<]*)</h3>', html).group(1)
    # the order said, then which rows: never a share of the rows shown (the table's cumulative share is in GPU-time
    # order, which the rows no longer follow), the whole critical set's share
    assert head == (f"Kernels that matter, largest time at stake first (the top {ANSWER_KERNELS} of {n_crit} "
                    f"critical kernels; all {n_crit}: {100 * cum[n_crit - 1]:.1f} % of kernel time)")
    for n in (1, 3):
        assert critical_shown_text(s, n) == (f"the top {n} of {n_crit} critical kernels; all {n_crit}: "
                                             f"{100 * cum[n_crit - 1]:.1f} % of kernel time")
    assert critical_shown_text(s, n_crit) == (f"the {n_crit} critical kernels, which cover "
                                              f"{100 * cum[n_crit - 1]:.1f} % of kernel time")
    # the verdicts table carries the figure: its cumulative share at row n
    vt = s.results["verdicts"].table
    assert abs(vt["cumulative_share"].iloc[n_crit - 1] - cum[n_crit - 1]) < 1e-9


def test_markdown_names_the_rows_shown_the_same_way():
    from gpulens.reports.markdown import _verdict_section

    s = analyze([demo_trace_path()]).sources[0]
    cum = _shares()
    n_crit = s.results["hotspots"].summary["critical_count"]
    md = _verdict_section(s, s.results["verdicts"], 2)
    from gpulens.reports.markdown import md_text

    assert ("_Shown: " + md_text(f"the top 2 of {n_crit} critical kernels; all {n_crit}: "
                                 f"{100 * cum[n_crit - 1]:.1f} % of kernel time", 400) + "._") in md
    assert md.startswith("### Kernel verdicts (largest time at stake first)")
    # its rows: the two largest stakes, in that order
    names = [r["name"] for r in _by_stake(s)[:2]]
    from gpulens.reports._names import short_names

    labels = short_names(list(s.results["verdicts"].table["name"].astype(str)))
    by = dict(zip(s.results["verdicts"].table["name"].astype(str), labels))
    rows = [ln for ln in md.splitlines() if ln.startswith("| 1 |") or ln.startswith("| 2 |")]
    assert [md_text(by[n], 100) in r for n, r in zip(names, rows)] == [True, True]
