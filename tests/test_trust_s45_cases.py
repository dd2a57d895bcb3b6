"""Variants of the shared cases (../shared/cases/README.md) that another public project could produce (session 45),
each generated here with its answer worked out by hand in the docstring from the values written (ns in nsys SQLite,
µs in Kineto files, ns in reports) — never copied from gpulens output.

* T12 (one profiler file per process) as Nsight Systems exports, one per rank (``nsys profile -o rank%q{RANK}``):
  every time of an nsys export counts from its own capture start (``TARGET_INFO_SESSION_START_TIME.utcEpochNs``),
  and the captures of a job's processes start apart. The files were joined on their raw times, so a rank whose
  capture started 300 µs later was drawn 300 µs early: the wall span, the rank comparison and the clock check
  (which then called the clocks "disagreeing" and fell back to the longest rank) were wrong. Now the exports are
  aligned on their capture starts, and an export without one is named.
  The same kind as ``nsys stats --report cuda_gpu_trace`` CSVs (which print no capture start): named as not
  placeable. And across hosts: rocprofiler (rocpd, rocprofv3 JSON) times are each host's monotonic clock, so rank
  files of several hosts are named as not placeable against each other.
* B05 in ``nsys stats`` stdout whose kernel report nsys skipped ("does not contain CUDA kernel data"): exit 2 as an
  unreadable input, where the same capture's SQLite export gives "no GPU work" (exit 5); now exit 5 as well.
* B04 in one rank file of a Kineto run: a trace cut before its trailing ``baseTimeNanoseconds`` (or an array-form
  trace) has times relative to an unknown origin; the clock check said only that the ranks' spans were "19675.93
  days further apart than their lengths allow". It now names the rank file that records no clock origin.
* T06 in a rocprofv3 CSV folder that holds API traces only: the note advised "analyse the rocprofv3 output folder"
  when that folder was the input. The advice now depends on what the folder beside the file holds.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from gpulens.cli import main
from tests.case_variants import _nsys_db

U = 1_700_000_000_000_000_000  # a capture start [ns since the epoch]


def _analyze(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / f"{path.name}.out.json"  # one per input: another input's JSON report is never replaced
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out), *extra])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else {})


# -- T12 as one Nsight Systems export per rank ------------------------------------------------------------------------

def _nsys_rank(path: Path, start: int | None, kernels: list[tuple[int, int]]) -> Path:
    """An nsys export of one rank: kernels ka, kb, … = [(start, end)] ns on stream 7 from the capture start, each
    launched 600 ns before it starts; ``start`` = its capture start (utcEpochNs), None: no such table."""
    names = [f"k{i}" for i in range(len(kernels))]
    _nsys_db(path, ["cudaLaunchKernel_v7000", *names], [(a - 600, a - 100, i + 1, 1) for i, (a, _) in enumerate(kernels)],
             [(a, b, 7, i + 1, 2 + i, 2 + i) for i, (a, b) in enumerate(kernels)], [])
    if start is not None:
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)")
        con.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '2023-11-14T22:13:20', '2023-11-14')",
                    (start,))
        con.commit()
        con.close()
    return path


def _two_ranks(folder: Path, start0: int | None, start1: int | None) -> Path:
    """Rank 0: [1,000,000, 1,100,000] and [1,120,000, 1,150,000] ns after its capture start. Rank 1, whose capture
    started 300,000 ns later: [750,000, 850,000] and [860,000, 880,000] after its own start."""
    folder.mkdir()
    _nsys_rank(folder / "rank0.sqlite", start0, [(1_000_000, 1_100_000), (1_120_000, 1_150_000)])
    _nsys_rank(folder / "rank1.sqlite", start1, [(750_000, 850_000), (860_000, 880_000)])
    return folder


def test_t12_nsys_exports_per_rank_are_aligned_on_their_capture_starts(tmp_path):
    """On the earliest capture start U, rank 1's kernels are [1,050,000, 1,150,000] and [1,160,000, 1,180,000]:
    wall span 1,000,000 → 1,180,000 = 180,000 ns (≤ 150,000 + 130,000, so no clock disagreement); rank spans
    150,000 and 130,000; busy 130,000 + 120,000 = 250,000 of 280,000 device-time (89.3 %). Profiled window: rank 0's
    first launch at 999,400 → rank 1's last kernel end 1,180,000 = 180,600 ns. Joined on raw times, rank 1 sat
    300 µs early: a wall of 1,150,000 − 750,000 = 400,000 > 280,000, read as disagreeing clocks."""
    code, src = _analyze(_two_ranks(tmp_path / "run", U, U + 300_000), tmp_path)
    s = src["summary"]
    assert code == 0 and s["ranks"] == [0, 1]
    assert s["span_ns"] == 180_000 and s["span_basis"] == "wall"
    assert not [w for w in src["warnings"] if w.startswith("ranks' clocks disagree")]
    assert s["rank_span_ns"] == {"0": 150_000, "1": 130_000} and s["device_span_ns"] == 280_000
    assert s["gpu_busy_ns"] == 250_000 and round(s["gpu_busy_pct"], 1) == 89.3
    assert s["window_ns"] == 180_600
    said = [w for w in src["warnings"] if "capture start" in w]
    assert len(said) == 1 and "rank1.sqlite +300.00 µs" in said[0] and "TARGET_INFO_SESSION_START_TIME" in said[0]


def test_t12_nsys_exports_started_together_are_left_as_they_are(tmp_path):
    """Both captures start at U: rank 1's kernels stay at [750,000, 880,000]; wall 750,000 → 1,150,000 = 400,000
    ns > 150,000 + 130,000 = 280,000 — these ranks' work really is apart, so the clock check's longest rank (150,000)
    holds, and nothing is said about capture starts."""
    code, src = _analyze(_two_ranks(tmp_path / "run", U, U), tmp_path)
    s = src["summary"]
    assert code == 0 and s["span_basis"] == "longest rank" and s["span_ns"] == 150_000
    skew = [w for w in src["warnings"] if w.startswith("ranks' clocks disagree")]
    assert len(skew) == 1 and "are 120.00 µs further apart" in skew[0]  # 400,000 − 280,000 ns
    assert not [w for w in src["warnings"] if "capture start" in w or "clock origin" in w]


def test_t12_nsys_export_without_a_capture_start_is_named(tmp_path):
    """Rank 1's export lacks TARGET_INFO_SESSION_START_TIME: its times cannot be placed against rank 0's; they are
    left as recorded (wall 400,000 > 280,000: the longest rank, 150,000 ns) and the file is named."""
    code, src = _analyze(_two_ranks(tmp_path / "run", U, None), tmp_path)
    s = src["summary"]
    assert code == 0 and s["span_ns"] == 150_000 and s["span_basis"] == "longest rank"
    said = [w for w in src["warnings"] if "record no capture start" in w]
    assert len(said) == 1 and said[0].endswith(": rank1.sqlite") and "1 Nsight Systems export of 2" in said[0]


def test_capture_start_is_read_from_the_export(tmp_path):
    """The source record keeps the capture start (a timestamp, as the reports label it), None when not recorded."""
    from gpulens.collectors import collect

    assert collect(_nsys_rank(tmp_path / "a.sqlite", U + 5, [(1000, 2000)])).meta.sources[0][
        "session_start_epoch_ns"] == U + 5
    assert collect(_nsys_rank(tmp_path / "b.sqlite", None, [(1000, 2000)])).meta.sources[0][
        "session_start_epoch_ns"] is None


def test_t12_nsys_gpu_trace_reports_per_rank_cannot_be_aligned(tmp_path):
    """``nsys stats --report cuda_gpu_trace`` CSVs, one per rank: times from each capture's start, which the report
    does not print. Rank 0: gemm [1000, 21000] ns; rank 1: gemm [500, 20500]: both read (40,000 ns of kernels), the
    two files named as not placeable against each other."""
    from tests.test_trust_s43_cases import _GT, _gt

    run = tmp_path / "run"
    run.mkdir()
    for r, t in ((0, 1000), (1, 500)):
        (run / f"rank{r}_gputrace.csv").write_text(_GT + "\n" + _gt(t, 20000, 1, "gemm_kernel(float *)") + "\n")
    code, src = _analyze(run, tmp_path)
    assert code == 0 and src["summary"]["kernel_count"] == 2 and src["summary"]["kernel_time_ns"] == 40_000
    said = [w for w in src["warnings"] if "record no capture start" in w]
    assert len(said) == 1 and "2 Nsight Systems exports of 2" in said[0] and "an nsys stats report prints none" in \
        said[0] and said[0].endswith("rank0_gputrace.csv, rank1_gputrace.csv")


# -- B04 in one rank file of a Kineto run: its clock origin lost --------------------------------------------------------

def _kineto_rank(r: int) -> dict:
    """Rank r: ka 1000+10 µs and kb 1015+20 µs on stream 7 (launched at 990 / 995 µs), times relative to
    baseTimeNanoseconds = 1.7e18 ns, which Kineto writes after traceEvents."""
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": ts, "dur": 3,
           "args": {"correlation": c}} for c, ts in ((1, 990), (2, 995))]
    ev += [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": "stream 7", "ts": ts, "dur": du,
            "args": {"device": 0, "stream": 7, "correlation": c}} for c, n, ts, du in ((1, "ka", 1000, 10),
                                                                                      (2, "kb", 1015, 20))]
    return {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": r, "world_size": 3},
            "traceEvents": ev, "baseTimeNanoseconds": U}


def test_b04_rank_file_cut_before_its_clock_origin_is_named(tmp_path):
    """Ranks 0 and 2 intact; rank 1's file cut inside kb (its trailing baseTimeNanoseconds lost): rank 1 keeps ka
    (10 µs) on a clock of its own. 3 + 2 + 3 events' kernels: ka, kb, ka, ka, kb = 10+20+10+10+20 = 70 µs. The clock
    check falls back to the longest rank (35 µs) and names rank1.pt.trace.json as the file without a clock origin."""
    run = tmp_path / "run"
    run.mkdir()
    for r in range(3):
        text = json.dumps(_kineto_rank(r))
        if r == 1:
            text = text[:text.index('"kb"') + 30]
        (run / f"rank{r}.pt.trace.json").write_text(text)
    code, src = _analyze(run, tmp_path)
    s = src["summary"]
    assert code == 0 and s["kernel_count"] == 5 and s["gpu_busy_ns"] == 70_000
    assert s["span_basis"] == "longest rank" and s["span_ns"] == 35_000
    skew = [w for w in src["warnings"] if w.startswith("ranks' clocks disagree")]
    assert len(skew) == 1
    assert "1 rank file of 3 records no clock origin (baseTimeNanoseconds" in skew[0]
    assert "rank1.pt.trace.json (rank 1)" in skew[0] and "rank0" not in skew[0] and "rank2" not in skew[0]


def test_b04_ranks_that_all_record_their_origin_are_not_blamed(tmp_path):
    """Control: the 3 ranks intact (ka + kb each, 30 µs): one clock, wall span 1000 → 1035 = 35 µs, no clock
    warning at all."""
    run = tmp_path / "run"
    run.mkdir()
    for r in range(3):
        (run / f"rank{r}.pt.trace.json").write_text(json.dumps(_kineto_rank(r)))
    code, src = _analyze(run, tmp_path)
    assert code == 0 and src["summary"]["span_ns"] == 35_000 and src["summary"]["span_basis"] == "wall"
    assert not [w for w in src["warnings"] if "clock" in w]


# -- T06 in a rocprofv3 CSV folder of API traces alone ------------------------------------------------------------------

_API = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n' + "".join(
    f'"HIP_RUNTIME_API","hipLaunchKernel",4242,4242,{100 + i},{1_000_000 + 10_000 * i},{1_005_000 + 10_000 * i}\n'
    for i in range(5))


def test_t06_rocprofv3_folder_of_api_traces_is_told_to_record_kernels(tmp_path, capsys):
    """5 hipLaunchKernel calls (correlation 100–104) and no kernel_trace.csv in the folder given: exit 5 (no GPU
    work), the capture said incomplete, and the advice is to record kernels — not to analyse the folder given."""
    run = tmp_path / "out"
    run.mkdir()
    (run / "4242_hip_api_trace.csv").write_text(_API)
    code, src = _analyze(run, tmp_path)
    assert code == 5
    note = src["summary"].get("incomplete_capture") or next(
        (i.get("incomplete_capture") for i in src["inputs"] if isinstance(i, dict) and i.get("incomplete_capture")),
        None)
    assert note and "5 launch calls" in note and "correlation 100–104" in note
    assert "its folder holds no kernel_trace.csv either: record with --kernel-trace" in note
    assert "analyse the rocprofv3 output folder" not in note


def test_t06_rocprofv3_api_file_beside_its_kernel_trace_points_to_the_folder():
    """The API file given alone while its folder holds a kernel_trace.csv: analyse that folder."""
    from gpulens.collectors.rocprofv3_csv import _api_only_advice

    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "4242_hip_api_trace.csv"
        f.write_text(_API)
        assert _api_only_advice(f).startswith("its folder holds no kernel_trace.csv")
        (Path(d) / "4242_kernel_trace.csv").write_text("")
        assert _api_only_advice(f).startswith(f"analyse the rocprofv3 output folder ({Path(d).name}/)")


# -- B05 in nsys stats stdout: the kernel report skipped ---------------------------------------------------------------

_SKIPPED = ("Generating SQLite file /data/run.sqlite from /data/run.nsys-rep\n"
            "Processing [/data/run.sqlite] with [/opt/nvidia/reports/cuda_api_sum.py]... \n"
            "SKIPPED: /data/run.sqlite does not contain CUDA trace data.\n\n"
            "Processing [/data/run.sqlite] with [/opt/nvidia/reports/cuda_gpu_kern_sum.py]... \n"
            "SKIPPED: /data/run.sqlite does not contain CUDA kernel data.\n")


def test_b05_nsys_stats_with_its_kernel_report_skipped_is_no_gpu_work(tmp_path):
    """A capture without a kernel, as ``nsys stats`` prints it: 0 kernels, 0 ns, status no_gpu_work and exit 5 —
    the same answer as for an nsys SQLite export without a kernel table (B05: "no data", never an input error)."""
    p = tmp_path / "stats.csv"
    p.write_text(_SKIPPED)
    code, src = _analyze(p, tmp_path)
    assert code == 5 and src["status"] == "no_gpu_work"
    assert src["summary"]["kernel_count"] == 0 and src["summary"]["kernel_time_ns"] == 0
    assert [w for w in src["warnings"] if "does not contain CUDA kernel data" in w]
    db = _nsys_rank(tmp_path / "run.sqlite", U, [])
    con = sqlite3.connect(db)
    con.execute("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL")
    con.commit()
    con.close()
    code_db, src_db = _analyze(db, tmp_path)
    assert (code_db, src_db["status"], src_db["summary"]["kernel_count"]) == (5, "no_gpu_work", 0)


def test_b05_nsys_stats_without_any_kernel_table_or_skip_line_says_what_it_holds(tmp_path, capsys):
    """Control: an nsys stats stdout of API calls only, with no word on kernels, is no kernel summary. It said "no
    nsys kernel-summary header" (exit 2, as an unreadable file); since session 50 it names the report and what it
    holds, exit 5 (README: only nsys stats reports holding no kernel)."""
    p = tmp_path / "stats.csv"
    p.write_text("Processing [/data/run.sqlite] with [/opt/nvidia/reports/osrt_sum.py]... \n"
                 "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                 "69.9,4467,316,14.1,20.0,2,25,5.5,pthread_cond_wait\n")
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "OS runtime calls (osrt_sum)" in err and "no GPU kernels" in err


# -- T12 across hosts: rocprofiler clocks are per host ------------------------------------------------------------------

def _rocpd_on(path: Path, host: str | None) -> Path:
    """A rocpd database (:func:`tests.test_rocpd.build_layout_b`: gemm [5000, 9000], add [9500, 9800] ns on one
    MI300X) whose ``rocpd_info_node`` names ``host`` (no such table: None)."""
    from tests.test_rocpd import build_layout_b

    build_layout_b(path)
    if host is not None:
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE rocpd_info_node (id INTEGER PRIMARY KEY, guid TEXT, hash INT, machine_id TEXT, "
                    "system_name TEXT, hostname TEXT, release TEXT, version TEXT, hardware_name TEXT, "
                    "domain_name TEXT)")
        con.execute("INSERT INTO rocpd_info_node VALUES (1, 'g', 0, 'm', 'Linux', ?, '', '', 'x86_64', '')", (host,))
        con.commit()
        con.close()
    return path


def test_t12_rocpd_databases_of_two_hosts_are_said_not_placeable(tmp_path):
    """One rocpd database per process, from hosts node01 and node02: each rank's figures stand (4,300 ns of kernels
    each, 8,600 ns in all) and the run says that rocprofiler's per-host clocks do not place one host's events against
    the other's; two databases of one host say nothing of the kind."""
    for hosts in (("node01", "node02"), ("node01", "node01")):
        run = tmp_path / "-".join(hosts)
        run.mkdir()
        for pid, h in zip((4242, 4243), hosts):
            _rocpd_on(run / f"{pid}_results.db", h)
        code, src = _analyze(run, tmp_path)
        assert code == 0 and src["summary"]["ranks"] == [0, 1] and src["summary"]["kernel_time_ns"] == 8_600
        said = [w for w in src["warnings"] if "monotonic clock" in w]
        if hosts[0] != hosts[1]:
            assert len(said) == 1 and "come from 2 hosts — node01 (1 file), node02 (1 file)" in said[0]
        else:
            assert not said


def test_rocpd_source_records_its_host(tmp_path):
    from gpulens.collectors import collect

    assert collect(_rocpd_on(tmp_path / "a.db", "node07")).meta.sources[0]["hostname"] == "node07"
    assert collect(_rocpd_on(tmp_path / "b.db", None)).meta.sources[0]["hostname"] is None
