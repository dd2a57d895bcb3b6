"""Session 41, "one definition per figure — leftovers": figures that two parts of gpulens defined twice, or that
read as another quantity than they are. Every input is written by the test; expected values are worked out by hand
in the comments (Kineto JSON times are µs; gpulens reports ns)."""

from __future__ import annotations

import json

import gpulens


# --- 1. the critical path summed over ranks ------------------------------------------------------------------------
def _rank_trace(d, rank, gpu):
    # one step [0, 1000] µs on thread 1: aten::mm [0, 300]; with ``gpu`` it launches (cudaLaunchKernel [10, 20]) a
    # kernel [25, 525] µs; without it the rank runs host work only
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
          {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 300}]
    if gpu:
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 10,
                "args": {"correlation": 1}},
               {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 25, "dur": 500,
                "args": {"device": 0, "stream": 7, "correlation": 1}}]
    (d / f"rank{rank}.json").write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": rank,
                                                                                           "world_size": 2},
                                                    "traceEvents": ev}))


def _two_ranks(tmp_path, second_has_gpu):
    d = tmp_path / ("both" if second_has_gpu else "one")
    d.mkdir()
    _rank_trace(d, 0, True)
    _rank_trace(d, 1, second_has_gpu)
    return gpulens.analyze([d]).sources[0]


def test_a_rank_without_gpu_work_is_left_out_of_the_critical_path(tmp_path):
    # rank 1 has no GPU work: it is left out of every GPU figure, so of the path too — the path is rank 0's one
    # step, 1,000 µs, never 2,000 µs (longer than any rank's 1,000 µs window). Rank 0's path: CPU op 300 µs + host
    # idle 700 µs; the idle [300, 1000] overlaps the kernel [25, 525] for 225 µs (a wait on the busy GPU), so the
    # host holds (1000 − 225) / 1000 = 77.5 %
    src = _two_ranks(tmp_path, False)
    cp = src.results["critical_path"].summary
    assert cp["path_ns"] == 1_000_000 and cp["windows"] == 1 and cp["ranks"] == 1
    assert cp["host_wait_gpu_busy_ns"] == 225_000 and abs(cp["host_share"] - 0.775) < 1e-9
    note = src.results["verdicts"].summary["path_note"]
    assert "775.00 µs of the 1.00 ms path —" in note and "summed" not in note


def test_a_path_summed_over_ranks_says_so_wherever_its_length_is_quoted(tmp_path):
    # both ranks as rank 0 above: 2 × 1,000 µs = 2.00 ms summed over 2 ranks, host 2 × 775 µs = 1.55 ms; the run
    # headline and the finding quote the same sum and both say it is over the 2 ranks' steps (the headline said
    # "summed over 2 steps", as if one rank ran 2 steps of 1 ms)
    src = _two_ranks(tmp_path, True)
    cp = src.results["critical_path"]
    assert cp.summary["path_ns"] == 2_000_000 and cp.summary["ranks"] == 2
    assert "(1.55 ms of 2.00 ms, summed over 2 ranks' steps, less its waits" in cp.findings[0].title
    assert "1.55 ms of the 2.00 ms path summed over 2 ranks' steps —" in src.results["verdicts"].summary["path_note"]


# --- 4. a whole CUDA graph replay is not an unclassifiable kernel ---------------------------------------------------
def _graph_trace(tmp_path, with_kernel):
    # a graph replay traced whole, named as Nsight Systems names it ("CUDA graph <id>"), [100, 700] µs after its
    # cudaGraphLaunch; with ``with_kernel`` an ordinary kernel "my_kernel" [800, 1000] µs, no counters or shapes
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 90, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "CUDA graph 5", "pid": 0, "tid": 7, "ts": 100, "dur": 600,
           "args": {"device": 0, "stream": 7, "correlation": 1}}]
    if with_kernel:
        ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 790, "dur": 5,
                "args": {"correlation": 2}},
               {"ph": "X", "cat": "kernel", "name": "my_kernel", "pid": 0, "tid": 7, "ts": 800, "dur": 200,
                "args": {"device": 0, "stream": 7, "correlation": 2}}]
    p = tmp_path / f"graph{int(with_kernel)}.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    return gpulens.analyze([p]).sources[0]


def test_a_graph_replay_is_said_to_be_one_with_the_trace_option_that_records_its_kernels(tmp_path):
    from gpulens.reports._answer import answer

    src = _graph_trace(tmp_path, False)
    und = [f for f in src.results["verdicts"].findings if f.category == "undetermined"]
    assert len(und) == 1
    f = und[0]
    # the replay's 600 µs, named as a replay — never "1 of 1 critical kernel could not be classified"
    # its figures as the verdict table's time and share columns name them (s48): one replay of 600 µs, the only
    # kernel time of the trace — not "of GPU time", a wall figure no table beside it shows
    assert f.title.startswith("CUDA graph 5 (600.00 µs in 1 replay, 100.0 % of kernel time) is a whole CUDA graph "
                              "replay, not one kernel")
    assert "could not be classified" not in f.title and "--cuda-graph-trace=node" in f.action
    assert answer(src).first_step.startswith("CUDA graph 5 (600.00 µs")


def test_graph_replays_and_unclassified_kernels_are_counted_apart(tmp_path):
    from gpulens.reports.console import render
    from gpulens.report import Report

    src = _graph_trace(tmp_path, True)
    und = {f.key: f for f in src.results["verdicts"].findings if f.category == "undetermined"}
    # 2 critical rows: the replay (600 µs) and my_kernel (200 µs); only my_kernel is an unclassified kernel, and its
    # next step is its own (counters), not the graph's re-trace
    assert und["undetermined"].title == "1 of 2 critical kernels (200.00 µs of kernel time, summed over launches) could not be classified"
    assert "--cuda-graph-trace" not in und["undetermined"].action
    assert und["undetermined/graph"].title.startswith("CUDA graph 5 (600.00 µs in 1 replay, 75.0 % of kernel time) is a "
                                                          "whole CUDA graph")  # 600 of 600 + 200 µs
    text = " ".join(render(Report(sources=[src]), width=300).split())
    assert "1 of 2 critical kernels (200.00 µs of kernel time, summed over launches) could not be classified: " in text
    assert "is a whole CUDA graph replay, not one kernel" in text


# --- 7. the gate's replaced kernels: a fusion of pointwise ops into a reduction is one replacement ------------------
def _metric(name, samples):
    from gpulens.gate.runs import Metric

    return Metric(name, "timing", "ns", list(samples), "lower", [0.1] * len(samples), [1] * len(samples))


def test_an_elementwise_kernel_fused_into_a_new_reduction_is_one_replacement():
    from gpulens.gate.replaced import replaced

    # baseline (eager): an elementwise kernel 100/110 ns and a reduce_kernel 50/50 ns per run; candidate (compiled):
    # one Inductor persistent reduction that fused both, 200/220 ns — the 2 vanished kernels' sums per run
    # (150, 160) against the new one's (200, 220): one metric, never "elementwise −100 %" beside an ungated kernel
    ew = "kernel:void at::native::vectorized_elementwise_kernel<4, add>"
    red = "kernel:void at::native::reduce_kernel<512, 1>"
    fused = "kernel:triton_per_fused_add_sum_0"
    pairs, members = replaced({ew: _metric(ew, (100, 110)), red: _metric(red, (50, 50))},
                              {fused: _metric(fused, (200, 220))})
    assert list(pairs) == ["kernels:elementwise + reduction replaced"]
    b, c = pairs["kernels:elementwise + reduction replaced"]
    assert b.samples == [150, 160] and c.samples == [200, 220]
    assert set(members) == {ew, red, fused}


def test_a_gemm_and_an_elementwise_kernel_stay_apart():
    from gpulens.gate.replaced import replaced

    # a GEMM that vanished and a new elementwise kernel are not one piece of work: no replaced metric
    g, ew = "kernel:ampere_sgemm_128x64_tn", "kernel:vectorized_elementwise_kernel<4, relu>"
    pairs, members = replaced({g: _metric(g, (400,))}, {ew: _metric(ew, (120,))})
    assert pairs == {} and members == {}
    # two elementwise kernels renamed: the family keeps its one category's name
    e2 = "kernel:triton_poi_fused_relu_0"
    pairs, _ = replaced({ew: _metric(ew, (120,))}, {e2: _metric(e2, (90,))})
    assert list(pairs) == ["kernels:elementwise replaced"]


# --- 3. the roofline and the kernel verdict name one cause --------------------------------------------------------
def _launch_bound_trace(tmp_path):
    from tests.gate_traces import H100

    # 20 launches, every 20 µs, of an fp32 add of two 1024×1024 tensors: each kernel runs 8 µs, 10.5 µs after its
    # 10 µs launch call starts; the GPU idles 20 − 8 = 12 µs between kernels (19 gaps: 228 µs)
    ev, t = [], 0
    for i in range(20):
        ev += [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": t, "dur": 12,
                "args": {"External id": i + 1, "Input Dims": [[1024, 1024], [1024, 1024], []],
                         "Input type": ["float", "float", "Scalar"]}},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1,
                "dur": 10, "args": {"correlation": i + 1, "External id": i + 1}},
               {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, add>",
                "pid": 0, "tid": 7, "ts": t + 11.5, "dur": 8,
                "args": {"device": 0, "stream": 7, "correlation": i + 1, "External id": i + 1,
                         "grid": [4096, 1, 1], "block": [128, 1, 1]}}]
        t += 20
    p = tmp_path / "launch.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [H100], "traceEvents": ev}))
    return gpulens.analyze([p]).sources[0]


def test_a_launch_bound_kernel_below_the_roofs_is_said_to_be_held_by_its_launches_by_both(tmp_path):
    src = _launch_bound_trace(tmp_path)
    v = src.results["verdicts"].table.iloc[0]
    assert v["verdict"] == "launch-bound" and v["time_at_stake_ns"] == 19 * 12_000
    rf = src.results["roofline"]
    row = rf.table.iloc[0]
    # bytes: 2 reads + 1 write of 1024² fp32 = 12,582,912 B per 8 µs = 1,572.9 GB/s, 46.95 % of the H100 SXM's
    # 3.35 TB/s: under 50 % of both roofs — the placement "below-roofs", which launch-limited kernels share
    assert row["bound"] == "below-roofs" and abs(row["roof_pct"] - 100 * 12_582_912 / 8e-6 / 3.35e12) < 0.01
    f = next(f for f in rf.findings if f.key.startswith("roofline:"))
    # its placement finding names the launches and the verdict's class, never "latency/occupancy-bound"
    assert f.category == "launch-bound" and "its launches do" in f.detail and "latency, occupancy or" not in f.detail
    # and the verdict's evidence says the placement in the roofline's own words, not a row name the row may not hold
    assert v["evidence"].startswith("roofline: below both roofs, memory side of the ridge, 47.0 % of attainable")


# --- 6. housekeeping: stale compiled libraries, string-dtype blanks --------------------------------------------------
def test_a_build_removes_only_its_own_stale_libraries_from_its_sources_pycache(tmp_path):
    import platform

    from gpulens._native import Library
    from gpulens._native_build import prune_stale

    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "loop.py").write_text("x = 1\n")
    lib = Library("loop_scan", "entry", "GPULENS_TEST_OFF", (pkg / "loop.py",))
    arch = platform.machine() or "unknown"
    cur = lib.name()
    names = {cur: True,  # the library just built: kept
             f"loop_scan-{'0' * 24}-{arch}.so": False,  # another digest of the same library: stale
             f"loop_scan-{'1' * 24}-{arch}.so.failed": False,  # a failed build of other sources: stale
             f"loop_scan-{'2' * 24}-otherarch.so": True,  # another architecture (a shared folder): kept
             f"other_walk-{'3' * 24}-{arch}.so": True,  # another library: kept
             "notes.txt": True}
    for n in names:
        (pkg / "__pycache__" / n).write_bytes(b"x")
    gone = prune_stale(lib, pkg / "__pycache__")
    assert sorted(p.name for p in gone) == sorted(n for n, keep in names.items() if not keep)
    assert sorted(p.name for p in (pkg / "__pycache__").iterdir()) == sorted(n for n, keep in names.items() if keep)
    # a shared cache folder (another install may use its files): nothing removed
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / f"loop_scan-{'0' * 24}-{arch}.so").write_bytes(b"x")
    assert prune_stale(lib, shared) == [] and len(list(shared.iterdir())) == 1


def test_an_all_empty_string_dtype_column_is_blank():
    import pandas as pd

    from gpulens.reports.console_other import _blank

    # pandas 3's default ``str`` dtype (and ``string``): "" and "  " say nothing, as in an object column
    for dtype in ("str", "string", object):
        assert _blank(pd.Series(["", "  ", None], dtype=dtype))
        assert not _blank(pd.Series(["", "x"], dtype=dtype))


# --- 2. one definition of a cause's share of the span ---------------------------------------------------------------
def test_the_verdict_basis_and_the_idle_finding_give_one_share_of_one_span(tmp_path):
    from gpulens.analyzers._idle_findings import span_share_text
    from gpulens.analyzers._run_shares import _pct_of, judged_span_ns

    src = _launch_bound_trace(tmp_path)
    # span: first kernel start 11.5 µs to last end 19 × 20 + 11.5 + 8 = 399.5 µs → 388 µs; launch idle 19 × 12 =
    # 228 µs → 58.76 % ("58.8 %"); computing 20 × 8 = 160 µs → 41.24 % ("41.2 %")
    bn = src.results["bottlenecks"].summary
    assert judged_span_ns(bn) == 388_000 and bn["idle_launch_ns"] == 228_000
    basis = src.results["verdicts"].summary["basis"]
    assert "launch-bound holds the largest measured share, 58.8 % of the GPU span, against 41.2 % computing" in basis
    idle = next(f for f in src.findings() if f.key == "idle/launch")
    assert idle.title == "GPU idle on kernel launch overhead: 228.00 µs (58.8 % of the GPU span)"
    assert _pct_of(228_000, 388_000) == span_share_text(228_000, 388_000) == "58.8 %" and _pct_of(None, 1) == "unknown"
