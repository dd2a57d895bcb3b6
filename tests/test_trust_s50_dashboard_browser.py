"""Session 50, in a real browser (headless Chromium at 1280×800, every tab shown): the multi-rank report's
per-rank and per-GPU tables (idle split, ranks compared) lie inside their frames. Before this session 12 of that page's table frames scrolled
sideways (the idle split 2,937 px wide, the ranks compared 1,851 px, the annotations 2,022 px), 43 over six
reports. Skips (with the reason) when Chromium, ChromeDriver or Selenium is absent."""

from __future__ import annotations

import time

from tests.conftest import KINETO
from tests.test_report_browser import browser  # noqa: F401  (the fixture; that module skips without Chromium)

#: every table frame (by its panel's title) whose table is wider than the frame, in px, every tab and table shown
_WIDE = """
document.querySelectorAll('section[role=tabpanel]').forEach(function(p){p.hidden=false;});
document.querySelectorAll('details').forEach(function(d){d.open=true;});
var out={};document.querySelectorAll('.tablewrap').forEach(function(w){
  var h=w.closest('.panel'),t=h?h.querySelector('h3'):null;
  if(w.scrollWidth>w.clientWidth+1) out[t?t.textContent:'?']=w.scrollWidth-w.clientWidth;});
return out;"""


def test_multirank_report_tables_fit_1280_px(browser, tmp_path):  # noqa: F811
    import gpulens
    from gpulens.reports import html

    path = tmp_path / "mr.html"
    path.write_text(html.render(gpulens.analyze([KINETO / "multirank"])), encoding="utf-8")
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    browser.get(path.as_uri())
    time.sleep(0.3)
    wide = browser.execute_script(_WIDE)
    for title in ("Why the GPU was idle", "Per-rank breakdown", "Ranks compared"):
        assert title not in wide, wide
    # left: the kernel and operator tables (roofline, verdicts, groups, op rollup, GEMM shapes, annotations)
    assert len(wide) <= 6, wide
