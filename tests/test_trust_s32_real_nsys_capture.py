"""Held-back real traces, nsys: an export with no CUDA activity whose own capture record says CUDA was not traced.

Two public Nsight Systems exports hold no kernel, copy or even launch call, and gpulens called both "No GPU work was
recorded in this input: nothing ran on a GPU to analyse":

* D-W-Chiang/JACC.jl @ a6fdda42 ``report1.sqlite`` (nsys 2026, a Julia run on 4 × A100-PCIE-40GB): its
  ``META_DATA_CAPTURE`` row ``PROCESS_0:COLLECT_CUDA_TRACE`` is ``false`` — CUDA tracing was off for the process;
* CO18326/uvmTorch ``report1.sqlite`` (nsys 2025.3.2, GPT-Neo on an RTX A5000): CUDA tracing on, but nsys' own
  ``DIAGNOSTIC_EVENT`` table says "CUDA profiling might have not been started correctly" and "No CUDA events
  collected" 27 times each, with 2 runtime calls (``cudaGetDeviceProperties``, ``cuModuleGetLoadingMode``) recorded.

Neither file shows that nothing ran: it shows that the GPU side was not recorded. The same holds for ``nsys stats``
output whose kernel report nsys itself skipped (last test). The collector now says so (the
source's ``incomplete_capture``, read by the verdict) — and only when the capture record says it. The files
themselves have no visible licence (uvmTorch) or are 480 KB (JACC), so the tests build the same tables in tmp_path.
"""

from __future__ import annotations

import json

import sqlite3

from gpulens.cli import main
from gpulens.collectors import collect


def _export(tmp_path, capture_rows=(), diagnostics=(), runtime=True):
    """A minimal nsys export with the tables the two real files hold: StringIds, TARGET_INFO_GPU, a runtime table
    holding two non-launch calls (uvmTorch's), META_DATA_CAPTURE and DIAGNOSTIC_EVENT; no GPU activity table."""
    p = tmp_path / "report1.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO StringIds VALUES (1, 'cudaGetDeviceProperties_v12000'), (2, 'cuModuleGetLoadingMode');
        CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, smCount INTEGER, computeMajor INTEGER,
                                      computeMinor INTEGER);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA RTX A5000', 64, 8, 6);
        CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);
        CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, source INTEGER, severity INTEGER, timestampType INTEGER,
                                       text TEXT, globalPid INTEGER);
    """)
    if runtime:
        con.executescript("""
            CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,
                globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
            INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1000, 5000, 1, 7, 1, 1, 0, NULL),
                                                           (6000, 6500, 1, 7, 2, 2, 0, NULL);
        """)
    con.executemany("INSERT INTO META_DATA_CAPTURE VALUES (?, ?)", capture_rows)
    con.executemany("INSERT INTO DIAGNOSTIC_EVENT VALUES (0, 1, 2, 1, ?, 0)", [(t,) for t in diagnostics])
    con.commit()
    con.close()
    return p


def _verdict_line(tmp_path, p) -> str:
    md = tmp_path / "o.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--markdown", str(md)]) == 5  # no GPU work: exit 5
    return next(line for line in md.read_text().splitlines() if "**Verdict:**" in line)


def test_cuda_trace_off_in_the_capture_record_is_not_called_nothing_ran(tmp_path):
    # JACC.jl's export: PROCESS_0:COLLECT_CUDA_TRACE false, CUDA among the capture event types all the same
    p = _export(tmp_path, [("CAPTURE_EVENT_TYPE", "Cuda"), ("PROCESS_0:COLLECT_NVTX_TRACE", "true"),
                           ("PROCESS_0:COLLECT_CUDA_TRACE", "false")], runtime=False)
    note = collect(p).meta.sources[0]["incomplete_capture"]
    assert note and "PROCESS_0:COLLECT_CUDA_TRACE false" in note and "nsys profile -t cuda" in note
    line = _verdict_line(tmp_path, p)
    assert "nothing ran on a GPU" not in line and "capture is incomplete" in line


def test_nsys_diagnostics_of_a_failed_cuda_collection_are_counted(tmp_path):
    # uvmTorch's export: CUDA tracing on, 2 runtime calls, nsys' two warnings repeated (3 times each here)
    diag = ["Profiling has started.", "CUDA injection initialized successfully."] + [
        "CUDA profiling might have not been started correctly.", "No CUDA events collected. Does the process use CUDA?"
    ] * 3 + ["No NVTX events collected. Does the process use NVTX?"]
    p = _export(tmp_path, [("PROCESS_0:COLLECT_CUDA_TRACE", "true")], diag)
    note = collect(p).meta.sources[0]["incomplete_capture"]
    assert note is not None
    assert "'No CUDA events collected' ×3" in note and "'CUDA profiling might have not been started correctly' ×3" in note
    assert "nothing ran on a GPU" not in _verdict_line(tmp_path, p)


def test_a_capture_record_that_says_nothing_keeps_no_gpu_work(tmp_path):
    # CUDA traced and no nsys warning about it: the process really launched nothing — the plain verdict stands
    p = _export(tmp_path, [("PROCESS_0:COLLECT_CUDA_TRACE", "true")],
                ["Profiling has started.", "No NVTX events collected. Does the process use NVTX?"])
    assert collect(p).meta.sources[0]["incomplete_capture"] is None
    assert "nothing ran on a GPU" in _verdict_line(tmp_path, p)


def test_one_traced_process_among_untraced_ones_is_not_called_off(tmp_path):
    # CUDA tracing off for process 0 only: process 1 was traced and launched nothing — no claim of "off"
    p = _export(tmp_path, [("PROCESS_0:COLLECT_CUDA_TRACE", "false"), ("PROCESS_1:COLLECT_CUDA_TRACE", "true")])
    assert collect(p).meta.sources[0]["incomplete_capture"] is None


def test_nsys_stats_output_with_the_kernel_report_skipped_says_why(tmp_path, capsys):
    # chukonu-team/MinerU-merge nsys_stats.csv (nsys 2025.1 `nsys stats` stdout): osrt_sum's table only, every CUDA
    # report "SKIPPED: … does not contain CUDA … data." — a capture with no kernel (B05): 0 kernels, the "no GPU
    # work" exit (5, as the same capture's SQLite export gives), and nsys' own reason said in one warning line
    p = tmp_path / "nsys_stats.csv"
    p.write_text(
        "Generating SQLite file /data/run.sqlite from /data/run.nsys-rep\n"
        "Processing [/data/run.sqlite] with [/opt/nvidia/reports/osrt_sum.py]... \n"
        "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "69.9,4467639532177,316,14138099785.4,206444554.0,2390,253039705381,53540877945.5,pthread_cond_wait\n"
        "\n"
        "Processing [/data/run.sqlite] with [/opt/nvidia/reports/cuda_api_sum.py]... \n"
        "SKIPPED: /data/run.sqlite does not contain CUDA trace data.\n"
        "\n"
        "Processing [/data/run.sqlite] with [/opt/nvidia/reports/cuda_gpu_kern_sum.py]... \n"
        "SKIPPED: /data/run.sqlite does not contain CUDA kernel data.\n")
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 5
    assert "Traceback" not in capsys.readouterr().err
    src = json.loads(out.read_text())["sources"][0]
    assert src["status"] == "no_gpu_work" and src["summary"]["kernel_count"] == 0
    said = [w for w in src["warnings"] if "does not contain CUDA kernel data" in w]
    assert len(said) == 1 and str(p) in said[0] and "nsys profile -t cuda" in said[0] and "\n" not in said[0]
