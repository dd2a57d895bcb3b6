"""Kineto metadata integers beyond int64 (issue 17 class 1): ``baseTimeNanoseconds`` 2^70, a device id 2^64, a
``distributedInfo.rank`` of 2^64 or ``inf`` are unknown, never OverflowError; a base time that would carry event
times past int64 is ignored with a warning instead of wrapping them to negative times.

Input: tests/data/cases/B13.json (first event: cudaLaunchKernel at ts 1000 µs, 12 µs; first kernel at 1010 µs,
15 µs), its header changed here.
"""

from __future__ import annotations

import json

from gpulens.collectors import collect

from .conftest import CASES


def _b13(tmp_path, **header):
    d = json.loads((CASES / "B13.json").read_text())
    shift = header.pop("_shift_us", 0)
    for e in d["traceEvents"]:
        if "ts" in e:
            e["ts"] += shift
    d.update(header)
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps(d).replace('"INF"', "Infinity"))
    return p


def test_metadata_integers_beyond_int64_are_unknown(tmp_path):
    plain = collect(_b13(tmp_path))
    p = _b13(tmp_path, baseTimeNanoseconds=2 ** 70, distributedInfo={"rank": 2 ** 64},
             deviceProperties=[{"id": 2 ** 64, "name": "X", "totalGlobalMem": 2 ** 80}])
    tl = collect(p)
    # an unknown base time adds nothing: the same start times as the unchanged file
    assert tl.events["start_ns"].tolist() == plain.events["start_ns"].tolist()
    assert tl.events["start_ns"].min() == 1_000_000  # ts 1000 µs
    assert [d["device_id"] for d in tl.meta.devices] == [0]


def test_base_time_that_would_wrap_int64_is_ignored_with_a_warning(tmp_path):
    # 9e18 ns + (1000 µs + 3e14 µs) × 1000 = 9.3e18 > 2^63 - 1 ≈ 9.223e18: adding it would wrap to negative times
    p = _b13(tmp_path, baseTimeNanoseconds=9 * 10 ** 18, _shift_us=3 * 10 ** 14)
    tl = collect(p)
    assert tl.events["start_ns"].min() == (3 * 10 ** 14 + 1000) * 1000
    assert (tl.events["start_ns"] > 0).all()
    assert any("baseTimeNanoseconds 9000000000000000000" in w for w in tl.meta.warnings), tl.meta.warnings


def test_base_time_within_range_is_added(tmp_path):
    tl = collect(_b13(tmp_path, baseTimeNanoseconds=5 * 10 ** 17))
    assert tl.events["start_ns"].min() == 5 * 10 ** 17 + 1_000_000


def test_a_very_long_number_text_is_read_in_linear_time(tmp_path):
    # One event's "ts" is a 400,000-digit string: the vectorised µs→ns parser built an n × (longest text) digit
    # matrix and looped over its 400,000 columns (a hang in the fuzzer; in a 1M-event trace, a 400 GB matrix).
    # That timestamp is no int64 number of ns: the event is not read; the others keep their times.
    import time

    from gpulens.collectors._kineto_columns import us_text_to_ns

    t = time.monotonic()
    ns, ok = us_text_to_ns([b"1000", b'"' + b"7" * 400_000 + b'"', b"2.5", b"1" * 40])
    assert time.monotonic() - t < 8
    assert ok.tolist() == [True, False, True, False] and ns[[0, 2]].tolist() == [1_000_000, 2_500]
    d = json.loads((CASES / "B13.json").read_text())
    k = next(i for i, e in enumerate(d["traceEvents"]) if e.get("cat") == "kernel")
    d["traceEvents"][k]["ts"] = "9" * 400_000
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps(d))
    t = time.monotonic()
    tl = collect(p)
    assert time.monotonic() - t < 8
    assert len(tl.of_kind("kernel", "comm")) == len(collect(CASES / "B13.json").of_kind("kernel", "comm")) - 1


def _with_memory_event(tmp_path, **header):
    """B13 with one ``[memory]`` instant event at ts 1005 µs (between its first launch and first kernel)."""
    p = _b13(tmp_path, **header)
    d = json.loads(p.read_text())
    d["traceEvents"].append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1,
                             "tid": 1, "ts": 1005 + header.get("_shift_us", 0),
                             "args": {"Total Reserved": 2048, "Total Allocated": 1024, "Bytes": 1024,
                                      "Addr": 1, "Device Id": 0, "Device Type": 1}})
    p.write_text(json.dumps(d))
    return p


def test_negative_base_time_is_ignored_with_a_warning(tmp_path):
    # Kineto's baseTimeNanoseconds is the Unix-epoch ns of its clock's zero; -5e12 is before 1970: no such time.
    # Added, it put every start (and the memory rows) at negative times.
    tl = collect(_with_memory_event(tmp_path, baseTimeNanoseconds=-5 * 10 ** 12))
    assert tl.events["start_ns"].min() == 1_000_000  # ts 1000 µs, relative to the trace's own clock
    assert tl.tables["memory"]["time_ns"].tolist() == [1_005_000]
    assert [s["base_time_ns"] for s in tl.meta.sources] == [None]
    assert any("baseTimeNanoseconds -5000000000000 is negative" in w for w in tl.meta.warnings), tl.meta.warnings


def test_ignored_base_time_leaves_memory_rows_on_the_event_clock(tmp_path):
    # the base that would wrap int64 (above) was ignored for the events but still added to the [memory] rows:
    # 9e18 + 1005 µs read as 9.000000000001005e18 ns beside events at 1.0e6 ns
    shift = 3 * 10 ** 14
    tl = collect(_with_memory_event(tmp_path, baseTimeNanoseconds=9 * 10 ** 18, _shift_us=shift))
    assert tl.tables["memory"]["time_ns"].tolist() == [(shift + 1005) * 1000]
    assert tl.events["start_ns"].min() == (shift + 1000) * 1000
    assert [s["base_time_ns"] for s in tl.meta.sources] == [None]
