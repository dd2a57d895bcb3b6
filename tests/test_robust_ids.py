"""Sixth-session case variants (F04's class, tests/case_variants.py ``F04``): an id or size that is a number but no
64-bit integer (2^64, 2^63, -2^63 - 1, 1e30, nan) in any field of a Kineto event — ``tid``, ``pid``, ``correlation``,
``External id``, ``stream``, ``device`` — was read as unknown *silently*: the event stayed, its link or stream was
lost, and no warning said so. Now each such value is counted per field in one warning naming the file.

Inputs are written inline; the counts are those of the values planted here.
"""

from __future__ import annotations

import json

import pytest

from gpulens.collectors import collect


def _k(i, **over):
    ev = {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000 + 20 * i, "dur": 5,
          "args": {"device": 0, "stream": 7, "correlation": i + 1, "External id": i + 1}}
    for k, v in over.items():
        (ev if k in ("pid", "tid") else ev["args"])[k] = v
    return ev


@pytest.mark.parametrize("field, value", [("tid", 2 ** 64), ("pid", 1e30), ("correlation", 2 ** 63),
                                          ("External id", -(2 ** 63) - 1), ("stream", 10 ** 30),
                                          ("device", 2 ** 64)])
def test_a_number_beyond_int64_is_counted_not_silent(tmp_path, field, value):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [_k(0), _k(1, **{field: value}), _k(2)]}))
    tl = collect(p)
    assert sorted(tl.events["name"].astype(str)) == ["k0", "k1", "k2"]   # the event is kept
    w = [x for x in tl.meta.warnings if "no 64-bit integer" in x]
    assert len(w) == 1 and w[0].startswith(f"{p}: 1 id or size value") and f"{field} ×1" in w[0]


def test_labels_and_absent_ids_are_not_counted(tmp_path):
    # "stream 7" is a label with its number (read as 7); a pid named "Spans" has no number; no correlation at all
    evs = [_k(0, tid="stream 7"), dict(_k(1), pid="Spans"), _k(2)]
    del evs[2]["args"]["correlation"]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    tl = collect(p)
    assert not [x for x in tl.meta.warnings if "no 64-bit integer" in x]


def test_two_fields_in_one_warning(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": [_k(0, tid=2 ** 64), _k(1, tid=2 ** 65, correlation=1e30), _k(2)]}))
    tl = collect(p)
    w = [x for x in tl.meta.warnings if "no 64-bit integer" in x]
    assert len(w) == 1 and ": 3 id or size values" in w[0] and "tid ×2" in w[0] and "correlation ×1" in w[0]
