"""Real profiler outputs (session 38, "held-back real traces"): wrong conclusions and unread inputs on real files.

1. A rocprofv3 counter collection carrying ``OccupancyPercent`` (rocprofiler-sdk counter_defs.yaml: "GPU Occupancy
   as % of maximum", a measured achieved occupancy) on a GPU the file does not name had its occupancy "skipped — no
   device spec": the measurement was thrown away because gpulens's *theoretical* calculator needs the device. Kind:
   a measured figure dropped because a computed one is unavailable. Now the measured achieved occupancy is shown
   (source ``counters``), theoretical occupancy says unknown because the GPU is not named, and the next step is to
   name it — not to collect a kernel trace the file already is.
2. An idle GPU of the same model as the busy one was not listed among the devices. HTA's AlexNet trace
   (``tests/data/kineto/hta_alexnet_a100.json.gz``, MIT) lists 8 × ``NVIDIA A100-PG509-200`` under
   ``deviceProperties`` and runs every GPU event on device 0; the device line named the A100 and said nothing of the
   7 others, while an idle GPU of another model was said ("also recorded, no GPU work on it: NVIDIA A40"). Kind: idle
   devices told apart by name instead of by device. Now each idle device id counts: "…: 7 × NVIDIA A100-PG509-200".
3. rocprofv2's tracer outputs were not read. Its default ``cli`` plugin writes ``[<pid>_]hcc_ops_trace.txt`` (and
   ``hip_api_trace.txt``, ``hsa_api_trace.txt``, ``async_copy_trace.txt``, or all of it on stdout) as
   ``Domain(HIP_OPS_DOMAIN), Operation_Name(KernelExecution), Kernel_Name(…), Start_Timestamp(…), End_Timestamp(…),
   Correlation_ID(…)`` records (ROCm/rocprofiler ``plugin/cli/cli.cpp``), not roctracer's ``begin:end dev:queue
   name:id`` lines: "not a recognised trace format" for the golden traces of ROCm/rocprofiler @
   7fa8139944668a80e94f45e97eda959e33474297 ``tests-v2/featuretests/tracer/apps/goldentraces/`` (MIT; copied as
   ``tests/data/rocprof/v2_cli_tracer_golden/``). Its ``file`` plugin's ``hcc_ops_trace_<pid>.csv`` (``Domain,
   Operation,Kernel_Name,Start_Timestamp,Stop_Timestamp,Correlation_ID``, ``plugin/file/file.cpp``) was worse: taken
   for rocprof v1 counter rows — "3 launches of 2 kernels, durations not recorded", its copies counted as kernels.
   Kind: a vendor's record form never read, and a look-alike misread. Now both forms are read (HIP ops by operation
   name as rocprof's ``tblextr.py`` splits them, HSA ``COPY`` records as copies, API calls as host calls), and a
   trace of launch calls without any GPU record is an incomplete capture, not "no GPU work".
4. A Chakra execution trace got the generic "not a recognised trace format". ``chakra_jsonizer`` (mlcommons/chakra
   ``src/jsonizer/jsonizer.py``) writes the protobuf ``.et`` as back-to-back protobuf-JSON objects (a GlobalMetadata
   whose ``attr`` names the ``1.0.2-chakra.0.0.4`` schema, then nodes typed ``COMP_NODE``/``COMM_COLL_NODE`` with
   ``ctrlDeps``/``dataDeps``); an ExecutionTraceObserver JSON rewritten with its ``nodes`` before ``schema`` (any
   ``json.dump`` of the dict in another order) and the protobuf ``.et`` itself were not told either — only a file
   opening with ``{"schema":`` was. Kind: a known non-timeline format told by one key order. Now each is named (a
   dependency graph for replay and simulation, not a GPU timeline) with what to analyse instead: the Kineto trace.
5. A CPU-activity-only Kineto trace of GPU work without a device list was "no GPU work — nothing ran on a GPU".
   HTA's ``rank_non_gpu.json.gz`` (facebookresearch/HolisticTraceAnalysis @ f4d0062c, MIT; copied as
   ``tests/data/kineto/hta_rank_non_gpu.json.gz``) is the run session 36 fixed for, with ``deviceProperties``
   stripped: 2,424 host operators, among them ``aten::record_stream`` ×48 — an op only GPU-stream tensors have. The
   rule asked for the device list as well. Kind: absence of records read as absence of work. Now GPU-only operators
   alone make it an incomplete capture (CPU activity only recorded); a CPU-only workload stays "no GPU work".
"""

from __future__ import annotations

import csv
import gzip
import json
import re
from pathlib import Path

import pytest

import gpulens

_V3_HEADER = ["Correlation_Id", "Dispatch_Id", "Agent_Id", "Queue_Id", "Process_Id", "Thread_Id", "Grid_Size",
              "Kernel_Id", "Kernel_Name", "Workgroup_Size", "LDS_Block_Size", "Scratch_Size", "VGPR_Count",
              "SGPR_Count", "Counter_Name", "Counter_Value"]


def _occupancy_percent_csv(path, values, timed: bool):
    """A rocprofv3 counter_collection.csv of the rocprofiler-sdk docs' shape, one OccupancyPercent per dispatch
    (ROCm 6.4+ adds Start_/End_Timestamp when ``timed``: 10 µs per dispatch, 5 µs apart)."""
    header = _V3_HEADER + (["Start_Timestamp", "End_Timestamp"] if timed else [])
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
        w.writerow(header)
        for i, (name, v) in enumerate(values):
            row = [i + 1, i + 1, 1, 1, 100, 100, 1048576, 16, name, 64, 0, 0, 8, 16, "OccupancyPercent", v]
            w.writerow(row + ([1000 + i * 15000, 1000 + i * 15000 + 10000] if timed else []))
    return path


@pytest.mark.parametrize("timed", [True, False])
def test_occupancy_percent_without_a_device_is_the_achieved_occupancy(tmp_path, timed):
    rows = [("void addition_kernel<float>(float*)", 30.0), ("void addition_kernel<float>(float*)", 50.0),
            ("multiply_kernel(float*)", 20.0)]
    f = _occupancy_percent_csv(tmp_path / "counter_collection.csv", rows, timed)
    occ = gpulens.analyze([f]).sources[0].results["occupancy"]
    assert occ.skipped_reason is None
    t = occ.table.set_index("name")
    # addition_kernel: two dispatches of equal duration (10 µs each when timed; the same mean otherwise) → (30+50)/2
    assert t.loc["void addition_kernel<float>(float*)", "achieved_occupancy_pct"] == pytest.approx(40.0)
    assert t.loc["multiply_kernel(float*)", "achieved_occupancy_pct"] == pytest.approx(20.0)
    assert t["theoretical_occupancy_pct"].isna().all()  # no device named: the calculator cannot run
    assert set(t["occupancy_source"]) == {"counters"}
    note = [x for x in occ.findings if x.key == "occupancy/theoretical-missing"]
    assert len(note) == 1 and "no device spec" in note[0].title and "(--device-spec NAME)." in note[0].detail
    assert "--kernel-trace" not in note[0].detail


def test_without_any_occupancy_measurement_no_device_still_skips(tmp_path):
    kt = Path(__file__).parent / "data" / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
    occ = gpulens.analyze([kt]).sources[0].results["occupancy"]
    assert occ.skipped_reason and "no device spec" in occ.skipped_reason


def test_real_idle_gpus_of_the_busy_gpus_model_are_counted(tmp_path):
    from gpulens.cli import main

    trace = Path(__file__).parent / "data" / "kineto" / "hta_alexnet_a100.json.gz"
    doc = json.loads(gzip.decompress(trace.read_bytes()))
    listed = {int(d["id"]): d["name"] for d in doc["deviceProperties"]}
    gpu_devices = {int(e["args"]["device"]) for e in doc["traceEvents"]
                   if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")}
    assert set(listed.values()) == {"NVIDIA A100-PG509-200"} and len(listed) == 8 and gpu_devices == {0}
    out = tmp_path / "r.json"
    assert main(["analyze", str(trace), "--no-cache", "--json", str(out)]) == 0
    text = json.loads(out.read_text())["sources"][0]["device_text"]
    head, _, tail = text.partition("; ")
    assert head.startswith("NVIDIA A100-PG509-200")
    assert tail == f"also recorded, no GPU work on them: {len(listed) - len(gpu_devices)} × NVIDIA A100-PG509-200"


def test_one_idle_gpu_of_the_same_model_and_one_of_another(tmp_path):
    from gpulens.cli import main

    def prop(i, name):
        return {"id": i, "name": name, "computeMajor": 8, "computeMinor": 0, "numSms": 108,
                "totalGlobalMem": 85095874560, "maxThreadsPerMultiprocessor": 2048, "regsPerMultiprocessor": 65536,
                "sharedMemPerMultiprocessor": 167936, "warpSize": 32}

    props = [prop(0, "NVIDIA A100-SXM4-80GB"), prop(1, "NVIDIA A100-SXM4-80GB"), prop(2, "NVIDIA A40")]
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 1000.0 + 10 * i, "dur": 5.0,
           "args": {"device": 1, "stream": 7, "correlation": 100 + i}} for i in range(3)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": props, "traceEvents": ev}))
    out = tmp_path / "r.json"
    assert main(["analyze", str(p), "--no-cache", "--json", str(out)]) == 0
    text = json.loads(out.read_text())["sources"][0]["device_text"]
    # devices 0 (same model as the busy device 1) and 2 (an A40) ran nothing: one of each
    assert text.endswith("also recorded, no GPU work on them: NVIDIA A100-SXM4-80GB, NVIDIA A40")


V2 = Path(__file__).parent / "data" / "rocprof" / "v2_cli_tracer_golden"
_REC = re.compile(r"Start_Timestamp\((\d+)\), End_Timestamp\((\d+)\)")


def _v2_records(path, domain):
    lines = path.read_text().splitlines()
    return [tuple(int(x) for x in _REC.search(ln).groups()) for ln in lines if ln.startswith(f"Domain({domain})")]


def test_real_rocprofv2_cli_hsa_copies_and_calls_are_read():
    from gpulens.collectors import collect

    f = V2 / "hsa_api_async_trace.txt"
    copies, calls = _v2_records(f, "HSA_OPS_DOMAIN"), _v2_records(f, "HSA_API_DOMAIN")
    other = [ln for ln in f.read_text().splitlines() if ln.strip() and not ln.startswith("Domain(")]
    assert (len(copies), len(calls), len(other)) == (6, 64, 9)  # the file itself
    tl = collect(f)
    ev = tl.events
    m = ev[ev["kind"] == "memcpy"]
    assert len(m) == len(copies) and int(m["dur_ns"].sum()) == sum(e - b for b, e in copies) == 284_320
    assert (ev["kind"] == "runtime").sum() == len(calls) and not (ev["kind"] == "kernel").any()
    assert any(f"{len(other)} lines dropped" in w for w in tl.meta.warnings)  # the program's own lines, counted
    src = gpulens.analyze([f]).sources[0]
    span = max(e for _, e in copies) - min(b for b, _ in copies)
    assert src.results["breakdown"].summary["span_ns"] == span == 8_491_899


def test_real_rocprofv2_api_only_trace_is_an_incomplete_capture(tmp_path):
    from gpulens.cli import main

    f = V2 / "hip_helloworld_golden_traces.txt"
    launches = [ln for ln in f.read_text().splitlines() if "Function(hipLaunchKernel)" in ln]
    assert len(launches) == 1 and not _v2_records(f, "HIP_OPS_DOMAIN")
    md = tmp_path / "r.md"
    main(["analyze", str(f), "--no-cache", "--markdown", str(md)])
    verdict = next(ln for ln in md.read_text().splitlines() if ln.startswith("> **Verdict:**"))
    assert "the capture is incomplete" in verdict and "hipLaunchKernel ×1" in verdict
    assert "--hip-activity" in verdict  # what to trace: the GPU side


_OPS = [("CopyHostToDevice", None, 1_000_000, 1_100_000, 4), ("KernelExecution", "vectoradd_float", 1_200_000,
        1_250_000, 7), ("Marker", None, 1_250_000, 1_250_100, 8), ("FillBuffer", None, 1_260_000, 1_262_000, 9),
        ("CopyDeviceToHost", None, 1_300_000, 1_310_000, 10)]


def _check_ops(tl):
    ev = tl.events
    gpu = ev[ev["kind"].isin(["kernel", "memcpy", "memset"])].sort_values("start_ns")
    # the marker is a barrier packet, no work: left out; the others keep their kinds, names and directions
    assert gpu["kind"].tolist() == ["memcpy", "kernel", "memset", "memcpy"]
    assert gpu["name"].tolist()[1] == "vectoradd_float"
    assert gpu["copy_kind"].astype(object).tolist()[0] == "HtoD" and gpu["copy_kind"].astype(object).tolist()[3] == "DtoH"
    assert gpu["dur_ns"].tolist() == [100_000, 50_000, 2_000, 10_000]
    assert any("1 barrier marker record left out" in w for w in tl.meta.warnings)


def test_rocprofv2_cli_hcc_ops_file_and_its_api_sibling(tmp_path):
    from gpulens.collectors import collect

    ops = tmp_path / "4242_hcc_ops_trace.txt"
    ops.write_text("".join(f"Domain(HIP_OPS_DOMAIN), Operation_Name({o}), " + (f"Kernel_Name({k}), " if k else "")
                           + f"Start_Timestamp({b}), End_Timestamp({e}), Correlation_ID({c})\n"
                           for o, k, b, e, c in _OPS))
    (tmp_path / "4242_hip_api_trace.txt").write_text(
        "Domain(HIP_API_DOMAIN), Function(hipLaunchKernel), Start_Timestamp(1150000), End_Timestamp(1160000), "
        "Correlation_ID(7)\n")
    for given in (ops, tmp_path):
        tl = collect(given)
        _check_ops(tl)
        assert (tl.events["kind"] == "runtime").sum() == 1  # the sibling API file of the same process


def test_rocprofv2_file_plugin_csv_is_not_counter_rows(tmp_path):
    from gpulens.collectors import collect

    f = tmp_path / "hcc_ops_trace_4242.csv"
    f.write_text("Domain,Operation,Kernel_Name,Start_Timestamp,Stop_Timestamp,Correlation_ID\n\n" + "".join(
        f'HIP_OPS_DOMAIN,"{o}",' + (f'"{k}"' if k else "") + f",{b},{e},{c}\n" for o, k, b, e, c in _OPS))
    tl = collect(f)
    assert tl.meta.sources[0]["collector"] == "rocprofv2_tracer"
    _check_ops(tl)


_KINETO_INSTEAD = "analyse the Kineto trace"


def _hint(path):
    from gpulens.collectors._hints import unsupported_format

    return unsupported_format(path) or ""


def test_chakra_jsonized_trace_is_named(tmp_path):
    meta = {"version": "0.0.4", "attr": [{"name": "schema", "stringVal": "1.0.2-chakra.0.0.4"}]}
    node = {"id": "3", "name": "ncclDevKernel_AllReduce", "type": "COMM_COLL_NODE", "dataDeps": ["2"],
            "durationMicros": "500", "attr": [{"name": "comm_size", "int64Val": "4194304"}]}
    both = tmp_path / "chakra.0.json"
    both.write_text(json.dumps(meta, indent=2) + json.dumps(node, indent=2))  # as chakra_jsonizer writes them
    nodes_only = tmp_path / "nodes.json"
    nodes_only.write_text(json.dumps(node, indent=2))
    for f in (both, nodes_only):
        text = _hint(f)
        assert text.startswith("a Chakra execution trace converted to JSON") and _KINETO_INSTEAD in text


def test_execution_trace_with_nodes_before_schema_is_named(tmp_path):
    nodes = [{"id": i, "name": "aten::add", "ctrl_deps": 1, "inputs": {"values": [], "shapes": [], "types": []},
              "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []} for i in range(200)]
    f = tmp_path / "et.json"
    f.write_text(json.dumps({"nodes": nodes, "schema": "1.1.1-chakra.0.0.4", "pid": 1, "finish_ts": 2}, indent=4))
    assert f.stat().st_size > 4096 and f.read_text().index('"schema"') > 4096  # the schema is past the 4 KiB head
    assert _hint(f).startswith("a PyTorch execution trace") and _KINETO_INSTEAD in _hint(f)


def test_real_hta_execution_trace_and_protobuf_et(tmp_path):
    from gpulens.cli import main

    # HTA's ExecutionTraceObserver output (facebookresearch/HolisticTraceAnalysis @ f4d0062c,
    # tests/data/execution_trace/benchmark_simple_add_et.json.gz, schema 1.0.1): written here in its own shape
    et = tmp_path / "benchmark_simple_add_et.json"
    et.write_text('{\n  "schema": "1.0.1", "pid": 563677, "time": "2023-07-14 11:53:07", "start_ts": 6278907328,\n'
                  '  "nodes": [\n    {\n      "name": "[pytorch|profiler|execution_trace|thread]", "id": 2, "rf_id": 0, '
                  '"parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "",\n'
                  '      "inputs": [], "input_shapes": [], "input_types": [],\n      "outputs": [], '
                  '"output_shapes": [], "output_types": []\n    }\n  ],\n  "finish_ts": 6278907400\n}\n')
    pb = tmp_path / "chakra_trace.0.et"
    pb.write_bytes(bytes([0x0a, 0x05]) + b"0.0.4" + bytes(range(40)))
    assert _hint(et).startswith("a PyTorch execution trace")
    assert _hint(pb).startswith("a Chakra execution trace (protobuf .et)")
    assert main(["analyze", str(pb), "--no-cache"]) != 0  # an error, one line, naming the file


def test_real_cpu_activity_only_without_device_list_is_an_incomplete_capture():
    from gpulens.reports._answer import answer

    p = Path(__file__).parent / "data" / "kineto" / "hta_rank_non_gpu.json.gz"
    doc = json.loads(gzip.decompress(p.read_bytes()))
    xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    assert "deviceProperties" not in doc and {e.get("cat") for e in xs} == {"cpu_op", "user_annotation"}
    streams = sum(e["name"] == "aten::record_stream" for e in xs)
    assert streams == 48
    a = answer(gpulens.analyze([p]).sources[0])
    assert a.verdict == "incomplete capture" and f"aten::record_stream ×{streams}" in a.sentence
    assert "(deviceProperties)" not in a.sentence  # it lists no GPU: the sentence does not say it saw any


# rocpd2csv's kernel trace (ROCm 7: ``rocpd convert --output-format csv`` of a rocprofv3 database) opens with a
# ``Guid`` column and spells ``Lds_Block_Size``/``Vgpr_Count``/``Accum_Vgpr_Count``/``Sgpr_Count``: the nine rows the
# amd/HPCTrainingExamples @ e25c99c74d4ac40dd4c21620cdd58d58a6416074 ``Rocprofv3/rocpd/README.md`` prints (MIT),
# a Fortran+OpenMP Jacobi on one GPU. Read right already: pinned here (figures from the rows, by hand below).
_ROCPD_CSV = """\
"Guid","Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp","Lds_Block_Size","Scratch_Size","Vgpr_Count","Accum_Vgpr_Count","Sgpr_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,1,3,"__omp_offloading_30_57b9f__QMnorm_modPnorm_l23",1,1678314002982197,1678314003082277,8456,0,16,0,32,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,2,2,"__omp_offloading_30_57b8c__QMlaplacian_modPlaplacian_l22",2,1678314008879169,1678314008930489,0,0,32,0,32,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,3,1,"__omp_offloading_30_57b7d__QMboundary_modPboundary_conditions_l24",3,1678314009761051,1678314009790891,0,0,20,4,64,32,1,1,4096,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,4,4,"__omp_offloading_30_57ba0__QMupdate_modPupdate_l22",4,1678314012698497,1678314012750017,0,0,24,0,48,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,5,3,"__omp_offloading_30_57b9f__QMnorm_modPnorm_l23",5,1678314013691619,1678314013782299,8456,0,16,0,32,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,6,2,"__omp_offloading_30_57b8c__QMlaplacian_modPlaplacian_l22",6,1678314014399380,1678314014451780,0,0,32,0,32,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,7,1,"__omp_offloading_30_57b7d__QMboundary_modPboundary_conditions_l24",7,1678314015208622,1678314015237622,0,0,20,4,64,32,1,1,4096,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,8,4,"__omp_offloading_30_57ba0__QMupdate_modPupdate_l22",8,1678314016416905,1678314016468345,0,0,24,0,48,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,9,3,"__omp_offloading_30_57b9f__QMnorm_modPnorm_l23",9,1678314017403787,1678314017498787,8456,0,16,0,32,256,1,1,233472,1,1
"""


def test_real_rocpd2csv_kernel_trace_is_read(tmp_path):
    from gpulens.collectors import collect

    f = tmp_path / "out_kernel_trace.csv"
    f.write_text(_ROCPD_CSV)
    rows = list(csv.DictReader(_ROCPD_CSV.splitlines()))
    durs = [int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in rows]
    assert len(rows) == 9 and sum(durs) == 551_280
    span = max(int(r["End_Timestamp"]) for r in rows) - min(int(r["Start_Timestamp"]) for r in rows)
    tl = collect(f)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 9 and int(k["dur_ns"].sum()) == sum(durs)
    assert int((k["start_ns"] + k["dur_ns"]).max() - k["start_ns"].min()) == span == 14_516_590
    norm = k[k["name"] == "__omp_offloading_30_57b9f__QMnorm_modPnorm_l23"]
    # Lds_Block_Size 8456 bytes, Vgpr_Count 16 + Accum_Vgpr_Count 0, workgroup 256, grid 233472 work-items
    assert set(norm["smem_static_bytes"]) == {8456} and set(norm["block_x"]) == {256}
    assert set(norm["grid_x"]) == {233472 // 256}
