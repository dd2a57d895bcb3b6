"""Session 40, analyzer speed (issue 16): the helpers that replaced per-row strings, groupby idxmax and all-row
kind scans give the values the slower forms gave. Expected values come from plain-Python loops or hand
calculations written here, never from gpulens's output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers._groupstats import first_max_rows
from gpulens.analyzers.intervals import RUNAWAY_FACTOR, repair_stream_overruns
from gpulens.report import analyze
from tests.dig_traces import KTrace


def _first_max_loop(groups, values):
    """Row of the first largest value of each group code 0..G−1, by a plain loop over the rows."""
    best: dict[int, int] = {}
    for i, (g, v) in enumerate(zip(groups.tolist(), values.tolist())):
        if g not in best or v > values[best[g]]:
            best[g] = i
    return np.array([best[g] for g in range(len(best))])


def test_first_max_rows_hand_example():
    # group 0: rows 0, 3 (7 > 5 → row 3); group 1: rows 1, 2, 4 (9 twice: the first, row 2); group 2: row 5 alone
    groups = np.array([0, 1, 1, 0, 1, 2])
    values = np.array([5, 3, 9, 7, 9, -4])
    assert first_max_rows(groups, values, 3).tolist() == [3, 2, 5]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_max_rows_equals_a_loop_on_random_ties(seed):
    rng = np.random.default_rng(seed)
    n = 5_000
    groups = rng.permutation(np.r_[np.arange(300), rng.integers(0, 300, n - 300)])  # every group present
    values = rng.integers(-3, 4, n).astype(np.int64)  # few distinct values: many ties within a group
    assert first_max_rows(groups, values, 300).tolist() == _first_max_loop(groups, values).tolist()


def _gpu(kinds, categorical):
    """Three GPU events of rank 0, device 0: two on stream 1 (0–10 µs, 10–20 µs), one on stream 2 starting at
    15 µs and recorded as lasting 1 s (the last event of its stream: nothing clips it)."""
    kind = pd.Series(kinds, dtype="category" if categorical else object)
    return pd.DataFrame({"rank": [0, 0, 0], "device_id": [0, 0, 0], "stream_id": [1, 1, 2],
                         "start_ns": [0, 10_000, 15_000], "dur_ns": [10_000, 10_000, 1_000_000_000], "kind": kind})


@pytest.mark.parametrize("categorical", [True, False])
def test_runaway_rule_reads_kernel_kinds_of_categorical_and_text_columns(categorical):
    # the rest of the run ends at 20 µs, first start 0: the third event ends 1 s − 5 µs past that, more than
    # RUNAWAY_FACTOR × 20 µs (= 20 ms) → cut at 20 µs: 20 − 15 = 5 µs kept
    assert 1_000_000_000 + 15_000 - 20_000 > RUNAWAY_FACTOR * 20_000
    rep = repair_stream_overruns(_gpu(["kernel", "kernel", "kernel"], categorical))
    assert rep["effective_ns"].tolist() == [10_000, 10_000, 5_000]
    assert rep["runaway"].tolist() == [False, False, True]


@pytest.mark.parametrize("categorical", [True, False])
def test_runaway_rule_needs_a_kernel_or_collective_in_the_rest(categorical):
    # the rest holds copies only: one long kernel after two copies is a measurement, not a recording fault
    rep = repair_stream_overruns(_gpu(["memcpy", "memcpy", "kernel"], categorical))
    assert rep["effective_ns"].tolist() == [10_000, 10_000, 1_000_000_000]
    assert not rep["runaway"].any()
    # a collective in the rest counts as GPU work: the cut applies
    rep = repair_stream_overruns(_gpu(["memcpy", "comm", "kernel"], categorical))
    assert rep["effective_ns"].tolist() == [10_000, 10_000, 5_000]


GEMM_A = "ampere_bf16_s16816gemm_bf16_128x64_ldg8_nn"
GEMM_B = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize96x128x32"
BF = "c10::BFloat16"
DIMS = [[512], [128, 256], [256, 512], [], []]
TYPES = [BF, BF, BF, "Scalar", "Scalar"]


def _two_kernel_addmm(tmp_path, first_us: float, second_us: float):
    """One aten::addmm call launching two kernels, GEMM_A for ``first_us`` then GEMM_B for ``second_us``."""
    t = KTrace()
    e = t.op("aten::addmm", 100.0, 50, DIMS, TYPES)
    t.launch(e, 110.0, [(GEMM_A, 1000.0, first_us)])
    t.launch(e, 120.0, [(GEMM_B, 1000.0 + first_us + 1, second_us)])
    return t.write(tmp_path / "addmm.json")


@pytest.mark.parametrize("first_us, second_us, kernel", [
    (10.0, 30.0, GEMM_B),  # the longer kernel names the problem
    (30.0, 10.0, GEMM_A),
    (20.0, 20.0, GEMM_A),  # equal durations: the first launched
])
def test_gemm_problem_is_named_by_its_ops_longest_kernel(tmp_path, first_us, second_us, kernel):
    path = _two_kernel_addmm(tmp_path, first_us, second_us)
    g = analyze([path], only=["gemm_shapes"]).sources[0].results["gemm_shapes"].table
    assert len(g) == 1
    row = g.iloc[0]
    assert row["kernel"] == kernel
    assert (row["M"], row["N"], row["K"]) == (128, 512, 256)
    assert row["gpu_time_ns"] == (first_us + second_us) * 1000  # both kernels are the op's GPU time
