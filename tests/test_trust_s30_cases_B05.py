"""B05 variants (../shared/cases/README.md): no GPU work in other flavours — gzipped metadata-only Kineto, a trace of
CPU ops and runtime calls only, header-only CSVs of rocprof v1 / rocprofv3 (CRLF) / Nsight Compute. Each: exit 5
("no data", distinct from 0), 0 kernels, 0 ns of kernel time, every table empty but with its columns; the gate
never passes such a candidate."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gpulens.cli import main

META = [{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}},
        {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}}]
CPU = [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
       {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 20, "dur": 5}]
V3 = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
      '"Correlation_Id","Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size",'
      '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\r\n')
V1 = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,wave_size,"
      "sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs\n")
NCU = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
       '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
FILES = {"meta.pt.trace.json.gz": gzip.compress(json.dumps({"schemaVersion": 1, "traceEvents": META}).encode()),
         "cpu_only.json": json.dumps({"traceEvents": CPU}).encode(),
         "kernel_trace.csv": V3.encode(), "results.csv": V1.encode(), "ncu_details.csv": NCU.encode()}


@pytest.mark.parametrize("name", sorted(FILES))
def test_no_gpu_work_is_no_data_with_empty_tables(name, tmp_path, capsys):
    p = tmp_path / name
    p.write_bytes(FILES[name])
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)])
    err = capsys.readouterr().err
    assert code == 5 and "Traceback" not in err and name in err
    src = json.loads(out.read_text())["sources"][0]
    assert src["status"] == "no_gpu_work" and src["summary"]["kernel_count"] == 0
    assert src["summary"]["kernel_time_ns"] == 0
    hs = src["analyses"]["hotspots"]
    assert hs["table"] == [] and {"name", "calls", "total_ns"} <= set(hs["columns"])


def test_gate_on_a_run_without_gpu_work_is_not_a_pass(tmp_path):
    """Baseline: one kernel 1000+5 µs. Candidate: CPU ops only → exit 4 (no usable run), never 0; with --json the
    verdict says why."""
    base = tmp_path / "base.json"
    full = tmp_path / "full.json"
    full.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": "stream 7",
                                                 "ts": 1000, "dur": 5, "args": {"device": 0, "stream": 7}}]}))
    assert main(["analyze", "-q", "--no-cache", str(full), "--json", str(base)]) == 0
    cand = tmp_path / "cpu_only.json"
    cand.write_bytes(FILES["cpu_only.json"])
    g = tmp_path / "g.json"
    assert main(["gate", str(cand), "-b", str(base), "-q", "--json", str(g)]) == 4
    res = json.loads(g.read_text())
    assert res["verdict"] != "PASS" and "no GPU work" in res["reason"]
