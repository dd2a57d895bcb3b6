"""Regressions of the session-45 fuzzing campaign (tests/fuzz_s45.py): one seeded, fast test per fault kind.

1. Hang (quadratic): the operator roll-up asked, per op call, whether an ancestor call is of the same (op, shapes,
   dtypes) row by walking the ancestors one vectorised level at a time *for every call until its root* — O(calls ×
   depth). One op + launch + kernel repeated at one time (a trace of one event repeated: identical intervals nest
   as deep as the file is long) cost 8.2 s CPU of op_rollup alone at 40,000 repeats, 22 s at a 43 MB file; 40,000
   nested ops of distinct names 10.2 s of analysis. A call now leaves the walk as soon as it is decided, and past
   :data:`gpulens.analyzers.op_rollup._WALK_ROUNDS` levels one depth-first pass decides the rest (O(n)): 1.4 s and
   3.5 s for the whole analysis.
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
