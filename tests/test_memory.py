"""Memory timeline: the Kineto collector keeps ``[memory]`` instant events; the analyzer finds the peak and the op
and annotation running at it (expected values read from the files with json, or written by the test)."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from gpulens.collectors import collect
from gpulens.report import analyze
from tests.conftest import KINETO
from tests.dig_traces import KTrace

BERT = KINETO / "tracelens_h100_bert-small.json.gz"


def test_collector_keeps_memory_events_on_the_timeline_clock():
    doc = json.loads(gzip.decompress(BERT.read_bytes()))
    mem = [e for e in doc["traceEvents"] if e.get("name") == "[memory]"]
    tl = collect(BERT)
    m = tl.tables["memory"]
    assert len(m) == len(mem) == 236
    assert m["allocated_bytes"].tolist() == [e["args"]["Total Allocated"] for e in mem]
    assert m["delta_bytes"].tolist() == [e["args"]["Bytes"] for e in mem]
    # same clock as the events: the offset between the first memory event and the first kernel is kept
    k0 = min(e["ts"] for e in doc["traceEvents"] if e.get("cat") == "kernel")
    first_kernel = int(tl.events.loc[tl.events["kind"] == "kernel", "start_ns"].min())
    assert int(m["time_ns"].iloc[0]) - first_kernel == pytest.approx((mem[0]["ts"] - k0) * 1000, abs=1)


def test_bert_peak_matches_the_file():
    doc = json.loads(gzip.decompress(BERT.read_bytes()))
    gpu = [e["args"] for e in doc["traceEvents"] if e.get("name") == "[memory]" and e["args"]["Device Type"] == 1]
    r = analyze([BERT], only=["memory_timeline"]).sources[0].results["memory_timeline"]
    row = r.table.set_index("device").loc["cuda:0"]
    assert row["peak_allocated_bytes"] == max(a["Total Allocated"] for a in gpu)
    assert row["peak_reserved_bytes"] == max(a["Total Reserved"] for a in gpu)
    assert row["final_allocated_bytes"] == gpu[-1]["Total Allocated"] and row["events"] == len(gpu)


def test_peak_and_where_on_a_hand_made_trace(tmp_path):
    t = KTrace()
    t.annotation("forward", 100, 100)
    t.op("aten::matmul", 120, 30)
    t.op("aten::relu", 160, 10)
    mib = 1 << 20
    t.memory(110, 10 * mib, 20 * mib, 10 * mib)
    t.memory(130, 74 * mib, 80 * mib, 64 * mib)  # peak, inside forward / aten::matmul
    t.memory(165, 42 * mib, 80 * mib, -32 * mib)
    t.memory(300, 0, 80 * mib, -42 * mib)
    e = t.op("aten::add", 400, 5)
    t.launch(e, 401, [("k", 500, 5)])
    res = analyze([t.write(tmp_path / "m.json")], only=["memory_timeline", "memory_series"]).sources[0].results
    row = res["memory_timeline"].table.iloc[0]
    assert row["device"] == "cuda:0" and row["peak_allocated_bytes"] == 74 * mib
    # from the profiled window's start (the forward annotation at 100 µs, the first event), as --window counts
    assert row["peak_offset_ns"] == 30_000 and row["peak_op"] == "aten::matmul"
    assert row["peak_annotation"] == "forward" and row["final_allocated_bytes"] == 0
    assert row["allocated_bytes_total"] == 74 * mib and row["peak_reserved_bytes"] == 80 * mib
    s = res["memory_series"].table
    # the first allocator event at 110 µs: 10 µs into the window, in the bin that holds it
    width = res["memory_series"].summary["bin_ns"]
    assert s["allocated_bytes"].max() == 74 * mib and 10_000 - width < s["offset_ns"].min() <= 10_000


def test_trace_without_memory_events_is_skipped_with_reason():
    r = analyze([KINETO / "hta_alexnet_a100.json.gz"], only=["memory_timeline"]).sources[0].results
    assert "profile_memory" in r["memory_timeline"].skipped_reason


def test_allocator_events_without_totals_give_unknown_peak_not_a_crash(tmp_path):
    """Older PyTorch (tb_plugin's 2021 resnet50 samples) wrote ``[memory]`` events with ``Bytes`` only: the peak is
    unknown, the sum of allocations is still the sum of the positive ``Bytes`` written here."""
    t = KTrace()
    e = t.op("aten::add", 100, 50)
    t.launch(e, 101, [("k", 200, 5)])
    t.memory(110, 0, 0, 1000)
    t.memory(120, 0, 0, 3000)
    t.memory(130, 0, 0, -1000)
    for ev in t.ev:
        if ev["name"] == "[memory]":
            del ev["args"]["Total Allocated"], ev["args"]["Total Reserved"]
    res = analyze([t.write(tmp_path / "old.json")]).sources[0].results
    r = res["memory_timeline"]
    row = r.table.iloc[0]
    assert row["events"] == 3 and row["allocated_bytes_total"] == 1000 + 3000
    assert pd.isna(row["peak_allocated_bytes"]) and pd.isna(row["peak_reserved_bytes"])
    assert r.summary["peak_allocated_bytes"] is None and "1 of 1 device" in r.summary["peak_unknown_reason"]
    assert "no allocated/reserved totals" in res["memory_series"].skipped_reason
