"""Critical path on a hand-made trace: a CPU-bound step, then a GPU-bound step ending in a device sync. The
expected path is derived by hand below (times in µs; ProfilerStep#1 = [1000, 1100), ProfilerStep#2 = [1100, 1300)).

Step 1 — the GPU finishes each kernel long before the host needs it, so the path never leaves the host thread:
  idle 1000–1005 | op A 1005–1020 | launch call 1020–1025 | op A 1025–1035 | idle 1035–1040 | op B 1040–1080 |
  launch call 1080–1085 | op B 1085–1090 | idle 1090–1100
  → cpu_op 15+10+40+5 = 70, runtime 5+5 = 10, host_idle 5+5+10 = 20.
Step 2 — the host waits in cudaDeviceSynchronize (1140–1266) for k4 (1214–1264), queued behind k3 (1114–1214),
  which was launched at 1108 from op C:
  idle 1100–1105 | op C 1105–1108 | launch delay 1108–1114 | k3 1114–1214 | k4 1214–1264 | sync 1264–1266 |
  idle 1266–1270 | op E 1270–1290 | idle 1290–1300
  → kernel 150, cpu_op 3+20 = 23, host_idle 5+4+10 = 19, launch_delay 6, sync 2.
"""

from __future__ import annotations

from gpulens.report import analyze
from tests.dig_traces import KTrace


def _trace(tmp_path):
    t = KTrace()
    t.annotation("ProfilerStep#1", 1000, 100)
    a = t.op("aten::mm", 1005, 30)
    t.launch(a, 1020, [("k1", 1027, 5)], dur=5)
    b = t.op("aten::relu", 1040, 50)
    t.launch(b, 1080, [("k2", 1087, 5)], dur=5)
    t.annotation("ProfilerStep#2", 1100, 200)
    c = t.op("aten::mm", 1105, 10)
    t.launch(c, 1108, [("k3", 1114, 100)], dur=4)
    d = t.op("aten::add", 1120, 10)
    t.launch(d, 1122, [("k4", 1214, 50)], dur=4)
    t.sync(1140, 126)
    t.op("aten::item", 1270, 20)
    return t.write(tmp_path / "cp.json")


def test_critical_path_equals_the_hand_derived_path(tmp_path):
    r = analyze([_trace(tmp_path)], only=["critical_path", "critical_path_segments"]).sources[0].results
    t = r["critical_path"].table
    got = {(int(s), c): int(v) for s, c, v in zip(t["step"], t["class"], t["time_ns"])}
    assert got == {(1, "cpu_op"): 70_000, (1, "runtime"): 10_000, (1, "host_idle"): 20_000,
                   (2, "cpu_op"): 23_000, (2, "host_idle"): 19_000, (2, "launch_delay"): 6_000,
                   (2, "kernel"): 150_000, (2, "sync"): 2_000}
    s2 = t[t["step"] == 2].set_index("class")
    assert s2.loc["kernel", "events"] == 2 and s2.loc["kernel", "top_event"] == "k3"
    # the wait after k4 is the blocking call's own time: it names the call (s29: no "0 events" beside a time)
    assert s2.loc["sync", "top_event"] == "cudaDeviceSynchronize" and s2.loc["sync", "events"] == 1
    seg = r["critical_path_segments"].table
    step2 = seg[seg["step"] == 2]
    assert list(zip(step2["class"], step2["dur_ns"] // 1000, step2["event"])) == [
        ("host_idle", 5, ""), ("cpu_op", 3, "aten::mm"), ("launch_delay", 6, ""), ("kernel", 100, "k3"),
        ("kernel", 50, "k4"), ("sync", 2, "cudaDeviceSynchronize"), ("host_idle", 4, ""), ("cpu_op", 20, "aten::item"),
        ("host_idle", 10, "")]
    assert r["critical_path"].summary["windows"] == 2


def test_cross_stream_dependency_is_followed(tmp_path):
    """k6 (stream 8) is launched at 1008 but starts only when k5 (stream 7) ends at 1050 — an event wait. Path:
    idle 1000–1002 | op X 1002–1003 | launch delay 1003–1006 | k5 1006–1050 | k6 1050–1080 | sync 1080–1082 |
    idle 1082–1100 → kernel 44 + 30 = 74 µs."""
    t = KTrace()
    t.annotation("ProfilerStep#1", 1000, 100)
    x = t.op("aten::mm", 1002, 4)
    t.launch(x, 1003, [("k5", 1006, 44)], dur=2)
    y = t.op("aten::add", 1007, 4)
    t.launch(y, 1008, [("k6", 1050, 30)], dur=2, stream=8)
    t.sync(1012, 70)
    seg = analyze([t.write(tmp_path / "x.json")], only=["critical_path_segments"]).sources[0].results
    seg = seg["critical_path_segments"].table
    assert list(zip(seg["class"], seg["dur_ns"] // 1000, seg["event"])) == [
        ("host_idle", 2, ""), ("cpu_op", 1, "aten::mm"), ("launch_delay", 3, ""), ("kernel", 44, "k5"),
        ("kernel", 30, "k6"), ("sync", 2, "cudaDeviceSynchronize"), ("host_idle", 18, "")]
