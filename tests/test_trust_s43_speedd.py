"""A folder of many small rocprofv3 per-process CSVs is built once, not file by file (issue 16), and reads exactly as
each file read alone and joined.

Expected values come from the CSV text the tests write (timestamps, row counts, which rows are faulty) and from
building each file on its own and joining the Timelines (``concat``), the reading a folder had before its rows were
built together.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpulens.collectors import collect
from gpulens.collectors._dispatch import FileRows, build_timeline, build_timelines
from gpulens.collectors._dispatch_rows import join_files
from gpulens.collectors.rocprofv3_csv import load_file
from gpulens.timeline import concat

DOCS = Path(__file__).parent / "data" / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
HEADER = ["Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name", "Correlation_Id",
          "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size", "Workgroup_Size_X",
          "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]


def _rows(i: int, k: int = 6) -> list[list[str]]:
    """``k`` kernel rows of process ``i``: the rocprofv3 documentation's kernels at times of their own."""
    base = [r for r in csv.reader(io.StringIO(DOCS.read_text())) if r][1:]
    out = []
    for j in range(k):
        r = list(base[j % len(base)])
        r[3], r[4], r[7] = str(100 + i), str(j + 1), str(1000 * i + j)
        s = 8_819_330_200_000_000 + 1_000_000 * i + 150_000 * j + 7 * i  # beyond 2^53: digits must survive
        r[8], r[9] = str(s), str(s + 20_000 + 13 * j)
        out.append(r)
    return out


def _write(folder: Path, pid: int, rows: list[list[str]]) -> Path:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([HEADER] + rows)
    p = folder / f"{pid}_kernel_trace.csv"
    p.write_text(buf.getvalue())
    return p


def _faulty(folder: Path, n: int = 10) -> dict[int, list[list[str]]]:
    """``n`` processes; some files hold the faults a reader counts per file."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for i in range(n):
        rows = _rows(i)
        if i == 1:
            rows[2][9] = str(int(rows[2][8]) - 5)  # end before start: not an event
            rows[4][8] = rows[4][9] = ""  # no timestamps
        if i == 3:
            rows.append(list(rows[0]))  # one kernel written twice: dropped, counted once
        if i == 4:
            rows[1][12] = "-1"  # a negative workgroup size: unknown
            rows[3][6] = ""  # no name
        if i == 6:
            rows[0][1] = ""  # no agent
        if i == 7:
            rows[5][8] = "abc"  # unreadable timestamp
        written[100 + i] = rows
        _write(folder, 100 + i, rows)
    return written


def _frames_equal(a, b) -> None:
    for x, y in ((a.events, b.events), (a.counters, b.counters), (a.rejected, b.rejected)):
        pd.testing.assert_frame_equal(x, y)
        for c in x.columns:
            if isinstance(x[c].dtype, pd.CategoricalDtype):
                assert list(x[c].cat.categories) == list(y[c].cat.categories), c
    assert a.meta.to_dict() == b.meta.to_dict()
    assert sorted(a.tables) == sorted(b.tables)
    for k in a.tables:
        pd.testing.assert_frame_equal(a.tables[k], b.tables[k])


def _loaded(paths: list[Path]) -> list[FileRows]:
    return [FileRows(load_file(p)[1], "rocprofv3_csv_dir", p) for p in paths]


def _run_by_run(run: Path):
    """The folder collected with every process's run built on its own and joined (the reference the joined build
    must equal)."""
    from gpulens.collectors import _process_runs
    import gpulens.collectors.rocprofv3_csv as v3

    real = v3.build_runs
    try:
        v3.build_runs = lambda runs: [r.timeline() if isinstance(r, _process_runs.ProcessRun) else r for r in runs]
        return collect(run)
    finally:
        v3.build_runs = real


def test_build_timelines_equals_each_file_built_alone_and_joined(tmp_path: Path) -> None:
    _faulty(tmp_path)
    paths = sorted(tmp_path.glob("*.csv"))
    joined = build_timelines(_loaded(paths))
    alone = concat([build_timeline(f.d, f.source, f.path) for f in _loaded(paths)])
    _frames_equal(joined, alone)
    # and from the CSV text: every row with two readable timestamps, end ≥ start, is an event, minus one duplicate
    rows = [r for p in paths for r in csv.reader(io.StringIO(p.read_text())) if r][0:]
    data = [r for r in rows if r[0] != "Kind"]
    timed = [r for r in data if r[8].isdigit() and r[9].isdigit() and int(r[9]) >= int(r[8])]
    assert len(joined.events) == len(timed) - 1
    assert len(joined.rejected) == len(data) - len(timed)
    assert sorted(joined.events["start_ns"].tolist()) == sorted({(int(r[8]), r[6], r[4], r[3]): int(r[8])
                                                                  for r in timed}.values())


def test_each_file_keeps_its_own_warnings(tmp_path: Path) -> None:
    _faulty(tmp_path)
    paths = sorted(tmp_path.glob("*.csv"))
    warnings = build_timelines(_loaded(paths)).meta.warnings
    by_file = {p.name: [w for w in warnings if w.startswith(str(p))] for p in paths}
    assert any("2 rows are not events" in w and "negative duration (end before start) ×1" in w
               and "no timestamps recorded ×1" in w for w in by_file["101_kernel_trace.csv"])
    assert any("1 exact duplicate GPU row dropped" in w for w in by_file["103_kernel_trace.csv"])
    assert any("1 negative size or count value" in w for w in by_file["104_kernel_trace.csv"])
    assert any("1 row without a name" in w for w in by_file["104_kernel_trace.csv"])
    assert any("1 GPU row (kernels, copies) records no device" in w for w in by_file["106_kernel_trace.csv"])
    assert any("1 row is no event: unreadable timestamp" in w for w in by_file["107_kernel_trace.csv"])
    for clean in ("100", "102", "105", "108", "109"):
        assert by_file[f"{clean}_kernel_trace.csv"] == []


def test_folder_reads_as_its_files_do(tmp_path: Path) -> None:
    """``collect`` of the folder: each process's kernels with their exact timestamps (from the CSV text), the
    processes numbered as ranks in pid order, each file's warnings naming it."""
    written = _faulty(tmp_path / "run")
    tl = collect(tmp_path / "run")
    ev = tl.events
    for rank, (pid, rows) in enumerate(sorted(written.items())):
        mine = ev[ev["tid"] == pid]
        assert set(mine["rank"]) == {rank}
        starts = {int(r[8]) for r in rows if r[8].isdigit() and r[9].isdigit() and int(r[9]) >= int(r[8])}
        assert set(mine["start_ns"].tolist()) == starts
    assert len(tl.events) == sum(len(r) for r in written.values()) - 4  # 2 + 1 + 1 rejected, 1 duplicate…
    assert len(tl.rejected) == 3
    assert np.array_equal(tl.events["event_id"].to_numpy(), np.arange(len(tl.events)))
    assert sum("exact duplicate" in w and "103_kernel_trace.csv" in w for w in tl.meta.warnings) == 1


def test_folder_equals_each_process_built_alone(tmp_path: Path) -> None:
    """The folder collector's reading equals the one it had before its rows were built together: every process's
    Timeline on its own (``ProcessRun.timeline``), ranked and joined."""
    from gpulens.collectors import _process_runs

    _faulty(tmp_path / "run", n=6)
    fast = collect(tmp_path / "run")
    real = _process_runs.build_runs
    try:
        _process_runs.build_runs = lambda runs: [r.timeline() for r in runs]
        import gpulens.collectors.rocprofv3_csv as v3

        v3.build_runs = _process_runs.build_runs
        slow = collect(tmp_path / "run")
    finally:
        _process_runs.build_runs = real
        v3.build_runs = real
    _frames_equal(fast, slow)


@pytest.mark.parametrize("case", ["text_beside_numbers", "huge_int_beside_float"])
def test_columns_that_cannot_join_exactly_fall_back(tmp_path: Path, case: str) -> None:
    """A column of different types in two files is not joined (it would read differently): the files are built
    one by one, and the result is still their join."""
    _write(tmp_path, 1, _rows(1))
    rows = _rows(2)
    if case == "text_beside_numbers":
        pass
    else:
        rows[0][7] = str(2 ** 60 + 1)  # an int64 correlation id no float64 holds
    _write(tmp_path, 2, rows)
    files = _loaded(sorted(tmp_path.glob("*.csv")))
    if case == "text_beside_numbers":
        files[1].d.cols["tid"] = files[1].d.cols["tid"].astype(object).astype(str)
    else:
        files[0].d.cols["correlation_id"] = files[0].d.cols["correlation_id"].astype("float64")
    assert join_files([f.d for f in files]) is None
    joined = build_timelines(files)
    alone = concat([build_timeline(f.d, f.source, f.path) for f in files])
    _frames_equal(joined, alone)
    if case == "huge_int_beside_float":
        assert 2 ** 60 + 1 in joined.events["correlation_id"].tolist()


def test_many_files_cost_grows_with_rows_not_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """120 one-row files build in one pass (no Timeline per file): far below the ~45 ms of pandas each file cost
    when built alone."""
    import time

    import gpulens.collectors._dispatch as dispatch

    for i in range(120):
        _write(tmp_path, 1000 + i, _rows(i, k=1))
    files = _loaded(sorted(tmp_path.glob("*.csv")))
    per_file = []
    monkeypatch.setattr(dispatch, "build_timeline", lambda *a, **k: per_file.append(a) or build_timeline(*a, **k))
    t = time.process_time()
    tl = build_timelines(files)
    spent = time.process_time() - t
    assert per_file == []
    assert len(tl.events) == 120
    assert spent < 120 * 0.045 / 3, spent


@pytest.mark.parametrize("names", [([" b_kernel", "a_kernel"], ["a_kernel"]),  # sets differ: sorted union
                                   ([" b_kernel", "a_kernel"], ["b_kernel", " a_kernel"])])  # same set, other order
def test_normalised_name_categories_as_the_join_holds_them(tmp_path: Path, names: tuple) -> None:
    """A blank before a name sorts it first but normalising strips it: each file's ``name_norm`` categories then
    come in an order of their own, and the join of the files' tables holds what pandas makes of them."""
    for pid, ns in enumerate(names):
        rows = _rows(pid, k=len(ns))
        for r, nm in zip(rows, ns):
            r[6] = nm
        _write(tmp_path, pid, rows)
    files = _loaded(sorted(tmp_path.glob("*.csv")))
    assert [n.strip() for n in files[0].d.cols["name"]] == ["b_kernel", "a_kernel"]
    joined = build_timelines(files)
    alone = concat([build_timeline(f.d, f.source, f.path) for f in _loaded(sorted(tmp_path.glob("*.csv")))])
    _frames_equal(joined, alone)
    want = ["a_kernel", "b_kernel"] if len(names[1]) == 1 else ["b_kernel", "a_kernel"]
    assert list(joined.events["name_norm"].cat.categories) == want


def test_mixed_process_file_sets_equal_each_process_built_alone(tmp_path: Path) -> None:
    """Per process: kernels, copies, counters, HSA/marker calls and (for some) a summary beside them — runs with a
    summary are built alone, the others together; the folder reads as every process built alone and joined."""
    from gpulens.collectors import _process_runs

    data = Path(__file__).parent / "data" / "rocprof"
    run = tmp_path / "run"
    run.mkdir()
    for pid in (11, 12, 13, 14, 15):
        for src in ("v3_csv_sdk_docs/kernel_trace.csv", "v3_csv_sdk_docs/memory_copy_trace.csv",
                    "v3_csv_sdk_docs/counter_collection.csv", "v3_csv_sdk_docs_api/hsa_api_trace.csv",
                    "v3_csv_sdk_docs_api/marker_api_trace.csv"):
            (run / f"{pid}_{Path(src).name}").write_text((data / src).read_text())
    (run / "13_hip_api_stats.csv").write_text((data / "v3_csv_sdk_docs/hip_api_stats.csv").read_text())
    import gpulens.collectors._dispatch as dispatch

    alone = []  # files built one by one: only the 4 of process 13, whose summary needs its own Timeline

    def counted(*a, **k):
        alone.append(a[2])
        return build_timeline(*a, **k)

    for mod in (dispatch, _process_runs):
        setattr(mod, "build_timeline", counted)
    try:
        fast = collect(run)
    finally:
        for mod in (dispatch, _process_runs):
            setattr(mod, "build_timeline", build_timeline)
    assert sorted(Path(f).name[:3] for f in alone) == ["13_"] * 4
    slow = _run_by_run(run)
    _frames_equal(fast, slow)
    kernels = [r for r in csv.reader(io.StringIO((data / "v3_csv_sdk_docs/kernel_trace.csv").read_text())) if r][1:]
    assert (fast.events["kind"] == "kernel").sum() == 5 * len(kernels)
    assert sorted(set(fast.events["rank"])) == [0, 1, 2, 3, 4]
    # every file of a process is that process's, its summary (13_hip_api_stats.csv) included
    pids = {Path(s["path"]).name: s.get("process_id") for s in fast.meta.sources}
    assert pids["13_hip_api_stats.csv"] == 13 and all(v == int(k[:2]) for k, v in pids.items())


def test_day_long_kernel_keeps_each_process_note(tmp_path: Path) -> None:
    """A start of ``5`` beside ends near 8.8e15 ns makes a 102-day kernel: the Timeline's check names the process's
    file when its run is validated with its sources, so the folder builds such runs one by one (found by fuzzing
    folders of per-process files: the joined build had dropped that file-led note)."""

    run = tmp_path / "run"
    run.mkdir()
    for pid in range(4):
        rows = _rows(pid, k=3)
        if pid == 2:
            rows[1][8] = "5"
        _write(run, pid, rows)
    fast = collect(run)
    slow = _run_by_run(run)
    _frames_equal(fast, slow)
    assert any(w.startswith(str(run / "2_kernel_trace.csv")) and "longer than a day" in w for w in fast.meta.warnings)
