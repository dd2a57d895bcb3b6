"""Real profiler outputs (session 47, "held-back real traces"): producers and versions gpulens had not read right.

1. PaddlePaddle's profiler (``paddle.profiler``, ``pid_<pid>_time_<time>.paddle_trace.json``, written by
   ``paddle/fluid/platform/profiler/chrometracing_logger.cc``: schema ``1.0.0`` of 2022 and ``1.0.1`` since, both read
   here from PaddlePaddle/Paddle's source, Apache-2.0; FastDeploy's LLM serving documents its backend traces in this
   format) writes each launch call's and each GPU record's correlation id as the arg ``"correlation id"`` — Kineto
   writes ``"correlation"`` — and its ``launch`` flows (``"cat": "async"``) start and end at the *midpoints* of the call
   and of the kernel. gpulens read no link: every Paddle trace said "the trace records N launch calls but no
   correlation id ties any of them to the GPU work: re-record with a profiler that writes correlation ids" — advice to
   re-record a trace that holds the ids. Kind: a producer's launch ↔ GPU links present in the file under another key,
   not read. Now read as the correlation id by both Kineto reading paths (the native scanner's key table and the
   msgspec rows), so each call links to its record as a Kineto call does.
2. The same traces' step ranges, ``ProfileStep#N`` (category ``ProfileStep`` in 1.0.1, ``profile_step`` in 1.0.0; the
   name of torch's is ``ProfilerStep#N``), were "kept as kind 'other'" and the steps analysis said "no ProfilerStep#N
   ranges in the trace"; so were the user ranges of ``paddle.profiler.RecordEvent`` (``UserDefined`` /
   ``PythonUserDefined``, ``user_defined`` in 1.0.0), absent from the annotation breakdown. Kind: a producer's step
   and user ranges not read as such. Now those categories are annotations and
   :data:`gpulens.timeline.selection.STEP_NAME` (the one definition every reader uses) takes either step spelling.

The inputs below are written event by event with the producer's own templates (keys, their order, number formats,
the closing ``{}`` event, Paddle's ``"%s[%.3f us]"`` names in 1.0.1); every expected figure is computed in the test
from the events it writes.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main


def _analyze(path: Path, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out),
                 "--markdown", str(tmp_path / "out.md"), "--html", str(tmp_path / "out.html")])
    return code, json.loads(out.read_text())["sources"][0]


def _shown(dur_us: float) -> str:
    """Paddle 1.0.1's duration suffix: ms with 3 decimals above 1 ms, else µs with 3 decimals."""
    return f"{dur_us / 1000:.3f} ms" if dur_us > 1000 else f"{dur_us:.3f} us"


def _x(name: str, cat: str, pid: int, tid: str, ts: int, dur: float, args: str, v101: bool) -> str:
    """One ``X`` event as chrometracing_logger.cc prints it (1.0.1: name suffixed, dur with 3 decimals; 1.0.0: whole µs)."""
    shown, d = (f"{name}[{_shown(dur)}]", f"{dur:.3f}") if v101 else (name, str(int(dur)))
    return (f'\n  {{ \n    "name": "{shown}", "pid": {pid}, "tid": {tid},\n    "ts": {ts}, "dur": {d},\n'
            f'    "ph": "X", "cat": "{cat}", \n    "args": {{\n      {args}\n    }}\n  }},\n  ')


def _flow(ph: str, corr: int, pid: int, tid: str, ts: int) -> str:
    """Paddle 1.0.1's ``launch`` flow: at the call's midpoint ('s') and at the kernel's midpoint ('f', ``bp`` e)."""
    bp = ', "bp": "e"' if ph == "f" else ""
    return (f'\n  {{ \n    "name": "launch", "id": {corr}, "pid": {pid}, "tid": {tid},\n    "ts": {ts}, \n'
            f'    "ph": "{ph}", "cat": "async"{bp}\n  }},\n  ')


#: (kernel, µs) launched in each step, 400 µs apart; the call 10 µs into its slot, 5 µs long, the kernel 20 µs later
_KERNELS = (("volta_sgemm_128x64_nn", 300.0), ("relu_kernel", 40.0))
_STEP_US = 1000


def _paddle_trace(path: Path, steps: int, v101: bool) -> Path:
    """A Paddle trace of ``steps`` steps (``ProfileStep#0`` …), each launching :data:`_KERNELS` on device 0, stream 7,
    from thread 11 of pid 4242 inside a user range ``forward_block`` (paddle.profiler.RecordEvent, 500 µs from 5 µs
    into the step); a 4 KiB D2H copy after the last step's kernels (1.0.0 only: its memcpy record)."""
    cat = {"step": "ProfileStep", "rt": "CudaRuntime", "k": "Kernel", "user": "PythonUserDefined"} if v101 else {
        "step": "profile_step", "rt": "cuda_runtime", "k": "kernel", "user": "user_defined"}
    host, py = ('"11(C++)"', '"11(Python)"') if v101 else ("11", "11")
    out, corr = [], 0
    for s in range(steps):
        t0 = 1000 + s * _STEP_US
        out.append(_x(f"ProfileStep#{s}", cat["step"], 4242, py, t0, float(_STEP_US), "", v101))
        out.append(_x("forward_block", cat["user"], 4242, py, t0 + 5, 500.0, "", v101))  # holds both launches
        for j, (name, dur) in enumerate(_KERNELS):
            corr += 1
            call = t0 + 10 + 400 * j
            out.append(_x("cudaLaunchKernel", cat["rt"], 4242, host, call, 5.0, f'"correlation id": {corr}', v101))
            kargs = (f'"device": 0, "context": 1,\n      "stream": 7, "correlation id": {corr},\n      '
                     '"registers per thread": 64,\n      "shared memory": 0,\n      "blocks per SM": 1.0,\n      '
                     '"warps per SM": 8.0,\n      "grid": [80, 1, 1],\n      "block": [256, 1, 1]')
            out.append(_x(name, cat["k"], 0, "7", call + 20, dur, kargs, v101))
            if v101:
                out += [_flow("s", corr, 4242, host, call + 2), _flow("f", corr, 0, "7", call + 20 + int(dur) // 2)]
    if v101:
        head = '\n  { \n    "schemaVersion": "1.0.1",\n    "displayTimeUnit": "ms",\n    "span_indx": "0",\n  '
    else:
        corr += 1
        t = 1000 + steps * _STEP_US
        out.append(_x("cudaMemcpyAsync", cat["rt"], 4242, host, t, 5.0, f'"correlation id": {corr}', v101))
        out.append(_x("MEMCPY_DtoH", "memcpy", 0, "7", t + 10, 20.0,
                      f'"stream": 7, "correlation id": {corr},\n      "bytes": 4096, "memory bandwidth (GB/s)": 0.2',
                      v101))
        head = '\n  { \n    "schemaVersion": "1.0.0",\n    "displayTimeUnit": "us",\n    "SpanNumber": "0",\n  '
    head += ('\n    "deviceProperties": [\n  \n    {\n       "id": 0, "name": "Tesla V100-SXM2-32GB", '
             '"totalGlobalMem": 4294967295,\n      "computeMajor": 7, "computeMinor": 0,\n      "smCount": 80\n'
             '    }],\n  \n    "traceEvents": [\n  ')
    path.write_text(head + "".join(out) + "\n  {}\n  ]\n  }\n  ")
    return path


def test_paddle_101_links_and_steps(tmp_path):
    """Schema 1.0.1: 3 steps × 2 launches. Expected (from the events written): 6 launch calls, 6 kernels, every kernel
    linked and every call with its kernel; 3 steps of 1,000 µs each; the kernels 3 × (300 + 40) = 1,020 µs; no advice
    to re-record for correlation ids, and the warning naming the 'correlation id' args."""
    p = _paddle_trace(tmp_path / "pid_4242_time_2024_01_01_00_00_00_000000.paddle_trace.json", 3, True)
    code, src = _analyze(p, tmp_path)
    assert code == 0
    ln = src["analyses"]["launches"]["summary"]
    assert (ln["launch_calls"], ln["kernels"], ln["kernels_linked"], ln["launch_calls_without_gpu_work"]) == (6, 6, 6, 0)
    st = src["analyses"]["steps"]["summary"]
    assert (st["step_count"], st["steps"], st["median_step_ns"]) == (3, [0, 1, 2], _STEP_US * 1000)
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (6, 3 * 340_000)
    text = json.dumps(src["findings"]) + (tmp_path / "out.md").read_text()
    assert "writes correlation ids" not in text and "no correlation id ties" not in text
    user = [r for r in src["analyses"]["annotations"]["table"] if r["annotation"] == "forward_block"]
    assert sorted((r["path"], r["calls"], r["gpu_time_ns"]) for r in user) == [  # one row per enclosing step
        (f"ProfileStep#{s} / forward_block", 1, 340_000) for s in range(3)]


def test_paddle_100_links_steps_and_copy(tmp_path):
    """Schema 1.0.0 (2022: lower-case categories, ``profile_step``, whole-µs durations, names without suffix): 2 steps,
    4 kernels and one 4,096 B D2H copy, each with its call. Expected: 5 launch-or-copy calls linked to their 5 GPU
    records (4 kernels linked), 2 steps of 1,000 µs, kernel time 2 × 340 µs, 1 copy of 4,096 B."""
    p = _paddle_trace(tmp_path / "pid_4242_time_2022-05-01-10:00:00.paddle_trace.json", 2, False)
    code, src = _analyze(p, tmp_path)
    assert code == 0
    ln = src["analyses"]["launches"]["summary"]
    assert (ln["kernels"], ln["kernels_linked"], ln["launch_calls_without_gpu_work"]) == (4, 4, 0)
    st = src["analyses"]["steps"]["summary"]
    assert (st["step_count"], st["total_step_ns"]) == (2, 2 * _STEP_US * 1000)
    assert (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (4, 2 * 340_000)
    assert not any("kind 'other'" in w for w in src["warnings"])  # the step marks are read, not set aside


def test_kineto_flows_and_own_ids_unchanged(tmp_path):
    """Controls. (a) A Kineto trace with its own ``correlation`` ids and a stray ``"correlation id"`` arg: linked by
    its own ids, no Paddle warning. (b) A torch step range ``ProfilerStep#4`` still reads as step 4, and a name that
    only looks like one (``ProfileSteps#4``) does not."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "args": {}},
          {"ph": "X", "cat": "user_annotation", "name": "ProfileSteps#4", "pid": 1, "tid": 1, "ts": 1, "dur": 50,
           "args": {}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
           "args": {"correlation": 9, "correlation id": 3}},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 30,
           "args": {"stream": 7, "correlation": 9, "device": 0}}]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    assert src["analyses"]["launches"]["summary"]["kernels_linked"] == 1
    assert not any("correlation id" in w for w in src["warnings"])
    assert src["analyses"]["steps"]["summary"]["steps"] == [4]


# --- rocprofv3 JSON traced without --kernel-trace -------------------------------------------------------------------
# 3. ``rocprofv3 --pmc SQ_WAVES --output-format json`` (counter collection only) writes each counted dispatch under
#    ``callback_records.counter_collection`` (its ``dispatch_data``: ``correlation_id`` and ``dispatch_info``) and no
#    ``buffer_records.kernel_dispatch``; ``rocprofv3 --pc-sampling-…`` writes ``buffer_records.pc_sample_host_trap`` /
#    ``pc_sample_stochastic`` (key names as rocprofiler-sdk's own tests read them). gpulens said "N counter records
#    match no kernel dispatch: left out" and "no GPU work — nothing ran on a GPU" for the first, "nothing ran on a GPU"
#    for the second, while the same run's ``counter_collection.csv`` read as its launches with their counters. Kind: GPU
#    work a file records in another section than the one read, called absent. Now counted dispatches without a dispatch
#    record are the run's launches, untimed, as the CSV's rows are; PC samples with no dispatch record make the verdict
#    "device work not read", naming them.


def _v3_doc(buffer_records: dict, counters: int = 0) -> dict:
    """A rocprofv3 JSON document of one process on one MI300X agent (node 2), kernel symbol 1 ``vadd(float*)``;
    ``counters`` counted dispatches (ids 1…) with one SQ_WAVES value (4,096 × id) each."""
    tool = {"metadata": {"pid": 213524, "init_time": 682678344984459, "fini_time": 682678842290172},
            "agents": [{"id": {"handle": 1}, "type": 1, "name": "AMD EPYC 9654", "node_id": 0},
                       {"id": {"handle": 2}, "type": 2, "name": "gfx942", "product_name": "AMD Instinct MI300X",
                        "cu_count": 304, "wave_front_size": 64, "node_id": 2}],
            "counters": [{"id": {"handle": 5}, "name": "SQ_WAVES"}],
            "kernel_symbols": [{"kernel_id": 1, "kernel_name": "vadd.kd", "truncated_kernel_name": "vadd",
                                "formatted_kernel_name": "vadd(float*)"}],
            "buffer_records": buffer_records,
            "callback_records": {"counter_collection": [
                {"dispatch_data": {"correlation_id": {"internal": i, "external": 0},
                                   "dispatch_info": {"agent_id": {"handle": 2}, "queue_id": {"handle": 1},
                                                     "kernel_id": 1, "dispatch_id": i,
                                                     "workgroup_size": {"x": 256, "y": 1, "z": 1},
                                                     "grid_size": {"x": 1048576, "y": 1, "z": 1}}},
                 "records": [{"counter_id": {"handle": 5}, "value": 4096.0 * i}]} for i in range(1, counters + 1)]}}
    return {"rocprofiler-sdk-tool": [tool]}


def test_rocprofv3_json_counter_collection_without_kernel_trace(tmp_path):
    """3 counted dispatches, no dispatch record. Expected: 3 launches of 1 kernel (vadd), durations not recorded,
    the SQ_WAVES values 4,096 + 8,192 + 12,288 = 24,576 kept; no "left out" warning and no "no GPU work"."""
    from gpulens.collectors import collect

    p = tmp_path / "213524_results.json"
    p.write_text(json.dumps(_v3_doc({}, counters=3)))
    code, src = _analyze(p, tmp_path)
    assert code == 0 and src["status"] != "no_gpu_work"
    assert not any("left out" in w for w in src["warnings"])
    assert any("no timestamps recorded ×3" in w for w in src["warnings"])
    tl = collect(p)
    ut = tl.tables["untimed_launches"]
    assert len(ut) == 3 and set(ut["name"].astype(str)) == {"vadd(float*)"}
    kc = tl.tables["unattached_counters"]
    assert kc.loc[kc["metric"].astype(str) == "SQ_WAVES", "value"].sum() == 24_576


def test_rocprofv3_json_pc_samples_only_are_device_work(tmp_path, capsys):
    """PC samples only (2 host-trap, 1 stochastic), no dispatch record. Expected: exit 5 with the device said to have
    worked (3 sample records named), verdict device-work-not-read — never "nothing ran on a GPU". Control: the same
    samples beside one kernel dispatch record read as that 1 kernel, with no such note."""
    samples = {"pc_sample_host_trap": [{"inst_index": 0, "record": {"dispatch_id": 1}}] * 2,
               "pc_sample_stochastic": [{"inst_index": 0, "record": {"dispatch_id": 1}}]}
    p = tmp_path / "213525_results.json"
    p.write_text(json.dumps(_v3_doc(samples)))
    code, src = _analyze(p, tmp_path)
    cap = capsys.readouterr()
    out = cap.out + cap.err
    assert code == 5
    assert "2 records of pc_sample_host_trap, 1 record of pc_sample_stochastic" in out and "device worked" in out
    assert "nothing ran on a GPU" not in out + (tmp_path / "out.md").read_text()
    assert src["summary"]["verdict"] == "device-work-not-read"
    disp = {"kernel_dispatch": [{"start_timestamp": 682678400000000, "end_timestamp": 682678400012000,
                                 "correlation_id": {"internal": 1, "external": 0}, "thread_id": 7,
                                 "dispatch_info": {"agent_id": {"handle": 2}, "queue_id": {"handle": 1},
                                                   "kernel_id": 1, "dispatch_id": 1}}], **samples}
    q = tmp_path / "213526_results.json"
    q.write_text(json.dumps(_v3_doc(disp)))
    code, src = _analyze(q, tmp_path)
    assert code == 0 and (src["summary"]["kernel_count"], src["summary"]["kernel_time_ns"]) == (1, 12_000)
    assert not any(s.get("unread_device_events") for s in src["inputs"])


# 4. ``rocprofv3 --pc-sampling-beta-enabled --pc-sampling-method host_trap --output-format csv`` writes
#    ``<pid>_agent_info.csv`` and ``<pid>_pc_sampling_host_trap.csv`` (header as rocprofiler-sdk's docs print it),
#    with ``--kernel-trace`` also ``<pid>_kernel_trace.csv``. The PC-sampling file alone is refused naming it, but in a
#    folder it was "not a recognised trace format" (no folder read), and beside a kernel trace it was dropped without a
#    word. Kind: a file of a run folder gpulens knows and does not read, unnamed or unsaid. Now a folder lists it with
#    the reason the file alone gets, and the rocprofv3 CSV folder reader says which files it did not read.
_PCS = ('"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"\n'
        '346444441301720,18446744073709551615,1,"v_mov_b32 v1, s2","",1\n'
        '346444441302720,18446744073709551615,1,"s_waitcnt vmcnt(0)","",1\n')


def test_rocprofv3_pc_sampling_csv_in_a_folder_is_named(tmp_path, capsys):
    import csv
    import shutil

    only = tmp_path / "pcs"
    only.mkdir()
    (only / "4242_pc_sampling_host_trap.csv").write_text(_PCS)
    code = main(["analyze", "-q", "--no-cache", str(only)])
    err = capsys.readouterr().err
    assert code == 2 and "4242_pc_sampling_host_trap.csv (a rocprofv3 PC-sampling CSV" in err
    run = tmp_path / "run"
    run.mkdir()
    src = Path(__file__).parent / "data" / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
    shutil.copy(src, run / "4242_kernel_trace.csv")
    (run / "4242_pc_sampling_host_trap.csv").write_text(_PCS)
    with src.open(newline="") as fh:
        rows = list(csv.DictReader(fh))  # the kernel count, from the file itself
    code, out = _analyze(run, tmp_path)
    assert code == 0 and out["summary"]["kernel_count"] == len(rows)
    assert any("1 file in the folder" in w and "4242_pc_sampling_host_trap.csv (a rocprofv3 PC-sampling CSV" in w
               for w in out["warnings"])
