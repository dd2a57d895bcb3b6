"""`gpulens analyze` on AMD inputs: reports, one-line errors, the --join of a Kineto trace and a rocprof trace."""

from __future__ import annotations

import csv
import json

from gpulens.cli import main
from tests.conftest import CASES, DATA
from tests.test_join import write_kineto, write_rocprof


def gunrock_blit_copies() -> tuple[int, int]:
    """(count, summed DurationNs) of the HIP blit copy dispatches in gunrock's results.csv, read with csv."""
    with open(DATA / "rocprof" / "v1_gunrock_mi300x" / "results.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["KernelName"].startswith("__amd_rocclr_copyBuffer")]
    return len(rows), sum(int(r["DurationNs"]) for r in rows)


def test_analyze_rocprof_v1_csv_top_kernel(tmp_path):
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", str(DATA / "rocprof" / "v1_gunrock_mi300x" / "results.csv"),
                 "--json", str(out)]) == 0
    s = json.loads(out.read_text())["sources"][0]
    # 56 dispatches, 9,025,354 ns (SOURCES.md), of which the HIP blit copies are copies, not kernels (issue 13)
    n_blit, t_blit = gunrock_blit_copies()
    assert n_blit == 19
    assert s["summary"]["kernel_count"] == 56 - n_blit and s["summary"]["kernel_time_ns"] == 9_025_354 - t_blit
    top = s["top_kernels"][0]
    assert top["name"].startswith("void gunrock::operators::advance::merge_path::merge_path_kernel")
    assert (top["calls"], top["total_ns"]) == (11, 7_603_945)


def test_b05b_header_only_exits_no_gpu_work(capsys):
    assert main(["analyze", str(CASES / "B05b.kernel_trace.csv")]) == 5
    assert "0 kernels" in capsys.readouterr().out


def test_b17_width_mismatch_is_one_line_and_lenient_reads_it(capsys):
    assert main(["analyze", str(CASES / "B17.v2_results.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "B17.v2_results.csv" in err and "21 columns" in err
    assert main(["analyze", "-q", "--lenient", str(CASES / "B17.v2_results.csv")]) == 0


def test_analyze_join_reports_once_with_counters(tmp_path):
    write_kineto(tmp_path / "run.pt.trace.json")
    write_rocprof(tmp_path / "results.csv")
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--join", str(tmp_path / "run.pt.trace.json"), str(tmp_path / "results.csv"),
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert len(doc["sources"]) == 1
    s = doc["sources"][0]
    assert s["summary"]["kernel_count"] == 6  # the Kineto kernels; rocprof's 7 dispatches were not added
    assert f"joined 6 of 6 kernels with 7 dispatches of {tmp_path / 'results.csv'}" in s["warnings"]


def test_analyze_folds_a_rocprof_trace_of_the_same_run_without_flag(tmp_path):
    write_kineto(tmp_path / "run.pt.trace.json")
    write_rocprof(tmp_path / "results.csv")
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", str(tmp_path / "run.pt.trace.json"), str(tmp_path / "results.csv"),
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert len(doc["sources"]) == 1 and doc["sources"][0]["summary"]["kernel_count"] == 6


def test_analyze_keeps_an_unrelated_rocprof_trace_separate(tmp_path):
    write_kineto(tmp_path / "run.pt.trace.json")
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", str(tmp_path / "run.pt.trace.json"),
                 str(DATA / "rocprof" / "v1_gunrock_mi300x" / "results.csv"), "--json", str(out)]) == 0
    a, b = json.loads(out.read_text())["sources"]
    assert a["summary"]["kernel_count"] == 6 and b["summary"]["kernel_count"] == 56 - gunrock_blit_copies()[0]
    assert any("not joined to" in w and "0 of 6 kernels matched" in w for w in b["warnings"])
