"""Regressions of the session-39 fuzzing left open after tests/test_trust_s39_fuzz.py, one per kind of fault, each
with its expected value worked out by hand from the input written here:

* a folder of Kineto rank files with one stray rocprofv2 ``*_hcc_ops_trace.txt`` was claimed by the rocprofv2
  tracer and the ranks' kernels dropped (a warning only): a folder mixing formats is read in the format holding the
  run's GPU work, the others named;
* a rocprofv2 stdout capture with more than 64 KiB of program output before its first record was "not a recognised
  trace format";
* a correlation id beyond int64 became unknown without a word;
* ``\\d`` in str patterns of analyzers/, reports/ and diff/ (other scripts' digits read by ``int()``).
"""

from __future__ import annotations

import json
from pathlib import Path


_V2_CLI = ("Domain(HIP_OPS_DOMAIN), Operation_Name(KernelExecution), Kernel_Name(k), Start_Timestamp({}), "
           "End_Timestamp({}), Correlation_ID({})\n")


def _kineto(path: Path, rank: int, durs_us: list[int]) -> None:
    """A Kineto trace of rank ``rank``: one kernel per duration (µs), 100 µs apart."""
    ev = [{"ph": "X", "cat": "kernel", "name": f"gemm{i}", "pid": 0, "tid": 7, "ts": 1000 + 100 * i, "dur": d,
           "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i, d in enumerate(durs_us)]
    path.write_text(json.dumps({"distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": ev}))


# ---------------------------------------------------------------------------------------------------- mixed folder
def test_stray_rocprofv2_file_does_not_drop_kineto_ranks(tmp_path):
    from gpulens.collectors import collect

    _kineto(tmp_path / "rank0.pt.trace.json", 0, [10, 20, 30])  # 60 µs
    _kineto(tmp_path / "rank1.pt.trace.json", 1, [40, 50])  # 90 µs
    (tmp_path / "4242_hcc_ops_trace.txt").write_text(_V2_CLI.format(1000, 2000, 1))  # one 1 µs kernel
    tl = collect(tmp_path, strict=False)
    k = tl.events[tl.events["kind"] == "kernel"]
    # was: the 1 µs rocprofv2 kernel alone, on rank 0; the 5 Kineto kernels (150 µs) "not read"
    assert len(k) == 5 and int(k["dur_ns"].sum()) == 150_000
    assert sorted(set(k["rank"].tolist())) == [0, 1]
    assert any("mixes formats" in w and "4242_hcc_ops_trace.txt" in w and "not read" in w
               for w in tl.meta.warnings)


def test_rocprofv2_folder_with_lesser_kineto_file_keeps_rocprofv2(tmp_path):
    from gpulens.collectors import collect

    # the rocprofv2 process holds 2 kernels of 5 µs (10 µs); the Kineto file one of 1 µs: rocprofv2 is the run
    (tmp_path / "4242_hcc_ops_trace.txt").write_text(_V2_CLI.format(1000, 6000, 1) + _V2_CLI.format(7000, 12000, 2))
    _kineto(tmp_path / "stray.pt.trace.json", 0, [1])
    tl = collect(tmp_path, strict=False)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 2 and int(k["dur_ns"].sum()) == 10_000
    assert any("other trace files in the folder are not read" in w and "stray.pt.trace.json (kineto)" in w
               for w in tl.meta.warnings)


# ---------------------------------------------------------------------------------------------------- late record
def test_rocprofv2_stdout_with_long_program_output_first_is_read(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "run.log"
    line = "epoch 0001: loss 0.12345, lr 3e-4 — the program's own output before rocprofv2's records\n"
    n = 100 * 1024 // len(line.encode()) + 1  # ≥ 100 KiB of program output: past the 64 KiB head
    p.write_text(line * n + _V2_CLI.format(1000, 3500, 7) + _V2_CLI.format(4000, 4250, 8))
    assert p.stat().st_size > 100 * 1024
    tl = collect(p, strict=False)  # was: "not a recognised trace format"
    k = tl.events[tl.events["kind"] == "kernel"]
    assert k["dur_ns"].tolist() == [2500, 250]  # 3500 − 1000, 4250 − 4000
    assert any(f"{n:,} lines dropped" in w for w in tl.meta.warnings)


# ---------------------------------------------------------------------------------------------------- ids past int64
def test_correlation_id_beyond_int64_is_counted_and_its_neighbour_kept(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "4242_hcc_ops_trace.txt"
    p.write_text(_V2_CLI.format(1000, 2000, 2 ** 64)  # 18446744073709551616: no int64 holds it
                 + _V2_CLI.format(3000, 3500, 2 ** 63 - 1)  # int64's largest: kept exactly
                 + _V2_CLI.format(4000, 4100, 5))
    tl = collect(p, strict=False)
    k = tl.events[tl.events["kind"] == "kernel"].sort_values("start_ns")
    assert k["correlation_id"].tolist()[1:] == [2 ** 63 - 1, 5] and k["correlation_id"].isna().tolist()[0]
    assert any("1 id value beyond int64 (±2^63) read as unknown: correlation ×1" in w for w in tl.meta.warnings)


def test_queue_id_beyond_int64_in_rocprof_csv_is_counted(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "results.csv"
    p.write_text("Index,KernelName,gpu-id,queue-id,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,"
                 "sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,DurationNs\n"
                 '0,"k",0,1e30,1,2,256,64,0,0,8,0,16,64,0,0,100,1000,2000,2100,1000\n'
                 '1,"k",0,99999999999999999999,1,2,256,64,0,0,8,0,16,64,0,0,100,3000,4000,4100,1000\n'
                 '2,"k",0,3,1,2,256,64,0,0,8,0,16,64,0,0,100,5000,6000,6100,1000\n')
    tl = collect(p, strict=False)
    q = tl.events[tl.events["kind"] == "kernel"].sort_values("start_ns")["stream_id"]
    assert q.isna().tolist() == [True, True, False] and int(q.iloc[2]) == 3  # 1e30 and 10^20 − 1 > 2^63
    assert any("2 id values beyond int64 (±2^63) read as unknown: queue ×2" in w for w in tl.meta.warnings)


# ---------------------------------------------------------------------------------------------------- digits
def test_numbers_in_names_take_ascii_digits_only():
    from gpulens.analyzers.telemetry import parse_metric
    from gpulens.diff.compute import variant_key
    from gpulens.reports._names import _itanium_idents

    three = "\u0663"  # ARABIC-INDIC DIGIT THREE: str.isdigit() and int() read it as 3
    assert parse_metric("telemetry.sm_clock.gpu3") == ("sm_clock", 3)
    assert parse_metric(f"telemetry.sm_clock.gpu{three}") is None  # was ("sm_clock", 3)
    assert variant_key(f"gemm_128x{three}") == f"gemm_#x{three}"  # only the ASCII run is a variant number
    # a mangled name's length prefixes: 7 "cutlass", 6 "Kernel" → cutlass::Kernel; an Arabic-Indic ٧ is no length
    assert _itanium_idents("_ZN7cutlass6KernelE") == "cutlass::Kernel"
    assert _itanium_idents(f"_ZN{chr(0x0667)}cutlass6KernelE") == f"_ZN{chr(0x0667)}cutlass6KernelE"
