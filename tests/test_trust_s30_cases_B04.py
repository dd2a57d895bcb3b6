"""B04 variants (../shared/cases/README.md): truncated traces in other shapes — the *array* form cut inside an event,
the object form cut right after a complete event, a cut inside a nested ``args`` object, begin events never ended in
an otherwise complete file — and a cut candidate never passes the CI gate. Figures derived by hand below."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main


def _k(name, ts, dur, stream=7):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": stream}}


# k1 1000+5 (stream 7), k2 1010+6 (stream 8), k3 1020+7 (stream 7)
EVENTS = [_k("k1", 1000, 5), _k("k2", 1010, 6, 8), _k("k3", 1020, 7)]


def _run(path: Path, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)])
    return code, json.loads(out.read_text())["sources"][0]


def _obj_text() -> str:
    return '{"schemaVersion":1,"traceEvents":[\n' + ",\n".join(json.dumps(e) for e in EVENTS) + "]}"


def test_array_form_cut_inside_an_event_is_partial(tmp_path):
    """Array form (legal without ``]``) but cut inside k3: k1 + k2 kept, busy 5 + 6 = 11 µs, span 1000 → 1016 =
    16 µs, truncated (an array missing its ``]`` is legal, an event missing its ``}`` is not)."""
    text = "[" + ",\n".join(json.dumps(e) for e in EVENTS)
    p = tmp_path / "cut_array.json"
    p.write_text(text[: text.index('"k3"') + 20])
    code, src = _run(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and src["truncated"] and src["status"] == "partial"
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (2, 11_000, 16_000)


def test_object_form_cut_after_a_complete_event_keeps_all_and_is_partial(tmp_path):
    """Cut after ``k3},`` — every event complete but ``]}`` missing: 3 kernels, busy 5 + 6 + 7 = 18 µs, span
    1000 → 1027 = 27 µs, still flagged truncated (events after the cut may be lost)."""
    text = _obj_text()
    p = tmp_path / "cut_after.json"
    p.write_text(text[: text.rindex("]}")] + ",\n")
    code, src = _run(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and src["truncated"] and src["status"] == "partial"
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (3, 18_000, 27_000)


def test_cut_inside_nested_args_does_not_invent_the_event_and_fails_no_gate(tmp_path):
    """Cut inside k3's ``args`` (its ts/dur already written): k3 is not invented — 2 kernels, busy 11 µs; gated
    against the complete run as baseline, the cut candidate is excluded (never a pass: exit != 0)."""
    text = _obj_text()
    p = tmp_path / "cut_args.json"
    p.write_text(text[: text.index('"stream": 7}', text.index('"k3"')) + 5])
    code, src = _run(p, tmp_path)
    assert code == 0 and src["truncated"]
    assert {r["name"] for r in src["analyses"]["hotspots"]["table"]} == {"k1", "k2"}
    assert src["summary"]["gpu_busy_ns"] == 11_000
    full = tmp_path / "full.json"
    full.write_text(_obj_text())
    assert main(["analyze", "-q", "--no-cache", str(full), "--json", str(tmp_path / "base.json")]) == 0
    assert main(["gate", str(p), "-b", str(tmp_path / "base.json"), "-q"]) != 0


def test_begin_events_never_ended_are_not_stretched(tmp_path):
    """A complete file whose stream-9 kernel ``kB`` (B at 1030) and a CPU ``step`` (B at 990) never end, beside a
    B/E pair ``kBE`` 1001 → 1004 and a host op at 5000+10. kB is not extended to the end: GPU busy = k1 [1000,1005]
    ∪ kBE [1001,1004] ∪ k2 [1010,1016] ∪ k3 [1020,1027] = 5 + 6 + 7 = 18 µs; GPU span 1000 → 1027 = 27 µs."""
    evs = [*EVENTS, {"ph": "B", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 1, "ts": 990},
           {"ph": "B", "cat": "kernel", "name": "kB", "pid": 0, "tid": "stream 9", "ts": 1030,
            "args": {"device": 0, "stream": 9}},
           {"ph": "B", "cat": "kernel", "name": "kBE", "pid": 0, "tid": "stream 9", "ts": 1001,
            "args": {"device": 0, "stream": 9}},
           {"ph": "E", "pid": 0, "tid": "stream 9", "ts": 1004},
           {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5000, "dur": 10}]
    p = tmp_path / "b.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    code, src = _run(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and (sm["gpu_busy_ns"], sm["span_ns"]) == (18_000, 27_000)
    # kB ran with no end: an untimed launch (in the kernel count, its time unknown), never extended (s47 w2timeline)
    rows = {r["name"]: r for r in src["analyses"]["hotspots"]["table"]}
    assert (rows["kB"]["total_ns"], rows["kB"]["untimed_launches"], sm["kernel_count"]) == (None, 1, 5)
    assert any("never ended" in w for w in src["warnings"])
