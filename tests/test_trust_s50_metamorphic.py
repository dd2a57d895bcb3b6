"""Metamorphic invariants (session 50, tests/metamorphic_s50.py): a real Kineto trace transformed in a way whose
effect on the answer is known without running gpulens, the two JSON reports compared.

* every timestamp moved (first event to 0 µs, or to 1e15 µs = 1e18 ns, written with the trace's own digits): every
  figure but absolute start times identical;
* the events of the file shuffled: identical;
* every duration and gap ×2: kernel times and spans ×2, shares and counts identical;
* the run written twice as ranks 0 and 1 of a world of 2: sums over GPUs ×2, wall span, busy % and shares unchanged,
  each rank's kernel time the run's;
* every host event removed: the GPU figures identical, launch latency unknown (skipped, not 0).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import gpulens
from gpulens.reports import json_report
from tests import metamorphic_s50 as m

DATA = Path(__file__).resolve().parent / "data" / "kineto"
AMD = DATA / "hta_mi250_minitoy_rocm6.2.json.gz"  # MI250, ROCm 6.2, 113 GPU + host events
NV = DATA / "hta_a100_event_sync_multi_stream.json.gz"  # A100, two streams, cudaEventSynchronize


def report(path: Path) -> dict:
    return json_report.to_dict(gpulens.analyze([str(path)]))


@pytest.fixture(scope="module")
def base() -> dict:
    return {p: report(p) for p in (AMD, NV)}


def _write(tmp_path: Path, doc, name: str = "in.json") -> Path:
    p = tmp_path / name
    p.write_text(m.dumps(doc))
    return p


@pytest.mark.parametrize("src", [AMD, NV], ids=["mi250", "a100"])
@pytest.mark.parametrize("to_us", [0, 10 ** 15], ids=["to0", "to1e18ns"])
def test_shift_changes_no_figure(base, tmp_path, src, to_us):
    doc = m.shift(m.load(src), to_us)
    assert m.t_first(doc) == to_us
    new = report(_write(tmp_path, doc))
    assert m.compare(base[src], new, "shift") == []


def test_shuffled_events_change_no_figure(base, tmp_path):
    doc = m.shuffle(m.load(AMD), random.Random(50))
    assert [e.get("ts") for e in m.events(doc)] != [e.get("ts") for e in m.events(m.load(AMD))]
    assert m.compare(base[AMD], report(_write(tmp_path, doc)), "shuffle") == []


def test_scaled_times_double_and_shares_stay(base, tmp_path):
    new = report(_write(tmp_path, m.scale(m.load(AMD), 2)))
    a, b = base[AMD]["sources"][0]["summary"], new["sources"][0]["summary"]
    for k in ("kernel_time_ns", "kernel_busy_ns", "gpu_busy_ns", "span_ns", "window_ns"):
        assert b[k] == 2 * a[k], k
    assert b["gpu_busy_pct"] == pytest.approx(a["gpu_busy_pct"], rel=1e-9)
    assert b["kernel_count"] == a["kernel_count"]
    hot_a, hot_b = m._hot(base[AMD]), m._hot(new)
    assert hot_a.keys() == hot_b.keys()
    for name, row in hot_a.items():
        assert hot_b[name]["share"] == pytest.approx(row["share"], rel=1e-9)
        assert hot_b[name]["total_ns"] == 2 * row["total_ns"]
    assert m.compare(base[AMD], new, "scale2", k=2) == []


def test_second_rank_doubles_sums_not_the_wall_span(base, tmp_path):
    folder = m.dup_rank(m.load(AMD), tmp_path / "ranks")
    new = report(folder)
    assert new["sources"][0]["summary"]["ranks"] == [0, 1]
    assert m.check_dup(base[AMD], new) == []


def test_no_host_events_keeps_gpu_figures_and_leaves_launches_unknown(base, tmp_path):
    doc = m.no_host(m.load(NV))
    assert not any(e.get("cat") in ("cpu_op", "cuda_runtime") for e in m.events(doc))
    new = report(_write(tmp_path, doc))
    assert m.check_no_host(base[NV], new) == []
    assert new["sources"][0]["summary"]["cpu_op_count"] == 0


NSYS = Path(__file__).resolve().parent / "data" / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"
RPD = Path(__file__).resolve().parent / "data" / "rocprof" / "rpd_matmul" / "matmul_result.rpd"


@pytest.mark.parametrize("src", [NSYS, RPD], ids=["nsys", "rocpd"])
def test_database_clock_moved_to_the_epoch_and_rows_reversed_change_no_figure(tmp_path, src):
    """Every time column moved so the earliest start is 1e18 ns (Nsight Systems' and rocpd's ns are int64: exact),
    then every table's rows written in reverse order: the report is the original's, absolute times excepted."""
    import sqlite3

    base_rep = report(src)
    moved = tmp_path / f"moved{src.suffix}"
    m.sql_shift(src, moved, 10 ** 18)
    con = sqlite3.connect(moved)
    table = "CUPTI_ACTIVITY_KIND_KERNEL" if src.suffix == ".sqlite" else "rocpd_op"
    assert con.execute(f'select min(start) from "{table}"').fetchone()[0] >= 10 ** 18
    con.close()
    assert m.compare(base_rep, report(moved), "shift") == []
    flipped = tmp_path / f"flipped{src.suffix}"
    m.sql_reverse(moved, flipped)
    assert m.compare(base_rep, report(flipped), "shift") == []


V3 = Path(__file__).resolve().parent / "data" / "rocprof" / "v3_csv_sdk_docs"


def test_rocprofv3_csv_folder_moved_to_the_epoch_and_rows_reversed_change_no_figure(tmp_path):
    """rocprofv3's Start_Timestamp / End_Timestamp (int ns) moved so the earliest is 1e18 ns, and every CSV's rows
    written in reverse order: the report is the original's, absolute times excepted."""
    import csv

    base_rep = report(V3)
    moved = m.csv_transform(V3, tmp_path / "moved", 10 ** 18, reverse=False)
    with open(moved / "kernel_trace.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert min(int(r["Start_Timestamp"]) for r in rows) >= 10 ** 18
    assert m.compare(base_rep, report(moved), "shift") == []
    flipped = m.csv_transform(V3, tmp_path / "flipped", None, reverse=True)
    assert m.compare(base_rep, report(flipped), "shift") == []
