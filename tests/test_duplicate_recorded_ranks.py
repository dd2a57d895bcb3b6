"""Two inputs of a folder that record the same rank were joined into one rank without a word (fuzzer): two copies of
a 3-kernel trace with ``distributedInfo.rank`` 0 read as "ranks [0], 6 kernels", the rank's kernel time doubled;
the same for ``rank-1.json`` beside ``rank-1.pt.trace.json`` (rank from the file name). They are now kept apart
— the first in file-name order keeps the rank, the other gets the lowest rank no input records — with a warning.
Successive profiling cycles of one DDP worker (``<worker>.<ns>.pt.trace.json``, the same recorded rank, times
that do not overlap) are still read as cycles: the latest is analysed.

Hand-made traces (tests/dig_traces.KTrace): 3 kernels of 10 µs each.
"""

from __future__ import annotations

from gpulens.collectors import collect

from .dig_traces import KTrace


def _three_kernels(path, rank=None, t0=0.0):
    k = KTrace(rank=rank)
    ext = k.op("aten::mm", t0 + 100, 50)
    k.launch(ext, t0 + 105, [("gemm_a", t0 + 110, 10), ("gemm_b", t0 + 125, 10), ("gemm_c", t0 + 140, 10)])
    return k.write(path)


def _per_rank(tl):
    k = tl.of_kind("kernel")
    return {int(r): (len(g), int(g["dur_ns"].sum())) for r, g in k.groupby("rank")}


def test_two_files_of_recorded_rank_0_stay_apart(tmp_path):
    _three_kernels(tmp_path / "a.json", rank=0)
    _three_kernels(tmp_path / "b.json", rank=0)
    tl = collect(tmp_path)
    assert _per_rank(tl) == {0: (3, 30_000), 1: (3, 30_000)}  # each file's 3 kernels of 10 µs, once
    note = next(w for w in tl.meta.warnings if "record rank 0" in w)
    assert "2 inputs record rank 0 (a.json, b.json)" in note and "b.json → rank 1" in note


def test_rank_from_the_file_name_twice(tmp_path):
    _three_kernels(tmp_path / "rank-1.json")
    _three_kernels(tmp_path / "rank-1.pt.trace.json")
    tl = collect(tmp_path)
    # rank 1 taken; the second file gets the lowest free rank, 0
    assert _per_rank(tl) == {0: (3, 30_000), 1: (3, 30_000)}
    assert any("2 inputs record rank 1" in w for w in tl.meta.warnings), tl.meta.warnings


def test_distinct_ranks_are_untouched(tmp_path):
    _three_kernels(tmp_path / "r0.json", rank=0)
    _three_kernels(tmp_path / "r1.json", rank=1)
    tl = collect(tmp_path)
    assert _per_rank(tl) == {0: (3, 30_000), 1: (3, 30_000)}
    assert not any("record rank" in w for w in tl.meta.warnings)


def test_cycles_of_one_ddp_worker_are_cycles_not_ranks(tmp_path):
    # rank 0's worker profiled twice (schedule repeat=2): the second cycle 1 s after the first
    _three_kernels(tmp_path / "host_42.1700000000000000001.pt.trace.json", rank=0)
    _three_kernels(tmp_path / "host_42.1700000001000000000.pt.trace.json", rank=0, t0=1_000_000.0)
    tl = collect(tmp_path)
    assert _per_rank(tl) == {0: (3, 30_000)}
    assert any("successive profiling cycles" in w and "analysed the latest, host_42.1700000001000000000" in w
               for w in tl.meta.warnings), tl.meta.warnings
