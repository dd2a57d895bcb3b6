"""Session 44 (lead): per-rank tables of a rank that drove several GPUs (Kernel groups, Collectives) say their
times are sums over the rank's GPUs — in the column docs (JSON) and every reporter's header — and a one-GPU run's
headers stay plain."""
from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

import gpulens
from gpulens.analyzers._rank_gpus import RANK_GPU_SUM
from gpulens.report import Report
from gpulens.reports import markdown

DATA = Path(__file__).parent / "data"
V100X4 = DATA / "nvidia" / "blinkplus_v100x4_nccl_output.nvvp.gz"


def _devices_and_allreduce_ns(tmp_path: Path) -> tuple[int, int]:
    """From the nvprof SQLite itself: distinct GPUs of its kernels, and ncclAllReduce's summed duration [ns]."""
    db = tmp_path / "v100.nvvp"
    with gzip.open(V100X4) as f, db.open("wb") as g:
        shutil.copyfileobj(f, g)
    con = sqlite3.connect(db)
    try:
        n = con.execute("SELECT COUNT(DISTINCT deviceId) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL").fetchone()[0]
        ns = con.execute("SELECT SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k "
                         "JOIN StringTable s ON s._id_ = k.name WHERE s.value LIKE '%ncclAllReduce%'").fetchone()[0]
    finally:
        con.close()
    return int(n), int(ns)


def test_collectives_and_kernel_groups_of_a_four_gpu_rank_say_they_sum_over_its_gpus(tmp_path):
    gpus, allreduce_ns = _devices_and_allreduce_ns(tmp_path)
    assert gpus == 4
    src = gpulens.analyze([V100X4]).sources[0]
    coll = src.results["collectives"]
    assert RANK_GPU_SUM in coll.columns["time_ns"] and f"(up to {gpus} GPUs)" in coll.columns["time_ns"]
    assert RANK_GPU_SUM in coll.columns["exposed_ns"]
    assert RANK_GPU_SUM not in coll.columns["count"]  # a count of collectives, not a sum of times
    row = coll.table[coll.table["collective"] == "all_reduce"].iloc[0]
    assert int(row["time_ns"]) == allreduce_ns  # the sum over the 4 GPUs, as the header now says
    groups = src.results["kernel_groups"]
    assert RANK_GPU_SUM in groups.columns["time_ns"]
    md = markdown.render(Report([src]))
    assert "| rank | collective | process group | count | time (Σ over the rank's GPUs) | exposed (Σ over the " \
           "rank's GPUs) |" in md


def test_one_gpu_run_keeps_plain_headers():
    demo = Path(gpulens.__file__).parent / "data" / "demo_h100_bert-small.pt.trace.json.gz"
    src = gpulens.analyze([demo]).sources[0]
    groups = src.results["kernel_groups"]
    assert not any(RANK_GPU_SUM in d for d in groups.columns.values())
    md = markdown.render(Report([src]))
    assert "Σ over the rank's GPUs" not in md


def test_an_ncu_input_matching_no_kernel_is_said_in_the_traces_own_report():
    """A trace plus an Nsight Compute CSV of other kernels (the demo's H100 BERT step; the H200 GPT-2 ncu export):
    nothing joins, and the trace's report — read first — says so, not only the ncu source's warnings at the end."""
    demo = Path(gpulens.__file__).parent / "data" / "demo_h100_bert-small.pt.trace.json.gz"
    ncu = DATA / "nvidia" / "h200" / "h200_kernels_details.csv"
    rep = gpulens.analyze([demo, ncu])
    assert len(rep.sources) == 2  # not attached: the ncu input stays a source of its own
    trace_warn = [w for w in rep.sources[0].timeline.meta.warnings if "Nsight Compute" in w]
    assert trace_warn == [f"{ncu} (Nsight Compute) matched no kernel here: no counters joined"]
    assert any("no profiled launch matched a kernel of the other input" in w
               for w in rep.sources[1].timeline.meta.warnings)
    # the trace alone carries no such warning
    alone = gpulens.analyze([demo]).sources[0].timeline.meta.warnings
    assert not any("Nsight Compute" in w for w in alone)
