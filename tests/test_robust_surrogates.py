"""Lone UTF-16 surrogates in Kineto JSON (issue 17 class 1, text encodings): ``"\\ud800"`` is valid JSON syntax but
no character; msgspec refuses it and the tolerant reader replaces each by one U+FFFD. The warning says what was
replaced and where (events or metadata, with counts) — not "malformed JSON outside the events".

The inputs are written here; the expected counts are the escapes planted in them.
"""

from __future__ import annotations

import json

from gpulens.collectors import collect


def _trace(tmp_path, names: list[str], extra: str = "") -> str:
    evs = [json.dumps({"ph": "X", "cat": "kernel", "name": "NAME%d" % i, "pid": 0, "tid": 7, "ts": 10 + 10 * i,
                       "dur": 5, "args": {"device": 0, "stream": 7, "correlation": i + 1}}).replace(f"NAME{i}", n)
           for i, n in enumerate(names)]
    p = tmp_path / "t.pt.trace.json"
    # the escapes are written as the 6 characters \ud800 (json.dumps would write a real one the same way)
    p.write_text('{"traceEvents": [' + ", ".join(evs) + "]" + extra + "}")
    return p


def test_lone_surrogates_inside_events_are_counted_there(tmp_path):
    # 3 lone escapes in 2 of the 3 events: a high one, a low one, and a high one followed by a non-low escape
    p = _trace(tmp_path, [r"k_\ud800_a", "k_b", r"k_\udc00\ud83d\u0041"])
    tl = collect(p)
    names = sorted(tl.of_kind("kernel")["name"].astype(str))
    assert names == ["k_b", "k_\ufffd_a", "k_\ufffd\ufffdA"]  # one U+FFFD per escape
    w = [x for x in tl.meta.warnings if "surrogate" in x]
    assert len(w) == 1 and "3 lone UTF-16 surrogate escapes" in w[0] and "3 in 2 events" in w[0], w
    assert not any("outside the events" in x for x in tl.meta.warnings), tl.meta.warnings


def test_valid_surrogate_pair_is_one_character_and_no_warning(tmp_path):
    p = _trace(tmp_path, [r"k_\ud83d\ude00"])  # U+1F600 written as its UTF-16 pair
    tl = collect(p)
    assert tl.of_kind("kernel")["name"].astype(str).tolist() == ["k_\U0001F600"]
    assert not any("surrogate" in x for x in tl.meta.warnings)


def test_lone_surrogate_in_metadata_is_counted_there_and_replaced(tmp_path):
    p = _trace(tmp_path, ["k_a"], ', "deviceProperties": [{"id": 0, "name": "GPU\\ud800x", "totalGlobalMem": 1}]')
    tl = collect(p)
    w = [x for x in tl.meta.warnings if "surrogate" in x]
    assert len(w) == 1 and "0 in 0 events, 1 in the trace's metadata" in w[0], tl.meta.warnings
    assert tl.meta.devices[0]["name"] == "GPU\ufffdx"
    assert not any("outside the events" in x for x in tl.meta.warnings), tl.meta.warnings
