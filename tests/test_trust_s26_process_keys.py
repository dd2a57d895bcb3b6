"""AMD sources that hold more than one process: dispatch / event ids restart in every process, so a join by id
alone combines the counters of different kernels. Each join keys on the process (``Process_Id``, rocpd ``guid``,
the rocprofv3 JSON tool entry) and never attaches a counter to a guess.

Inputs are built from the rocprofiler-sdk docs' own ``counter_collection.csv`` (7 dispatches, ``SQ_WAVES`` = 16,384
each, Process_Id 19396; ../shared/traces/SOURCES.md): a second process is the same rows with Process_Id 20000 and
SQ_WAVES 100. Hand figures: 7 + 7 = 14 dispatches, each with its own SQ_WAVES: 16,384 ×7 and 100 ×7 — never
16,484 (the two processes' Dispatch_Id 1 summed).
"""

from __future__ import annotations

import gzip
import json
import sqlite3

from gpulens.collectors import collect
from tests.conftest import shared_trace
from tests.test_rocpd import U, build_layout_a
from tests.test_rocprofv3 import _tiny_v3_json

DOCS = shared_trace("rocprof/v3_csv_sdk_docs")


def _two_process_counters(dst):
    lines = (DOCS / "counter_collection.csv").read_text().splitlines()
    header, rows = lines[0], [r for r in lines[1:] if r.strip()]
    other = [r.replace(",19396,19396,", ",20000,20000,").replace('"SQ_WAVES",16384', '"SQ_WAVES",100') for r in rows]
    assert all(",20000,20000," in r and r.endswith(",100") for r in other)  # the edit hit every row
    dst.write_text("\n".join([header, *rows, *other]) + "\n")
    return dst, len(rows)


def test_counter_rows_of_two_processes_are_two_dispatches_each(tmp_path):
    p, n = _two_process_counters(tmp_path / "counter_collection.csv")
    tl = collect(p)
    un = tl.tables["unattached_counters"]
    assert len(tl.rejected) == 2 * n == 14
    waves = un[un["metric"] == "SQ_WAVES"]
    assert len(waves) == 14
    assert sorted(waves["value"].tolist()) == [100.0] * 7 + [16384.0] * 7  # never 16,484 (both summed)


def test_counters_of_two_processes_beside_a_kernel_trace_without_process_are_not_guessed(tmp_path):
    _two_process_counters(tmp_path / "counter_collection.csv")
    (tmp_path / "kernel_trace.csv").write_bytes((DOCS / "kernel_trace.csv").read_bytes())
    tl = collect(tmp_path)
    assert len(tl.of_kind("kernel")) == 7
    assert "SQ_WAVES" not in set(tl.counters["metric"])  # no kernel got a counter of a process it may not be
    assert len(tl.tables["unattached_counters"].query("metric == 'SQ_WAVES'")) == 14
    w = [x for x in tl.meta.warnings if "not attached" in x]
    assert w and "14 of 14" in w[0] and "19396, 20000" in w[0]


def test_one_process_counters_still_attach_to_their_kernels(tmp_path):
    """Unchanged: one process's counters join its kernel trace by (Dispatch_Id, agent)."""
    for f in ("counter_collection.csv", "kernel_trace.csv"):
        (tmp_path / f).write_bytes((DOCS / f).read_bytes())
    tl = collect(tmp_path)
    k = tl.of_kind("kernel")
    waves = tl.counters[tl.counters["metric"] == "SQ_WAVES"]
    assert len(k) == 7 and len(waves) == 7 and set(waves["event_id"]) == set(k["event_id"])
    assert set(waves["value"]) == {16384.0}


def _merged_rocpd(path):
    """Layout A of tests/test_rocpd twice in one database (``rocpd merge``): the second run under another table
    suffix and guid, its SQ_WAVES × 10. Both runs number their events 100, 101."""
    build_layout_a(path)
    con = sqlite3.connect(path)
    other = "_aa11bb22"
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'") if r[0].endswith(U)]
    for t in names:
        new = t[: -len(U)] + other
        con.execute(f"CREATE TABLE {new} AS SELECT * FROM {t}")
        if "guid" in [r[1] for r in con.execute(f"PRAGMA table_info({new})")]:
            con.execute(f"UPDATE {new} SET guid = 'g2'")
    con.execute(f"UPDATE rocpd_pmc_event{other} SET value = value * 10")
    con.commit()
    con.close()


def test_rocpd_counters_of_two_runs_with_the_same_event_ids_stay_apart(tmp_path):
    p = tmp_path / "merged.db"
    _merged_rocpd(p)
    tl = collect(p)
    k = tl.of_kind("kernel")
    assert len(k) == 4
    c = tl.counters[tl.counters["metric"] == "SQ_WAVES"].merge(k[["event_id", "name"]], on="event_id")
    # run 1: gemm 1000 + 24 = 1,024, add 16; run 2: ×10 → 10,240 and 160 (test_rocpd's figures)
    got = sorted(zip(c["name"].astype(str), c["value"]))
    assert got == [("add(float*)", 16.0), ("add(float*)", 160.0), ("gemm(float*)", 1024.0),
                   ("gemm(float*)", 10240.0)]


def _two_tool_json(path):
    _tiny_v3_json(path)
    with gzip.open(path, "rt") as fh:
        doc = json.load(fh)
    second = json.loads(json.dumps(doc["rocprofiler-sdk-tool"][0]))
    second["metadata"]["pid"] = 78
    second["callback_records"]["counter_collection"][0]["records"] = [{"counter_id": {"handle": 9}, "value": 50.0}]
    doc["rocprofiler-sdk-tool"].append(second)
    with gzip.open(path, "wt") as fh:
        json.dump(doc, fh)


def test_rocprofv3_json_two_processes_are_two_ranks_with_their_own_counters(tmp_path):
    """Two tool entries (pids 77, 78), each with dispatch ids 1, 2 at the same times on the same GPU: one rank per
    process (as the rocpd case T12), and SQ_WAVES 3 + 1 = 4 on pid 77's second dispatch, 50 on pid 78's."""
    p = tmp_path / "results.json.gz"
    _two_tool_json(p)
    tl = collect(p)
    k = tl.of_kind("kernel")
    assert len(k) == 4 and sorted(k["rank"].tolist()) == [0, 0, 1, 1]
    assert sorted(zip(k["rank"], k["pid"])) == [(0, 77), (0, 77), (1, 78), (1, 78)]
    c = tl.counters[tl.counters["metric"] == "SQ_WAVES"].merge(k[["event_id", "pid", "dur_ns"]], on="event_id")
    assert sorted(zip(c["pid"], c["dur_ns"], c["value"])) == [(77, 20, 4.0), (78, 20, 50.0)]
    assert any("pid 77" in w and "pid 78" in w for w in tl.meta.warnings)


def test_rocprofv3_json_counter_record_of_no_dispatch_is_counted(tmp_path):
    p = tmp_path / "results.json.gz"
    _tiny_v3_json(p)
    with gzip.open(p, "rt") as fh:
        doc = json.load(fh)
    rec = json.loads(json.dumps(doc["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"][0]))
    rec["dispatch_data"]["dispatch_info"]["dispatch_id"] = 99  # no kernel_dispatch record has id 99
    doc["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"].append(rec)
    with gzip.open(p, "wt") as fh:
        json.dump(doc, fh)
    tl = collect(p)
    assert any("1 counter record" in w and "no kernel dispatch" in w for w in tl.meta.warnings)
