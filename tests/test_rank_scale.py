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
import pandas as pd

from gpulens.analyzers import run_all
from gpulens.collectors import collect
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
        corr = r * 100 + 1  # ids from 1, as CUPTI numbers them: 0 is "no link" (timeline.link_ids)
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


# --- loading a rank directory: the tables are built once for all files (collectors/_assemble.py) ----------------

def _kineto(path: Path, events: list[dict], rank: int | None = None) -> Path:
    """A minimal Kineto file (``distributedInfo`` only when ``rank`` is given)."""
    import json

    doc = {"schemaVersion": 1, "traceEvents": events}
    if rank is not None:
        doc["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 2}
    path.write_text(json.dumps(doc))
    return path


def _launch(op: str, kernel: str, t: int = 100) -> list[dict]:
    """One CPU op (external id 5) → cudaLaunchKernel (correlation 7) → one kernel; µs times."""
    return [
        {"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t, "dur": 50, "args": {"External id": 5}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 10, "dur": 5,
         "args": {"External id": 5, "correlation": 7}},
        {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": t + 30, "dur": 10,
         "args": {"External id": 5, "correlation": 7, "device": 0, "stream": 7}},
    ]


def test_relabel_by_launcher_keeps_each_file_apart(tmp_path):
    # Two files of the same recorded rank (two profiling windows of rank 0) whose ids collide (external id 5,
    # correlation 7 in both). In a.json the kernel is launched under record_param_comms (a c10d collective record)
    # → comm; in b.json under aten::mm → stays a kernel. A join keyed on (rank, id) alone would relabel b's too.
    d = tmp_path / "run"
    d.mkdir()
    _kineto(d / "a.json", _launch("record_param_comms", "fused_sum_kernel"), rank=0)
    _kineto(d / "b.json", _launch("aten::mm", "fused_sum_kernel"), rank=0)
    tl = collect(d)
    gpu = tl.events[tl.events["name"] == "fused_sum_kernel"]
    # two inputs recording rank 0 are kept apart (collectors._ranks.separate_recorded_ranks): b.json → rank 1
    assert gpu["rank"].tolist() == [0, 1]
    assert gpu["kind"].astype(str).tolist() == ["comm", "kernel"]  # file order: a.json, b.json
    assert [s["comm_by_launcher"] for s in tl.meta.sources] == [1, 0]
    assert tl.events["event_id"].tolist() == list(range(6))


def test_incomplete_capture_is_told_per_file(tmp_path):
    # c.json records the launch call but no kernel (GPU activity missing): only c.json is named incomplete
    d = tmp_path / "run"
    d.mkdir()
    _kineto(d / "rank0.json", _launch("aten::mm", "gemm"), rank=0)
    _kineto(d / "rank1.json", _launch("aten::mm", "gemm")[:2], rank=1)
    tl = collect(d)
    by_path = {Path(s["path"]).name: s for s in tl.meta.sources}
    assert by_path["rank0.json"]["incomplete_capture"] is None
    assert "1 launch call (cudaLaunchKernel ×1) (correlation 7)" in by_path["rank1.json"]["incomplete_capture"]
    incomplete = [w for w in tl.meta.warnings if "incomplete capture" in w]
    assert len(incomplete) == 1 and "rank1.json" in incomplete[0]


def test_joined_directory_equals_the_join_of_its_files(tmp_path):
    # assemble() against the per-file route: each file loaded alone, then timeline.concat (the route directories
    # took before). Different kernel names per file make the name categories differ (sorted union, codes remapped).
    from gpulens.collectors import collect_file, sniff
    from gpulens.timeline import concat

    d = tmp_path / "run"
    d.mkdir()
    files = [_kineto(d / f"rank{r}.json", _launch("aten::mm", f"gemm_{'zyx'[r]}", t=100 + r)
                     + _launch("aten::add", "elementwise", t=300), rank=r) for r in range(3)]
    joined = collect(d)
    alone = concat([collect_file(sniff(f), f) for f in files])
    for t in ("events", "counters", "rejected"):
        pd.testing.assert_frame_equal(getattr(joined, t), getattr(alone, t))
    assert list(joined.events["name"].cat.categories) == sorted(joined.events["name"].astype(str).unique())
    # by hand: 6 events per file, ids 0..17; each file's kernel named as written
    assert joined.events["event_id"].tolist() == list(range(18))
    k = joined.events[joined.events["kind"] == "kernel"]
    assert sorted(zip(k["rank"], k["name"].astype(str))) == sorted(
        [(r, f"gemm_{'zyx'[r]}") for r in range(3)] + [(r, "elementwise") for r in range(3)])


def test_rank_directory_builds_its_tables_once(tmp_path, monkeypatch):
    # operation count, not seconds: per-file DataFrames and validations made 10k files take > 600 s. Loading 10 or
    # 40 rank files builds the same three tables (events, counters, rejected) and validates once.
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import gen_kineto

    made = {"frames": 0, "validate": 0}
    init, validate = pd.DataFrame.__init__, Timeline.validate

    def counting_init(self, *a, **k):
        made["frames"] += 1
        init(self, *a, **k)

    def counting_validate(self):
        made["validate"] += 1
        return validate(self)

    out = {}
    for n in (10, 40):
        facts = gen_kineto.generate(tmp_path / f"r{n}", 20, ranks=n, steps=2)
        monkeypatch.setattr(pd.DataFrame, "__init__", counting_init)
        monkeypatch.setattr(Timeline, "validate", counting_validate)
        made.update(frames=0, validate=0)
        tl = collect(tmp_path / f"r{n}", workers=1)
        monkeypatch.undo()
        out[n] = dict(made)
        # by the generator's arithmetic: every rank's kernels and their summed time
        k = tl.of_kind("kernel", "comm").groupby("rank")["dur_ns"].agg(["size", "sum"])
        assert k["size"].tolist() == [f["kernels"] for f in facts] == [20] * n
        assert k["sum"].tolist() == [f["kernel_ns"] for f in facts]
    assert out[10] == out[40], out
    assert out[40]["validate"] == 1 and out[40]["frames"] <= 5, out


def test_device_record_indexes_the_devices_once():
    # occupancy asks for the device record of every (rank, device): a scan of all records per call made 2,000
    # ranks cost 25 s. Count the passes over meta.devices for 400 lookups.
    from gpulens.analyzers._hot import device_record

    class Counted(list):
        passes = 0

        def __iter__(self):
            Counted.passes += 1
            return super().__iter__()

    tl = _run(2)
    tl.meta.devices = Counted([{"rank": r, "device_id": d, "name": f"gpu{r}.{d}"} for r in range(200)
                               for d in (0, 1)] + [{"rank": 5, "device_id": 0, "name": "duplicate"}])
    got = [device_record(tl, r, d)["name"] for r in range(200) for d in (0, 1)]
    assert got == [f"gpu{r}.{d}" for r in range(200) for d in (0, 1)]  # the first record of a pair wins
    assert device_record(tl, 7, 3)["name"] == "gpu7.0"  # no such device: the rank's first
    assert device_record(tl, 999, 0)["name"] == "gpu0.0"  # no such rank: the first record
    assert Counted.passes <= 2, Counted.passes


def test_console_lists_ranks_as_ranges_and_caps_per_gpu_tables():
    from gpulens.report import Report, analyze_timeline
    from gpulens.reports import console
    from gpulens.reports._format import rank_ranges

    assert rank_ranges([11, 0, 1, 2, 3, 8, 10]) == "0–3, 8, 10, 11"
    assert rank_ranges([4]) == "4" and rank_ranges([]) == ""
    tl = _run(60)
    text = console.render(Report([analyze_timeline(tl, "60 ranks")]), width=200)
    assert "0–59  (60 ranks)" in text
    assert "the 20 least busy of 60 GPUs" in text and "the 20 most idle GPUs of 60" in text
    section = text[text.index("Time breakdown per GPU"):text.index("Top kernels")]
    assert sum(1 for line in section.splitlines() if line.startswith("│")) == 20


def _pandas_objects(fn) -> int:
    """How many DataFrames and Series ``fn()`` builds (an operation count, robust on a loaded machine)."""
    made = [0]
    df_init, s_init = pd.DataFrame.__init__, pd.Series.__init__

    def count_df(self, *a, **k):
        made[0] += 1
        df_init(self, *a, **k)

    def count_s(self, *a, **k):
        made[0] += 1
        s_init(self, *a, **k)

    pd.DataFrame.__init__, pd.Series.__init__ = count_df, count_s
    try:
        fn()
    finally:
        pd.DataFrame.__init__, pd.Series.__init__ = df_init, s_init
    return made[0]


def test_per_rank_analyzers_build_no_table_per_rank():
    # a DataFrame per critical-path window and per queue series, and per-rank masks in the whole-trace windows,
    # grew with the rank count (critical_path: 279 → 999 pandas objects for 40 → 160 ranks). Grouped once, the
    # count does not depend on the rank count.
    for only in (["critical_path"], ["queue_length"], ["queue_length_series"], ["kernel_variation"]):
        counts = []
        for ranks in (40, 160):
            tl = _run(ranks)
            counts.append(_pandas_objects(lambda: run_all(tl, None, only=only)))
        assert counts[0] == counts[1], (only, counts)


def test_queue_length_and_variation_per_rank_by_hand():
    from scipy import stats

    ranks = 30
    tl = _run(ranks)
    ev = tl.events
    slow = ((ev["rank"] == 0) & (ev["kind"] == "kernel")).to_numpy()
    ev.loc[slow, "dur_ns"] = 3_000  # rank 0's gemm kernels run 3 µs instead of 2 µs
    res = run_all(tl, None, only=["queue_length", "kernel_variation"])
    q = res["queue_length"].table.set_index("rank")
    assert q.index.tolist() == list(range(ranks))
    # ranks ≥ 1 (module layout): each kernel is queued from its launch (500 ns before it starts) to its end, 2,500
    # ns; the collective from its launch to its end, 5,500 ns → 6 × 2,500 + 5,500 = 20,500 ns with one item queued
    # over a span from the first launch to the last end of (K − 1)·3,000 + 2,000 + 1,000 + 5,000 + 500 = 23,500 ns
    one = q.loc[1:]
    assert (one["launches"] == K + 1).all() and (one["max_queue"] == 1).all() and (one["span_ns"] == 23_500).all()
    assert np.allclose(one["mean_queue"], 20_500 / 23_500) and np.allclose(one["empty_share"], 3_000 / 23_500)
    # rank 0: each 3 µs kernel ends 500 ns after the next launch (2 queued then) and is queued 1,000 ns longer:
    # the queue length integrates to 20,500 + 6 × 1,000 ns over the same span
    assert q.loc[0, "max_queue"] == 2 and np.isclose(q.loc[0, "mean_queue"], (20_500 + K * 1_000) / 23_500)
    v = res["kernel_variation"].table
    row = v[(v["name"] == "gemm") & (v["dimension"] == "rank")].iloc[0]
    # medians: 3,000 ns on rank 0, 2,000 on the others → spread 50 %, excess 6 kernels × 1,000 ns on rank 0
    assert row["groups"] == ranks and row["slowest_group"] == 0 and row["spread_pct"] == 50.0
    assert row["excess_ns"] == K * 1_000
    groups = [[3_000.0] * K] + [[2_000.0] * K] * (ranks - 1)
    assert np.isclose(row["p_value"], stats.kruskal(*groups).pvalue) and bool(row["varies"])
