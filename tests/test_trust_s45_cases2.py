"""Input layouts and wording left over by the first-wave cases helper (session 45, second wave).

1. rocprofv3's nested output layouts (rocprofiler-sdk ``config.hpp``: output file ``%hostname%/<pid>`` below the
   output path ``-d``, both with placeholders; the MPI example of its I/O options page ``-d %h.%p.%rank%``) and
   rocprof v1's ``-d DIR`` (``DIR/rpl_data_<time>_<pid>/input_results_<time>/``, ``rpl_run.sh``): a folder two or
   three levels above the files was "directory holds no trace file".
2. ``nsys stats --timeunit usec|msec|sec`` prints every time with 3 decimals: a short kernel's Avg is ``0.000``; that
   row was "impossible duration statistics". The cause — the printed precision — is now said.
3. A rejected rocpd dispatch without an event id was said to keep "4 counter values": they are its launch resources
   (VGPRs, SGPRs, scratch), and the counters of ``rocpd_pmc_event`` it lost went unsaid.
4. A Kineto ``B``/``E`` pair at ``ts`` 0 was "1 begin never ended, 1 end without begin"; it is one slice with an
   unset timestamp.

Every input is built here; expected values are the files' own numbers, worked out in the comments.
"""

from __future__ import annotations

import math
import os
import sqlite3
from pathlib import Path

import pytest

from gpulens.collectors import collect
from gpulens.errors import GpulensError
from tests.test_rocpd import build_layout_b
from tests.test_rocprof_v1_text import _write as write_v1_text
from tests.test_trust_s29_left_run_layouts import _CSV, _json
from tests.test_trust_s45_cases import _rocpd_on

# _CSV: two dispatches of k_one, [100, 250] and [300, 320] ns → durations 150 and 20 ns (one process).
# build_layout_b: gemm [5000, 9000] and add [9500, 9800] ns → 4000 and 300 ns (one process).


def _csv(f: Path) -> None:
    f.write_text(_CSV)


def _kernels(tl) -> list[int]:
    return sorted(tl.of_kind("kernel")["dur_ns"].tolist())


def _place(root: Path, files: list[tuple[str, object]]) -> Path:
    for rel, make in files:
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        make(f)
    return root


# -- 1. nested layouts -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rel, make, want", [
    ("node1/77/77_kernel_trace.csv", _csv, [20, 150]),         # -d %h/%p -o %p
    ("node1/77/node1/77_kernel_trace.csv", _csv, [20, 150]),   # -d %h/%p (default -o %hostname%/<pid>)
    ("node1.77.0/node1/77_kernel_trace.csv", _csv, [20, 150]),  # -d %h.%p.%rank% (the MPI example)
    ("node1/77/77_results.db", build_layout_b, [300, 4000]),
    ("node1/77/77_results.json", _json, [20, 150]),
])
def test_nested_rocprofv3_layouts_are_read(tmp_path, rel, make, want):
    tl = collect(_place(tmp_path / "out", [(rel, make)]))
    assert _kernels(tl) == want
    assert sorted(tl.ranks) == [0]


def test_several_pid_folders_are_several_processes(tmp_path):
    """host/77/… and host/78/…: two processes, each its own rank, every kernel once (2 × [20, 150])."""
    root = _place(tmp_path / "out", [("node1/77/77_kernel_trace.csv", _csv), ("node1/78/78_kernel_trace.csv", _csv)])
    tl = collect(root)
    assert _kernels(tl) == [20, 20, 150, 150]
    assert sorted(tl.ranks) == [0, 1]
    assert not any("host" in w and "clock" in w for w in tl.meta.warnings)  # one host folder: nothing to say


def test_mpi_rank_folders_are_one_rank_each(tmp_path):
    root = _place(tmp_path / "out", [("n1.77.0/n1/77_kernel_trace.csv", _csv), ("n1.78.1/n1/78_kernel_trace.csv", _csv)])
    tl = collect(root)
    assert _kernels(tl) == [20, 20, 150, 150] and sorted(tl.ranks) == [0, 1]
    assert not any("monotonic clock" in w for w in tl.meta.warnings)  # both under n1/: one host


def test_two_host_folders_of_rocpd_databases_are_said_not_placeable(tmp_path):
    """rocpd records its host: node01/4242/… and node02/4243/… are two hosts, said as the flat layout says it."""
    root = tmp_path / "out"
    for host, pid in (("node01", 4242), ("node02", 4243)):
        (root / host / str(pid)).mkdir(parents=True)
        _rocpd_on(root / host / str(pid) / f"{pid}_results.db", host)
    tl = collect(root)
    assert _kernels(tl) == [300, 300, 4000, 4000] and sorted(tl.ranks) == [0, 1]
    said = [w for w in tl.meta.warnings if "monotonic clock" in w]
    assert len(said) == 1 and "2 hosts — node01 (1 file), node02 (1 file)" in said[0]


@pytest.mark.parametrize("nested", [True, False])
def test_two_host_folders_of_csv_files_are_said_conditionally(tmp_path, nested):
    """rocprofv3 CSV records no host name: two host folders (one level or nested) are named, with an 'if'."""
    sub = "{h}/{p}/{p}_kernel_trace.csv" if nested else "{h}/{p}_kernel_trace.csv"
    root = _place(tmp_path / "out", [(sub.format(h="nodeA", p=77), _csv), (sub.format(h="nodeB", p=78), _csv)])
    tl = collect(root)
    assert _kernels(tl) == [20, 20, 150, 150]
    said = [w for w in tl.meta.warnings if "monotonic clock" in w]
    assert len(said) == 1 and "nodeA/ (1 file), nodeB/ (1 file)" in said[0] and "if these are different hosts" in said[0]


def test_nested_csv_and_json_of_one_run_read_once_and_the_json_named(tmp_path):
    """node1/77/ holding the run as CSV and as JSON (--output-format csv json): the CSV read once ([20, 150]) and
    the JSON named as the same run, as in a flat folder (tests/test_trust_s29_left_run_layouts.py)."""
    root = _place(tmp_path / "out", [("node1/77/77_kernel_trace.csv", _csv), ("node1/77/77_results.json", _json)])
    tl = collect(root)
    assert _kernels(tl) == [20, 150]
    said = [w for w in tl.meta.warnings if "77_results.json" in w]
    assert len(said) == 1 and "77_kernel_trace.csv" in said[0] and "twice" in said[0]


def test_rocprof_v1_data_directory_is_read(tmp_path):
    """rocprof -d DIR: DIR/rpl_data_<time>_<pid>/input_results_<time>/894_hcc_ops_trace.txt. The ops records of
    tests/test_rocprof_v1_text.py hold one kernel, 5000:9000 → 4000 ns."""
    root = tmp_path / "DIR"
    write_v1_text(root / "rpl_data_240101_120000_894" / "input_results_240101_120000")
    (root / "rpl_data_240101_120000_894" / "input.xml").write_text("<metric></metric>\n")
    tl = collect(root)
    assert _kernels(tl) == [4000]


def test_search_depth_is_bounded_and_loops_are_not_followed(tmp_path):
    from gpulens.collectors._nested import MAX_DEPTH

    root = tmp_path / "out"
    # the file lies MAX_DEPTH + 2 folders down: past the last folder searched and the subfolders its CSV set may use
    deep = root.joinpath(*[f"l{i}" for i in range(MAX_DEPTH + 2)])
    _place(deep, [("77_kernel_trace.csv", _csv)])
    with pytest.raises(GpulensError, match="directory holds no trace file"):
        collect(root)
    loop = tmp_path / "loop"
    _place(loop, [("a/b/77/77_results.db", build_layout_b)])
    os.symlink(loop, loop / "a" / "back")  # a link to the folder itself: read once, the walk ends
    tl = collect(loop)
    assert _kernels(tl) == [300, 4000]


# -- 2. nsys stats printed precision ---------------------------------------------------------------------------------

HEAD = "Time (%),Total Time ({u}),Instances,Avg ({u}),Med ({u}),Min ({u}),Max ({u}),StdDev ({u}),Name\n"


@pytest.mark.parametrize("unit, ns", [("ms", 1e6), ("s", 1e9)])
def test_statistics_below_the_printed_precision_are_said_so(tmp_path, unit, ns):
    """Row 1: 0.005 {unit} over 100 instances = 0.00005 per launch, printed 0.000 (the last digit is 0.001 {unit}):
    its statistics are unknown because of the precision. Row 2: 0.125 over 2 = 0.0625, Avg printed 0.063 (rounded
    up by less than half a digit), Min 0.062, Max 0.063: consistent, kept in ns. Row 3: Min 0.090 above Max 0.010
    by far more than the rounding: impossible, said as before."""
    p = tmp_path / "k.csv"
    p.write_text(HEAD.format(u=unit)
                 + "3.0,0.005,100,0.000,0.000,0.000,0.000,0.000,small(float*)\n"
                 + "75.0,0.125,2,0.063,0.063,0.062,0.063,0.001,big(float*)\n"
                 + "22.0,0.037,1,0.037,0.037,0.090,0.010,0.000,odd(float*)\n")
    tl = collect(p)
    t = tl.tables["kernel_summary"].set_index("name")
    assert all(math.isnan(t.loc["small(float*)", c]) for c in ("mean_ns", "median_ns", "min_ns", "max_ns", "stddev_ns"))
    assert t.loc["small(float*)", "total_ns"] == round(0.005 * ns) and t.loc["small(float*)", "calls"] == 100
    assert t.loc["big(float*)", "mean_ns"] == pytest.approx(0.063 * ns)
    assert t.loc["big(float*)", "min_ns"] == pytest.approx(0.062 * ns)
    assert math.isnan(t.loc["odd(float*)", "mean_ns"])
    coarse = [w for w in tl.meta.warnings if "printed too coarsely" in w]
    step = {"ms": "1.00 µs", "s": "1.00 ms"}[unit]
    assert len(coarse) == 1 and "1 kernel row whose" in coarse[0] and f"last digit is {step}" in coarse[0]
    assert "print a duration of 0" in coarse[0]
    impossible = [w for w in tl.meta.warnings if "impossible duration statistics" in w]
    assert len(impossible) == 1 and "1 kernel row with" in impossible[0]


@pytest.mark.parametrize("unit, row", [
    ("ns", "24.7,16214877,2035,7968.0,8000.0,5792,20000,2339.3"),
    ("us", "24.7,16214.877,2035,7.968,8.000,5.792,20.000,2.339")])
def test_nanosecond_and_microsecond_statistics_keep_their_values(tmp_path, unit, row):
    """--timeunit nsec / usec: the last printed digit is at most 1 ns (within nsys's own rounding to ns);
    16,214,877 ns / 2,035 = 7,967.99 ns lies in [5792, 20000]: nothing to say, every figure kept."""
    p = tmp_path / "k.csv"
    p.write_text(HEAD.format(u=unit) + row + ",gemm(float*)\n")
    tl = collect(p)
    row = tl.tables["kernel_summary"].iloc[0]
    assert (row["mean_ns"], row["min_ns"], row["max_ns"]) == pytest.approx((7968.0, 5792.0, 20000.0))
    assert not any("coarsely" in w or "impossible" in w for w in tl.meta.warnings)


def test_printed_step():
    from gpulens.collectors._nsys_stat_checks import printed_step

    assert printed_step("0.000") == pytest.approx(0.001)
    assert printed_step("7968.0") == pytest.approx(0.1)
    assert printed_step("16,214,877") == 1.0
    assert printed_step("1e30") == 0.0 and printed_step("inf") == 0.0


# -- 3. rocpd rejected rows: what is kept ----------------------------------------------------------------------------

def _rocpd_rejected(path: Path, event_id: bool) -> Path:
    """gemm's dispatch ends before it starts (end 4000 < start 5000): rejected. Its kernel symbol gives arch VGPR,
    accum VGPR, SGPR and the row private_segment_size (scratch) 0: 4 launch-resource values. Its event 100 has two
    rocpd_pmc_event rows of one counter (pmc 7: 1000 + 24), one value once summed."""
    build_layout_b(path)
    con = sqlite3.connect(path)
    con.execute('UPDATE rocpd_kernel_dispatch SET "end" = 4000' + ("" if event_id else ", event_id = NULL")
                + " WHERE id = 1")
    con.commit()
    con.close()
    return path


def test_rejected_rocpd_row_without_event_id_keeps_launch_resources_only(tmp_path):
    tl = collect(_rocpd_rejected(tmp_path / "r.db", event_id=False), strict=False)
    said = [w for w in tl.meta.warnings if "is no event" in w]
    assert len(said) == 1
    assert "they carry no hardware counter value; their 4 launch-resource values" in said[0]
    assert "counter values are kept" not in said[0]
    lost = [w for w in tl.meta.warnings if "rocpd_pmc_event" in w]
    assert len(lost) == 1 and "2 counter values of rocpd_pmc_event match no kernel dispatch" in lost[0]
    assert "1 dispatch row carries no event id" in lost[0]


def test_rejected_rocpd_row_with_event_id_keeps_its_counter(tmp_path):
    tl = collect(_rocpd_rejected(tmp_path / "r.db", event_id=True), strict=False)
    said = [w for w in tl.meta.warnings if "is no event" in w]
    assert len(said) == 1 and "their 1 hardware counter value and 4 launch-resource values" in said[0]
    assert not any("rocpd_pmc_event" in w for w in tl.meta.warnings)


# -- 4. Kineto B/E at ts 0 -------------------------------------------------------------------------------------------

def _kineto(tmp_path: Path, extra: str) -> Path:
    p = tmp_path / "t.json"
    p.write_text('{"traceEvents":['
                 '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1000,"dur":50,'
                 '"args":{"device":0,"stream":7,"correlation":1}},'
                 '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":990,"dur":20},' + extra + "]}")
    return p


def test_begin_end_pair_at_ts_zero_is_an_unset_timestamp(tmp_path):
    """B and E of 'step' both at ts 0, beside events at 990-1050 µs: one zero-length slice whose ts 0 is the unset
    placeholder — excluded as such, not 'a begin never ended and an end without a begin'."""
    tl = collect(_kineto(tmp_path, '{"ph":"B","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0},'
                                   '{"ph":"E","cat":"user_annotation","name":"step","pid":1,"tid":1,"ts":0}'))
    text = " ".join(tl.meta.warnings)
    assert "never ended" not in text and "without a begin" not in text
    assert "zero timestamp (never recorded)" in text
    assert list(tl.rejected["name"].astype(str)) == ["step"]
    assert "step" not in set(tl.events["name"].astype(str))


def test_an_end_before_a_begin_at_one_instant_still_pairs_with_the_later_end(tmp_path):
    """E at 995 with nothing open, B at 995, E at 999 on one thread: the B pairs with the E at 999 (4 µs) and the
    first E has no begin — the zero-length rule applies only to what is left unpaired."""
    tl = collect(_kineto(tmp_path, '{"ph":"E","cat":"user_annotation","name":"s","pid":1,"tid":1,"ts":995},'
                                   '{"ph":"B","cat":"user_annotation","name":"s","pid":1,"tid":1,"ts":995},'
                                   '{"ph":"E","cat":"user_annotation","name":"s","pid":1,"tid":1,"ts":999}'))
    s = tl.events[tl.events["name"].astype(str) == "s"]
    assert s["dur_ns"].tolist() == [4000]
    assert any("1 end (E) event without a begin" in w for w in tl.meta.warnings)
