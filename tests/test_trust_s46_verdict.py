"""Session 46: conclusions and advice that contradicted the evidence beside them.

1. theoretical occupancy "unknown" where the block size alone bounds it (registers / shared memory not recorded):
   the bound, "≤ 66.7 % (registers and shared memory not recorded)", in every report and in the verdict's evidence;
2. launch-overhead fix advice beside a run verdict that calls the same idle "too little evidence" (2 gaps): the
   advice says so and gives the step only as "if this idle recurs there, then: …";
3. "collect X" advice naming a counter the input already holds (rocprofv3 counter CSV with SQ_WAVES told
   "rocprofv3 --pmc SQ_WAVES …"): a checker over the corpus (:func:`collect_contradictions`).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import gpulens
from gpulens.errors import GpulensError
from tests.conftest import shared_trace
from tests.test_trust_s45_verdict import _corpus, _id

# --- 1. the block size's bound on theoretical occupancy ----------------------------------------------------------


def test_block_size_bound_hand_calculated():
    from gpulens.devices.arch import CUDA_LIMITS
    from gpulens.devices.occupancy import block_size_bound

    # CUDA C Programming Guide "Compute Capabilities": 8.6 / 8.9 / 12.0 hold 1,536 threads (48 warps) per SM, 9.0
    # holds 2,048 (64 warps) and 32 blocks. 1,024 threads = 32 warps: one block fits 48 slots → 32 / 48 = 66.7 %
    for cc in ("8.6", "8.9", "12.0"):
        occ = block_size_bound(CUDA_LIMITS[cc], 1024)
        assert occ.active_blocks == 1 and occ.occupancy_pct == pytest.approx(100 * 32 / 48), cc
    # on 9.0 two such blocks fill all 64 warps: 100 %, the bound says nothing
    assert block_size_bound(CUDA_LIMITS["9.0"], 1024).occupancy_pct == pytest.approx(100.0)
    # 32-thread blocks on 9.0: the 32-block cap binds first — 32 warps of 64, 50 %
    occ = block_size_bound(CUDA_LIMITS["9.0"], 32)
    assert occ.active_blocks == 32 and occ.occupancy_pct == pytest.approx(50.0)
    assert block_size_bound(CUDA_LIMITS["9.0"], 2048) is None  # over the 1,024-thread block limit: cannot run


def test_unknown_theoretical_occupancy_shows_its_block_size_bound():
    import html as _html

    from gpulens.reports import console, html, json_report, markdown

    path = shared_trace("ncu/olajide_rtx5070_metrics_gemm_naive.csv")
    rows = list(csv.DictReader(l for l in open(path, encoding="utf-8-sig") if l.startswith('"')))
    # the file: "Block Size" (32, 32, 1) on CC 12.0, no registers or shared memory metrics
    assert {r["Block Size"] for r in rows} == {"(32, 32, 1)"} and {r["CC"] for r in rows} == {"12.0"}
    assert not any("registers" in r["Metric Name"] or "shared_mem" in r["Metric Name"] for r in rows)
    rep = gpulens.analyze([path])
    src = rep.sources[0]
    row = src.results["occupancy"].table.iloc[0]
    want = 100 * 32 / 48  # 1,024 threads = 32 warps; one block in 48 warp slots (sm_120: 1,536 threads per SM)
    assert row["theoretical_occupancy_pct"] is None or row["theoretical_occupancy_pct"] != row["theoretical_occupancy_pct"]
    assert row["theoretical_max_pct"] == pytest.approx(want)
    # ncu's measured achieved occupancy (66.61 %) sits under the bound, as it must
    assert row["achieved_occupancy_pct"] <= row["theoretical_max_pct"]
    text = " ".join(console.render(rep, width=200).split())
    assert "│ ≤ 66.7 │ 66.6 │" in text
    assert "≤ x: theoretical occupancy unknown (registers and shared memory not recorded)" in text
    cell = "≤ 66.7 % (registers and shared memory not recorded)"
    assert cell in markdown.render(rep)
    page = " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", html.render(rep))).split())
    assert cell in page and "nothing limits it" not in page  # its limiter is unknown, not "nothing"
    assert "theoretical_max_pct" in json_report.render(rep)
    # the verdict's evidence and the occupancy finding say the bound, not a bare "theoretical not counted"
    ev = src.results["verdicts"].table.iloc[0]["evidence"]
    assert "66.6 % achieved / at most 66.7 % theoretical (its block size alone: registers and shared memory not " \
           "recorded)" in ev and "theoretical not counted" not in ev
    f = next(f for f in src.findings() if f.key == "occupancy/theoretical-missing")
    assert "Bounded by the block size alone: gemm_naive_kernel at most 66.7 % (1,024-thread blocks" in f.title


def test_known_theoretical_or_full_bound_has_no_bound():
    # ncu's own theoretical (128-thread blocks, 100 %) stands; no bound beside it
    path = shared_trace("ncu/codegandee_rtx5090_ncu-v2_kernel_0010_details.csv")
    t = gpulens.analyze([path]).sources[0].results["occupancy"].table
    assert t["theoretical_occupancy_pct"].iloc[0] == 100.0 and t["theoretical_max_pct"].isna().all()


# --- 2. launch advice follows the evidence -----------------------------------------------------------------------


def test_launch_advice_beside_too_little_evidence_is_conditional():
    path = shared_trace("nsys/lashi_rtx4090_streamSimple.sqlite")
    src = gpulens.analyze([path]).sources[0]
    bn = src.results["bottlenecks"].summary
    # the run verdict's own reason: the launch idle comes from 2 gaps, fewer than the 3 a verdict needs
    assert bn["gaps_launch"] == 2 and "comes from only 2 gaps" in bn["verdict_evidence"]
    idle = next(f for f in src.findings() if f.key == "idle")
    launch = next(f for f in src.findings() if f.key == "idle/launch")
    for text in (idle.action, launch.detail):
        assert text.startswith("Too little evidence to act on yet: 10.14 µs"), text
        assert "over only 2 gaps (an idle cause needs at least 3 gaps, or half the span" in text
        assert "Profile more iterations (a longer capture); if this idle recurs there, then: " in text
    assert not idle.action.startswith("Start with the largest cause")


def test_thin_evidence_rule_is_one_definition():
    from gpulens.analyzers.bottlenecks import too_few_gaps

    # fewer than 3 gaps holding under half the span: too few; 3 gaps, or half the span, is evidence
    assert too_few_gaps(2, 10_140, 76_900) and not too_few_gaps(3, 10_140, 76_900)
    assert not too_few_gaps(2, 40_000, 76_900) and not too_few_gaps(None, 10, 100)


# --- 3. collect advice vs the counters present -------------------------------------------------------------------

_PMC = re.compile(r"--pmc ((?:[A-Z][A-Z0-9_]+[ ,]*)+)", re.A)
_NCU_METRICS = re.compile(r"--metrics ([a-z0-9_.,]+)", re.A)


def _advice_texts(src) -> list[str]:
    out = []
    for f in src.findings():
        out += [f.title or "", f.detail or "", f.action or ""]
    for res in src.results.values():
        if res.skipped:
            out.append(res.skipped_reason or "")
    v = src.results.get("verdicts")
    if v is not None and not v.skipped and v.table is not None and "next_steps" in v.table:
        out += [s for steps in v.table["next_steps"] if isinstance(steps, list) for s in steps]
    return out


def collect_contradictions(src) -> tuple[int, list[str]]:
    """(collect-advice sentences checked, those naming a counter the input already holds): every "--pmc A B" /
    "--metrics a,b" in findings, verdict steps and skip reasons, against the counter names of its timeline."""
    have = set(map(str, src.timeline.counters["metric"].unique())) if len(src.timeline.counters) else set()
    n, out = 0, []
    for text in _advice_texts(src):
        for m in _PMC.finditer(text):
            n += 1
            # "A, collected already, …" after the command names what the input holds: not asked for
            asked = [x for x in re.split(r"[ ,]+", m.group(1).strip()) if x]
            out += [f"asks for {x}, present: {text[:120]}" for x in asked if x in have]
        for m in _NCU_METRICS.finditer(text):
            n += 1
            out += [f"asks for {x}, present: {text[:120]}" for x in m.group(1).split(",") if x in have]
    return n, out


def test_collect_advice_names_only_counters_not_collected():
    path = shared_trace("rocprof/v3_csv_sdk_docs")
    src = gpulens.analyze([path], strict=False).sources[0]
    names = {r["Counter_Name"] for r in csv.DictReader(open(path / "counter_collection.csv"))}
    assert names == {"SQ_WAVES"}  # the file's only counter
    v = src.results["verdicts"].table
    steps = [s for x in v["next_steps"] for s in x]
    assert any("rocprofv3 --pmc SQ_INSTS_VALU SQ_WAVE_CYCLES SQ_WAIT_INST_ANY; SQ_WAVES, collected already, does "
               "not classify a kernel alone" in s for s in steps), steps
    n, found = collect_contradictions(src)
    assert n and not found, found


def test_the_collect_checker_finds_a_counter_asked_for_again():
    from gpulens.analyzers._verdict_steps import amd_collect, undetermined_steps

    assert amd_collect() == "rocprofv3 --pmc SQ_WAVES SQ_INSTS_VALU SQ_WAVE_CYCLES SQ_WAIT_INST_ANY"
    assert amd_collect(frozenset({"SQ_WAVES", "SQ_WAVE_CYCLES"})) == (
        "rocprofv3 --pmc SQ_INSTS_VALU SQ_WAIT_INST_ANY; SQ_WAVES, SQ_WAVE_CYCLES, collected already, do not classify "
        "a kernel alone")
    before = undetermined_steps("amd", False)[0]  # what the SQ_WAVES file was told before s46
    assert _PMC.search(before) and "SQ_WAVES" in _PMC.search(before).group(1)


@pytest.mark.parametrize("path", _corpus(), ids=_id)
def test_no_collect_advice_asks_for_a_collected_counter(path: Path):
    try:
        rep = gpulens.analyze([path], strict=False)
    except GpulensError as exc:
        assert "\n" not in str(exc)
        return
    found = [x for s in rep.sources for x in collect_contradictions(s)[1]]
    assert not found, found
