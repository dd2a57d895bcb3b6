"""Variants of the shared cases (../shared/cases/README.md) that a different public project could produce, each
generated here with its answer worked out by hand in the test from the README's rule.

* B07 (a recorded kernel duration far past the work): twice at once, in Kineto and in a rocprofv3 kernel trace;
  inside a Kineto ``gpu_user_annotation`` (whose recorded extent is the hull of its kernels, the runaway included);
  a runaway that starts after every other event has ended (nothing in the trace bounds it: its duration is
  unknown, never 0 ns, and never the recorded seconds because it started a little later).
* Device spec files: the ``base`` key names a built-in GPU by the rule ``--device-spec NAME`` uses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

US = 1000  # ns per µs


def _kineto(tmp_path: Path, events: list[dict], name: str = "t.pt.trace.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return p


def _k(name: str, ts: int, dur: int, stream: int = 7, device: int = 0) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": device, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": {"device": device, "stream": stream}}


def _analyze(p: Path):
    from gpulens.report import analyze

    return analyze(p, only=["breakdown", "hotspots"]).sources[0]


def _kept(src) -> dict[str, int | None]:
    t = src.results["hotspots"].table
    return {str(n): (None if pd.isna(e) else int(e)) for n, e in zip(t["name"], t["effective_ns"])}


# --- B07 twice ----------------------------------------------------------------------------------------------------

def _two_runaways() -> list[tuple[int, str, int, int]]:
    """(queue/stream, name, start µs, dur µs): stream 7 gemm_a 100+50 then run_c 160 + 3 s; stream 8 gemm_x 100+60
    then run_y 170 + 3.00005 s; stream 9 gemm_z 210+30. Every other event ends by 240 µs."""
    return [(7, "gemm_a", 100, 50), (7, "run_c", 160, 3_000_000), (8, "gemm_x", 100, 60),
            (8, "run_y", 170, 3_000_050), (9, "gemm_z", 210, 30)]


def _check_two_runaways(src) -> None:
    # By hand: the rest of the run is 100 → 240 µs (140 µs); both runaways end ~3 s past it (> 1000 × 140 µs = 140 ms)
    # and neither has a next event on its stream: both cut at 240 µs. run_c keeps 160 → 240 = 80 µs, run_y
    # 170 → 240 = 70 µs. Busy: 100–150, 100–160, 160–240, 170–240, 210–240 → the union 100 → 240 = 140 µs = span.
    kept = _kept(src)
    assert kept["run_c"] == 80 * US and kept["run_y"] == 70 * US
    hs = src.results["hotspots"].summary
    assert hs["runaway_events"] == 2
    assert hs["kernel_effective_ns"] == (50 + 80 + 60 + 70 + 30) * US
    assert hs["kernel_time_ns"] == (50 + 3_000_000 + 60 + 3_000_050 + 30) * US  # the recorded sum, said as such
    bd = src.results["breakdown"].summary
    assert bd["busy_ns"] == 140 * US and bd["span_ns"] == 140 * US


def test_two_near_equal_runaways_kineto(tmp_path):
    src = _analyze(_kineto(tmp_path, [_k(n, ts, d, s) for s, n, ts, d in _two_runaways()]))
    _check_two_runaways(src)


def test_two_near_equal_runaways_rocprofv3_csv(tmp_path):
    # the same run as a rocprofv3 kernel_trace.csv (ns timestamps on an epoch-scale clock; queues as streams)
    head = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
            '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
            '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
    t0 = 1_700_000_000_000_000_000
    rows = [f'"KERNEL_DISPATCH",1,{q},69,{i + 1},16,"{n}",{i + 1},{t0 + ts * US},{t0 + (ts + d) * US},0,0,64,1,1,1024,1,1'
            for i, (q, n, ts, d) in enumerate(_two_runaways())]
    p = tmp_path / "kernel_trace.csv"
    p.write_text(head + "\n" + "\n".join(rows) + "\n")
    _check_two_runaways(_analyze(p))


# --- B07 inside a GPU-side annotation -----------------------------------------------------------------------------

def test_runaway_inside_gpu_user_annotation_is_still_cut(tmp_path):
    # Kineto writes a gpu_user_annotation over the kernels of a record_function range, its end the last kernel's
    # recorded end: here 3,000,170 µs, from elementwise_c's bad duration. It is no evidence that the run lasted that
    # long. By hand (README B07 rule): stream 7 gemm_a 100+50 clipped at gemm_b's start → 40 µs, gemm_b 140–160,
    # elementwise_c 170 + 3 s (last on stream 7); softmax_d 200–220 on stream 8 ends the rest of the run: rest =
    # 100 → 220 µs; elementwise_c is cut at 220 → 50 µs. Busy 100–160 ∪ 170–220 = 110 µs of span 100 → 220 = 120 µs
    # (91.7 %); the profiled window is 120 µs too (the annotation's recorded end is not a measurement).
    ann = {"ph": "X", "cat": "gpu_user_annotation", "name": "train_step", "pid": 0, "tid": "stream 7", "ts": 100,
           "dur": 3_000_070, "args": {"device": 0, "stream": 7}}
    src = _analyze(_kineto(tmp_path, [_k("gemm_a", 100, 50), _k("gemm_b", 140, 20), _k("elementwise_c", 170, 3_000_000),
                                      _k("softmax_d", 200, 20, stream=8), ann]))
    kept = _kept(src)
    assert kept["elementwise_c"] == 50 * US and kept["gemm_a"] == 40 * US
    bd = src.results["breakdown"].summary
    assert bd["busy_ns"] == 110 * US and bd["span_ns"] == 120 * US and bd["window_ns"] == 120 * US
    assert src.results["hotspots"].summary["runaway_events"] == 1


# --- a runaway that starts after the rest of the run ended --------------------------------------------------------

@pytest.mark.parametrize("late_start", [200, 250, 300, 400])
def test_runaway_starting_after_the_rest_has_unknown_duration(tmp_path, late_start):
    # stream 7: gemm_a 100+50, gemm_b 160+20 (the rest of the run: 100 → 180 µs); stream 8: late_c at late_start
    # (µs) + 3 s. The run reached late_start at least; 3 s past it is > 1000 × (late_start − 100 µs) ≤ 300 ms: a
    # recorded duration far past the work, and nothing ends after late_c starts to cut it at. Its duration is
    # unknown: not 0 ns (the cut at 180 µs left it none), and not 3 s (kept before when it started ≥ 80 µs after
    # the rest). Busy: 50 + 20 = 70 µs known, "at least"; span 100 µs → late_start.
    src = _analyze(_kineto(tmp_path, [_k("gemm_a", 100, 50), _k("gemm_b", 160, 20),
                                      _k("late_c", late_start, 3_000_000, stream=8)]))
    assert _kept(src)["late_c"] is None
    hs = src.results["hotspots"].summary
    assert hs["runaway_events"] == 1 and hs["untimed_launches"] == 1
    assert hs["kernel_time_ns"] is None and hs["timed_kernel_time_ns"] == 70 * US
    bd = src.results["breakdown"].summary
    assert bd["busy_ns"] == 70 * US and bd["busy_bound"] == "at least"
    assert bd["span_ns"] == (late_start - 100) * US
    f = [f for f in src.results["hotspots"].findings if f.key == "runaways"]
    assert len(f) == 1 and "its duration is unknown" in f[0].detail and "kept 0 ns" not in f[0].detail


def test_long_kernel_long_after_a_short_warmup_is_a_measurement(tmp_path):
    # the same 3 s kernel starting 10 s after the 80 µs warm-up: the profiler recorded for 10 s, and 3 s is far
    # under 1000 × 10 s — a long kernel, kept whole (span 100 µs → 10,000,100 + 3,000,000 µs)
    src = _analyze(_kineto(tmp_path, [_k("gemm_a", 100, 50), _k("gemm_b", 160, 20),
                                      _k("late_c", 10_000_100, 3_000_000, stream=8)]))
    assert _kept(src)["late_c"] == 3_000_000 * US
    assert src.results["breakdown"].summary["span_ns"] == (13_000_100 - 100) * US
    assert src.results["hotspots"].summary["runaway_events"] == 0


# --- device spec base key -----------------------------------------------------------------------------------------

def test_spec_base_key_resolves_as_device_spec_name(tmp_path):
    from gpulens.devices.spec import load_spec
    from gpulens.errors import TraceFormatError

    p = tmp_path / "spec.json"
    # NVIDIA A100 datasheet: 2,039 GB/s for the 80 GB SXM part, 1,555 GB/s for the 40 GB one; the base key had
    # resolved "A100 80GB SXM" by a pattern that fits both and took the first (40 GB)
    p.write_text(json.dumps({"base": "A100 80GB SXM"}))
    s = load_spec(p)
    assert s.name == load_spec("A100 80GB SXM").name == "NVIDIA A100 80GB SXM"
    assert s.memory_bandwidth == pytest.approx(2039e9)
    # a name that fits two parts (SXM: 3,352 GB/s; PCIe: 2,000 GB/s) is refused, naming both, in one line
    p.write_text(json.dumps({"base": "H100"}))
    with pytest.raises(TraceFormatError) as e:
        load_spec(p)
    msg = str(e.value)
    assert "NVIDIA H100 SXM" in msg and "NVIDIA H100 PCIe" in msg and "\n" not in msg and str(p) in msg
    with pytest.raises(TraceFormatError, match="NVIDIA H100 SXM, NVIDIA H100 PCIe"):
        load_spec("H100")


@pytest.mark.parametrize("recorded, part, gbps", [
    # names as torch.cuda.get_device_name / nvidia-smi write them; bandwidths from the NVIDIA A100 datasheet
    ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB SXM", 2039),
    ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 40GB SXM", 1555),
    ("NVIDIA A100-PCIE-80GB", "NVIDIA A100 80GB PCIe", 1935),
    ("A100-PCIE-40GB", "NVIDIA A100 40GB PCIe", 1555),
])
def test_memory_variant_named_in_the_device_name(recorded, part, gbps):
    # a record with the name alone (no memory size) and --device-spec NAME: the size the name states decides
    from gpulens.devices import find_spec, identify_device

    spec = identify_device({"name": recorded})
    assert spec.name == part and spec.memory_bandwidth == pytest.approx(gbps * 1e9)
    assert find_spec(recorded)[0].name == part


def test_size_in_name_that_is_no_variants_size_decides_nothing():
    # "NVIDIA GH200 480GB": 480 GB is the superchip's CPU memory and HBM together, neither GPU variant's size (96 GB
    # HBM3, 144 GB HBM3e): the name's size picks no variant, and the assumption is said as before
    from gpulens.devices import identify_device

    spec = identify_device({"name": "NVIDIA GH200 480GB", "num_sms": 132})
    assert "memory size is not recorded" in spec.note


# --- B04b inside gzip: the warning's one byte offset ----------------------------------------------------------------

def test_cut_gzip_trace_warning_names_where_the_kept_text_ends(tmp_path):
    # B04b's fault (an object-format Kineto trace cut inside the 3rd event) in a .json.gz: 2 kernels kept. The
    # warning's byte is where the kept text ends — the 3rd event's opening brace, found here in the text itself —
    # not where the text ends (it had read "line 1, column 373: the text ends there (byte 294)")
    import gzip

    from gpulens.report import analyze

    ev = [_k("k1", 0, 5), _k("k2", 10, 5), _k("k3", 20, 5)]
    text = json.dumps({"schemaVersion": 1, "traceEvents": ev})
    cut = text[: text.index('"ts": 20') + 6]
    third = cut.index('{"ph"', cut.index('"k2"'))
    p = tmp_path / "t.pt.trace.json.gz"
    p.write_bytes(gzip.compress(cut.encode()))
    src = analyze(p, only=["breakdown"]).sources[0]
    assert src.results["breakdown"].summary["busy_ns"] == 10 * US
    w = [x for x in src.timeline.meta.warnings if "complete events" in x]
    assert len(w) == 1 and f"kept 2 complete events, the text before byte {third:,}" in w[0]
    assert f"column {len(cut) + 1}: the text ends there;" in w[0]
