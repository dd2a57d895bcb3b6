"""Timeline fidelity and device mapping (session 47, helper "timeline").

1. GPUs of older public traces had no built-in figures (GeForce GTX 1080 Ti of leimingyu/magus' nvprof CSVs in
   tests/data/nvidia, TITAN V, Tesla K20m, GTX 1060 6GB): roofline and occupancy were skipped. Kind: a GPU whose
   datasheet figures are public, unknown to gpulens. Now in :mod:`gpulens.devices.nvidia` with their sources; the
   expected values below are cores × 2 FLOP × boost clock and bus width × data rate / 8, written out here.
2. A bare "NVIDIA H100" (pytorch/kineto docs traces) was called "a GPU with no built-in figures" although gpulens
   has two H100s: the name tells neither apart. Kind: an unknown that misstates why it is unknown.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gpulens.devices import identify_device, limits_for, no_spec_reason


@pytest.mark.parametrize("name,sms,cores,boost_ghz,bus_bits,gbps", [
    ("GeForce GTX 1080 Ti", 28, 3584, 1.582, 352, 11.0),
    ("GeForce GTX 1060 6GB", 10, 1280, 1.708, 192, 8.0),
    ("TITAN V", 80, 5120, 1.455, 3072, 1.7),
    ("Tesla K20m", 13, 2496, 0.706, 320, 5.2),
])
def test_older_gpus_have_datasheet_figures(name, sms, cores, boost_ghz, bus_bits, gbps):
    spec = identify_device({"name": name})
    assert spec is not None and spec.num_sms == sms
    assert spec.peak_flops("fp32")[0] == pytest.approx(cores * 2 * boost_ghz * 1e9, rel=0.01)
    assert spec.figures["memory_bandwidth"].value == pytest.approx(bus_bits * gbps / 8 * 1e9, rel=0.01)


@pytest.mark.parametrize("name", ["GeForce GTX 1060 3GB", "GeForce GTX 1060", "Tesla K20Xm", "TITAN Xp",
                                  "NVIDIA TITAN V CEO Edition"])
def test_lookalike_names_stay_unknown(name):
    """A 1060 3GB has 9 SMs, a bare 1060 may be a laptop part, a K20X has 14 SMX: none is the spec added."""
    assert identify_device({"name": name}) is None


def test_pascal_consumer_occupancy_rules():
    """CC 6.1 (programming guide table): 64 warps, 32 blocks, 64 K registers and 96 KiB shared memory per SM."""
    lim = limits_for("6.1")
    assert (lim.max_warps_per_sm, lim.max_blocks_per_sm, lim.regs_per_sm, lim.smem_per_sm) == (64, 32, 65536,
                                                                                                96 * 1024)


def test_bare_h100_names_the_variants_it_may_be():
    tl = SimpleNamespace(events=None, meta=SimpleNamespace(devices=[{"name": "NVIDIA H100"}]),
                         of_kind=lambda *k: [])
    why = no_spec_reason(tl)
    assert "NVIDIA H100 SXM" in why and "NVIDIA H100 PCIe" in why
    assert "no built-in figures" not in why


# --- 3. a copy of the same records passed over is a reading note, not an input warning ----------------------------
# rocprof v1 writes results.db beside results.csv (the same dispatches): the folder read "INPUT: 3 warnings about the
# input the figures rest on — …/results.db: kernels not added again". Nothing was lost, so it is a reading note in
# every reporter; a results.db whose dispatches differ from results.csv's stays a warning (its kernels are left out).


def _gunrock_copy(tmp_path, drop_last_csv_row=False):
    import shutil

    from tests.conftest import shared_trace

    src = shared_trace("rocprof/v1_gunrock_mi300x")
    for f in ("results.csv", "results.db", "results.sysinfo.txt"):
        shutil.copy(src / f, tmp_path / f)
    lines = (tmp_path / "results.csv").read_text().splitlines(keepends=True)
    if drop_last_csv_row:
        lines = lines[:-1]
        (tmp_path / "results.csv").write_text("".join(lines))
    return len(lines) - 1  # dispatch rows of results.csv: one per line under the header


def test_rocprof_v1_same_dispatches_twice_is_a_reading_note_in_every_report(tmp_path):
    from io import StringIO

    from rich.console import Console

    import gpulens
    from gpulens.reports import console, json_report, markdown
    from gpulens.reports._warnings import input_note, reading_notes

    rows = _gunrock_copy(tmp_path)
    rep = gpulens.analyze([tmp_path])
    s = rep.sources[0]
    notes = reading_notes(s.timeline.meta)
    assert f"{tmp_path / 'results.db'}: kernels not added again (the same {rows} dispatches as results.csv)" in notes
    assert any("results.sysinfo.txt: device description only" in n for n in notes)
    assert not any("added again" in w or "device description" in w for w in s.timeline.meta.warnings)
    assert "added again" not in input_note(s)
    buf = StringIO()
    Console(file=buf, width=300).print(console.source_renderable(s))
    assert "note: " + str(tmp_path / "results.db") + ": kernels not added again" in buf.getvalue()
    assert json_report.source_dict(s)["reading_notes"] == notes
    assert "### Reading notes" in markdown.render(rep)


def test_rocprof_v1_db_with_other_dispatches_stays_a_warning(tmp_path):
    from gpulens.collectors import collect
    from gpulens.collectors._work_rules import dispatch_rows
    from gpulens.reports._warnings import reading_notes

    rows = _gunrock_copy(tmp_path, drop_last_csv_row=True)
    tl = collect(tmp_path)
    assert int(dispatch_rows(tl.events).sum()) == rows  # results.csv's dispatches, not one counted twice
    assert any(w.startswith(f"{tmp_path / 'results.db'}: kernels not added: its {rows + 1} dispatches are not the "
                            f"{rows} of results.csv") for w in tl.meta.warnings)
    assert not any("results.db" in n for n in reading_notes(tl.meta))


# --- 4. refused GPU work bounds the idle of the GPU it ran on, not every GPU of its rank ---------------------------
# The rejected table had no device_id: a kernel refused for an impossible time on GPU 1 of a rank made GPU 0's
# measured idle unknown too ("a bound per rank, not per GPU"). The refused rows now keep the GPU the source records.

_V3_HEAD = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
            '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')


def test_refused_kernel_bounds_only_its_own_gpus_idle(tmp_path):
    """Agents 1 and 2 each run 3 kernels of 50 µs, 100 µs apart (agent 2 10 µs later); agent 2 also records a
    kernel whose end is before its start (refused: its time is unknown). By hand, per agent: span 250 µs, busy
    150 µs, idle 100 µs; only agent 2's 100 µs may hold the refused kernel."""
    from gpulens import analyze

    rows, n = [], 0
    for agent in (1, 2):
        for i in range(3):
            n += 1
            s = 1_000_000 + i * 100_000 + (agent - 1) * 10_000
            rows.append(f'"KERNEL_DISPATCH",{agent},1,7,{n},1,"k{agent}",{n},{s},{s + 50_000},0,0,64,1,1,64,1,1\n')
    rows.append('"KERNEL_DISPATCH",2,1,7,99,1,"k2",99,1100000,1090000,0,0,64,1,1,64,1,1\n')
    p = tmp_path / "kernel_trace.csv"
    p.write_text(_V3_HEAD + "".join(rows))
    s = analyze([p], cache=False).sources[0]
    rej = s.timeline.rejected
    assert len(rej) == 1 and int(rej["device_id"].iloc[0]) in set(s.timeline.of_kind("kernel")["device_id"])
    t = s.results["breakdown"].table
    by_dev = {int(d): (int(sp), int(i), int(u)) for d, sp, i, u in
              zip(t["device_id"], t["span_ns"], t["idle_ns"], t["idle_untimed_ns"])}
    refused_on = int(rej["device_id"].iloc[0])
    other = next(d for d in by_dev if d != refused_on)
    assert by_dev[refused_on] == (250_000, 100_000, 100_000)
    assert by_dev[other] == (250_000, 100_000, 0)


# --- 5. the native scanner path reads the same facts as the msgspec path -----------------------------------------
# Files of 8 MiB and more are read by the scanner (collectors._kineto_fast), which skips args it has no field for:
# ONNX Runtime's per-axis "grid_x" … "block_z", a TensorFlow-on-ROCm op's "kernel" (the kernel's name), an
# rpd2tracing event's "desc". Such a file lost its launch geometry / kernel names above 8 MiB only.

def _tf_rocm_trace() -> dict:
    procs = ["/device:GPU:0/stream:all Compute", "/device:GPU:0/stream:1 Compute"]
    ev = [{"name": "process_name", "ph": "M", "pid": i, "args": {"name": n}} for i, n in enumerate(procs)]
    for pid in (0, 1):
        ev += [{"ph": "X", "cat": "Op", "name": "Conv2D", "pid": pid, "tid": 0, "ts": 100 + 100 * i, "dur": 40,
                "args": {"name": "node/Conv2D", "op": "Conv2D", "kernel": f"MIOpenConvFwd_v{i % 3}"}}
               for i in range(600)]
    return {"traceEvents": ev}


def _onnx_trace() -> list:
    ev = [{"cat": "Session", "pid": 5120, "tid": 5120, "dur": 200, "ts": 19990, "ph": "X", "name": "model_run",
           "args": {}}]
    ev += [{"cat": "Kernel", "pid": 5120, "tid": 5120, "dur": 25, "ts": 20010 + 40 * i, "ph": "X",
            "name": f"k{i % 3}", "args": {"stream": 7, "grid_x": str(4 + i % 5), "grid_y": "2", "grid_z": "1",
                                          "block_x": "128", "block_y": "1", "block_z": "1"}} for i in range(600)]
    return ev


@pytest.mark.parametrize("make", [_tf_rocm_trace, _onnx_trace])
def test_scanner_and_msgspec_paths_read_the_same_dialect_args(tmp_path, make):
    import json

    from gpulens.collectors import _kineto_fast
    from gpulens.collectors.kineto import KinetoCollector

    if not _kineto_fast._available():
        pytest.skip("the native scanner (numba) is not available")
    p = tmp_path / "trace.json"
    p.write_text(json.dumps(make()))
    cols = ["kind", "name", "start_ns", "dur_ns", "device_id", "stream_id", "grid_x", "grid_y", "block_x"]

    def gpu(fast):
        ev = KinetoCollector().collect(p, fast=fast, chunk_bytes=30000).events  # pieces as a large file's
        ev = ev[ev["kind"].astype(str) == "kernel"]
        return ev[cols].astype(str).sort_values(["start_ns", "name"]).reset_index(drop=True)

    slow = gpu(False)
    assert len(slow) and (slow["name"] != "Conv2D").all()  # the msgspec path reads the args (control)
    assert gpu(True).equals(slow)


# --- 6. PaddlePaddle's "correlation id" links its launch calls to their kernels ----------------------------------
# chrometracing_logger.cc writes the id as "correlation id" on CudaRuntime and Kernel/Memcpy/Memset events: it was
# not read, so every Paddle kernel was unlinked (idle causes, launch latency and lost launches unknown).

def _paddle_text() -> str:
    ev, kernels = [], []
    for i in range(1500):  # call i at 10 + 20 i µs (4 µs), its kernel 3 µs later (12.5 µs), correlation 100 + i
        ev.append(f'{{ "name": "cudaLaunchKernel[4.000 us]", "pid": 4242, "tid": "11(C++)", "ts": {10 + 20 * i}, '
                  f'"dur": 4.000, "ph": "X", "cat": "CudaRuntime", "args": {{ "correlation id": {100 + i} }} }}')
        kernels.append(f'{{ "name": "relu_kernel[12.500 us]", "pid": 0, "tid": 7, "ts": {13 + 20 * i}, "dur": 12.500, '
                  f'"ph": "X", "cat": "Kernel", "args": {{ "device": 0, "context": 1, "stream": 7, '
                  f'"correlation id": {100 + i}, "grid": [80, 1, 1], "block": [256, 1, 1] }} }}')
    ev += kernels  # the device events after the host ones (the logger's order): pieces of kernels alone
    return ('{ "schemaVersion": "1.0.1", "displayTimeUnit": "ms", "span_indx": "0",\n "traceEvents": [\n'
            + ",\n".join(ev) + ',\n  {}\n  ],\n  "ExtraInfo": {"11": "MainThread"}\n  }\n')


@pytest.mark.parametrize("fast", [False, True])
def test_paddle_correlation_id_links_calls_and_kernels(tmp_path, fast):
    from gpulens.collectors import _kineto_fast
    from gpulens.collectors.kineto import KinetoCollector

    if fast and not _kineto_fast._available():
        pytest.skip("the native scanner (numba) is not available")
    p = tmp_path / "pid_4242_time_2024_01_01.paddle_trace.json"
    p.write_text(_paddle_text())
    ev = KinetoCollector().collect(p, fast=fast, chunk_bytes=30000).events
    for kind in ("runtime", "kernel"):
        got = ev.loc[ev["kind"].astype(str) == kind].sort_values("start_ns")["correlation_id"]
        assert got.astype("int64").tolist() == [100 + i for i in range(1500)], kind
