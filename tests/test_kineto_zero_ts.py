"""``ts == 0`` is Kineto's "never recorded" placeholder only beside real timestamps far from 0 (case B06,
pytorch/kineto#109: kernels at ts 0 among events at 1.6e15 µs). A trace whose clock starts at 0 — timestamps
rebased by a tool, or relative to ``baseTimeNanoseconds`` — has real events at ts 0: the first kernel was dropped
as "impossible timestamp", losing its time from every total."""

from __future__ import annotations

import json

from gpulens.collectors import collect

from .conftest import CASES


def _rebased(tmp_path):
    ev = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 30,
         "args": {"External id": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 4,
         "args": {"correlation": 7, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": "k_first", "pid": 0, "tid": 7, "ts": 0, "dur": 8,
         "args": {"device": 0, "stream": 7, "correlation": 7, "External id": 1}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 6, "dur": 4,
         "args": {"correlation": 8, "External id": 1}},
        {"ph": "X", "cat": "kernel", "name": "k_second", "pid": 0, "tid": 7, "ts": 12, "dur": 20,
         "args": {"device": 0, "stream": 7, "correlation": 8, "External id": 1}},
    ]
    p = tmp_path / "rebased.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    return p


def test_events_at_ts_zero_of_a_rebased_trace_are_kept(tmp_path):
    tl = collect(_rebased(tmp_path), cache=False)
    k = tl.events[tl.events["kind"] == "kernel"]
    # from the file: k_first 0..8 µs, k_second 12..32 µs → 2 kernels, 28 µs summed, span 0..32 µs
    assert sorted(k["name"].astype(str)) == ["k_first", "k_second"]
    assert int(k["dur_ns"].sum()) == 28_000
    assert int(k["start_ns"].min()) == 0 and int((k["start_ns"] + k["dur_ns"]).max()) == 32_000
    assert len(tl.rejected) == 0


def test_placeholder_ts_zero_among_absolute_timestamps_is_still_rejected():
    # B06 (README): k_unset has ts 0 / dur 0 beside events at T = 1615207264505000 µs → rejected, reason 2
    tl = collect(CASES / "B06.json", cache=False)
    names = set(tl.rejected["name"].astype(str))
    assert "k_unset" in names
    assert "k_unset" not in set(tl.events["name"].astype(str))


def test_profiler_span_from_zero_reaching_the_steps_is_kept(tmp_path):
    # a rebased trace whose first event is the profiler's own span (ts 0, 900 µs) and whose work starts at 880 µs:
    # the others span 880..1,400 µs (520 µs); the span counted from 0 stretches that to 1,400 µs (2.7×, not > 11×):
    # a real event, kept (the others' extent counts their ends, not only their starts: 880..885 µs would be 5 µs)
    ev = [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
           "ts": 0, "dur": 900},
          {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 880, "dur": 520},
          {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 885, "dur": 10,
           "args": {"device": 0, "stream": 7}}]
    p = tmp_path / "span0.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    tl = collect(p, cache=False)
    assert len(tl.rejected) == 0 and "PyTorch Profiler (0)" in set(tl.events["name"].astype(str))


def test_zero_start_with_a_duration_far_past_the_others_is_a_placeholder(tmp_path):
    # ts 0 with a garbage duration (2e15 µs) beside events at T spanning 40 µs: counted, it would stretch the span
    # to ~51 years — rejected like B06's ts 0/dur 0, and the span stays the 40 µs of the real events
    T = 1_615_207_264_505_000
    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": ts, "dur": d,
           "args": {"device": 0, "stream": 7}}
          for n, ts, d in (("k_bad", 0, 2 * T), ("k1", T, 10), ("k2", T + 25, 15))]
    p = tmp_path / "garbage.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    tl = collect(p, cache=False)
    assert list(tl.rejected["name"].astype(str)) == ["k_bad"]
    k = tl.gpu_events()
    assert int((k["start_ns"] + k["dur_ns"]).max() - k["start_ns"].min()) == 40_000


def _v3_csv(path, rows):
    head = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
            '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
    body = "".join(f'"KERNEL_DISPATCH",1,1,69,{i + 1},16,"{n}",{i + 1},{s},{e},0,0,64,1,1,1024,1,1\n'
                   for i, (n, s, e) in enumerate(rows))
    path.write_text(head + body)
    return path


def test_rocprofv3_clock_from_zero_keeps_its_first_kernel(tmp_path):
    # the rule is the Kineto reader's for every dispatch format: a clock that starts at 0 (0..10, 12..20, 25..30 µs)
    # keeps the kernel at 0 → 3 kernels, 10 + 8 + 5 = 23 µs
    p = _v3_csv(tmp_path / "kernel_trace.csv", [("a", 0, 10_000), ("b", 12_000, 20_000), ("c", 25_000, 30_000)])
    tl = collect(p, cache=False)
    assert len(tl.rejected) == 0 and int(tl.gpu_events()["dur_ns"].sum()) == 23_000


def test_rocprofv3_placeholder_zero_beside_real_timestamps_is_rejected(tmp_path):
    T = 8_819_330_200_067_564  # the SDK docs' clock (ns)
    p = _v3_csv(tmp_path / "kernel_trace.csv", [("unset", 0, 0), ("a", T, T + 10_000), ("b", T + 20_000, T + 35_000)])
    tl = collect(p, cache=False)
    assert list(tl.rejected["name"].astype(str)) == ["unset"]
    assert set(tl.rejected["reason"].astype(str)) == {"zero timestamp (never recorded)"}
    assert int(tl.gpu_events()["dur_ns"].sum()) == 25_000
