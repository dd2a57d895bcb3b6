"""Regressions of the session-45 fuzzing campaign (tests/fuzz_s45.py): one seeded, fast test per fault kind.

1. Hang (quadratic): the operator roll-up asked, per op call, whether an ancestor call is of the same (op, shapes,
   dtypes) row by walking the ancestors one vectorised level at a time *for every call until its root* — O(calls ×
   depth). One op + launch + kernel repeated at one time (a trace of one event repeated: identical intervals nest
   as deep as the file is long) cost 8.2 s CPU of op_rollup alone at 40,000 repeats, 22 s at a 43 MB file; 40,000
   nested ops of distinct names 10.2 s of analysis. A call now leaves the walk as soon as it is decided, and past
   :data:`gpulens.analyzers.op_rollup._WALK_ROUNDS` levels one depth-first pass decides the rest (O(n)): 1.4 s and
   3.5 s for the whole analysis. ``gpulens analyze`` of a 50 MB file of 93,000 such triples with all three reports:
   38.9 s CPU on main, 3.6 s now.
2. Each nanosecond at stake counted once: the rank-imbalance finding (rank_kernels) claimed the whole compute-time
   difference of the heaviest and the lightest rank as the lighter rank's wait, even where the lighter rank's GPU
   span was shorter than that (fuzz: an nsys export and a Kineto trace in one folder, read as two ranks: a 2.8 µs
   rank "waiting" 43.9 µs; the root findings summed to 66.8 µs in 49.8 µs of spans). It is now at most the time
   the lightest rank's GPUs did not compute (``breakdown``: span − computation).
3. Time: an Nsight Compute CSV of appended outputs parsed each output as its own table (3–7 ms of pandas work
   each): 5,000 header + units rows with no launch (1.5 MB) took 9.2 s CPU, and the warning listed every header
   line. Outputs of a header alone are now counted, not parsed (0.8 s), and the warning names five header lines
   and counts the rest. Consecutive outputs of one header and units row are parsed as one table, split where launch
   IDs restart (as outputs appended without a header are): 2,000 real appended details outputs (3.4 MB) 11.5 ->
   1.5 s CPU, the same launches and counters as before (500 outputs: 1,000 launches, 3,500 counters).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

import gpulens
from gpulens.analyzers.op_rollup import _WALK_ROUNDS, _same_key_dfs, same_key_ancestor


# --- 1. the same-row ancestor test is linear in the depth ----------------------------------------------------------
def test_same_key_ancestor_past_the_walk_rounds():
    # one chain 0 <- 1 <- ... <- 199 (node i's parent is i - 1). Keys 0..99 are distinct (node i has key i), nodes
    # 100..199 all have key 5: each of them has node 5 (key 5) above it, 95+ levels up (past the vectorised rounds);
    # node 5 itself has only keys 0..4 above it. A second tree: root 200 (key 7) with children 201 (key 7: nested)
    # and 202 (key 8), 202's child 203 (key 7: nested through 200).
    assert 95 > _WALK_ROUNDS
    par = np.r_[np.arange(-1, 199), [-1, 200, 200, 202]].astype(np.int64)
    key = np.r_[np.arange(100), np.full(100, 5), [7, 7, 8, 7]]
    want = np.r_[np.zeros(100, bool), np.ones(100, bool), [False, True, False, True]]
    assert same_key_ancestor(par, key).tolist() == want.tolist()
    assert _same_key_dfs(par, key).tolist() == want.tolist()


def test_same_key_ancestor_of_a_deep_chain_is_fast():
    # a chain 200,000 deep of distinct keys: nobody is nested; walked level by level for every node this was
    # 2·10^10 steps (hours), now one pass
    n = 200_000
    par = np.arange(-1, n - 1, dtype=np.int64)
    t = time.process_time()
    got = same_key_ancestor(par, np.arange(n))
    assert time.process_time() - t < 5.0
    assert not got.any()
    # the same chain of one key: all but the root nested (decided in the first vectorised round)
    assert same_key_ancestor(par, np.zeros(n, np.int64)).tolist() == [False] + [True] * (n - 1)


def _repeated_triple(path: Path, n: int) -> Path:
    """One ``aten::mm`` op (ts 980 µs, 30 µs), its launch (990 µs, 3 µs) and its kernel (1000 µs, 5 µs), the same
    three events written ``n`` times."""
    k = {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1000, "dur": 5,
         "args": {"device": 0, "stream": 7, "correlation": 42}}
    r = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 990, "dur": 3,
         "args": {"correlation": 42, "external id": 5}}
    o = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": 980, "dur": 30,
         "args": {"External id": 5}}
    path.write_text(json.dumps({"traceEvents": [k, r, o] * n}))
    return path


def test_repeated_identical_op_rolls_up_once(tmp_path):
    # 3,000 identical ops nest into one chain: every call is counted, but the time of the outermost only (each
    # nested call lies inside it): host 30 µs, GPU 5 µs (all kernels at one time), the whole GPU time (share 1)
    n = 3000
    rep = gpulens.analyze(_repeated_triple(tmp_path / "t.json", n), strict=False)
    res = rep.sources[0].results["op_rollup"]
    row = res.table.set_index("op").loc["aten::mm"]
    assert int(row["calls"]) == n
    assert float(row["host_time_ns"]) == 30_000
    assert float(row["gpu_time_ns"]) == 5_000
    assert float(row["share"]) == 1.0


# --- 2. the rank-imbalance wait fits in the lightest rank's time ----------------------------------------------------
def _rank_file(path: Path, rank: int, compute_us: float, idle_us: float = 0.0) -> None:
    """Rank ``rank`` of a 2-rank run: one compute kernel of ``compute_us`` at 100 µs, then (``idle_us`` + 1 µs
    later) a 1 µs all-reduce, each launched by a runtime call."""
    ev = []
    for j, (name, ts, dur) in enumerate([("gemm_kernel", 100.0, compute_us),
                                         ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 101.0 + compute_us + idle_us,
                                          1.0)]):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts - 5,
                   "dur": 1, "args": {"correlation": j + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": j + 1}})
    path.write_text(json.dumps({"distributedInfo": {"rank": rank, "world_size": 2, "backend": "nccl"},
                                "traceEvents": ev}))


def _imbalance(tmp_path: Path, light_idle_us: float):
    d = tmp_path / f"run{light_idle_us}"
    d.mkdir()
    _rank_file(d / "rank0.json", 0, 40.0)
    _rank_file(d / "rank1.json", 1, 1.0, light_idle_us)
    src = gpulens.analyze(d).sources[0]
    (f,) = [f for f in src.results["rank_kernels"].findings if f.key == "rank-imbalance"]
    return f


def test_rank_imbalance_stake_within_the_lightest_ranks_time(tmp_path):
    # rank 0 computes 40 µs, rank 1 1 µs: 39 µs more. Rank 1's GPU span is its kernel (1 µs), a 1 µs gap and its
    # 1 µs all-reduce: the finding is part of the exposed communication (s46: a part never above its whole), so its
    # stake is at most rank 1's 1 µs of exposed all-reduce (the finding claimed 39 µs: roots summed past the run's
    # spans; fuzz: a folder of two unrelated traces)
    f = _imbalance(tmp_path, 0.0)
    assert f.title == "Rank 0 spends 3900.0 % more compute-kernel time than the lightest rank (1)"
    assert f.time_at_stake_ns == 1_000
    # rank 1 idle 50 µs before its all-reduce: idle of its own host, not a wait in a collective — still 1 µs
    assert _imbalance(tmp_path, 50.0).time_at_stake_ns == 1_000


# --- 3. ncu CSV outputs of a header alone are counted, not parsed one by one --------------------------------------
_NCU_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
             '"Device","CC","gpu__time_duration.sum"')
_NCU_UNITS = '"","","","","","","","","","","","usecond"'


def test_ncu_header_only_outputs_are_counted_fast(tmp_path):
    # one output with one launch of 12.5 µs, then 4,000 outputs of a header and units row alone (a 0.9 MB file):
    # each was parsed as a table (~3 ms each: 9 s for 3,000); now counted, and the warning names 5 header lines
    n = 4000
    lines = [_NCU_HEAD, _NCU_UNITS,
             '"0","42","demo","host","gemm_kernel","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","12.5"']
    lines += [_NCU_HEAD, _NCU_UNITS] * n
    p = tmp_path / "appended.csv"
    p.write_text("\n".join(lines) + "\n")
    t = time.process_time()
    tl = gpulens.collect(p)
    assert time.process_time() - t < 5.0
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 1 and int(k["dur_ns"].iloc[0]) == 12_500
    (w,) = [w for w in tl.meta.warnings if "ncu outputs appended" in w]
    # the second output's header is line 4 (1-based), each next one 2 lines later
    assert f"{n + 1:,} ncu outputs appended in one file (the header line again at line 4, 6, 8, 10, 12 and " \
           f"{n - 5:,} more; {n:,} outputs of a header alone)" in w


def test_ncu_appended_outputs_read_as_one_table(tmp_path):
    # 3,000 appended outputs (header, units row, one launch of (j % 7 + 1) µs each): every launch read with its own
    # duration in order, the count said once; each output was parsed as its own table (11.5 s CPU for 2,000 real
    # details outputs of 3.4 MB)
    n = 3000
    lines = []
    for j in range(n):
        lines += [_NCU_HEAD, _NCU_UNITS,
                  f'"0","42","demo","host","k{j % 7}","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","{j % 7 + 1}"']
    p = tmp_path / "appended.csv"
    p.write_text("\n".join(lines) + "\n")
    t = time.process_time()
    tl = gpulens.collect(p)
    assert time.process_time() - t < 5.0
    k = tl.events[tl.events["kind"] == "kernel"].sort_values("start_ns")
    assert k["dur_ns"].tolist() == [(j % 7 + 1) * 1000 for j in range(n)]
    assert k["name"].astype(str).tolist() == [f"k{j % 7}" for j in range(n)]
    (w,) = [w for w in tl.meta.warnings if "ncu outputs appended" in w]
    assert w.endswith(f"{n:,} ncu outputs appended in one file (the header line again at line 4, 7, 10, 13, 16 and "
                      f"{n - 6:,} more): read one after another as {n:,} launches, renumbered")
