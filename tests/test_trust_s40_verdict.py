"""Conclusions that contradict the figures (s40): one name per judgement, the run verdict over the GPU span, the
gate's decisive cause first, a --device-spec that is not the traced GPU, HIP runtime kernels that are no computation.

1. A kernel's roofline ``bound`` and its verdict use one name: ``latency/occupancy`` beside
   ``latency/occupancy-bound`` (the ncu H200 ``tiny`` kernel read "below-roofs" in the roofline table); the roofline
   table shows "bound's % of peak" only where it differs from "% of roofline".
2. Host-only time before the first GPU work (start-up) and after the last is its own figure, never the run verdict
   (nsys streamSimple: 54.58 ms of start-up before 76.93 µs of GPU work read "host-bound"); a host wait filled by
   set-up calls is named start-up.
3. ``gpulens gate`` INCOMPARABLE leads with the GPU difference, not "not the same workload".
4. ``--device-spec H100`` on an H200 trace warns once, naming both.
5. ``__amd_rocclr_initHeap`` / ``gwsInit``... are runtime work, not hot kernels.

Expected values come from the inputs (sqlite3, csv, json) or from the intervals written here, by hand.
"""

from __future__ import annotations

import gzip
import json
import sqlite3

import pandas as pd
import pytest

import gpulens
from gpulens.reports._answer import answer
from tests.conftest import DATA, SHARED
from tests.test_trust_s36_verdict import _ncu_metric  # one reader of the ncu H200 CSV's metric rows

H200 = DATA / "nvidia" / "h200"
NCU_REP = H200 / "h200_kernels.ncu-rep"
RESNET = H200 / "h200_resnet18_train.pt.trace.json.gz"
STREAMS = SHARED / "nsys" / "lashi_rtx4090_streamSimple.sqlite"


# ---- 1. one name per judgement ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ncu_rep():
    return gpulens.analyze([NCU_REP], workers=1).sources[0]


@pytest.fixture(scope="module")
def resnet():
    return gpulens.analyze([RESNET], workers=1).sources[0]


def test_tiny_kernel_reads_latency_occupancy_in_the_roofline_and_its_verdict(ncu_rep):
    # tiny: compute and memory both far under ncu's 60 % SOLBottleneck line → latency-bound by its counters
    assert _ncu_metric("tiny", "Compute (SM) Throughput") < 60 and _ncu_metric("tiny", "Memory Throughput") < 60
    rf, vd = ncu_rep.results["roofline"].table, ncu_rep.results["verdicts"].table
    verdict = next(v for n, v in zip(vd["name"].astype(str), vd["verdict"]) if n.startswith("tiny"))
    bound = next(b for n, b in zip(rf["name"].astype(str), rf["bound"]) if n.startswith("tiny"))
    assert (verdict, bound) == ("latency/occupancy-bound", "latency/occupancy")


@pytest.mark.parametrize("which", ["ncu_rep", "resnet"])
def test_every_kernel_has_one_bound_name_in_roofline_and_verdict(which, request):
    from gpulens.analyzers.roofline import VERDICT_TO_BOUND

    s = request.getfixturevalue(which)
    b = dict(zip(s.results["roofline"].table["name"].astype(str), s.results["roofline"].table["bound"]))
    pairs = [(b[n], v) for n, v in zip(s.results["verdicts"].table["name"], s.results["verdicts"].table["verdict"])
             if n in b and b[n] is not None and v in VERDICT_TO_BOUND]
    assert pairs and all(VERDICT_TO_BOUND[v] == bnd for bnd, v in pairs), pairs


def test_name_latency_relabels_only_that_kernels_below_roofs_row():
    from gpulens.analyzers.base import AnalysisResult
    from gpulens.analyzers.roofline import COLUMNS, Roofline

    t = pd.DataFrame({"name": ["a", "b", "c"], "bound": ["below-roofs", "below-roofs", "memory"]})
    r = AnalysisResult("roofline", t, COLUMNS)
    Roofline.name_latency(r, "a")
    Roofline.name_latency(r, "c")  # a memory bound is no placement below the roofs: unchanged
    assert r.table["bound"].tolist() == ["latency/occupancy", "below-roofs", "memory"]


def test_roofline_table_shows_one_share_column_when_the_two_agree(ncu_rep, resnet):
    from gpulens.reports import console

    txt = " ".join(console.render(gpulens.report.Report([resnet]), width=250).split())
    head = txt[txt.index("Roofline on"):txt.index("Occupancy (", txt.index("Roofline on"))]
    # roofline basis on every row (shapes): bound_pct is roof_pct, shown once
    rt = resnet.results["roofline"].table
    assert (rt["bound_basis"].dropna() == "roofline").all()
    assert "bound's" not in head and "roofline" in head.split("┃", 1)[1]  # headers wrap: "% of" / "roofline"
    # ncu counters: the measured unit's share (L1 97.2 %) and the roofline's (8.1 %) are two figures, both shown
    rep = gpulens.report.Report([ncu_rep])
    txt = " ".join(console.render(rep, width=250).split())
    head = txt[txt.index("Roofline on"):txt.index("Occupancy (", txt.index("Roofline on"))]
    assert "bound's" in head.split("┃", 1)[1] and "Two shares" in head


# ---- 2. start-up is its own figure, not the verdict ------------------------------------------------------------

@pytest.mark.skipif(not STREAMS.exists(), reason="developer corpus not present")
def test_stream_simple_start_up_is_not_host_bound():
    c = sqlite3.connect(STREAMS)
    k0, k1 = c.execute("select min(start), max(end) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    r0, r1 = c.execute("select min(start), max(end) from CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()
    s = gpulens.analyze([STREAMS], workers=1).sources[0]
    vd = s.results["verdicts"].summary
    assert vd["run_verdict"] != "host-bound"
    assert vd["outside_span"] == {"before_ns": k0 - r0, "after_ns": r1 - k1, "window_ns": r1 - r0,  # 54.58, 21.36 ms
                                  "pct": pytest.approx(100 * ((k0 - r0) + (r1 - k1)) / (r1 - r0))}
    head = answer(s).sentence
    assert "not judged by the verdict: 54.58 ms of host-only time before the first GPU work (start-up) and 21.36 ms " \
           "after the last (99.9 % of the 76.02 ms profiled window)" in head
    assert head.count("54.58 ms") == 1  # said once, though the basis of an undetermined verdict follows
    # the critical path's host time details the start-up finding, not a host bottleneck inside the span
    cp = next(f for f in s.findings() if f.key.startswith("critical") and f.parent)
    assert cp.parent == "window/host-only"


def _setup_trace(path):
    """5 launches 5 ms apart (µs): kernel i at 10 + 5000 i + 6, 20 µs; after each launch a 4,900 µs cudaMalloc on the
    host; one CPU op over [0, 30000). Gaps between kernels: 4 × (5000 − 20) = 19,920 µs of GPU idle waiting for the
    host, 4 × 4,900 = 19,600 µs of it inside cudaMalloc (the 5th call runs after the last kernel)."""
    from tests.dig_traces import KTrace

    t = KTrace()
    ext = t.op("aten::train", 0.0, 30000.0)
    for i in range(5):
        ts = 10.0 + 5000.0 * i
        t.launch(ext, ts, [("gemm_k", ts + 6.0, 20.0)])
        t.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 1, "tid": 1, "ts": ts + 30.0,
                     "dur": 4900.0, "args": {"correlation": 9000 + i}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [t.device], "traceEvents": t.ev}))
    return path


def test_host_wait_filled_by_set_up_calls_is_named_start_up(tmp_path):
    s = gpulens.analyze([_setup_trace(tmp_path / "setup.json")], workers=1).sources[0]
    vd = s.results["verdicts"].summary
    assert vd["run_verdict"] == "host-bound"
    assert vd["host_setup"] == {"setup_ns": 19_600_000, "host_ns": 19_920_000, "steady_ns": 320_000}
    head = answer(s).sentence
    assert "host-bound by start-up work, not by steady-state launches: set-up calls (allocation, stream or " \
           "module creation, first kernel loads) fill 19.60 ms of the 19.92 ms the GPU waited for the host" in head
    # last kernel ends at 20,010 + 6 + 20 = 20,036 µs; the window at 30,000 µs: 9.96 ms after, 16 µs before
    assert vd["outside_span"] == {"before_ns": 16_000, "after_ns": 9_964_000, "window_ns": 30_000_000,
                                  "pct": pytest.approx(100 * (16_000 + 9_964_000) / 30_000_000)}  # 33.27 %


# ---- 3. the gate's decisive cause first ------------------------------------------------------------------------

def test_gate_reason_leads_with_the_gpu_difference():
    from gpulens.gate import GateConfig, run_gate
    from gpulens.gate.result import INCOMPARABLE
    from tests.test_trust_s37_verdict import GATE_ENV, _gate_sides

    base, cand = _gate_sides({"gemm": 6e5, "softmax": 4e5}, {"Cijk_gemm": 5e5, "hip_softmax": 5e5})
    cand.environment = {**GATE_ENV, "gpus": ["AMD Instinct MI300X"], "arch": ["gfx942"]}
    res = run_gate(base, cand, GateConfig())
    assert res.verdict == INCOMPARABLE
    assert res.reason.startswith("not comparable: GPU model: baseline NVIDIA H100 80GB HBM3, candidate AMD Instinct "
                                 "MI300X"), res.reason
    # another GPU runs other kernel names by nature: no claim of another workload, only the note saying why
    # (session 45: an H100 baseline vs an MI300X candidate of one model was called "not the same workload")
    assert "GPU architecture" in res.reason and "not the same workload" not in res.reason
    assert any(n.startswith("kernel names not used to tell the workloads apart: the runs ran on different GPU "
                            "models") for n in res.notes)
    assert {m.reason.split(" (")[0] for m in res.metrics} == {"environments differ"}
    # the same GPU: the workload is the cause, said first
    base, cand = _gate_sides({"gemm": 6e5, "softmax": 4e5}, {"Cijk_gemm": 5e5, "hip_softmax": 5e5})
    res = run_gate(base, cand, GateConfig())
    assert res.reason.startswith("not comparable: the runs are not the same workload")
    assert {m.reason.split(" (")[0] for m in res.metrics} == {"runs differ"}


# ---- 4. a --device-spec that is not the traced GPU ---------------------------------------------------------------

KINETO_H200 = H200 / "h200_kineto.pt.trace.json.gz"


@pytest.fixture(scope="module")
def h200_timeline():
    from gpulens.collectors import collect

    return collect(KINETO_H200)


def test_device_spec_of_another_gpu_warns_once_naming_both(h200_timeline):
    from gpulens.devices import get_spec

    recorded = json.load(gzip.open(KINETO_H200))["deviceProperties"][0]["name"]  # "NVIDIA H200"
    for _ in range(2):  # analysed twice: still one warning
        gpulens.analyze_timeline(h200_timeline, "t", ["hotspots"], get_spec("NVIDIA H100 SXM"))
    warns = [w for w in h200_timeline.meta.warnings if "--device-spec" in w]
    assert len(warns) == 1
    assert f"--device-spec NVIDIA H100 SXM is not the GPU this trace records: {recorded} " in warns[0]
    assert "use the NVIDIA H100 SXM's figures" in warns[0]
    h200_timeline.meta.warnings[:] = [w for w in h200_timeline.meta.warnings if w not in warns]
    gpulens.analyze_timeline(h200_timeline, "t", ["hotspots"], get_spec("NVIDIA H200 SXM"))
    assert not [w for w in h200_timeline.meta.warnings if "--device-spec" in w]


def test_spec_file_of_the_same_gpu_is_no_conflict_another_arch_is(h200_timeline):
    from dataclasses import replace

    from gpulens.devices import get_spec, spec_conflict

    tl = h200_timeline
    h200 = get_spec("NVIDIA H200 SXM")
    # the user's own file for this GPU (its measured peaks under another name): same vendor, arch and SM count
    assert spec_conflict(tl, replace(h200, name="my locked-clock H200", origin="/tmp/h200.toml")) is None
    mi = replace(get_spec("AMD Instinct MI300X"), origin="/tmp/mi.toml")
    assert "(an NVIDIA GPU)" in spec_conflict(tl, mi)


# ---- 5. HIP runtime kernels are no computation ------------------------------------------------------------------

def test_hip_runtime_set_up_kernels_are_fills_not_hot_kernels(tmp_path):
    # rocprofv3 kernel trace (ns): initHeap [1000000, 1010000), gwsInit [1020000, 1025000), two taylor_base of 10 µs
    rows = [("__amd_rocclr_initHeap", 1_000_000, 1_010_000), ("__amd_rocclr_gwsInit", 1_020_000, 1_025_000),
            ("taylor_base(float*, float*, unsigned long, unsigned long)", 1_030_000, 1_040_000),
            ("taylor_base(float*, float*, unsigned long, unsigned long)", 1_045_000, 1_055_000)]
    head = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
            '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
    body = "".join(f'"KERNEL_DISPATCH",4,1,1,{i + 1},{i + 2},"{n}",{i + 14},{a},{b},0,0,256,1,1,256,1,1\n'
                   for i, (n, a, b) in enumerate(rows))
    p = tmp_path / "heap_kernel_trace.csv"
    p.write_text(head + body)
    s = gpulens.analyze([p], workers=1).sources[0]
    hot = set(s.results["hotspots"].table["name"].astype(str))
    assert not any("rocclr" in n for n in hot) and any(n.startswith("taylor_base") for n in hot)
    assert s.summary["kernel_busy_ns"] == 20_000  # the two taylor_base launches
    assert s.summary["exposed_memset_ns"] == 15_000  # 10 µs initHeap + 5 µs gwsInit, no kernel beside them


@pytest.mark.parametrize("name,kind", [
    ("__amd_rocclr_initHeap.kd", "memset"), ("__amd_rocclr_gwsInit", "memset"), ("gwsInit", "memset"),
    ("__amd_rocclr_scheduler", "memset"), ("__amd_rocclr_graphScheduler", "memset"),
    ("__amd_rocclr_batchMemOp", "sync"), ("__amd_rocclr_streamOpsIncrement", "sync"),
    ("scheduler", "kernel"), ("my_gwsInit_kernel", "kernel"),  # user kernels keep their kind
])
def test_rocclr_names(name, kind):
    from gpulens.collectors._work_rules import kind_of_kernel_name

    assert kind_of_kernel_name(name) == kind
