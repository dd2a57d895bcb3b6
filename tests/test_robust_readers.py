"""Readers validate what they read (issue 17 class 1; issue 21 items 1–2, cases B03a/b/c).

Expected values are those of shared/cases/README.md (B03), restated here; the other inputs are built inline.
"""

from __future__ import annotations

import json

import pytest

from gpulens.collectors import collect
from gpulens.collectors.kineto import KinetoCollector
from gpulens.errors import TraceFormatError

from .conftest import CASES


def _kernels(tl):
    ev = tl.events
    return sorted(zip(ev.loc[ev["kind"] == "kernel", "name"].astype(str), ev.loc[ev["kind"] == "kernel", "dur_ns"]))


def test_b03a_broken_metadata_block_is_skipped_with_a_warning():
    # README: 3 events kept — k_alpha 10 µs, k_beta 12 µs, one memcpy 3 µs / 65,536 B; a warning that the
    # metadata after traceEvents was skipped (the INFO array has unescaped quotes at line 9, column 51).
    tl = collect(CASES / "B03a.json")
    assert _kernels(tl) == [("k_alpha", 10_000), ("k_beta", 12_000)]
    cp = tl.events[tl.events["kind"] == "memcpy"]
    assert cp["dur_ns"].tolist() == [3_000] and cp["bytes"].tolist() == [65_536]
    (w,) = tl.meta.warnings
    assert "outside the events" in w and "skipped" in w and "line 9, column 51" in w


def test_b03b_control_byte_strict_error_points_at_it():
    with pytest.raises(TraceFormatError) as ei:
        collect(CASES / "B03b.json")
    msg = str(ei.value)
    # the raw 0x01 is the first byte of the name on line 2: `{"ph": "X", "cat": "python_function", "name": "` is
    # 47 characters, so the byte is column 48
    assert "line 2, column 48" in msg and "b'\\x01<module>" in msg and "--lenient" in msg and "\n" not in msg


def test_b03b_lenient_recovers_every_event():
    # README: 2 kernels (20 µs + 10 µs) and the 50 µs Python event; the FF FE bytes become U+FFFD.
    tl = collect(CASES / "B03b.json", strict=False)
    assert _kernels(tl) == [("fused_kernel_\ufffd\ufffd_v2", 20_000), ("plain_kernel", 10_000)]
    py = tl.events[tl.events["kind"] == "python"]
    assert py["dur_ns"].tolist() == [50_000] and py["name"].astype(str).tolist() == ["\x01<module>: step"]
    assert any("control characters escaped ×1" in w and "0 malformed events dropped" in w
               for w in tl.meta.warnings)


def test_b03c_bare_inf_nan_strict_and_lenient():
    with pytest.raises(TraceFormatError) as ei:
        collect(CASES / "B03c.json")
    assert "line 2, column 219" in str(ei.value) and "b'inf}}" in str(ei.value)
    # README: 3 events; kernels reduce_kernel 15 µs, scale_kernel 5 µs; the memcpy of 200 B has dur 0 (so its
    # bandwidth is undefined, not infinite: the recorded `inf` is read as unknown).
    tl = collect(CASES / "B03c.json", strict=False)
    assert len(tl.events) == 3
    assert _kernels(tl) == [("reduce_kernel", 15_000), ("scale_kernel", 5_000)]
    cp = tl.events[tl.events["kind"] == "memcpy"]
    assert cp["bytes"].tolist() == [200] and cp["dur_ns"].tolist() == [0]
    assert any("non-finite numbers read as unknown ×3" in w for w in tl.meta.warnings)


def _ev(i, **kw):
    e = {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 100 + 10 * i, "dur": 5,
         "args": {"device": 0, "stream": 7, "correlation": i}}
    e.update(kw)
    return e


@pytest.mark.parametrize("chunk", [1 << 20, 512])  # whole document at once, and streamed in small pieces
def test_ill_typed_event_is_dropped_and_counted(tmp_path, chunk):
    evs = [_ev(i) for i in range(40)]
    evs[3]["args"] = 5          # args must be an object
    evs[17]["ph"] = {"x": 1}    # ph must be text (Any accepts it; kept) — only args is typed
    evs[25]["args"] = [1, 2]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    tl = KinetoCollector().collect(p, chunk_bytes=chunk)
    kept = set(tl.events["name"].astype(str))
    assert "k3" not in kept and "k25" not in kept and "k4" in kept
    assert any("2 events dropped" in w and "$.args" in w for w in tl.meta.warnings)


def test_integer_beyond_int64_is_unknown_not_a_crash(tmp_path):
    evs = [_ev(0, tid=2 ** 64), _ev(1, pid=-(2 ** 63) - 1)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    tl = collect(p)
    assert sorted(tl.events["name"].astype(str)) == ["k0", "k1"]


def test_deeply_nested_json_value_is_replaced_and_counted(tmp_path):
    # sixth session: was a one-line refusal of the whole file; now a partial result (tests/test_robust_deep.py)
    p = tmp_path / "deep.json"
    p.write_text('{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": '
                 '{"grid": ' + "[" * 100_000 + "]" * 100_000 + "}}]}")
    tl = collect(p)
    assert list(tl.events["name"].astype(str)) == ["k"] and int(tl.events["dur_ns"].iloc[0]) == 1000
    assert any(w.startswith(f"{p}: 1 value nested deeper") for w in tl.meta.warnings)


def test_lenient_skips_an_unparseable_event_and_counts_it(tmp_path):
    good = [json.dumps(_ev(i)) for i in range(3)]
    broken = '{"ph": "X", "cat": "kernel", "name": "bad "quoted" name", "ts": 5, "dur": 1}'
    p = tmp_path / "t.json"
    p.write_text('{"traceEvents": [\n' + ",\n".join([good[0], broken, good[1], good[2]]) + "\n]}")
    tl = collect(p, strict=False)
    assert sorted(tl.events["name"].astype(str)) == ["k0", "k1", "k2"]
    assert any("1 malformed event dropped" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("chunk", [1 << 20, 512])
def test_event_name_or_category_of_the_wrong_type_is_dropped_and_counted(tmp_path, chunk):
    # a name or category that is an array or an object cannot name a kernel: that event is dropped and counted,
    # the other 38 of the 40 are kept (a fuzz finding: the whole file failed with "malformed kineto data")
    evs = [_ev(i) for i in range(40)]
    evs[5]["name"] = ["k", 5]
    evs[30]["cat"] = {"kernel": 1}
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    tl = KinetoCollector().collect(p, chunk_bytes=chunk)
    kept = set(tl.events["name"].astype(str))
    assert len(kept) == 38 and "k5" not in kept and "k30" not in kept and "k6" in kept
    assert any("2 events dropped" in w for w in tl.meta.warnings)
