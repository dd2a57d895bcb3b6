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
