"""The HTML report in a real browser (Debian's headless Chromium driven by Selenium), with networking off.

For each report: no console error, every chart div renders an SVG, the page titles and kernel names are there,
nothing is fetched from the network, and a kernel named ``<img src=x onerror=alert(1)>`` is text that runs nothing.
Issue 18: the answer banner is inside the first 1280×800 viewport, the roofline has one point per hot kernel with a
FLOP figure, no page text shows a raw dict, list repr, None, nan, backslash-u escape or snake_case header, and no chart
shows two kernel labels that read the same. One screenshot per page is kept in ``tests/artifacts/`` (git-ignored;
or ``$GPULENS_ARTEFACTS``) as a test artefact.

Skips (with the reason) when Chromium, ChromeDriver or Selenium is absent; ``.ci/run`` installs them.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

import gpulens
from gpulens.reports import html
from gpulens.reports._names import short_names
from tests.conftest import KINETO
from tests.test_report_text import bad_text, duplicate_labels, prose_of, snake_headers

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ARTEFACTS = Path(os.environ.get("GPULENS_ARTEFACTS", Path(__file__).resolve().parent / "artifacts"))
XSS = "<img src=x onerror=alert(1)>"
PAGE_IDS = ["summary", "breakdown", "kernels", "roofline", "occupancy", "verdicts", "timeline", "ranks", "other",
            "kernel", "environment"]

if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip("Debian chromium and chromium-driver are not installed (apt-get install -y chromium "
                "chromium-driver; .ci/run does this)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install '.[test]')")

# Recorded before any page script runs: alert() calls and every uncaught error.
_PROBE = """window.__alerts=[];window.alert=function(m){window.__alerts.push(String(m));};
window.__errors=[];window.addEventListener('error',function(e){window.__errors.push(String(e.message));});"""


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="gpulens-chromium-")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage", "--window-size=1280,800", f"--user-data-dir={profile}"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    drv.execute_cdp_cmd("Network.enable", {})
    drv.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                                                              "downloadThroughput": -1, "uploadThroughput": -1})
    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _PROBE})
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _open(browser, report, tmp_path: Path, case: str) -> dict:
    """Load the report, show every tab, and return what was seen (per page: charts, rendered, text)."""
    path = tmp_path / f"{case}.html"
    path.write_text(html.render(report), encoding="utf-8")
    browser.get_log("browser"), browser.get_log("performance")  # drop earlier entries
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    browser.get(path.as_uri())
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    seen = {"_banner": browser.execute_script("""
        var b=document.querySelector('section.answer');if(!b)return null;var r=b.getBoundingClientRect();
        return {top:r.top,bottom:r.bottom,vh:window.innerHeight,text:b.innerText};""")}
    tabs = browser.find_elements("css selector", "nav [role=tab]")
    assert [t.get_attribute("aria-controls") for t in tabs] == [f"page-{p}" for p in PAGE_IDS]
    for tab in tabs:
        tab.click()
        pid = tab.get_attribute("aria-controls")
        state = {}
        for _ in range(200):  # up to 10 s for the charts of this page
            state = browser.execute_script("""
                var p=document.getElementById(arguments[0]), c=p.querySelectorAll('.chart');
                var ok=Array.prototype.filter.call(c,function(d){
                  return d.getAttribute('data-rendered')&&d.querySelector('svg, canvas, .hbars');});
                return {visible:!p.hidden, charts:c.length, rendered:ok.length, text:p.innerText,
                        svgtext:Array.prototype.map.call(c,function(d){return Array.prototype.map.call(
                          d.querySelectorAll('text'),function(t){return t.textContent;}).join(' ');}).join('\\n'),
                        ticks:Array.prototype.map.call(c,function(d){return Array.prototype.map.call(
                          d.querySelectorAll('.ytick text, .xtick text'),function(t){return t.textContent;});}),
                        points:Array.prototype.map.call(c,function(d){return (d.data||[]).filter(function(t){
                          return t.mode&&t.mode.indexOf('markers')>=0;}).reduce(function(n,t){
                          return n+(t.x||[]).length;},0);}),
                        th:Array.prototype.map.call(p.querySelectorAll('th'),function(h){return h.textContent;}),
                        headings:Array.prototype.map.call(p.querySelectorAll('h3'),function(h){return h.textContent;})};
            """, pid)
            if state["rendered"] == state["charts"]:
                break
            time.sleep(0.05)
        browser.save_screenshot(str(ARTEFACTS / f"{case}-{pid[5:]}.png"))
        seen[pid[5:]] = state
    links = browser.find_elements("css selector", "#page-kernel nav.kindex a")
    if links:  # open the first hot kernel's page (what a click on a kernel name does)
        browser.execute_script("location.hash=arguments[0];", links[0].get_attribute("href").split("#")[1])
        time.sleep(0.3)
        seen["_kernel_page"] = browser.execute_script(
            "var k=document.querySelector('section.kpage:not([hidden])');return k?k.innerText:null;")
        browser.save_screenshot(str(ARTEFACTS / f"{case}-kernel-detail.png"))
    seen["_console"] = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    seen["_errors"] = browser.execute_script("return window.__errors")
    seen["_alerts"] = browser.execute_script("return window.__alerts")
    seen["_imgs"] = browser.execute_script("return document.querySelectorAll('img').length")
    seen["_title"] = browser.title
    urls = []
    for e in browser.get_log("performance"):
        msg = json.loads(e["message"])["message"]
        if msg.get("method") == "Network.requestWillBeSent":
            urls.append(msg["params"]["request"]["url"])
    seen["_network"] = [u for u in urls if not u.startswith(("file:", "data:", "blob:", "about:"))]
    return seen


def _check_common(seen, report):
    assert seen["_console"] == [] and seen["_errors"] == [], (seen["_console"], seen["_errors"])
    assert seen["_network"] == []
    assert seen["_alerts"] == [] and seen["_imgs"] == 0
    assert seen["_title"].startswith("gpulens report")
    for pid in PAGE_IDS:
        st = seen[pid]
        assert st["visible"], pid
        assert st["rendered"] == st["charts"], f"{pid}: {st['rendered']} of {st['charts']} charts rendered"
    hs = report.sources[0].results["hotspots"].table
    top = short_names(hs["name"].astype(str))[0]
    assert top in seen["kernels"]["text"]                          # the sortable table: the short name
    assert top[:30] in seen["kernels"]["svgtext"]                  # the chart's tick label
    assert "Hot kernels: the performance-critical set" in seen["kernels"]["headings"]
    # the answer banner (verdict + top findings) lies wholly inside the first 1280×800 viewport
    b = seen["_banner"]
    assert b is not None and 0 <= b["top"] and b["bottom"] <= b["vh"] <= 800, b
    assert b["text"].strip()
    # the kernel page opened from the index names its kernel and says what is not measured
    assert seen.get("_kernel_page") and "Verdict" in seen["_kernel_page"]
    # no raw dict / list repr / None / nan / escape / snake_case header; no two equal labels in one chart
    prose = prose_of(report)  # the analyzers' own sentences are checked by test_report_text
    for pid in PAGE_IDS:
        st = seen[pid]
        flat = " ".join((st["text"] + " " + st["svgtext"]).split())
        assert not bad_text(flat, prose), (pid, bad_text(flat, prose))
        assert not snake_headers(st["th"]), (pid, snake_headers(st["th"]))
        for ticks in st["ticks"]:
            assert not duplicate_labels(ticks), (pid, duplicate_labels(ticks))
    # the roofline: one point per hot kernel with a FLOP figure (and an arithmetic intensity to place it by)
    rf = report.sources[0].results.get("roofline")
    if rf is not None and not rf.skipped and len(rf.table):
        t = rf.table
        expected = int(((pd.to_numeric(t["flops_per_s"], errors="coerce") > 0)
                        & (pd.to_numeric(t["arithmetic_intensity"], errors="coerce") > 0)).sum())
        assert seen["roofline"]["points"] == [expected], (seen["roofline"]["points"], expected)
    bd = report.sources[0].results.get("breakdown")
    if bd is not None and not bd.skipped:  # counter-only inputs have no timeline breakdown (the page says why)
        assert "Time breakdown per rank and GPU" in seen["breakdown"]["headings"]
    assert "Stream timeline" in seen["timeline"]["headings"]
    if bd is not None and not bd.skipped and report.sources[0].summary.get("gpu_busy_pct") is not None:
        assert "Where the GPU time went" in seen["summary"]["headings"] and seen["summary"]["charts"] >= 1
    # the roofline page draws its chart, or says why the analysis was skipped (e.g. "no FLOP source: ...")
    rl = seen["roofline"]
    assert rl["charts"] == 1 or "analysis not available" in rl["text"] or "no FLOP source" in rl["text"] \
        or "no device spec" in rl["text"]
    st = report.sources[0].results.get("stream_timeline")
    assert seen["timeline"]["charts"] == (1 if st is not None and not st.skipped and len(st.table) else 0)
    tl_text = seen["timeline"]["text"] + seen["timeline"]["svgtext"]
    assert "stream -1" not in tl_text and "thread -1" not in tl_text
    if st is not None and not st.skipped and st.summary.get("thread_count"):
        assert "CPU thread" in seen["timeline"]["svgtext"]  # host lanes beside the GPU lanes


def test_cuda_trace(browser, tmp_path):
    rep = gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])
    seen = _open(browser, rep, tmp_path, "cuda-h100")
    _check_common(seen, rep)
    assert "NVIDIA H100 80GB HBM3" in seen["summary"]["text"]
    assert "nothing to compare" in seen["ranks"]["text"]


def test_rocm_trace_with_a_hostile_kernel_name(browser, tmp_path):
    doc = json.loads(gzip.decompress((KINETO / "hta_mi250_minitoy_rocm6.2.json.gz").read_bytes()))
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    victim = max(kernels, key=lambda e: e["dur"])["name"]  # the longest kernel: it is on every chart
    for e in kernels:
        if e["name"] == victim:
            e["name"] = XSS
    trace = tmp_path / "rocm_xss.json"
    trace.write_text(json.dumps(doc))
    rep = gpulens.analyze([trace])
    assert rep.sources[0].results["hotspots"].table["name"].iloc[0] == XSS
    seen = _open(browser, rep, tmp_path, "rocm-mi250")
    _check_common(seen, rep)  # no alert, no <img> element, the name shown as text in table and chart
    # SOURCES.md: the MI250 toy trace names its device "AMD Radeon Graphics" and has 14 kernels of 12 names
    assert "AMD Radeon Graphics" in seen["summary"]["text"] and "14 launches of 12 kernels" in seen["summary"]["text"]
    assert XSS in seen["kernels"]["svgtext"]  # plotly drew the name as text


def test_multirank_pair(browser, tmp_path):
    rep = gpulens.analyze([KINETO / "multirank"])
    seen = _open(browser, rep, tmp_path, "multirank")
    _check_common(seen, rep)
    assert seen["ranks"]["charts"] == 2 and "Per-rank breakdown" in seen["ranks"]["headings"]
    assert "rank 0 · GPU 0" in seen["breakdown"]["svgtext"] and "rank 1 · GPU 1" in seen["breakdown"]["svgtext"]


def test_roofline_occupancy_and_verdict_pages_render(browser, tmp_path):
    """Results shaped as the roofline / occupancy / stall analyzers agree to produce, drawn in the browser."""
    import pandas as pd

    from gpulens.analyzers import AnalysisResult, Finding
    from tests.test_report_html import _roofline_table

    rep = gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])
    res = rep.sources[0].results
    res["roofline"] = AnalysisResult("roofline", _roofline_table())
    res["occupancy"] = AnalysisResult("occupancy", pd.DataFrame({
        "name": ["gemm <bf16>", "add_kernel"], "calls": [10, 40], "time_ns": [8_000_000, 2_000_000],
        "block_size": [256, 128], "regs_per_thread": [168, 32], "smem_bytes": [49152, 0],
        "active_blocks_per_sm": [1, 16], "theoretical_occupancy_pct": [12.5, 100.0],
        "achieved_occupancy_pct": [11.9, float("nan")], "limiter": ["registers", "blocks"]}))
    res["stalls"] = AnalysisResult("stalls", pd.DataFrame({"class": ["memory latency", "compute pipe"],
                                                           "share": [0.7, 0.3]}),
                                   findings=[Finding("Memory latency stalls dominate gemm", "...")])
    seen = _open(browser, rep, tmp_path, "analyses")
    _check_common(seen, rep)
    assert seen["roofline"]["charts"] == 1 and "ridge 295 FLOP/B · matrix bf16 (tensor cores)" in seen["roofline"]["svgtext"]
    assert "gemm <bf16>" in seen["roofline"]["text"]
    assert seen["occupancy"]["charts"] == 1 and "registers" in seen["occupancy"]["svgtext"]
    # the idle-cause stacked bar (bottlenecks) and the injected stalls table's bar chart; verdicts are a table
    assert seen["verdicts"]["charts"] == 2 and "Why the GPU was idle" in seen["verdicts"]["headings"]
    assert "memory latency" in seen["verdicts"]["svgtext"]


NSYS_EXPORT = "tests/data/nvidia/fuser_h200_nsys2024.6_report1.sqlite"


def test_nsys_export(browser, tmp_path):
    from gpulens.collectors import sniff

    path = Path(__file__).resolve().parents[1] / NSYS_EXPORT
    if not path.exists():
        pytest.skip(f"{NSYS_EXPORT} not in this checkout (the Nsight Systems collector's test data)")
    col = sniff(path)
    if col is None or not col.name.startswith("nsys"):
        pytest.skip("no Nsight Systems collector registered in this checkout")
    rep = gpulens.analyze([path])
    sm = rep.sources[0].summary  # SOURCES.md: 19 kernels, 393,539 ns in this Fuser H200 export
    assert (sm["kernel_count"], sm["kernel_time_ns"]) == (19, 393_539)
    seen = _open(browser, rep, tmp_path, "nsys-h200")
    _check_common(seen, rep)
    assert "NVIDIA H200" in seen["summary"]["text"]


@pytest.mark.parametrize("rel,case", [
    ("omniperf/vcopy_MI200", "rocprof-compute-mi200"),
    ("nsys/fuser_h200_nsys2024.6_report1.sqlite", "nsys-fuser-h200"),
    ("ncu/olajide_rtx5070_metrics_gemm_tiled.csv", "ncu-rtx5070"),
])
def test_shared_corpus_inputs(browser, tmp_path, rel, case):
    """A rocprof-compute folder, an Nsight Systems export and an Nsight Compute CSV from ../shared/traces."""
    from tests.conftest import shared_trace

    rep = gpulens.analyze([shared_trace(f"{rel}")])
    seen = _open(browser, rep, tmp_path, case)
    _check_common(seen, rep)


def _dense_trace(path: Path, n: int = 12_000) -> None:
    """n launches (cudaLaunchKernel, 2 µs, every 4 µs on host thread 7) each starting a 3 µs kernel 3 µs later."""
    ev = []
    for i in range(n):
        ts = 1000.0 + 4.0 * i
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 7, "ts": ts,
                   "dur": 2.0, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"kernel_{i % 5}", "pid": 0, "tid": 7, "ts": ts + 3.0,
                   "dur": 3.0, "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    path.write_text(json.dumps({"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}]}))


def test_timeline_zooms_to_single_events_and_draws_the_launch_flow(browser, tmp_path):
    """24,000 events (over the 20,000-segment budget): the overview merges, a zoom into a shaded region shows one bar
    per event — as many as the trace has in that range — and hovering a kernel draws the arrow from its launch,
    which the trace puts 3 µs before the kernel on the CPU thread lane."""
    from selenium.webdriver.common.action_chains import ActionChains

    trace = tmp_path / "dense.json"
    _dense_trace(trace)
    rep = gpulens.analyze([trace])
    _open(browser, rep, tmp_path, "dense")
    browser.execute_script("location.hash='#timeline'")
    time.sleep(0.5)
    info = """var d=document.querySelector('#page-timeline .chart');
      return {lanes:d.layout.yaxis.categoryarray, bars:d.data.slice(1).reduce(function(n,t){return n+t.x.length;},0),
              shaded:(d.layout.shapes||[]).filter(function(s){return s.type==='rect';}).map(function(s){return [s.x0,s.x1];}),
              status:document.querySelector('#page-timeline .tlstatus').textContent,
              line:(d.layout.shapes||[]).filter(function(s){return s.type==='line';}).map(function(s){
                return [s.x0,s.y0,s.x1,s.y1];})};"""
    st = browser.execute_script(info)
    assert st["lanes"] == ["rank 0 · CPU thread 7", "rank 0 · GPU 0 · stream 7"]
    assert "merging several events" in st["status"] and st["shaded"], st
    a = st["shaded"][0][0] + 0.1  # ms from the first event (the first launch, ts 1000 µs)
    b = a + 0.2
    browser.execute_script("Plotly.relayout(document.querySelector('#page-timeline .chart'),"
                           "{'xaxis.range':[arguments[0],arguments[1]]});", a, b)
    time.sleep(1.0)
    st = browser.execute_script(info)
    # events overlapping [a, b] ms: launch i spans [4i, 4i+2] µs, kernel i [4i+3, 4i+6] µs from the origin
    expected = sum(1 for i in range(12_000) for lo, hi in ((4 * i, 4 * i + 2), (4 * i + 3, 4 * i + 6))
                   if lo / 1e3 <= b and hi / 1e3 >= a)
    assert "one per event" in st["status"] and st["bars"] == expected, (st["status"], st["bars"], expected)
    bar = browser.execute_script("""var d=document.querySelector('#page-timeline .chart');
      var t=Array.prototype.filter.call(d.querySelectorAll('.barlayer .trace'),function(x,i){
        return d.data[i+1]&&d.data[i+1].name==='kernel';})[0];
      var ps=t.querySelectorAll('.point path');return ps[Math.floor(ps.length/2)];""")
    ActionChains(browser).move_to_element(bar).perform()
    time.sleep(0.8)
    st = browser.execute_script(info)
    assert len(st["line"]) == 1, st
    x0, y0, x1, y1 = st["line"][0]
    assert (y0, y1) == (0, 1) and x1 - x0 == pytest.approx(0.003, abs=1e-6)  # launch lane → stream lane, 3 µs
    ev = json.loads(browser.execute_script(
        "return document.querySelector('#page-timeline .chart').gpulensChromeTrace();"))["traceEvents"]
    names = {e["args"]["name"] for e in ev if e["ph"] == "M"}
    assert names == {"rank 0 · CPU thread 7", "rank 0 · GPU 0 · stream 7"}
    # the export holds every level's finest segments: their events add up to every event of the trace
    assert sum(e["args"]["events"] for e in ev if e["ph"] == "X") == 24_000
