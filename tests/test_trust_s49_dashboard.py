"""Session 49: the diff and gate HTML pages read at 1280 px without scrolling a table sideways, and no table cell of
the dashboard hides part of its value.

A GPU engineer opening ``gpulens gate --html`` on a 1280 px screen saw the "Every metric" table run 55 px past its
frame: the note column (why each metric passed or failed) was cut off and had to be scrolled to; the diff page's
per-kernel table (16 columns) likewise hid its last column, "of Δ". The kind of fault: a report table wider than the
page at 1280 px. Measured in a real browser (headless Chromium, 1280×800): every ``.tablewrap`` holds its table
without a horizontal scrollbar (``scrollWidth <= clientWidth``), and the page itself does not scroll sideways.
Second kind: a fixed-width column narrower than its value (rocpd's "11.04 µs · under 0.1 %", ncu's
"latency/occupancy-bound" badge) ran into the next column; every cell of every page is measured.

Skips (with the reason) when Chromium, ChromeDriver or Selenium is absent.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import KINETO
from tests.test_report_browser import browser  # noqa: F401  (the fixture; that module skips without Chromium)

#: a CUTLASS kernel name of the length real traces carry (the metric column shows it shortened, wrapped)
LONG = ("void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>"
        "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)")


def _overflow(browser, page: str, tmp_path: Path) -> dict:
    """Open ``page`` at 1280 px; return the page's scroll width and, per table frame (by its section id), the
    pixels its table runs past the frame (only frames that overflow)."""
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    browser.get(path.as_uri())
    time.sleep(0.3)
    return browser.execute_script("""
        var out={page:document.documentElement.scrollWidth, view:window.innerWidth, wide:{}, frames:0};
        document.querySelectorAll('.tablewrap').forEach(function(w){out.frames++;
          var s=w.closest('section'), id=s?s.id:'?';
          if(w.scrollWidth>w.clientWidth) out.wide[id]=w.scrollWidth-w.clientWidth;});
        return out;""")


def test_gate_page_of_several_runs_fits_1280_px(browser, tmp_path):
    """Six runs each side (so the CI, p, threshold, noise and band columns are all shown) and a long kernel name:
    the "Every metric" table, note column included, lies inside the page."""
    from gpulens.reports.gate_html import render
    from tests.test_trust_s39_html import gate_result

    page = render(gate_result(LONG, 1.15))
    assert "95 % CI" in page and "baseline noise" in page  # the widest form of the table is the one measured
    seen = _overflow(browser, page, tmp_path)
    assert seen["frames"] == 1 and seen["wide"] == {}, seen
    assert seen["page"] <= seen["view"], seen


def test_diff_page_per_kernel_table_fits_1280_px(browser, tmp_path):
    """A real pair (HTA's compare base on a V100 against AlexNet on an A100): 16 per-kernel columns with new,
    vanished and category-matched rows; every table of the page, "of Δ" column included, lies inside the page."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_html

    r = diff(KINETO / "hta_trace_compare_base.json.gz", KINETO / "hta_alexnet_a100.json.gz")
    seen = _overflow(browser, render_html(r), tmp_path)
    assert seen["frames"] >= 4 and seen["wide"] == {}, seen
    assert seen["page"] <= seen["view"], seen


#: cells whose content runs past their right edge (a value, a badge's border), on every page of the report; a
#: cell that shortens on purpose (``text-overflow: ellipsis``, its full text in a tooltip) is not counted
_CLIPPED = """
var out=[];
document.querySelectorAll('main section, [role=tabpanel]').forEach(function(p){p.hidden=false;});
document.querySelectorAll('td').forEach(function(td){
  if(!td.getClientRects().length||td.clientWidth===0) return;
  var cut=false;
  [td].concat(Array.prototype.slice.call(td.querySelectorAll('*'))).forEach(function(e){
    if(getComputedStyle(e).textOverflow==='ellipsis') cut=true;});
  if(!cut && td.scrollWidth>td.clientWidth)
    out.push(td.textContent.trim().slice(0,60)+' ['+td.scrollWidth+'>'+td.clientWidth+']');});
return out;"""


@pytest.mark.parametrize("trace", ["rocprof/rpd_matmul", "kineto/tracelens_h100_bert-small.json.gz",
                                   "nvidia/h200/h200_kernels_details.csv"])
def test_no_table_cell_of_the_dashboard_hides_part_of_its_value(browser, tmp_path, trace):
    """rocpd's kernel index showed "11.04 µs · under 0.1 %" in a 10em column: the "%" ran into the next column.
    ncu's "latency/occupancy-bound" badge ran 2 px past its 12.5em column. Every table cell of every page holds its
    text (or shortens it on purpose, with an ellipsis)."""
    import gpulens
    from gpulens.reports import html

    rep = gpulens.analyze([KINETO.parent / trace])
    _overflow(browser, html.render(rep), tmp_path)  # opened at 1280 px
    assert browser.execute_script(_CLIPPED) == []
