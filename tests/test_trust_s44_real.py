"""Real profiler outputs (session 44, "held-back real traces"): new public files read against facts from the files.

1. A Kineto trace of a vLLM run on ROCm (hyukjlee/traceMap @ 68b9e54dcce55792491cbd3689c81b03250e8cea
   ``trace_file/examples/1_mi300x_1000isl_10osl_32con.pt.trace.json.gz``, no licence file: not copied) lists four
   "AMD Instinct MI300X" in ``deviceProperties`` (ids 0–3, the process's visible GPUs) while roctracer put all 12,840
   kernels on device 6. The report said "device not recorded (no hardware spec identified …); also recorded, no GPU
   work on them: 4 × AMD Instinct MI300X" — no roofline, no occupancy, small-grid time unknown, and one GPU too many
   called idle. Kind: a Kineto device id numbered otherwise than ``deviceProperties``. A kernel runs on a GPU its
   process sees, so when every listed GPU has the same hardware, so has the unlisted id; which GPU it was stays
   unknown, and one of the listed GPUs is no longer counted idle (:mod:`gpulens.collectors._unlisted`).
2. ``ncu --import r.ncu-rep --csv --print-summary per-kernel`` (the output a project documents for its Jetson AGX
   Thor runs: "Process ID","Process Name","Host Name","Kernel Name","Block Size","Grid Size","Device","CC",
   "Invocations","Section Name","Metric Name","Metric Unit","Minimum","Maximum","Average" — one row per kernel and
   launch shape, section and metric) was "not a recognised trace format", while the same summary printed as text
   was read. Kind: an ncu CSV layout without the ``ID`` column. Now each kernel and launch shape is read as its
   Invocations launches with the averages, as the text summary is (:func:`gpulens.collectors._ncu.expand_summary`).
3. The same traceMap trace's input note read "ROCm grid sizes converted to workgroups: 320 kernel records in
   work-items (hipExtModuleLaunchKernel), 0 with grid and workgroup sizes in swapped places": a cause that did not
   occur, said with a 0. Kind: a zero-count clause in a warning. Each cause is now said only with a count.

Also checked this session and found right (kernel count, Σ kernel time, GPU span, copies, device, ranks; facts
computed with json / gzip / sqlite3 / NVIDIA's ncu_report): the H100 twin of the traceMap trace
(``1_h100_1000isl_10osl_32con``: 13,508 kernels, Σ 233,133.565 µs, rank 0 of 4, 8 H100 listed); pytorch/kineto
tb_plugin samples ``resnet50_num_workers_0/worker0.1623143089861``, ``resnet50_num_workers_4/worker0.1623212756351``
and ``resnet50_num_workers_4/worker0.pt.trace.json.gz`` (legacy categories; 8,772 / 8,868 / 9,456 kernels, the last
without deviceProperties: an assumed V100 from Kineto's blocks/warps per SM, said so); HolisticTraceAnalysis
``trace_diff/test/test.json.gz`` (rank 1 of 2, 9,876 kernels, Σ 801,858 µs, span 745.239 ms) and
``rank_unavailable/rank_not_found.json.gz`` (CPU activity only: said so); nsys exports of IkerCanut/fire_spread
(nsys 2025.3, RTX 4060 Laptop GPU: no spec, as designed; 91 kernels Σ 1,092,678 ns, span 18.62 ms),
caoye310/Lower-Triangular-Solves (nsys 2023.3, Tesla T4: 1,221 kernels Σ 74,316,428 ns, span 159.06 ms) and
mjmorano/Spin-tracking-New (CUDA collection failed: refused saying so); .ncu-rep files of amitadate/GPU_Power_Model
(RTX 2060 SUPER, 6 launches Σ 41.54 s, DRAM 53.3 %), thedavidchu/speedy_scan (RTX 3070, barrier stalls 60.9 %) and
josiahls/cuda_learning_mojo (GTX 1660 Ti: no spec — left, see below); a ``rocpd convert`` kernel_trace.csv with its
``Guid`` column and an ncu details CSV with ncu 2021's NVTX columns (shapes from amd/HPCTrainingExamples and a
project's profiling guide): read right. Left alone: no built-in GTX 1660 Ti — the desktop (1770 MHz boost) and
laptop (1590 MHz) parts share the name, and the report's own clock (1830 MHz max) matches neither datasheet boost.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors import collect


def _analyze(tmp_path: Path, target: Path) -> dict:
    """``gpulens analyze --json`` of ``target`` (exit 0), the report's first source."""
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(target), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


# --- 1. Kineto on ROCm: kernels on a device id that deviceProperties numbers otherwise ----------------------------

def _mi300x(i: int, name: str = "AMD Instinct MI300X", cus: int = 304) -> dict:
    """One ``deviceProperties`` entry as ROCm Kineto writes it (fields of the traceMap trace's entries)."""
    return {"id": i, "name": name, "totalGlobalMem": 206141652992, "computeMajor": 9, "computeMinor": 4,
            "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536,
            "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": cus, "sharedMemPerMultiprocessor": 65536}


def _rocm_trace(props: list[dict], device: int) -> dict:
    """Three kernels of 10 µs, 20 µs apart, on ``device`` (stream 3), each launched by hipLaunchKernel."""
    ev = []
    for i in range(3):
        ts = 1000.0 + 20 * i
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 100, "tid": 100,
                   "ts": ts - 5, "dur": 3, "args": {"correlation": 10 + i, "External id": i + 1}})
        # the kernel's pid is its device (as ROCm Kineto writes it); a pid of 10^8 or more is read as merged ranks
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": device % 1000, "tid": 3, "ts": ts, "dur": 10,
                   "args": {"External id": i + 1, "device": device, "stream": 3, "correlation": 10 + i,
                            "kind": "Dispatch Kernel", "grid": [304, 1, 1], "block": [256, 1, 1]}})
    return {"schemaVersion": 1, "deviceProperties": props, "roctracer_version": 4, "traceEvents": ev}


def _write(tmp_path: Path, trace: dict) -> Path:
    p = tmp_path / "r0.pt.trace.json.gz"
    with gzip.open(p, "wt") as fh:
        json.dump(trace, fh)
    return p


def test_kineto_device_numbered_otherwise_takes_the_listed_gpus_hardware(tmp_path):
    props = [_mi300x(i) for i in range(4)]
    src = _analyze(tmp_path, _write(tmp_path, _rocm_trace(props, device=6)))
    devs = {d["device_id"]: d for d in src["devices"]}
    assert devs[6]["name"] == "AMD Instinct MI300X" and devs[6]["num_sms"] == 304  # the four listed GPUs' hardware
    assert devs[6]["one_of"] == [0, 1, 2, 3]
    said = [w for w in src["warnings"] if "device 6" in w]
    assert len(said) == 1 and "3 GPU events on device 6" in said[0] and "(ids 0–3)" in said[0]
    assert "all 4 are AMD Instinct MI300X" in said[0] and "dangling" not in said[0]
    md = tmp_path / "o.md"
    assert main(["analyze", "-q", "--no-cache", str(_write(tmp_path, _rocm_trace(props, 6))), "--markdown", str(md)]) == 0
    text = md.read_text()
    # the GPU that ran the kernels is one of the four: three are idle, not four; the spec is found by name
    assert "also recorded, no GPU work on them: 3 × AMD Instinct MI300X" in text
    assert "no hardware spec identified" not in text


@pytest.mark.parametrize("props, device", [
    ([_mi300x(0), _mi300x(1, "AMD Instinct MI250X", 220)], 6),  # the listed GPUs differ: which hardware is unknown
    ([_mi300x(0), _mi300x(1)], 1 << 40),  # an index no node has: damage, not another numbering
])
def test_kineto_unlisted_device_stays_unknown_when_the_list_does_not_decide(tmp_path, props, device):
    src = _analyze(tmp_path, _write(tmp_path, _rocm_trace(props, device=device)))
    devs = {d["device_id"]: d for d in src["devices"]}
    assert devs[device]["name"] is None and "one_of" not in devs[device]
    assert any("dangling device id" in w and "their hardware is unknown" in w for w in src["warnings"])


def test_kineto_listed_device_is_not_renumbered(tmp_path):
    src = _analyze(tmp_path, _write(tmp_path, _rocm_trace([_mi300x(i) for i in range(4)], device=2)))
    assert sorted(d["device_id"] for d in src["devices"]) == [0, 1, 2, 3]
    assert not any("device 2" in w for w in src["warnings"])


# --- 2. ncu CSV per-kernel summary -----------------------------------------------------------------------------

_SUM_HEAD = ('"Process ID","Process Name","Host Name","Kernel Name","Block Size","Grid Size","Device","CC",'
             '"Invocations","Section Name","Metric Name","Metric Unit","Minimum","Maximum","Average"')


def _sum_row(block: str, grid: str, n: str, section: str, metric: str, unit: str, lo: str, hi: str, avg: str) -> str:
    return (f'"109199","BenchDemo","127.0.0.1","saxpyKernel(float, const float *, float *, unsigned long)",'
            f'"{block}","{grid}","0","11.0","{n}","{section}","{metric}","{unit}","{lo}","{hi}","{avg}"')


def _summary_csv(n256: str = "14") -> str:
    sol, occ = "GPU Speed Of Light Throughput", "Occupancy"
    return "\n".join(["==PROF== Disconnected from process 109199", _SUM_HEAD,
                      _sum_row("(256, 1, 1)", "(4096, 1, 1)", n256, sol, "Duration", "usecond", "19.94", "21.50",
                               "20.17"),
                      _sum_row("(256, 1, 1)", "(4096, 1, 1)", n256, sol, "Memory Throughput", "%", "80.10", "82.00",
                               "81.00"),
                      _sum_row("(256, 1, 1)", "(4096, 1, 1)", n256, occ, "Achieved Occupancy", "%", "73.56", "79.38",
                               "74.92"),
                      _sum_row("(1, 1, 1)", "(1048576, 1, 1)", "3", sol, "Duration", "msecond", "2.98", "3.01",
                               "2.99"),
                      _sum_row("(1, 1, 1)", "(1048576, 1, 1)", "3", occ, "Achieved Occupancy", "%", "27.46", "30.08",
                               "28.52")]) + "\n"


def test_ncu_csv_per_kernel_summary_is_its_invocations_with_the_averages(tmp_path):
    p = tmp_path / "kernel_profile_summary.csv"
    p.write_text(_summary_csv())
    src = _analyze(tmp_path, p)
    s = src["summary"]
    # 14 launches of (256)x(4096) at 20.17 µs and 3 of (1)x(1048576) at 2.99 ms, by hand
    assert s["kernel_count"] == 17
    assert s["kernel_time_ns"] == 14 * 20_170 + 3 * 2_990_000
    said = [w for w in src["warnings"] if "per-kernel summary" in w]
    assert len(said) == 1 and "17 launches" in said[0] and "--csv" in said[0]
    assert src["devices"][0].get("compute_capability") == "11.0"
    c = collect(p).counters
    occ = c[c["metric"] == "Achieved Occupancy"]["value"].round(2).value_counts().to_dict()
    assert occ == {74.92: 14, 28.52: 3}  # each launch carries its shape's average


def test_ncu_csv_per_kernel_summary_without_a_whole_invocations_count(tmp_path):
    p = tmp_path / "summary.csv"
    p.write_text(_summary_csv(n256="n/a"))
    src = _analyze(tmp_path, p)
    assert src["summary"]["kernel_count"] == 1 + 3  # the shape with no count is one launch, said
    assert any("1 kernel of the per-kernel summary with no whole Invocations count" in w for w in src["warnings"])


# --- 3. the ROCm grid note says only the causes that occurred ------------------------------------------------------

def test_rocm_grid_note_says_work_items_alone(tmp_path):
    """roctracer Kineto (no rocprofiler-sdk key): a kernel launched by hipExtModuleLaunchKernel records its grid in
    work-items, 77,824 = 304 workgroups × 256 (by hand); a hipLaunchKernel kernel's grid is already workgroups."""
    tr = _rocm_trace([_mi300x(i) for i in range(4)], device=2)
    ev = tr["traceEvents"]
    ev[0]["name"] = "hipExtModuleLaunchKernel"
    ev[1]["args"]["grid"] = [77_824, 1, 1]
    tl = collect(_write(tmp_path, tr))
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert k["grid_x"].tolist() == [304, 304, 304]
    note = [w for w in tl.meta.warnings if "ROCm grid sizes converted" in w]
    assert len(note) == 1 and note[0].endswith("converted to workgroups: 1 kernel record in work-items "
                                               "(hipExtModuleLaunchKernel)"), note
