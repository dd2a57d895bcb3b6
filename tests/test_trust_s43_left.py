"""Session 43, one definition per figure (leftovers): sums over GPUs say so (verdict scope, start-up wait, the
``--window`` hint's one-off gaps), a memory-bound kernel's advice follows the cache level its bound names, AMD LDS
bank conflicts are shown with their unit, the hierarchical roofline names the kernels it cannot place, the gate's
PASS headline says when a row passed only in a noise-widened band, environment facts are not input warnings, the
diff header names the spec a GPU was analysed as, and the console's next-step cell of an undetermined kernel is never
blank. Expected values are worked out by hand in each test from what it writes or from the input itself."""

from __future__ import annotations

import csv
import gzip
import shutil
import sqlite3
from io import StringIO
from pathlib import Path
from types import SimpleNamespace

import pytest

import gpulens

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
NVVP = DATA / "nvidia" / "blinkplus_v100x4_nccl_output.nvvp.gz"
H200_CSV = DATA / "nvidia" / "h200" / "h200_kernels_details.csv"
VCOPY_MI200 = DATA / "omniperf" / "vcopy_MI200"
GUNROCK = DATA / "rocprof" / "v1_gunrock_mi300x"


# --- 1. sums over several GPUs say so ------------------------------------------------------------------------------


def _bn(span: int, steady: int, left: int, position: str = "leading") -> SimpleNamespace:
    return SimpleNamespace(skipped=False, summary={
        "device_span_ns": span, "steady_span_ns": steady, "idle_boundary_ns": left, "min_share": 0.1,
        "boundary_gaps": [{"position": position}]})


def test_verdict_scope_of_several_gpus_names_the_sum_and_its_denominator():
    from gpulens.analyzers._run_shares import verdict_scope

    # the nvprof V100×4 figures: spans summed over 4 GPUs 40,011,534,972 ns, 25,993,567,099 ns of warm-up gaps
    # left out → 14,017,967,873 ns judged; 14.018 / 40.012 = 35.03 %
    bn = _bn(40_011_534_972, 14_017_967_873, 25_993_567_099)
    assert verdict_scope(bn, 4) == ("judged on the steady state: 14.02 s summed over the 4 GPUs, 35.0 % of their "
                                    "summed spans")
    # one GPU: as before (11.09 / 90.90 = 12.2 %)
    assert verdict_scope(_bn(90_900_000, 11_090_000, 79_810_000), 1) == \
        "judged on the steady state: 11.09 ms, 12.2 % of the span"


def test_setup_wait_over_several_gpus_is_said_summed():
    from gpulens.analyzers._run_shares import setup_text

    su = {"setup_ns": 8_521_772_921, "host_ns": 13_382_267_973}
    assert setup_text(su, 4).endswith("fill 8.52 s of the 13.38 s the 4 GPUs waited for the host, summed")
    assert setup_text(su).endswith("fill 8.52 s of the 13.38 s the GPU waited for the host")


def _gpu_spans_from_sqlite(path: Path, tmp: Path) -> dict[int, int]:
    """First start → last end of the GPU activity (kernels, copies, fills) per device, read from the nvprof
    database itself [ns]."""
    db = tmp / "nvvp.sqlite"
    db.write_bytes(gzip.decompress(path.read_bytes()))
    con = sqlite3.connect(db)
    spans: dict[int, list[int]] = {}
    for table in ("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL",
                  "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        try:
            rows = con.execute(f"SELECT deviceId, MIN(start), MAX([end]) FROM {table} GROUP BY deviceId").fetchall()
        except sqlite3.OperationalError:
            continue
        for dev, lo, hi in rows:
            cur = spans.setdefault(int(dev), [lo, hi])
            cur[0], cur[1] = min(cur[0], lo), max(cur[1], hi)
    con.close()
    return {d: hi - lo for d, (lo, hi) in spans.items()}


def test_nvprof_four_gpus_headline_and_window_hint(tmp_path):
    spans = _gpu_spans_from_sqlite(NVVP, tmp_path)
    assert len(spans) == 4
    summed_s = sum(spans.values()) / 1e9  # 40.01 s: four spans of 9.5–10.5 s, the wall span the longest
    rep = gpulens.analyze([NVVP])
    s = rep.sources[0]
    scope = s.results["verdicts"].summary["verdict_scope"]
    assert " summed over the 4 GPUs, " in scope and scope.endswith(" of their summed spans")
    judged = float(scope.split(": ")[1].split(" s ")[0])
    pct = float(scope.split(", ")[1].split(" %")[0])
    assert judged <= max(spans.values()) * 4 / 1e9 and pct == pytest.approx(100 * judged / summed_s, abs=0.06)
    # the hint's --window, and the one-off gaps it says that window still holds, GPU by GPU
    note = next(f for f in s.findings() if f.key == "idle/boundary")
    hint = note.action.split("gpulens analyze ")[1]
    window = hint.split("--window ")[1].split(";")[0]
    assert "(on GPUs " in hint and " in all" not in hint  # several GPUs: the GPUs named, no single-GPU total
    named = hint.split("(on GPUs ")[1].split(")")[0].replace(" and ", ", ").split(", ")
    from gpulens.timeline.selection import Selection

    sub = gpulens.analyze([NVVP], select=Selection.parse(window=window)).sources[0]
    gaps = sub.results["bottlenecks"].summary["boundary_gaps"]
    assert sorted(str(g["device_id"]) for g in gaps) == sorted(named)
    # the durations the hint lists are those gaps', largest first
    listed = hint.split("more one-off gaps of ")[1].split(" (on")[0]
    from gpulens.units import fmt_ns

    assert listed == ", ".join(fmt_ns(g["dur_ns"]) for g in sorted(gaps, key=lambda g: -g["dur_ns"])[:3])


# --- 2. the advice follows the cache level the bound names --------------------------------------------------------


def _evidence(**kw):
    from gpulens.analyzers._verdict_facts import Evidence

    e = Evidence(name="saxpy(int, float, const float *, float *)", kind="kernel", calls=1, time_ns=56_990)
    for k, v in kw.items():
        setattr(e, k, v)
    return e


def test_l2_bound_with_dram_close_behind_gets_l2_and_dram_advice():
    from gpulens.analyzers._verdict_steps import steps_for

    # the H200 CSV's saxpy: L2 Cache Throughput 79.61, DRAM Throughput 66.83, L1/TEX 19.43 → the bound's unit L2
    e = _evidence(sol_bound="memory", sol_pct=79.61, sol_unit="L2", l2_pct=79.61, dram_pct=66.83, l1_pct=19.43)
    first = steps_for("memory-bound", e)[0]
    assert first.startswith("Its busiest memory unit is L2 (79.6 % of peak; DRAM 66.8 %, close behind)")
    assert "crosses DRAM and L2 once" in first
    # an elementwise kernel whose traffic is L2's alone (L2 94, DRAM 10: ≥ 20 points apart, DRAM < 60): as before
    e = _evidence(sol_bound="memory", sol_pct=94.0, sol_unit="L2", l2_pct=94.0, dram_pct=10.0, l1_pct=40.0)
    assert "its data comes from L2, not DRAM" in steps_for("memory-bound", e)[0]
    # a DRAM-bound kernel: the DRAM advice, no cache named
    e = _evidence(sol_bound="memory", sol_pct=90.0, sol_unit="DRAM", l2_pct=50.0, dram_pct=90.0, l1_pct=20.0)
    assert steps_for("memory-bound", e)[0].startswith("Fuse it with the producer or consumer so the data crosses DRAM")


def test_saxpy_in_the_ncu_csv_bound_and_advice_name_one_level():
    s = gpulens.analyze([H200_CSV]).sources[0]
    t = s.results["verdicts"].table
    row = t[t["name"].str.startswith("saxpy")].iloc[0]
    # the CSV: "L2 Cache Throughput" 79.61 % is saxpy's busiest unit (DRAM 66.83, L1/TEX 19.43)
    assert row["stake_note"] == "from L2 at 79.6 % of its peak (measured speed of light)"
    assert "busiest memory unit is L2 (79.6 % of peak" in row["next_steps"][0]


# --- 3. AMD LDS bank conflicts; kernels the hierarchical roofline cannot place -------------------------------------


def _vcopy_with_lds(tmp: Path, conflict: str, active: str) -> Path:
    d = tmp / "vcopy"
    shutil.copytree(VCOPY_MI200, d)
    rows = list(csv.DictReader(open(d / "pmc_perf.csv", newline="")))
    for r in rows:
        r["SQ_LDS_BANK_CONFLICT"], r["SQ_LDS_IDX_ACTIVE"] = conflict, active
    with open(d / "pmc_perf.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return d


def test_lds_bank_conflicts_shown_with_their_unit(tmp_path):
    # rocprof-compute's LDS Bank Conflicts/Access = SQ_LDS_BANK_CONFLICT / (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT)
    # = 100 / (500 − 100) = 0.25 conflict cycles per access, on every dispatch
    s = gpulens.analyze([_vcopy_with_lds(tmp_path, "100", "500")]).sources[0]
    sol = s.results["speed_of_light"].table
    assert float(sol.iloc[0]["lds_conflicts_per_access"]) == pytest.approx(0.25)
    assert "[conflict cycles/access]" in s.results["speed_of_light"].columns["lds_conflicts_per_access"]
    ev = s.results["verdicts"].table.iloc[0]["evidence"]
    assert "LDS bank conflicts 0.25 conflict cycles per access (rocprof-compute LDS Bank Conflicts/Access" in ev


def test_lds_bank_conflicts_without_lds_accesses_are_unknown(tmp_path):
    # the kernel made no LDS access (0 / 0): rocprof-compute gives None; never "0 conflicts"
    s = gpulens.analyze([_vcopy_with_lds(tmp_path, "0", "0")]).sources[0]
    v = s.results["speed_of_light"].table.iloc[0]["lds_conflicts_per_access"]
    assert v != v  # NaN
    assert "LDS bank conflicts" not in s.results["verdicts"].table.iloc[0]["evidence"]


def test_hierarchical_roofline_names_the_kernels_it_cannot_place():
    # the CSV collects no FP-instruction counter (sm__sass_thread_inst_executed_op_*) for any kernel; its only FLOP
    # source is the bf16 tensor path (sm__ops_path_tensor_src_bf16_dst_fp32.sum): 17,179,869,184 for gemm_wmma, 0 for
    # the others — whose FLOPs are then unknown, not 0, while their DRAM/L2/L1 bytes are counted
    tensor: dict[str, float] = {}
    metrics: set[str] = set()
    with open(H200_CSV, newline="") as fh:
        for r in csv.DictReader(fh):
            metrics.add(r["Metric Name"])
            if r["Metric Name"] == "sm__ops_path_tensor_src_bf16_dst_fp32.sum":
                tensor[r["Kernel Name"].split("(")[0]] = float(r["Metric Value"].replace(",", ""))
    assert not any("sass_thread_inst_executed_op" in m for m in metrics)
    no_fp = sorted(k for k, v in tensor.items() if v == 0)
    assert no_fp == ["gemm_naive", "saxpy", "tiny"] and tensor["gemm_wmma"] == 17_179_869_184
    hr = gpulens.analyze([H200_CSV]).sources[0].results["hierarchical_roofline"]
    note = hr.summary["not_placed_note"]
    assert note.startswith("3 kernels with per-level bytes have no point (arithmetic intensity unknown): ")
    for k in no_fp:
        assert f"{k}(" in note
    assert "gemm_wmma" not in note and note.count("(FLOP count unknown)") == 3
    assert "not_placed_note" in hr.summary_columns  # declared: the HTML lists it with the section


# --- 4. the gate's PASS headline -----------------------------------------------------------------------------------


def _row(name: str, base: list[float], cand: list[float]):
    from gpulens.gate.compare import _apply
    from gpulens.gate.result import MetricResult
    from gpulens.gate.stats import compare_timing

    r = MetricResult(name, "timing", "ns", "lower", "PASS", True, "")
    _apply(r, compare_timing(base, cand))
    return r


def test_pass_headline_says_which_rows_passed_only_in_the_noise_widened_band():
    from gpulens.gate.compare import _overall
    from gpulens.gate.runs import RunSet

    runs = RunSet([{"label": f"r{i}"} for i in range(3)], [], {}, "m", 1, {})
    # noisy: median 100, MAD 5 → noise 7.413 %, band 14.826 %; +10 % is outside the 5 % threshold, inside the band
    noisy = _row("kernel:gemm", [100.0, 110.0, 95.0], [110.0, 110.0, 110.0])
    # quiet: every baseline sample equal → band = threshold 5 %; +3 % is within it
    quiet = _row("span_ns", [100.0, 100.0, 100.0], [103.0, 103.0, 103.0])
    assert noisy.verdict == quiet.verdict == "PASS" and noisy.band > noisy.threshold == quiet.band
    verdict, reason = _overall([noisy, quiet], runs, "")
    assert verdict == "PASS" and "within their thresholds" not in reason
    assert reason.startswith("all 2 gating metrics within their PASS bands: 1 of them (kernel:gemm) only within its "
                             "PASS band, widened past the threshold by the baseline's noise")
    assert _overall([quiet, quiet], runs, "")[1] == "all 2 gating metrics within their thresholds (3 candidate runs)"
    one = _overall([noisy], runs, "")[1]
    assert one.startswith("the only gating metric within its PASS band, widened past its threshold")


# --- 6. environment facts are not input warnings -------------------------------------------------------------------


def test_unavailable_telemetry_is_an_environment_note_in_every_report():
    from rich.console import Console

    from gpulens.reports import console, json_report, markdown
    from gpulens.reports._warnings import environment_notes, input_note

    rep = gpulens.analyze([DATA / "kineto" / "torch2.13_cpu_only_mm.pt.trace.json"])
    s = rep.sources[0]
    why = "nvml: the 'nvidia-ml-py' package is not installed"
    s.timeline.meta.sources.append({"collector": "telemetry", "path": "telemetry:none", "available": False,
                                    "reason": why})
    assert environment_notes(s.timeline.meta) == [f"telemetry unavailable: {why}"]
    assert "telemetry" not in input_note(s)  # never counted as a warning about the input
    buf = StringIO()
    Console(file=buf, width=200).print(console.source_renderable(s))
    text = buf.getvalue()
    assert f"environment: telemetry unavailable: {why}" in text and "warning: telemetry" not in text
    doc = json_report.source_dict(s)
    assert doc["environment_notes"] == [f"telemetry unavailable: {why}"]
    assert not any("telemetry" in w for w in doc["warnings"])
    md = markdown.render(rep)
    assert "### Environment (the machine, not the input)" in md and "telemetry unavailable" in md


# --- 5. the diff header's device label; the console's next-step cell ----------------------------------------------


def test_diff_side_names_the_spec_its_gpu_was_analysed_as():
    from gpulens.diff.sides import load_side

    side = load_side(GUNROCK)
    # results.sysinfo.txt: "Marketing Name: AMD Radeon Graphics", "Name: gfx942"; gfx942 with 304 CUs is the
    # MI300X (AMD's datasheet) — the device row of `gpulens analyze` names it so
    assert side.devices == ["AMD Radeon Graphics"] and side.analysed_as == ["AMD Instinct MI300X"]
    assert side.device_label() == "AMD Radeon Graphics, analysed as AMD Instinct MI300X"
    from gpulens.diff.compute import DiffSide

    assert DiffSide("x", None).device_label() == "GPU not recorded"


def test_undetermined_row_points_at_the_line_that_says_what_would_classify_it():
    from gpulens.reports.console_verdicts import UNDETERMINED_STEP_CELL, _step_cell

    step = "Collect counters (ncu --set full) or FLOP/byte figures"
    und = SimpleNamespace(verdict="undetermined", next_steps=[step])
    assert _step_cell(und, said=True) == UNDETERMINED_STEP_CELL != ""
    assert _step_cell(und, said=False).startswith("Collect counters")
    mem = SimpleNamespace(verdict="memory-bound", next_steps=["Fuse it."])
    assert _step_cell(mem, said=True) == "Fuse it."


def test_device_row_says_the_gpu_index_beside_the_agent_node_id():
    from gpulens.reports._run_text import gpu_index_text, run_device_text

    # results.csv: every dispatch on gpu-id 2; results.sysinfo.txt: CPU agents at HSA nodes 0 and 1, the first gfx942
    # agent at node 2 — the first GPU agent, GPU index 0 (rocm-smi's and HIP's GPU 0); 8 GPU agents recorded
    s = gpulens.analyze([GUNROCK]).sources[0]
    text = run_device_text(s)
    head = text.split("; also recorded")[0]
    assert head.endswith("; GPU 2 in the tables is HSA agent node 2, GPU index 0 (the HIP device number when every "
                         "GPU is visible)")
    # one GPU recorded, or ids that are the index already: nothing added
    assert gpu_index_text([{"device_id": 8, "gpu_index": 0}], 1) == ""
    assert gpu_index_text([{"device_id": 0, "gpu_index": 0}, {"device_id": 1, "gpu_index": 1}], 2) == ""
