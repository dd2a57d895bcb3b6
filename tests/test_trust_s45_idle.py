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
from pathlib import Path

import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.errors import GpulensError
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
    # 5 migrations: span 10 µs → 160 + 4 × 110 + 10 = 610 µs, i.e. 600 µs; busy 50 + 5 × 10 = 100 µs; idle
    # 500 µs in 5 gaps, every one ending in a migration: 500 / 600 = 83.3 % of the span
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


# --- 3. a truncated SQLite member of a folder, read with --lenient ---------------------------------------------------

def _rank_folder(tmp_path):
    """rank0.sqlite: an nsys export cut at 3/4 of its bytes whose 40 kernels (1 µs each, 10 µs apart) lie on pages
    before the cut (:func:`tests.test_trust_s45_timeline._nsys_cut`); rank1.sqlite: a whole export (one 50 µs kernel).
    With 2 workers the pool reads rank0 (this process reads the last file: ``_parallel.own_share``).
    Returns (folder, rank0 path, bytes kept)."""
    from tests.test_trust_s45_timeline import _nsys_cut

    d = tmp_path / "run"
    d.mkdir()
    export(d / "rank1.sqlite", kernels=[(10 * US, 60 * US, 1, GPID, 3, None)], runtime=[(0, 5 * US, GTID, 1, 1)])
    work = tmp_path / "work"
    work.mkdir()
    cut, keep = _nsys_cut(work)
    member = d / "rank0.sqlite"
    Path(cut).rename(member)
    return d, member, keep


def _kernels_by_rank(tl) -> dict[int, int]:
    k = tl.events[tl.events["kind"].astype(str) == "kernel"]
    return {int(r): int(n) for r, n in k.groupby("rank").size().items()}


def test_a_truncated_rank_file_is_refused_without_lenient_and_says_so(tmp_path):
    d, member, keep = _rank_folder(tmp_path)
    tl = collect(d)
    assert _kernels_by_rank(tl) == {0: 1}  # the one file read: numbered rank 0 (it records no rank)
    said = " ".join(tl.meta.warnings)
    assert f"rank0.sqlite: truncated SQLite file: {keep:,} of the " in said and "--lenient reads" in said
    assert "corrupt SQLite file" not in said


@pytest.mark.parametrize("workers", [1, 2])
def test_a_truncated_rank_file_is_read_with_lenient(tmp_path, workers):
    d, member, keep = _rank_folder(tmp_path)
    before = member.read_bytes()
    tl = collect(d, strict=False, workers=workers)  # 2: the members are read in a pool worker process too
    assert _kernels_by_rank(tl) == {0: 40, 1: 1}  # the 40 kernels on pages before the cut, as for the file alone
    said = [w for w in tl.meta.warnings if "truncated SQLite file" in w]
    assert len(said) == 1 and said[0].startswith(f"{member}: truncated SQLite file ({keep:,} of the ")
    alone = collect(member, strict=False).meta.warnings  # the same warning, counts and all, as for the file alone
    assert said[0] in alone
    assert not any("could not be read" in w for w in tl.meta.warnings)
    assert member.read_bytes() == before


def test_a_worker_without_the_recovered_copy_recovers_it(tmp_path):
    # a process that did not see the folder's recovery (spawned worker, Dask) reads the member through load_task
    from gpulens.collectors import _sqlite
    from gpulens.collectors._parallel import load_task

    d, member, _ = _rank_folder(tmp_path)
    _sqlite._recovered.clear()
    _sqlite._said.clear()
    got = load_task(str(member), False, None, False)
    assert sum(_kernels_by_rank(got).values()) == 40
    _sqlite._recovered.clear()
    _sqlite._said.clear()
    refused = load_task(str(member), True, None, False)  # strict: not read (no collector takes it, or its error)
    assert refused is None or isinstance(refused, GpulensError)


def test_a_truncated_database_one_level_down_is_read_with_lenient(tmp_path):
    # rocprofv3's layout: <output>/<hostname>/<pid>_results.db — here an nsys export cut short, one level down
    from tests.test_trust_s45_timeline import _nsys_cut

    out = tmp_path / "out"
    (out / "host").mkdir(parents=True)
    cut, keep = _nsys_cut(tmp_path)
    Path(cut).rename(out / "host" / "4242_results.sqlite")
    tl = collect(out, strict=False)
    assert sum(_kernels_by_rank(tl).values()) == 40
    assert any(w.startswith(f"{out / 'host' / '4242_results.sqlite'}: truncated SQLite file ({keep:,} of")
               for w in tl.meta.warnings)


def test_a_rocprof_v1_folder_with_a_truncated_results_db(tmp_path):
    from tests.conftest import shared_trace

    src = shared_trace("rocprof/v1_gunrock_mi300x/results.db")  # KERN: 56 rows (sqlite3 count(*))
    d = tmp_path / "v1"
    d.mkdir()
    data = src.read_bytes()
    (d / "results.db").write_bytes(data[:len(data) * 3 // 4])
    strict = collect(d)
    assert "truncated SQLite file" in " ".join(strict.meta.warnings) and len(strict.gpu_events()) == 0
    tl = collect(d, strict=False)
    (w,) = [w for w in tl.meta.warnings if "truncated SQLite file (" in w]
    rows = int(w.split(" table, ")[1].split(" row")[0])
    # every recovered KERN row is one dispatch (kernel or copy), fewer than the whole file's 56
    assert 0 < len(tl.gpu_events()) == rows < 56
