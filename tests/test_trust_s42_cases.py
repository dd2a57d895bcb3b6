"""Variants of the shared cases (../shared/cases/README.md) that another public project could produce (session 42),
each generated here with its answer worked out by hand in the docstring from the values written (ns in rocprofv3
CSV, µs in Kineto files, ns in reports) — never copied from gpulens output.

* T12's device naming in a rocprofv3 CSV set: ``Agent_Id`` is written in the space ``--agent-index`` picks
  (``Agent <logical node>`` by default, ``GPU <type-relative index>``, or the bare node id of older versions;
  rocprofiler-sdk ``using-rocprofv3.rst`` "Agent index"). ``GPU 0`` was read as node 0 — the CPU in
  ``agent_info.csv`` — so the kernels ran on "a dangling device" and the listed GPU had "no GPU work on it"; a copy's
  ``Source_Agent_Id`` / ``Destination_Agent_Id`` written as labels was not read at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main
from tests.test_trust_s41_cases import _k, _launch  # a Kineto kernel / launch-call event (µs)

# -- rocprofv3 agent index (T12 / B11: which GPU ran the work) -------------------------------------------------------

_KT = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
       '"Correlation_Id","Start_Timestamp","End_Timestamp","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z",'
       '"Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
_AI = '"Node_Id","Logical_Node_Id","Agent_Type","Cu_Count","Wave_Front_Size","Simd_Per_Cu","Name","Product_Name"\n'
# two CPU sockets (nodes 0, 1) then two GPUs (nodes 2, 3): GPU 0 = node 2, GPU 1 = node 3 (T12's agent table)
_AGENTS = (_AI + '0,0,"CPU",0,0,0,"cpu","EPYC"\n1,1,"CPU",0,0,0,"cpu","EPYC"\n'
           '2,2,"GPU",304,64,4,"gfx942","AMD Instinct MI300X"\n3,3,"GPU",304,64,4,"gfx942","AMD Instinct MI300X"\n')
_CP = '"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'


def _kt_rows(label0: str, label1: str) -> str:
    """gemm [1,000,000, 1,100,000] and add [1,150,000, 1,170,000] on the first GPU (label0, queue 1); gemm
    [1,000,000, 1,050,000] on the second (label1, queue 2)."""
    return (_KT + f'"KERNEL_DISPATCH","{label0}",1,0,9,1,5,"gemm",1,1000000,1100000,256,1,1,4096,1,1\n'
            f'"KERNEL_DISPATCH","{label0}",1,0,9,2,6,"add",2,1150000,1170000,256,1,1,4096,1,1\n'
            f'"KERNEL_DISPATCH","{label1}",2,0,9,3,5,"gemm",3,1000000,1050000,256,1,1,4096,1,1\n')


def _analyze(path: Path, tmp_path: Path) -> dict:
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


def _per_device(src: dict) -> dict:
    rows = src["analyses"]["breakdown"]["table"]
    return {int(r["device_id"]): r["busy_ns"] for r in rows if r.get("device_id") is not None}


@pytest.mark.parametrize("labels", [("GPU 0", "GPU 1"), ("Agent 2", "Agent 3"), ("2", "3")],
                         ids=["type-relative", "relative", "bare-node-id"])
@pytest.mark.parametrize("whole_folder", [False, True], ids=["file", "folder"])
def test_agent_index_spaces_name_the_same_gpus(labels, whole_folder, tmp_path):
    """Whatever ``--agent-index`` wrote, agent_info.csv says the kernels ran on nodes 2 and 3 (the two MI300X):
    node 2 busy 100 + 20 = 120 µs, node 3 busy 50 µs; total 170 µs over span 1,000,000 → 1,170,000 ns; both GPUs
    listed with their hardware (gpu_index 0 and 1, their type-relative index), no "dangling device" warning."""
    (tmp_path / "5_agent_info.csv").write_text(_AGENTS)
    kt = tmp_path / "5_kernel_trace.csv"
    kt.write_text(_kt_rows(*labels))
    src = _analyze(tmp_path if whole_folder else kt, tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"]) == (3, 170_000)
    assert _per_device(src) == {2: 120_000, 3: 50_000}
    devs = {d["device_id"]: d for d in src["devices"]}
    assert sorted(devs) == [2, 3] and (devs[2]["gpu_index"], devs[3]["gpu_index"]) == (0, 1)
    assert devs[2]["name"] == "AMD Instinct MI300X"
    assert not any("dangling" in w for w in src["warnings"])


def test_copy_agents_written_as_labels_name_the_gpu(tmp_path):
    """A host-to-device copy "CPU 0" → "GPU 1" [1,200,000, 1,204,000] and a device-to-host copy "GPU 0" → "CPU 1"
    [1,300,000, 1,302,000] beside the kernels of the type-relative file: the first is work of node 3 (GPU 1),
    the second of node 2 (GPU 0). Node 2: 120 + 2 = 122 µs busy; node 3: 50 + 4 = 54 µs; 2 copies, 6 µs."""
    (tmp_path / "5_agent_info.csv").write_text(_AGENTS)
    (tmp_path / "5_kernel_trace.csv").write_text(_kt_rows("GPU 0", "GPU 1"))
    (tmp_path / "5_memory_copy_trace.csv").write_text(
        _CP + '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE","CPU 0","GPU 1",4,1200000,1204000\n'
        '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST","GPU 0","CPU 1",5,1300000,1302000\n')
    src = _analyze(tmp_path, tmp_path)
    assert src["summary"]["memcpy_count"] == 2
    assert _per_device(src) == {2: 122_000, 3: 54_000}


def test_t12_two_processes_written_type_relative(tmp_path):
    """T12 as a rocprofv3 CSV folder written with ``--agent-index=type-relative``: process 4242 ran gemm
    [1,000,000, 1,100,000] and add [1,200,000, 1,250,000] on "GPU 0", process 4243 gemm [1,000,000, 1,100,000] and
    add [1,190,000, 1,240,000] on "GPU 1"; each process's agent_info.csv (T12's table: CPUs at nodes 0, 1, GPUs at
    2, 3). Expected as T12: 2 ranks; GPU 2 busy 150,000 ns of span 250,000; GPU 3 busy 150,000 ns of span 240,000;
    4 kernels, 300,000 ns."""
    for pid, label, add in ((4242, "GPU 0", (1_200_000, 1_250_000)), (4243, "GPU 1", (1_190_000, 1_240_000))):
        (tmp_path / f"{pid}_agent_info.csv").write_text(_AGENTS)
        (tmp_path / f"{pid}_kernel_trace.csv").write_text(
            _KT + f'"KERNEL_DISPATCH","{label}",1,0,{pid},1,5,"gemm",1,1000000,1100000,256,1,1,4096,1,1\n'
            f'"KERNEL_DISPATCH","{label}",1,0,{pid},2,6,"add",2,{add[0]},{add[1]},256,1,1,4096,1,1\n')
    src = _analyze(tmp_path, tmp_path)
    assert (src["summary"]["kernel_count"], src["summary"]["gpu_busy_ns"], src["summary"]["ranks"]) == (4, 300_000,
                                                                                                        [0, 1])
    rows = {(r["rank"], r["device_id"]): (r["busy_ns"], r["span_ns"]) for r in src["analyses"]["breakdown"]["table"]}
    assert rows == {(0, 2): (150_000, 250_000), (1, 3): (150_000, 240_000)}


# -- T06 in rocprof v1 output: launch calls whose GPU ops have no row -------------------------------------------------

_V1_SCHEMA = """
CREATE TABLE HIP ("BeginNs" INTEGER, "EndNs" INTEGER, "pid" INTEGER, "tid" INTEGER, "Name" TEXT, "args" TEXT,
                  "Index" INTEGER, "Data" TEXT, "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
CREATE TABLE OPS ("BeginNs" INTEGER, "EndNs" INTEGER, "dev-id" INTEGER, "queue-id" INTEGER, "Name" TEXT,
                  "pid" INTEGER, "tid" INTEGER, "roctx-range" TEXT, "stream-id" INTEGER, "Index" INTEGER, "Data" TEXT,
                  "__section" INTEGER, "__lane" INTEGER, "DurationNs" INTEGER);
CREATE TABLE KERN ("Index" INTEGER, "KernelName" TEXT);
"""


def _v1_db(path: Path, ops: list[int]) -> Path:
    """rocprof v1 ``--hip-trace`` results.db (the schema of a real MI300A one): hipLaunchKernel calls of Index 8, 9,
    10 at 1,000,000 + 100,000·i ns (5,000 ns each); OPS rows (kernel ``vadd``, 20,000 ns from the call's end) only
    for the Indexes in ``ops``."""
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript(_V1_SCHEMA)
    for i, idx in enumerate((8, 9, 10)):
        b = 1_000_000 + 100_000 * i
        con.execute("INSERT INTO HIP VALUES (?,?,7,7,'hipLaunchKernel','( kernel(vadd))',?,'',2,7,5000)",
                    (b, b + 5000, idx))
        if idx in ops:
            con.execute("INSERT INTO OPS VALUES (?,?,4,0,'vadd',7,7,'vadd',1,?,'',10,1,20000)",
                        (b + 5000, b + 25000, idx))
    con.commit()
    con.close()
    return path


def test_v1_db_launch_calls_without_ops_rows_are_counted(tmp_path):
    """3 hipLaunchKernel calls (Index 8, 9, 10), one OPS row (Index 8): the OPS row's Index is its call's, so 1
    kernel linked and 2 of 3 launch calls without GPU record (as a Kineto trace with correlations says); kernel
    busy 20,000 ns."""
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(_v1_db(tmp_path / "results.db", [8])), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    la = src["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["kernels_linked"], la["launch_calls_without_gpu_work"]) == (3, 1, 2)
    assert src["summary"]["gpu_busy_ns"] == 20_000
    assert any(f["title"].startswith("2 of 3 launch calls have no GPU record") for f in src["findings"])


@pytest.mark.parametrize("form", ["results.db", "results.json"])
def test_v1_launch_calls_without_any_gpu_op_are_an_incomplete_capture(form, tmp_path, capsys):
    """No OPS row / no GPU track at all beside 3 (db) or 1 (json) hipLaunchKernel calls: exit 5 (no data) and the
    one line says the capture is incomplete with the calls counted — not a bare "no GPU work"."""
    if form == "results.db":
        p, n = _v1_db(tmp_path / "results.db", []), 3
    else:
        ev = [{"ph": "M", "name": "process_name", "pid": "2", "args": {"name": "CPU HIP API"}},
              {"ph": "X", "name": "hipLaunchKernel", "pid": "2", "tid": "7", "ts": "1000", "dur": "5",
               "args": {"BeginNs": "1000000", "EndNs": "1005000", "Name": "hipLaunchKernel", "pid": "7", "tid": "7",
                        "args": "( kernel(vadd))", "DurationNs": "5000"}}]
        p, n = tmp_path / "results.json", 1
        p.write_text(json.dumps({"traceEvents": ev}))
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 5
    err = capsys.readouterr().err
    assert "incomplete" in err and f"{n} launch call" in err and "hipLaunchKernel ×" + str(n) in err
    src = json.loads(out.read_text())["sources"][0]
    assert src["summary"]["kernel_count"] == 0 and any("incomplete capture" in w for w in src["warnings"])


# -- the CI gate: GPU work of unknown duration judged only where it enters a figure ----------------------------------

T = 1_615_207_264_505_000  # µs, B06's epoch


def _gate(tmp_path: Path, cand: list[dict], base: list[list[dict]]) -> dict:
    paths = []
    for i, ev in enumerate(base + [cand]):
        paths.append(tmp_path / f"r{i}.json")
        paths[-1].write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    b = tmp_path / "base.json"
    assert main(["analyze", "-q", "--no-cache", *map(str, paths[:-1]), "--json", str(b)]) == 0
    out = tmp_path / "gate.json"
    assert main(["gate", str(paths[-1]), "-b", str(b), "-q", "--json", str(out)]) == 0
    g = json.loads(out.read_text())
    return {"verdict": g["verdict"], **{m["metric"]: m for m in g["metrics"]}}


def _clean(t0: int, ka: int) -> list[dict]:
    """ka t0+ka µs, kb t0+15 for 20 µs on stream 7, each launched (span 35 µs)."""
    return [_launch(t0 - 10, 1), _launch(t0 - 5, 2), _k("ka", t0, ka, corr=1), _k("kb", t0 + 15, 20, corr=2)]


def test_gate_cannot_judge_what_an_invalid_kernel_would_enter(tmp_path):
    """B06 in the candidate: kb launched (corr 2) but recorded at ts 0 / dur 0 — excluded as invalid, its duration
    unknown. Read as measured, the run was IMPROVED: span 10 µs vs 35 µs (−71.4 %), kernel time 10 vs 30-31 µs,
    kb −100 %, kernel count 2 → 1. Each of those figures (span, busy, kernel busy, kernel time, kernel:kb, kernel
    count, distinct kernels: kb has no timed launch left) cannot be judged: AMBIGUOUS; ka (10 µs on both sides),
    the launch calls (2 = 2) and the copied bytes (none) are still judged: PASS."""
    g = _gate(tmp_path, [_launch(T - 10, 1), _launch(T - 5, 2), _k("ka", T, 10, corr=1), _k("kb", 0, 0, corr=2)],
              [_clean(T, ka) for ka in (10, 11, 10)])
    assert g["verdict"] == "AMBIGUOUS"
    for m in ("span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_time_ns", "kernel:kb", "kernel_count",
              "unique_kernels"):
        assert g[m]["verdict"] == "AMBIGUOUS" and g[m]["gating"], m
        assert g[m]["reason"].startswith("cannot be judged: 1 GPU event (kb) excluded as invalid"), m
    assert (g["kernel:ka"]["verdict"], g["launch_calls"]["verdict"]) == ("PASS", "PASS")


def test_gate_runaway_copy_leaves_the_kernel_figures_judged(tmp_path):
    """B07 + B12: a DtoH copy on stream 8 after every kernel, recorded 3 s long (4 µs in the baseline runs): its
    duration is unknown, so the span and GPU busy time cannot be judged (AMBIGUOUS); the copy enters no kernel
    figure — kernel busy (ka + kb = 30-31 µs vs 30 µs), kernel time, ka, kb and the kernel count (2 = 2) are
    judged: PASS."""
    def run(ka: int, copy: int) -> list[dict]:
        return _clean(1000, ka) + [_k("Memcpy DtoH (Device -> Pageable)", 1036, copy, stream=8, cat="gpu_memcpy",
                                      bytes=4096)]
    g = _gate(tmp_path, run(10, 3_000_000), [run(ka, 4) for ka in (10, 11, 10)])
    assert g["verdict"] == "AMBIGUOUS"
    assert g["span_ns"]["verdict"] == g["gpu_busy_ns"]["verdict"] == "AMBIGUOUS"
    for m in ("kernel_busy_ns", "kernel_time_ns", "kernel:ka", "kernel:kb", "kernel_count", "memcpy_bytes"):
        assert g[m]["verdict"] == "PASS", m


@pytest.mark.parametrize("cand_as", ["trace", "report"])
def test_diff_leaves_an_invalid_kernel_unknown_not_vanished(cand_as, tmp_path):
    """Base: ka 10 µs, kb 20 µs (span 35 µs). Candidate: kb recorded at ts 0 / dur 0 (B06). kb ran (1 launch) for
    an unknown time: its row is matched by name with 1 launch on each side and an unknown time and Δ — not
    "vanished, −100 %" — the candidate's summed time and span are unknown (not 10 µs, −66.7 % / −71.4 %); ka's Δ is
    0; a warning names kb."""
    base, cand = tmp_path / "base.json", tmp_path / "cand.json"
    base.write_text(json.dumps({"traceEvents": _clean(T, 10)}))
    cand.write_text(json.dumps({"traceEvents": [_launch(T - 10, 1), _launch(T - 5, 2), _k("ka", T, 10, corr=1),
                                                _k("kb", 0, 0, corr=2)]}))
    if cand_as == "report":
        rep = tmp_path / "cand_report.json"
        assert main(["analyze", "-q", "--no-cache", str(cand), "--json", str(rep)]) == 0
        cand = rep
    out = tmp_path / "diff.json"
    assert main(["diff", str(base), str(cand), "-q", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    rows = {r["kernel"]: r for r in d["tables"]["kernels"]}
    assert (rows["kb"]["match"], rows["kb"]["base_count"], rows["kb"]["cand_count"]) == ("name", 1, 1)
    assert rows["kb"]["cand_time_ns"] is None and rows["kb"]["delta_ns"] is None
    assert rows["ka"]["delta_ns"] == 0 and d["summary"]["vanished_kernels"] == 0
    assert d["summary"]["cand_time_ns"] is None and d["summary"]["cand_span_ns"] is None
    assert any("(kb) excluded as invalid" in w for w in d["warnings"])


def test_gate_cannot_judge_against_a_baseline_with_an_invalid_kernel(tmp_path):
    """The fault in the baseline: its kb at ts 0 / dur 0 (B06); a clean candidate (ka 10 µs, kb 20 µs, span 35 µs)
    is not "REGRESSED" against the baseline's 10 µs span and 1 kernel: the same 7 figures are AMBIGUOUS, "in the
    baseline"; ka (10 = 10 µs) PASS."""
    bad = [_launch(T - 10, 1), _launch(T - 5, 2), _k("ka", T, 10, corr=1), _k("kb", 0, 0, corr=2)]
    g = _gate(tmp_path, _clean(T, 10), [bad])
    assert g["verdict"] == "AMBIGUOUS" and g["kernel:ka"]["verdict"] == "PASS"
    for m in ("span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_time_ns", "kernel:kb", "kernel_count",
              "unique_kernels"):
        assert g[m]["verdict"] == "AMBIGUOUS" and g[m]["reason"].startswith("cannot be judged: in the baseline"), m


def test_copy_agents_written_as_labels_without_agent_info(tmp_path):
    """A memory_copy_trace.csv alone, agents written ``Agent 0`` (host) / ``Agent 2`` (the GPU's node): both copies
    (4,000 + 2,000 ns) are work of device 2 — not "record no device: shown on device 0" (the label was read as no
    number at all)."""
    p = tmp_path / "9_memory_copy_trace.csv"
    p.write_text(_CP + '"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE","Agent 0","Agent 2",4,1200000,1204000\n'
                 '"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST","Agent 2","Agent 0",5,1300000,1302000\n')
    src = _analyze(p, tmp_path)
    assert _per_device(src) == {2: 6_000}
    assert not any("record no device" in w for w in src["warnings"])


def test_rpd_launch_calls_without_any_gpu_op_are_an_incomplete_capture(tmp_path, capsys):
    """T06 in rocmProfileData: the RPD calls of test_trust_s28_real._rpd (hipMemcpy, hipLaunchKernel,
    hipGraphLaunch, hipMemsetAsync, a roctx range) and no rocpd_op row: exit 5 and the one line says the capture
    is incomplete, counting the 2 launch calls (hipLaunchKernel ×1, hipGraphLaunch ×1) — not a bare "no GPU work"."""
    from tests.test_trust_s28_real import _rpd

    p = _rpd(tmp_path / "run.rpd", with_ops=False)
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(tmp_path / "o.json")]) == 5
    err = capsys.readouterr().err
    assert "incomplete" in err and "2 launch calls" in err and "hipGraphLaunch ×1" in err
