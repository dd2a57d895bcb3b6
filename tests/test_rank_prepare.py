"""Per-file work of a rank directory's join done in the pool workers (issue 16 target 5,
:func:`gpulens.collectors._assemble.prepare`): the directory's Timeline is the one the join alone builds.

``prepare`` finds, per file, the kernels launched under a communication op (they become ``comm``) and whether the
file has GPU work, where the file was loaded; the join then only writes those rows. Inputs below
``PREPARE_MIN_ROWS`` events are left to the join, so the tests lower it to 0 to take the worker route on small
hand-made files, and raise it above every file to take the join route: both routes must give the same tables
(categories in the same order) and metadata, and the kinds written here by hand.

Layout (µs in the files): in each file a CPU op (external id 5) → ``cudaLaunchKernel`` (correlation 7) → one kernel;
files that launch two kernels add op 9 → correlation 11 → a second kernel. Ids repeat across files on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from gpulens.collectors import _assemble, collect
from gpulens.collectors._parallel import load_task
from gpulens.timeline import concat


def _launch(op: str, kernel: str, ext: int = 5, corr: int = 7, t: int = 100) -> list[dict]:
    return [
        {"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t, "dur": 50, "args": {"External id": ext}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 10, "dur": 5,
         "args": {"External id": ext, "correlation": corr}},
        {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": t + 30, "dur": 10,
         "args": {"External id": ext, "correlation": corr, "device": 0, "stream": 7}},
    ]


def _write(path: Path, events: list[dict], rank: int) -> Path:
    doc = {"schemaVersion": 1, "traceEvents": events,
           "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2}}
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def run_dir(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    # a: its kernel is launched by record_param_comms (c10d) → comm; the AMD symbol suffix ".kd" of its name is
    #    dropped in name_norm, and b.json spells the same kernel the same way
    _write(d / "a.json", _launch("record_param_comms", "allreduce_kernel.kd"), rank=0)
    # b: same ids, same recorded rank (a second window of rank 0), launched by aten::add → stays a kernel
    _write(d / "b.json", _launch("aten::add", "allreduce_kernel.kd"), rank=0)
    # c: rank 1, one comm-launched kernel (op 9, correlation 11) and one ordinary kernel (op 5, correlation 7)
    _write(d / "c.json", _launch("aten::mm", "gemm") + _launch("record_param_comms", "gemm", ext=9, corr=11, t=300),
           rank=1)
    return d


def _kernel_kinds(tl) -> list[tuple[int, str, str]]:
    ev = tl.events[tl.events["name_norm"].isin(["allreduce_kernel", "gemm"])]
    return list(zip(ev["event_id"], ev["name_norm"].astype(str), ev["kind"].astype(str)))


def _assert_same(a, b) -> None:
    for t in ("events", "counters", "rejected"):
        x, y = getattr(a, t), getattr(b, t)
        pd.testing.assert_frame_equal(x, y)
        for c in x.columns:
            if isinstance(x[c].dtype, pd.CategoricalDtype):
                assert list(x[c].cat.categories) == list(y[c].cat.categories), (t, c)
    assert a.meta.sources == b.meta.sources
    assert a.meta.warnings == b.meta.warnings


@pytest.mark.parametrize("workers", [1, 2])
def test_worker_route_equals_join_route(run_dir, monkeypatch, workers):
    monkeypatch.setattr(_assemble, "PREPARE_MIN_ROWS", 10**9)
    joined = collect(run_dir, workers=workers)
    monkeypatch.setattr(_assemble, "PREPARE_MIN_ROWS", 0)
    prepared = collect(run_dir, workers=workers)  # workers=2: a real process pool, prepare() runs in it
    _assert_same(prepared, joined)
    # by hand (file order a, b, c; 3 events per launch; ids renumbered over the files: a 0-2, b 3-5, c 6-11):
    # a's kernel (id 2) comm; b's (id 5) kernel; c's first kernel (id 8) kernel, its second (id 11) comm
    assert _kernel_kinds(prepared) == [(2, "allreduce_kernel", "comm"), (5, "allreduce_kernel", "kernel"),
                                       (8, "gemm", "kernel"), (11, "gemm", "comm")]
    assert [s["comm_by_launcher"] for s in prepared.meta.sources] == [1, 0, 1]
    # no file had a comm row before the relabelling: "comm" is added once, after the categories the files have
    assert list(prepared.events["kind"].cat.categories)[-1] == "comm"


def test_worker_route_equals_the_join_of_files_loaded_alone(run_dir, monkeypatch):
    # an independent route: each file loaded alone (its own relabelling on its own table) and concatenated
    from gpulens.collectors import collect_file, sniff

    monkeypatch.setattr(_assemble, "PREPARE_MIN_ROWS", 0)
    prepared = collect(run_dir, workers=2)
    files = sorted(run_dir.iterdir())
    alone = concat([collect_file(sniff(f), f) for f in files])
    assert _kernel_kinds(prepared) == _kernel_kinds(alone)
    assert prepared.events["kind"].astype(str).tolist() == alone.events["kind"].astype(str).tolist()


def test_prepare_marks_what_the_join_writes(run_dir, monkeypatch):
    monkeypatch.setattr(_assemble, "PREPARE_MIN_ROWS", 0)
    c = load_task(str(run_dir / "c.json"), True, None, False, parts=True, format="kineto")
    # c.json: rows in file order op, launch, kernel, op, launch, kernel → the comm-launched kernel is row 5
    assert c.relabel is False and c.comm_rows.tolist() == [5] and c.has_gpu is True
    assert c.meta.sources[0]["comm_by_launcher"] == 1
    assert c.events["kind"].astype(str).tolist().count("kernel") == 2  # the file's own column is left unchanged


def test_small_files_are_left_to_the_join(run_dir):
    # below PREPARE_MIN_ROWS (the default 20,000 events) a file is relabelled on the joined table: no DataFrame per
    # file (10,000 small rank files would pay it 10,000 times)
    a = load_task(str(run_dir / "a.json"), True, None, False, parts=True, format="kineto")
    assert a.rows == 3 < _assemble.PREPARE_MIN_ROWS
    assert a.relabel is True and a.comm_rows is None


def test_file_without_gpu_work_is_still_told_incomplete(tmp_path, monkeypatch):
    # has_gpu found in the worker decides the incomplete-capture check as the joined table did
    monkeypatch.setattr(_assemble, "PREPARE_MIN_ROWS", 0)
    d = tmp_path / "run"
    d.mkdir()
    _write(d / "rank0.json", _launch("aten::mm", "gemm"), rank=0)
    _write(d / "rank1.json", _launch("aten::mm", "gemm")[:2], rank=1)  # the launch call, no kernel
    tl = collect(d, workers=2)
    by_path = {Path(s["path"]).name: s for s in tl.meta.sources}
    assert by_path["rank0.json"]["incomplete_capture"] is None
    assert "1 launch call (cudaLaunchKernel ×1)" in by_path["rank1.json"]["incomplete_capture"]
