"""The telemetry sampler (with a scripted backend, since this machine has no GPU), the NVML unit conversions, the
telemetry analyzer's findings on hand-made samples, and the steps analyzer on a real trace."""

import gzip
import json
import sys
import time
import types

import pytest

from gpulens.analyzers.steps import Steps
from gpulens.analyzers.telemetry import Telemetry, metric_name, parse_metric
from gpulens.collectors import collect
from gpulens.profiler.telemetry import NvmlBackend, Sampler, _visible_ordinals, open_backend
from gpulens.timeline import COUNTER_COLUMNS, Timeline, TimelineMeta, make_table
from tests.conftest import KINETO


class Scripted:
    """A backend whose GPU 0 reports fixed values; ``fail`` makes every read raise."""

    name = "scripted"

    def __init__(self, fail=False):
        self.fail, self.closed = fail, False

    def devices(self):
        return [0]

    def readers(self, device):
        def boom():
            raise OSError("driver went away")

        return {"sm_clock": boom if self.fail else (lambda: 1.98e9), "power": lambda: 512.5}

    def close(self):
        self.closed = True


def test_metric_names_round_trip():
    assert metric_name("sm_clock", 3) == "telemetry.sm_clock.gpu3"
    assert parse_metric("telemetry.clock_event_reasons.gpu12") == ("clock_event_reasons", 12)
    assert parse_metric("sm__throughput.avg") is None


def test_sampler_records_counter_tracks_on_the_wall_clock():
    before = time.time_ns()
    s = Sampler(Scripted(), interval_s=0.01).start()
    time.sleep(0.15)
    st = s.stop()
    after = time.time_ns()
    assert st["available"] and st["backend"] == "scripted" and s._backend.closed
    assert 5 <= st["samples"] <= 20  # ~15 rounds of 10 ms; generous for a loaded 2-core machine
    co = s.counters()
    assert list(co.columns) == [c.name for c in COUNTER_COLUMNS]
    assert len(co) == 2 * st["samples"] and (co["event_id"] == -1).all()
    clk = co[co["metric"] == "telemetry.sm_clock.gpu0"]
    assert clk["value"].eq(1.98e9).all() and clk["unit"].eq("Hz").all()
    assert co.loc[co["metric"] == "telemetry.power.gpu0", "unit"].eq("W").all()
    t = clk["time_ns"].astype("int64")
    assert before <= t.min() and t.max() <= after and t.is_monotonic_increasing
    kept = s.counters(window_ns=(int(t.iloc[0]), int(t.iloc[1])))
    assert len(kept) == 4  # two rounds × two quantities


def test_sampler_survives_a_failing_backend():
    s = Sampler(Scripted(fail=True), interval_s=0.001).start()
    deadline = time.monotonic() + 10
    while s._thread.is_alive() and time.monotonic() < deadline:  # it gives up by itself after 50 errors
        time.sleep(0.02)
    st = s.stop()
    assert st["errors"] > 50 and st["reason"] == "telemetry stopped after repeated read errors"
    assert set(s.counters()["metric"]) == {"telemetry.power.gpu0"}  # the working quantity was still kept


def test_open_backend_names_every_reason():
    class Missing:
        def __init__(self, devices):
            raise ImportError("no module")

    class NoDriver:
        def __init__(self, devices):
            raise RuntimeError("NVML Shared Library Not Found\nsecond line")

    backend, reason = open_backend("auto", factories={"nvml": NoDriver, "rocm": Missing})
    assert backend is None
    assert reason == ("nvml: NVML Shared Library Not Found; "
                      "rocm: the 'pyrsmi' package is not installed (pip install 'gpulens[telemetry]')")
    assert open_backend("tpu")[1] == "tpu: unknown telemetry backend"


def test_unavailable_sampler_records_why_without_a_thread():
    s = Sampler("nope").start()
    assert s._thread is None and s.stop()["available"] is False
    assert s.status["reason"] == "nope: unknown telemetry backend" and len(s.counters()) == 0


@pytest.mark.parametrize("env,count,want", [
    (None, 2, [(0, 0), (1, 1)]),
    ("3,1", 4, [(0, 3), (1, 1)]),
    ("GPU-aa,GPU-bb", 8, [(0, "GPU-aa"), (1, "GPU-bb")]),
    ("2,-1,0", 4, [(0, 2)]),  # CUDA ignores everything from the first invalid entry
])
def test_visible_devices_map_cuda_ordinals_to_nvml(env, count, want):
    assert _visible_ordinals(env, count) == want


def test_nvml_backend_converts_units(monkeypatch):
    # a stand-in for pynvml returning what NVML documents: clocks MHz, power mW, memory bytes
    nv = types.SimpleNamespace(
        NVML_CLOCK_SM=1, NVML_CLOCK_MEM=2, NVML_TEMPERATURE_GPU=0,
        nvmlInit=lambda: None, nvmlShutdown=lambda: None, nvmlDeviceGetCount=lambda: 4,
        nvmlDeviceGetHandleByIndex=lambda i: f"h{i}",
        nvmlDeviceGetUtilizationRates=lambda h: types.SimpleNamespace(gpu=97, memory=41),
        nvmlDeviceGetClockInfo=lambda h, c: {1: 1755, 2: 2619}[c],
        nvmlDeviceGetPowerUsage=lambda h: 612_345, nvmlDeviceGetTemperature=lambda h, t: 71,
        nvmlDeviceGetMemoryInfo=lambda h: types.SimpleNamespace(used=3 * 2**30),
        nvmlDeviceGetCurrentClocksThrottleReasons=lambda h: 0x24)  # older driver: no ClocksEventReasons
    monkeypatch.setitem(sys.modules, "pynvml", nv)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2")
    b = NvmlBackend()
    assert b.devices() == [0] and b.handles[0] == "h2"
    got = {q: r() for q, r in b.readers(0).items()}
    assert got == {"gpu_util": 97.0, "mem_util": 41.0, "sm_clock": 1.755e9, "mem_clock": 2.619e9, "power": 612.345,
                   "temperature": 71.0, "memory_used": 3 * 2.0**30, "clock_event_reasons": 36.0}


def _telemetry_timeline(samples, status=None):
    """samples: list of (t_ms, util %, sm MHz, reasons bitmask) for GPU 1."""
    rows = {"event_id": [], "metric": [], "value": [], "unit": [], "source": [], "time_ns": []}
    for t, util, mhz, reasons in samples:
        for q, v, u in (("gpu_util", util, "%"), ("sm_clock", mhz * 1e6, "Hz"), ("clock_event_reasons", reasons, "")):
            rows["event_id"].append(-1), rows["metric"].append(metric_name(q, 1)), rows["value"].append(float(v))
            rows["unit"].append(u), rows["source"].append("telemetry"), rows["time_ns"].append(t * 1_000_000)
    src = status or {"collector": "telemetry", "path": "telemetry:nvml", "available": True, "backend": "nvml"}
    return Timeline(counters=make_table(COUNTER_COLUMNS, rows), meta=TimelineMeta(sources=[src])).validate()


def test_throttling_and_clock_drop_findings():
    # 10 samples 100 ms apart: 2 idle (210 MHz, GpuIdle bit), 4 busy at full clock, 4 busy throttled to 1410 MHz
    # with SwPowerCap (0x4) and SwThermalSlowdown (0x20).
    s = [(0, 0, 210, 0x1), (100, 0, 210, 0x1)] + [(200 + 100 * i, 100, 1980, 0) for i in range(4)] + \
        [(600 + 100 * i, 100, 1410, 0x24) for i in range(4)]
    res = Telemetry().analyze(_telemetry_timeline(s))
    assert res.skipped_reason is None
    thr, drop = res.findings
    assert thr.title == "GPU 1 was throttled (SwPowerCap, SwThermalSlowdown) in 4 of 10 telemetry samples"
    # at stake: what full clock would have saved, not the throttled time (the old figure, 4 × 100 ms, counted the
    # whole 400 ms — and again under the clock drop): 4 × 100 ms × (1 − 1410/1980) = 115.15 ms, counted once
    assert thr.time_at_stake_ns == round(4 * 100_000_000 * (1 - 1410 / 1980))
    assert drop.time_at_stake_ns == thr.time_at_stake_ns and drop.parent == thr.key
    # the idle 210 MHz samples are not a drop: the drop is 1980 → 1410 MHz over the 4 throttled busy samples
    assert drop.title == "GPU 1 SM clock dropped from 1980 MHz to 1410 MHz while busy (4 of 8 busy samples)"
    assert "throttle reasons were set" in drop.detail
    row = res.table.set_index("quantity").loc["sm_clock"]
    assert row["samples"] == 10 and row["max"] == 1.98e9 and row["mean"] == pytest.approx(
        (2 * 210 + 4 * 1980 + 4 * 1410) * 1e6 / 10)


def test_steady_clocks_give_no_findings():
    res = Telemetry().analyze(_telemetry_timeline([(100 * i, 90, 1980 - i, 0) for i in range(5)]))
    assert res.findings == [] and res.summary["samples"] == 5


def test_telemetry_skipped_reasons():
    off = {"collector": "telemetry", "path": "telemetry:none", "available": False, "reason": "nvml: no driver"}
    assert Telemetry().analyze(_telemetry_timeline([], off)).skipped_reason == "telemetry unavailable: nvml: no driver"
    res = Telemetry().analyze(collect(KINETO / "torch2.13_cpu_only_mm.pt.trace.json"))
    assert res.skipped_reason.startswith("no telemetry in the input")


def test_steps_count_host_ranges_only():
    path = KINETO / "hta_mi250_minitoy_rocm6.2.json.gz"
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    host = {int(e["name"].split("#")[1]): e["dur"] for e in events
            if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")}
    res = Steps().analyze(collect(path))
    assert res.summary["step_count"] == len(host) == 2  # the gpu_user_annotation mirror of step 1 is not counted
    assert res.summary["steps"] == sorted(host)
    assert res.table["dur_ns"].tolist() == [round(host[k] * 1000) for k in sorted(host)]
    spans = {int(e["name"].split("#")[1]): (e["ts"], e["ts"] + e["dur"]) for e in events
             if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")}
    ops = [e["ts"] for e in events if e.get("cat") == "cpu_op" and e.get("ph") == "X" and e["ts"] > 0]
    want = [sum(a <= t < b for t in ops) for a, b in (spans[k] for k in sorted(spans))]
    assert res.table["cpu_ops"].tolist() == want and sum(want) > 0


def test_profile_without_torch_names_the_extra(monkeypatch, tmp_path):
    import gpulens
    from gpulens.errors import DependencyError

    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail as if it were not installed
    with pytest.raises(DependencyError) as err:
        with gpulens.profile(out=tmp_path / "o"):
            pass
    assert str(err.value) == ("gpulens.profile() needs the 'torch' package: pip install 'gpulens[torch]' "
                              "(from a gpulens checkout: pip install '.[torch]')")
    assert not (tmp_path / "o").exists()
