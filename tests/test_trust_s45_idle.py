"""Idle causes the findings name reach the run verdict; advice matches the cause; --lenient reaches folder members.

Kinds (session 45):
1. igouProto/CSC746CUDALab @ 55ce2215 ``report5.sqlite`` (nsys export, A100 PCIe, one 1-block kernel on managed
   memory): the run verdict read "GPU idle, cause not recorded" while its own idle finding said 1.83 s of the idle sat
   in 3,072 gaps ending in unified-memory page migrations. Kind: an idle cause a finding attributes that the verdict,
   the overhead column and the secondary-cause words did not use. One test shared by all of them now
   (:func:`gpulens.analyzers.bottlenecks.idle_cause_label`); the verdict names the time and the remedy
   (cudaMemPrefetchAsync, cudaMemAdvise, explicit copies).
2. A lazy module-load gap (the first launch of a kernel loading its code) was followed by "or capture again from a
   point where no earlier work is in flight", advice for work enqueued before the capture, not for module loading.
3. A truncated SQLite member of a folder (rank folders, rocprofv3 ``results.db``) was refused with ``--lenient``,
   while the same file alone was recovered.
"""

from __future__ import annotations

import sqlite3

import gpulens
from gpulens.reports._answer import answer
from tests.test_nsys_fidelity import GPID, GTID, export
from tests.test_trust_s45_timeline import _lazy_trace

US = 1000


def _uvm_run(tmp_path, name: str, copy_kinds: list[int]) -> str:
    """One 50 µs kernel [10, 60) µs linked to its launch, then one 10 µs copy (correlationId 0: no launch call) per
    entry of ``copy_kinds`` (nsys copyKind: 12 = unified-memory DtoH page migration, 2 = an ordinary DtoH), each
    100 µs after the previous GPU work: idle 100 µs × len(copy_kinds) in as many gaps, all with no launch call."""
    p = export(tmp_path / name, kernels=[(10 * US, 60 * US, 1, GPID, 3, None)], runtime=[(0, 5 * US, GTID, 1, 1)])
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, end INT, deviceId INT, streamId INT, "
                "correlationId INT, globalPid INT, bytes INT, copyKind INT)")
    starts = [160 * US + i * 110 * US for i in range(len(copy_kinds))]
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 7, 0, ?, 65536, ?)",
                    [(s, s + 10 * US, GPID, k) for s, k in zip(starts, copy_kinds)])
    con.commit()
    con.close()
    return str(p)


def test_page_migration_idle_names_the_run_verdict(tmp_path):
    # 5 migrations: span 10 µs → 160 + 4 × 110 + 10 = 610 µs = 600 µs; busy 50 + 5 × 10 = 100 µs; idle 500 µs in 5
    # gaps, every one ending in a migration: 500 / 600 = 83.3 % of the span
    s = gpulens.analyze([_uvm_run(tmp_path, "uvm.sqlite", [12] * 5)]).sources[0]
    bn = s.results["bottlenecks"]
    assert (bn.summary["idle_unattributed_ns"], bn.summary["idle_unattributed_uvm_ns"]) == (500 * US, 500 * US)
    assert s.results["verdicts"].summary["run_verdict"] == "idle-unattributed"  # the identifier is kept
    a = answer(s)
    assert a.sentence.startswith("GPU idle on unified-memory page migrations:"), a.sentence
    assert "cause not recorded" not in a.sentence
    assert "500.00 µs of the idle lies in 5 gaps ending in a unified-memory page migration" in a.sentence
    for fix in ("cudaMemPrefetchAsync", "cudaMemAdvise", "explicit copies"):
        assert fix in a.sentence
    assert "the GPU was busy 16.7 % of its 600.00 µs span" in a.sentence  # 100 / 600
    assert s.results["verdicts"].summary["basis"].startswith(
        "the timeline: GPU idle on unified-memory page migrations holds the largest measured share, 83.3 %")
    # the overhead column and the findings say the same cause
    assert list(bn.table["overhead"]) == ["GPU idle on unified-memory page migrations"]
    assert bn.summary["overhead"] == "GPU idle on unified-memory page migrations"
    f = {x.key: x for x in s.findings()}
    assert f["idle/unattributed"].title.startswith("GPU idle mostly on unified-memory page migrations: 500.00 µs")
    assert "no cause the trace shows" not in f["idle"].title


def test_idle_without_a_recorded_cause_still_says_so(tmp_path):
    # the same gaps ending in ordinary DtoH copies with no launch call: nothing records a cause
    s = gpulens.analyze([_uvm_run(tmp_path, "plain.sqlite", [2] * 5)]).sources[0]
    assert s.results["bottlenecks"].summary["idle_unattributed_uvm_ns"] == 0
    a = answer(s)
    assert a.sentence.startswith("GPU idle, cause not recorded:"), a.sentence
    assert "page migration" not in a.sentence


def test_a_minority_of_migration_gaps_names_no_cause(tmp_path):
    # 2 of 5 gaps end in a migration: 200 µs of 500 µs (< half) — the cause is not the trace's for most of the idle
    s = gpulens.analyze([_uvm_run(tmp_path, "mixed.sqlite", [2, 12, 2, 12, 2])]).sources[0]
    bn = s.results["bottlenecks"].summary
    assert (bn["gaps_unattributed_uvm"], bn["idle_unattributed_uvm_ns"]) == (2, 200 * US)
    assert answer(s).sentence.startswith("GPU idle, cause not recorded:")
    assert bn["overhead"] == "GPU idle, cause not recorded"


def test_a_module_load_gap_gets_no_capture_point_advice(tmp_path):
    src = gpulens.analyze([_lazy_trace(tmp_path)]).sources[0]
    idle = next(f for f in src.findings() if f.key == "idle")
    assert "CUDA_MODULE_LOADING=EAGER" in idle.action
    assert "capture again" not in idle.action and "no earlier work is in flight" not in idle.action
    assert idle.action.rstrip().endswith(")."), idle.action  # ends with the --window to judge the rest alone
