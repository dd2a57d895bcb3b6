"""B02 variants (../shared/cases/README.md): gzip found by magic bytes, every member read, whatever the name and the
format inside; a cut gzip stream keeps its complete events and says the result is partial. Expected values are
derived by hand from the events written here (µs in the file, ns in the report)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from gpulens.cli import main


def _report(path: Path, tmp_path: Path) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)])
    return code, json.loads(out.read_text())["sources"][0]


def _k(name, ts, dur, stream, corr=None):
    a = {"device": 0, "stream": stream, **({"correlation": corr} if corr else {})}
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": a}


# ka 1000+7 and kb 1010+11 on stream 7; kc 1030+13 and kd 1040+17 on stream 8 (kc overruns kd by 3 µs).
EVENTS = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 70, "tid": 70, "ts": 995, "dur": 4,
           "args": {"correlation": 1}},
          _k("ka", 1000, 7, 7, 1), _k("kb", 1010, 11, 7), _k("kc", 1030, 13, 8), _k("kd", 1040, 17, 8)]
DOC = json.dumps({"schemaVersion": 1, "traceEvents": EVENTS, "baseTimeNanoseconds": 1_700_000_000_000_000_000},
                 indent=1).encode()


def test_members_with_an_empty_one_and_zero_padding_read_whole(tmp_path):
    """Three members (one empty) and 512 zero bytes of block padding after the last: all 4 kernels.
    Busy = union on the GPU with kc clipped at kd's start: 7 + 11 + (1040-1030) + 17 = 45 µs; span 1000 → 1057 =
    57 µs; raw kernel time 7 + 11 + 13 + 17 = 48 µs."""
    p = tmp_path / "t.pt.trace.json.gz"
    p.write_bytes(gzip.compress(DOC[:200]) + gzip.compress(b"") + gzip.compress(DOC[200:]) + b"\0" * 512)
    code, src = _report(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and sm["kernel_count"] == 4
    assert (sm["gpu_busy_ns"], sm["span_ns"], sm["kernel_time_ns"]) == (45_000, 57_000, 48_000)
    assert src["inputs"][0]["compressed"] is True and src["inputs"][0]["uncompressed_bytes"] == len(DOC)
    assert not src["truncated"]


def test_array_form_without_bracket_in_two_members_named_json(tmp_path):
    """B02 + B04a: the legal open array form, gzipped in two members under a plain ``.json`` name: no warning."""
    arr = b"[\n" + b",\n".join(json.dumps(e).encode() for e in EVENTS) + b"\n"
    p = tmp_path / "renamed.json"
    p.write_bytes(gzip.compress(arr[:300]) + gzip.compress(arr[300:]))
    code, src = _report(p, tmp_path)
    assert code == 0 and src["summary"]["kernel_count"] == 4 and src["summary"]["gpu_busy_ns"] == 45_000
    assert src["warnings"] == [] and not src["truncated"]


def test_gzip_stream_cut_keeps_complete_events_and_is_partial(tmp_path):
    """The gzip stream loses its last 40 bytes (a cut download) inside kd: ka, kb, kc survive.
    Busy 7 + 11 + 13 = 31 µs (kd no longer follows kc), span 1000 → 1043 = 43 µs; marked truncated."""
    full = gzip.compress(DOC)
    p = tmp_path / "cut.json.gz"
    p.write_bytes(full[:-40])
    code, src = _report(p, tmp_path)
    sm = src["summary"]
    assert code == 0 and src["truncated"] and src["status"] == "partial"
    assert (sm["kernel_count"], sm["gpu_busy_ns"], sm["span_ns"]) == (3, 31_000, 43_000)
    assert {r["name"] for r in src["analyses"]["hotspots"]["table"]} == {"ka", "kb", "kc"}


def test_gzipped_rocprofv3_csv_under_a_csv_name(tmp_path):
    """Another format in the gzip: a rocprofv3 kernel_trace.csv compressed in two members but named ``.csv``.
    Durations End - Start: 8000-1000 = 7000, 10500-9000 = 1500, 12250-12000 = 250 ns; span 12250-1000 = 11250."""
    hdr = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
           '"Correlation_Id","Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size",'
           '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
    rows = "".join(f'"KERNEL_DISPATCH",1,1,0,100,{i},{i},"{n}",{i},{s},{e},0,0,256,1,1,1024,1,1\n'
                   for i, (n, s, e) in enumerate([("kx", 1000, 8000), ("ky", 9000, 10500), ("kz", 12000, 12250)], 1))
    text = (hdr + rows).encode()
    p = tmp_path / "kernel_trace.csv"
    p.write_bytes(gzip.compress(text[:400]) + gzip.compress(text[400:]))
    code, src = _report(p, tmp_path)
    hs = {r["name"]: r["total_ns"] for r in src["analyses"]["hotspots"]["table"]}
    assert code == 0 and hs == {"kx": 7000, "ky": 1500, "kz": 250}
    assert (src["summary"]["gpu_busy_ns"], src["summary"]["span_ns"]) == (8750, 11250)
    assert src["inputs"][0]["compressed"] is True
