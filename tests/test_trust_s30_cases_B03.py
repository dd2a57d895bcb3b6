"""B03 variants (../shared/cases/README.md): almost-JSON — broken metadata *before* the events, raw control bytes and
invalid UTF-8 in kernel names on two streams, bare ``Infinity``/``NaN``, a zero-duration copy; names escaped again
in every text output, CSV included. Expected values derived by hand from the events written here."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gpulens.cli import main


def _k(name: str, ts: int, dur, stream: int = 7) -> str:
    return ('{"ph":"X","cat":"kernel","name":%s,"pid":0,"tid":"stream %d","ts":%d,"dur":%s,'
            '"args":{"device":0,"stream":%d}}' % (name, stream, ts, dur, stream))


def _run(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), *extra, "--json", str(out)])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else {})


def test_unquoted_tokens_in_metadata_before_the_events(tmp_path):
    """RCCL-plugin style ``"datatype": ncclFloat32, "Stream": 0x7f3a`` in metadata that comes *before*
    ``traceEvents``: ka 1000+10 and kb 1020+30 kept (busy 40 µs, span 1000 → 1050 = 50 µs), metadata skipped with
    a warning that says so."""
    p = tmp_path / "meta_first.json"
    p.write_text('{"schemaVersion":1,"distributedInfo":{"backend":"nccl","datatype": ncclFloat32,"Stream": 0x7f3a},'
                 '"traceEvents":[' + _k('"ka"', 1000, 10) + "," + _k('"kb"', 1020, 30) + "]}")
    code, src = _run(p, tmp_path)
    assert code == 0 and (src["summary"]["kernel_count"], src["summary"]["gpu_busy_ns"]) == (2, 40_000)
    assert src["summary"]["span_ns"] == 50_000
    assert any("metadata" in w and "skipped" in w for w in src["warnings"])


def _damaged_names(tmp_path: Path) -> Path:
    """k1 = 0x02 + "ge" + invalid UTF-8 (C3 28) + "mm", 1000+40 on stream 7; k2 = "red" + 0x1F, 1050+10 on stream 9;
    a memcpy of 4096 B with dur 0 and a bare ``Infinity`` bandwidth at 1100; bare ``NaN`` in trailing metadata."""
    mc = ('{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":"stream 7",'
          '"ts":1100,"dur":0,"args":{"device":0,"stream":7,"bytes":4096,"memory bandwidth (GB/s)":Infinity}}')
    b = ('{"traceEvents":[' + ",".join([_k('"\x02gemm"', 1000, 40), _k('"red\x1f"', 1050, 10, 9), mc])
         + '],"x":NaN}').encode().replace(b"gemm", b"ge\xc3\x28mm")
    p = tmp_path / "names.json"
    p.write_bytes(b)
    return p


def test_strict_read_names_file_and_position(tmp_path, capsys):
    code, _ = _run(_damaged_names(tmp_path), tmp_path)
    err = capsys.readouterr().err.strip()
    assert code == 2 and "names.json" in err and "line 1" in err and "\n" not in err and "Traceback" not in err


def test_lenient_read_keeps_every_event_and_no_bandwidth_for_zero_duration(tmp_path):
    """Busy = 40 + 10 = 50 µs (two streams, no overlap); span 1000 → 1100 = 100 µs (the copy ends at 1100);
    the copy's 4096 B are counted, its bandwidth (4096 B / 0 ns) is unknown, never inf."""
    code, src = _run(_damaged_names(tmp_path), tmp_path, "--lenient")
    sm = src["summary"]
    assert code == 0 and (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (2, 50_000, 100_000)
    assert (sm["memcpy_count"], sm["memcpy_bytes"]) == (1, 4096)
    assert [r["bandwidth"] for r in src["analyses"]["copies"]["table"]] == [None]
    assert {r["name"] for r in src["analyses"]["hotspots"]["table"]} == {"\x02ge\ufffd(mm", "red\x1f"}


def test_csv_export_escapes_control_characters_in_names(tmp_path):
    """Every exported CSV shows 0x02 and 0x1F as ``\\u0002`` / ``\\u001f`` (as HTML and Markdown do), never raw."""
    p = _damaged_names(tmp_path)
    code = main(["analyze", "-q", "--no-cache", "--lenient", str(p), "--csv", str(tmp_path / "csv")])
    assert code == 0
    raw = {f.name: f.read_bytes() for f in (tmp_path / "csv").glob("*.csv")}
    assert not [n for n, b in raw.items() if re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]", b)]
    hot = raw["hotspots.csv"].decode()
    assert "\\u0002ge\ufffd(mm" in hot and "red\\u001f" in hot
