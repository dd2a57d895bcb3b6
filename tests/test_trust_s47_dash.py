"""The HTML dashboard draws every figure it states, and its hovers and captions say the figure the table prints
(session 47).

Faults fixed, each checked against the trace itself or a figure worked out by hand in the test:

1. a kernel whose theoretical occupancy the block size alone bounds (registers / shared memory not recorded) had a
   theoretical bar of nothing labelled "≤ 66.7 % (…) · unknown", and a legend entry for bars never drawn: the bound
   is now drawn as an outlined bar in the theoretical bar's place, "≤ 66.7 %", and the caption says what it is;
2. chart hovers printed plotly's own reading of the bar (``hoverinfo: "text+x"``: 97.86969720100086 as "97.8697",
   0.47985 ms) beside the table's "97.9 %": each hover now gives the figure as the table prints it;
3. stall-class labels carried the unit their figure carries ("memory latency %: 32.5 %");
4. generic charts said only "4 rows from the cpu operators analysis." (what the bars are, and the largest, now),
   and the memory timeline drew each device's peak *offset* (a point in time) as a bar;
5. a CPU-only run's first page read "0 findings, largest time at stake first; …" above an empty table.
"""

from __future__ import annotations

import csv
import json
import re
from html import unescape
from pathlib import Path

import pytest

import gpulens
from gpulens.reports import html as H
from tests.conftest import KINETO, shared_trace

DEMO = Path(gpulens.__file__).parent / "data" / "demo_h100_bert-small.pt.trace.json.gz"
CPU_ONLY = KINETO / "torch2.13_cpu_only_mm.pt.trace.json"
NCU_STALLS = Path(__file__).parent / "data" / "stalls" / "ncu_details_stalls.csv"
MULTIRANK = KINETO / "multirank"


def _specs(page: str) -> dict[str, dict]:
    """Every plotly figure embedded in a page: {script id: {"data", "layout"}}."""
    out = {}
    for m in re.finditer(r'<script type="application/json" id="(fig-[^"]+)">(.*?)</script>', page, re.S):
        spec = json.loads(m.group(2))
        if isinstance(spec, dict) and "data" in spec:
            out[m.group(1)] = spec
    return out


def _page_of(page: str, pid: str) -> str:
    m = re.search(rf'<section role="tabpanel" id="page-{pid}".*?(?=<section role="tabpanel"|</main>)', page, re.S)
    return m.group(0)


def _text(fragment: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _strings(trace: dict) -> list[str]:
    out: list[str] = []
    for key in ("text", "hovertext", "hovertemplate", "name"):
        v = trace.get(key)
        out += [x for x in (v if isinstance(v, list) else [v]) if isinstance(x, str)]
    return out


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    """The dashboards of four inputs of different families (rendered once for the module)."""
    paths = {"demo": DEMO, "cpu": CPU_ONLY, "stalls": NCU_STALLS, "ranks": MULTIRANK}
    return {k: H.render(gpulens.analyze([p])) for k, p in paths.items()}


# --- 1. the block size's bound on theoretical occupancy is drawn -------------------------------------------------

def test_occupancy_bound_is_drawn_where_the_theoretical_bar_would_be():
    path = shared_trace("ncu/olajide_rtx5070_metrics_gemm_naive.csv")
    rows = list(csv.DictReader(l for l in open(path, encoding="utf-8-sig") if l.startswith('"')))
    # the file: one kernel, "Block Size" (32, 32, 1) on CC 12.0, no registers or shared memory metric
    assert {r["Block Size"] for r in rows} == {"(32, 32, 1)"} and {r["CC"] for r in rows} == {"12.0"}
    achieved = float(next(r["Metric Value"] for r in rows
                          if r["Metric Name"] == "sm__warps_active.avg.pct_of_peak_sustained_active"))
    # by hand: 1,024 threads = 32 warps; sm_120 holds 48 warps per SM, so one block fits: 32 / 48 = 66.7 % at most
    bound = 100 * 32 / 48
    page = H.render(gpulens.analyze([path]))
    occ = _page_of(page, "occupancy")
    (spec,) = _specs(occ).values()
    by_name = {t["name"]: t for t in spec["data"]}
    outlined = next(t for n, t in by_name.items() if n.startswith("theoretical: at most"))
    assert outlined["x"] == [pytest.approx(bound)] and outlined["text"] == ["≤ 66.7 %"]
    assert "its block size alone allows at most 66.7 %" in outlined["hovertext"][0]
    ach = by_name["achieved"]
    assert ach["x"] == [pytest.approx(achieved)] and ach["text"] == [f"{achieved:.1f} %"]
    # the bound sits in the theoretical bar's slot, the achieved bar in its own
    assert outlined["offsetgroup"] != ach["offsetgroup"]
    # no trace of nothing (the old "theoretical" legend entry had no bar), no "unknown" beside a known bound
    assert all(any(x is not None for x in t["x"]) for t in spec["data"])
    assert not any("unknown" in s for t in spec["data"] for s in t["text"])
    cap = _text(re.search(r"<figcaption[^>]*>(.*?)</figcaption>", occ, re.S).group(1))
    assert "the outlined bar is the most theoretical occupancy the block size alone allows" in cap
    # the kernel's own page: the same bound, never "theoretical not measured" beside it
    kp = _text(_page_of(page, "kernel"))
    assert "theoretical ≤ 66.7 % achieved 66.6 %" in kp and "theoretical not measured" not in kp
    assert "Limiter: unknown — theoretical ≤ 66.7 % (registers and shared memory not recorded)" in kp


def test_occupancy_with_known_theoretical_draws_no_bound(pages):
    """Demo (H100 Kineto, registers and shared memory recorded): every hot kernel has its theoretical figure, so
    no outlined bar; each bar's hover says the figure its label prints."""
    (spec,) = _specs(_page_of(pages["demo"], "occupancy")).values()
    assert [t["name"] for t in spec["data"]] == ["theoretical (achieved occupancy not measured)"]
    theo = spec["data"][0]
    for x, text, hover in zip(theo["x"], theo["text"], theo["hovertext"]):
        figure = text.split(" · ")[0]  # one decimal, rounded half up: 5 blocks × 4 warps of 64 = 31.25 → 31.3 %
        assert abs(float(figure.removesuffix(" %")) - x) <= 0.05 + 1e-9
        assert f"theoretical occupancy {figure} · limiter: " in hover


# --- 2. every hover gives its figure as text; 3. no label carries its figure's unit ------------------------------

def test_no_chart_leaves_its_hover_figure_to_plotly_or_draws_nothing(pages):
    for key, page in pages.items():
        for fid, spec in _specs(page).items():
            for t in spec["data"]:
                if t.get("type") != "bar":
                    continue
                where = f"{key} {fid} {t.get('name')}"
                # plotly's own "x" printed 97.86969720100086 as 97.8697 beside the table's 97.9 %
                assert "x" not in str(t.get("hoverinfo", "")).split("+"), where
                assert any(v is not None for v in t.get("x") or []), where  # a legend entry for no bar
                for s in _strings(t):
                    assert "%:" not in s and "% %" not in s, (where, s)  # "memory latency %: 32.5 %"


def test_stall_classes_are_named_without_their_unit(pages):
    """ncu details CSV with warp-state sampling: the stall chart's parts and the kernel pages' stall rows are the
    class names ("memory latency"), the unit on the axis and the figure."""
    spec = next(s for s in _specs(_page_of(pages["stalls"], "verdicts")).values()
                if "share of stall time" in json.dumps(s["layout"]["xaxis"]))
    names = [t["name"] for t in spec["data"]]
    assert names and not any(n.endswith("%") for n in names)
    for t in spec["data"]:
        assert t["hovertemplate"].endswith(f"{t['name']}: %{{x:.3g}} %<extra></extra>")
    kp = _text(_page_of(pages["stalls"], "kernel"))
    assert "Stall classes (share of stall time)" in kp and not re.search(r"[a-z] % \d", kp)


# --- 4. generic charts: what the bars are; no point in time as a bar ---------------------------------------------

def test_cpu_operator_chart_says_its_largest_bar_as_the_trace_records_it(pages):
    events = json.loads(CPU_ONLY.read_text())["traceEvents"]
    mm = [e["dur"] for e in events if e.get("name") == "aten::mm" and e.get("cat") == "cpu_op"]
    assert len(mm) == 3
    want = f"{sum(mm):.2f} µs"  # 454.855 + 15.313 + 9.685 µs, none nested in another
    assert want == "479.85 µs"
    summary = _page_of(pages["cpu"], "summary")
    spec = next(s for s in _specs(summary).values() if "recorded time" in json.dumps(s["layout"]))
    (bar,) = spec["data"]
    i = bar["hovertext"].index(next(h for h in bar["hovertext"] if h.startswith("aten::mm<br>")))
    assert bar["hovertext"][i] == f"aten::mm<br>recorded time: {want}"
    assert f"the largest: aten::mm, {want}." in _text(summary)


def test_no_chart_draws_a_point_in_time_as_a_length(pages):
    """The memory timeline's ``peak_offset_ns`` (when each device peaked) was drawn as bars."""
    for key, page in pages.items():
        for fid, spec in _specs(page).items():
            title = json.dumps(spec["layout"].get("xaxis", {}).get("title", ""))
            bars = [t for t in spec["data"] if t.get("type") == "bar"]
            if bars:
                assert "in profiled window" not in title and "offset" not in title, (key, fid, title)


# --- 5. a first page with no finding says why --------------------------------------------------------------------

def test_cpu_only_run_says_why_it_has_no_findings(pages):
    summary = _text(_page_of(pages["cpu"], "summary"))
    assert "No findings: nothing ran on a GPU to judge." in summary
    assert "0 findings" not in summary and "largest time at stake first" not in summary


# --- 6. an empty environment section says so once ----------------------------------------------------------------

def test_environment_says_once_that_no_device_was_recorded(pages):
    """The sampled two-rank Kineto traces hold no ``deviceProperties``: "Devices as recorded" read "0 records." above
    "Nothing recorded."."""
    import gzip

    for f in sorted(MULTIRANK.iterdir()):
        assert "deviceProperties" not in json.loads(gzip.open(f).read())
    env = _page_of(pages["ranks"], "environment")
    sec = _text(re.search(r"<h3>Devices as recorded</h3>.*?</section>", env, re.S).group(0))
    assert sec == "Devices as recorded The input records no device."  # no "None:" (read as a Python None)
    assert "0 records" not in _text(env)
