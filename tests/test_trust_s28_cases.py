"""Variants of ../shared/cases written by hand (session 28): the same kind of fault in another shape, each with the
answer worked out in the test from the numbers written into the input (never from gpulens' output)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

from gpulens import collectors

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------ python -m gpulens
def test_python_dash_m_gpulens_runs_the_command_line(tmp_path):
    """``python -m gpulens analyze FILE`` (the way a venv that is not activated runs it) is the console script."""
    trace = {"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 10,
                              "dur": 4, "args": {"device": 0, "stream": 7}}]}
    p = tmp_path / "t.json"
    p.write_text(json.dumps(trace))
    out = tmp_path / "o.json"
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "gpulens", "analyze", str(p), "-q", "--no-cache", "--json", str(out)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["sources"][0]["summary"]["kernel_time_ns"] == 4_000  # 4 µs


# ------------------------------------------------------------------------------- B20: ncu rows not adjacent
def _ncu_details(rows: list[tuple[int, str, str, str, str]]) -> str:
    head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Device", "CC",
            "Section Name", "Metric Name", "Metric Unit", "Metric Value"]
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(head)
    for i, name, metric, unit, value in rows:
        w.writerow([i, 4242, "demo", "127.0.0.1", name, 1, 7, 0, "9.0", "GPU Speed Of Light Throughput", metric,
                    unit, value])
    return "==PROF== Connected to process 4242 (/opt/demo)\n" + buf.getvalue()


def test_b20_ncu_details_sorted_by_metric_keeps_one_launch_per_id(tmp_path):
    """A details page sorted by metric (a spreadsheet sort): each launch's rows are no longer adjacent, so IDs come
    back, but no (ID, metric) pair repeats — one output, one launch per ID (was: read as 2 appended outputs of 8
    launches, half without a duration)."""
    a, b, c = "gemm(float*, int)", "reduce(float*, int)", "scale(float*, int)"
    rows = [(0, a, "Duration", "usecond", "1,234.56"), (1, b, "Duration", "msecond", "2.05"),
            (2, c, "Duration", "nsecond", "7,000"),
            (0, a, "Elapsed Cycles", "cycle", "1,845,220"), (1, b, "Elapsed Cycles", "cycle", "3,060,000"),
            (2, c, "Elapsed Cycles", "cycle", "10,500")]
    p = tmp_path / "details.csv"
    p.write_text(_ncu_details(rows))
    tl = collectors.collect(p)
    k = tl.events[tl.events["kind"].astype(str) == "kernel"]
    got = dict(zip(k["name"].astype(str), k["dur_ns"].astype(int)))
    assert got == {a: 1_234_560, b: 2_050_000, c: 7_000}  # 1,234.56 µs; 2.05 ms; 7,000 ns
    assert not any("appended" in w for w in tl.meta.warnings)


def test_b20_ncu_two_outputs_appended_still_two_runs(tmp_path):
    """Two outputs appended (IDs restart at 0, the same metrics again): still 4 launches, not 2 merged."""
    a, b = "gemm(float*, int)", "reduce(float*, int)"
    run = [(0, a, "Duration", "usecond", "10"), (0, a, "Elapsed Cycles", "cycle", "100"),
           (1, b, "Duration", "usecond", "20"), (1, b, "Elapsed Cycles", "cycle", "200")]
    run2 = [(i, n, m, u, v.replace("10", "30").replace("20", "40")) for i, n, m, u, v in run]
    p = tmp_path / "details.csv"
    p.write_text(_ncu_details(run + run2))
    tl = collectors.collect(p)
    k = tl.events[tl.events["kind"].astype(str) == "kernel"]
    assert sorted(k["dur_ns"].astype(int)) == [10_000, 20_000, 30_000, 40_000]


# ------------------------------------------------------------- B03: control characters in metadata, lenient
def _kernel(name, ts, dur):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": "stream 7", "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7}}


def test_b03_lenient_reading_says_it_accepted_control_characters_in_metadata(tmp_path):
    """Raw control characters in strings of the metadata before and after traceEvents (a log line with a newline):
    strict reading warns that it skipped that metadata; lenient reading accepts them — and must say so (was: no
    warning at all, as if the file were valid JSON). 3 raw characters: \\x01 and \\n before, \\t after."""
    ev = json.dumps([_kernel("k_a", 10, 5), _kernel("k_b", 20, 7)])
    text = '{"schemaVersion": 1, "log": "a\x01b\nc", "traceEvents": ' + ev + ', "note": "q\tz"}'
    p = tmp_path / "t.json"
    p.write_text(text)
    lenient = collectors.collect(p, strict=False)
    assert int(lenient.events["dur_ns"].sum()) == 12_000  # 5 + 7 µs
    said = [w for w in lenient.meta.warnings if "control characters" in w]
    assert said and "×3" in said[0], lenient.meta.warnings
    strict = collectors.collect(p)
    assert any("malformed JSON outside the events" in w for w in strict.meta.warnings)
    assert int(strict.events["dur_ns"].sum()) == 12_000


# ---------------------------------------------------------- B05 / gate: a rocprofv3 JSON trace is a trace
def _v3_json(path: Path, kernels: list[tuple[str, int, int]]) -> Path:
    """A minimal rocprofv3 ``--output-format json`` file: one MI300X agent, one queue; ``kernels`` = (name, start
    ns, end ns)."""
    syms = [{"kernel_id": i + 1, "kernel_name": n, "formatted_kernel_name": n, "demangled_kernel_name": n,
             "truncated_kernel_name": n} for i, (n, _, _) in enumerate(kernels)]
    disp = [{"kind": 11, "operation": 2, "thread_id": 908, "correlation_id": {"internal": i + 1, "external": 0},
             "start_timestamp": a, "end_timestamp": b,
             "dispatch_info": {"agent_id": {"handle": 200}, "queue_id": {"handle": 16}, "kernel_id": i + 1,
                               "dispatch_id": i + 1, "workgroup_size": {"x": 256, "y": 1, "z": 1},
                               "grid_size": {"x": 65536, "y": 1, "z": 1}}}
            for i, (_, a, b) in enumerate(kernels)]
    agents = [{"id": {"handle": 100}, "type": 1, "node_id": 0, "logical_node_id": 0, "name": "AMD EPYC"},
              {"id": {"handle": 200}, "type": 2, "node_id": 1, "logical_node_id": 1, "logical_node_type_id": 0,
               "name": "gfx942", "product_name": "AMD Instinct MI300X", "cu_count": 304,
               "gfx_target_version": 90402, "wave_front_size": 64}]
    tool = {"metadata": {"pid": 908}, "agents": agents, "counters": [], "kernel_symbols": syms,
            "callback_records": {}, "buffer_records": {"kernel_dispatch": disp, "memory_copy": []}}
    path.write_text(json.dumps({"rocprofiler-sdk-tool": [tool]}))
    return path


def test_gate_reads_a_rocprofv3_json_trace_as_candidate_and_as_baseline(tmp_path):
    """``gpulens gate`` takes traces as well as reports (its help says so); a rocprofv3 ``*_results.json`` was refused
    as "JSON without 'sources': not a gpulens report" (only Kineto JSON was recognised). An empty one (B05) is
    'no data' (exit 4), never a pass."""
    from gpulens.cli import main

    t = 63_857_982_592_000
    base = _v3_json(tmp_path / "1_results.json", [("gemm_a", t, t + 10_000), ("gemm_b", t + 20_000, t + 35_000)])
    cand = _v3_json(tmp_path / "2_results.json", [("gemm_a", t, t + 10_000), ("gemm_b", t + 20_000, t + 35_000)])
    empty = _v3_json(tmp_path / "3_results.json", [])
    assert main(["gate", str(cand), "-b", str(base), "-q", "--json", str(tmp_path / "g.json")]) == 0
    assert main(["gate", str(empty), "-b", str(base), "-q"]) == 4
    report = tmp_path / "base_report.json"
    assert main(["analyze", str(base), "-q", "--no-cache", "--json", str(report)]) == 0
    assert main(["gate", str(cand), "-b", str(report), "-q"]) == 0
