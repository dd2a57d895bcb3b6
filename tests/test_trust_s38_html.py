"""The dashboard gives the answer first (session 38).

Faults fixed, each checked here against figures derived by hand from the synthetic trace written in the test:

- the ``gpulens diff`` HTML page had no chart: a reader had to read 5 tables to see what changed. It now opens with
  two base-vs-candidate bar charts (the kernel rows with the largest |Δ|, and the work categories), plain HTML (no
  script, no network), with the direction marked ▲/▼ as well as signed.
- a table header with a long bracketed explanation ("bound's % of peak (roofline basis: …)", 150 characters) made
  the roofline data table's header row about 10 lines tall: the header now shows its name with a note mark, and the
  explanation sits under the table — said in full, once.
- the answer banner's kernel table headed its share "GPU time · share" (a share of what?): it now names the
  denominator as the hot-kernel table does ("share of kernel time").
"""

from __future__ import annotations

import re
from html import unescape

import pandas as pd
import pytest

from tests.dig_traces import KTrace
from tests.test_diff import _program

US = 1000.0  # ns per µs


# ---- 1. the diff page's charts ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def diff_page(tmp_path_factory):
    """Base: 3 steps of GEMM (100, 101, 102 µs), add (50 µs), layer norm (30 µs); candidate: GEMM (100, 99, 98 µs),
    add 65 µs, layer norm 30 µs (tests.test_diff._program)."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_html

    tmp = tmp_path_factory.mktemp("s38diff")
    return render_html(diff(_program(tmp / "base.json", 50.0, jitter=1.0), _program(tmp / "cand.json", 65.0,
                                                                                      jitter=-1.0)))


def _figure(page: str, fid: str) -> str:
    m = re.search(rf'<figure class="dchart" id="{fid}".*?</figure>', page, re.S)
    assert m, f"no {fid} chart"
    return m.group(0)


def _rows(fig: str) -> list[tuple[str, str, str]]:
    """(base bar style, candidate bar style, text) per chart row."""
    return re.findall(r'<span class="pb b" style="([^"]*)"></span><span class="pb c" style="([^"]*)"></span></span>'
                      r'<span class="px">([^<]*)</span>', fig)


def test_diff_page_opens_with_the_kernel_chart_before_the_tables(diff_page):
    # the add kernel: 3 × 50 µs = 150 µs → 3 × 65 µs = 195 µs, +45 µs, +30.0 %; the GEMM: 100+101+102 = 303 µs →
    # 100+99+98 = 297 µs, −6 µs, −6/303 = −1.98 % → "-2.0 %"; the norm: 90 µs both, no change — largest |Δ| first
    fig = _figure(diff_page, "chart-kernels")
    assert diff_page.index('id="chart-kernels"') < diff_page.index('<section id="contributors"')
    rows = _rows(fig)
    assert [t for _, _, t in rows] == ["150.00 µs → 195.00 µs · ▲ +45.00 µs (+30.0 %)",
                                       "303.00 µs → 297.00 µs · ▼ -6.00 µs (-2.0 %)"]
    # the norm did not change: no "largest change", said in the caption, not drawn (s46)
    assert "Rows whose GPU time did not change (0 ns) are not drawn: 1 of the first 10." in unescape(fig)
    # one scale for the chart: the longest bar is the GEMM's 303 µs base; 150/303 = 49.50 %, 195/303 = 64.36 %,
    # 297/303 = 98.02 %, 90/303 = 29.70 %
    widths = [[float(re.search(r"width:([\d.]+)%", st).group(1)) for st in (b, c)] for b, c, _ in rows]
    assert widths == [[pytest.approx(100 * 150 / 303, abs=0.01), pytest.approx(100 * 195 / 303, abs=0.01)],
                      [pytest.approx(100.0), pytest.approx(100 * 297 / 303, abs=0.01)]]
    # a legend says which bar is which run and what the marks mean (never colour alone)
    assert "base" in fig and "candidate" in fig and "▲ more GPU time in the candidate, ▼ less" in fig
    assert 'role="img"' in fig and "aria-label=" in fig


def test_diff_category_chart_sums_each_category(diff_page):
    # categories: elementwise 150 → 195 µs, GEMM 303 → 297 µs, normalisation 90 → 90 µs
    fig = _figure(diff_page, "chart-categories")
    labels = re.findall(r'<span class="pl" title="[^"]*">([^<]*)</span>', fig)
    texts = [t for _, _, t in _rows(fig)]
    assert dict(zip(labels, texts)) == {"elementwise": "150.00 µs → 195.00 µs · ▲ +45.00 µs (+30.0 %)",
                                        "GEMM": "303.00 µs → 297.00 µs · ▼ -6.00 µs (-2.0 %)",
                                        "normalisation": "90.00 µs → 90.00 µs · = 0 ns (+0.0 %)"}
    assert labels[:2] == ["elementwise", "GEMM"]  # largest change first


def test_diff_page_stays_scriptless_and_offline(diff_page):
    assert "<script" not in diff_page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", diff_page)
    assert len(diff_page.encode()) < 60_000  # 3 kernels: the charts add a few kB, not a plotting library


def test_diff_bars_say_new_vanished_and_unknown():
    from gpulens.reports._html_diff import paired_bars

    html = paired_bars([("k1", "k1", 0.0, 195 * US, 195 * US, float("nan"), "new"),
                        ("k2", "k2", 40 * US, 0.0, -40 * US, -100.0, "vanished"),
                        ("k3", "k3", None, 10 * US, None, None, "name")])
    texts = re.findall(r'<span class="px">([^<]*)</span>', html)
    assert texts == ["0 ns → 195.00 µs · ▲ +195.00 µs (new)", "40.00 µs → 0 ns · ▼ -40.00 µs (vanished)",
                     "unknown → 10.00 µs · Δ unknown"]
    # the unknown base draws no bar (never a zero-length bar that reads as "0"); the 0 ns sides draw none either
    styles = re.findall(r'class="pb [bc]" style="([^"]*)"', html)
    assert styles == ["width:0", "width:100.00%;min-width:1px",  # the longest time shown (195 µs) fills the track
                      f"width:{100 * 40 / 195:.2f}%;min-width:1px", "width:0",
                      "width:0", f"width:{100 * 10 / 195:.2f}%;min-width:1px"]


# ---- 2. long table headers ---------------------------------------------------------------------------------------

def test_long_bracketed_header_moves_its_explanation_under_the_table():
    from gpulens.reports._html_parts import table_html

    long = "bound's % of peak (roofline basis: its % of roofline; speed of light: the limiting unit's % of its peak)"
    df = pd.DataFrame({"a": [1.0], "b": [2.0], "c": [3.0]})
    html = table_html(df, docs={"a": "x [%]", "b": "y [%]", "c": "z [%]"},
                      headers={"a": long, "b": "idle: one-off gaps (left out of the verdict)", "c": "c"})
    heads = [unescape(h) for h in re.findall(r"<th [^>]*>([^<]*)</th>", html)]
    assert heads[0] == "bound's % of peak¹"
    assert heads[1] == "idle: one-off gaps (left out of the verdict)"  # 44 characters: short enough to stay whole
    note = unescape(re.search(r'<p class="note colnotes">(.*?)</p>', html).group(1))
    assert note == ("¹ bound's % of peak: roofline basis: its % of roofline; speed of light: the limiting unit's % of "
                    "its peak")
    assert html.index("</table>") < html.index("colnotes")


def test_roofline_table_header_row_is_short(tmp_path):
    """The roofline table of a real counter CSV: every header (note mark aside) at most 40 characters, and the
    bound's-share explanation said under the table."""
    from gpulens import analyze
    from gpulens.reports._format import column_label
    from gpulens.reports.html import build_pages
    from tests.conftest import DATA

    report = analyze([DATA / "nvidia" / "h200" / "h200_kernels_details.csv"])
    rf = report.sources[0].results["roofline"]
    label = column_label("bound_pct", rf.columns["bound_pct"])
    name, why = label.split(" (", 1)
    page = next(p for p in build_pages(report) if p.id == "roofline")
    from gpulens.reports._html_parts import Panel

    table = next(b.table for b in page.blocks if isinstance(b, Panel) and b.table)
    heads = [unescape(h) for h in re.findall(r"<th [^>]*>([^<]*)</th>", table)]
    assert f"{name}¹" in heads
    assert max(len(h) for h in heads) <= 40
    assert f"¹ {name}: {why[:-1]}" in unescape(table)


# ---- 3. the answer table names its share -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """The report of a trace of three kernels of 600, 300 and 100 µs (1 ms of kernel time)."""
    from gpulens import analyze

    t = KTrace()
    gpu = 100.0
    for i, (name, us) in enumerate((("kernel_a", 600.0), ("kernel_b", 300.0), ("kernel_c", 100.0))):
        ext = t.op(f"op{i}", 10.0 + 10 * i, 5.0)
        t.launch(ext, 11.0 + 10 * i, [(name, gpu, us)])
        gpu += us + 5.0
    return analyze([t.write(tmp_path_factory.mktemp("s38three") / "three.json")])


def test_answer_table_share_says_of_what(three):
    """Shares 600/1000 = 60.0 %, 300/1000 = 30.0 %, under a header that says "share of kernel time"."""
    from gpulens.reports.html import render

    page = render(three)
    table = re.search(r'<table class="akernels">.*?</table>', page, re.S).group(0)
    assert "<th scope=\"col\" title=\"summed GPU time of its launches · share of all kernel time\">GPU time · share of " \
           "kernel time</th>" in table
    cells = re.findall(r'<td class="num">([^<#]+)</td>', table)
    # the longer header wraps in its fixed-width column (the global "th{white-space:nowrap}" clipped it to
    # "GPU time · share o" on the Stalls & verdicts page at 1400 px)
    from gpulens.reports.html import CSS

    assert "table.akernels th{white-space:normal}" in CSS
    # the banner lists the critical set: the fewest kernels covering 80 % of kernel time — a and b (60 + 30 = 90 %)
    assert cells == ["600.00 µs · 60.0 %", "300.00 µs · 30.0 %"]


# ---- 4. axis titles fit a narrow window -------------------------------------------------------------------------

def test_axis_titles_are_broken_into_short_lines(three):
    """plotly never wraps a title: the hot-kernel chart's 93-character x title ran off a 900-px window. Every axis
    title is now at most 60 characters a line, its parts kept whole."""
    from gpulens.reports._html_pages import axis_title
    from gpulens.reports._html_parts import Panel
    from gpulens.reports.html import build_pages

    title = "GPU time [ms] (a stream's overlapping launches counted once); bar text: share of kernel time"
    assert axis_title(title)["text"] == ("GPU time [ms] (a stream's overlapping launches counted once)<br>"
                                         "bar text: share of kernel time")
    assert axis_title("time [ms]")["text"] == "time [ms]"
    seen = 0
    for page in build_pages(three):
        for b in page.blocks:
            if not isinstance(b, Panel) or not isinstance(b.figure, dict):
                continue
            for ax in ("xaxis", "yaxis"):
                text = ((b.figure.get("layout") or {}).get(ax) or {}).get("title", {}).get("text", "")
                seen += bool(text)
                assert all(len(line) <= 60 for line in text.split("<br>")), (page.id, ax, text)
    assert seen >= 3  # hot kernels, breakdown, roofline at least


# ---- 5. the hot-kernel chart's colours have a legend --------------------------------------------------------------

@pytest.fixture(scope="module")
def comm_report(tmp_path_factory):
    """A collective (400 µs) and three compute kernels (300, 200, 100 µs), registers recorded (so occupancy has
    rows for the compute kernels)."""
    from gpulens import analyze

    t = KTrace()
    gpu = 100.0
    names = ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel_a", "kernel_b", "kernel_c")
    for i, (name, us) in enumerate(zip(names, (400.0, 300.0, 200.0, 100.0))):
        ext = t.op(f"op{i}", 10.0 + 10 * i, 5.0)
        t.launch(ext, 11.0 + 10 * i, [(name, gpu, us)])
        gpu += us + 5.0
    for e in t.ev:
        if e.get("cat") == "kernel":
            e["args"].update({"registers per thread": 32, "shared memory": 0})
    return analyze([t.write(tmp_path_factory.mktemp("s38comm") / "comm.json")])


def _figures(report, page_id: str) -> list[dict]:
    from gpulens.reports._html_parts import Panel
    from gpulens.reports.html import build_pages

    page = next(p for p in build_pages(report) if p.id == page_id)
    return [b.figure for b in page.blocks if isinstance(b, Panel) and isinstance(b.figure, dict)]


def test_hot_kernel_colours_are_named_in_a_legend(comm_report):
    """The critical set is the first three kernels (40 + 30 + 20 = 90 % ≥ 80 %); the bars are coloured by kind, and
    a legend now names the colours (one trace per kind, "communication" and "kernel"), the rows keeping their order
    by GPU time."""
    (fig,) = _figures(comm_report, "kernels")
    traces = {tr["name"]: tr for tr in fig["data"]}
    assert set(traces) == {"communication", "kernel"} and all(tr["showlegend"] for tr in fig["data"])
    order = fig["layout"]["yaxis"]["categoryarray"]
    assert [y.split()[0] for y in order] == ["#1", "#2", "#3"] and "nccl" in order[0]
    assert traces["communication"]["y"] == order[:1] and traces["kernel"]["y"] == order[1:]
    assert traces["kernel"]["x"] == [pytest.approx(300.0), pytest.approx(200.0)]  # µs: the axis unit follows them
    assert traces["kernel"]["text"] == ["30.0 %", "20.0 %"] and traces["communication"]["text"] == ["40.0 %"]
    assert traces["communication"]["marker"]["color"] != traces["kernel"]["marker"]["color"]


# ---- 6. one number per kernel across the pages ------------------------------------------------------------------

def test_occupancy_chart_numbers_kernels_as_the_hot_kernel_chart_does(comm_report):
    """The occupancy chart has rows for the compute kernels only; its labels numbered them by position ("#1
    kernel_a") while the Hot kernels chart and the answer banner call kernel_a "#2" (the collective is #1). Each
    kernel now carries its hot-kernel rank everywhere."""
    (occ,) = _figures(comm_report, "occupancy")
    assert occ["data"][0]["y"] == ["#2 kernel_a", "#3 kernel_b"]
    (hot,) = _figures(comm_report, "kernels")
    assert hot["layout"]["yaxis"]["categoryarray"][1:] == ["#2 kernel_a", "#3 kernel_b"]


def test_tick_labels_fall_back_to_positions_without_ranks():
    from gpulens.reports._html_parts import HOT_RANKS, tick_labels

    assert tick_labels(["x", "y"]) == ["#1 x", "#2 y"]  # no kernel names given: the position
    token = HOT_RANKS.set({"kx": 5})
    try:
        assert tick_labels(["x", "y"], full=["kx", "ky"]) == ["#5 x", "y"]  # a kernel outside the table: no number
    finally:
        HOT_RANKS.reset(token)


def test_diff_without_kernel_durations_says_why_it_has_no_chart():
    """A run without kernel durations (times unknown): no bar drawn from unknown times, a sentence instead."""
    from types import SimpleNamespace

    from gpulens.reports._html_diff import diff_charts

    r = SimpleNamespace(summary={"times_unknown": ["base"]}, tables={})
    html = diff_charts(r, pd.DataFrame())
    assert "pbars" not in html and "GPU times are unknown" in html


def test_a_lone_collective_bar_is_named_too(comm_report):
    """Every colour but the plain kernels' is named, even when the chart draws one kind only (rocprofv3 MI350X: one
    orange bar, the collective, with no legend); kernels only: no legend, blue says nothing to explain."""
    from gpulens.reports._html_pages import kernels_page

    from types import SimpleNamespace

    hs = comm_report.sources[0].results["hotspots"]
    only = lambda rows: SimpleNamespace(results={"hotspots": SimpleNamespace(  # noqa: E731
        table=hs.table.iloc[rows].assign(critical=True), summary=hs.summary, columns=hs.columns, skipped=False,
        skipped_reason=None)})
    fig = kernels_page(only([0]), 50)[0].figure
    assert [t["name"] for t in fig["data"]] == ["communication"] and fig["layout"]["showlegend"] is True
    fig = kernels_page(only([1, 2]), 50)[0].figure
    assert [t["name"] for t in fig["data"]] == ["kernel"] and fig["layout"]["showlegend"] is False
