"""An exact duplicate GPU row (a kernel written twice by the capture or export) counts once, in every database.

Kind: a ``CUPTI_ACTIVITY_KIND_KERNEL`` row present twice in an nsys export, or a ``rocpd_kernel_dispatch`` row
present twice in a rocpd database (or a rocprofv3 CSV line), was a second launch: 16 kernels of the real
streamSimple-like export read as 19 and 66.7 µs as 79.5 µs. The rule, one helper for all
(:func:`gpulens.collectors._duplicates.drop_exact_duplicates`): rows equal in every field (kind, name, device,
stream, start, end, correlation id, launch configuration, counters) are one kernel, dropped with a warning that
counts them; kernels that merely share a name are all kept. Expected values are the files' own rows counted by hand.
"""

from __future__ import annotations

import csv
import shutil
import sqlite3
from pathlib import Path

from gpulens.collectors import collect
from tests.test_rocpd import build_layout_b

DATA = Path(__file__).parent / "data"
NSYS = DATA / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"
V3 = DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"


def _kernels(tl):
    return tl.events[tl.events["kind"].astype(str).isin(["kernel", "comm", "memcpy", "memset"])]


def test_nsys_kernel_rows_exported_twice_count_once(tmp_path):
    p = tmp_path / "dup.sqlite"
    shutil.copy(NSYS, p)
    p.chmod(0o644)
    con = sqlite3.connect(p)
    t = "CUPTI_ACTIVITY_KIND_KERNEL"
    con.execute(f"INSERT INTO {t} SELECT * FROM {t} ORDER BY start LIMIT 3")
    con.commit()
    con.close()
    tl = collect(p)
    assert len(collect(NSYS).events) == len(tl.events)  # the 3 copies are gone, nothing else
    kern = tl.events[tl.events["kind"].astype(str).isin(["kernel", "comm"])]
    base = collect(NSYS).events
    assert len(kern) == len(base[base["kind"].astype(str).isin(["kernel", "comm"])])
    assert int(_kernels(tl)["dur_ns"].sum()) == int(_kernels(collect(NSYS))["dur_ns"].sum())
    assert any("3 exact duplicate GPU rows dropped" in w for w in tl.meta.warnings)


def test_rocpd_dispatch_recorded_twice_counts_once(tmp_path):
    p = tmp_path / "results.db"
    build_layout_b(p)  # gemm 5000–9000 ns and add 9500–9800 ns on queue 3, counters by event_id 100 / 101
    con = sqlite3.connect(p)
    con.execute("INSERT INTO rocpd_kernel_dispatch SELECT 3, guid, nid, pid, tid, agent_id, kernel_id, dispatch_id, "
                "queue_id, stream_id, start, \"end\", private_segment_size, group_segment_size, workgroup_size_x, "
                "workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id "
                "FROM rocpd_kernel_dispatch WHERE id = 1")
    con.commit()
    con.close()
    tl = collect(p)
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert k["name"].astype(str).tolist() == ["gemm(float*)", "add(float*)"]
    assert int(k["dur_ns"].sum()) == 4000 + 300
    gemm = int(k["event_id"].iloc[0])
    c = tl.counters
    assert c[(c["event_id"] == gemm) & (c["metric"] == "SQ_WAVES")]["value"].tolist() == [1024.0]
    assert any("1 exact duplicate GPU row dropped" in w for w in tl.meta.warnings)


def test_rocprofv3_csv_line_twice_counts_once_and_same_name_kernels_stay(tmp_path):
    rows = list(csv.reader(V3.open()))
    body = [r for r in rows[1:] if r]
    p = tmp_path / "kernel_trace.csv"
    with p.open("w", newline="") as f:
        csv.writer(f).writerows([rows[0], *body, body[0]])  # the first dispatch written again
    tl = collect(p)
    assert len(tl.events) == len(body) == 7  # the file's 7 dispatches, each once
    names = [r[rows[0].index("Kernel_Name")] for r in body]
    assert len(set(names)) < len(names)  # several launches share a name: all kept
    assert any("1 exact duplicate GPU row dropped" in w for w in tl.meta.warnings)
    assert not any("duplicate" in w for w in collect(V3).meta.warnings)
