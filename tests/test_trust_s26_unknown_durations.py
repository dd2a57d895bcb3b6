"""A figure over launches of which some have no duration is unknown, never a partial sum shown as complete.

Kind: an ncu launch without ``gpu__time_duration.sum`` (the profile failed, or the duration is in a unit that is no
time) is kept with a placeholder ``dur_ns = 0``. Kernel groups, op categories and kernel distributions showed those
launches as ``0 ns``, the "kernels … summed" line added up only the known ones as if complete, and a kernel's mean
divided the known time by every launch (649.22 µs for launches of ~742 µs). The rule
(:mod:`gpulens.analyzers._unknown_time`): the figure is unknown and the count of launches without a duration is said.

The input is built from the real ncu CSVs in tests/data/nvidia (Olajide, RTX 5070): each file is one launch; the
launches are put in one file under new IDs and the duration rows of two launches are removed. The expected figures
are read from those files' own ``gpu__time_duration.sum`` rows.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import gpulens

DATA = Path(__file__).parent / "data" / "nvidia"
FILES = {k: DATA / f"olajide_rtx5070_metrics_{k}.csv" for k in ("saxpy", "gemm_naive", "transpose_naive")}
#: (kernel file, keeps its duration) per launch, in launch order
LAUNCHES = [("saxpy", True), ("gemm_naive", True), ("saxpy", False), ("gemm_naive", True), ("saxpy", True),
            ("transpose_naive", False)]


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    text = path.read_text(encoding="utf-8-sig")
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    return rows[0], [r for r in rows[1:] if r]


def _duration(path: Path) -> int:
    head, rows = _rows(path)
    m, v = head.index("Metric Name"), head.index("Metric Value")
    return int(next(r[v] for r in rows if r[m] == "gpu__time_duration.sum").replace(",", ""))


@pytest.fixture(scope="module")
def blanked(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ncu") / "blanked.ncu.csv"
    head, first = _rows(FILES["saxpy"])
    pid = head.index("Process ID")  # the three reports came from three runs: one process here, as one run gives
    with out.open("w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(head)
        for i, (k, timed) in enumerate(LAUNCHES):
            for r in _rows(FILES[k])[1]:
                if not timed and r[head.index("Metric Name")] == "gpu__time_duration.sum":
                    continue
                r = list(r)
                r[pid] = first[0][pid]
                w.writerow([str(i), *r[1:]])
    return out


@pytest.fixture(scope="module")
def report(blanked):
    return gpulens.analyze([blanked])


def _unknown(v) -> bool:
    return str(v) in ("nan", "<NA>", "None")


def _name(table, fragment):
    rows = table[table[[c for c in ("name", "kernel", "key") if c in table][0]].astype(str).str.contains(fragment)]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_run_total_is_unknown_with_the_count_and_the_timed_part(report):
    d = {k: _duration(p) for k, p in FILES.items()}
    timed = 2 * d["saxpy"] + 2 * d["gemm_naive"]  # by hand: launches 0, 1, 3, 4 keep their duration
    assert timed == 2 * 292_928 + 2 * 9_589_248
    sm = report.sources[0].summary
    assert sm["kernel_count"] == 6
    assert sm["kernel_time_ns"] is None  # not 19,764,352 ns shown as the whole
    assert sm["untimed_launches"] == 2 and sm["timed_kernel_time_ns"] == timed
    text = gpulens.render(report, "console") if hasattr(gpulens, "render") else None
    from gpulens.reports.markdown import render as md

    page = md(report)
    assert "unknown summed: 2 of 6 launches without a duration (the 4 with one: 19.76 ms)" in page
    assert "19.76 ms summed" not in page and (text is None or "19.76 ms summed" not in text)


def test_a_kernel_with_a_launch_without_duration_has_unknown_time_everywhere(report):
    res = report.sources[0].results
    d = _duration(FILES["gemm_naive"])
    hot = res["hotspots"].table
    assert _name(hot, "gemm_naive")["total_ns"] == 2 * d  # every launch timed: its figures stay
    assert _name(hot, "gemm_naive")["mean_ns"] == d
    for k in ("saxpy", "transpose"):  # one of 3 / the only launch without a duration: unknown, never 0 ns or a mean
        row = _name(hot, k)
        assert _unknown(row["total_ns"]) and _unknown(row["mean_ns"])
    assert hot["share"].isna().all()  # the total every share divides by is unknown
    groups = res["kernel_groups"].table
    assert _unknown(_name(groups, "saxpy")["time_ns"]) and _name(groups, "saxpy")["untimed_launches"] == 1
    assert _name(groups, "gemm_naive")["time_ns"] == 2 * d
    cats = res["op_categories"].table
    assert cats["untimed_launches"].sum() == 2
    assert all(_unknown(v) for v in cats.loc[cats["untimed_launches"] > 0, "gpu_time_ns"])
    dist = res["kernel_distributions"].table
    sax = _name(dist, "saxpy")
    assert all(_unknown(sax[c]) for c in ("total_ns", "mean_ns", "p50_ns", "cv"))


def test_no_report_shows_the_placeholder_as_time(report, tmp_path):
    from gpulens.reports.json_report import render as js
    from gpulens.reports.markdown import render as md

    page = md(report)
    assert "| 0 ns |" not in page and " 0 ns " not in page
    assert "(GPU time unknown: launches without a duration)" in page or "undetermined" not in page
    doc = json.loads(js(report))
    src = doc["sources"][0]
    assert src["summary"]["kernel_time_ns"] is None and src["summary"]["untimed_launches"] == 2
    rows = src["analyses"]["kernel_groups"]["rows"] if "rows" in src["analyses"]["kernel_groups"] else \
        src["analyses"]["kernel_groups"]["table"]
    assert not any(r.get("time_ns") == 0 for r in rows)


def test_diff_of_a_run_with_launches_without_duration_says_unknown(blanked):
    """``gpulens diff`` read the kernel groups' unknown time as 0 ns: category "other" (saxpy + transpose, 2 of
    their 4 launches without a duration) showed "0 ns" on the base side."""
    from gpulens.diff import diff

    res = diff(blanked, FILES["saxpy"])
    cats = res.tables["categories"] if "categories" in res.tables else next(
        t for n, t in res.tables.items() if "category" in t.columns)
    # only the category holding launches without a duration is unknown (s28: a single untimed launch no longer
    # blanks a whole side); GEMM's two gemm_naive launches are timed: 2 × their recorded duration
    other = cats[cats["category"] == "other"].iloc[0]
    assert _unknown(other["base_time_ns"]) and _unknown(other["delta_ns"])
    gemm = cats[cats["category"] == "GEMM"].iloc[0]
    assert gemm["base_time_ns"] == 2 * _duration(FILES["gemm_naive"])


def test_rocprofv3_dispatch_without_end_time_is_not_left_out_of_the_sum(tmp_path):
    """rocprofv3 kernel_trace.csv, 4 dispatches of 5 µs, the third without End_Timestamp: it is no event (its row
    is kept as an untimed launch), and the kernels line read "3 launches of 1 kernel, 15.00 µs summed" as if
    complete. By hand: 3 × 5,000 ns = 15.00 µs over the timed ones, 1 of 4 launches without a duration."""
    head = ["Kind", "Agent_Id", "Queue_Id", "Thread_Id", "Dispatch_Id", "Kernel_Id", "Kernel_Name", "Correlation_Id",
            "Start_Timestamp", "End_Timestamp", "Private_Segment_Size", "Group_Segment_Size", "Workgroup_Size_X",
            "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z"]
    t0 = 8_819_330_200_067_564
    p = tmp_path / "kernel_trace.csv"
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        for i in range(4):
            end = "" if i == 2 else t0 + i * 10_000 + 5_000
            w.writerow(["KERNEL_DISPATCH", 1, 1, 69, i + 1, 16, "addition_kernel", 1000 + i, t0 + i * 10_000, end,
                        0, 0, 64, 1, 1, 1024, 1, 1])
    rep = gpulens.analyze([p])
    sm = rep.sources[0].summary
    assert sm["kernel_time_ns"] is None and sm["timed_kernel_time_ns"] == 3 * 5_000
    from gpulens.reports.markdown import render as md

    assert "unknown summed: 1 of 4 launches without a duration (the 3 with one: 15.00 µs)" in md(rep)
    assert _unknown(rep.sources[0].results["hotspots"].table["total_ns"].iloc[0])
