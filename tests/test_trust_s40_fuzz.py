"""Session-40 fuzzing (tests/fuzz_s40.py and the known leftovers): one regression per fault kind, expected values
written by hand from the inputs built here.

* a rocprofv2 stdout capture whose first record follows more than 16 MiB of the program's own output was "not a
  recognised trace format" (the sniff looked 16 MiB far); a UTF-16 capture longer than 64 KiB was never offered to
  the further sniff (its head, transcoded to UTF-8, was under 64 KiB);
* ``gpulens profile`` of a script that closes file descriptors 1/2 (or ``sys.stdout``) exited 1 with no report;
* a number read out of text took the ASCII part of a run mixed with another script's digits (``rank1٣`` rank 1);
* the strict refusal of shared case B03c is one short line.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
SHARED_CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"

_REC = ("Domain(HIP_OPS_DOMAIN), Operation_Name(KernelExecution), Kernel_Name(vadd_{i}), Start_Timestamp({b}), "
        "End_Timestamp({e}), Correlation_ID({c})\n")


def _capture(junk_lines: int) -> tuple[bytes, int]:
    """A program's stdout: ``junk_lines`` lines of its own output, then 3 kernel records of 50 ns each; the
    junk's size in bytes."""
    junk = b"".join(b"epoch %07d: loss 0.1234 lr 0.001 (the program's own output)\n" % i for i in range(junk_lines))
    recs = "".join(_REC.format(i=i, b=1000 + 100 * i, e=1050 + 100 * i, c=i + 1) for i in range(3)).encode()
    return junk + recs, len(junk)


@pytest.mark.parametrize("packing", ["plain", "gzip"])
def test_rocprofv2_stdout_with_more_than_16_mib_before_the_first_record(tmp_path, packing):
    from gpulens.collectors import collect, sniff

    data, junk = _capture(290_000)  # 60 bytes a line: 17.4 MB, past the old 16 MiB (16,777,216 bytes) sniff
    assert junk > 16 << 20
    p = tmp_path / ("run_stdout.txt" + (".gz" if packing == "gzip" else ""))
    p.write_bytes(gzip.compress(data, 1) if packing == "gzip" else data)
    c = sniff(p)
    assert c is not None and c.name == "rocprofv2_tracer"  # was None: "not a recognised trace format"
    tl = collect(p)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert sorted(k["name"]) == ["vadd_0", "vadd_1", "vadd_2"]
    assert list(k["dur_ns"]) == [50, 50, 50]
    # every junk line dropped is counted: 290,000 of them
    assert any("290,000 lines dropped" in w for w in tl.meta.warnings), tl.meta.warnings


def test_rocprofv2_utf16_capture_longer_than_the_head_is_recognised(tmp_path):
    from gpulens.collectors import collect, sniff

    data, _ = _capture(2_000)  # 120 kB of output: 240 kB in UTF-16, whose UTF-8 head of 64 KiB holds no record
    p = tmp_path / "stdout_utf16.txt"
    p.write_bytes(data.decode().encode("utf-16"))
    assert sniff(p) is not None and sniff(p).name == "rocprofv2_tracer"
    tl = collect(p)
    assert int((tl.events["kind"] == "kernel").sum()) == 3


def test_a_large_unrecognised_text_file_is_still_refused(tmp_path):
    from gpulens.collectors import sniff

    p = tmp_path / "notes.txt"
    p.write_bytes(b"Domain is a word; nothing here is a record\n" * 5000)  # 215 kB, "Domain(" never written
    assert sniff(p) is None


def test_profile_workload_closing_stdout_and_stderr_leaves_gpulens_its_output(tmp_path):
    # the runner's guard alone (running a real `gpulens profile` imports torch: too slow for this file)
    code = (
        "import os, sys\n"
        "from gpulens.profiler.runner import std_streams_kept\n"
        "with std_streams_kept():\n"
        "    print('workload', flush=True)\n"
        "    os.close(1); os.close(2)\n"
        "with std_streams_kept():\n"
        "    sys.stdout.close(); sys.stderr.close()\n"
        "print('report after the workload')\n"
        "print('a warning', file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr  # was 1: "Bad file descriptor" when gpulens printed its report
    assert r.stdout == "workload\nreport after the workload\n"
    assert r.stderr == "a warning\n"


@pytest.mark.parametrize("text, want", [
    ("stream 7", 7), ("cuda:3", 3), ("Agent 12", 12),
    ("stream \u06637", None),  # Arabic-Indic 3 then 7: no number, was 7
    ("stream 7\u0663", None),
])
def test_trailing_id_mixed_with_other_script_digits_is_no_id(text, want):
    from gpulens.collectors._numbers import id_of_text

    assert id_of_text(text) == want


def test_rank_gpu_stream_and_grid_mixed_with_other_script_digits_are_no_number(tmp_path):
    from gpulens.collectors._chrome_dialects import xla_kernel_details
    from gpulens.collectors._parallel import file_rank
    from gpulens.collectors.rocprof_v1_text import _SIZE

    three = "\u0663"
    for name, want in ((f"rank1{three}.pt.trace.json", None), ("rank_12.pt.trace.json", 12)):
        f = tmp_path / name
        f.write_text('{"traceEvents": []}')
        assert file_rank(f) == want  # rank1٣ was rank 1
    assert xla_kernel_details("regs:32 grid:8,4,1 block:256,1,1") == {
        "regs": 32, "grid_x": 8, "grid_y": 4, "grid_z": 1, "block_x": 256, "block_y": 1, "block_z": 1}
    assert xla_kernel_details(f"grid:8,4,1{three}") == {}  # was grid 8×4×1
    assert _SIZE.search(b"hipMemcpy(sizeBytes=4096, kind=1)").group(1) == b"4096"
    assert _SIZE.search(f"hipMemcpy(sizeBytes=40{three})".encode()) is None  # was 40 bytes


def test_process_rank_and_gpu_labels_with_mixed_digits_are_no_number():
    from gpulens.collectors._kineto_ranks import _GPU_IN_PROCESS, _RANK_IN_PROCESS

    assert _RANK_IN_PROCESS.search("rank 3 (pid 77)").group(1) == "3"
    assert _RANK_IN_PROCESS.search("rank 3\u0663") is None  # was rank 3
    assert _GPU_IN_PROCESS.search("GPU 1\uff10") is None  # full-width 0 after 1: was GPU 1


@pytest.mark.skipif(not (SHARED_CASES / "B03c.json").exists(), reason="shared cases absent")
def test_b03c_strict_refusal_is_one_short_line():
    r = subprocess.run([sys.executable, "-m", "gpulens", "analyze", str(SHARED_CASES / "B03c.json"), "--no-cache"],
                       capture_output=True, text=True, timeout=120, env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    # the case's README: the bare `inf` at line 2, column 219
    assert "line 2, column 219" in lines[0] and "--lenient" in lines[0]
    path = str(SHARED_CASES / "B03c.json")
    assert len(lines[0]) - len(path) <= 300, lines[0]  # was 363 characters beside the path


def test_wave_occupancy_above_100_from_inconsistent_counters_is_unknown_and_counted(tmp_path):
    """rocprof-compute wave occupancy = 100 · SQ_ACCUM_PREV_HIRES / GRBM_GUI_ACTIVE / (32 wave slots · 104 CUs) on
    the MI210 (gfx90a, 1 XCD) of tests/data/omniperf/vcopy_MI200. Dispatch 1's GRBM_GUI_ACTIVE cut to a tenth
    (40,878 → 4,087, a lost digit) makes its figure 569 %: it was shown (320 % time-weighted); now unknown and
    counted, the kernel's achieved occupancy that of dispatches 0 and 2 alone."""
    import csv
    import json
    import shutil

    from gpulens.cli import main

    src = Path(__file__).resolve().parent / "data" / "omniperf" / "vcopy_MI200"
    d = tmp_path / "vcopy_MI200"
    shutil.copytree(src, d)
    f = d / "SQ_LEVEL_WAVES.csv"
    rows = list(csv.reader(f.open()))
    h = rows[0]
    g, acc = h.index("GRBM_GUI_ACTIVE"), h.index("SQ_ACCUM_PREV_HIRES")
    assert rows[2][g] == "40878"
    rows[2][g] = "4087"
    with f.open("w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    occ = {int(r[0]): 100 * int(r[acc]) / int(r[g]) / (32 * 104) for r in rows[1:]}
    assert occ[1] > 500  # the impossible one
    ts = list(csv.DictReader((d / "timestamps.csv").open()))
    dur = {int(r["Dispatch_ID"]): int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in ts}
    want = (occ[0] * dur[0] + occ[2] * dur[2]) / (dur[0] + dur[2])
    out = tmp_path / "r.json"
    assert main(["analyze", str(d), "-q", "--no-cache", "--json", str(out)]) == 0
    o = json.loads(out.read_text())["sources"][0]["analyses"]["occupancy"]
    assert o["summary"]["impossible_pct_values"] == 1
    (row,) = o["table"]
    assert abs(row["achieved_occupancy_pct"] - want) < 0.01, (row["achieved_occupancy_pct"], want)
