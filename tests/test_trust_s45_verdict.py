"""Session 45: kernel verdicts that contradict the figures beside them, and verdict text a GPU engineer reads.

1. a roofline on an assumed GPU's peaks against ncu's measured speed of light: the measurement decides, and the
   roofline's "% of roofline" that says another bound carries a mark and the reason (``placement_note``) in every
   report (RTX 5090 CUTLASS GEMM: 53.5 % of an assumed GPU's bf16 roof beside compute 32.1 % / memory 27.7 %);
2. a corpus checker (:func:`contradictions`): per kernel verdict, its class against the figures shown, its time at
   stake against its time and the span, percentages against 100 — over every input of ../shared/traces and
   tests/data; memory-throughput stalls beside a memory side far from its peak say what is full;
3. the verdict's title leads with the answer: class and the one or two figures that prove it; the stake's basis or
   cap moves to the stake note and the detail;
4. the launch-floor cap in words: what it is and why ("even an empty kernel takes that much GPU time");
5. an above-roof row marks every figure resting on the impossible value, not only "% of roofline".
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

import gpulens
from gpulens.errors import GpulensError
from tests.conftest import DATA, SHARED

# --- the corpus checker ------------------------------------------------------------------------------------------

#: a collective's name (NCCL/RCCL kernels, c10d ops): a communication-bound verdict needs one
_COLLECTIVE = re.compile(r"nccl|rccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast", re.I | re.A)
_GRID = re.compile(r"(\d+) (?:blocks?|workgroups?) on (\d+) (?:SMs|CUs)", re.A)
#: the roofline bound each verdict may sit beside
_ROOF_BOUND = {"compute-bound": ("compute",), "memory-bound": ("memory",),
               "latency/occupancy-bound": ("latency/occupancy", "below-roofs"), "below-roofs": ("below-roofs",)}
SOL_PCT, ROOF_PCT = 60.0, 50.0  # verdict_rules: SOL_BOUND_PCT (ncu SOLBottleneck) and ROOF_BOUND_PCT


def _num(x) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if v != v else v


def _rows(res) -> dict:
    if res is None or res.skipped or res.table is None or not len(res.table):
        return {}
    return dict(zip(res.table["name"], res.table.to_dict("records")))


def contradictions(src) -> tuple[int, list[str]]:
    """(kernel verdicts checked, contradictions) of one analysed source: each verdict against the figures the
    reports show beside it — its roofline row, speed-of-light row and occupancy row (thresholds: the verdict rules'
    60 % of a measured unit's peak, 50 % of the roofline). A roofline placement that disagrees is a contradiction
    unless its row says why (``placement_note``, ``roof_note``); memory-bound from stalls beside a low memory side
    unless its evidence says what is full."""
    v = src.results.get("verdicts")
    if v is None or v.skipped or v.table is None or not len(v.table):
        return 0, []
    roof, sol, occ = (_rows(src.results.get(k)) for k in ("roofline", "speed_of_light", "occupancy"))
    sm = src.summary
    span = _num(sm.get("device_span_ns")) or _num(sm.get("span_ns"))
    gpus = max(1, len(sm.get("rank_span_ns") or {}))
    out: list[str] = []
    recs = v.table.to_dict("records")
    for r in recs:
        name, verdict, ev = r["name"], r["verdict"], r.get("evidence") or ""
        t, st = _num(r["time_ns"]), _num(r["time_at_stake_ns"])
        tag = f"{name[:70]} [{verdict}]"
        if st is not None:
            if st < 0:
                out.append(f"{tag}: negative time at stake {st}")
            if verdict != "launch-bound" and t is not None and st > t + 0.5:  # launch-bound: the idle before it
                out.append(f"{tag}: time at stake {st} > its time {t}")
            if span is not None and st > span * gpus + 0.5:
                out.append(f"{tag}: time at stake {st} > the span {span}")
        ro, so, oc = roof.get(name), sol.get(name), occ.get(name)
        note = r.get("stake_note") if isinstance(r.get("stake_note"), str) else ""
        calls = int(_num(r["calls"]) or 0)
        m = re.match(r"from .+? at (\d+(?:\.\d+)?) % of its peak", note, re.A)
        if st is not None and t and m:  # the figure is the distance to the peak its note names (one decimal)
            want = t * (1 - float(m.group(1)) / 100)
            if abs(st - want) > 0.0005 * t + 1 and abs(st - max(t - calls * 2_000, 0)) > 1:
                out.append(f"{tag}: time at stake {st} is not {note!r} of {t} ({want:.0f})")
        if st is not None and t and note.startswith("capped at its time less 2.00 µs") \
                and st != max(t - calls * 2_000, 0):
            out.append(f"{tag}: time at stake {st} beside {note!r} ({t} − {calls} × 2 µs)")
        for row, cols, what in ((ro, ("roof_pct", "bound_pct", "datasheet_roof_pct"), "roofline"),
                                (so, ("compute_pct", "memory_pct", "dram_pct", "l1_pct", "l2_pct", "tensor_pct",
                                      "achieved_occupancy_pct"), "speed of light"),
                                (oc, ("theoretical_occupancy_pct", "achieved_occupancy_pct"), "occupancy")):
            for c in cols if row else ():
                x = _num(row.get(c))
                if x is not None and x > 100.05 and not (what == "roofline" and row.get("roof_note")):
                    out.append(f"{tag}: {what} {c} {x:.1f} > 100 unflagged")
        rpct = _num(ro.get("roof_pct")) if ro else None
        side = ro.get("ridge_side") if ro else None
        cpct = _num(so.get("compute_pct")) if so else None
        tpct = _num(so.get("tensor_pct")) if so else None
        # the L1 figure a bound rests on (analyzers._stake): over the kernel's elapsed cycles where ncu gives it; the
        # "while active" one (l1_pct) of a 1-block kernel is its one SM's L1 (h200 tiny: 82.8 % active, 0.2 % run)
        l1 = (_num(so.get("l1_run_pct")) if _num(so.get("l1_run_pct")) is not None else _num(so.get("l1_pct"))) \
            if so else None
        # the HBM share of a measured peak (rocprof-compute roofline.csv) is a memory figure too (s46w2)
        mpct = max((x for x in [*(_num(so.get(c)) for c in ("memory_pct", "dram_pct", "dram_measured_pct", "l2_pct")),
                                l1]
                    if x is not None), default=None) if so else None
        measured = cpct is not None or mpct is not None
        if ro and verdict in _ROOF_BOUND and isinstance(ro.get("bound"), str) \
                and ro["bound"] not in _ROOF_BOUND[verdict]:
            out.append(f"{tag}: roofline bound {ro['bound']!r} beside it")
        if ro and verdict in _ROOF_BOUND and st is not None and ro.get("bound_basis") == "measured speed of light" \
                and _num(ro.get("time_at_stake_ns")) is not None and abs(_num(ro["time_at_stake_ns"]) - st) > 1:
            out.append(f"{tag}: roofline time at stake {ro['time_at_stake_ns']} beside its {st}")
        if ro and rpct is not None and rpct >= ROOF_PCT and verdict in ("latency/occupancy-bound", "below-roofs") \
                and not ro.get("placement_note") and not ro.get("roof_note"):
            out.append(f"{tag}: {rpct:.1f} % of roofline ({side} side) beside it, unexplained")
        if verdict == "compute-bound":
            if measured and not max(cpct or 0, tpct or 0) >= SOL_PCT:
                out.append(f"{tag}: measured compute {cpct} %")
            elif not measured and rpct is not None and (rpct < ROOF_PCT or side != "compute"):
                out.append(f"{tag}: {rpct:.1f} % of roofline, {side} side")
        elif verdict == "memory-bound":
            if measured and not (mpct is not None and mpct >= SOL_PCT) and "not DRAM bandwidth" not in ev:
                out.append(f"{tag}: measured memory {mpct} %")
            elif not measured and rpct is not None and (rpct < ROOF_PCT or side != "memory"):
                out.append(f"{tag}: {rpct:.1f} % of roofline, {side} side")
        elif verdict in ("latency/occupancy-bound", "below-roofs"):
            hi = max((x for x in (cpct, mpct, tpct) if x is not None), default=None)
            if hi is not None and hi >= SOL_PCT:
                out.append(f"{tag}: a measured unit at {hi:.1f} % of its peak")
            if verdict == "latency/occupancy-bound":
                ach = _num(oc.get("achieved_occupancy_pct")) if oc else None
                ach = ach if ach is not None or not so else _num(so.get("achieved_occupancy_pct"))
                waves = _num(oc.get("waves_per_sm")) if oc else None
                g = _GRID.search(ev)
                if not ((ach is not None and ach < 50) or (waves is not None and waves < 1) or measured
                        or "stalls" in ev or (g and int(g.group(1)) < 0.9 * int(g.group(2)))):
                    out.append(f"{tag}: nothing low beside it (occupancy {ach}, waves {waves})")
        elif verdict == "communication-bound" and not _COLLECTIVE.search(name):
            out.append(f"{tag}: not a collective")
        elif verdict == "launch-bound" and t is not None and t / max(_num(r["calls"]) or 1, 1) > 50_000:
            out.append(f"{tag}: {t / max(_num(r['calls']) or 1, 1) / 1e3:.1f} µs per launch")
    return len(recs), out


def _corpus() -> list[Path]:
    """Every input of ../shared/traces and tests/data (a directory of rank files or a rocprof folder is one)."""
    out = []
    for base in (SHARED, DATA):
        if not base.is_dir():
            continue
        for fam in sorted(p for p in base.iterdir() if p.is_dir() and p.name not in ("profile", "roofline")):
            out += [p for p in sorted(fam.iterdir()) if not p.name.startswith(("reference", "tracelens_reference"))
                    and p.suffix != ".md"]
    return out


def _id(p: Path) -> str:
    return f"{p.parent.parent.name}/{p.parent.name}/{p.name}"


@pytest.mark.parametrize("path", _corpus(), ids=_id)
def test_no_kernel_verdict_contradicts_its_figures(path):
    try:
        rep = gpulens.analyze([path], strict=False)
    except GpulensError as exc:  # unreadable inputs are another check's subject: one line
        assert "\n" not in str(exc)
        return
    found = [x for s in rep.sources for x in contradictions(s)[1]]
    assert not found, found
    # the verdict's title is the answer: its class and at most the few figures that prove it (the rest, up to ~11
    # figures, is its evidence in the detail)
    for s in rep.sources:
        for f in s.findings():
            if (f.key or "").startswith("kernel:") and f.category and f": {f.category}" in f.title:
                proof = f.title.split(f": {f.category}", 1)[1].split("; at stake", 1)[0]
                assert len(re.findall(r"\d+(?:[.,]\d+)*", proof, re.A)) <= 4, f.title


def _fake(verdict, time_ns, stake, roof=None, sol=None, occ=None, evidence="", name="k"):
    def res(row):
        return SimpleNamespace(skipped=row is None, table=pd.DataFrame([{"name": name, **(row or {})}]))
    v = res({"kind": "kernel", "calls": 1, "time_ns": time_ns, "verdict": verdict, "time_at_stake_ns": stake,
             "evidence": evidence, "stake_note": None})
    return SimpleNamespace(results={"verdicts": v, "roofline": res(roof), "speed_of_light": res(sol),
                                    "occupancy": res(occ)},
                           summary={"device_span_ns": 1_000_000, "rank_span_ns": {0: 1_000_000}})


def test_the_checker_finds_each_kind_of_contradiction():
    # the RTX 5090 GEMM before s45: latency/occupancy at SM 32.1 % / memory 27.7 % beside 53.5 % of a compute roof
    sol = {"compute_pct": 32.1, "memory_pct": 27.7}
    roof = {"roof_pct": 53.5, "ridge_side": "compute", "bound": "latency/occupancy",
            "bound_basis": "measured speed of light", "time_at_stake_ns": 75_919}
    n, found = contradictions(_fake("latency/occupancy-bound", 111_810, 75_919, roof, sol))
    assert n == 1 and len(found) == 1 and "53.5 % of roofline (compute side) beside it, unexplained" in found[0]
    roof["placement_note"] = "53.5 % of roofline … would make it compute-bound; the profiler measured …"
    assert contradictions(_fake("latency/occupancy-bound", 111_810, 75_919, roof, sol))[1] == []
    # spill_heavy_kernel before s45: memory-bound from lg-throttle stalls beside DRAM 32.8 %, unexplained
    assert contradictions(_fake("memory-bound", 2_500_000, 1_759_259, sol={"dram_pct": 32.8},
                                evidence="stalls: 70.4 % memory throughput"))[1]
    assert contradictions(_fake("compute-bound", 100, 50, sol={"compute_pct": 20.0, "memory_pct": 5.0}))[1]
    assert contradictions(_fake("latency/occupancy-bound", 100, 150))[1]  # more at stake than its time
    # a time at stake that is not the distance its note names: 111.81 µs × (1 − 32.1 %) = 75.92 µs, not 52 µs
    fake = _fake("latency/occupancy-bound", 111_810, 52_000, sol=sol)
    fake.results["verdicts"].table["stake_note"] = "from compute at 32.1 % of its peak (measured speed of light)"
    assert any("is not" in x for x in contradictions(fake)[1])
    fake.results["verdicts"].table["time_at_stake_ns"] = 75_919
    assert contradictions(fake)[1] == []
    assert contradictions(_fake("memory-bound", 100, 10, roof={"roof_pct": 101.0, "ridge_side": "memory"}))[1]
    assert contradictions(_fake("communication-bound", 100, 10, name="gemm_kernel"))[1]
    assert contradictions(_fake("latency/occupancy-bound", 100, 10, occ={"achieved_occupancy_pct": 90.0,
                                                                         "waves_per_sm": 4.0},
                                evidence="1056 blocks on 132 SMs"))[1]


# --- 1. the roofline on an assumed GPU vs the measured speed of light ---------------------------------------------

RTX5090_GEMM = DATA / "nvidia" / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"  # also in ../shared/traces


def _metric(path: Path, name: str) -> float:
    for r in csv.DictReader(open(path, newline="")):
        if r["Metric Name"] == name:
            return float(r["Metric Value"].replace(",", ""))
    raise KeyError(name)


@pytest.fixture(scope="module")
def gemm():
    return gpulens.analyze([RTX5090_GEMM])


def test_assumed_roofline_overruled_by_the_measured_speed_of_light_says_why(gemm):
    import html as _html

    from gpulens.reports import console, html, json_report, markdown

    src = gemm.sources[0]
    v = src.results["verdicts"].table.iloc[0]
    rf = src.results["roofline"].table.iloc[0]
    sm_pct, mem_pct = _metric(RTX5090_GEMM, "Compute (SM) Throughput"), _metric(RTX5090_GEMM, "Memory Throughput")
    dur = _metric(RTX5090_GEMM, "Duration") * 1e3  # 111.81 µs
    # ncu's own reading (SOLBottleneck: both under 60 %): latency; at stake its distance to the compute peak
    assert (sm_pct, mem_pct) == (32.10, 27.74)
    assert v["verdict"] == "latency/occupancy-bound" and v["time_at_stake_ns"] == round(dur * (1 - sm_pct / 100))
    # the roofline: 12,532,580,352 tensor FLOP / 111.81 µs over the assumed RTX 5090's 209.5 TFLOP/s bf16 at its
    # 2.407 GHz boost, scaled to the 2.00 GHz "SM Frequency" ncu recorded (s46): 209.5 × 2.00 / 2.407 = 174.1 → 64.4 %
    flop = _metric(RTX5090_GEMM, "sm__ops_path_tensor_src_bf16_dst_fp32.sum")
    roof = 209.5e12 * _metric(RTX5090_GEMM, "SM Frequency") / 2.407
    assert rf["roof_pct"] == pytest.approx(flop / (dur * 1e-9) / roof * 100) and round(rf["roof_pct"], 1) == 64.4
    assert round(rf["datasheet_roof_pct"], 1) == 53.5  # the datasheet's boost-clock roof, kept beside it
    note = rf["placement_note"]
    assert note.startswith("64.4 % of roofline (its FLOPs and bytes over an assumed NVIDIA GeForce RTX 5090's "
                           "datasheet peaks: the input does not name its GPU, compute peaks scaled to the SM clock it "
                           "ran at) would make it compute-bound")
    assert "measured compute 32.1 %, memory 27.7 % of peak" in note and note.endswith("the measurement decides")
    # every report marks that figure and prints the note under the table (JSON: the note in the row)
    text = " ".join(console.render(gemm, width=250).split())
    assert "│ 64.4 * │" in text and f"* {note}." in text
    md = markdown.render(gemm)
    assert "| 64.4 % \\* |" in md and "_\\* " in md
    raw = html.render(gemm)
    page = " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", raw)).split())
    assert "64.4 % *" in page and f"* {note}." in page
    # the chart's hover beside "64.4 % of its roof · 75.92 µs at stake" says which figure decides
    assert "the measured speed of light, not this % of roof, decides its bound (note under the table)" in raw
    assert note in json_report.render(gemm)
    # the title leads with the class and the measured figures that prove it; the stake's unit in the note
    f = next(f for f in src.findings() if f.key == "kernel:" + v["name"])
    assert f.title.endswith(": latency/occupancy-bound — compute 32.1 %, memory 27.7 % of peak (measured)")
    assert v["stake_note"] == "from compute at 32.1 % of its peak (measured speed of light)"


DEMO = Path(gpulens.__file__).parent / "data" / "demo_h100_bert-small.pt.trace.json.gz"


@pytest.fixture(scope="module")
def demo():
    return gpulens.analyze([DEMO])


def test_a_roofline_that_agrees_has_no_placement_note(demo):
    rf = demo.sources[0].results["roofline"].table
    assert len(rf) and rf["placement_note"].isna().all()


# --- 2. memory-throughput stalls beside a memory side far from its peak -------------------------------------------


def test_throttle_stalls_beside_a_low_memory_side_say_what_is_full():
    src = gpulens.analyze([DATA / "stalls" / "ncu_details_stalls.csv"]).sources[0]
    v = src.results["verdicts"].table.set_index("name").loc["spill_heavy_kernel(double*, int)"]
    # 70.4 % of its stalls are memory-throughput ones (lg throttle), its DRAM at 32.8 % of peak: a full queue
    # (its stall share, 70.4 % to one decimal, of its 2.5 ms)
    assert v["verdict"] == "memory-bound" and abs(v["time_at_stake_ns"] - 2_500_000 * 0.704) <= 2_500_000 * 0.0005
    assert v["evidence"].endswith("the memory side measured is at 32.8 % of its peak: the memory-throughput stalls "
                                  "(top lg throttle) are a full load/store or texture queue in the SM, not DRAM "
                                  "bandwidth")
    f = next(f for f in src.findings() if f.key == "kernel:spill_heavy_kernel(double*, int)")
    assert f.title.endswith("memory-bound — 70.4 % of stalls on memory throughput (a full SM queue: memory side "
                            "32.8 % of peak)")
    assert contradictions(src)[1] == []


# --- 3 and 4. the answer first; the launch-floor cap in words -----------------------------------------------------


def test_verdict_title_leads_with_class_and_proof_the_cap_in_the_note(demo):
    from gpulens.reports import console, json_report, markdown

    rep = demo
    src = rep.sources[0]
    vt = src.results["verdicts"].table
    v = vt[vt["name"].str.contains("cutlass_80_wmma")].iloc[0]
    rf = src.results["roofline"].table.set_index("name").loc[v["name"]]
    # 17 launches, 98.72 µs; far below its roofs: at stake its time less 2 µs for each launch, 98.72 − 17 × 2
    assert (v["calls"], v["time_ns"]) == (17, 98_718) and v["time_at_stake_ns"] == 98_718 - 17 * 2_000
    cap = "capped at its time less 2.00 µs for each launch: even an empty kernel takes that much GPU time"
    assert v["stake_note"] == cap
    f = next(f for f in src.findings() if f.key == "kernel:" + v["name"])
    # the proof: its % of roofline (the table's figure) and its grid, 80 blocks < 0.9 × 132 SMs
    proof = f"latency/occupancy-bound — {rf['roof_pct']:.1f} % of its roofline, 80 blocks on 132 SMs"
    assert round(rf["roof_pct"], 1) == 4.2 and f.title.endswith(proof), f.title
    assert "per launch" not in f.title and "capped" not in f.title
    assert f"time at stake {cap}" in f.detail
    # the same words in every report: console, Markdown and JSON
    text = " ".join(console.render(rep, width=250).split())
    assert proof in text and cap in text
    md = markdown.render(rep)
    assert proof in md
    js = json_report.render(rep)
    assert proof in js and cap in js


def test_one_launch_cap_and_an_ncu_rule_cap_in_words():
    from gpulens.analyzers._stake import floor_cap_words

    # one wording whatever the launch count (the count is the calls column beside it): a report's floor-capped
    # kernels share one stake note (the MI250 toy's 1- and 2-launch kernels made two notes and a banner over 800 px)
    assert floor_cap_words() == "at its time less 2.00 µs for each launch: even an empty kernel takes that much GPU time"
    assert floor_cap_words("the kernel's", 4_000) == (
        "at the kernel's time less 2.00 µs for each launch (4.00 µs): even an empty kernel takes that much GPU time")


# --- 5. an above-roof row marks every figure resting on the impossible value -------------------------------------


def test_above_roof_row_marks_every_figure_resting_on_it(tmp_path):
    import html as _html

    from gpulens.reports import console, html, markdown
    from tests.test_roof_limits import _trace

    # 5 launches of an fp32 add of two 1024×1024 tensors, 1 µs each: 3 × 4 MiB = 12,582,912 B and 1,048,576 FLOP
    # per call — 12.58 TB/s, 375.6 % of the H100 SXM's 3.35 TB/s: the op-shape bytes are impossible, so the rates,
    # bound and % of roofline are unknown and the FLOP/B (1,048,576 / 12,582,912 = 0.0833) rests on those bytes
    rep = gpulens.analyze([_trace(tmp_path, 1.0)])
    ai = 1_048_576 / 12_582_912
    assert math.isclose(rep.sources[0].results["roofline"].table.iloc[0]["arithmetic_intensity"], ai)
    text = console.render(rep, width=220)
    row = next(ln for ln in text.splitlines() if ln.startswith("│ add_kernel"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    # kernel, TFLOP/s, GB/s, FLOP/B, prec, bound, bound from, % of roofline, from
    assert cells[1:4] == ["unknown *", "unknown *", f"{ai:.1f} *"] and cells[5:8] == ["unknown *"] * 3, cells
    why = ("* the marked figures of this row are unknown or rest on a figure above its roof: the op shapes give "
           f"{round(12_582_912 / 1e-6 / 3.35e12 * 100, 1)} % of the roof")
    assert why in " ".join(text.split())
    md = markdown.render(rep)
    assert ("| add\\_kernel | 5.00 µs | 0.0833 FLOP/B \\* | unknown \\* | unknown \\* | fp32 | unknown \\* | unknown \\* | "
            "unknown \\* |") in md
    page = " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", html.render(rep))).split())
    assert "0.0833 FLOP/B *" in page and why in page


def test_above_roof_from_counters_marks_the_rates_not_the_measured_bound(tmp_path):
    import json

    from gpulens.reports import console

    # the H200 ncu CSV's gemm_wmma against a spec file's 20 GB/s memory roof: 152.8 % of its roof (test_trust_s44:
    # 17.18 GFLOP over 19.12 MB in 625.54 µs). The counters are measured: its FLOP/B (899) stands unmarked, and so
    # does the bound its speed of light gave (memory, L1); its rates and % of roofline are unknown, marked
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"base": "H200", "figures": {"memory_bandwidth": 20}}))
    rep = gpulens.analyze([DATA / "nvidia" / "h200" / "h200_kernels_details.csv"], device_spec=str(spec))
    text = console.render(rep, width=250)
    row = next(ln for ln in text.splitlines() if ln.startswith("│ gemm_wmma"))
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert cells[1:4] == ["unknown *", "unknown *", "898.5"] and cells[5:8] == [
        "memory (L1)", "measured speed of light", "unknown *"], cells
