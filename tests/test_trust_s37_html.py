"""Session 37: the HTML dashboard gives the answer first and every part of it can be read.

- the banner's next step is cut at a word boundary and says how many further steps it leaves out (the verdict
  table's own list), with a link to the kernel's page where every step is whole;
- every bound term in a kernel table has its meaning as a tooltip and once in a legend;
- a roofline label with no free spot is not printed over its neighbours (hover only), and the caption counts those;
- the occupancy chart's achieved-occupancy figures are dark text on a light, striped bar (they were white on stripes);
- at 900 px no table runs past its container: the diff page's tables scroll inside their own box, and no tab of the
  report scrolls sideways (a browser check, skipped without Chromium).
"""

from __future__ import annotations

import html as _html
import re
import time
from pathlib import Path

import pytest

import gpulens
from gpulens.reports import html
from gpulens.reports._values import clip
from tests.test_trust_s35_html import headless_chromium

NCU = Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_kernels_details.csv"
ROCPROF = Path(__file__).parent / "data" / "rocprof" / "v1_gunrock_mi300x" / "results.csv"


@pytest.fixture(scope="module")
def ncu():
    report = gpulens.analyze([str(NCU)])
    return report, html.render(report)


def _page(page: str, pid: str) -> str:
    start = page.index(f'id="page-{pid}"')
    end = page.find('<section role="tabpanel"', start + 1)
    return page[start:end if end > 0 else len(page)]


def _steps_of(report, prefix: str) -> list[str]:
    vd = report.sources[0].results["verdicts"].table
    (steps,) = [x for n, x in zip(vd["name"], vd["next_steps"]) if str(n).startswith(prefix)]
    return list(steps)


def test_clip_whole_words_never_cuts_inside_a_word():
    """By hand: 20 characters of "alpha beta gamma_delta_epsilon" keep "alpha beta" — the last space falls before the
    last third of the room, where the plain clip cuts the metric-like token ("alpha beta gamma_de…")."""
    text = "alpha beta gamma_delta_epsilon"
    assert clip(text, 20) == "alpha beta gamma_de…"
    assert clip(text, 20, whole_words=True) == "alpha beta…"
    # the room ends exactly at a word's end: that word stays
    assert clip("one two three four", 8, whole_words=True) == "one two…"
    assert clip("short", 20, whole_words=True) == "short"
    # cut inside a parenthesis: the text ends before it opened (never "… late starts (the…")
    assert clip("look at event waits and late starts (the launch table's queue delay)", 45,
                whole_words=True) == "look at event waits and late starts…"


def test_banner_step_ends_on_a_word_and_counts_the_steps_left_out(ncu):
    """ncu H200 gemm_naive: its verdict lists 2 next steps, the first 390 characters long. The banner shows the
    first cut at a word boundary (the character after the cut in the whole step is a space), at most 200 characters
    with its ellipsis, then "+1 more" linking to the kernel's page — which lists both steps whole."""
    report, page = ncu
    steps = _steps_of(report, "gemm_naive(")
    assert len(steps) == 2 and len(steps[0]) > 200  # the input's facts, as this test relies on them
    summary = _page(page, "summary")
    row = re.search(r'<tr><td class="num"[^>]*>1</td><td class="name" title="gemm_naive[^"]*">.*?</tr>', summary, re.S)
    cell = re.search(r'<td class="step"[^>]*>(.*?)</td>', row.group(0), re.S).group(1)
    text, more = re.fullmatch(r'(.*?) <span class="more">\((.*?)\)</span>', cell, re.S).groups()
    shown = _html.unescape(text)
    assert shown.endswith("…") and len(shown) <= 200
    body = shown[:-1]
    assert steps[0].startswith(body) and steps[0][len(body)] == " ", "cut inside a word"
    link = re.fullmatch(r'<a href="#(kernel-[\w-]+)">\+(\d+) more</a>', more)
    assert link and int(link.group(2)) == len(steps) - 1 == 1
    # the linked kernel page lists every step whole
    kpage = re.search(rf'<section class="kpage" id="kp-{link.group(1)[7:]}".*?</section>', page, re.S).group(0)
    assert all(f"<li>{html.esc(x)}</li>" in kpage for x in steps)


def test_verdict_page_lists_every_step_whole(ncu):
    """The Stalls & verdicts table shows all of a kernel's next steps (gemm_naive: 2), none cut."""
    report, page = ncu
    steps = _steps_of(report, "gemm_naive(")
    verdicts = _page(page, "verdicts")
    row = re.search(r'<tr><td class="num"[^>]*>1</td>.*?</tr>', verdicts, re.S).group(0)
    cell = re.search(r'<td class="step">(.*?)<details', row, re.S).group(1)
    parts = [_html.unescape(p) for p in re.split(r'<span class="step2">|</span>', cell) if p]
    assert parts == steps


def test_every_bound_shown_is_explained_once(ncu):
    """The ncu run's kernels are memory-bound (3) and latency/occupancy-bound (1): each pill of the banner carries its
    meaning as a tooltip, and the verdict page's legend explains each of the two terms exactly once — with the
    verdict rules' thresholds (50 % of a roof, 60 % of a unit's peak on measured speed of light)."""
    _, page = ncu
    summary = _page(page, "summary")
    banner = re.search(r'<section class="answer".*?</section>', summary, re.S).group(0)
    pills = re.findall(r'<td><span class="bound [\w-]+"( title="[^"]+")?>([^<]+)</span></td>', banner)
    assert sorted({p[1] for p in pills}) == ["latency/occupancy-bound", "memory-bound"]
    assert all(p[0] for p in pills), "a bound pill without its meaning"
    assert 'title="limited by memory bandwidth: at ≥ 50 % of its memory roof' in _html.unescape(banner)
    legend = re.search(r'<p class="legend note">(.*?)</p>', _page(page, "verdicts"), re.S).group(1)
    terms = re.findall(r'<span class="bound [\w-]+">([^<]+)</span>', legend)
    assert terms == ["memory-bound", "latency/occupancy-bound"]
    assert "≥ 50 % of its memory roof" in _html.unescape(legend) and "≥ 60 % of peak" in _html.unescape(legend)


def test_below_roofs_is_said_in_words():
    """The internal class "below-roofs" reads "below both roofs" in its meaning (the run label's words)."""
    from gpulens.reports._html_answer import bound_legend

    legend = bound_legend(["below-roofs", "below-roofs", "undetermined"])
    assert legend.count("below both roofs") == 1 and legend.count(">below-roofs<") == 1
    assert legend.count(">undetermined<") == 1 and "compute-bound" not in legend


def _boxes(got: dict, pts: list, xr: list, yr: list, W: float, H: float) -> list:
    from gpulens.reports._html_roofline import _label_box, CHAR_PX, LABEL_FONT_PX

    out = []
    for name, x, y, r, text in pts:
        if name in got:
            px, py = (x - xr[0]) / (xr[1] - xr[0]) * W, (y - yr[0]) / (yr[1] - yr[0]) * H
            w, h = len(text) * CHAR_PX * LABEL_FONT_PX / 12 + 2, LABEL_FONT_PX + 3
            out.append(_label_box(got[name], px, py, r, w, h))
    return out


def test_crowded_roofline_labels_are_hover_only_instead_of_overprinted():
    """Three points a decade apart all get their label. Thirty points 0.01 decade apart on one line (1 px apart on a
    600-px plot of 6 decades) cannot all carry a 3-character label: fewer than 30 are placed, and no two placed labels
    overlap by more than 10 % of a label's box, on the narrow plot (600 × 400) or the wide one (1000 × 400)."""
    from gpulens.reports._html_roofline import place_point_labels

    xr, yr = [0.0, 6.0], [0.0, 4.0]
    sparse = [(f"k{i}", 1.0 + 2 * i, 1.0 + i, 6.0, f"#{i + 1}") for i in range(3)]
    assert set(place_point_labels(sparse, xr, yr)) == {"k0", "k1", "k2"}
    crowded = [(f"k{i}", 2.0 + 0.01 * i, 2.0, 4.0, f"#{i + 10}") for i in range(30)]
    got = place_point_labels(crowded, xr, yr)
    assert 1 <= len(got) < 30
    for W in (600.0, 1000.0):
        boxes = _boxes(got, crowded, xr, yr, W, 400.0)
        area = (boxes[0][2] - boxes[0][0]) * (boxes[0][3] - boxes[0][1])
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                ov = max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))
                assert ov <= 0.1 * area * 2


def test_roofline_caption_counts_the_points_on_hover_only(monkeypatch, ncu):
    """With room for no label at all (a placement that finds none), the chart prints no point label and its caption
    says how many of the labelled points have their names on hover only — here the one point with a FLOP figure."""
    from gpulens.reports import _html_roofline as R

    report, _ = ncu
    monkeypatch.setattr(R, "place_point_labels", lambda pts, xr, yr: {})
    panel = R.roofline_page(report.sources[0], 50)[0]
    texts = [x for t in panel.figure["data"] if t.get("mode") == "markers+text" for x in t["text"]]
    plotted = sum(len(t["x"]) for t in panel.figure["data"] if t.get("mode") == "markers+text")
    assert plotted == 1 and texts == [""]
    assert "1 crowded point of the 1 largest has its name on hover only" in panel.takeaway
    assert "Labels:" not in panel.takeaway


def _luminance(hex_colour: str) -> float:
    """WCAG 2.x relative luminance of an sRGB colour."""
    c = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    c = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def test_achieved_occupancy_text_contrasts_with_its_bar(ncu):
    """The achieved-occupancy bar is striped on a light ground; its value text must reach WCAG's 4.5:1 contrast
    against that ground (plotly's automatic white text on it was unreadable)."""
    from gpulens.reports._html_analyses import occupancy_page

    report, _ = ncu
    (panel,) = occupancy_page(report.sources[0], 50)
    ach = next(t for t in panel.figure["data"] if t["name"] == "achieved")
    bg, fg = ach["marker"]["pattern"]["bgcolor"], ach["insidetextfont"]["color"]
    hi, lo = sorted((_luminance(bg), _luminance(fg)), reverse=True)
    assert (hi + 0.05) / (lo + 0.05) >= 4.5
    assert ach["text"][0] == "97.9 %"  # gemm_naive: "Achieved Occupancy" 97.87 % in the CSV


@pytest.fixture(scope="module")
def diff_page(tmp_path_factory):
    """The diff page of an H100 program against an MI300X one whose GEMM has a 270-character Tensile name."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_html
    from tests.test_diff import MI300X, _program

    tmp = tmp_path_factory.mktemp("s37diff")
    tensile = "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x144x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_" * 3
    return render_html(diff(_program(tmp / "a.json", 50.0), _program(
        tmp / "b.json", 65.0, MI300X, names=(tensile, "elementwise_kernel", "layer_norm_kernel"))))


def test_diff_tables_scroll_inside_their_own_box(diff_page):
    """Every diff table sits in a scroll box no wider than the page (CSS: max-width 100 %, overflow auto), so a wide
    table scrolls there with its scroll bar on screen instead of running off a 900-px window."""
    from gpulens.reports.diff import DIFF_CSS

    page = diff_page
    n_tables = len(re.findall(r"<table>", page))
    assert n_tables >= 3 and len(re.findall(r'<div class="tablewrap" tabindex="0"><table>', page)) == n_tables
    rule = re.search(r"\.tablewrap\{([^}]*)\}", DIFF_CSS).group(1)
    assert "max-width:100%" in rule and "overflow:auto" in rule


_WIDE = """var W=document.documentElement.clientWidth,bad=[];
function scrolls(e){for(var p=e.parentElement;p&&p!==document.body;p=p.parentElement){
  var o=getComputedStyle(p).overflowX;if(o==='auto'||o==='scroll')return true;}return false;}
document.querySelectorAll('table').forEach(function(t){var r=t.getBoundingClientRect();
  if(r.width>0&&!scrolls(t)&&r.right>W+1)bad.push((t.className||'table')+' right '+Math.round(r.right));});
if(document.documentElement.scrollWidth>W+1)bad.push('page '+document.documentElement.scrollWidth+' > '+W);
return bad;"""


def test_nothing_runs_past_a_900px_window(ncu, diff_page, tmp_path):
    """Headless Chromium at 900 × 900 px: on the diff page and on every tab of the ncu report (its kernel pages
    open: a long row header once made them 1,126 px wide) and of the rocprof gunrock report (its Summary bars' text
    "2.57 ms · 2.9 % of the span · 22.2 % of the 11.60 ms steady state" once made it 902 px wide), no table outside
    a scroll box passes the window's right edge and the page never scrolls sideways."""
    dpath, rpath = tmp_path / "d.html", tmp_path / "r.html"
    dpath.write_text(diff_page, encoding="utf-8")
    rpath.write_text(ncu[1], encoding="utf-8")
    gpath = tmp_path / "g.html"
    gpath.write_text(html.render(gpulens.analyze([str(ROCPROF)])), encoding="utf-8")
    drv = headless_chromium("--window-size=900,900")
    try:
        drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 900, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        drv.get(dpath.as_uri())
        assert drv.execute_script(_WIDE) == []
        assert drv.execute_script("return document.querySelectorAll('.tablewrap').length") >= 3
        for path in (rpath, gpath):
            _each_tab_fits(drv, path)
    finally:
        drv.quit()


def _each_tab_fits(drv, path: Path) -> None:
    """Opens each tab of the report at ``path`` (every kernel page and folded block open) and checks :data:`_WIDE`."""
    drv.get(path.as_uri())
    for tab in drv.execute_script("return Array.prototype.map.call(document.querySelectorAll('nav [role=tab]'),"
                                  "function(t){return t.id;})"):
        drv.execute_script(f"document.getElementById('{tab}').click();"
                           "document.querySelectorAll('section.kpage').forEach(function(k){k.hidden=false;});"
                           "document.querySelectorAll('details').forEach(function(d){d.open=true;});")
        time.sleep(0.05)
        assert drv.execute_script(_WIDE) == [], (path.name, tab)


def test_kernel_page_speed_of_light_bars_name_their_unit_and_say_what_they_are(ncu):
    """gemm_naive's kernel page: its cache bars read as ncu names the units ("L1 SOL", "L2 hit rate"), never the
    column's lower-case stem ("l1 %"), each with its meaning as a tooltip; its L1 bar shows the CSV's 97.81 % L1/TEX
    Cache Throughput as 97.8 %, and its verdict label explains its bound."""
    _, page = ncu
    kpage = re.search(r'<section class="kpage" id="kp-0-0".*?</section>', page, re.S).group(0)
    bars = re.search(r'<h4>Speed of light</h4><div class="bars">(.*?)</div>', kpage, re.S).group(1)
    heads = re.findall(r'<span(?: title="([^"]*)")?>([^<]+)</span><span class="bar">', bars)
    labels = [h[1] for h in heads]
    assert "L1 SOL (as profiled)" in labels and "L2 hit rate" in labels and not [x for x in labels if x[:2] in ("l1", "l2")]
    assert all(h[0] for h in heads), "a bar without its meaning"
    l1 = re.search(r'>L1 SOL \(as profiled\)</span><span class="bar">.*?<span class="num">([\d.]+) %</span>', bars, re.S).group(1)
    assert l1 == "97.8"
    assert re.search(r'<span class="vlabel" title="limited by memory bandwidth[^"]*">memory-bound</span>', kpage)


def test_rank_heat_map_colour_bar_says_what_its_colour_is():
    """The multi-rank heat-map draws each kernel's time per rank over its busiest rank (0–1): the colour bar names
    the quantity and its basis and prints 0–100 % (it read "of the kernel's max" with ticks 0–1)."""
    from gpulens.reports._html_pages import multirank_page

    report = gpulens.analyze([str(Path(__file__).parent / "data" / "kineto" / "multirank")])
    heat = next(t for p in multirank_page(report.sources[0], 50) if getattr(p, "figure", None)
                for t in p.figure["data"] if t.get("type") == "heatmap")
    assert heat["colorbar"]["title"]["text"] == "GPU time [% of the kernel's busiest rank]"
    assert heat["colorbar"]["tickformat"] == ".0%" and (heat["zmin"], heat["zmax"]) == (0, 1)
    # every row's largest cell is its busiest rank: 1 (100 %)
    assert all(max(v for v in row if v is not None) == 1 for row in heat["z"])
