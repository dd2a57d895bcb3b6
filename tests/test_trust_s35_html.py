"""The HTML dashboard's charts stay legible (s35).

Seen on screenshots of real reports (GPT-2 training on an H200, Kineto): the roofline's point tags "#1 #2" printed over
the vector-roof label "vector fp32 (CUDA cores) · 66.90 TFLOP/s" (both at the roofs' right end), "#6 #11 #19 #20"
over "#16", and at a 900-px-wide window the legend took the plot's room (a 60-px plot). The occupancy chart's
kernel names (up to 120 characters) took half its width and the limiter labels in short bars were cut ("registers +
shared..."). Every expected position below is worked out by hand from plotly's conventions (log axes in decades,
``yshift`` in px, text to the right of a marker starting past its radius), never read from gpulens's output.
"""

from __future__ import annotations

import html as _html
import json
import math
import re

import pytest

from tests.conftest import DATA

GPT2 = DATA / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
NCU = DATA / "nvidia" / "h200" / "h200_kernels.ncu-rep"


def _specs(page: str) -> list[dict]:
    return [json.loads(m.group(1)) for m in
            re.finditer(r'<script type="application/json" id="fig-\d+-spec">(.*?)</script>', page)]


def _page(page: str, pid: str) -> str:
    m = re.search(rf'<section role="tabpanel" id="page-{pid}".*?(?=<section role="tabpanel"|</main>)', page, re.S)
    assert m, pid
    return m.group(0)


@pytest.fixture(scope="module")
def gpt2_page() -> str:
    import gpulens
    from gpulens.reports import html

    if not GPT2.exists():
        pytest.skip("GPT-2 H200 trace absent")
    return html.render(gpulens.analyze([GPT2]))


def test_close_roofs_labels_are_pushed_apart_by_hand():
    """MI300X roofs (AMD datasheet): matrix fp32 163.4 and vector fp32 81.7 TFLOP/s are log10(2) = 0.301 decades
    apart; on a y axis of 5 decades over the 400-px smallest plot that is 24.08 px, under the 28 px two two-line
    labels (13 px a line, 1 px apart) need: the lower one stays at its roof, the upper one goes up 3.92 px."""
    from gpulens.reports._html_roofline import PLOT_MIN_PX, roof_annotations

    assert PLOT_MIN_PX[1] == 400.0
    notes = [(math.log10(163.4e12), "#a", "matrix fp32<br>163.40 TFLOP/s"),
             (math.log10(81.7e12), "#b", "vector fp32<br>81.70 TFLOP/s"),
             (math.log10(1307.4e12), "#c", "matrix bf16<br>1.31 PFLOP/s")]
    got = {a["text"].split("<br>")[0]: a for a in roof_annotations(notes, [11.0, 16.0])}
    natural = 0.30103 * 400 / 5  # 24.08 px between the two fp32 roofs
    assert got["vector fp32"]["yshift"] == 0
    assert got["matrix fp32"]["yshift"] == pytest.approx(28 - natural, abs=0.06)
    # 1.31 PFLOP/s is 0.903 decades (72 px) above 163.4 T: room enough, it stays at its roof
    assert got["matrix bf16"]["yshift"] == 0
    # all three right of the plot (paper x 1, growing rightwards), at their roofs' heights in data space
    assert all(a["xref"] == "paper" and a["x"] == 1 and a["xanchor"] == "left" and a["yref"] == "y"
               for a in got.values())


def test_labels_pushed_down_when_the_top_roof_is_at_the_top():
    """Two roofs 0.1 decades apart at the top of a 2-decade axis (200 px a decade): 20 px apart, 28 px needed; the
    upper would leave the plot (its top at 400 + 4 + 14 > 408 px), so it sits with its top at 408 px and the lower
    goes down: centres 394 and 366 px, shifts -2 and -14 px from their natural 396 and 380 px."""
    from gpulens.reports._html_roofline import roof_annotations

    notes = [(13.98, "#a", "a<br>1"), (13.9, "#b", "b<br>2")]
    got = {a["text"][0]: a["yshift"] for a in roof_annotations(notes, [12.0, 14.0])}
    assert got["a"] == pytest.approx(394 - 396, abs=0.05) and got["b"] == pytest.approx(366 - 380, abs=0.05)


def _box(spot: str, x: float, y: float, r: float, text: str) -> tuple[float, float, float, float]:
    # plotly draws a point's text past its marker: right of it (x + r), left, above (y + r) or below; corners off
    # the diagonal (r / sqrt 2). 11-px text, 7 px a character at 12 px (a wide estimate: digits, '#', capitals).
    w, h = len(text) * 7 * 11 / 12, 11
    vert, _, horiz = spot.partition(" ")
    d = r / math.sqrt(2) if vert != "middle" and horiz != "center" else r
    x0 = {"right": x + d, "left": x - d - w, "center": x - w / 2}[horiz]
    y0 = {"middle": y - h / 2, "top": y + d, "bottom": y - d - h}[vert]
    return x0, y0, x0 + w, y0 + h


def _hit(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_a_tag_beside_another_moves_to_a_free_side():
    """The GPT-2 case by hand: "#6 #11 #19 #20" (14 characters, about 90 px) and "#16" on a point 60 px to its
    right, level with it. Right of its point the long tag would run over "#16"'s marker: it moves to a free side,
    and neither label touches the other or the other's marker, on the narrow plot and on a wide one."""
    from gpulens.reports._html_roofline import place_point_labels

    # x axis 0..6 decades over 600 px (100 px a decade), y 0..4 decades over 400 px: 100 px a decade
    pts = [("a", 1.0, 2.0, 8.0, "#6 #11 #19 #20"), ("b", 1.6, 2.0, 6.0, "#16")]
    got = place_point_labels(pts, [0.0, 6.0], [0.0, 4.0])
    # right of "a" the 90-px tag would run over "b"'s marker 60 px away: it goes elsewhere
    assert got["a"] != "middle right"
    for W in (600.0, 1000.0):
        k = W / 600
        a = _box(got["a"], 100 * k, 200, 8, "#6 #11 #19 #20")
        b = _box(got["b"], 160 * k, 200, 6, "#16")
        assert not _hit(a, b)
        assert not _hit(a, (160 * k - 6, 194, 160 * k + 6, 206))  # "b"'s marker
        assert not _hit(b, (100 * k - 8, 192, 100 * k + 8, 208))  # "a"'s marker


def _roofline(page: str) -> dict:
    (spec,) = _specs(_page(page, "roofline"))
    return spec


def test_gpt2_roofline_labels_clear_of_each_other_and_of_the_roof_labels(gpt2_page):
    spec = _roofline(gpt2_page)
    lay = spec["layout"]
    notes = lay["annotations"]
    roofs = [a for a in notes if a.get("xref") == "paper"]
    ridges = [a for a in notes if a["text"].startswith("ridge ")]
    # roof labels in the margin right of the plot, ridge labels in the one above it: no point label can reach them
    # (scatter text is clipped to the plot area: plotly's cliponaxis default)
    # (the bf16 elementwise work computes in fp32 in PyTorch, s48: no bf16 vector roof)
    assert {a["text"].split("<br>")[0] for a in roofs} == {"matrix bf16", "vector fp32"}
    assert all(a["x"] == 1 and a["xanchor"] == "left" for a in roofs)
    assert ridges and all(a["yref"] == "paper" and a["y"] == 1 and a["yanchor"] == "bottom" for a in ridges)
    assert lay["margin"]["r"] >= len("795.00 TFLOP/s") * 5  # room for the longest line at 10 px
    assert all(t.get("cliponaxis", True) for t in spec["data"])
    # every point label clear of every other label and of every other marker, on a 600 x 400 and a 1000 x 400 plot
    xr, yr = lay["xaxis"]["range"], lay["yaxis"]["range"]
    pts = []
    for t in spec["data"]:
        if not t["mode"].startswith("markers"):
            continue
        ref, smin = t["marker"]["sizeref"], t["marker"]["sizemin"]
        for x, y, s, text, pos in zip(t["x"], t["y"], t["marker"]["size"], t["text"], t["textposition"]):
            r = max(smin, math.sqrt(s / ref)) / 2  # plotly: area mode, diameter sqrt(size / sizeref)
            pts.append((math.log10(x), math.log10(y), r, _html.unescape(text), pos))
    tags = [p for p in pts if p[3]]
    # the crowded groups of this trace (labels merged where points overlap; numbers are the verdict table's ranks,
    # which moved when session 40 modelled the softmax backward kernel)
    assert {"#1 #2", "#6 #11 #19 #20", "#7 #8", "#10 #16"} <= {p[3] for p in tags}
    for W, H in ((600.0, 400.0), (1000.0, 400.0)):
        def px(p):
            return (p[0] - xr[0]) / (xr[1] - xr[0]) * W, (p[1] - yr[0]) / (yr[1] - yr[0]) * H

        boxes = [_box(p[4], *px(p), p[2], p[3]) for p in tags]
        for i, a in enumerate(boxes):
            assert 0 <= a[0] and a[2] <= W and 0 <= a[1] and a[3] <= H, tags[i]  # on the plot
            for j, b in enumerate(boxes[i + 1:], i + 1):
                assert not _hit(a, b), (tags[i][3], tags[j][3], W)
            for q in pts:
                if q[:2] != tags[i][:2]:
                    (mx, my), mr = px(q), q[2] * 0.8  # the marker's core (shapes differ: circle, square, diamond)
                    assert not _hit(a, (mx - mr, my - mr, mx + mr, my + mr)), (tags[i][3], W)


def test_gpt2_roofline_keeps_its_plot_height_under_a_long_legend(gpt2_page):
    """Seven legend entries (ten while s47 drew a bf16 vector roof; s48: PyTorch's bf16 elementwise work computes in
    fp32, on the fp32 vector roof) up to 95 characters: at 900 px each is a row
    of its own (a 95-character entry is about 660 px). The figure holds the 400-px plot, its ticks and title (70 px) and one 21-px legend row; the page script
    grows it by the further rows as plotly drew them (s36: measured, not estimated; checked in a browser by
    tests/test_trust_s36_html.py), so the plot keeps 400 px: height - top margin - 70 - 21 ≥ 400."""
    from gpulens.reports import html

    lay = _roofline(gpt2_page)["layout"]
    names = [t["name"] for t in _roofline(gpt2_page)["data"]]
    assert len(names) == 7  # point groups and legend rows (s48: no bf16 vector roof: its elementwise work is at fp32)
    assert lay["height"] - lay["margin"]["t"] - 70 - 21 >= 400
    assert "fitLegend(div,P,spec.layout.height)" in html.JS
    assert lay["legend"]["yanchor"] == "top" and lay["legend"]["y"] < 0  # under the plot, not over the data


def _table_rows(section: str) -> list[list[str]]:
    body = re.search(r"<tbody>(.*?)</tbody>", section, re.S).group(1)
    return [[_html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


@pytest.mark.parametrize("path", [GPT2, NCU], ids=["gpt2-kineto", "ncu"])
def test_occupancy_bar_labels_read_as_the_table(path, request):
    import gpulens
    from gpulens.reports import html

    if not path.exists():
        pytest.skip(f"{path.name} absent")
    page = request.getfixturevalue("gpt2_page") if path == GPT2 else html.render(gpulens.analyze([path]))
    occ = _page(page, "occupancy")
    (spec,) = _specs(occ)
    heads = [_html.unescape(h) for h in re.findall(r'<th scope="col"[^>]*>(.*?)</th>', occ)]
    rows = _table_rows(occ)
    ti, ai = heads.index("theoretical occupancy"), heads.index("achieved occupancy")
    theo = spec["data"][0]
    assert len(theo["text"]) == len(rows)
    for row, text in zip(rows, theo["text"]):
        # the bar's label starts with the table's figure for that kernel, then its limiter(s)
        value, _, limiter = _html.unescape(text).partition(" · ")
        assert value == row[ti] and limiter and limiter.rstrip("…") in row[-1]
    # placed by plotly on the drawn text (s36: inside where it fits, else past the bar's end), never shrunk
    assert theo["textposition"] == "auto"
    assert theo["constraintext"] == "none" and theo["textfont"]["size"] == 11
    measured = [r[ai] for r in rows if r[ai] != "unknown"]
    if measured:  # the ncu report measures it: one label per bar, the table's text
        assert [t for t in spec["data"][1]["text"] if t] == measured
    else:  # Kineto: no achieved bars, and the legend says so
        assert [t["name"] for t in spec["data"]] == ["theoretical (achieved occupancy not measured)"]
        assert spec["layout"]["showlegend"] is True


def test_bar_chart_names_are_short_with_the_full_name_on_hover(gpt2_page):
    """The occupancy chart's category labels: "#rank name" with the name at most 44 characters (about 290 px at
    12 px), the full kernel name in the hover box (broken every 90 characters)."""
    (spec,) = _specs(_page(gpt2_page, "occupancy"))
    bar = spec["data"][0]
    assert all(len(_html.unescape(y).split(" ", 1)[1]) <= 44 for y in bar["y"])
    assert any(len(_html.unescape(h.split("<br>limiter")[0]).replace("<br>", "")) > 90 for h in bar["hovertext"])
    # the rank prefix keeps every category apart (plotly would merge two equal ones into one bar)
    assert len(set(bar["y"])) == len(bar["y"]) and bar["y"][0].startswith("#1 ")


def test_stacked_bar_legend_reads_in_stack_order(gpt2_page):
    """The idle split is stacked left to right host, launch, sync, queued (the bottlenecks table's column order);
    plotly lists a stacked chart's legend in reverse unless told: the legend must read as the bar does."""
    (spec, *_) = _specs(_page(gpt2_page, "verdicts"))
    names = [t["name"] for t in spec["data"]]
    assert names[:2] == ["idle: host", "idle: launch"]  # the stack's order, left to right
    assert spec["layout"]["barmode"] == "stack" and spec["layout"]["legend"]["traceorder"] == "normal"


def test_long_headers_wrap_short_ones_stay_on_one_line():
    import pandas as pd

    from gpulens.reports._html_parts import table_html

    t = pd.DataFrame({"lane": ["rank 0 · CPU thread 633"], "start_ns": [565_240.0]})
    page = table_html(t, docs={"lane": "the lane [text]", "start_ns": "start of the bar [ns]"},
                      headers={"start_ns": "start (from the timeline's first event)"})
    # "start (from the timeline's first event)" is 39 characters: it wraps; "lane" does not
    assert re.search(r'<th [^>]*class="long"[^>]*>start \(from the timeline&#x27;s first event\)</th>', page)
    assert re.search(r'<th (?![^>]*class="long")[^>]*>lane</th>', page)


def test_a_chart_with_nothing_to_draw_says_so_instead_of_an_empty_frame():
    """A bar chart whose every value is unknown (null) or zero draws an empty frame: the panel says why instead, and
    keeps its table. One real bar is enough to draw."""
    from gpulens.reports._html_parts import Panel, panel_html

    empty = {"data": [{"type": "bar", "orientation": "h", "y": ["#1 a", "#2 b"], "x": [None, 0.0]}], "layout": {}}
    page = panel_html(Panel("Occupancy", "why", empty, "<table></table>"), "fig-1")
    assert "Nothing to draw" in page and 'class="chart"' not in page and "<table></table>" in page
    one = {"data": [{"type": "bar", "orientation": "h", "y": ["#1 a", "#2 b"], "x": [None, 12.5]}], "layout": {}}
    assert 'class="chart"' in panel_html(Panel("Occupancy", "why", one, ""), "fig-1")


def test_stall_classes_each_look_different_and_hover_the_full_name():
    """Ten stall classes: the Okabe-Ito palette has 8 colours, so classes 9 and 10 reused classes 1 and 2's colour
    and two parts of one bar read as the same class. Every class must differ in colour or pattern; the hover names
    the kernel in full (its tick label is cut to 44 characters)."""
    import pandas as pd

    from gpulens.analyzers import AnalysisResult
    from gpulens.reports._html_analyses import _stall_panel

    name = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::bfloat16_t>>(Params)"
    classes = [f"class{i}" for i in range(10)]
    t = pd.DataFrame({"name": [name], **{f"{c}_pct": [10.0] for c in classes}})
    cols = {f"{c}_pct": f"share of stall time in class {c} [%]" for c in classes}
    fig = _stall_panel(AnalysisResult("stalls", t, columns=cols), 20).figure
    looks = {(tr["marker"]["color"], tr["marker"]["pattern"]["shape"]) for tr in fig["data"]}
    assert len(looks) == 10
    assert all(_html.unescape(tr["customdata"][0].replace("<br>", "")) == name for tr in fig["data"])
    assert len(fig["data"][0]["y"][0]) <= len("#1 ") + 44


#: In the browser: every chart text of the shown tab (annotations, point labels, bar labels, titles, legend, ticks)
#: as [text, left, top, right, bottom], each chart's plot area, and the answer banner's bottom.
_SEEN = """
var p=document.querySelector('section[role=tabpanel]:not([hidden])'),out={charts:[]};
p.querySelectorAll('.chart').forEach(function(div){
  var sel='.annotation-text, .textpoint text, .bartext, .gtitle, .xtitle, .ytitle, .legendtext, .xtick text, .ytick text';
  var t=Array.prototype.map.call(div.querySelectorAll(sel),function(e){var r=e.getBoundingClientRect();
    return [e.textContent,r.left,r.top,r.right,r.bottom];}).filter(function(b){return b[0]&&b[3]>b[1];});
  var bg=div.querySelector('.nsewdrag');var r=bg?bg.getBoundingClientRect():{height:0};
  out.charts.push({texts:t,plot_h:r.height});});
var a=document.querySelector('section.answer');out.banner=a?a.getBoundingClientRect().bottom:null;
var k=document.querySelector('section.answer table.akernels tbody tr');out.kernel1=k?k.getBoundingClientRect().bottom:null;
return out;"""


def headless_chromium(*args: str):
    """A Selenium driver of headless Chromium with ``args`` added (the test is skipped without Chromium, its driver
    or Selenium); the caller quits it."""
    import atexit
    import shutil
    import tempfile

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip("chromium and chromedriver are not installed")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="gpulens-chromium-")
    atexit.register(shutil.rmtree, profile, True)  # the browser's profile folder, gone when the test run ends
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", *args, f"--user-data-dir={profile}"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(driver), options=opts)


def test_gpt2_charts_in_a_900px_browser_have_no_overlapping_text(gpt2_page, tmp_path):
    """The GPT-2 report in headless Chromium: at 1400 × 900 px the answer banner ends inside the first screen, at
    900 × 900 px its verdict and first kernel (with the time at stake and next step) do; at 900 × 900 px the
    roofline's plot is at least 380 px tall whatever its 7-row legend; on the roofline, occupancy and stall/idle
    tabs no two chart texts overlap (ticks of one axis aside: plotly thins those itself)."""
    import time

    path = tmp_path / "gpt2.html"
    path.write_text(gpt2_page, encoding="utf-8")
    drv = headless_chromium("--hide-scrollbars")
    try:
        for width, tab in ((1400, "summary"), (900, "summary"), (900, "roofline"), (900, "occupancy"),
                           (900, "verdicts")):
            drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})
            drv.get("about:blank")
            drv.get(f"{path.as_uri()}#{tab}")
            for _ in range(200):
                if drv.execute_script("return Array.prototype.every.call(document.querySelectorAll("
                                      "'section[role=tabpanel]:not([hidden]) .chart'),function(d){"
                                      "return d.getAttribute('data-rendered');})"):
                    break
                time.sleep(0.05)
            seen = drv.execute_script(_SEEN)
            if tab == "summary":
                assert seen["kernel1"] is not None and seen[{1400: "banner", 900: "kernel1"}[width]] <= 900, seen
                continue
            assert seen["charts"], tab
            for chart in seen["charts"]:
                if tab == "roofline":
                    assert chart["plot_h"] >= 380, chart["plot_h"]
                boxes = chart["texts"]
                for i, a in enumerate(boxes):
                    for b in boxes[i + 1:]:
                        ticks = re.fullmatch(r"[\d.]+[kMGTPE]?", a[0]) and re.fullmatch(r"[\d.]+[kMGTPE]?", b[0])
                        hit = a[1] < b[3] - 1 and b[1] < a[3] - 1 and a[2] < b[4] - 1 and b[2] < a[4] - 1
                        assert ticks or not hit, (tab, a[0], b[0])
    finally:
        drv.quit()
