"""Session 47: variants of the shared cases (../shared/cases/README.md) that keep a case's kind of fault and change its
surface (another format, another producer, the fault combined with another). Every expected figure is worked out by
hand in the test's docstring from the input written in the test (ns unless said).

B17 kind in a rocprofv3 kernel_trace.csv: every kernel name written unquoted, its commas splitting it over several
fields. ``--lenient`` re-joined such names in a rocprof v1 results.csv (every other column a number) but dropped every
row of the rocprofv3 file ("no GPU work", exit 5): with no row of the header's width, the reading took only the name
column as text, so rocprofv3's ``Kind`` column (``KERNEL_DISPATCH``) failed the type check of every row.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main

V3_HEAD = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
           '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
           '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')
T = 1_000_000_000


def _analyze(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict | None]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out), *extra])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else None)


def _v3_rows(rows: list[tuple[str, int, int]], quoted: set[int], agent: str = "1") -> str:
    """rocprofv3 kernel_trace.csv text: (name, start ns, end ns) per dispatch, the names of rows in ``quoted`` quoted,
    the others written bare (their commas split them)."""
    return V3_HEAD + "\n" + "".join(
        f'"KERNEL_DISPATCH",{agent},1,69,{i + 1},16,{chr(34) + n + chr(34) if i in quoted else n},{i + 1},{a},{b},'
        "0,0,64,1,1,1024,1,1\n" for i, (n, a, b) in enumerate(rows))


TRANSPOSE = "transpose_tile(float*, float const*, int, int)"
AXPY = "void demo::axpy<float, 256>(float, float const*, float*, int)"


@pytest.mark.parametrize("quoted", [set(), {0}], ids=["none_quoted", "one_quoted"])
@pytest.mark.parametrize("agent", ["1", '"GPU 0"'], ids=["agent_id", "agent_label"])
def test_b17_rocprofv3_names_split_by_unquoted_commas_are_rejoined(tmp_path, quoted, agent):
    """transpose_tile [T, T+60,000] (3 commas: 4 pieces) and axpy [T+70,000, T+80,000] (4 commas: 5 pieces) on one
    queue. --lenient: both names re-joined (the only reading: every field after the name is a number) → 2 kernels,
    60,000 + 10,000 = 70,000 ns summed and busy, span T → T+80,000 = 80,000 ns. Strict: a one-line error naming the
    file and the header's 18 columns, no shifted column."""
    d = tmp_path / "run"
    d.mkdir()
    p = d / "kernel_trace.csv"
    p.write_text(_v3_rows([(TRANSPOSE, T, T + 60_000), (AXPY, T + 70_000, T + 80_000)], quoted, agent))
    code, s = _analyze(p, tmp_path, "--lenient")
    assert code == 0
    assert s["summary"]["kernel_count"] == 2
    assert s["summary"]["kernel_time_ns"] == 70_000 and s["summary"]["gpu_busy_ns"] == 70_000
    assert s["summary"]["span_ns"] == 80_000
    assert {k["name"] for k in s["top_kernels"]} == {TRANSPOSE, AXPY}
    assert any("realigned on the kernel-name column" in w for w in s["warnings"])
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 2


def test_b17_rocprofv3_split_name_with_a_shifted_number_is_still_dropped(tmp_path):
    """Control: a row whose extra field is a bare number after a quoted name (``"k",5``) has no single reading — it is
    dropped, counted, never read as the name ``k,5``; the other row (ka [T, T+10,000]) is kept: 1 kernel, 10,000 ns."""
    d = tmp_path / "run"
    d.mkdir()
    p = d / "kernel_trace.csv"
    p.write_text(V3_HEAD + "\n" + f'"KERNEL_DISPATCH",1,1,69,1,16,"ka",1,{T},{T + 10_000},0,0,64,1,1,1024,1,1\n'
                 f'"KERNEL_DISPATCH",1,1,69,2,16,"kb",5,2,{T + 20_000},{T + 30_000},0,0,64,1,1,1024,1,1\n')
    code, s = _analyze(p, tmp_path, "--lenient")
    assert code == 0 and s["summary"]["kernel_count"] == 1 and s["summary"]["kernel_time_ns"] == 10_000
    assert any("1 row dropped" in w for w in s["warnings"])


# --- T05 kind in `gpulens diff`: the same copies recorded by ROCm 6 (gpu_memcpy events "Memcpy DtoD") and by ROCm 7
# (HIP blit kernels __amd_rocclr_copyBuffer…, whose names say no direction) showed as "vanished" and "new" rows, the
# largest changes of a diff whose total change is 0


def _t05_run(path: Path, rocm7: bool, copy_us: tuple[float, float] = (20, 15), direction: str = "DtoD") -> Path:
    """The T05 workload on one MI300X stream (µs): a copy [100, 100+a], a fill [120, 125], the GEMM [125, 225], a
    copy [225, 225+b]; ROCm 7 writes the copies and the fill as blit kernels (cat kernel), ROCm 6 as gpu_memcpy /
    gpu_memset events named with the copy's direction."""
    a, b = copy_us
    names = (["__amd_rocclr_copyBuffer", "__amd_rocclr_fillBufferAligned", "__amd_rocclr_copyBufferAligned"] if rocm7
             else [f"Memcpy {direction} (Device -> Device)", "Memset (Device)", f"Memcpy {direction} (Device -> Device)"])
    cats = ["kernel"] * 3 if rocm7 else ["gpu_memcpy", "gpu_memset", "gpu_memcpy"]
    ev = [{"ph": "X", "cat": cat, "name": n, "pid": 0, "tid": 1, "ts": ts, "dur": dur,
           "args": {"device": 0, "stream": 1}}
          for cat, n, ts, dur in zip(cats, names, (100, 120, 225), (a, 5, b))]
    ev.append({"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk_BBS_BH_MT128x128x64_demo", "pid": 0, "tid": 1,
               "ts": 125, "dur": 100, "args": {"device": 0, "stream": 1}})
    path.write_text(json.dumps({"deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X"}], "traceEvents": ev}))
    return path


@pytest.mark.parametrize("direction", ["DtoD", "HtoD"])
def test_t05_diff_matches_rocm6_copies_with_rocm7_blit_kernels(tmp_path, direction):
    """Base ROCm 6 (2 copies of 20 + 15 = 35 µs named with their direction, 1 fill 5 µs), candidate ROCm 7 (the same as
    blit kernels, copies 20 + 25 = 45 µs). The GEMM matches by name (Δ 0); the copies form one row of 2 → 2 events,
    35 → 45 µs, Δ +10,000 ns — the whole change, so it is the top contributor — and the fill one row, Δ 0; nothing new
    or vanished."""
    from gpulens.diff import diff

    r = diff(_t05_run(tmp_path / "b.json", False, direction=direction),
             _t05_run(tmp_path / "c.json", True, copy_us=(20, 25)))
    k = r.tables["kernels"].set_index("kernel")
    assert not {"new", "vanished"} & set(k["match"])
    copies = k.loc["unmatched copy memcpys (by category)"]
    assert copies["match"] == "category" and copies["delta_ns"] == 10_000
    assert k.loc["unmatched copy memsets (by category)", "delta_ns"] == 0
    assert k.loc["Cijk_Alik_Bljk_BBS_BH_MT128x128x64_demo", "delta_ns"] == 0
    assert k["delta_ns"].sum() == 10_000


def test_copies_whose_directions_both_sides_name_and_differ_stay_apart(tmp_path):
    """Control: both runs ROCm 6, DtoD copies (35 µs) in the base, HtoD copies (35 µs) in the candidate: other work —
    the DtoD row vanished (−35,000 ns), the HtoD row new (+35,000 ns), never one row of Δ 0."""
    from gpulens.diff import diff

    r = diff(_t05_run(tmp_path / "b.json", False, direction="DtoD"), _t05_run(tmp_path / "c.json", False,
                                                                              direction="HtoD"))
    k = r.tables["kernels"]
    assert sorted(k.loc[k["match"].isin(["new", "vanished"]), "delta_ns"]) == [-35_000, 35_000]


# --- B12 kind in `gpulens diff`: a copy's direction as each producer spells it. The diff read directions with its own
# pattern, which missed nsys 2023+'s "[CUDA memcpy Host-to-Device]": the same run traced by nsys and by torch.profiler
# showed its copies as vanished + new (or, directions unknown, HtoD and DtoH pooled in one row)

_GT = ("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),"
       "Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name")
GEMM = "void gemm_kernel<float, 128>(const float *, float *, int)"


def _gpu_trace(path: Path, rows: list[tuple[int, int, str]]) -> Path:
    """``nsys stats --report cuda_gpu_trace --format csv`` output: (start ns, duration ns, name) on stream 7 of one
    H100; a copy (name in brackets) without launch configuration."""
    lines = [f"{a},{d},{i + 1}," + (",,,,,,," if n.startswith("[") else "64,1,1,256,1,1,32,")
             + f'0.000,0.000,,,,,NVIDIA H100 80GB HBM3 (0),1,,7,"{n}"' for i, (a, d, n) in enumerate(rows)]
    path.write_text(_GT + "\n" + "\n".join(lines) + "\n")
    return path


def _kineto(path: Path, rows: list[tuple[float, float, str, str]]) -> Path:
    """A Kineto trace: (ts µs, dur µs, category, name) on stream 7 of GPU 0 (an H100)."""
    ev = [{"ph": "X", "cat": c, "name": n, "pid": 0, "tid": "stream 7", "ts": a, "dur": d,
           "args": {"device": 0, "stream": 7}} for a, d, c, n in rows]
    path.write_text(json.dumps({"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": ev}))
    return path


def test_b12_diff_reads_nsys_copy_directions(tmp_path):
    """Base (nsys gpu trace, ns): HtoD copy [1000, 5000] (4,000), gemm [6000, 26,000], DtoH copy [27,000, 33,000]
    (6,000). Candidate (Kineto, µs): HtoD 1+5 µs, gemm 7+20 µs, DtoH 28+6 µs. By direction: HtoD 4,000 → 5,000 ns
    (Δ +1,000), DtoH 6,000 → 6,000 (Δ 0), gemm by name Δ 0; no row new or vanished, no row pooling two directions."""
    from gpulens.diff import diff
    from gpulens.diff.compute import copy_direction

    assert [copy_direction(n) for n in ("[CUDA memcpy Host-to-Device]", "[CUDA memcpy Peer-to-Peer]")] == ["HtoD",
                                                                                                          "PtoP"]
    base = _gpu_trace(tmp_path / "base_gpu_trace.csv", [(1000, 4000, "[CUDA memcpy Host-to-Device]"),
                                                        (6000, 20_000, GEMM),
                                                        (27_000, 6000, "[CUDA memcpy Device-to-Host]")])
    cand = _kineto(tmp_path / "cand.json", [(1, 5, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)"),
                                            (7, 20, "kernel", GEMM),
                                            (28, 6, "gpu_memcpy", "Memcpy DtoH (Device -> Pinned)")])
    k = diff(base, cand).tables["kernels"]
    assert not {"new", "vanished"} & set(k["match"])
    by_row = dict(zip(k["kernel"], k["delta_ns"]))
    assert by_row["unmatched copy memcpys (HtoD) (by category)"] == 1000
    assert by_row["unmatched copy memcpys (DtoH) (by category)"] == 0
    assert "unmatched copy memcpys (by category)" not in by_row


# --- B02 + B04 kind: a gzip trace whose trailer check fails (a flipped bit in the CRC-32 or the length, after every
# byte of the trace decompressed). A stream corrupt after its first 16 KiB kept what came before; one that fails
# inside its first 16 KiB (any small trace) kept nothing: exit 2 although every event was there.


@pytest.mark.parametrize("field, at", [("crc32", -8), ("isize", -2)])
def test_b02_gzip_trace_with_a_bad_trailer_keeps_its_events(tmp_path, field, at):
    """40 kernels k0..k39 of 10 µs, 20 µs apart from ts 1000 on stream 7, gzip-compressed (≈ 1 KiB), one byte of the
    trailer's {field} flipped: every event decompressed before the check → 40 kernels, 400,000 ns busy, span
    1000 → 1000 + 39 × 20 + 10 µs = 790,000 ns; status partial (the data may be damaged), a warning that the gzip
    data is corrupt, exit 0."""
    import gzip

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": "stream 7", "ts": 1000 + 20 * i, "dur": 10,
           "args": {"device": 0, "stream": 7}} for i in range(40)]
    g = bytearray(gzip.compress(json.dumps({"traceEvents": ev}).encode(), mtime=0))
    assert len(g) < 16384
    g[at] ^= 0xFF
    p = tmp_path / "trace.pt.trace.json.gz"
    p.write_bytes(bytes(g))
    code, s = _analyze(p, tmp_path)
    assert code == 0 and s["status"] == "partial"
    assert (s["summary"]["kernel_count"], s["summary"]["gpu_busy_ns"], s["summary"]["span_ns"]) == (40, 400_000,
                                                                                                   790_000)
    assert any("gzip data is corrupt" in w for w in s["warnings"])


@pytest.mark.parametrize("cut", ["stream_ends", "bad_trailer"])
def test_b04_gzip_csv_cut_at_a_line_end_is_partial(tmp_path, cut):
    """B04 in a gzip-compressed rocprofv3 kernel_trace.csv: 200 dispatches k0..k199 of 5,000 ns, 10,000 ns apart;
    the gzip stream stops right after row 100 (a full flush there, the writer killed: no end marker), or is complete
    but its trailer's CRC-32 is flipped. The text read ends at a line end, so no row is cut: the CSV reader alone
    sees a complete file. Expected: status partial with a warning naming the gzip stream; what decompressed is read
    (100 kernels, 500,000 ns, span 99 × 10,000 + 5,000 = 995,000 ns — or all 200: 1,000,000 ns, span 1,995,000 ns);
    never "ok" as though the file were whole."""
    import zlib

    rows = [f'"KERNEL_DISPATCH",1,1,69,{i + 1},16,"k{i}",{i + 1},{T + i * 10_000},{T + i * 10_000 + 5000},0,0,64,1,'
            "1,1024,1,1\n" for i in range(200)]
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    if cut == "stream_ends":
        data, want = c.compress((V3_HEAD + "\n" + "".join(rows[:100])).encode()) + c.flush(zlib.Z_FULL_FLUSH), \
            (100, 500_000, 995_000)
    else:
        g = bytearray(c.compress((V3_HEAD + "\n" + "".join(rows)).encode()) + c.flush())
        g[-8] ^= 0xFF
        data, want = bytes(g), (200, 1_000_000, 1_995_000)
    d = tmp_path / "run"
    d.mkdir()
    p = d / "kernel_trace.csv.gz"
    p.write_bytes(data)
    code, s = _analyze(p, tmp_path)
    sm = s["summary"]
    assert code == 0 and s["status"] == "partial" and s["truncated"]
    assert (sm["kernel_count"], sm["kernel_time_ns"], sm["span_ns"]) == want
    # cut short: truncated; a bad trailer: every row read, the check failed — nothing lost, a byte may be wrong
    assert any("gzip" in w and ("truncated" in w if cut == "stream_ends" else "nothing is lost" in w)
               for w in s["warnings"])
