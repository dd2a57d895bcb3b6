"""The sentence naming the critical kernels shown (HTML banner, Markdown verdict table) gives the share of kernel
time of exactly the kernels shown, and the whole critical set's separately — derived here from the trace's kernel
durations (the demo trace has no concurrent kernels, so a kernel's effective time is its summed duration)."""

import re

from gpulens.cli.analyze import demo_trace_path
from gpulens.collectors import collect
from gpulens.report import analyze
from gpulens.reports._answer import critical_shown_text
from gpulens.reports._html_answer import ANSWER_KERNELS, kernels_html, kernel_rows


def _shares():
    ev = collect(demo_trace_path()).events
    k = ev[ev["kind"].astype(str) == "kernel"]
    per = k.groupby(k["name"].astype(str))["dur_ns"].sum().sort_values(ascending=False)
    return (per.cumsum() / per.sum()).to_numpy()


def test_banner_states_the_share_of_the_kernels_shown_and_of_all_critical_ones():
    s = analyze([demo_trace_path()]).sources[0]
    n_crit = s.results["hotspots"].summary["critical_count"]
    assert n_crit > ANSWER_KERNELS  # the banner shows only some of them
    cum = _shares()
    html = kernels_html(s, kernel_rows(s))
    head = re.search(r'<h3 class="kh">([^<]*)</h3>', html).group(1)
    assert head == (f"Kernels that matter (the top {ANSWER_KERNELS} of {n_crit} critical kernels: "
                    f"{100 * cum[ANSWER_KERNELS - 1]:.1f} % of kernel time; all {n_crit}: "
                    f"{100 * cum[n_crit - 1]:.1f} %)")
    assert cum[ANSWER_KERNELS - 1] < cum[n_crit - 1]  # the two figures differ: each names what it covers
    # any number shown: the share is of exactly those rows
    for n in (1, 3, n_crit):
        text = critical_shown_text(s, n)
        assert f"{100 * cum[n - 1]:.1f} %" in text
        assert (f"the top {n} of {n_crit}" in text) == (n < n_crit)
    # the verdicts table carries the figure: its cumulative share at row n
    vt = s.results["verdicts"].table
    assert abs(vt["cumulative_share"].iloc[n_crit - 1] - cum[n_crit - 1]) < 1e-9


def test_markdown_names_the_rows_shown_the_same_way():
    from gpulens.reports.markdown import _verdict_section

    s = analyze([demo_trace_path()]).sources[0]
    cum = _shares()
    n_crit = s.results["hotspots"].summary["critical_count"]
    md = _verdict_section(s, s.results["verdicts"], 2)
    assert (f"_Shown: the top 2 of {n_crit} critical kernels: {100 * cum[1]:.1f} % of kernel time; all {n_crit}: "
            f"{100 * cum[n_crit - 1]:.1f} %._") in md
