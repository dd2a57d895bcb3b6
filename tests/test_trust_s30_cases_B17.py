"""B17 variants (../shared/cases/README.md): rocprof CSVs read by column name — columns reordered with CRLF line ends
and a name holding commas and doubled quotes; a width mismatch on a *later* line only; a row *wider* than the header
(an unquoted name with commas). Durations EndNs − BeginNs (v1) / End_Timestamp − Start_Timestamp (v2), ns."""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.cli import main

V1_COLS = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
           "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs").split(",")


def _run(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), *extra, "--json", str(out)])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else {})


def _hot(src: dict) -> dict:
    return {r["name"]: r["total_ns"] for r in src["analyses"]["hotspots"]["table"]}


def test_reordered_columns_crlf_and_doubled_quotes(tmp_path):
    """BeginNs/EndNs first, KernelName last; ``"void f<""a, b"">(int, float) [clone .kd]"`` runs
    5,009,300 − 5,000,300 = 9,000 ns, ``g(int,int)`` 5,010,700 − 5,010,000 = 700 ns; span 5,000,300 → 5,010,700."""
    cols = ["BeginNs", "EndNs"] + [c for c in V1_COLS if c not in ("BeginNs", "EndNs", "KernelName")] + ["KernelName"]
    vals = [{"BeginNs": 5000300, "EndNs": 5009300, "name": '"void f<""a, b"">(int, float) [clone .kd]"'},
            {"BeginNs": 5010000, "EndNs": 5010700, "name": '"g(int,int)"'}]
    lines = [",".join(cols)]
    for i, v in enumerate(vals):
        row = {c: "0" for c in cols} | {"Index": str(i), "gpu-id": "3", "DispatchNs": str(v["BeginNs"] - 100),
                                         "CompleteNs": str(v["EndNs"] + 100), "BeginNs": str(v["BeginNs"]),
                                         "EndNs": str(v["EndNs"]), "obj": "0x1", "KernelName": v["name"]}
        lines.append(",".join(row[c] for c in cols))
    p = tmp_path / "results.csv"
    p.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    code, src = _run(p, tmp_path)
    assert code == 0 and _hot(src) == {'void f<"a, b">(int, float) [clone .kd]': 9000, "g(int,int)": 700}
    assert (src["summary"]["gpu_busy_ns"], src["summary"]["span_ns"]) == (9700, 10_400)


V2_HEADER = ("Dispatch_ID,GPU_ID,Queue_ID,Queue_Index,PID,TID,GRD,WGR,LDS,SCR,Arch_VGPR,ACCUM_VGPR,SGPR,Wave_Size,SIG,"
             "OBJ,Kernel_Name,Start_Timestamp,End_Timestamp,Correlation_ID,GRBM_COUNT\n")


def test_width_mismatch_on_a_later_line_is_a_one_line_error(tmp_path, capsys):
    """Line 2 has the header's 21 fields, line 3 only 19: stop, naming the file, line 3 and both counts."""
    p = tmp_path / "results.csv"
    p.write_text(V2_HEADER
                 + '1,4,1,0,4242,4242,1024,256,0,0,8,0,16,64,0,1400,"saxpy(float, float*, float*, int) (.kd)",'
                   '2000000,2007500,33,12\n'
                 + '2,4,1,4242,4242,2048,256,0,0,8,0,16,64,1401,1,"scale(float*, int) (.kd)",2010000,2012000,34\n')
    code, _ = _run(p, tmp_path)
    err = capsys.readouterr().err.strip()
    assert code == 2 and str(p) in err and "line 3" in err and "19" in err and "21" in err and "\n" not in err


def test_row_wider_than_header_errors_strict_and_rejoins_the_name_leniently(tmp_path, capsys):
    """``matrixTranspose(float*, float*, int)`` unquoted: 23 fields for 21 columns. Strict: one-line error naming
    line 2. Lenient: the name re-joined, 160,500 − 100,500 = 60,000 ns; ok_kernel 180,400 − 170,400 = 10,000 ns."""
    p = tmp_path / "results.csv"
    p.write_text(",".join(V1_COLS) + "\n"
                 + "0,matrixTranspose(float*, float*, int),2,0,1,4242,4242,1048576,256,0,0,8,8,16,64,0,0x1,"
                   "100000,100500,160500,161000\n"
                 + '1,"ok_kernel",2,0,2,4242,4242,65536,256,0,0,12,0,24,64,0,0x1,170000,170400,180400,181000\n')
    code, _ = _run(p, tmp_path)
    err = capsys.readouterr().err.strip()
    assert code == 2 and "line 2" in err and "23" in err and "\n" not in err
    code, src = _run(p, tmp_path, "--lenient")
    assert code == 0 and _hot(src) == {"matrixTranspose(float*, float*, int)": 60_000, "ok_kernel": 10_000}
    assert any("realigned" in w for w in src["warnings"])
