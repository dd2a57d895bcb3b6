"""The HTML report without a browser: self-contained, escaped, pages for present and absent analyses, size budget."""

import json
from pathlib import Path
import re

import pandas as pd
import pytest

import gpulens
from gpulens.analyzers import AnalysisResult, Finding
from gpulens.reports import _html_analyses as A
from gpulens.reports import html
from tests.conftest import KINETO
from tests.synth import write_kineto

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def h100():
    return gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])


def _specs(page: str) -> dict[str, dict]:
    return {m.group(1): json.loads(m.group(2)) for m in
            re.finditer(r'<script type="application/json" id="(fig-\d+)-spec">(.*?)</script>', page)}


def _page(page: str, pid: str) -> str:
    m = re.search(rf'<section role="tabpanel" id="page-{pid}".*?(?=<section role="tabpanel"|</main>)', page, re.S)
    assert m, pid
    return m.group(0)


def test_self_contained_with_plotly_once(h100):
    page = html.render(h100)
    # plotly.js travels gzip + base64 in one inert script element, decompressed by the page (DecompressionStream)
    blobs = re.findall(r'<script type="application/octet-stream" id="plotly-gz">([A-Za-z0-9+/=]+)</script>', page)
    assert len(blobs) == 1
    import base64
    import gzip

    js = gzip.decompress(base64.b64decode(blobs[0])).decode("utf-8")
    assert js.count("* plotly.js") == 1 and "Licensed under the MIT license" in js  # the bundle's licence header
    assert "DecompressionStream('gzip')" in page
    tags = re.findall(r"<(?:script|link|img|iframe)\b[^>]*>", page)
    assert not [t for t in tags if re.search(r"\b(src|href)=", t)], "no external resource may be referenced"
    # nothing outside the bundle points at the network, but the timeline's opt-in "Open in ui.perfetto.dev" button
    ours = page.replace(blobs[0], "").replace("var origin='https://ui.perfetto.dev'", "")
    assert "http://" not in ours and "https://" not in ours
    assert len(page.encode("utf-8")) <= 2_500_000  # issue 18: a report is at most 2.5 MB
    tabs = re.findall(r'<button role="tab"[^>]*>([^<]+)</button>', page)
    assert tabs == ["Summary", "Time breakdown", "Hot kernels", "Roofline", "Occupancy", "Stalls &amp; verdicts",
                    "Timeline", "Multi-rank", "Other analyses", "Kernel details", "Environment"]


def test_figures_draw_the_report_tables(h100):
    page = html.render(h100)
    specs = _specs(page)
    hs = h100.sources[0].results["hotspots"]
    kern = _specs(_page(page, "kernels"))
    (bar,) = next(iter(kern.values()))["data"]
    crit = hs.table[hs.table["critical"]]
    assert len(bar["y"]) == len(crit) == hs.summary["critical_count"] == 6
    # the axis unit follows the magnitude: the largest bar is 98.718 µs (SOURCES.md: the top H100 BERT kernel's
    # summed time), so the axis reads µs — never 0.099 ms
    assert bar["x"] == pytest.approx((crit["effective_ns"] / 1e3).tolist()) and bar["x"][0] == pytest.approx(98.718)
    assert "GPU time [µs]" in json.dumps(next(iter(kern.values()))["layout"], ensure_ascii=False)
    # every figure has an accessible name and a caption (text alternative) and a data table
    # (plotly figures have a spec; the Summary's chart is plain HTML bars, drawn before plotly loads)
    static = page.count('class="chart static"')
    assert static == 1 and '<div class="hbars">' in _page(page, "summary")
    assert len(re.findall(r'<figure class="fig" role="img" aria-label="[^"]+">', page)) == len(specs) + static
    assert page.count("<figcaption>") == len(specs) + static
    # the top kernel's full name is in the kernels table
    assert html.esc(hs.table["name"].iloc[0]) in _page(page, "kernels")


def test_absent_analyses_say_why(h100):
    src = h100.sources[0]
    # take away the analyses that would fill those pages (roofline, occupancy, stall/verdict results)
    saved = {k: src.results.pop(k) for k in ["roofline", "occupancy", *A.verdict_names(src)] if k in src.results}
    try:
        page = html.render(h100)
        for pid in ("roofline", "occupancy", "verdicts"):
            assert "analysis not available" in _page(page, pid)
        assert "1 rank with GPU kernels: nothing to compare" in _page(page, "ranks")
        src.results["roofline"] = AnalysisResult("roofline", skipped_reason="no FLOP counts for any hot kernel")
        assert "no FLOP counts for any hot kernel" in _page(html.render(h100), "roofline")
    finally:
        src.results.pop("roofline", None)
        src.results.update(saved)


def _roofline_table():
    # H100 SXM dense BF16 989.4 TFLOP/s, HBM3 3.35 TB/s → ridge 295.3 FLOP/byte
    return pd.DataFrame({
        "name": ["gemm <bf16>", "add_kernel"], "calls": [10, 40], "time_ns": [8_000_000, 2_000_000],
        "flops": [4e12, 1e9], "bytes": [8e9, 1.2e10], "flops_per_s": [5e14, 5e11], "bytes_per_s": [1e12, 6e12 / 2],
        "arithmetic_intensity": [500.0, 1 / 12], "precision": ["bf16", "bf16"],
        "peak_flops_per_s": [989.4e12, 989.4e12], "peak_bytes_per_s": [3.35e12, 3.35e12],
        "ridge_point": [295.3, 295.3], "bound": ["compute", "memory"], "roof_pct": [50.5, 89.6],
        "flops_source": ["shapes", "shapes"]})


def test_roofline_and_occupancy_pages_when_present(h100):
    src = h100.sources[0]
    src.results["roofline"] = AnalysisResult("roofline", _roofline_table())
    src.results["occupancy"] = AnalysisResult("occupancy", pd.DataFrame({
        "name": ["gemm <bf16>"], "calls": [10], "time_ns": [8_000_000], "block_size": [256], "regs_per_thread": [168],
        "smem_bytes": [49152], "active_blocks_per_sm": [1], "theoretical_occupancy_pct": [12.5],
        "achieved_occupancy_pct": [11.9], "limiter": ["registers"]}),
        findings=[Finding("Registers limit gemm to 12.5 % occupancy", kernel="gemm <bf16>")])
    try:
        page = html.render(h100)
    finally:
        del src.results["roofline"], src.results["occupancy"]
    roof = _page(page, "roofline")
    (spec,) = _specs(roof).values()
    marks = {t["name"]: t for t in spec["data"] if t["mode"].startswith("markers")}
    # a table without ``compute_roof`` (older cached results): the roof is the figure of the row's precision
    assert set(marks) == {"compute-bound · vs matrix bf16 (tensor cores)", "memory-bound · vs matrix bf16 (tensor cores)"}
    assert spec["layout"]["xaxis"]["type"] == spec["layout"]["yaxis"]["type"] == "log"
    # roofs named by unit and level: the H100's HBM3 (3.35 TB/s) meets its bf16 tensor-core roof (989.4 TFLOP/s)
    lines = {t["name"]: t for t in spec["data"] if t["mode"] == "lines"}
    hbm = lines["HBM/DRAM 3.35 TB/s (memory roof)"]
    assert hbm["y"][1] == pytest.approx(989.4e12) and hbm["x"][1] == pytest.approx(989.4e12 / 3.35e12)
    assert "matrix bf16 (tensor cores) 989.40 TFLOP/s" in lines
    assert "ridge 295 FLOP/B · matrix bf16 (tensor cores)" in json.dumps(spec["layout"]["annotations"], ensure_ascii=False)
    # marker area ∝ GPU time: the sizes are the kernels' times (8 ms and 2 ms)
    assert sorted(marks["compute-bound · vs matrix bf16 (tensor cores)"]["marker"]["size"]
                  + marks["memory-bound · vs matrix bf16 (tensor cores)"]["marker"]["size"]) == [2_000_000, 8_000_000]
    assert "&lt;bf16&gt;" in roof and "<bf16>" not in roof
    occ = _page(page, "occupancy")
    (spec,) = _specs(occ).values()
    assert [t["name"] for t in spec["data"]] == ["theoretical", "achieved"]
    assert spec["data"][0]["x"] == [12.5] and spec["data"][1]["x"] == [11.9]
    # the caption says what the chart shows (not the result's first finding, often a waves finding the chart does
    # not draw): the kernels drawn, and the bar of the kernel with the most GPU time with what limits it
    assert "Theoretical occupancy of the 1 hot kernel — " in occ
    assert "has 12.5 % theoretical occupancy (limited by registers)." in occ
    assert "registers" in occ


def test_roofline_draws_every_roof_the_table_judges_against(h100):
    """A GEMM judged on the bf16 tensor-core roof and an elementwise kernel judged on the FP32 CUDA-core roof: both
    roofs are drawn at their datasheet height with their ridge point, and each point has its roof's colour."""
    src = h100.sources[0]
    # NVIDIA H100 SXM datasheet: dense BF16 tensor core 989.4 TFLOP/s, FP32 (CUDA cores) 66.9 TFLOP/s, HBM3 3.35 TB/s
    # → ridge points 989.4e12 / 3.35e12 = 295.3 and 66.9e12 / 3.35e12 = 19.97 FLOP/B
    t = pd.DataFrame({
        "name": ["gemm_bf16", "layer_norm"], "calls": [10, 40], "time_ns": [8_000_000, 2_000_000],
        "flops": [4e12, 4e9], "bytes": [8e9, 4e9], "flops_per_s": [5e14, 2e12], "bytes_per_s": [1e12, 2e12],
        "arithmetic_intensity": [500.0, 1.0], "precision": ["bf16", "bf16"],
        "peak_flops_per_s": [989.4e12, 66.9e12], "compute_roof": ["matrix.bf16", "vector.fp32"],
        "peak_bytes_per_s": [3.35e12, 3.35e12], "ridge_point": [989.4e12 / 3.35e12, 66.9e12 / 3.35e12],
        "bound": ["compute", "memory"], "roof_pct": [50.5, 59.7], "flops_source": ["shapes", "shapes"]})
    saved = src.results.get("roofline")
    src.results["roofline"] = AnalysisResult("roofline", t)
    try:
        roof = _page(html.render(h100), "roofline")
    finally:
        if saved is None:
            del src.results["roofline"]
        else:
            src.results["roofline"] = saved
    (spec,) = _specs(roof).values()
    lines = {t["name"]: t for t in spec["data"] if t["mode"] == "lines"}
    tc, cuda = lines["matrix bf16 (tensor cores) 989.40 TFLOP/s"], lines["vector fp32 (CUDA cores) 66.90 TFLOP/s"]
    assert tc["y"] == [pytest.approx(989.4e12)] * 2 and cuda["y"] == [pytest.approx(66.9e12)] * 2
    # each compute roof starts at its ridge point on the HBM roof
    assert tc["x"][0] == pytest.approx(295.34, rel=1e-3) and cuda["x"][0] == pytest.approx(19.97, rel=1e-3)
    notes = json.dumps(spec["layout"]["annotations"], ensure_ascii=False)
    assert "ridge 295 FLOP/B · matrix bf16 (tensor cores)" in notes and "ridge 20 FLOP/B · vector fp32 (CUDA cores)" in notes
    marks = {t["name"]: t for t in spec["data"] if t["mode"].startswith("markers")}
    gemm = marks["compute-bound · vs matrix bf16 (tensor cores)"]
    norm = marks["memory-bound · vs vector fp32 (CUDA cores)"]
    assert gemm["x"] == [500.0] and norm["x"] == [1.0]
    assert gemm["marker"]["color"] == tc["line"]["color"] != norm["marker"]["color"] == cuda["line"]["color"]
    assert gemm["marker"]["symbol"] != norm["marker"]["symbol"]  # the shape tells the bound
    assert spec["layout"]["xaxis"]["title"]["text"] == "arithmetic intensity [FLOP/B]"
    assert spec["layout"]["yaxis"]["title"]["text"].endswith("[FLOP/s]")
    # the table says which roof each kernel is judged against
    assert "vector fp32 (CUDA cores)" in roof and "judged against" in roof


def test_new_analyzers_show_up_generically(h100):
    src = h100.sources[0]
    src.results["warp_stalls"] = AnalysisResult(
        "warp_stalls", pd.DataFrame({"class": ["memory latency", "compute pipe"], "time_ns": [3_000_000, 1_000_000]}),
        {"class": "stall class", "time_ns": "time [ns]"}, findings=[Finding("Memory latency dominates", "x")])
    src.results["my_new_analysis"] = AnalysisResult("my_new_analysis", pd.DataFrame({"name": ["q"], "score": [0.5]}))
    try:
        page = html.render(h100)
    finally:
        del src.results["warp_stalls"], src.results["my_new_analysis"]
    stalls = _page(page, "verdicts")
    # among the stall/verdict results drawn there, the new one has its own bar chart
    assert [3.0, 1.0] in [spec["data"][0]["x"] for spec in _specs(stalls).values()]
    assert "Memory latency dominates" in stalls
    assert "My new analysis" in _page(page, "other") and "Launches" in _page(page, "other")


def test_kernel_names_are_escaped(tmp_path):
    tl = gpulens.collect(KINETO / "hta_mi250_minitoy_rocm6.2.json.gz")
    cats = tl.events["name"].cat.categories
    first = tl.events.loc[tl.events["kind"] == "kernel", "name"].iloc[0]
    tl.events["name"] = tl.events["name"].cat.rename_categories([XSS if c == first else c for c in cats])
    page = html.render(gpulens.Report([gpulens.analyze_timeline(tl, 'q"uote</script><b>x')]))
    assert XSS not in page and "</script><b>" not in page
    assert html.esc(XSS) in page  # shown as text in the tables
    assert "&lt;img src=x onerror=alert(1)&gt;" in json.dumps([s for s in _specs(page).values()])


def test_100k_kernel_trace_stays_under_budget(tmp_path):
    path = tmp_path / "big.json"
    facts = write_kineto(path, 100_000, n_names=5_000, name_len=400, streams=4)
    rep = gpulens.analyze([path])
    assert rep.sources[0].summary["kernel_count"] == facts["kernels"]
    page = html.render(rep)
    size = len(page.encode("utf-8"))
    assert size < html.SIZE_BUDGET_BYTES, size
    assert "merged into" in _page(page, "timeline")  # the timeline was decimated


def test_many_inputs_stay_under_budget(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    write_kineto(path, 6_000, n_names=3_000, name_len=600, streams=8)
    src = gpulens.analyze([path]).sources[0]
    rep = gpulens.Report([src] * 6)  # the same input six times: the per-input caps shrink
    page = html.render(rep)
    size = len(page.encode("utf-8"))
    assert size < html.SIZE_BUDGET_BYTES
    assert page.count('<h2 class="source">') == 6 * len(html.PAGES) + 6  # every page lists every input
    # caps are 200 rows × scale / 6 inputs: 33 at full scale, 16 at half, 8 at a quarter, 5 (the floor) below
    first = int(re.search(r"Showing the first (\d+) of 3,000 rows", page).group(1))
    assert first in (33, 16, 8)
    # over a (lowered) budget the page is rendered again with smaller caps
    monkeypatch.setattr(html, "SIZE_BUDGET_BYTES", size - 1)
    smaller = html.render(rep)
    assert len(smaller.encode("utf-8")) < size
    assert int(re.search(r"Showing the first (\d+) of 3,000 rows", smaller).group(1)) < first


def test_cpu_only_trace_renders_and_says_why():
    page = html.render(gpulens.analyze([KINETO / "hta_cpu_only_rank34.pt.trace.json.gz"]))
    # no chart at all: no GPU work, and the host-operator table (cpu_ops) has one row (a one-bar chart says nothing)
    assert _specs(page) == {}
    assert "aten::empty" in _page(page, "other")
    assert "no GPU events in the trace" in _page(page, "breakdown")
    assert "no kernels in the trace" in _page(page, "kernels")
    assert "no GPU events in the trace" in _page(page, "timeline")
    summary = _page(page, "summary")
    # the trace records distributedInfo.world_size 300: rank 34 alone is 1 of 300 ranks (said since issue s25)
    assert "<td>no GPU work</td>" in summary and '<th scope="row">ranks</th><td>34 (1 of 300 ranks)</td>' in summary


def test_multirank_page_states_the_overlap_per_rank():
    """Issue 18: the per-rank breakdown says how much communication compute hid. overlap = (comm − exposed) / comm,
    from the breakdown's per-GPU sums of each rank."""
    import gpulens
    from gpulens.reports._format import fmt_unit

    rep = gpulens.analyze([KINETO / "multirank"])
    s = rep.sources[0]
    bd = s.results["breakdown"].table.groupby("rank")[["comm_ns", "exposed_comm_ns"]].sum()
    text = " ".join(re.sub(r"<[^>]+>", " ", _page(html.render(rep), "ranks")).split())
    for r, row in bd.iterrows():
        pct = 100 * (row["comm_ns"] - row["exposed_comm_ns"]) / row["comm_ns"]
        assert 0 < pct < 100
        assert f"rank {r}: {fmt_unit(pct, '%')}" in text


def test_first_screen_lists_the_kernels_that_matter_with_their_bound(h100):
    """The answer banner names the kernel with the most GPU time, its time from the trace file itself, its bound and
    a next step, before any other block of the page."""
    import gzip
    from collections import defaultdict

    events = json.loads(gzip.open(KINETO / "tracelens_h100_bert-small.json.gz").read())["traceEvents"]
    per = defaultdict(float)
    for e in events:  # Kineto: GPU kernels are complete events of category "kernel", dur in µs
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            per[e["name"]] += float(e["dur"])
    top, us = max(per.items(), key=lambda kv: kv[1])
    summary = _page(html.render(h100), "summary")
    banner = re.search(r'<section class="answer".*?</section>', summary, re.S).group(0)
    assert summary.index(banner) < summary.index('<section class="panel">')  # the answer comes first
    assert "Kernels that matter" in banner
    row = re.search(rf'<tr><td class="num"[^>]*>1</td><td class="name" title="{re.escape(html.esc(top))}">.*?</tr>',
                    banner, re.S)
    assert row, "the top kernel is the banner's first row"
    assert f"{us:.2f} µs" in row.group(0)  # 98.72 µs summed over its 17 launches in the file
    # one of the bound vocabulary, and a next step (not an empty cell)
    assert re.search(r'class="bound b-\w+"[^>]*>(compute|memory|latency/occupancy|launch|communication)-bound<', row.group(0))
    step = re.search(r'<td class="step"[^>]*>(.*?)</td>', row.group(0)).group(1)
    assert len(step) > 20 and step != "none recorded"


def test_charts_say_they_are_drawing_until_drawn_and_say_so_when_they_fail(tmp_path):
    """Charts draw when their tab opens (plotly, seconds on a loaded machine): until then each chart div shows
    "Drawing the chart…", and a chart whose drawing failed says so and points at its data table — not a blank box.
    Checked on the written page: every script-drawn chart starts without ``data-rendered`` (the CSS placeholder
    applies), the page script sets ``data-rendered`` once drawn and ``data-failed`` in its error path, and the CSS
    names both states (checked in headless Chromium by hand: placeholder, drawn chart, failure text)."""
    from gpulens.cli import main

    out = tmp_path / "r.html"
    assert main(["analyze", "--demo", "--quiet", "--html", str(out)]) == 0
    page = out.read_text()
    charts = re.findall(r'<div class="chart( static)?" id="[^"]+"([^>]*)>', page)
    drawn_later = [attrs for static, attrs in charts if not static]
    assert drawn_later and all("data-rendered" not in a for a in drawn_later)
    assert '.chart:not(.static):not([data-rendered])::before{content:"Drawing the chart…"' in page
    assert ".chart:not(.static)[data-failed]::before{content:\"This chart could not be drawn" in page
    assert "catch(function(e){div.setAttribute('data-failed','1')" in page


def test_roofline_count_reads_against_the_critical_kernel_count(tmp_path):
    """The roofline plots the critical set's compute kernels; when the critical set holds NCCL kernels its count
    says how it differs from the summary's critical-kernel count (HTA's two-rank trace: the summary counts 9
    critical kernels, the roofline 8 — the ncclKernel_SendRecv one is left out)."""
    from gpulens.cli import main

    d = Path(__file__).parent / "data" / "kineto" / "multirank"
    out = tmp_path / "r.html"
    assert main(["analyze", str(d), "--quiet", "--html", str(out), "--json", str(tmp_path / "r.json")]) == 0
    rep = json.loads((tmp_path / "r.json").read_text())
    hs = rep["sources"][0]["analyses"]["hotspots"]
    crit = [r for r in hs["table"] if r["critical"]]
    nccl = [r for r in crit if r["name"].startswith("nccl")]
    assert nccl, "the fixture's critical set holds an NCCL kernel"
    n_hot = len(rep["sources"][0]["analyses"]["roofline"]["table"])
    assert n_hot == len(crit) - len(nccl)
    page = out.read_text()
    want = (f" of {n_hot} hot kernel{'s' if n_hot != 1 else ''} (the {len(crit)} critical kernels less {len(nccl)} communication "
            f"kernel{'s' if len(nccl) > 1 else ''}, which {'have' if len(nccl) > 1 else 'has'} no roofline) plotted")
    assert want in page
