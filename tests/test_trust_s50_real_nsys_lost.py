"""Held-back real traces, nsys: an export whose CUDA records nsys itself says were lost is not "nothing ran".

cestwc/balinski-and-gomory-cuda @ ddb2578974b7c3935fc7d21b903db831eeb4ef83 ``report6.sqlite`` (nsys 2025.5.1, an
RTX 3090, ``build/test1 100``; MIT, but 2.95 MB and its capture record holds the user's environment — paths, user
and host names — so not copied): CUDA tracing on (``PROCESS_0:COLLECT_CUDA_TRACE``
true), two CUDA calls recorded (``cuModuleGetLoadingMode``, ``cuLibraryLoadData``), no GPU activity table, 658
``ioctl`` calls over 4.2 s, and nsys' ``DIAGNOSTIC_EVENT`` rows "Not all CUDA events might have been collected." and
"Number of CUDA events collected: 2." — while the same command's other captures in that repository hold 6,663 kernel
launches and "Number of CUDA events collected: 21581." (``report5.sqlite``). gpulens said "No GPU work — nothing ran
on a GPU to analyse". Kind: nsys' own statement that CUDA records were lost, not read (only its "No CUDA events
collected" / "CUDA profiling might have not been started correctly" wordings were). Now the capture is called
incomplete with nsys' words and count; beside recorded GPU work the same statement is one warning.

The exports below rebuild the real file's tables (rows as it holds them); expected values are read off those rows.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from gpulens.cli import main
from gpulens.collectors import collect

DATA = Path(__file__).parent / "data"
LOST = "Not all CUDA events might have been collected."


def _export(tmp_path, diagnostics, *, kernels=(), table=True, strings=()):
    """An nsys export as report6.sqlite holds it: StringIds, TARGET_INFO_GPU, META_DATA_CAPTURE with CUDA tracing on,
    the two runtime calls, ``diagnostics`` in DIAGNOSTIC_EVENT (``table=False``: no such table, the texts in
    StringIds as nsys 2021 keeps them); ``kernels``: (start, end) rows of a kernel table when given."""
    p = tmp_path / "report6.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO StringIds VALUES (2210, 'cuModuleGetLoadingMode'), (2211, 'cuLibraryLoadData'),
                                     (3000, 'solve_1bc_kernel');
        CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, smCount INTEGER, computeMajor INTEGER,
                                      computeMinor INTEGER);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA GeForce RTX 3090', 82, 8, 6);
        CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);
        INSERT INTO META_DATA_CAPTURE VALUES ('CAPTURE_EVENT_TYPE', 'Cuda'), ('PROCESS_0:COLLECT_CUDA_TRACE', 'true');
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER,
            globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
        INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (275018801, 275019793, 1, 288820210085426, 1, 2210, 0, NULL),
                                                       (281354735, 304883469, 1, 288820210085426, 233, 2211, 0, NULL);
    """)
    if table:
        con.execute("CREATE TABLE DIAGNOSTIC_EVENT (timestamp INTEGER, timestampType INTEGER, source INTEGER, "
                    "severity INTEGER, text TEXT, globalPid INTEGER)")
        con.executemany("INSERT INTO DIAGNOSTIC_EVENT VALUES (190020918, 2, 3, 0, ?, 288820209647616)",
                        [(t,) for t in diagnostics])
    else:
        con.executemany("INSERT INTO StringIds (value) VALUES (?)", [(t,) for t in diagnostics])
    if kernels:
        con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, "
                    "deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, "
                    "demangledName INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, "
                    "blockX INTEGER, blockY INTEGER, blockZ INTEGER)")
        con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, 300, 288820209647616, 3000, "
                        "3000, 64, 1, 1, 256, 1, 1)", kernels)
    con.commit()
    con.close()
    return p


#: report6.sqlite's CUDA lines of DIAGNOSTIC_EVENT, in its order (its other rows are about NVTX, OpenGL and perf)
REPORT6 = ["Buffers holding CUDA trace data will be flushed on CudaProfilerStop() call. See "
           "--flush-on-cudaprofilerstop to control this behavior.", "CUDA injection initialized successfully.",
           "Not all NVTX events might have been collected.", "No NVTX events collected. Does the process use NVTX?",
           LOST, "Number of CUDA events collected: \t2."]


def test_lost_cuda_records_without_gpu_work_are_an_incomplete_capture(tmp_path):
    p = _export(tmp_path, REPORT6)
    note = collect(p).meta.sources[0]["incomplete_capture"]
    assert note is not None
    assert "'Not all CUDA events might have been collected' ×1" in note
    assert "its count of CUDA events collected: 2)" in note  # nsys' own count, the file's "…collected: \t2."
    md = tmp_path / "o.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--markdown", str(md)]) == 5  # still no GPU work: exit 5
    line = next(ln for ln in md.read_text().splitlines() if "**Verdict:**" in ln)
    assert "nothing ran on a GPU" not in line and "capture is incomplete" in line


def test_nsys_2021_export_keeps_the_statement_in_its_strings(tmp_path):
    # nsys 2021 writes no DIAGNOSTIC_EVENT table; its diagnostics' texts are StringIds values
    p = _export(tmp_path, [LOST, "Number of CUDA events collected: 11."], table=False)
    note = collect(p).meta.sources[0]["incomplete_capture"]
    assert note and "'Not all CUDA events might have been collected' in the export's strings" in note


def test_the_failed_collection_wording_keeps_its_sentence(tmp_path):
    # chase-compton/Game-of-Life-in-CUDA report36.sqlite (nsys 2021): both statements; the failure is the one said
    p = _export(tmp_path, [LOST, "No CUDA events collected. Does the process use CUDA?"], table=False)
    note = collect(p).meta.sources[0]["incomplete_capture"]
    assert note and "CUDA collection failing ('No CUDA events collected' in the export's strings)" in note
    assert "events lost" not in note


def test_lost_cuda_records_beside_gpu_work_are_one_warning(tmp_path):
    # the statement beside two recorded kernels (5 µs + 3 µs): the figures stand, with nsys' caveat said once
    p = _export(tmp_path, REPORT6, kernels=[(300000000, 300005000), (300010000, 300013000)])
    tl = collect(p)
    assert tl.meta.sources[0]["incomplete_capture"] is None
    said = [w for w in tl.meta.warnings if "CUDA events lost" in w]
    assert len(said) == 1 and "GPU work may be missing from these figures" in said[0]
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 2 and int(k["dur_ns"].sum()) == 8000


def test_a_complete_capture_has_no_such_warning():
    # NVIDIA/Fuser report1.sqlite (nsys 2024.6): "Number of CUDA events collected: 989." and no loss statement
    p = DATA / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"
    con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    texts = [t for (t,) in con.execute("SELECT text FROM DIAGNOSTIC_EVENT")]
    kernels = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    con.close()
    assert not any(LOST[:-1] in t for t in texts)
    tl = collect(p)
    assert int((tl.events["kind"] == "kernel").sum()) == kernels == 19
    assert not [w for w in tl.meta.warnings if "CUDA events lost" in w]
