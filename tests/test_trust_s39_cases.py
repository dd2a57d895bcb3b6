"""Variants of the shared cases (../shared/cases/README.md) in shapes no earlier test tried (session 39): the fault
kept, moved into the HTML timeline, the CI gate's *baseline*, ``gpulens diff``, or another sign of timestamp.
Every expected figure is derived by hand in the docstring from the values written here (µs in Kineto files, ns in
reports), never from gpulens output.

* B07 on the Timeline tab: the stream timeline drew each GPU event with its recorded duration, so the 3 s runaway
  kernel stretched the drawn extent to 3,000,070 µs while every other report clipped it at the next kernel's start.
* B02 / B03 / B04 as the gate's baseline: a trace ``.json`` that is not strict JSON (gzip bytes under a .json name,
  the array form without its closing ``]``, almost-JSON metadata, a cut file) was "not a readable baseline" although
  the same file is read as a candidate; a truncated one said "refusing to save baseline" (no save was asked for).
* B03 in gate and diff: the collectors' error said "--lenient repairs it", an option neither command had.
* B05: ``[]`` (the array form with no event) was "not a recognised trace format".
* T06 in diff and gate: launch calls without GPU records were called "no GPU work … the workload failed".
* B06: a kernel at a *negative* ts beside epoch timestamps was kept as a second clock domain (its 99 µs counted as
  busy time) instead of being rejected like the ``ts 0`` placeholder.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.case_variants import _nsys_db
from tests.test_case_variants_s10 import _run

T = 1_615_207_264_505_000  # the B06 epoch [µs]


def _k(name, ts, dur, stream=7, corr=None):
    args = {"device": 0, "stream": stream, **({"correlation": corr} if corr is not None else {})}
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": args}


def _doc(events, **extra) -> str:
    return json.dumps({"schemaVersion": 1, "traceEvents": events, **extra})


def _analyze(path: Path, tmp_path: Path, *extra) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code, _ = _run("analyze", "-q", "--no-cache", path, "--json", out, *extra)
    return code, json.loads(out.read_text())["sources"][0]


# ------------------------------------------------------------------------------------- B07 on the timeline tab
def test_b07_runaway_kernel_is_drawn_clipped_on_the_timeline(tmp_path):
    """Stream 7: gemm_a 100+50, gemm_b 140+20, elementwise_c 170+3,000,000 (the runaway in the middle of its
    stream), softmax_d 200+20 µs; stream 9: copy_e 120+10 (concurrent, another stream: not clipped). Serial per
    stream → drawn ends 140 / 160 / 200 / 220 and 130: extent 100 → 220 µs = 120,000 ns (not 3,000,070,000), the
    runaway drawn [170, 200] µs (30,000 ns), the busy of its segment 30,000 ns; the HTML timeline draws these
    segments and its extent, the same figures as the summary's span (120,000 ns), and says 2 events were drawn
    clipped: gemm_a by 150 − 140 = 10 µs, elementwise_c by 3,000,170 − 200 = 2,999,970 µs → 2,999,980,000 ns."""
    p = tmp_path / "b07.json"
    p.write_text(_doc([_k("elementwise_c", 170, 3_000_000), _k("gemm_a", 100, 50), _k("softmax_d", 200, 20),
                       _k("copy_e", 120, 10, stream=9), _k("gemm_b", 140, 20)]))
    code, src = _analyze(p, tmp_path, "--html", tmp_path / "r.html")
    st = src["analyses"]["stream_timeline"]
    assert (st["summary"]["clipped_events"], st["summary"]["clipped_ns"]) == (2, 2_999_980_000)
    page = (tmp_path / "r.html").read_text()
    assert "over 120.00 µs" in page
    assert "2 GPU events recorded past the start of the next one on their stream (3.00 s in all) are drawn clipped" \
        in page
    assert code == 0 and st["summary"]["extent_ns"] == 120_000 == src["summary"]["span_ns"]
    assert st["summary"]["end_ns"] - st["summary"]["start_ns"] == 120_000
    rows = {r["name"]: r for r in st["table"] if r["level"] == 0}
    assert (rows["elementwise_c"]["start_ns"], rows["elementwise_c"]["end_ns"]) == (170_000, 200_000)
    assert rows["elementwise_c"]["busy_ns"] == 30_000 and rows["gemm_a"]["end_ns"] == 140_000
    assert (rows["copy_e"]["start_ns"], rows["copy_e"]["end_ns"]) == (120_000, 130_000)
    assert max(r["end_ns"] for r in st["table"]) == 220_000


def test_b07_perfetto_export_has_no_overlapping_slices_on_a_stream(tmp_path):
    """The README's B07 (gemm_a 100+50, gemm_b 140+20, elementwise_c 170+3,000,000, softmax_d 200+20 µs on stream
    7) exported for Perfetto, which drops or mis-nests overlapping slices of one track: durations 40 / 20 / 30 / 20
    µs (each ends where the next starts), the recorded 50 and 3,000,000 µs kept in args; read back: 4 kernels,
    110,000 ns summed and busy over a 120,000 ns span."""
    p = tmp_path / "b07.json"
    p.write_text(_doc([_k("gemm_a", 100, 50), _k("gemm_b", 140, 20), _k("elementwise_c", 170, 3_000_000),
                       _k("softmax_d", 200, 20)]))
    out = tmp_path / "perfetto.json"
    assert _run("analyze", "-q", "--no-cache", p, "--perfetto", out)[0] == 0
    doc = json.loads(out.read_text())
    xs = {e["name"]: e for e in (doc["traceEvents"] if isinstance(doc, dict) else doc) if e.get("ph") == "X"}
    assert [xs[n]["dur"] for n in ("gemm_a", "gemm_b", "elementwise_c", "softmax_d")] == [40, 20, 30, 20]
    assert (xs["gemm_a"]["args"]["recorded dur"], xs["elementwise_c"]["args"]["recorded dur"]) == (50, 3_000_000)
    assert "recorded dur" not in xs["gemm_b"]["args"]
    code, src = _analyze(out, tmp_path)
    sm = src["summary"]
    assert (sm["kernel_count"], sm["kernel_time_ns"], sm["gpu_busy_ns"], sm["span_ns"]) == (4, 110_000, 110_000, 120_000)


# ---------------------------------------------------------------------------- B02/B03/B04 as the gate's baseline
_EVENTS = [_k("k1", 10, 5), _k("k2", 20, 5), _k("k3", 30, 5)]  # 3 kernels of 5 µs: 15 µs summed, span 25 µs


def _baseline_variant(kind: str) -> bytes:
    text = _doc(_EVENTS)
    if kind == "gzip-two-members-named-json":  # B02: split after the 2nd event, the whole under .json
        cut = text.index('{"ph"', text.index('"k2"'))
        return gzip.compress(text[:cut].encode()) + gzip.compress(text[cut:].encode())
    if kind == "array-without-bracket":  # B04a: legal
        return ("[\n" + ",\n".join(json.dumps(e) for e in _EVENTS) + "\n").encode()
    if kind == "metadata-not-json":  # B03a: the events, then an INFO array with unescaped quotes
        return (text[:-1] + ', "INFO": ["cuda event "event_id": 64 logged"]}').encode()
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["gzip-two-members-named-json", "array-without-bracket", "metadata-not-json"])
def test_trace_that_is_not_strict_json_is_read_as_the_gate_baseline(tmp_path, kind):
    """The baseline holds the 3 kernels k1..k3 of 5 µs (15,000 ns summed) whatever its form; the candidate is the
    same events in plain JSON: every metric equal → PASS (exit 0), the baseline's kernel time 15,000 ns."""
    base, cand = tmp_path / "base.json", tmp_path / "cand.json"
    base.write_bytes(_baseline_variant(kind))
    cand.write_text(_doc(_EVENTS))
    code, out = _run("gate", "-q", "-b", base, cand, "--json", tmp_path / "g.json")
    g = json.loads((tmp_path / "g.json").read_text())
    assert code == 0 and g["verdict"] == "PASS", out
    busy = next(m for m in g["metrics"] if m["metric"] == "kernel_time_ns")
    assert busy["base_median"] == pytest.approx(15_000) == busy["cand_median"]


def test_truncated_trace_as_baseline_is_one_line_naming_it_a_baseline_trace(tmp_path):
    """B04b as the baseline: cut inside the 3rd event → partial (2 of 3 kernels read): no comparable baseline, exit
    2, one line naming the file, 'truncated' and 'baseline trace' — not "refusing to save" (no save was asked)."""
    base, cand = tmp_path / "cut.json", tmp_path / "cand.json"
    text = _doc(_EVENTS)
    base.write_text(text[:text.rindex('"ts"') + 7])
    cand.write_text(text)
    code, out = _run("gate", "-q", "-b", base, cand)
    lines = out.strip().splitlines()
    assert code == 2 and len(lines) == 1 and str(base) in lines[0] and "truncated" in lines[0]
    assert "baseline trace" in lines[0] and "refusing to save" not in lines[0]


# ------------------------------------------------------------------------------------ B03 in gate and diff
@pytest.mark.parametrize("bad,kept", [
    ('"name": "\x01<module>: step"', 20_000),  # a raw control character in a host event's name: k1 + k2 kept
    ('"args": {"bandwidth": inf}', 20_000),  # a bare inf in args
])
def test_almost_json_trace_in_gate_and_diff_is_read_with_lenient(tmp_path, bad, kept):
    """Kernels k1 (10+15 µs) and k2 (30+5 µs) and one host event carrying the damage: strict → exit 2, one line
    naming the file and '--lenient'; gate --lenient → PASS (same file both sides); diff --lenient → the summed
    GPU time 15 + 5 = 20 µs = 20,000 ns on each side, Δ 0; baseline save --lenient stores its kernel time 20,000."""
    host = '{"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 5, "dur": 50, ' + bad + "}"
    if not bad.startswith('"name"'):
        host = host.replace('"cpu_op", ', '"cpu_op", "name": "aten::add", ')
    else:
        host = host.replace('"args"', '"x"')
    p = tmp_path / "t.json"
    p.write_text('{"traceEvents": [\n' + host + ",\n" + json.dumps(_k("k1", 10, 15)) + ",\n"
                 + json.dumps(_k("k2", 30, 5)) + "\n]}")
    code, out = _run("gate", "-q", "-b", p, p)
    assert code == 2 and len(out.strip().splitlines()) == 1 and str(p) in out and "--lenient" in out
    code, out = _run("gate", "-q", "--lenient", "-b", p, p, "--json", tmp_path / "g.json")
    assert code == 0 and json.loads((tmp_path / "g.json").read_text())["verdict"] == "PASS", out
    code, out = _run("diff", "-q", p, p)
    assert code == 2 and "--lenient" in out
    code, out = _run("diff", "-q", "--lenient", p, p, "--json", tmp_path / "d.json")
    sm = json.loads((tmp_path / "d.json").read_text())["summary"]
    assert code == 0 and (sm["base_time_ns"], sm["cand_time_ns"], sm["delta_ns"]) == (kept, kept, 0)
    saved = tmp_path / "saved.json"
    assert _run("baseline", "save", p, "--name", saved)[0] == 2 and not saved.exists()
    code, out = _run("baseline", "save", "--lenient", p, "--name", saved)
    assert code == 0 and json.loads(saved.read_text())["metrics"]["kernel_time_ns"]["samples"] == [kept], out


# ------------------------------------------------------------------------------------ B05 the empty array form
@pytest.mark.parametrize("text", ["[]", "[\n", " [ ]\n"])
def test_b05_empty_array_form_is_no_gpu_work(tmp_path, text):
    """An array-form trace with no event, closed or not (B04a: the ']' may be missing): 0 kernels, 0 ns, status
    no_gpu_work, exit 5 — not "not a recognised trace format" (exit 2)."""
    p = tmp_path / "empty.json"
    p.write_text(text)
    code, src = _analyze(p, tmp_path)
    assert code == 5 and src["status"] == "no_gpu_work"
    assert (src["summary"]["kernel_count"], src["summary"]["gpu_busy_ns"]) == (0, 0)


# ------------------------------------------------------------------------------------ T06 in diff and gate
def test_t06_incomplete_capture_is_named_in_diff_and_gate(tmp_path):
    """An Nsight Systems export with 4 cudaLaunchKernel calls (correlation 1-4) and no kernel table: diff's warning
    and the gate's exclusion say "incomplete capture" with the 4 launches, never "the workload failed"; the other
    side's 3 kernels (k1..k3, 15 µs) show as new."""
    db = _nsys_db(tmp_path / "broken.sqlite", ["cudaLaunchKernel_v7000"],
                  [(1_000_000 + 1000 * i, 1_000_500 + 1000 * i, i + 1, 1) for i in range(4)], None, [])
    other = tmp_path / "other.json"
    other.write_text(_doc(_EVENTS))
    code, out = _run("diff", "-q", db, other, "--json", tmp_path / "d.json")
    d = json.loads((tmp_path / "d.json").read_text())
    note = [w for w in d["warnings"] if str(db) in w]
    assert code == 0 and d["summary"]["cand_time_ns"] == 15_000 and d["summary"]["new_kernels"] == 3
    assert len(note) == 1 and "incomplete capture" in note[0] and "4 launch calls" in note[0]
    code, out = _run("gate", "-b", other, db)
    assert code == 4 and "incomplete capture" in out and "the workload failed" not in out


# ------------------------------------------------------------------------------------ B06 a negative timestamp
@pytest.mark.parametrize("ts,dur", [(-1, 0), (-5, 99), (-T, 5)])
@pytest.mark.parametrize("where", ["first", "last"])
def test_b06_negative_timestamp_beside_epoch_times_is_rejected(tmp_path, ts, dur, where):
    """B06's values: aten::mm [T-5, T+35], k_ok1 T+10, k_ok2 T+20+15 (µs); plus k_unset at a negative ts. Valid:
    2 kernels, busy 10 + 15 = 25 µs over the GPU span T → T+35 = 35 µs (71.4 %); 1 event rejected, counted as a
    negative timestamp — never a second clock domain whose 99 µs would count as busy time."""
    good = [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 70, "tid": 70, "ts": T - 5, "dur": 40},
            _k("k_ok1", T, 10), _k("k_ok2", T + 20, 15)]
    bad = [_k("k_unset", ts, dur)]
    p = tmp_path / "b06.json"
    p.write_text(_doc(bad + good if where == "first" else good + bad))
    code, src = _analyze(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (2, 25_000, 35_000)
    assert sm["rejected_event_count"] == 1 and round(sm["gpu_busy_pct"], 1) == 71.4
    assert any("negative timestamp" in w for w in src["warnings"])


def test_b06_negative_timestamp_in_an_nsys_export(tmp_path):
    """Nsight Systems (ns): ka [E+100,000, E+150,000], kb [E+160,000, E+170,000], and a kernel at start -1,000 ns
    lasting 99,000 ns: the latter rejected → 2 kernels, busy 50,000 + 10,000 = 60,000 ns over 70,000 ns."""
    e = 1_700_000_000_000_000_000
    kern = [(e + 100_000, e + 150_000, 7, 1, 2, 2), (e + 160_000, e + 170_000, 7, 2, 3, 3),
            (-1000, 98_000, 7, 3, 2, 2)]
    db = _nsys_db(tmp_path / "neg.sqlite", ["cudaLaunchKernel_v7000", "ka", "kb"],
                  [(e + 10_000 + 1000 * i, e + 10_500 + 1000 * i, i + 1, 1) for i in range(3)], kern, [])
    code, src = _analyze(db, tmp_path)
    sm = src["summary"]
    assert code == 0 and (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (2, 60_000, 70_000)
    assert sm["rejected_event_count"] == 1


def test_relative_clock_keeps_an_event_a_little_before_zero(tmp_path):
    """A trace relative to baseTimeNanoseconds: k_before at -5 µs (3 µs long), k1 0+10, k2 20+15: all three are
    real (the negative start is near the others, not a placeholder) → 3 kernels, busy 28 µs, span -5 → 35 = 40 µs."""
    p = tmp_path / "rel.json"
    p.write_text(_doc([_k("k_before", -5, 3), _k("k1", 0, 10), _k("k2", 20, 15)],
                      baseTimeNanoseconds=1_700_000_000_000_000_000))
    code, src = _analyze(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"], sm["rejected_event_count"]) == \
        (3, 28_000, 40_000, 0)
