"""B07 variants (../shared/cases/README.md): overlapping events on one stream in other shapes — reversed file order
over two devices, an event nested inside another, one event overrunning *two* successors while another stream runs
concurrently, equal start times in either file order. Rule: per stream, sorted by start,
end_i = min(end_i, start_{i+1}); every event kept; overruns listed. Figures derived by hand below (µs → ns)."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main


def _k(name, ts, dur, stream=7, dev=0):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": dev, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": {"device": dev, "stream": stream}}


def _run(events: list, tmp_path: Path) -> dict:
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": events}))
    out = tmp_path / "out.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    return json.loads(out.read_text())["sources"][0]


def _eff(src: dict) -> dict:
    return {r["name"]: r["effective_ns"] for r in src["analyses"]["hotspots"]["table"]}


def _over(src: dict) -> dict:
    return {o["name"]: o["overrun_ns"] for o in src["analyses"]["hotspots"]["summary"]["overruns"]}


def test_two_devices_reversed_order_nested_and_seconds_long_overrun(tmp_path):
    """GPU 0 stream 7: outer 100+50, inner 110+10 (nested), after 200+5 → outer clipped at 110: 10 / 10 / 5 µs.
    GPU 1 stream 3: x 100+1,000,000, y 130+20 → x clipped at 130: 30 / 20 µs. Busy 25 + 50 = 75 µs; wall span
    100 → 205 = 105 µs; busy % = 75 / (105 + 50) = 48.39 %. Overruns: outer 150-110 = 40 µs, x 1,000,100-130 =
    999,970 µs. Raw kernel time 50+10+5+1,000,000+20 = 1,000,085 µs. Top kernel x (30 µs), file written reversed."""
    ev = [_k("outer", 100, 50), _k("inner", 110, 10), _k("after", 200, 5), _k("x", 100, 1_000_000, 3, 1),
          _k("y", 130, 20, 3, 1)]
    src = _run(ev[::-1], tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (5, 75_000, 105_000)
    assert sm["kernel_time_ns"] == 1_000_085_000 and abs(sm["gpu_busy_pct"] - 100 * 75 / 155) < 1e-9
    assert _eff(src) == {"outer": 10_000, "inner": 10_000, "after": 5_000, "x": 30_000, "y": 20_000}
    assert _over(src) == {"outer": 40_000, "x": 999_970_000}
    assert src["analyses"]["hotspots"]["table"][0]["name"] == "x"


def test_overrun_across_two_successors_beside_a_concurrent_stream(tmp_path):
    """Stream 7: big 100+500, s1 120+10, s2 140+10 → big clipped at 120 (20 µs, overrun 600-120 = 480 µs).
    Stream 8: z 130+40 overlaps legitimately (another stream). Busy = [100,170] = 70 µs = span."""
    src = _run([_k("big", 100, 500), _k("s1", 120, 10), _k("s2", 140, 10), _k("z", 130, 40, 8)], tmp_path)
    sm = src["summary"]
    assert (sm["gpu_busy_ns"], sm["span_ns"], sm["kernel_time_ns"]) == (70_000, 70_000, 560_000)
    assert _eff(src) == {"big": 20_000, "s1": 10_000, "s2": 10_000, "z": 40_000}
    assert _over(src) == {"big": 480_000}


def test_equal_starts_give_the_same_answer_in_either_file_order(tmp_path):
    """a 100+30 and b 100+10 start together on stream 7, c 150+10: whichever is clipped, busy is [100,130] ∪
    [150,160] = 40 µs of span 60 µs, and both file orders agree; no event dropped."""
    ev = [_k("a", 100, 30), _k("b", 100, 10), _k("c", 150, 10)]
    one = _run(ev, tmp_path)
    two = _run(ev[::-1], tmp_path)
    for src in (one, two):
        assert (src["summary"]["kernel_count"], src["summary"]["gpu_busy_ns"], src["summary"]["span_ns"]) == (
            3, 40_000, 60_000)
    assert _eff(one) == _eff(two) and sum(_eff(one).values()) == 40_000
