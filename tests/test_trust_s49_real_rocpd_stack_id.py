"""rocpd launch ↔ dispatch links as rocprofiler-sdk writes them, and rocprofiler-compute 3.x roofline peaks of the
data types a GPU lacks.

Seen on a real ``rocprofv3`` rocpd database (MI300X, ROCm 7, a public repository without a licence, so not committed;
HGLiu1998/batched_gemm ``ck_bmm/…/28_results.db``): every ``rocpd_event.correlation_id`` is 0 and the link between
a ``hipLaunchKernel`` region and its dispatch is ``rocpd_event.stack_id`` (rocprofiler-sdk ``generateRocpd.cpp``
stores ``stack_id = correlation_id.internal``, ``correlation_id`` = the external id; the vendor's rocpd → CSV export
writes ``stack_id AS Correlation_Id``). gpulens read ``correlation_id`` and said "150 launch calls but no
correlation id ties any of them to the GPU work". The same database's sibling rocprofiler-compute workload has a
``roofline.csv`` whose ``MFMAF4Flops``/``MFMAF6Flops`` roofs (value, low, high) are all 0 on every device (gfx942 has
no FP4/FP6 MFMA): gpulens put "48 measured peaks zero, negative or not finite" at the top of the report as an input
warning the figures rest on. The databases and files below are built here with the real column sets; the expected
links are read off the rows by hand.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors import collect

GPU_EXT = json.dumps({"name": "gfx942", "cu_count": 304, "wave_front_size": 64, "simd_per_cu": 4})


def _rocpd(path: Path, with_stack_id: bool, external: int | None) -> None:
    """Three ``hipLaunchKernel`` regions (internal ids 11, 12, 13), kernels with internal ids 11, 12 and 99 (no launch
    call in the capture), a ``hipMemcpy`` region (14) and its copy (14). ``external`` is every event's
    ``correlation_id`` (0 as rocprofv3 writes it unless the application sets one); without ``stack_id`` (a database
    of the older hand-built layout) ``correlation_id`` carries the internal ids instead."""
    con = sqlite3.connect(path)
    con.executescript(f"""
    CREATE TABLE rocpd_metadata (id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
    INSERT INTO rocpd_metadata (tag, value) VALUES ('schema_version', '3');
    CREATE TABLE rocpd_string (id INTEGER PRIMARY KEY, guid TEXT, string TEXT);
    INSERT INTO rocpd_string VALUES (1, 'g', 'HIP_RUNTIME_API_EXT'), (2, 'g', 'hipLaunchKernel'),
        (3, 'g', 'hipMemcpy'), (4, 'g', 'KERNEL_DISPATCH'), (5, 'g', 'MEMORY_COPY_HOST_TO_DEVICE'),
        (6, 'g', 'MEMORY_COPY');
    CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, type TEXT,
        absolute_index INT, logical_index INT, type_index INT, uuid INT, name TEXT, product_name TEXT, extdata TEXT);
    INSERT INTO rocpd_info_agent VALUES (1, 'g', 1, 1, 'CPU', 0, 0, 0, 0, 'cpu', 'EPYC', '{{}}'),
        (2, 'g', 1, 1, 'GPU', 2, 2, 0, 0, 'gfx942', 'AMD Instinct MI300X', '{GPU_EXT}');
    CREATE TABLE rocpd_info_process (id INTEGER PRIMARY KEY, guid TEXT, nid INT, ppid INT, pid INT);
    INSERT INTO rocpd_info_process VALUES (1, 'g', 1, 1, 28);
    CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, guid TEXT, kernel_name TEXT, display_name TEXT,
        sgpr_count INT, arch_vgpr_count INT, accum_vgpr_count INT);
    INSERT INTO rocpd_info_kernel_symbol VALUES (10, 'g', 'gemm.kd', 'gemm', 32, 64, 0),
        (11, 'g', 'add.kd', 'add', 16, 8, 0);
    CREATE TABLE rocpd_event (id INTEGER PRIMARY KEY, guid TEXT, category_id INT,
        {"stack_id INT, parent_stack_id INT, " if with_stack_id else ""}correlation_id INT, extdata TEXT);
    CREATE TABLE rocpd_region (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, start BIGINT,
        "end" BIGINT, name_id INT, event_id INT, extdata TEXT);
    CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, agent_id INT,
        kernel_id INT, dispatch_id INT, queue_id INT, stream_id INT, start BIGINT, "end" BIGINT,
        private_segment_size INT, group_segment_size INT, workgroup_size_x INT, workgroup_size_y INT,
        workgroup_size_z INT, grid_size_x INT, grid_size_y INT, grid_size_z INT, region_name_id INT, event_id INT);
    CREATE TABLE rocpd_memory_copy (id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, start BIGINT,
        "end" BIGINT, name_id INT, dst_agent_id INT, src_agent_id INT, size INT, event_id INT);
    """)

    def event(eid: int, cat: int, internal: int) -> None:
        ext = internal if not with_stack_id else (external or 0)
        cols = (eid, "g", cat, *((internal, 0) if with_stack_id else ()), ext, "{}")
        con.execute(f"INSERT INTO rocpd_event VALUES ({','.join('?' * len(cols))})", cols)

    # host: launch regions at 1000, 3000, 5000 ns (2 µs each), a memcpy region at 7000 ns
    for rid, (internal, start) in enumerate([(11, 1000), (12, 3000), (13, 5000)], 1):
        event(rid, 1, internal)
        con.execute("INSERT INTO rocpd_region VALUES (?, 'g', 1, 1, 28, ?, ?, 2, ?, '{}')",
                    (rid, start, start + 2000, rid))
    event(4, 1, 14)
    con.execute("INSERT INTO rocpd_region VALUES (4, 'g', 1, 1, 28, 7000, 9500, 3, 4, '{}')")
    # GPU: gemm (11) 2000–4000, add (12) 4500–5500, gemm (99) 6000–6800; the copy (14) 8000–9000
    for did, (internal, kid, start, end) in enumerate([(11, 10, 2000, 4000), (12, 11, 4500, 5500),
                                                       (99, 10, 6000, 6800)], 1):
        event(10 + did, 4, internal)
        con.execute("INSERT INTO rocpd_kernel_dispatch VALUES (?, 'g', 1, 1, 28, 2, ?, ?, 16, 0, ?, ?, 0, 0, 256, 1, "
                    "1, 65536, 1, 1, NULL, ?)", (did, kid, did, start, end, 10 + did))
    event(20, 6, 14)
    con.execute("INSERT INTO rocpd_memory_copy VALUES (1, 'g', 1, 1, 28, 8000, 9000, 5, 2, 1, 4096, 20)")
    con.commit()
    con.close()


@pytest.mark.parametrize("with_stack_id, external", [(True, 0), (True, 7), (False, None)],
                         ids=["sdk-external-0", "sdk-external-set", "no-stack-id-column"])
def test_rocpd_launches_link_by_the_internal_correlation_id(tmp_path, with_stack_id, external):
    """Launch calls 11, 12, 13; kernels 11, 12, 99 → 2 kernels linked, 1 unlinked (99), 1 call without GPU work (13),
    whatever the external correlation id holds (0 everywhere, or one id 7 shared by every event)."""
    p = tmp_path / "28_results.db"
    _rocpd(p, with_stack_id, external)
    tl = collect(p, cache=False)
    k = tl.of_kind("kernel").sort_values("start_ns")
    assert [int(c) for c in k["correlation_id"]] == [11, 12, 99]
    assert [int(c) for c in tl.of_kind("runtime").sort_values("start_ns")["correlation_id"]] == [11, 12, 13, 14]
    assert [int(c) for c in tl.of_kind("memcpy")["correlation_id"]] == [14]
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    la = json.loads(out.read_text())["sources"][0]["analyses"]["launches"]["summary"]
    assert (la["launch_calls"], la["kernels"], la["kernels_linked"], la["kernels_unlinked"],
            la["launch_calls_without_gpu_work"]) == (3, 3, 2, 1, 1)


def _roofline(path: Path, cells: dict[str, float]) -> None:
    """A rocprofiler-compute 3.x ``roofline.csv`` of 2 devices: each roof as value/Low/High columns."""
    roofs = ["HBMBw", "L2Bw", "FP32Flops", "MFMAF4Flops", "MFMAF6Flops", "MFMABF16Flops"]
    head = ["device"] + [f"{r}{p}" for r in roofs for p in ("", "Low", "High")]
    rows = [[str(d)] + [str(cells.get(f"{r}{p}", 1000.0 + 10 * i)) for i, r in enumerate(roofs)
                        for p in ("", "Low", "High")] for d in (0, 1)]
    path.write_text("\n".join(",".join(r) for r in [head, *rows]) + "\n")


def test_roofs_of_a_data_type_the_gpu_lacks_are_unknown_without_a_damage_warning(tmp_path):
    """MFMAF4/MFMAF6 all 0 (value, low, high) on both devices: 12 cells, unknown, not warned. A roof with one
    impossible part (FP32 value -1 with a positive low and high) is still warned: 1 peak per device = 2."""
    from gpulens.collectors.omniperf import read_roofline

    zero = {f"{r}{p}": 0 for r in ("MFMAF4Flops", "MFMAF6Flops") for p in ("", "Low", "High")}
    p = tmp_path / "roofline.csv"
    _roofline(p, zero)
    warnings: list[str] = []
    roofs = read_roofline(p, warnings=warnings)
    lacking = roofs[roofs["roof"].isin(["MFMAF4Flops", "MFMAF6Flops"])]
    assert len(lacking) == 4 and lacking[["value", "low", "high"]].isna().all().all()
    assert roofs[roofs["roof"] == "HBMBw"]["value"].tolist() == [1000.0 * 1e9] * 2
    assert warnings == []
    _roofline(p, {**zero, "FP32Flops": -1})
    warnings = []
    read_roofline(p, warnings=warnings)
    assert len(warnings) == 1 and "2 measured peaks zero, negative or not finite" in warnings[0]


#: ``rocpd2csv`` / ``rocpd convert --output-format csv`` of a rocpd database (ROCm 7): a ``Guid`` column first, the
#: agent as text (``"Agent 4"``), ``Lds_Block_Size``/``Vgpr_Count`` capitalised so. Rows as printed in
#: amd/HPCTrainingExamples (MIT) ``Rocprofv3/rocpd/README.md`` (Fortran+OpenMP Jacobi, rows as printed; the GPU is not named there).
ROCPD2CSV = '''\
"Guid","Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",\
"Start_Timestamp","End_Timestamp","Lds_Block_Size","Scratch_Size","Vgpr_Count","Accum_Vgpr_Count","Sgpr_Count",\
"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,1,3,\
"__omp_offloading_30_57b9f__QMnorm_modPnorm_l23",1,1678314002982197,1678314003082277,8456,0,16,0,32,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,2,2,\
"__omp_offloading_30_57b8c__QMlaplacian_modPlaplacian_l22",2,1678314008879169,1678314008930489,0,0,32,0,32,256,1,1,233472,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,3,1,\
"__omp_offloading_30_57b7d__QMboundary_modPboundary_conditions_l24",3,1678314009761051,1678314009790891,0,0,20,4,64,32,1,1,\
4096,1,1
"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,4,4,\
"__omp_offloading_30_57ba0__QMupdate_modPupdate_l22",4,1678314012698497,1678314012750017,0,0,24,0,48,256,1,1,233472,1,1
'''


def test_rocpd2csv_kernel_trace_export_is_read_by_column_name(tmp_path):
    """Each kernel's time is End − Start of its row (read here with csv); the agent "Agent 4" is device 4; VGPRs per
    thread = Vgpr_Count + Accum_Vgpr_Count; the span runs from the first start to the last end."""
    import csv
    import io

    from gpulens.collectors import collect

    p = tmp_path / "rocpd-output-data" / "out_kernel_trace.csv"
    p.parent.mkdir()
    p.write_text(ROCPD2CSV)
    rows = list(csv.DictReader(io.StringIO(ROCPD2CSV)))
    want = {r["Kernel_Name"]: int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in rows}
    tl = collect(p, cache=False)
    k = tl.of_kind("kernel")
    assert dict(zip(k["name"].astype(str), k["dur_ns"].astype(int))) == want
    assert set(k["device_id"]) == {4}
    regs = {r["Kernel_Name"]: int(r["Vgpr_Count"]) + int(r["Accum_Vgpr_Count"]) for r in rows}
    assert dict(zip(k["name"].astype(str), k["regs_per_thread"].astype(int))) == regs
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    sm = json.loads(out.read_text())["sources"][0]["summary"]
    span = max(int(r["End_Timestamp"]) for r in rows) - min(int(r["Start_Timestamp"]) for r in rows)
    assert (sm["kernel_count"], sm["kernel_time_ns"], sm["span_ns"]) == (4, sum(want.values()), span)
