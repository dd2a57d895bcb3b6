"""Conclusions that contradicted the numbers beside them (newcomer walk of 2026-12-01, second session): one test per
class of fault, each expected value derived from the trace file itself or by hand in the test.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import subprocess
import sys
import zlib

import numpy as np
import pytest
from rich.console import Console

import gpulens
from gpulens.reports._format import fmt_ns
from tests.conftest import DATA, KINETO, shared_trace


def _merged(iv: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def _render(renderable, width: int) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, legacy_windows=False).print(renderable)
    return buf.getvalue()


# ---- class 4: idle that no host cause explains is shown, with its time --------------------------------------------

def test_alexnet_idle_split_shows_the_one_off_gap_with_its_time():
    """hta_alexnet_a100: the GPU events (cat kernel/gpu_memcpy/gpu_memset, µs in the file) merge into busy
    segments whose largest gap is 10.033725 s (computed here from the JSON), during which the host sits in a
    6.008692 s ``cudaFree`` (cuda_runtime event). The idle finding and the console must show that gap and its time,
    not only the 2.82 s host-bound share."""
    path = KINETO / "hta_alexnet_a100.json.gz"
    ev = json.load(gzip.open(path))["traceEvents"]
    gpu = [(round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in ev
           if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    seg = _merged(gpu)
    gaps = [(b[0] - a[1], a[1], b[0]) for a, b in zip(seg, seg[1:])]
    big, g0, g1 = max(gaps)
    idle = sum(g[0] for g in gaps)
    assert big == 10_033_725_000
    rt = [(min(round((e["ts"] + e["dur"]) * 1000), g1) - max(round(e["ts"] * 1000), g0), e["name"]) for e in ev
          if e.get("cat") == "cuda_runtime"]
    longest_call = max(rt)
    assert longest_call[1] == "cudaFree"

    rep = gpulens.analyze([path])
    s = rep.sources[0]
    root = next(f for f in s.findings() if f.key == "idle")
    # the verdict leaves the one-off gap out: so does the idle finding's time at stake (the recoverable idle)
    # less the set-up calls (2.68 s of cudaMalloc and stream creation) that fill most of the host wait: the run
    # headline's "at stake in steady state" (tests/test_trust_s46_w2dash.py derives them from the trace)
    bn = s.results["bottlenecks"].summary
    assert root.time_at_stake_ns == idle - big - bn["idle_host_setup_ns"]
    assert "10.03 s in a single one-off gap" in root.title
    # its causes add up to the stake: the host wait less the 2.68 s of one-off set-up calls, named as left out
    assert f"{fmt_ns(bn['idle_host_ns'] - bn['idle_host_setup_ns'])} waiting for the host" in root.title
    assert f"{fmt_ns(bn['idle_host_setup_ns'])} of one-off set-up calls in the host wait" in root.title
    assert "10.03 s" not in root.action                          # the next step is a recurring cause, not the gap
    note = next(f for f in s.findings() if f.key == "idle/boundary")
    assert note.time_at_stake_ns is None
    assert "cudaFree 6.01 s" in note.detail                     # 6,008,692 µs of cudaFree inside the gap
    bn = s.results["bottlenecks"].table.iloc[0]
    causes = sum(int(bn[f"idle_{c}_ns"]) for c in ("host", "launch", "sync", "queued", "unattributed", "boundary"))
    assert causes == idle                                       # every idle nanosecond has a cause column
    from gpulens.reports.console import source_renderable

    text = _render(source_renderable(s), 100)
    table = text[text.index("Where the idle time went"):]
    assert "one-off" in table and "10.03 s" in table.split("\n\n")[0]


def test_gpu_only_idle_without_launches_is_shown_as_no_cause():
    """A GPU-only trace (no launch calls): two kernels 100 µs apart → the 90 µs gap has no cause in the trace; the
    idle finding says so with its time (hand calculation: 10 µs kernel at 0, 10 µs kernel at 100 µs)."""
    import tempfile
    from pathlib import Path

    trace = {"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k_a", "pid": 0, "tid": 7, "ts": 1000.0, "dur": 10.0,
         "args": {"device": 0, "stream": 7}},
        {"ph": "X", "cat": "kernel", "name": "k_b", "pid": 0, "tid": 7, "ts": 1100.0, "dur": 10.0,
         "args": {"device": 0, "stream": 7}}]}
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "gpu_only.json"
        p.write_text(json.dumps(trace))
        s = gpulens.analyze([p]).sources[0]
    root = next(f for f in s.findings() if f.key == "idle")
    assert root.time_at_stake_ns == 90_000
    assert "90.00 µs with no cause the trace shows" in root.title


# ---- class 7: figures never wrap -------------------------------------------------------------------------------------

FIGURE_SPLIT = re.compile(r"│\s*(?:ns|µs|ms|s|%|B|kB|MB|GB)\s*│|│\s*\d[^│]*…\s*│")


def test_fit_table_keeps_every_figure_on_one_line_at_80_columns():
    from gpulens.reports._fit import Col, FitTable

    cols = [Col("kernel", "left", figure=False)] + [Col(f"figure {i}", optional=i > 2) for i in range(10)]
    rows = [["a_rather_long_kernel_name_that_must_wrap_somewhere"] + ["625.56 ms"] * 10 for _ in range(3)]
    text = _render(FitTable("t", cols, rows), 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    shown = text.count("625.56 ms")
    assert shown >= 3 * 3 and shown % 3 == 0                    # whole figures only, the same columns in every row
    assert not FIGURE_SPLIT.search(text)
    assert "left out at this terminal width" in text
    assert all(line.rstrip().endswith(("│", "┃", "┓", "┩", "┘")) for line in text.splitlines()
               if line.startswith(("│", "┃", "┏", "┡", "└")))


def test_console_report_never_splits_a_figure_at_80_columns():
    path = KINETO / "hta_alexnet_a100.json.gz"
    from gpulens.reports.console import source_renderable

    s = gpulens.analyze([path]).sources[0]
    text = _render(source_renderable(s), 80)
    assert not FIGURE_SPLIT.search(text), FIGURE_SPLIT.search(text)
    # the idle figures of the bottleneck table are whole (they wrapped as "169.00\n µs" before)
    assert re.search(r"│\s*12\.85 s\s*│", text)
    assert np.all([len(line) <= 80 for line in text.splitlines()])
    # no table is cut at the right edge (rich crops lines wider than the terminal)
    assert all(line.rstrip().endswith(("│", "┃", "┓", "┩", "┛", "┘", "┐", "┤")) for line in text.splitlines()
               if line.startswith(("│", "┃", "┏", "┡", "└")))


# ---- class 6: no compute/memory verdict without the counters that support it ---------------------------------------

NVIDIA = __import__("pathlib").Path(__file__).parent / "data" / "nvidia"


def test_bound_needs_the_counters_that_support_it():
    from gpulens.analyzers.speed_of_light import bound_of

    assert bound_of(70.0, None) == "unknown"                   # the memory side may be the busier one
    assert bound_of(None, 93.0) == "memory"                    # ≥ 80 %: saturated whatever compute does
    assert bound_of(12.0, 94.0) == "memory"
    assert bound_of(97.3, 1.3, compute_is_sm=True) == "unknown"  # SM throughput: any SM unit, not FLOPs
    assert bound_of(90.0, 20.0, compute_is_sm=False) == "compute"
    assert bound_of(30.0, 20.0) == "latency"


def test_ncu_sm_throughput_alone_is_not_compute_bound():
    """olajide gemm_naive (ncu --metrics, 12 metrics): sm__throughput 97.32 %, DRAM bytes, no FLOP
    (sm__sass_thread_inst_executed_op_*) and no pipe (sm__inst_executed_pipe_*) metric — read from the file here.
    A compute verdict ("use tensor cores at a lower precision") is not supported; the next step names the missing
    counters."""
    path = NVIDIA / "olajide_rtx5070_metrics_gemm_naive.csv"
    metrics = {ln.split('","')[12] for ln in path.read_text(encoding="utf-8-sig").splitlines()
               if ln.startswith('"0"')}
    assert "sm__throughput.avg.pct_of_peak_sustained_elapsed" in metrics
    assert not [m for m in metrics if "inst_executed_op" in m or "inst_executed_pipe" in m]
    s = gpulens.analyze([path]).sources[0]
    v = s.results["verdicts"].table.iloc[0]
    assert v["verdict"] not in ("compute-bound", "memory-bound")
    assert "FLOP or pipe counters" in v["next_steps"][0]
    assert s.results["verdicts"].summary["run_verdict"] != "compute-bound"


def test_ncu_tensor_pipe_without_memory_side_gives_no_bound():
    """meinie B200 raw page: the only throughput figure is the tensor pipe (68.4 %, below the 80 % at which a unit
    is saturated whatever the other side does); no memory-throughput column (SOURCES.md: "No warp-stall and no
    memory-throughput columns", checked here on the header)."""
    path = shared_trace("ncu/meinie_b200_raw_torch_sdpa_flash__gqa_bf16_b32_ctx8k_p64.ncu.csv")
    header = next(ln for ln in path.read_text().splitlines() if ln.startswith('"ID"'))
    assert "dram__throughput" not in header and "gpu__compute_memory_throughput" not in header
    s = gpulens.analyze([path]).sources[0]
    v = s.results["verdicts"].table.iloc[0]
    assert v["verdict"] == "undetermined"
    assert "memory throughput counter" in v["next_steps"][0]
    assert "68.4 % of peak" in v["evidence"]  # the ncu tensor-pipe figure, with the table's digits


# ---- class 1: counter-only / timestamp-less inputs get no timing verdicts -------------------------------------------

OMNI = __import__("pathlib").Path(__file__).parent / "data" / "omniperf"


def test_rocprof_compute_without_timestamps_gets_no_timing_verdict():
    """vcopy_MI300X_A1 (rocprof-compute): timestamps.csv writes Start/End as 8.1097E+14 — End − Start is 0 for
    every dispatch (read here). No busy %, no idle, no launch-bound, no 'unlinked launch' warning (the profiler
    replayed the kernels itself); kernel times are unknown (never 0 ns); the verdict comes from counters only."""
    import csv

    folder = OMNI / "vcopy_MI300X_A1"
    rows = list(csv.DictReader(open(folder / "timestamps.csv")))
    assert rows and all(float(r["End_Timestamp"]) - float(r["Start_Timestamp"]) == 0 for r in rows)
    s = gpulens.analyze([folder]).sources[0]
    assert s.summary["gpu_busy_pct"] is None
    assert s.results["bottlenecks"].skipped and s.results["launch_latency"].skipped
    titles = [f.title for f in s.findings()]
    assert not [t for t in titles if "not linked to a launch" in t or "idle" in t.lower()]
    hs = s.results["hotspots"]
    assert hs.summary["kernel_time_ns"] is None and hs.table["effective_ns"].isna().all()
    assert int(hs.table["calls"].sum()) == len(rows)
    v = s.results["verdicts"]
    assert v.summary["basis"].startswith("counters only")
    assert v.summary["run_verdict"] not in ("host-bound", "launch-bound", "sync-bound", "idle-unattributed")
    assert v.table["time_ns"].isna().all() and v.table["time_at_stake_ns"].isna().all()
    assert s.results["kernel_distributions"].skipped and s.results["kernel_outliers"].skipped
    from gpulens.reports.console import source_renderable

    text = _render(source_renderable(s), 120)
    assert not re.search(r"\b0 ns\b|\bnan\b", text)
    assert "durations not recorded" in text
    # every analysis, not only those above: no duration figure (a column or summary key in [ns], clock positions
    # and the timeline views' drawing bins aside) is a 0 that really means "not recorded"
    zeros = []
    for name, r in s.results.items():
        if name in ("stream_timeline", "critical_path_segments") or name.endswith("_series"):
            continue
        for c, doc in r.columns.items():
            if doc.endswith("[ns]") and not c.endswith(("start_ns", "end_ns", "offset_ns")) and c in r.table:
                if (r.table[c].dropna() == 0).any():
                    zeros.append(f"{name}.{c}")
        zeros += [f"{name}.summary.{k}" for k, v in r.summary.items()
                  if k.endswith("_ns") and not isinstance(v, bool) and v == 0]
    assert zeros == []


def test_full_theoretical_occupancy_has_no_limiter_advice():
    """A kernel at 100 % theoretical occupancy with 26 % achieved: the block size limits nothing, so "use 128–256
    threads per block" (for a 256-thread block) must not be the advice."""
    from gpulens.analyzers.verdict_rules import Evidence, decide

    v = decide(Evidence("vecCopy", "kernel", 3, 0, achieved_occupancy_pct=26.3, theoretical_occupancy_pct=100.0,
                        limiter="warps", stall_class="memory_latency", stall_pct=75.8))
    assert not any("threads per block" in s for s in v.next_steps)
    assert any("theoretical 100 %" in s for s in v.next_steps)


# ---- class 2: counter passes of one run are one rank ----------------------------------------------------------------

_V1_HEAD = "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj"


def _pass_csv(pid: int, counters: dict[str, list[float]]) -> str:
    names = ["init_kernel", "stencil_kernel", "stencil_kernel"]
    head = _V1_HEAD + "," + ",".join(counters)
    rows = [f'{i},"{n}",8,0,{i},{pid},{pid},1048576,256,0,0,44,4,48,64,0x0,0x7f00,'
            + ",".join(f"{v[i]:.4f}" for v in counters.values()) for i, n in enumerate(names)]
    return "\n".join([head, *rows]) + "\n"


def test_rocprof_v1_counter_passes_of_one_run_are_one_rank(tmp_path):
    """Two rocprof v1 ``pmc:`` passes (rocprof re-ran the program for each: pids 12811 and 12705) of the same 3
    dispatches on gpu-id 8, plus the run's results.stats.csv: one run, one rank, 3 dispatches (not 6), both passes'
    counters on the same kernels."""
    (tmp_path / "bankconflicts.csv").write_text(_pass_csv(12811, {"LDSBankConflict": [0, 2, 4],
                                                                   "LDSInsts": [0, 10, 30]}))
    (tmp_path / "data_movement.csv").write_text(_pass_csv(12705, {"FETCH_SIZE": [9.0, 100.0, 300.0]}))
    (tmp_path / "results.stats.csv").write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
                                                '"stencil_kernel",2,3000,1500,75.0\n"init_kernel",1,1000,1000,25.0\n')
    s = gpulens.analyze([tmp_path]).sources[0]
    assert s.summary["ranks"] == [0]
    assert s.timeline.meta.sources[0]["collector"] in ("rocprof_v1", "rocprof_stats")
    kc = s.results["kernel_counters"].table.set_index("name")
    assert int(kc.loc["stencil_kernel", "dispatches"]) == 2 and int(kc.loc["init_kernel", "dispatches"]) == 1
    assert kc.loc["stencil_kernel", "FETCH_SIZE"] == (100.0 + 300.0) / 2          # mean over its 2 dispatches
    assert kc.loc["stencil_kernel", "LDSBankConflict"] == (2 + 4) / 2
    assert len(s.timeline.rejected) == 3                                           # each dispatch counted once
    assert not [w for w in s.timeline.meta.warnings if "record no rank" in w]
    assert not [w for w in s.timeline.meta.warnings if "tables[" in w]


def test_shared_seismic_pmc_folder_is_one_rank():
    path = shared_trace("rocprof/v1_pmc_seismic_mi250x")
    s = gpulens.analyze([path]).sources[0]
    assert s.summary["ranks"] == [0]
    assert int(s.results["kernel_counters"].summary["dispatches"]) == 1024       # SOURCES.md: 1,024 rows per pass


# ---- class 5: a truncated or corrupt compressed file says so, with a partial result ---------------------------------

def _complete_events(text: bytes) -> int:
    """Complete timed (``ph: "X"``) objects of the ``traceEvents`` array at the start of ``text`` (a cut Kineto
    JSON), found with the standard library's raw_decode: the independent count of what a reader can keep."""
    s = text.decode("utf-8", "replace")
    i = s.index("[", s.index('"traceEvents"')) + 1
    dec, n = json.JSONDecoder(), 0
    while True:
        while i < len(s) and s[i] in " \t\r\n,":
            i += 1
        try:
            obj, i = dec.raw_decode(s, i)
        except ValueError:
            return n
        n += obj.get("ph") == "X"


def _cut_gzip(src, n: int, dst):
    blob = src.read_bytes()[:n]
    dst.write_bytes(blob)
    return zlib.decompressobj(31).decompress(blob)                # what the cut stream yields


def _cli(*args):
    return subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", *args],
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})


def test_truncated_gzip_without_gpu_events_says_truncated(tmp_path):
    """tracelens_h100_bert-small.json.gz cut to its first 30,000 compressed bytes: the text that decompresses holds
    host events only (Kineto writes GPU events last). The report must say the file is truncated — one line naming
    it — not "no GPU work", and count the events kept."""
    cut = tmp_path / "bert_cut.json.gz"
    text = _cut_gzip(KINETO / "tracelens_h100_bert-small.json.gz", 30_000, cut)
    kept = _complete_events(text)
    assert kept > 0 and b'"cat": "kernel"' not in text
    r = _cli("analyze", str(cut), "--no-cache")
    # a truncated input is an input error (exit 2, README "Exit codes"), the same for .json and .json.gz; never
    # exit 5 "no GPU work": the lost part may have held all of it
    assert r.returncode == 2
    line = [ln for ln in r.stderr.splitlines() if str(cut) in ln]
    assert len(line) == 1 and "truncated" in line[0] and "no GPU event" in line[0]
    assert "nothing ran on a GPU" not in r.stdout
    s = gpulens.analyze([cut]).sources[0]
    assert s.timeline.meta.truncated
    assert any(f"the {kept:,} complete timed events" in w for w in s.timeline.meta.warnings)
    from gpulens.reports._answer import answer

    assert answer(s).verdict == "truncated input"


def test_truncated_gzip_with_kernels_gives_a_partial_result(tmp_path):
    """The same file cut to 62,000 of its 65,218 compressed bytes: kernels are in the readable part; the result is
    partial and says so beside the verdict."""
    cut = tmp_path / "bert_cut.json.gz"
    text = _cut_gzip(KINETO / "tracelens_h100_bert-small.json.gz", 62_000, cut)
    kept = _complete_events(text)
    s = gpulens.analyze([cut]).sources[0]
    assert s.status == "partial"
    assert any(f"the {kept:,} complete timed events" in w for w in s.timeline.meta.warnings)
    from gpulens.reports._answer import answer

    assert "input truncated" in answer(s).sentence


def test_corrupt_gzip_keeps_the_events_before_the_corruption(tmp_path):
    """200 bytes inside the deflate data of a 65 kB trace flipped: zlib fails (data check). What decompressed before
    the corruption is read, the input is marked truncated, and the warning says the gzip data is corrupt."""
    blob = bytearray((KINETO / "tracelens_h100_bert-small.json.gz").read_bytes())
    for i in range(30_000, 30_200):
        blob[i] ^= 0x55
    bad = tmp_path / "bert_corrupt.json.gz"
    bad.write_bytes(bytes(blob))
    try:
        zlib.decompress(bytes(blob), 31)
        raise AssertionError("the flipped bytes should make the stream corrupt")
    except zlib.error:
        pass
    s = gpulens.analyze([bad]).sources[0]
    assert s.timeline.meta.truncated
    assert any("gzip data is corrupt" in w for w in s.timeline.meta.warnings)
    assert len(s.timeline.events) > 0


# ---- class 3: findings and warnings are read by people --------------------------------------------------------------

SENTENCE_INPUTS = [KINETO / "hta_alexnet_a100.json.gz", KINETO / "multirank", KINETO / "tracelens_mi300x_bert-small.json.gz",
                   OMNI / "vcopy_MI300X_A1", OMNI / "vcopy_MI200", NVIDIA / "olajide_rtx5070_metrics_gemm_naive.csv",
                   NVIDIA / "codegandee_rtx5090_ncu-v2_kernel_0013_details.csv",
                   __import__("pathlib").Path(__file__).parent / "data" / "cases" / "B07.json",
                   __import__("pathlib").Path(__file__).parent / "data" / "cases" / "B20.ncu_details_12col.csv",
                   __import__("pathlib").Path(__file__).parent / "data" / "rocprof" / "v1_gunrock_mi300x"]
RAW_FIGURE = re.compile(r"\b\d{4,} ns\b|\b\d+\.\d{3} (?:ms|µs|s)\b|\b\d+(?:\.\d+)?e[+-]?\d+\b")


def _sentences(s) -> list[str]:
    out = [t for f in s.findings() for t in (f.title, f.detail, f.action) if t]
    out += list(s.timeline.meta.warnings)
    out += [r.skipped_reason for r in s.results.values() if r.skipped_reason]
    vd = s.results.get("verdicts")
    if vd is not None and not vd.skipped:
        out += [str(vd.summary.get("basis"))] + [e for e in vd.table["evidence"]] + \
            [x for steps in vd.table["next_steps"] for x in steps]
    return out


@pytest.mark.parametrize("path", SENTENCE_INPUTS, ids=lambda p: p.name)
def test_sentences_have_no_raw_figures_or_internal_names(path):
    """Every finding, warning, skip reason, verdict basis, evidence and next step: no raw nanosecond integer (a
    duration is written with its unit by gpulens.units) and no internal identifier — a table column or summary key
    of any analysis (``idle_host_ns``, ``min_share``, ``compute_pct``…), ``tables[...]`` or ``summary.…``."""
    s = gpulens.analyze([path]).sources[0]
    names = {str(k) for r in s.results.values() for k in [*r.columns, *r.summary] if "_" in str(k)}
    names |= {"host_idle", "launch_delay", "gpu_gap", "min_share", "start_ns", "dur_ns"}
    kernels = set(s.timeline.events["name"].astype(str))
    for text in _sentences(s):
        plain = re.sub(r"(?:/[\w.\-]+)+", "", text)            # file paths may hold anything
        assert not RAW_FIGURE.search(plain), (RAW_FIGURE.search(plain).group(0), text[:200])
        assert "tables[" not in plain and "summary." not in plain, text[:200]
        words = set(re.findall(r"(?<![\w.])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w(])", plain))
        bad = {w for w in words & names if not any(w in k for k in kernels)}
        assert not bad, (bad, text[:200])


def test_ncu_unnamed_namespace_is_not_the_kernel_name():
    """ncu writes the anonymous namespace as ``<unnamed>::`` (the olajide export even lost the ``<``): the short
    name is the kernel's own name (read from the file here), not "unnamed"."""
    from gpulens.reports._names import short_names

    path = NVIDIA / "olajide_rtx5070_metrics_gemm_naive.csv"
    name = next(ln for ln in path.read_text(encoding="utf-8-sig").splitlines() if ln.startswith('"0"')).split('","')[4]
    assert name.startswith("unnamed>::gemm_naive_kernel(")
    assert short_names([name]) == ["gemm_naive_kernel"]


def test_share_columns_say_what_they_are_a_share_of():
    """Op categories include copies: their share is of GPU time, not of kernel time (AlexNet: copies 55.5 ms of
    66.2 ms of GPU event time, 10.7 ms of kernel time — '83.8 % of kernel time' was impossible)."""
    from gpulens.reports._format import column_label

    s = gpulens.analyze([KINETO / "hta_alexnet_a100.json.gz"]).sources[0]
    oc = s.results["op_categories"]
    assert column_label("share", oc.columns["share"]) == "share of GPU time"
    assert column_label("share", s.results["hotspots"].columns["share"]) == "share of kernel time"
    copy = oc.table.set_index("category").loc["copy"]
    assert copy["gpu_time_ns"] > s.results["hotspots"].summary["kernel_time_ns"]   # so it cannot be "of kernel time"


# ---- impossible values: a FLOP rate above the GPU's peak is unknown, not a result ----------------------------------

def test_gemm_timed_against_a_memset_has_no_flop_rate():
    """multirank rank 0: ``aten::mm`` 3906×512×2048 fp32 (2·M·N·K = 8.19 GFLOP, by hand) whose only GPU work in the
    sampled trace is a 1 µs memset: 8.19 PFLOP/s would be 42,000 % of the A100's fp32 peak. Rates above the GPU's
    highest peak are unknown (with a warning); an fp32 GEMM above the fp32 peak is measured against TF32."""
    s = gpulens.analyze([KINETO / "multirank"]).sources[0]
    t = s.results["gemm_shapes"].table
    row = t[(t["M"] == 3906) & (t["N"] == 512) & (t["K"] == 2048) & t["kernel"].str.startswith("Memset")].iloc[0]
    assert row["flops"] == 2 * 3906 * 512 * 2048 * row["calls"] and row["gpu_time_ns"] == 1000 * row["calls"]
    assert row["flops_per_s"] != row["flops_per_s"] and row["peak_pct"] != row["peak_pct"]   # NaN: unknown
    assert (t["peak_pct"].dropna() <= 100).all()
    # session 50: no kernel ran it — its rate is unknown with the reason on its row, not warned about as a rate
    # above the peak (a device spec with other peaks changed nothing)
    assert row["rate_note"].startswith("no kernel of its own: its only GPU work is Memset")
    assert not any("faster than the GPU's peak" in w for w in s.timeline.meta.warnings)


# ---- the verdict's busy figure is about what the verdict covers ---------------------------------------------------

def test_run_verdict_names_the_steady_state_busy_share(tmp_path):
    """sglang decode trace (TraceLens): a 463 ms leading host gap (hipMemcpyWithStream) left out of the verdict, and
    the headline read "gpu-bound — the GPU was busy 2.1 %". Hand-made equivalent: one 10 µs kernel, a 100 ms gap,
    then 20 kernels of 10 µs with 1 µs gaps. Span = 10 + 100,000 + 20·10 + 19·1 = 100,229 µs; busy = 210 µs; the
    steady state without the 100 ms boundary gap is 229 µs, busy 210 / 229 = 91.7 %."""
    ev, t = [], 1000.0
    starts = [t] + [t + 10 + 100_000 + 11 * i for i in range(20)]
    for i, s in enumerate(starts):
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": s, "dur": 10,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    p = tmp_path / "gap.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    s = gpulens.analyze([p]).sources[0]
    bn = s.results["bottlenecks"].summary
    assert bn["steady_span_ns"] == 229_000
    assert bn["steady_busy_pct"] == pytest.approx(100 * 210 / 229)
    from gpulens.reports._answer import answer

    sentence = answer(s).sentence
    # s38: the left-out gap's length named (10 + 100,000 µs start → the next kernel at 100,010 µs: 100,000 µs)
    assert "of its whole 100.23 ms span" in sentence and \
        "91.7 % of the 229.00 µs outside the 100.00 ms warm-up/one-off" in sentence
    # the figure the verdict rests on comes first, the whole span's share after it
    assert sentence.index("91.7 % of the 229.00 µs") < sentence.index("of its whole 100.23 ms span")


def test_nameless_device_record_names_its_architecture():
    """TraceLens vLLM graph trace: deviceProperties without a name but with HIP's 9.4 and 304 CUs read "device not
    recorded (analysed as MI300X: … the name '' does not say)". HIP reports gfx942 as 9.4 (ROCm docs, "GPU hardware
    specifications"), so the record names gfx942 and says the name is missing."""
    from gpulens.devices import identify_device
    from gpulens.reports._format import device_text

    rec = {"rank": 0, "device_id": 0, "name": "", "compute_capability": "9.4", "num_sms": 304, "warp_size": 64}
    spec = identify_device(rec)
    text = device_text([rec], spec)
    assert text.startswith("gfx942 (HIP reports 9.4) (name not recorded)")
    assert "''" not in text and "not recorded (analysed" not in text


def test_no_estimate_note_counts_the_findings_with_unknown_gain():
    """When no finding has an estimated gain (memfusion RTX 3090: all 8 unquantified), the first screen says how many
    have an unknown gain instead of an empty list. Hand-made: two roots without an estimate, one data-quality note,
    one child of the first root → 2."""
    from gpulens.analyzers.base import Finding
    from gpulens.reports._answer import no_estimate_note

    fs = [Finding("limiter a", "", severity="warning", key="a"),
          Finding("limiter b", "", severity="info", key="b"),
          Finding("counters missing", "", category="data-quality", key="c"),
          Finding("detail of a", "", key="a/x", parent="a")]
    assert no_estimate_note(fs) == ("No finding has an estimated gain; 2 have an unknown gain (listed under "
                                    "Findings).")
    assert no_estimate_note([]) == "No finding with a time at stake."


def test_profiler_percentage_above_100_is_unknown():
    """olajide RTX 5070 gemm_naive (ncu CSV): the file's lts__t_sector_hit_rate.pct is "100.39" (read here) — a hit
    rate cannot exceed 100 %, so the speed-of-light table shows it as unknown and counts it."""
    import csv

    path = DATA / "nvidia" / "olajide_rtx5070_metrics_gemm_naive.csv"
    rows = [r for r in csv.reader(open(path)) if "lts__t_sector_hit_rate.pct" in r]
    assert rows and float(rows[0][-1]) > 100
    s = gpulens.analyze([path]).sources[0]
    sol = s.results["speed_of_light"]
    # the counter is dropped when the Timeline is validated (one rule for every percentage counter, counted in a
    # warning); the speed-of-light table then has no hit rate to show, and none of its own figures above 100
    assert any(w.startswith("1 percentage counter value above 100 dropped") for w in s.timeline.meta.warnings)
    assert sol.summary["impossible_pct_values"] == 0
    assert sol.table["l2_hit_pct"].isna().all()
    assert sol.table["compute_pct"].iloc[0] <= 100
