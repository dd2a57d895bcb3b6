"""Scale in the number of ranks (issue 17, class 5): per-rank figures are grouped once, never one mask per rank.

2k rank files took 63 s and 10k did not finish in 600 s because breakdown, bottlenecks and the exposed-collective
sums sliced the whole table once per rank. Here a run of R ranks is built in memory with a layout whose figures are
known by construction, so each analyzer's per-rank table is checked against hand arithmetic, and the CPU time for
4× the ranks must grow far less than the 16× a per-rank mask costs.

Layout of rank r (every time in ns, offset by ``r * 1_000``; one GPU, stream 7):
* K kernels "gemm", kernel i at 1_000_000 + i·3_000, 2_000 long → busy = K·2_000, span = (K−1)·3_000 + 2_000;
* one collective "ncclAllReduce" right after the last kernel + 1_000 gap, 5_000 long, overlapping nothing →
  exposed communication 5_000 per rank; span grows by 1_000 + 5_000;
* each GPU event launched by a ``cudaLaunchKernel`` (correlation id) starting 500 ns before it, 100 ns long.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from gpulens.analyzers import run_all
from gpulens.analyzers.verdicts import exposed_comm_by_name
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

K = 6
DUR, STEP, COMM, GAP = 2_000, 3_000, 5_000, 1_000


def _run(ranks: int) -> Timeline:
    """R ranks of the module layout as one Timeline (what a rank directory loads to)."""
    rows: dict[str, list] = {c: [] for c in ("kind", "name", "start_ns", "dur_ns", "rank", "device_id", "stream_id",
                                             "correlation_id", "pid", "tid")}

    def add(kind, name, start, dur, rank, stream, corr):
        for c, v in zip(rows, (kind, name, start, dur, rank, 0 if kind in ("kernel", "comm") else -1, stream, corr,
                               rank, 7 if kind in ("kernel", "comm") else 1)):
            rows[c].append(v)

    for r in range(ranks):
        base = 1_000_000 + r * 1_000
        corr = r * 100
        for i in range(K):
            t = base + i * STEP
            add("runtime", "cudaLaunchKernel", t - 500, 100, r, None, corr + i)
            add("kernel", "gemm", t, DUR, r, 7, corr + i)
        t = base + (K - 1) * STEP + DUR + GAP
        add("runtime", "cudaLaunchKernel", t - 500, 100, r, None, corr + K)
        add("comm", "ncclAllReduce", t, COMM, r, 7, corr + K)
    n = len(rows["kind"])
    ev = make_table(EVENT_COLUMNS, {**rows, "event_id": list(range(n)), "source": ["t"] * n})
    return Timeline(ev).validate()


SPAN = (K - 1) * STEP + DUR + GAP + COMM      # first kernel start → collective end, one rank
BUSY = K * DUR + COMM


def _timed(ranks: int) -> tuple[float, dict]:
    tl = _run(ranks)
    t = time.process_time()
    res = run_all(tl, None, only=["hotspots", "breakdown", "launches", "bottlenecks", "queue_length",
                                  "queue_length_series"])
    exposed = exposed_comm_by_name(tl)
    return time.process_time() - t, {"results": res, "exposed": exposed}


def test_per_rank_tables_match_the_layout():
    ranks = 300
    _, out = _timed(ranks)
    res = out["results"]
    bd = res["breakdown"].table
    assert len(bd) == ranks and bd["rank"].tolist() == list(range(ranks))
    assert (bd["span_ns"] == SPAN).all() and (bd["busy_ns"] == BUSY).all()
    assert (bd["exposed_comm_ns"] == COMM).all() and (bd["computation_ns"] == K * DUR).all()
    assert (bd["idle_ns"] == SPAN - BUSY).all()
    bn = res["bottlenecks"].table
    assert len(bn) == ranks
    # every idle ns of a rank is in exactly one gap class (the sync share is 0: no sync calls)
    classes = [c for c in bn.columns if c.startswith("idle_") and c.endswith("_ns") and c != "idle_ns"]
    assert (bn[classes].sum(axis=1) == SPAN - BUSY).all()
    assert (bn["launch_calls"] == K).all()  # kernels only: the collective is not a short-launch candidate
    # the collective overlaps no kernel on its rank: all of it is exposed, summed over ranks
    assert out["exposed"] == {"ncclAllReduce": ranks * COMM}
    qs = res["queue_length_series"]
    assert len(qs.table) == ranks * qs.summary["bins_per_stream"]


def test_rank_count_scales_near_linearly():
    # a per-rank mask over the whole table costs R × N = 16× for 4× the ranks; grouping once ~4× (plus fixed
    # costs). The per-rank slices also cost ~50 ms of pandas per rank: 1000 ranks took ~50 s CPU before grouping
    # once, ~2 s after — the absolute bound (CPU seconds, generous for a loaded machine) catches a return to them.
    small, _ = _timed(250)
    big, _ = _timed(1000)
    assert big < 9 * max(small, 0.05), (small, big)
    assert big < 15, big


def test_rank_directory_through_the_cli_path(tmp_path):
    # 60 rank files written by the benchmark generator: one source, every rank, every kernel's time
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import gen_kineto

    from gpulens.report import analyze

    facts = gen_kineto.generate(tmp_path / "run", 20, ranks=60, steps=2)
    rep = analyze([tmp_path / "run"], workers=1)
    src = rep.sources[0]
    assert src.summary["ranks"] == list(range(60))
    assert len(src.results["breakdown"].table) == 60
    kernel_ns = sum(f["kernel_ns"] for f in facts)
    assert src.summary["kernel_time_ns"] == kernel_ns
    assert int(np.sum(src.results["hotspots"].table["total_ns"])) == kernel_ns


def test_many_critical_kernel_names_on_a_known_gpu(tmp_path):
    # Issue 17 class 5, with a GPU gpulens knows: occupancy, roofline and verdicts then run per critical kernel
    # name; per-name DataFrame slices made verdicts take 21 s at 5,000 names. 4,000 names × 2 launches.
    from gpulens.report import analyze

    from .synth import write_kineto

    p = tmp_path / "names.json"
    write_kineto(p, 8_000, 4_000, name_len=40, device="NVIDIA H100 80GB HBM3", regs=32)
    t = time.process_time()
    src = analyze([p]).sources[0]
    assert time.process_time() - t < 30  # CPU seconds; ~3 s on a quiet core
    hs = src.results["hotspots"].table
    crit = hs[hs["critical"]]
    occ = src.results["occupancy"].table
    assert len(occ) == len(crit) and int(occ["calls"].sum()) == int(crit["calls"].sum())
    # 256 threads (8 warps), 32 registers/thread, no shared memory on an H100 (64 warp slots, 65,536 registers,
    # 32 blocks per SM): registers allow 65536 / (32 × 256) = 8 blocks, warp slots 64 / 8 = 8 blocks → 64 warps
    # resident = 100 % theoretical occupancy for every kernel
    assert (occ["theoretical_occupancy_pct"] == 100.0).all()
    assert len(src.results["verdicts"].table) == len(crit)
