"""Session 50: case B03 (almost-JSON: broken escaping, control characters, invalid UTF-8, bare ``inf``/``nan``) in
rocprof v1's ``results.json`` (``--hip-trace`` / ``--sys-trace``; a Chrome trace whose numbers are strings, its
``otherData`` the agents' properties written after ``traceEvents``). The Kineto reader kept the events of such a file;
this one refused it whole, or dropped the event:

* malformed metadata after the events (B03a's kind: an unescaped quote in ``otherData``): "not readable JSON", exit 2,
  even with ``--lenient`` — now the events are kept and the metadata skipped with a warning naming line and column;
* invalid UTF-8 in a kernel name (B03b, TraceLens#1035): the event was dropped — now read with U+FFFD, counted;
* a raw control character in a name, bare ``inf``/``nan`` in ``args`` (B03b/B03c): strict reading stops with the
  place and ``--lenient``; ``--lenient`` repairs them and keeps every event.

Every expected figure is worked out by hand from the values written here (ns: ``BeginNs``/``EndNs``).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gpulens.cli import main

T = 894_000_395_123_000  # ns, a rocprof v1 clock value (the boot-time clock of the MI210 spatter run's order)


def _kernel(name: str, begin: int, end: int) -> dict:
    """One kernel record of the ``GPU8`` track as rocprof v1 writes it: every number a string, µs in ts/dur."""
    return {"ph": "X", "name": name, "pid": 14, "tid": 578457, "ts": str(begin // 1000),
            "dur": str((end - begin) // 1000),
            "args": {"KernelName": name, "gpu-id": "8", "queue-id": "0", "queue-index": "15", "pid": "578457",
                     "tid": "578457", "grd": "1024", "wgr": "256", "lds": "0", "scr": "0", "arch_vgpr": "16",
                     "accum_vgpr": "0", "sgpr": "32", "wave_size": "64", "sig": "0x0", "obj": "0x7fe7a63eb600",
                     "DispatchNs": str(begin - 100), "BeginNs": str(begin), "EndNs": str(end),
                     "CompleteNs": str(end + 50), "DurationNs": str(end - begin)}}


#: k_a 10,000 ns, k_b 15,000 ns, k_c 5,000 ns: 30,000 ns of kernels over the span T → T + 45,000 ns
KERNELS = [("k_a", T, T + 10_000), ("k_b", T + 20_000, T + 35_000), ("k_c", T + 40_000, T + 45_000)]


def _doc(other: str = '{"Agent9.Name": "gfx90a"}') -> str:
    events = [{}, {"args": {"name": "GPU8"}, "ph": "M", "pid": 14, "name": "process_name", "sort_index": 0}]
    events += [_kernel(*k) for k in KERNELS]
    return '{ "traceEvents":[' + "\n,".join(json.dumps(e) for e in events) + '\n],\n"otherData": ' + other + "\n}\n"


def _analyze(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict | None]:
    out = tmp_path / "out.json"
    if out.exists():
        out.unlink()
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out), *extra])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else None)


def _write(tmp_path: Path, data: str | bytes, name: str = "results.json") -> Path:
    d = tmp_path / "run"
    d.mkdir(exist_ok=True)
    p = d / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return p


def _kernels(src: dict) -> dict[str, int]:
    return {r["name"]: r["total_ns"] for r in src["analyses"]["hotspots"]["table"]}


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("lenient", [False, True])
def test_b03a_broken_metadata_after_the_events_keeps_them(tmp_path, gz, lenient):
    """``otherData`` with an unescaped quote (``"run "x" --flag"``): the 3 kernels are read, 30,000 ns over a span of
    45,000 ns, and the warning says where the metadata broke (line 7: the ``otherData`` line, after the 6 lines of
    ``traceEvents``: the opening line, the empty object, the track name and 3 kernels each on a line, ``],``); the 3
    kernels are the interval events kept (beside them an empty object and the track name)."""
    text = _doc('{"Agent9.Name": "gfx90a", "cmd": "run "x" --flag"}')
    p = _write(tmp_path, gzip.compress(text.encode()) if gz else text, "results.json.gz" if gz else "results.json")
    code, src = _analyze(p, tmp_path, *(["--lenient"] if lenient else []))
    assert code == 0
    assert _kernels(src) == {"k_a": 10_000, "k_b": 15_000, "k_c": 5_000}
    assert (src["summary"]["kernel_time_ns"], src["summary"]["span_ns"]) == (30_000, 45_000)
    note = [w for w in src["warnings"] if "malformed JSON outside the events" in w]
    assert len(note) == 1 and "after the traceEvents array, at line 7" in note[0] and "3 events kept" in note[0]


def test_b03b_invalid_utf8_in_a_kernel_name_keeps_the_kernel(tmp_path):
    """Bytes ``FF FE`` inside ``k_b``'s name (written twice: ``name`` and ``args.KernelName``): the kernel is kept as
    ``k_\\ufffd\\ufffdb`` with its 15,000 ns; 2 × 2 = 4 invalid sequences said, no event dropped."""
    p = _write(tmp_path, _doc().encode().replace(b'"k_b"', b'"k_\xff\xfeb"'))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    assert _kernels(src) == {"k_a": 10_000, "k_\ufffd\ufffdb": 15_000, "k_c": 5_000}
    assert any("4 invalid UTF-8 byte sequences in strings read as U+FFFD" in w for w in src["warnings"])
    assert not any("dropped" in w for w in src["warnings"])


@pytest.mark.parametrize("damage, fixed", [
    (lambda t: t.replace('"k_b"', '"k_\x01b"'), "control characters escaped ×2"),  # name + KernelName
    (lambda t: t.replace('"CompleteNs"', '"Bw": inf, "Occ": nan, "CompleteNs"', 1),
     "non-finite numbers read as unknown ×2"),
])
def test_b03_almost_json_inside_an_event_strict_then_lenient(tmp_path, capsys, damage, fixed):
    """Strict reading stops at the damage with one line naming the file, the line and ``--lenient`` (exit 2);
    ``--lenient`` repairs it and keeps all 3 kernels (30,000 ns), the repair counted."""
    p = _write(tmp_path, damage(_doc()))
    code, _ = _analyze(p, tmp_path)
    err = capsys.readouterr().err.strip()
    assert code == 2 and str(p) in err and "--lenient" in err and "line " in err and "\n" not in err
    code, src = _analyze(p, tmp_path, "--lenient")
    assert code == 0 and src["summary"]["kernel_count"] == 3 and src["summary"]["kernel_time_ns"] == 30_000
    assert any(fixed in w for w in src["warnings"])


def test_damaged_event_skipped_with_lenient_is_counted(tmp_path):
    """A missing comma inside ``k_b``'s record: ``--lenient`` skips that one event (counted as dropped, the result
    partial) and keeps k_a and k_c: 10,000 + 5,000 = 15,000 ns."""
    p = _write(tmp_path, _doc().replace('"k_b", "pid"', '"k_b" "pid"', 1))
    code, src = _analyze(p, tmp_path, "--lenient")
    assert code == 0
    assert _kernels(src) == {"k_a": 10_000, "k_c": 5_000}
    assert any("1 malformed event dropped" in w for w in src["warnings"])
