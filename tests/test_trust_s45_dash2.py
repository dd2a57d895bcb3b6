"""HTML dashboard leftovers (session 45, second wave), each checked on a real input against figures derived from it.

- The occupancy chart's caption was the analyzer's first finding (H200 GPT-2: "Grid of GammaBetaBackward… fills
  9.1 % of one wave", a waves finding the chart does not draw); it now says what the chart shows.
- The stall table's "reasons" cell listed all 18 ncu stall reasons (rows 12 lines tall) and, with the table in its
  original column order, the reasons and guidance were off the right edge at 1280 px; a mapping of figures now shows
  its largest entries (all in the tooltip) and the columns a reader needs come first.
- The diff page's two charts sized their label columns each to its own labels, so their bars did not line up.
- The kernel-details index was a list of names; it now gives each kernel's GPU time, bound and time at stake.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from collections import defaultdict
from html import unescape
from pathlib import Path

import pandas as pd
import pytest

H200 = Path(__file__).parent / "data" / "nvidia" / "h200"
GPT2 = H200 / "h200_gpt2_train.pt.trace.json.gz"


@pytest.fixture(scope="module")
def gpt2():
    import gpulens
    from gpulens.reports import html

    report = gpulens.analyze(GPT2)
    return report, html.render(report)


def _page(page: str, pid: str) -> str:
    return re.search(rf'<section role="tabpanel" id="page-{pid}".*?</section>(?=<section role="tabpanel"|</main>)',
                     page, re.S).group(0)


def _kernel_times_ms() -> dict[str, float]:
    """GPU time per kernel name summed from the trace's own kernel events [ms]."""
    with gzip.open(GPT2, "rt") as f:
        events = json.load(f)["traceEvents"]
    out: dict[str, float] = defaultdict(float)
    for e in events:
        if e.get("cat") == "kernel" and e.get("ph") == "X":
            out[e["name"]] += e["dur"] / 1e3
    return out


def test_occupancy_caption_says_what_the_chart_shows(gpt2):
    _, page = gpt2
    occ = _page(page, "occupancy")
    cap = unescape(re.search(r"<figcaption[^>]*>(.*?)</figcaption>", occ, re.S).group(1))
    assert "fills" not in cap and "wave" not in cap.split("Grid fill")[0]  # not the waves finding
    # 21 kernels drawn (the bars of the chart's spec: one per kernel)
    spec = json.loads(re.search(r'<script type="application/json" id="fig-\d+-spec">(.*?)</script>', occ,
                                re.S).group(1))
    n = len(spec["data"][0]["y"])
    assert cap.startswith(f"Theoretical occupancy of the {n} hot kernels")
    # a Kineto trace has no occupancy counters: achieved not measured (no achieved bars either)
    assert "achieved occupancy not measured" in cap and len(spec["data"]) == 1
    # the kernel with the most GPU time in the trace: cutlass 128x128, 254 registers/thread, 128 threads/block.
    # By hand (H200, sm_90: 65,536 registers per SM, allocated 256 per warp): 254 → 256 × 32 = 8,192 per warp,
    # 8 warps per SM = 2 blocks of 4 warps, of 64 warps: 12.5 %, limited by registers
    times = _kernel_times_ms()
    top = max(times, key=times.get)
    assert "cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1" in top
    assert "has 12.5 % theoretical occupancy (limited by registers)" in cap
    assert "cutlass_75_tensorop_bf16… 128x128" in cap


def test_kernel_index_gives_time_bound_and_stake(gpt2):
    report, page = gpt2
    kp = _page(page, "kernel")
    idx = re.search(r'<nav class="kindex".*?</nav>', kp, re.S).group(0)
    rows = re.findall(r"<tr><td class=\"num\">#(\d+)</td><td class=\"name\" title=\"([^\"]*)\"><a class=\"klink\" "
                      r"href=\"#(kernel-[\d-]+)\">[^<]*</a></td><td class=\"num\">([^<]*)</td><td><span class=\"bound "
                      r"[^\"]*\"[^>]*>([^<]*)</span></td><td class=\"num[^\"]*\"[^>]*>([^<]*)</td></tr>", idx)
    assert len(rows) == 30  # every kernel with a page (MAX_KERNELS)
    # every index link opens a kernel section of the page
    assert all(f'id="kp-{a.removeprefix("kernel-")}"' in kp for _, _, a, _, _, _ in rows)
    times = _kernel_times_ms()
    rank, name, _, time, bound, stake = rows[0]
    name = unescape(name)
    assert rank == "1" and name == max(times, key=times.get)
    assert time.startswith(f"{times[name]:.2f} ms · ")  # 20.04 ms: the trace's sum of its launches
    # bound and time at stake are the verdict table's (the answer banner's figures)
    vd = report.sources[0].results["verdicts"].table.set_index("name")
    from gpulens.units import fmt_ns

    judged = [r for r in rows if unescape(r[1]) in vd.index]
    assert len(judged) == len(vd) == 21
    for _, n, _, _, b, s in judged:
        row = vd.loc[unescape(n)]
        assert unescape(b) == row["verdict"]
        assert unescape(s).startswith(fmt_ns(row["time_at_stake_ns"]))  # a note mark may follow
    # the kernels outside the verdicts' set say so, never a bound they were not given
    rest = [r for r in rows if unescape(r[1]) not in vd.index]
    assert rest and all(b == "no verdict" and s == "unknown" for _, _, _, _, b, s in rest)


def _stall_table(page: str) -> tuple[list[str], list[list[str]]]:
    st = _page(page, "verdicts")
    panel = re.search(r"Stall classes of the hot kernels.*?</table>", st, re.S).group(0)
    heads = [unescape(h) for h in re.findall(r"<th [^>]*>([^<]*)", panel)]
    rows = re.findall(r"<tr>(.*?)</tr>", panel.split("<tbody>")[1], re.S)
    return heads, rows


def _expected_reasons() -> dict[str, list[tuple[str, float]]]:
    """Per kernel, its ncu stall reasons as shares of all stall reasons (the per-issue ratios of the raw CSV; the
    'selected' state is issuing, not a stall), largest first [%]."""
    d = pd.read_csv(H200 / "h200_kernels_raw.csv").iloc[1:]  # row 0: units
    pre, suf = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
    cols = [c for c in d.columns if c.startswith(pre) and c.endswith(suf) and c != f"{pre}selected{suf}"]
    out = {}
    for _, r in d.iterrows():
        v = {c[len(pre):-len(suf)]: float(r[c]) for c in cols}
        total = sum(v.values())
        out[str(r["Kernel Name"]).split("(")[0]] = sorted(((k, 100 * x / total) for k, x in v.items()),
                                                          key=lambda kv: -kv[1])
    return out


@pytest.mark.parametrize("name", ["h200_kernels_raw.csv", "h200_kernels.ncu-rep"])
def test_stall_reasons_cell_shows_the_largest_and_reads_first(name):
    if name.endswith(".ncu-rep"):
        pytest.importorskip("ncu_report")
    import gpulens
    from gpulens.reports import html

    page = html.render(gpulens.analyze(H200 / name))
    heads, rows = _stall_table(page)
    assert len(rows) == 4
    # what a reader needs first: kernel, time, what the warps waited on (class, share, reasons), what to do
    assert heads.index("reasons") <= 4 and heads.index("guidance") == heads.index("reasons") + 1
    expected = _expected_reasons()
    for row in rows:
        kernel = unescape(re.search(r'title="([^"(]*)', row).group(1))
        cell = re.search(r'<td class="items" title="([^"]*)">(.*?)</td>', row, re.S)
        shown = [unescape(x) for x in re.findall(r"<span>([^<]*)</span>", cell.group(2))]
        want = expected[kernel]
        assert shown == [f"{k}: {v:.1f} %" for k, v in want[:4]]
        assert f"+ {len(want) - 4} more" in cell.group(2)
        # the tooltip has every reason
        assert all(f"{k}:" in unescape(cell.group(1)) for k, _ in want)


def test_diff_charts_share_one_label_column(tmp_path):
    """H100 vs MI300X bert-small: the kernel chart's labels (operator + shapes, up to 48 characters) and the
    category chart's (at most 13) set one label width for both charts, so both charts' bars start at one x."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_html

    data = Path(__file__).parent / "data" / "kineto"
    page = render_html(diff(data / "tracelens_h100_bert-small.json.gz", data / "tracelens_mi300x_bert-small.json.gz"))
    wrap = re.search(r'<div class="dcharts" style="--dlw:min\(26em,max\(8em,(\d+)ch\)\)">(.*?</figure>)</div>',
                     page, re.S)
    assert wrap, "both charts in one .dcharts wrapper"
    figs = re.findall(r'<figure class="dchart" id="(chart-\w+)"', wrap.group(2))
    assert figs == ["chart-kernels", "chart-categories"]
    labels = [unescape(x) for x in re.findall(r'<span class="pl" title="[^"]*">([^<]*)</span>', page)]
    assert int(wrap.group(1)) == max(len(x) for x in labels) + 1
    assert ".dcharts .pbars{grid-template-columns:var(--dlw)" in page
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return
    # drawn: the first bar track of each chart starts at the same x (it was 200 px apart)
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", "<script>document.title=Array.prototype.map.call(document.querySelectorAll"
                                             "('.dchart .pbars'),function(g){return Math.round(g.querySelector('.pt')"
                                             ".getBoundingClientRect().left);}).join(',');</script></body>"),
                     encoding="utf-8")
    try:
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,800",
                              "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120).stdout
    except subprocess.TimeoutExpired:
        pytest.skip("chromium did not answer in 120 s")
    xs = re.search(r"<title>([\d,]*)</title>", dom)
    if not xs or not xs.group(1):
        pytest.skip("chromium drew nothing")
    lefts = {int(x) for x in xs.group(1).split(",")}
    assert len(lefts) == 1
