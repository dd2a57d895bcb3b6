"""Regression tests of the fault kinds session 37's fuzzing (tests/fuzz_s37.py) found, one or more per kind, on
small generated inputs. Expected values come from the inputs themselves (rows written, ops nested by hand), never
from gpulens's output.

Kinds:
1. ``diff`` and ``gate`` told to write two outputs to one path (``--json d --markdown d``) wrote both, the second
   over the first, and exited 0: the JSON the user asked for was lost without a word (``analyze`` refused it);
   ``analyze --json o --csv o`` wrote the report, then failed on the tables folder (exit 2 after a write);
2. a chain of equal host ops nested in each other (100,000 identical ``cpu_op`` events: each one's interval holds
   the next) made the op tree's inclusive sums scan every op once per nesting level — n × depth, a hang;
3. ids and sizes written as a number's text or as a fraction were read wrong without a word: Kineto ``"1e3"`` as
   id 3, ``"7.5"`` as 5, ``"0x10"`` as 10, ``5e-324`` as 0; rocprofv3 CSV ``Agent_Id`` ``1e3`` as agent 3 and a
   fractional workgroup size / queue / correlation id rounded (7.5 → 8), a Kineto grid ``[7.5, 1, 1]`` cut to 7 —
   now read whole, or unknown;
   (the same flood of 300,000 rows of one start and duration took 60 s in the exact-duplicate check: its counter
   signatures are now built without a Python call per row — still one text per row, tested below);
4. a Kineto trace recording a rank outside its world (``rank 5`` of ``world_size 2``, a negative rank) was shown
   as that rank without a word.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpulens.cli import main
from gpulens.errors import EXIT_USAGE

DATA = Path(__file__).resolve().parent / "data"
B13 = DATA / "cases" / "B13.json"  # README: 4 kernels, GPU busy 65 µs


def _one_error_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and err.startswith("gpulens: error: "), err
    for w in words:
        assert w in err, err
    assert "internal error" not in err and "Traceback" not in err


# -------------------------------------------------------------------------------- 1. two outputs on one path
@pytest.mark.parametrize("cmd", ["diff", "gate"])
def test_two_outputs_on_one_path_are_refused_before_anything_is_written(tmp_path, capsys, cmd):
    out = tmp_path / "out"
    if cmd == "diff":
        args = ["diff", str(B13), str(B13), "-q", "--json", str(out), "--markdown", str(tmp_path / "." / "out")]
        words = ("JSON diff", "Markdown diff")
    else:
        rep = tmp_path / "rep.json"
        assert main(["analyze", str(B13), "-q", "--no-cache", "--json", str(rep)]) == 0
        capsys.readouterr()
        args = ["gate", str(rep), "-b", str(rep), "-q", "--markdown", str(out), "--junit", str(out)]
        words = ("Markdown summary", "JUnit XML")
    assert main(args) == EXIT_USAGE
    _one_error_line(capsys.readouterr().err, str(out), *words)
    assert not out.exists()  # refused before the comparison: nothing half written


def test_a_report_and_a_tables_folder_on_one_path_are_refused_first(tmp_path, capsys):
    out = tmp_path / "o"
    assert main(["analyze", str(B13), "-q", "--no-cache", "--json", str(out), "--csv", str(out)]) == EXIT_USAGE
    _one_error_line(capsys.readouterr().err, str(out), "JSON report", "CSV tables folder")
    assert not out.exists()  # nothing written: the report was written before the export failed


def test_diff_with_a_file_per_output_writes_each(tmp_path, capsys):
    j, m = tmp_path / "d.json", tmp_path / "d.md"
    assert main(["diff", str(B13), str(B13), "-q", "--json", str(j), "--markdown", str(m)]) == 0
    doc = json.loads(j.read_text())  # the JSON is JSON (not the Markdown written over it)
    assert isinstance(doc, dict)
    assert m.read_text().lstrip().startswith("#")


# -------------------------------------------------------------------------------- 2. equal ops nested n deep
def test_inclusive_sums_of_a_chain_as_deep_as_it_is_long():
    from gpulens.analyzers._optree import inclusive_many

    n = 150_000  # op i is the parent of op i + 1: depth n - 1 (100,000 equal cpu_op events nest so)
    ids = np.arange(n, dtype="int64")
    parent = pd.arrays.IntegerArray(ids - 1, mask=ids == 0)  # op 0 is the root
    ops = pd.DataFrame({"event_id": ids, "parent_event_id": parent, "depth": ids.copy()})
    own = pd.Series(np.ones(n), index=ids)  # each op launched 1 ns of GPU work itself
    odd = pd.Series([5.0], index=[n - 1])  # only the deepest op has a value
    t = time.process_time()
    got, deep = inclusive_many(ops, [own, odd])
    took = time.process_time() - t
    # op i holds itself and every op below it: n - i ns; the deepest op's 5 reaches every ancestor
    assert got.loc[0] == n and got.loc[n // 2] == n - n // 2 and got.loc[n - 1] == 1
    assert (deep == 5.0).all()
    assert took < 8, f"{took:.1f} s CPU for a {n}-deep chain (one scan of every op per level: ~25 s, ~1 s now)"


def test_inclusive_sums_of_a_tree_with_siblings():
    from gpulens.analyzers._optree import inclusive_many

    # 0 ─┬─ 1 ── 3
    #    └─ 2      4 (a root of its own)
    ops = pd.DataFrame({"event_id": np.arange(5, dtype="int64"),
                        "parent_event_id": pd.array([pd.NA, 0, 0, 1, pd.NA], dtype="Int64"),
                        "depth": np.array([0, 1, 1, 2, 0])})
    (got,) = inclusive_many(ops, [pd.Series([1.0, 10.0, 100.0, 1000.0, 7.0], index=range(5))])
    assert got.tolist() == [1111.0, 1010.0, 100.0, 1000.0, 7.0]


# -------------------------------------------------------------------------------- 3. ids written as numbers' text
@pytest.mark.parametrize("value, want", [
    ("1e3", 1000),  # read by its last digits: id 3
    ("7.5", None),  # a fraction is no id (was 5)
    ("0x10", 16),  # hex (was 10)
    (" 12 ", 12), ("stream 7", 7), ("cuda:3", 3), ("-2", -2),
    (7.0, 7), (7.9, None),  # a fraction (was cut to 7)
    (5e-324, None),  # the smallest subnormal (was 0: a real id)
    ("nan", None), ("inf", None), (float("inf"), None), (2 ** 63, None), (True, None),
])
def test_id_values_are_read_whole_or_unknown(value, want):
    from gpulens.collectors._kineto_columns import int_array, int_or_none

    assert int_or_none(value) == want
    bad: list = []
    vals, ok = int_array([1, value], bad)  # the column path (with a plain int beside it)
    assert vals[0] == 1 and bool(ok[1]) == (want is not None)
    if want is not None:
        assert vals[1] == want
    numeric = isinstance(value, (int, float)) or any(c.isdigit() for c in str(value))
    assert sum(bad) == (1 if want is None and numeric else 0)


def test_kineto_ids_of_odd_spellings_in_a_trace(tmp_path):
    from gpulens.collectors import collect

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000 + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": s, "correlation": 100 + i}}
          for i, s in enumerate(["@1e3@", "@7.5@", "@5e-324@", "@7@"])]
    text = json.dumps({"traceEvents": ev})
    for mark, raw in (('"@1e3@"', '"1e3"'), ('"@7.5@"', "7.5"), ('"@5e-324@"', "5e-324"), ('"@7@"', "7")):
        text = text.replace(mark, raw)
    p = tmp_path / "ids.pt.trace.json"
    p.write_text(text)
    tl = collect(p, cache=False)
    k = tl.events.set_index(tl.events["name"].astype(str))
    assert int(k.loc["k0", "stream_id"]) == 1000 and int(k.loc["k3", "stream_id"]) == 7
    # 7.5 and 5e-324 are no stream: unknown (the tid then names the stream: 7), and counted in one warning
    warned = [w for w in tl.meta.warnings if "no 64-bit integer" in w]
    assert len(warned) == 1 and "2 id or size values" in warned[0] and "stream ×2" in warned[0], tl.meta.warnings


_V3 = ("Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,"
       "Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
       "Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n")


@pytest.mark.parametrize("agent, queue, corr, wg, want", [
    # (device_id, stream_id, correlation_id, block_x) by hand from the cells
    ("1e3", "1e3", "1e3", "1e3", (1000, 1000, 1000, 1000)),  # agent was 3
    ("Agent 2", "2", "2", "64", (2, 2, 2, 64)),  # a label's number
    ("0x10", "7.5", "7.5", "7.5", (16, None, None, None)),  # agent was 10; 7.5 was rounded to 8
])
def test_rocprofv3_csv_ids_are_read_whole_or_unknown(tmp_path, agent, queue, corr, wg, want):
    from gpulens.collectors import collect

    p = tmp_path / "kernel_trace.csv"
    p.write_text(_V3 + f"KERNEL_DISPATCH,{agent},{queue},7,k,{corr},1000,1500,0,0,{wg},1,1,1024,1,1\n"
                 "KERNEL_DISPATCH,1,1,7,k,9,2000,2500,0,0,64,1,1,1024,1,1\n")
    ev = collect(p, cache=False).events.sort_values("start_ns")
    first = ev.iloc[0]
    got = tuple(None if pd.isna(first[c]) else int(first[c])
                for c in ("device_id", "stream_id", "correlation_id", "block_x"))
    assert got == want
    assert int(ev.iloc[1]["block_x"]) == 64 and int(ev.iloc[1]["correlation_id"]) == 9  # the plain row unchanged


# -------------------------------------------------------------------------------- 4. a rank outside its world
def _kineto_rank(path: Path, rank, world) -> None:
    doc = json.loads(B13.read_text())
    doc["distributedInfo"] = {"rank": rank, "world_size": world, "backend": "nccl"}
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("rank, world, words", [
    (5, 2, "records rank 5 of a world of 2 (ranks 0–1)"),
    (2, 2, "records rank 2 of a world of 2 (ranks 0–1)"),  # the first rank past the end
    (-3, 4, "records rank -3 of a world of 4"),
])
def test_rank_outside_the_world_is_said(tmp_path, rank, world, words):
    from gpulens.collectors import collect

    d = tmp_path / "run"
    d.mkdir()
    _kineto_rank(d / "a.pt.trace.json", 0, world)
    _kineto_rank(d / "b.pt.trace.json", rank, world)
    tl = collect(d, cache=False)
    said = [w for w in tl.meta.warnings if "distributedInfo records rank" in w]
    assert len(said) == 1 and words in said[0] and "b.pt.trace.json" in said[0], tl.meta.warnings
    assert sorted(int(r) for r in tl.events["rank"].unique()) == sorted([0, rank])  # kept as recorded


def test_ranks_inside_the_world_say_nothing(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "r1.pt.trace.json"
    _kineto_rank(p, 1, 2)
    tl = collect(p, cache=False)
    assert not [w for w in tl.meta.warnings if "distributedInfo records rank" in w]
    assert set(int(r) for r in tl.events["rank"].unique()) == {1}


# -------------------------------------------------------------------------------- 2b. duplicate rows' counters
def test_exact_duplicates_compare_counters_in_any_order():
    from gpulens.collectors._duplicates import drop_exact_duplicates

    ev = pd.DataFrame({"event_id": np.arange(4, dtype="int64"), "kind": ["kernel"] * 4, "name": ["k"] * 4,
                       "start_ns": [100, 100, 100, 100], "dur_ns": [10, 10, 10, 10], "device_id": [0] * 4,
                       "stream_id": [7] * 4})
    # row 1 = row 0 with its counters listed in another order (a duplicate); row 2 differs in one value; row 3
    # has no counter at all (not the same as row 0)
    counters = pd.DataFrame({"event_id": [0, 0, 1, 1, 2, 2], "metric": ["a", "b", "b", "a", "a", "b"],
                             "unit": [""] * 6, "value": [1.0, 2.0, 2.0, 1.0, 1.0, 3.0]})
    out, cnt, warning = drop_exact_duplicates(ev, counters, "x.csv")
    assert len(out) == 3 and out["event_id"].tolist() == [0, 1, 2]  # renumbered
    assert "1 exact duplicate GPU row dropped" in warning
    # the counters of the kept rows follow them: old row 2 (a=1, b=3) is now row 1
    assert sorted(cnt[cnt["event_id"] == 1]["value"].tolist()) == [1.0, 3.0]
    assert len(cnt) == 4


def test_kineto_grid_and_block_fractions_are_unknown_not_cut(tmp_path):
    from gpulens.collectors import collect

    ev = [{"ph": "X", "cat": "kernel", "name": "k0", "pid": 0, "tid": 7, "ts": 1000, "dur": 5,
           "args": {"device": 0, "stream": 7, "grid": [7.5, 1, 1], "block": [128, 1, 1]}},  # grid x was read as 7
          {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 1010, "dur": 5,
           "args": {"device": 0, "stream": 7, "grid": [4, 2, 1], "block": [256.0, 1, 1]}}]  # 256.0 is 256
    p = tmp_path / "grid.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    k = collect(p, cache=False).events.set_index("name")
    assert pd.isna(k.loc["k0", "grid_x"]) and int(k.loc["k0", "block_x"]) == 128
    assert (int(k.loc["k1", "grid_x"]), int(k.loc["k1", "grid_y"]), int(k.loc["k1", "block_x"])) == (4, 2, 256)
