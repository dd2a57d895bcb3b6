"""Session 47, wave 2 — timeline leftovers: clock domains, unended events, nsys exec sum, Paddle threads, hints,
corrupt-gzip wording. One test per kind of fault; every expected value is derived in the test from the input it
builds (or from the format's documentation, cited beside it)."""

from __future__ import annotations

import pytest

from gpulens.collectors._hints import unsupported_format

# --- a hint that tells the user to record a file that is already there ---------------------------------------
# rocprofv3's PC-sampling CSV (header as rocprofiler-sdk's docs print it) is not read; the hint said "rocprofv3
# --kernel-trace writes <pid>_kernel_trace.csv beside it" even when that file lay beside it. Kind: a companion file
# the hint asks for, present. The same for the ATT instruction table and the PyTorch memory timeline.
_PCS = ('"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"\n'
        '346444441301720,18446744073709551615,1,"v_mov_b32 v1, s2","",1\n')
_MEM_TIMELINE = "[[1000, 0, 512, 1], [2000, 1, 512, 1]]\n"


@pytest.mark.parametrize("name, text, companion, ask", [
    ("4242_pc_sampling_host_trap.csv", _PCS, "4242_kernel_trace.csv", "--kernel-trace writes"),
    ("mem.raw.json", _MEM_TIMELINE, "run.pt.trace.json", "export_chrome_trace's"),
])
def test_hint_names_the_companion_file_only_when_absent(tmp_path, name, text, companion, ask):
    f = tmp_path / name
    f.write_text(text)
    alone = unsupported_format(f)
    assert alone is not None and ask in alone  # absent: say how to record it
    (tmp_path / "9999_other_kernel_trace.csv").write_text("x\n") if companion.endswith(".csv") else None
    (tmp_path / companion).write_text("{}\n")
    beside = unsupported_format(f)
    assert ask not in beside and f"{companion}, beside it" in beside  # present: name it (same run's first)


# --- corrupt gzip said as what happened -----------------------------------------------------------------------
# A gzip member ends with an 8-byte trailer: CRC-32 then ISIZE (RFC 1952 §2.3.1). A flipped trailer byte fails the
# check only after every byte of text decompressed: the reader said "what the file held after it is lost" and (for a
# Kineto trace) lost the events of the last decompress call. A flipped bit in the deflate data that still decodes
# makes the JSON stop parsing mid-file: it said "file ends inside traceEvents" though the file goes on. Kind: the
# words of a damaged gzip stream (cut short / corrupt / failed check) against what was lost.
def _gz_trace(n: int) -> tuple[bytes, bytes]:
    import gzip
    import json

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i % 5}", "pid": 0, "tid": 7, "ts": 1000 + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(n)]
    raw = json.dumps({"traceEvents": ev}).encode()
    return raw, gzip.compress(raw, 6, mtime=0)


@pytest.mark.parametrize("at", [-8, -6, -2])  # a CRC-32 byte, another CRC-32 byte, an ISIZE byte
def test_bad_gzip_trailer_keeps_every_event_and_says_nothing_is_lost(tmp_path, at):
    import zlib

    from gpulens.collectors import collect

    raw, gz = _gz_trace(20_000)  # ≈ 3 MB of text: more than one decompress call of the stream reader
    bad = bytearray(gz)
    bad[at] ^= 0x01
    with pytest.raises(zlib.error, match="incorrect (data|length) check"):
        zlib.decompress(bytes(bad), 31)
    p = tmp_path / "t.json.gz"
    p.write_bytes(bytes(bad))
    tl = collect(p)
    assert len(tl.events) == 20_000  # every event of the text (the number written above)
    said = [w for w in tl.meta.warnings if "gzip" in w]
    assert said and all("lost" not in w.replace("nothing is lost", "") for w in said)
    assert any(f"all {len(raw):,} bytes" in w for w in said)


def test_gzip_corrupt_mid_stream_is_not_said_to_end(tmp_path):
    import zlib

    from gpulens.collectors import collect

    raw, gz = _gz_trace(20_000)
    # flip bits in the middle of the deflate data until the stream still decodes to full length but the text differs
    # (a corrupt literal: the check fails only at the trailer) — found by trying, decided by zlib itself
    for k in range(len(gz) // 2, len(gz) // 2 + 4000):
        bad = bytearray(gz)
        bad[k] ^= 0x10
        d = zlib.decompressobj(-15)  # the raw deflate data after the 10-byte header (gzip.compress writes no name)
        try:
            text = d.decompress(bytes(bad[10:]))
        except zlib.error:
            continue  # this flip breaks the stream earlier: not the case tested here
        if len(text) == len(raw) and text != raw:
            break
    else:
        pytest.skip("no flip found that keeps the length")
    p = tmp_path / "t.json.gz"
    p.write_bytes(bytes(bad))
    tl = collect(p, strict=False)
    first_diff = next(i for i, (a, b) in enumerate(zip(text, raw)) if a != b)
    assert tl.meta.truncated and tl.meta.truncated_at[str(p)] <= first_diff + 200
    assert not any("file ends inside" in w for w in tl.meta.warnings)
    assert any("corrupt" in w and "the file does not end there" in w for w in tl.meta.warnings)


# --- Paddle host thread ids "11(C++)" ----------------------------------------------------------------------------
# PaddlePaddle's Chrome trace names host threads "11(C++)" / "12(Python)": read as no thread, every host thread merged
# into one. Kind: an id written as a number with a parenthesised label after it. Both Kineto reading paths (the native
# scanner's and msgspec's) must give each event its own thread, the same on both.
@pytest.mark.parametrize("fast", ["0", "1"])
def test_paddle_thread_ids_read_on_both_paths(tmp_path, monkeypatch, fast):
    import json

    from gpulens.collectors import collect

    monkeypatch.setenv("GPULENS_KINETO_FAST", fast)
    threads = [11, 12, 11, 13]
    labels = {11: "11(C++)", 12: "12(Python)", 13: "13 (C++)"}
    ev = [{"ph": "X", "cat": "Operator", "name": f"op{i}", "pid": 7, "tid": labels[t], "ts": 1000 + 10 * i, "dur": 4,
           "args": {}} for i, t in enumerate(threads)]
    ev.append({"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 1003, "dur": 2,
               "args": {"device": 0, "stream": 7, "correlation id": 5}})
    p = tmp_path / "paddle.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    e = collect(p).events
    ops = e[e["name"].astype(str).str.startswith("op")].sort_values("start_ns")
    assert ops["tid"].astype("Int64").tolist() == threads  # the number before each label, as written above


# --- GPU work with a start and no end ----------------------------------------------------------------------------
# A Kineto kernel written as a "B" event that no "E" ends was dropped with the host slices; a rocprofv3 row with a
# Start_Timestamp and an empty End_Timestamp was "no timestamps recorded". Kind: GPU work that ran, its length
# unknown — counted as a launch of unknown time (as an nsys row with a NULL end), the reason saying what is missing.
def test_kineto_unended_gpu_begin_is_an_untimed_launch(tmp_path):
    import json

    from gpulens.collectors import collect

    ev = [{"ph": "X", "cat": "kernel", "name": "k_timed", "pid": 0, "tid": 7, "ts": 1000, "dur": 10,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "B", "cat": "kernel", "name": "k_open", "pid": 0, "tid": 7, "ts": 1020,
           "args": {"device": 0, "stream": 7, "correlation": 2}},
          {"ph": "B", "cat": "cpu_op", "name": "host_open", "pid": 1, "tid": 1, "ts": 990, "args": {}},
          {"ph": "X", "cat": "cpu_op", "name": "host", "pid": 1, "tid": 1, "ts": 995, "dur": 3, "args": {}}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    tl = collect(p)
    rej = tl.rejected
    gpu = rej[rej["name"].astype(str) == "k_open"]
    assert len(gpu) == 1 and str(gpu["kind"].iloc[0]) == "kernel" and gpu["dur_ns"].isna().all()
    assert int(gpu["start_ns"].iloc[0]) == 1020 * 1000  # its recorded start (µs → ns)
    assert "host_open" not in set(rej["name"].astype(str))  # a host slice left open stays dropped and counted
    assert any("untimed launch" in w and "range never closed ×1" in w for w in tl.meta.warnings)
    assert any("1 begin (B) event never ended dropped" in w for w in tl.meta.warnings)  # the host one


def test_rocprofv3_row_with_start_and_no_end_says_so(tmp_path):
    from gpulens.collectors import collect

    head = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
            '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
    rows = ['"KERNEL_DISPATCH",1,1,69,1,16,"k_a",1,1000000,1005000,0,0,64,1,1,1024,1,1\n',
            '"KERNEL_DISPATCH",1,1,69,2,16,"k_b",2,1010000,,0,0,64,1,1,1024,1,1\n']
    p = tmp_path / "kernel_trace.csv"
    p.write_text(head + "".join(rows))
    tl = collect(p)
    assert list(tl.rejected["reason"].astype(str)) == ["start recorded, no end timestamp"]
    assert int(tl.rejected["start_ns"].iloc[0]) == 1010000  # the start the row holds


# --- nsys stats cuda_kern_exec_sum on its own ----------------------------------------------------------------------
# It was refused (exit 2) though its K columns are each kernel's execution times. Kind: an nsys stats report that
# holds per-kernel counts and times under other column names. Header as the NVIDIA Nsight Systems User Guide lists
# it (PID … KStdDev, API Name, Kernel Name); one kernel launched from two threads, one from one.
_EXEC = ("PID,TID,DevId,Count,QCount,TAvg (ns),TMed (ns),TMin (ns),TMax (ns),TStdDev (ns),AAvg (ns),AMed (ns),"
         "AMin (ns),AMax (ns),AStdDev (ns),QAvg (ns),QMed (ns),QMin (ns),QMax (ns),QStdDev (ns),KAvg (ns),KMed (ns),"
         "KMin (ns),KMax (ns),KStdDev (ns),API Name,Kernel Name\n"
         '100,101,0,4000,0,4000.0,3900.0,3000,9000,100.0,1712.7,1700.0,1500,3000,50.0,290855.5,290000.0,1000,500000,'
         '10.0,844.8,840.0,800,900,12.0,cudaLaunchKernel,"tiny_add_kernel(float *, int)"\n'
         '100,102,0,10,0,5000.0,5000.0,4000,6000,100.0,2000.0,2000.0,1500,3000,50.0,100.0,100.0,50,150,10.0,1000.0,'
         '1000.0,950,1050,20.0,cudaLaunchKernel,"tiny_add_kernel(float *, int)"\n'
         "100,101,0,2,0,9000.0,9000.0,8000,10000,100.0,2000.0,2000.0,1500,3000,50.0,100.0,100.0,50,150,10.0,5000.0,"
         "5000.0,4000,6000,1000.0,cuLaunchKernel,big_kernel\n")


def test_nsys_kern_exec_sum_alone_is_a_kernel_summary(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "report_cuda_kern_exec_sum.csv"
    p.write_text(_EXEC)
    ks = collect(p).tables["kernel_summary"].set_index("name")
    # by hand from the rows above: Σ Count, Σ KAvg × Count, min of KMin, max of KMax
    tiny = ks.loc["tiny_add_kernel(float *, int)"]
    assert int(tiny["calls"]) == 4010 and tiny["total_ns"] == pytest.approx(4000 * 844.8 + 10 * 1000.0)
    assert (tiny["min_ns"], tiny["max_ns"]) == (800, 1050)
    assert tiny["median_ns"] != tiny["median_ns"]  # two rows merged: their median is unknown (NaN)
    big = ks.loc["big_kernel"]
    assert (int(big["calls"]), big["total_ns"], big["median_ns"]) == (2, 10_000.0, 5000.0)


# --- two clock domains in one run ------------------------------------------------------------------------------------
# rocprofiler-sdk's docs data (v3_csv_sdk_docs) holds kernels at ~102 days of one clock and copies at ~4 h of another.
# Its figures looked contradictory ("computation 299.43 µs" beside "2 critical kernels (655.89 µs of GPU time)"): the
# kernels overlap on 4 queues (795.45 µs of kernel time in 299.43 µs of wall time), and "GPU time" read as wall time.
# Kind: figures of one GPU whose work lies on two time bases. Invariants checked on a hand-built run of any gap far
# beyond it: kernel busy ≤ busy ≤ span, the span is the sum of the two domains' own spans (never across the jump), the
# critical kernels are hotspots, and their time is named as summed kernel time.
def test_two_clock_domains_keep_every_figure_consistent(tmp_path):
    import json

    from gpulens.cli import main

    day = 86_400 * 10**9
    t0, t1 = 100 * day, 4 * 3600 * 10**9  # kernels on one clock, copies on another 100 days apart
    head = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
            '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
    # two queues overlap: k_a [0, 100) µs and k_b [50, 150) µs → kernel time 200 µs, kernel busy 150 µs
    kern = [(1, "k_a", 0, 100_000), (2, "k_b", 50_000, 150_000)]
    rows = "".join(f'"KERNEL_DISPATCH",1,{q},69,{i},16,"{n}",{i},{t0 + s},{t0 + e},0,0,64,1,1,1024,1,1\n'
                   for i, (q, n, s, e) in enumerate(kern, 1))
    d = tmp_path / "run"
    d.mkdir()
    (d / "kernel_trace.csv").write_text(head + rows)
    (d / "memory_copy_trace.csv").write_text(
        '"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp",'
        '"End_Timestamp"\n'
        f'"MEMORY_COPY","MEMORY_COPY_HOST_TO_DEVICE",0,1,0,{t1},{t1 + 400_000}\n'
        f'"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST",1,0,0,{t1 + 1_000_000},{t1 + 1_300_000}\n')
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", "--json", str(out), str(d)]) in (0, 1)
    s = json.loads(out.read_text())["sources"][0]
    sm = s["summary"]
    kernel_span, copy_span = 150_000, 1_300_000  # each domain's own first start → last end
    assert sm["kernel_time_ns"] == 200_000 and sm["span_ns"] == kernel_span + copy_span
    assert sm["kernel_busy_ns"] == 150_000 <= sm["gpu_busy_ns"] <= sm["span_ns"]
    assert sm["gpu_busy_ns"] == 150_000 + 400_000 + 300_000  # kernels and copies never overlap across clocks
    text = json.dumps(s)
    assert "of GPU time) could not be classified" not in text  # summed kernel time is not wall GPU time
