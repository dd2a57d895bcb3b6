"""Sixth-session robustness: a JSON trace holding one value nested far past the decoders' recursion limit (msgspec
and ``json`` raise RecursionError at about 1,000 levels) is read as a partial result — the deep value replaced by
null and counted in a warning — instead of being refused as a whole ("malformed kineto data: nested too deeply").

Every input is written inline; the expected figures are sums of the ``dur`` values written here.
"""

from __future__ import annotations

import gzip
import json

import pytest

from gpulens.collectors import collect
from gpulens.collectors._deep import DEPTH_LIMIT, flatten_deep
from gpulens.collectors.kineto import KinetoCollector

DEEP = "[" * 5000 + "1" + "]" * 5000  # 5x CPython's default recursion limit


def _kernel(name: str, ts: int, dur: int, corr: int, **args) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": "stream 7", "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr, **args}}


def _trace_text(n: int = 4, deep_at: int = 1, field: str = "args") -> str:
    """``n`` kernels of 10 µs every 20 µs; kernel ``deep_at`` carries DEEP in ``args.junk`` or as its ``ts``."""
    evs = [json.dumps(_kernel(f"k{i}", 1000 + 20 * i, 10, i)) for i in range(n)]
    if field == "args":
        evs[deep_at] = evs[deep_at].replace('"args": {', '"args": {"junk": ' + DEEP + ", ", 1)
    else:
        evs[deep_at] = evs[deep_at].replace(f'"ts": {1000 + 20 * deep_at}', '"ts": ' + DEEP, 1)
    return '{"schemaVersion": 1, "traceEvents": [\n' + ",\n".join(evs) + "\n]}\n"


def _kernels(tl) -> dict[str, int]:
    k = tl.events[tl.events["kind"].astype(str) == "kernel"]
    return dict(zip(k["name"].astype(str), k["dur_ns"].astype(int)))


def test_flatten_keeps_length_and_leaves_strings_alone():
    doc = '{"a": "[[[[[[[[[[[", "b": ' + "[" * 10 + "]" * 10 + ', "c": [[1]]}'
    out, n = flatten_deep(doc, limit=3)
    assert n == 1 and len(out) == len(doc)
    # the top-level object is level 1: b's arrays open at levels 2..11, the 3rd of them (level 4) and below go
    assert json.loads(out) == {"a": "[[[[[[[[[[[", "b": [[None]], "c": [[1]]}
    assert flatten_deep(doc.encode(), limit=3)[0] == out.encode()
    assert flatten_deep(b'{"x": [1]}', limit=3) == (b'{"x": [1]}', 0)


@pytest.mark.parametrize("gz", [False, True])
def test_deep_value_in_args_keeps_every_event(tmp_path, gz):
    p = tmp_path / ("t.json.gz" if gz else "t.json")
    text = _trace_text()
    p.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    tl = collect(p)
    assert _kernels(tl) == {f"k{i}": 10_000 for i in range(4)}  # 4 kernels x 10 µs, as written
    warn = [w for w in tl.meta.warnings if "nested deeper" in w]
    assert len(warn) == 1 and "1 value" in warn[0] and str(p) in warn[0] and str(DEPTH_LIMIT) in warn[0]


def test_deep_timing_field_drops_that_event_only(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(_trace_text(deep_at=2, field="ts"))
    tl = collect(p)
    assert _kernels(tl) == {"k0": 10_000, "k1": 10_000, "k3": 10_000}  # k2's ts is no number: dropped
    # the deep value replaced by null is still a recorded value that is no number: "unreadable", not "missing"
    assert any("1 invalid event excluded: unreadable ts or dur" in w for w in tl.meta.warnings)
    assert any("nested deeper" in w for w in tl.meta.warnings)


def test_deep_value_in_a_streamed_piece(tmp_path):
    # 400 kernels in pieces of ~4 kB: the deep value sits in a piece decoded before the tail
    p = tmp_path / "t.json"
    p.write_text(_trace_text(n=400, deep_at=37))
    tl = KinetoCollector().collect(p, chunk_bytes=4096)
    ks = _kernels(tl)
    assert len(ks) == 400 and sum(ks.values()) == 400 * 10_000
    assert any("1 value nested deeper" in w for w in tl.meta.warnings)


def test_deep_value_in_a_cut_file_keeps_the_complete_events(tmp_path):
    # cut inside k3: the recovery path reads k0..k2 (k1 with its deep value) and flags the file truncated
    text = _trace_text(n=4, deep_at=1)
    p = tmp_path / "t.json"
    p.write_text(text[: text.index('"name": "k3"')])
    tl = collect(p)
    assert _kernels(tl) == {"k0": 10_000, "k1": 10_000, "k2": 10_000}
    assert any("nested deeper" in w for w in tl.meta.warnings)
    assert any("kept 3 complete events" in w for w in tl.meta.warnings)


def test_deep_value_at_the_top_level_of_the_document(tmp_path):
    text = _trace_text().replace('"schemaVersion": 1,', '"schemaVersion": 1, "extra": ' + DEEP + ",", 1)
    p = tmp_path / "t.json"
    p.write_text(text)
    tl = collect(p)
    assert len(_kernels(tl)) == 4


def test_cli_deep_trace_exits_0_with_the_warning_in_the_report(tmp_path, capsys):
    from gpulens.cli import main

    p = tmp_path / "t.json"
    p.write_text(_trace_text())
    out = tmp_path / "o.json"
    assert main(["analyze", str(p), "-q", "--no-cache", "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    assert src["summary"]["kernel_count"] == 4 and src["summary"]["gpu_busy_ns"] == 40_000
    assert any("nested deeper" in w for w in src["warnings"])


def test_rocprofv3_json_with_a_deep_value_is_read(tmp_path):
    from tests.test_rocprofv3 import _tiny_v3_json

    p = tmp_path / "77_results.json"
    _tiny_v3_json(p)
    raw = p.read_bytes()
    data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    ref = collect(p)
    text = data.decode()
    q = tmp_path / "88_results.json"
    assert '"metadata": {' in text
    q.write_text(text.replace('"metadata": {', '"metadata": {"junk": ' + DEEP + ", ", 1))
    tl = collect(q)
    assert len(tl.events) == len(ref.events)
    assert any("nested deeper" in w for w in tl.meta.warnings)


def test_a_kineto_header_larger_than_the_sniffed_head_is_still_kineto(tmp_path):
    # deviceProperties of 400 GPUs (~100 kB) before traceEvents: the format sniffer reads the first 64 KiB only
    props = [{"id": i, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "computeMajor": 9,
              "computeMinor": 0, "maxThreadsPerBlock": 1024, "numSms": 132, "sharedMemPerBlock": 49152,
              "regsPerMultiprocessor": 65536} for i in range(400)]
    text = _trace_text().replace('"schemaVersion": 1,', '"schemaVersion": 1, "deviceProperties": '
                                 + json.dumps(props) + ",", 1)
    assert text.index('"traceEvents"') > 65536
    p = tmp_path / "t.json"
    p.write_text(text)
    assert _kernels(collect(p)) == {f"k{i}": 10_000 for i in range(4)}


@pytest.mark.parametrize("bad", ['"ph": 5', '"args": 7', '"ts": "x"', '"name": ["n"]'])
def test_deep_value_after_an_ill_typed_event(tmp_path, bad):
    # the typed decoders stop at the ill-typed event before they reach the deep value; the loose decoder that
    # reads the rest meets it: k0's field is replaced by a wrong type, k2 holds the deep value
    text = _trace_text(n=4, deep_at=2)
    key = bad.split(":")[0]
    first = text.index(key, text.rfind("{", 0, text.index('"name": "k0"')))
    end = text.index(",", first) if key != '"args"' else text.index("}", first) + 1
    p = tmp_path / "t.json"
    p.write_text(text[:first] + bad + text[end:])
    tl = collect(p)
    names = sorted(tl.events["name"].astype(str))
    assert {"k1", "k2", "k3"} <= set(names)          # k2 (the deep one) and the others are read
    assert any("nested deeper" in w for w in tl.meta.warnings)
