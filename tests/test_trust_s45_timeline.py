"""Timeline fidelity (session 45): time and events that were counted wrong. Each test builds its input here and
derives the expected values by hand from it.

1. Allocator (``[memory]``) events before the first traced op gave a negative ``peak_offset_ns``: the rank's profiled
   window starts at its first event *or* allocator event (``selection.window_origin``, one origin for every offset
   and for ``--window``), so no offset is negative.
2. A kernel refused for an impossible time (negative or unreadable ``dur``) left its time as measured GPU idle
   (idle 30 µs, no bound): unknown time is never idle — the idle is "at most", busy "at least", as for a kernel with
   no time recorded (``_unknown_time.gpu_rows_of_unknown_time``).
3. Untimed idle was put on every GPU of a rank that drove several GPUs (a refused row records no GPU) without a
   word: the bound now says it is per rank ("rank 0 drove 2 GPUs: each of its GPUs counts it — a bound per rank,
   not per GPU"); one-GPU ranks read as before.
4. A ``nan`` kernel time read differently by collector: Kineto's JSON ``NaN`` kept the kernel as an untimed launch,
   its string ``"nan"`` and a rocprofv3/rocprof CSV ``nan`` cell refused it as corrupt. ``nan`` is the float NaN
   written out (Python csv/str/json): every collector now reads it as "not recorded" — the kernel counted as an
   untimed launch, its time unknown, a warning counting it — and ``inf`` stays a corrupt (refused) time.
8. The slow-step finding added a step's whole excess over the median as wall time when its GPU idle had no bound
   (a rank without GPU events, no common clock) — even past the run's last event (a corrupt step end: 9.99 s at
   stake in a 129 ms run), and, when only some slow steps lacked a bound, made the idle-capped part a root beside
   the idle finding that holds it. Now each step is cut to its rank's run (first → last non-annotation event) and
   only steps with a bound are counted under ``idle`` when any has one.
5. A truncated SQLite file (nsys export, rocpd database) was refused even with ``--lenient``: SQLite rejects the
   whole file once a schema page lies past the cut. With ``--lenient`` the complete pages are now read by the file
   format (:mod:`gpulens.collectors._sqlite_recover`: the b-trees walked over the pages present) into a private copy,
   with a warning counting pages and rows; without it, the one-line error naming the file stays.
6. Kineto traces linked only by ``ac2g`` flow events (no ``args.correlation``: older PyTorch) had no kernel
   linked to its launch (``kernels_linked`` 0): the flows now give the ids (:mod:`gpulens.collectors._kineto_flows`).
9. The first launch of a kernel after its module was loaded (CUDA lazy loading: cuLibraryLoadData, a 1 ms
   cudaLaunchKernel, then the kernel starting 1.1 ms after its launch returned — nsys p4arth/cuda-perf-sandbox) was
   called "a dependency outside the capture"; it is now said in GPU terms: the GPU waited for the kernel's module to
   be loaded, a one-off start-up cost (``_idle_blocking.MODULE_LOAD_RE``).
7. Copies and fills named ``CUDA memcpy DtoD`` (no brackets: nvprof / older nsys), ``hipMemcpyDtoD`` (rocprof copy
   records named by their API call) were counted as computation: one rule table classifies every spelling.
"""

from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.collectors import collect


def _mem(ts: float, total: int, delta: int) -> dict:
    return {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts, "s": "t",
            "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": delta, "Total Allocated": total,
                     "Total Reserved": 2048}}


def _kineto(path, events) -> str:
    path.write_text(json.dumps({"traceEvents": events,
                                "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}]}))
    return str(path)


def _op_launch_kernel(ts_op: float, corr: int, name: str = "gemm", kts: float | None = None, kdur: float = 10.0,
                      cat: str = "kernel") -> list[dict]:
    kts = ts_op + 10.0 if kts is None else kts
    return [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": ts_op, "dur": 20.0,
             "args": {"External id": corr}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts_op + 5.0,
             "dur": 5.0, "args": {"correlation": corr, "External id": corr}},
            {"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": kts, "dur": kdur,
             "args": {"device": 0, "stream": 7, "correlation": corr, "External id": corr}}]


# --- 1. allocator events before the first op ---------------------------------------------------------------------

def _early_alloc_trace(tmp_path) -> str:
    # allocations at 90 µs (512 B total) and 95 µs (1024 B total, the peak), the first op at 100 µs, a free at 115 µs
    return _kineto(tmp_path / "mem.pt.trace.json",
                   [_mem(90.0, 512, 512), _mem(95.0, 1024, 512), *_op_launch_kernel(100.0, 7), _mem(115.0, 768, -256)])


def test_allocations_before_the_first_op_have_non_negative_offsets(tmp_path):
    res = gpulens.analyze([_early_alloc_trace(tmp_path)]).sources[0].results
    row = res["memory_timeline"].table.set_index("device").loc["cuda:0"]
    # the window starts at the first allocator event (90 µs): the peak at 95 µs is 5 µs into it (was −5 µs from the op)
    assert int(row["peak_offset_ns"]) == 5_000
    series = res["memory_series"].table
    assert int(series["offset_ns"].min()) == 0 and (series["offset_ns"] >= 0).all()
    # every other offset counts from the same origin: the one step-less kernel's launch op starts 10 µs in
    assert "first event or allocator event" in res["memory_timeline"].columns["peak_offset_ns"]


def test_window_counts_from_the_same_origin_as_the_memory_offsets(tmp_path):
    from gpulens.timeline.selection import Selection

    p = _early_alloc_trace(tmp_path)
    # --window 0:8us from the origin (90 µs): both early allocations (90, 95 µs) and no op (100 µs) lie inside
    tl = collect(p, select=Selection.parse(window="0:8us"))
    assert sorted(tl.tables["memory"]["time_ns"].tolist()) == [90_000, 95_000]
    assert not (tl.events["kind"].astype(str) == "cpu_op").any()
    # --window 10us:40us: from 100 µs (the op's start) on; the free at 115 µs is kept, the early allocations are not
    tl = collect(p, select=Selection.parse(window="10us:40us"))
    assert tl.tables["memory"]["time_ns"].tolist() == [115_000]
    assert (tl.events["kind"].astype(str) == "cpu_op").sum() == 1


# --- 7. copy and fill spellings -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "kind"), [
    ("CUDA memcpy DtoD", "memcpy"), ("[CUDA memcpy DtoD]", "memcpy"), ("CUDA memcpy HtoD", "memcpy"),
    ("[CUDA memcpy Device-to-Device]", "memcpy"), ("Memcpy DtoD (Device -> Device)", "memcpy"),
    ("CopyDeviceToDevice", "memcpy"), ("hipMemcpyDtoD", "memcpy"), ("hipMemcpyAsync", "memcpy"),
    ("cuMemcpyHtoDAsync_v2", "memcpy"), ("CUDA memset", "memset"), ("[CUDA memset]", "memset"),
    ("memset", "memset"), ("Memset (Device)", "memset"), ("hipMemsetAsync", "memset"), ("FillBuffer", "memset"),
    # not copies: a GEMM, and a launch API name
    ("ampere_sgemm_128x64_nn", "kernel"), ("hipExtModuleLaunchKernel", "kernel")])
def test_every_copy_and_fill_spelling_is_classified(name, kind):
    from gpulens.collectors._work_rules import kind_of_kernel_name

    assert kind_of_kernel_name(name) == kind


def test_unbracketed_copy_names_are_not_computation_in_a_trace(tmp_path):
    # a kernel record named "CUDA memcpy DtoD" (10 µs) and one named hipMemsetAsync (4 µs), beside a 10 µs GEMM
    ev = [*_op_launch_kernel(100.0, 1, "CUDA memcpy DtoD"), *_op_launch_kernel(130.0, 2, "hipMemsetAsync", kdur=4.0),
          *_op_launch_kernel(160.0, 3, "sgemm_128x64")]
    tl = collect(_kineto(tmp_path / "copies.pt.trace.json", ev))
    kinds = dict(zip(tl.events["name"].astype(str), tl.events["kind"].astype(str)))
    assert kinds["CUDA memcpy DtoD"] == "memcpy" and kinds["hipMemsetAsync"] == "memset"
    assert kinds["sgemm_128x64"] == "kernel"


# --- 4. a "nan" kernel time, one behaviour in every collector ------------------------------------------------------

def _nan_kineto(tmp_path, dur_text: str) -> str:
    # kernels a (10 µs), b (time "nan"), c (10 µs): the JSON text of b's dur written as given
    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": ts, "dur": "@DUR@" if n == "b" else 10.0,
           "args": {"device": 0, "stream": 7}} for n, ts in (("a", 100.0), ("b", 120.0), ("c", 140.0))]
    p = tmp_path / "nan.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": ev}).replace('"@DUR@"', dur_text))
    return str(p)


def _nan_rocprofv3(tmp_path, end_text: str) -> str:
    # dispatches a (1000-1100 ns), b (end "nan"), c (1400-1500 ns)
    d = tmp_path / "v3"
    d.mkdir()
    (d / "kernel_trace.csv").write_text(
        '"Kind","Agent_Id","Queue_Id","Dispatch_Id","Kernel_Name","Start_Timestamp","End_Timestamp"\n'
        '"KERNEL_DISPATCH",1,1,1,"a(int)",1000,1100\n'
        f'"KERNEL_DISPATCH",1,1,2,"b(int)",1200,{end_text}\n'
        '"KERNEL_DISPATCH",1,1,3,"c(int)",1400,1500\n')
    return str(d / "kernel_trace.csv")


def _rocprof_v1(tmp_path, times: str) -> str:
    head = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
            "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs,DurationNs\n")

    def row(i, name, t):
        return f'{i},"{name} [clone .kd]",2,0,{i},100,100,1024,256,0,0,8,0,16,64,0x0,0x0,{t}\n'

    p = tmp_path / "results.csv"
    p.write_text(head + row(0, "a", "900,1000,1100,1100,100") + row(1, "b", times)
                 + row(2, "c", "1300,1400,1500,1500,100"))
    return str(p)


@pytest.mark.parametrize(("maker", "text", "timed_ns"), [
    (_nan_kineto, "NaN", 20_000), (_nan_kineto, '"nan"', 20_000), (_nan_kineto, '"NaN"', 20_000),
    (_nan_rocprofv3, "nan", 200), (_nan_rocprofv3, "NaN", 200),
    (_rocprof_v1, "nan,nan,nan,nan,nan", 200)])
def test_a_nan_kernel_time_is_an_untimed_launch_in_every_collector(tmp_path, maker, text, timed_ns):
    src = gpulens.analyze([maker(tmp_path, text)]).sources[0]
    hs = src.results["hotspots"].summary
    # three launches, one of unknown time: counted, not in the timed total (a + c), the whole total unknown
    assert hs["kernel_count"] == 3 and hs["untimed_launches"] == 1
    assert hs["timed_kernel_time_ns"] == timed_ns and hs["kernel_time_ns"] is None
    said = " ".join(src.timeline.meta.warnings)
    assert "×1" in said and "unreadable" not in said


@pytest.mark.parametrize(("maker", "text"), [(_nan_kineto, "Infinity"), (_nan_kineto, '"inf"'),
                                             (_nan_rocprofv3, "inf")])
def test_an_infinite_kernel_time_stays_a_corrupt_row(tmp_path, maker, text):
    src = gpulens.analyze([maker(tmp_path, text)]).sources[0]
    said = " ".join(src.timeline.meta.warnings)
    assert "unreadable" in said and "×1" in said
    hs = src.results["hotspots"].summary
    assert hs.get("untimed_launches") in (0, None) and hs["kernel_count"] == 2  # refused: a and c only


# --- 2. a refused kernel's unknown time is not idle --------------------------------------------------------------

@pytest.mark.parametrize("dur_text", ["-5.0", '"inf"', "1e400"])
def test_a_refused_kernel_time_is_not_counted_as_idle(tmp_path, dur_text):
    # a [100, 110) µs, b at 120 µs refused, c [140, 150) µs: span 50 µs, timed busy 20 µs, gaps 30 µs
    src = gpulens.analyze([_nan_kineto(tmp_path, dur_text)]).sources[0]
    b = src.results["breakdown"].summary
    assert b["span_ns"] == 50_000 and b["busy_ns"] == 20_000 and b["idle_ns"] == 30_000
    # the 30 µs may hold b: an upper bound, never a measured idle
    assert b["idle_untimed_ns"] == 30_000 and b["untimed_gpu_work"] == 1
    assert b["idle_bound"].startswith("at most 30.00 µs") and b["busy_bound"] == "at least"
    assert "per rank" not in b["idle_bound"]  # one GPU: the bound is that GPU's
    from gpulens.reports.console import render

    text = render(gpulens.analyze([_nan_kineto(tmp_path, dur_text)]))
    assert "≤ 30.00 µs" in text and "busy at least 40.0 %" in text


def test_a_timed_trace_keeps_a_measured_idle(tmp_path):
    b = gpulens.analyze([_nan_kineto(tmp_path, "10.0")]).sources[0].results["breakdown"].summary
    assert b["idle_ns"] == 20_000 and b["idle_untimed_ns"] == 0 and b["idle_bound"] is None


# --- 8. a slow step's time lies inside the run ---------------------------------------------------------------------
_MS = 1000.0  # µs


def _steps(rank_pid: int, steps, ops) -> list[dict]:
    ev = [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{j + 1}", "pid": rank_pid, "tid": 1,
           "ts": a * _MS, "dur": d * _MS} for j, (a, d) in enumerate(steps)]
    ev += [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": rank_pid, "tid": 1, "ts": t * _MS, "dur": _MS}
           for t in ops]
    return ev


def test_a_slow_step_past_the_last_event_is_cut_to_the_run(tmp_path):
    # CPU-only run: steps at 0, 10, 20 ms of 10 ms and at 30 ms recorded as 10 s long (corrupt end); ops of 1 ms at
    # 1, 11, 21, 31 and 129 ms: the run is [1, 130) ms. Median step 10 ms; step 4 inside the run is [30, 130) ms =
    # 100 ms, 90 ms over the median (was 10 s − 10 ms = 9.99 s of wall time at stake)
    p = tmp_path / "cpu_steps.json"
    p.write_text(json.dumps({"traceEvents": _steps(1, [(0, 10), (10, 10), (20, 10), (30, 10_000)],
                                                   [1, 11, 21, 31, 129])}))
    fs = [f for r in gpulens.analyze([p]).sources[0].results.values() for f in r.findings]
    step = next(f for f in fs if f.category == "step-time")
    assert step.time_at_stake_ns == 90 * 10**6 and step.parent is None


def test_slow_steps_with_and_without_a_gpu_bound_count_only_the_bounded_idle(tmp_path):
    # rank 0 (s44's trace): steps (0,10) (10,10) (20,10) (30,100) ms, a 1 ms kernel 1 ms into each step and at 129 ms;
    # step 4 holds 98 ms of GPU idle, 90 ms over the median. Rank 1 in the same Timeline has no GPU events: its slow
    # step (30, 100) ms has no idle bound. The finding counts 90 ms under `idle` (was: 90 + 90 ms as a root)
    ev = _steps(1, [(0, 10), (10, 10), (20, 10), (30, 100)], [])
    for j, t in enumerate([1, 11, 21, 31, 129]):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": t * _MS - 500, "dur": 100, "args": {"correlation": j + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t * _MS, "dur": _MS,
                   "args": {"device": 0, "stream": 7, "correlation": j + 1}})
    p0, p1 = tmp_path / "rank0.json", tmp_path / "rank1.json"
    p0.write_text(json.dumps({"distributedInfo": {"rank": 0}, "traceEvents": ev}))
    p1.write_text(json.dumps({"distributedInfo": {"rank": 1}, "traceEvents": _steps(
        1, [(0, 10), (10, 10), (20, 10), (30, 100)], [1, 11, 21, 31, 129])}))
    from gpulens.collectors import collect
    from gpulens.report import analyze_timeline
    from gpulens.timeline import concat

    src = analyze_timeline(concat([collect(p0), collect(p1)]))
    step = next(f for r in src.results.values() for f in r.findings if f.category == "step-time")
    assert step.time_at_stake_ns == 90 * 10**6 and step.parent == "idle"
    assert "1 slow step shares no clock with the GPU events" in step.detail


# --- 6. launches linked by ac2g flows only ----------------------------------------------------------------------------

def _flow_trace(tmp_path, gz: bool = False) -> str:
    # three op → cudaLaunchKernel (at op + 5 µs) → kernel (at op + 20 µs, 8 µs long); no event has a correlation arg,
    # each launch → kernel pair is one ac2g flow (s at the call's ts, f at the kernel's ts), ids 11, 12, 13
    ev = []
    for i, (t, k) in enumerate([(100.0, "gemm"), (130.0, "relu"), (160.0, "gemm")]):
        ev += [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t, "dur": 20.0, "args": {}},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 5,
                "dur": 5.0, "args": {}},
               {"ph": "X", "cat": "kernel", "name": k, "pid": 0, "tid": 7, "ts": t + 20, "dur": 8.0,
                "args": {"device": 0, "stream": 7}},
               {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 11 + i, "pid": 1, "tid": 1, "ts": t + 5},
               {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 11 + i, "pid": 0, "tid": "stream 7", "ts": t + 20,
                "bp": "e"}]
    text = json.dumps({"traceEvents": ev})
    if gz:
        import gzip

        p = tmp_path / "flows.pt.trace.json.gz"
        p.write_bytes(gzip.compress(text.encode()))
        return str(p)
    p = tmp_path / "flows.pt.trace.json"
    p.write_text(text)
    return str(p)


@pytest.mark.parametrize("gz", [False, True])
def test_kernels_linked_only_by_ac2g_flows_are_linked(tmp_path, gz):
    p = _flow_trace(tmp_path, gz)
    tl = collect(p)
    ev = tl.events.sort_values("start_ns")
    calls = ev[ev["kind"].astype(str) == "runtime"]
    kern = ev[ev["kind"].astype(str) == "kernel"]
    assert calls["correlation_id"].tolist() == [11, 12, 13] and kern["correlation_id"].tolist() == [11, 12, 13]
    assert [w for w in tl.meta.warnings if "ac2g" in w] == [
        f"{p}: no event carries a correlation id: 3 GPU events linked to 3 launch calls through the trace's ac2g "
        "flow events (launch → kernel arrows)"]
    res = gpulens.analyze([p]).sources[0].results
    assert res["launches"].summary["kernels_linked"] == 3 and res["launches"].summary["kernels_unlinked"] == 0
    # launch → kernel start: op + 5 µs → op + 20 µs = 15 µs each
    assert res["launch_latency"].summary["latency_p50_ns"] == 15_000


def test_flows_do_not_override_correlation_ids(tmp_path):
    # the same trace with args.correlation 1, 2, 3 on calls and kernels: the trace's own ids stay, no warning
    doc = json.loads(open(_flow_trace(tmp_path)).read())
    n = 0
    for e in doc["traceEvents"]:
        if e["ph"] == "X" and e["cat"] in ("cuda_runtime", "kernel"):
            e["args"]["correlation"] = 1 + n // 2
            n += 1
    p = tmp_path / "own_ids.pt.trace.json"
    p.write_text(json.dumps(doc))
    tl = collect(p)
    assert sorted(tl.events["correlation_id"].dropna().tolist()) == [1, 1, 2, 2, 3, 3]
    assert not [w for w in tl.meta.warnings if "ac2g" in w]


# --- 3. untimed idle on a rank of several GPUs is said to be per rank ---------------------------------------------

def test_untimed_idle_on_a_rank_of_two_gpus_is_said_per_rank(tmp_path):
    # rank 0 drives GPU 0 (a, b, c timed: 100-110, 120-130, 140-150 µs) and GPU 1 (a 101-111, b "nan", c 141-151 µs):
    # GPU 0 idle 20 µs, GPU 1 idle 30 µs; b's GPU is in the trace, the refused row keeps none: both GPUs are bounds
    ev = []
    for dev in (0, 1):
        for n, ts in (("a", 100.0), ("b", 120.0), ("c", 140.0)):
            ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": dev, "tid": 7, "ts": ts + dev,
                       "dur": "@NAN@" if (dev, n) == (1, "b") else 10.0, "args": {"device": dev, "stream": 7}})
    p = tmp_path / "two.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": ev}).replace('"@NAN@"', '"nan"'))
    b = gpulens.analyze([str(p)]).sources[0].results["breakdown"]
    t = b.table.sort_values("device_id")
    assert t["idle_ns"].tolist() == [20_000, 30_000] and t["idle_untimed_ns"].tolist() == [20_000, 30_000]
    bound = b.summary["idle_bound"]
    assert bound.startswith("at most 50.00 µs: 1 GPU launch ran without a usable recorded start or end")
    assert bound.endswith("(the GPU it ran on is not recorded, and rank 0 drove 2 GPUs: each of its GPUs counts it "
                          "— a bound per rank, not per GPU)")


# --- 9. a lazy module load gap is said as such ------------------------------------------------------------------------

def _lazy_trace(tmp_path, first_run: bool = True) -> str:
    # µs, after nsys p4arth/cuda-perf-sandbox report1: HtoD copy [0, 1782); cuLibraryLoadData [283, 1371);
    # cudaLaunchKernel [1389, 2429) (1.04 ms: the lazy load); cudaDeviceSynchronize [2432, 3581); the kernel
    # [3548, 3587): a 1,766 µs gap after the copy, its launch returned 1,119 µs before it started
    host = [("cudaMemcpyAsync", -10.0, 5.0, 1), ("cuLibraryLoadData", 283.0, 1088.0, 2),
            ("cudaLaunchKernel", 1389.0, 1040.0, 3), ("cudaDeviceSynchronize", 2432.0, 1149.0, 4)]
    ev = [{"ph": "X", "cat": "cuda_driver" if n.startswith("cu") and not n.startswith("cuda") else "cuda_runtime",
           "name": n, "pid": 1, "tid": 1, "ts": t, "dur": d, "args": {"correlation": c}} for n, t, d, c in host]
    ev += [{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
            "ts": 0.0, "dur": 1782.0, "args": {"device": 0, "stream": 7, "correlation": 1, "bytes": 4096}},
           {"ph": "X", "cat": "kernel", "name": "kernVectorAdd", "pid": 0, "tid": 7, "ts": 3548.0, "dur": 39.0,
            "args": {"device": 0, "stream": 7, "correlation": 3}}]
    if not first_run:  # the same kernel ran before the copy: this launch loads nothing
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": -60.0,
                "dur": 4.0, "args": {"correlation": 9}},
               {"ph": "X", "cat": "kernel", "name": "kernVectorAdd", "pid": 0, "tid": 7, "ts": -50.0, "dur": 39.0,
                "args": {"device": 0, "stream": 7, "correlation": 9}}]
    p = tmp_path / ("lazy.pt.trace.json" if first_run else "warm.pt.trace.json")
    p.write_text(json.dumps({"traceEvents": ev}))
    return str(p)


def test_a_lazy_module_load_gap_is_said_in_gpu_terms(tmp_path):
    src = gpulens.analyze([_lazy_trace(tmp_path)]).sources[0]
    big = src.results["bottlenecks"].summary["largest_gap"]["queued"]
    assert big["gap_ns"] == (3548 - 1782) * 1000 and big["next_name"] == "kernVectorAdd"
    assert big["module_loading"] == ["cuLibraryLoadData", "cudaLaunchKernel"]  # the longest first
    q = next(f for r in src.results.values() for f in r.findings if f.key == "idle/queued")
    assert "the GPU waited for the kernel's module to be loaded" in q.detail and "one-off start-up cost" in q.detail
    assert "outside the capture" not in q.detail


def test_a_later_run_of_the_kernel_is_no_module_load(tmp_path):
    src = gpulens.analyze([_lazy_trace(tmp_path, first_run=False)]).sources[0]
    big = src.results["bottlenecks"].summary["largest_gap"].get("queued") or {}
    assert "module_loading" not in big


# --- 5. a truncated SQLite file read with --lenient -----------------------------------------------------------------

def _nsys_cut(tmp_path, kernels: int = 40) -> tuple[str, int]:
    """An nsys export: StringIds, ``kernels`` kernels of 1 µs each 10 µs apart (written first: their pages come first),
    then a 200-row table of 2 kB blobs written last; the file cut in the middle of that table. Returns (path, bytes
    kept)."""
    import sqlite3

    full = tmp_path / "full.sqlite"
    con = sqlite3.connect(full)
    con.executescript("""
        PRAGMA page_size = 4096;
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm_kernel');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT, correlationId INT,
            globalPid INT, shortName INT, gridX INT, blockX INT);
        CREATE TABLE PADDING (id INTEGER PRIMARY KEY, blob BLOB);""")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, 1677721600, 1, 64, 128)",
                    [(1000 + 10_000 * i, 2000 + 10_000 * i, i + 1) for i in range(kernels)])
    con.executemany("INSERT INTO PADDING VALUES (?, ?)", [(i, bytes(2000)) for i in range(200)])
    con.commit()
    con.close()
    data = full.read_bytes()
    keep = len(data) * 3 // 4  # ~100 pages of ~110: the kernels (pages 2-3) and the schema (page 1) are kept
    cut = tmp_path / "cut.sqlite"
    cut.write_bytes(data[:keep])
    full.unlink()
    return str(cut), keep


def test_a_truncated_sqlite_file_is_refused_in_one_line_without_lenient(tmp_path):
    from gpulens.errors import TraceFormatError

    p, keep = _nsys_cut(tmp_path)
    with pytest.raises(TraceFormatError) as err:
        collect(p)
    assert str(err.value).startswith(f"{p}: truncated SQLite file: {keep:,} of the ") and "\n" not in str(err.value)


def test_a_truncated_sqlite_file_is_read_where_its_pages_are_present_with_lenient(tmp_path):
    p, keep = _nsys_cut(tmp_path)
    before = open(p, "rb").read()
    tl = collect(p, strict=False)
    k = tl.events[tl.events["kind"].astype(str) == "kernel"].sort_values("start_ns")
    # the 40 kernels lie on pages before the cut: every one read, 1 µs each, 10 µs apart
    assert len(k) == 40 and set(k["dur_ns"]) == {1000} and k["start_ns"].diff().dropna().eq(10_000).all()
    said = [w for w in tl.meta.warnings if "truncated SQLite file" in w]
    assert len(said) == 1 and said[0].startswith(f"{p}: truncated SQLite file ({keep:,} of the ")
    assert "read what its complete pages hold (--lenient)" in said[0] and "past the cut" in said[0]
    assert open(p, "rb").read() == before  # the user's file only read


def test_recovery_of_a_whole_file_reads_what_sqlite_reads(tmp_path):
    import sqlite3

    from gpulens.collectors._sqlite_recover import recover

    src = tmp_path / "whole.sqlite"
    con = sqlite3.connect(src)
    con.executescript("CREATE TABLE t (id INTEGER PRIMARY KEY, a INT, b REAL, c TEXT, d BLOB);")
    rows = [(i, i * 7 - 300, i / 3, "x" * (i % 5000), bytes([i % 256]) * (i % 9000)) for i in range(1, 400)]
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", rows)  # long texts/blobs: overflow pages
    con.commit()
    con.close()
    out = tmp_path / "copy.sqlite"
    info = recover(src.read_bytes(), out)
    assert info["tables"] == {"t": 399} and info["rows_lost"] == 0 and info["pages_missing"] == 0
    assert sqlite3.connect(out).execute("SELECT * FROM t ORDER BY id").fetchall() == rows
