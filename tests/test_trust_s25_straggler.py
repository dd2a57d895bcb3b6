"""Straggler evidence (issue s25): only collectives whose kernels overlap on every rank are one exchange.

HTA's two-rank sample (``multirank_hta_trace_filter``) named "Rank 1 the straggler: others waited 189.23 ms": 6 of
its 10 matched NCCL kernel pairs never overlap (rank 0's kernel ends before rank 1's begins), so they are not one
exchange, and 189.23 ms was rank 0's kernel durations clipped to the start gap. Both files record
``distributedInfo.world_size`` 128 and the report never said that it compares 2 of 128 ranks.

The traces below are written by the tests: two ranks, one NCCL all-reduce kernel per matched collective, times in
µs from T0, and every expected figure worked out by hand beside the events.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import gpulens
from gpulens.collectors import collect

T0 = 1_000_000  # µs
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def _rank_file(path: Path, rank: int, world: int | None, kernels: list[tuple[int, int]]) -> Path:
    """One rank's Kineto file: a launch call and an all-reduce kernel [start, end) µs after T0 per entry."""
    ev = []
    for i, (s, e) in enumerate(kernels):
        corr = 100 + i
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": T0 + s - 5, "dur": 3, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": AR, "pid": 0, "tid": 7, "ts": T0 + s, "dur": e - s,
                   "args": {"device": 0, "stream": 7, "correlation": corr}})
    doc = {"schemaVersion": 1, "traceEvents": ev}
    doc["distributedInfo"] = {"backend": "nccl", "rank": rank, **({"world_size": world} if world else {})}
    path.write_text(json.dumps(doc))
    return path


def _run(tmp_path: Path, r0: list[tuple[int, int]], r1: list[tuple[int, int]], world: int | None = 8) -> Path:
    d = tmp_path / "run"
    d.mkdir()
    _rank_file(d / "rank0.json", 0, world, r0)
    _rank_file(d / "rank1.json", 1, world, r1)
    return d


# occurrence:        0           1           2           3 (apart)     4 (apart, other way)
R0 = [(0, 100), (200, 300), (400, 500), (600, 700), (1000, 1050)]
R1 = [(30, 100), (250, 300), (420, 500), (900, 950), (960, 990)]
# Concurrent (max start < min end): 0 (30 < 100), 1 (250 < 300), 2 (420 < 500). Not: 3 (rank 0 ends at 700 before
# rank 1 starts at 900), 4 (rank 1 ends at 990 before rank 0 starts at 1000).
# Rank 1 enters 0, 1, 2 last; rank 0 waits 30 + 50 + 20 = 100 µs for it. Excess (own − shortest duration):
# rank 0: (100 − 70) + (100 − 50) + (100 − 80) = 100 µs, rank 1: 0.
# The old code also counted 3 (rank 0 "waited" min(900 − 600, 100) = 100 µs) and 4 (rank 1 "waited" 30 µs).


def test_non_overlapping_pairs_are_not_wait_evidence(tmp_path):
    src = gpulens.analyze([_run(tmp_path, R0, R1)]).sources[0]
    rk = src.results["ranks"]
    t = rk.table.set_index("rank")
    assert rk.summary["matched_collectives"] == 5
    assert rk.summary["concurrent_collectives"] == 3 and rk.summary["non_concurrent_collectives"] == 2
    assert t["concurrent_collectives"].tolist() == [3, 3]
    assert t["late_arrivals"].to_dict() == {0: 0, 1: 3}
    assert int(t.loc[0, "collective_wait_ns"]) == 100_000 and int(t.loc[1, "collective_wait_ns"]) == 0
    assert int(t.loc[1, "caused_wait_ns"]) == 100_000 and int(t.loc[0, "caused_wait_ns"]) == 0
    assert int(t.loc[0, "excess_comm_ns"]) == 100_000 and int(t.loc[1, "excess_comm_ns"]) == 0
    assert rk.summary["total_collective_wait_ns"] == 100_000
    assert rk.summary["stragglers"] == [1]
    (note,) = [f for f in src.findings() if f.key == "collectives-not-concurrent"]
    assert note.title.startswith("2 of 5 matched collectives do not overlap across ranks")
    (st,) = [f for f in src.findings() if f.key == "straggler"]
    assert st.time_at_stake_ns == 100_000 and "3 of 3 overlapping matched collectives" in st.detail


def test_long_table_marks_the_pairs_that_are_one_exchange(tmp_path):
    from gpulens.analyzers.ranks import match_collectives

    m = match_collectives(collect(_run(tmp_path, R0, R1)))
    conc = m.groupby("occurrence")["concurrent"].first().to_dict()
    assert conc == {0: True, 1: True, 2: True, 3: False, 4: False}
    apart = m[~m["concurrent"]]
    assert apart["wait_ns"].isna().all() and apart["excess_ns"].isna().all() and not apart["last"].any()


def test_world_size_above_the_ranks_read_is_said_and_bounds_the_straggler_claim(tmp_path):
    from gpulens.analyzers.ranks import ranks_text, world_size

    run = _run(tmp_path, R0, R1, world=8)
    assert world_size(collect(run)) == 8 and ranks_text(2, 8) == "2 of 8 ranks" and ranks_text(2, 2) == "2 ranks"
    rep = gpulens.analyze([run])
    src = rep.sources[0]
    rk = src.results["ranks"]
    assert rk.summary["world_size"] == 8 and rk.summary["ranks_text"] == "2 of 8 ranks"
    assert src.summary["world_size"] == 8
    (part,) = [f for f in src.findings() if f.key == "ranks-partial"]
    assert part.title == "The trace holds 2 of 8 ranks: the rank comparison covers only these"
    (st,) = [f for f in src.findings() if f.key == "straggler"]
    assert "of the 2 of 8 ranks read" in st.title and "6 ranks not read" in st.detail
    from gpulens.reports import console

    text = console.render(rep, width=220)
    assert "0, 1 (2 of 8 ranks)" in " ".join(text.split()) and "Ranks compared — 2 of 8 ranks" in text


def test_all_ranks_read_names_the_straggler_plainly(tmp_path):
    src = gpulens.analyze([_run(tmp_path, R0, R1, world=2)]).sources[0]
    assert not [f for f in src.findings() if f.key == "ranks-partial"]
    (st,) = [f for f in src.findings() if f.key == "straggler"]
    assert st.title == "Rank 1 is the straggler: others waited 100.00 µs for it in collectives"


def test_no_overlapping_pair_measures_no_wait_and_names_no_straggler(tmp_path):
    # only occurrences 3 and 4 of above: never one exchange — the old code named rank 1 (100 µs vs 30 µs "caused")
    src = gpulens.analyze([_run(tmp_path, R0[3:], R1[3:], world=2)]).sources[0]
    rk = src.results["ranks"]
    assert rk.summary["concurrent_collectives"] == 0 and rk.summary["stragglers"] == []
    assert rk.summary["total_collective_wait_ns"] is None
    assert rk.table["collective_wait_ns"].isna().all() and rk.table["caused_wait_ns"].isna().all()
    assert not [f for f in src.findings() if f.key in ("straggler", "straggler-unproven")]


def test_too_few_overlapping_collectives_name_no_straggler(tmp_path):
    # occurrences 0 and 1 only: rank 1 last in both (80 µs of waits), fewer than MIN_STRAGGLER_COLLECTIVES (3)
    from gpulens.analyzers.ranks import MIN_STRAGGLER_COLLECTIVES

    assert MIN_STRAGGLER_COLLECTIVES == 3
    src = gpulens.analyze([_run(tmp_path, R0[:2], R1[:2], world=2)]).sources[0]
    rk = src.results["ranks"]
    assert rk.summary["concurrent_collectives"] == 2 and rk.summary["stragglers"] == []
    assert int(rk.table.set_index("rank").loc[1, "caused_wait_ns"]) == 80_000
    (f,) = [f for f in src.findings() if f.key == "straggler-unproven"]
    assert f.rank == 1 and f.title.startswith("Rank 1 entered 2 of 2 overlapping collectives last")


def test_hta_sample_straggler_rests_on_its_four_overlapping_pairs():
    from tests.conftest import shared_trace

    src = gpulens.analyze([shared_trace("kineto/multirank_hta_trace_filter")]).sources[0]
    rk = src.results["ranks"]
    # overlapping pairs (µs after 1682725898000000): 295662–307389 / 298964–307334 (wait 3302), 585321–627817 /
    # 585405–628149 (84), 1146327–1182485 / 1168655–1182493 (22328), 1185890–1249534 / 1187182–1249345 (1292)
    assert rk.summary["concurrent_collectives"] == 4 and rk.summary["non_concurrent_collectives"] == 6
    assert int(rk.table.set_index("rank").loc[1, "caused_wait_ns"]) == (3302 + 84 + 22328 + 1292) * 1000
    assert rk.summary["world_size"] == 128 and rk.summary["ranks_text"] == "2 of 128 ranks"
    (st,) = [f for f in src.findings() if f.key == "straggler"]
    assert st.title == ("Rank 1 is the straggler of the 2 of 128 ranks read: the other rank waited 27.01 ms in "
                        "collectives before it arrived")
    assert pd.notna(st.time_at_stake_ns) and st.time_at_stake_ns == 27_006_000
