"""Real profiler outputs (session 41, "held-back real traces"): new public files read against facts from the files.

1. nvprof's own profile (``nvprof -o FILE.nvvp``: an SQLite database of CUPTI activity records) was refused — "an
   nvprof / Visual Profiler file, which gpulens does not read" — and the refusal advised ``nvprof --csv
   --print-gpu-trace``, a form gpulens does not read either. Lianhang666/gpu4 (no licence file: not copied here)
   commits eight such profiles of a CUDA vector add on a Tesla T4 (nvprof, CUDA 12 CUPTI schema ``Version`` 18), e.g.
   ``nvprof_vectorAdd_normal_1000000.nvvp`` and ``nvprof_vectorAdd_streams_1000000.nvvp`` at commit
   26b1bcb92ec3a0b35df960f9a1ee71e3138cba76. Kind: a profiler's native output holding the same CUPTI records as the
   nsys export gpulens reads, under other table and column names (``CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL``,
   ``StringTable(_id_, value)``, runtime calls by callback id, devices in ``CUPTI_ACTIVITY_KIND_DEVICE``). Now read
   by :mod:`gpulens.collectors.nvprof_sqlite`. The test database below is built with the real file's own
   ``CREATE TABLE`` statements (the columns gpulens reads) and every row of the tables it reads from
   ``nvprof_vectorAdd_normal_1000000.nvvp``; the expected figures are computed here from those rows.
2. An nsys export from 0x822a5b87/test-cuda (``report1.sqlite`` @ 7e25f8547a6caac778206b1ad4e9279131c8b4ba, nsys
   2026.1.1; no licence file: not copied) names an "NVIDIA GeForce RTX 4060 Ti" (AD106, CC 8.9, 34 SMs) that the
   device table lacked: "no hardware spec identified: no roofline peaks". Its figures (4 kernels, 536,542 ns, span
   101,263,425 ns, 1.2 GB copied) were right. The spec is added from the card's published specifications (4,352
   CUDA cores, 2,535 MHz boost, 128-bit GDDR6 at 18 Gbps, 32 MB L2); the test checks each figure against that
   hand calculation and against the export's own TARGET_INFO_GPU row.
3. A real nvprof profile copied here (tests/data/nvidia/blinkplus_v100x4_nccl_output.nvvp.gz, see PROVENANCE.md):
   NCCL broadcast and all-reduce on 4 of 8 V100s, every kernel a collective. With no compute kernel left, roofline
   and occupancy said "no kernel launch recorded as an event: the input's 24 kernel launches are known only from "
   — a sentence cut off, about kernels that *are* recorded as events. Kind: the "known only from a summary /
   counter rows" reason given where neither exists (analyzers/_hot.py, one line). Now "no compute kernels in the
   trace". The figures (24 launches, Σ 622,776,453 ns, span, kernels per GPU) are computed here with sqlite3.
4. A Visual Profiler *session* (nvvp's File > Save, also ``.nvvp``) is XML, and was refused as "not a recognised
   trace format"; it embeds nvprof's database, gzip + base64, in ``<timelinepdm><pdm><split>``. xstupi00/
   N-Body-OpenACC (MIT; ``profile.nvvp`` @ 09a606a86c777d0e48cf7ecf72615027f7a0daac, blob 8b1c5b78, not copied:
   its XML names a user's home path) holds one of an OpenACC n-body run on a Tesla K20m: decoded by hand, 27
   kernels (4 names) Σ 178,528,175 ns, GPU span 242,411,572 ns, 1,712,704 bytes copied — what gpulens now reports.
   Kind: a profiler's container format around a database gpulens reads. The test wraps the nvprof excerpt of 1
   in a session of that structure.
5. nvprof profiles name GPUs the table lacked; the Tesla P100-SXM2-16GB (eganhila/mandelbrot_csgf_2017
   ``output.nvvp`` @ 59cb7b533a1d30be45f041ee20c9072e636aa6ec, no licence file: not copied; an OpenACC kernel
   ``main_69_gpu``, block 128, 30 registers) is added with its published figures and Pascal CC 6.0 occupancy limits.
   Others seen and left without a spec: GeForce GT 710, TITAN X (Pascal), TITAN Xp, TITAN V, Tesla K20m.

Also checked this session and found right (kernel count, Σ kernel ns, GPU span, copy bytes, device; facts computed
with sqlite3 / csv / NVIDIA's ncu_report): nvprof .nvvp of m-goldstein/GPU_ML (TITAN V, schema 12),
peijin94/FastQSL (4× TITAN Xp), ImageProjection/path_integral_gpu (GT 710), dipsankarb/csl7520 (TITAN X Pascal,
schema 11), Lianhang666/gpu4 streams (T4, 4 streams); nsys exports of Lianhang666/gpu4 (4 files, T4),
p4arth/cuda-perf-sandbox and blbadger/threebody (RTX 3060), forestmgy/miniGEMM (RTX 5060, no kernel table: said
incomplete), Meghakoranga/cupqc-openssl-core, davidev886/tutorial_vqe (8× H100), nevakrien/python_c_nvidia,
researchgroup-zx93920/MAP-Fusion23 (empty captures: said so); rocprof v1 stats of kswirydo/ozaki_tests (MI355X)
and stejpet/llama.cpp (stats with a <barrier packet> row, hip_stats, copy_stats); .ncu-rep files of
amitadate/GPU_Power_Model, bautista-garcia/heat_sim, kprattis/parallel_programming_ex3, iamcoleman/monte-carlo-pi;
Kineto traces of marcalph/kernelforge (CPU only) and a legacy autograd trace of KeondoPark/luxmea (refused, as
designed).
"""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from gpulens.cli import main
from tests.real_figures import assert_exact_figures, assert_geforce_ada_peaks

# --- 1. nvprof's SQLite profile ----------------------------------------------------------------------------------

# nvprof_vectorAdd_normal_1000000.nvvp: the schema of the tables read (as the file declares them, columns gpulens
# does not read left out of the long kernel and device tables) and all of their rows.
NVPROF_SCHEMA = [
    "CREATE TABLE StringTable( _id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE )",
    "CREATE TABLE Version(version INT NOT NULL)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, "
    "registersPerThread INT NOT NULL, start INT NOT NULL, end INT NOT NULL, completed INT NOT NULL, "
    "deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, gridX INT NOT NULL, gridY INT NOT NULL, "
    "gridZ INT NOT NULL, blockX INT NOT NULL, blockY INT NOT NULL, blockZ INT NOT NULL, "
    "staticSharedMemory INT NOT NULL, dynamicSharedMemory INT NOT NULL, correlationId INT NOT NULL, "
    "name INT NOT NULL)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, copyKind INT NOT NULL, "
    "srcKind INT NOT NULL, dstKind INT NOT NULL, flags INT NOT NULL, bytes INT NOT NULL, start INT NOT NULL, "
    "end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, "
    "correlationId INT NOT NULL, runtimeCorrelationId INT NOT NULL, graphNodeId INT NOT NULL, "
    "graphId INT NOT NULL, channelID INT NOT NULL, channelType INT NOT NULL)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT NOT NULL, "
    "start INT NOT NULL, end INT NOT NULL, processId INT NOT NULL, threadId INT NOT NULL, "
    "correlationId INT NOT NULL, returnValue INT NOT NULL)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, type INT NOT NULL, "
    "start INT NOT NULL, end INT NOT NULL, correlationId INT NOT NULL, contextId INT NOT NULL, "
    "streamId INT NOT NULL, cudaEventId INT NOT NULL)",
    "CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, flags INT NOT NULL, "
    "globalMemoryBandwidth INT NOT NULL, globalMemorySize INT NOT NULL, constantMemorySize INT NOT NULL, "
    "l2CacheSize INT NOT NULL, numThreadsPerWarp INT NOT NULL, coreClockRate INT NOT NULL, "
    "numMemcpyEngines INT NOT NULL, numMultiprocessors INT NOT NULL, maxIPC INT NOT NULL, "
    "maxWarpsPerMultiprocessor INT NOT NULL, maxBlocksPerMultiprocessor INT NOT NULL, "
    "maxSharedMemoryPerMultiprocessor INT NOT NULL, maxRegistersPerMultiprocessor INT NOT NULL, "
    "maxRegistersPerBlock INT NOT NULL, maxSharedMemoryPerBlock INT NOT NULL, maxThreadsPerBlock INT NOT NULL, "
    "computeCapabilityMajor INT NOT NULL, computeCapabilityMinor INT NOT NULL, id INT NOT NULL, name INT NOT NULL)",
]
STRINGS = [(0, "-- null --"), (1, "vectorAdd_normal 1000000"), (2, "Tesla T4"), (3, "_Z6vecAddPdS_S_i")]
KERNELS = [(1, 16, 1736038954454118552, 1736038954454207702, 1736038954454207702, 0, 1, 7, 3907, 1, 1, 256, 1, 1,
            0, 0, 117, 3)]
COPIES = [(1, 1, 1, 3, 0, 8000000, 1736038954450542899, 1736038954452121240, 0, 1, 7, 115, 0, 0, 0, 1, 1),
          (2, 1, 1, 3, 0, 8000000, 1736038954452353013, 1736038954453859804, 0, 1, 7, 116, 0, 0, 0, 1, 1),
          (3, 2, 3, 1, 0, 8000000, 1736038954454312564, 1736038954457526623, 0, 1, 7, 119, 0, 0, 0, 1, 1)]
# (cbid, start, end, correlationId): processId 50379, threadId -1071173632, returnValue 0 on every row
RUNTIME = [(20, 1736038954146699248, 1736038954450094448, 112), (20, 1736038954450095849, 1736038954450179879, 113),
           (20, 1736038954450180360, 1736038954450279207, 114), (31, 1736038954450295599, 1736038954452070254, 115),
           (31, 1736038954452071875, 1736038954453806142, 116), (211, 1736038954453949089, 1736038954454118544, 117),
           (165, 1736038954454119169, 1736038954454213920, 118), (31, 1736038954454296721, 1736038954458599894, 119),
           (22, 1736038954462133360, 1736038954462263297, 120), (22, 1736038954462263968, 1736038954462646398, 121),
           (22, 1736038954462646818, 1736038954463029277, 122)]
SYNCS = [(1, 4, 1736038954454120302, 1736038954454213451, 118, 1, -1, -1)]
DEVICE = [(1, 1, 320064000, 15642329088, 65536, 4194304, 32, 1590000, 3, 40, 4, 32, 16, 65536, 65536, 65536, 49152,
           1024, 7, 5, 0, 2)]
# CUPTI's cupti_runtime_cbid.h (CUpti_runtime_api_trace_cbid): the ids of the calls above
CBID = {20: "cudaMalloc", 22: "cudaFree", 31: "cudaMemcpy", 165: "cudaDeviceSynchronize", 211: "cudaLaunchKernel"}


def nvprof_db(path: Path, kernel_table: str = "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") -> Path:
    """Write the excerpt above as an nvprof SQLite profile at ``path`` (its kernel table named ``kernel_table``)."""
    con = sqlite3.connect(path)
    for sql in NVPROF_SCHEMA:
        con.execute(sql.replace("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", kernel_table))
    con.executemany("INSERT INTO StringTable VALUES (?, ?)", STRINGS)
    con.execute("INSERT INTO Version VALUES (18)")
    con.executemany(f"INSERT INTO {kernel_table} VALUES ({','.join('?' * 18)})", KERNELS)
    con.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES ({','.join('?' * 17)})", COPIES)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, 50379, -1071173632, ?, 0)",
                    [(i + 1, *r) for i, r in enumerate(RUNTIME)])
    con.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES ({','.join('?' * 8)})", SYNCS)
    con.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE VALUES ({','.join('?' * 22)})", DEVICE)
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize("name,kernel_table", [
    ("app.nvvp", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"),  # nvprof's default (concurrent kernels)
    ("app.prof", "CUPTI_ACTIVITY_KIND_KERNEL"),  # --concurrent-kernels off writes the serial kernel table
])
def test_nvprof_sqlite_profile_read_with_its_figures(tmp_path, name, kernel_table):
    path = nvprof_db(tmp_path / name, kernel_table)
    gpu = [(k[2], k[3]) for k in KERNELS] + [(c[6], c[7]) for c in COPIES]
    facts = dict(kernels=len(KERNELS), unique=1, kernel_ns=sum(k[3] - k[2] for k in KERNELS),
                 span_ns=max(e for _, e in gpu) - min(s for s, _ in gpu),
                 launches={7: 4})  # 1 kernel + 3 copies on stream 7, each with its runtime call (correlation id)
    assert facts["kernel_ns"] == 89_150 and facts["span_ns"] == 6_983_724  # by hand from the rows above
    report = assert_exact_figures(tmp_path, path, facts)
    src = report["sources"][0]
    assert src["collectors"] == ["nvprof_sqlite"] and src["inputs"][0]["nvprof_schema_version"] == 18
    # the device row: Tesla T4, CC 7.5, 40 SMs; nvprof stores CUDA's cudaDeviceProp units (kB/s, kHz)
    dev = src["devices"][0]
    assert (dev["name"], dev["compute_capability"], dev["num_sms"]) == ("Tesla T4", "7.5", 40)
    assert dev["memory_bandwidth_bytes_per_s"] == 320_064_000 * 1000 and dev["clock_hz"] == 1_590_000 * 1000
    assert dev["total_memory_bytes"] == 15_642_329_088
    # copies: 3 × 8,000,000 bytes (copyKind 1 = HtoD twice, 2 = DtoH once)
    assert src["summary"]["memcpy_bytes"] == sum(c[5] for c in COPIES) == 24_000_000


def test_nvprof_names_kernels_demangled_and_runtime_calls_by_cbid(tmp_path):
    from gpulens.collectors import collect

    tl = collect(nvprof_db(tmp_path / "app.nvvp"))
    ev = tl.events
    kernels = ev[ev["kind"] == "kernel"]
    # _Z6vecAddPdS_S_i is vecAdd(double*, double*, double*, int) (Itanium ABI: P = pointer, d = double, S_ = the
    # first substitution, i = int)
    assert list(kernels["name"].astype(str)) == ["vecAdd(double*, double*, double*, int)"]
    assert (int(kernels["grid_x"].iloc[0]), int(kernels["block_x"].iloc[0]),
            int(kernels["regs_per_thread"].iloc[0])) == (3907, 256, 16)
    rt = ev[ev["kind"] == "runtime"]
    expected = sorted(CBID[r[0]] for r in RUNTIME)
    assert sorted(rt["name"].astype(str)) == expected
    assert set(rt["pid"].astype(int)) == {50379}
    copies = ev[ev["kind"] == "memcpy"].sort_values("start_ns")
    assert list(copies["copy_kind"]) == ["HtoD", "HtoD", "DtoH"]
    assert list(copies["bytes"].astype(int)) == [8_000_000] * 3


def test_nvprof_sqlite_without_activity_tables_refused_with_right_advice(tmp_path, capsys):
    """A .nvvp holding no activity table (a --metrics/--events run writes other tables) is still named, and the
    advice no longer points at nvprof's CSV, which gpulens does not read."""
    path = tmp_path / "metrics.nvvp"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringTable( _id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE )")
    con.execute("CREATE TABLE Version(version INT NOT NULL)")
    con.commit()
    con.close()
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)]) != 0
    err = capsys.readouterr().err
    assert "metrics.nvvp" in err and "nvprof" in err and "nvprof -o metrics.nvvp" in err
    assert "--print-gpu-trace" not in err and not out.exists()


# --- 2. the RTX 4060 Ti an nsys export names ------------------------------------------------------------------------

# 0x822a5b87/test-cuda report1.sqlite, TARGET_INFO_GPU (the fields gpulens reads), unchanged
RTX4060TI_ROW = dict(name="NVIDIA GeForce RTX 4060 Ti", chip="AD106", compute_capability="8.9", num_sms=34,
                     total_memory_bytes=8_585_216_000, memory_bandwidth_bytes_per_s=288_032_000_000,
                     l2_cache_bytes=33_554_432, clock_hz=2_565_000_000)


def test_rtx4060ti_recorded_by_nsys_is_identified_with_datasheet_figures():
    from gpulens.devices import identify_device

    s = identify_device(RTX4060TI_ROW)
    assert s is not None and s.name == "NVIDIA GeForce RTX 4060 Ti"
    assert (s.compute_capability, s.num_sms) == ("8.9", 34)
    assert_geforce_ada_peaks(s, 34, 2.535e9)  # boost clock; 34 SMs × 128 FP32 lanes = 4,352 CUDA cores: 22.06 TF

    def close(a, b, rel=0.01):
        return a is not None and abs(a - b) <= rel * b

    assert close(s.memory_bandwidth, 128 * 18e9 / 8)  # 288 GB/s
    assert close(s.memory_bandwidth, RTX4060TI_ROW["memory_bandwidth_bytes_per_s"])
    assert s.figure_value("l2") == RTX4060TI_ROW["l2_cache_bytes"]  # 32 MiB
    # neither the laptop part (24 SMs) nor the plain RTX 4060 (AD107) is taken for it
    for other in ({"name": "NVIDIA GeForce RTX 4060 Laptop GPU", "num_sms": 24},
                  {"name": "NVIDIA GeForce RTX 4060", "num_sms": 24}):
        assert getattr(identify_device(other), "name", None) != s.name


# --- 3. an all-collective nvprof profile of 4 V100s --------------------------------------------------------------

BLINKPLUS = Path(__file__).parent / "data" / "nvidia" / "blinkplus_v100x4_nccl_output.nvvp.gz"


def test_nvprof_nccl_four_gpus_figures_and_no_cut_off_reason(tmp_path):
    raw = tmp_path / "output.nvvp"
    with gzip.open(BLINKPLUS, "rb") as src, open(raw, "wb") as dst:
        shutil.copyfileobj(src, dst)
    con = sqlite3.connect(raw)
    kern = con.execute('SELECT start, "end", deviceId, streamId, name FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL'
                       ).fetchall()
    gpu = kern + [r + (None, None, None) for r in con.execute(
        'SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_MEMCPY UNION ALL SELECT start, "end" FROM '
        'CUPTI_ACTIVITY_KIND_MEMSET').fetchall()]
    n_devices = con.execute("SELECT count(DISTINCT id) FROM CUPTI_ACTIVITY_KIND_DEVICE").fetchone()[0]
    con.close()
    per_gpu = {}
    for _, _, dev, _, _ in kern:
        per_gpu[dev] = per_gpu.get(dev, 0) + 1
    assert (len(kern), n_devices, per_gpu) == (24, 8, {0: 8, 1: 8, 2: 4, 3: 4})
    out = tmp_path / "o.json"
    assert main(["analyze", "-q", "--no-cache", str(BLINKPLUS), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    s = src["summary"]
    assert s["kernel_count"] == len(kern) and s["unique_kernels"] == len({k[4] for k in kern}) == 2
    assert s["kernel_time_ns"] == sum(e - b for b, e, *_ in kern) == 622_776_453
    assert s["span_ns"] == max(r[1] for r in gpu) - min(r[0] for r in gpu)
    assert len(src["devices"]) == n_devices and {d["name"] for d in src["devices"]} == {"Tesla V100-SXM2-32GB"}
    # demangled (Itanium: 33 = length of the name, 8ncclColl = its one parameter type) and classed as collectives
    assert {(r["name"], r["kind"], r["calls"]) for r in src["top_kernels"]} == {
        ("ncclBroadcastRingLLKernel_copy_i8(ncclColl)", "comm", 12),
        ("ncclAllReduceTreeLLKernel_sum_i32(ncclColl)", "comm", 12)}
    for a in ("roofline", "occupancy"):
        reason = src["analyses"][a]["skipped_reason"]
        assert "known only from" not in reason and reason == "no compute kernels in the trace"


# --- 4. a Visual Profiler session embedding the nvprof database ----------------------------------------------------

def nvvp_session(path: Path, dbs: list[bytes]) -> Path:
    """A Visual Profiler session file (the element structure of xstupi00/N-Body-OpenACC profile.nvvp) embedding
    each of ``dbs`` as one ``<pdm>``, gzip + base64 as nvvp writes it (76-column lines)."""
    pdms = ""
    for db in dbs:
        b64 = base64.b64encode(gzip.compress(db)).decode()
        pdms += "<pdm><split>" + "\n".join(b64[i:i + 76] for i in range(0, len(b64), 76)) + "</split></pdm>\n"
    path.write_text('<?xml version="1.0"?>\n<session version="2" name="NewSession1.nvvp" hscale="4.4E-6" '
                    'normalize="false">\n<timelineoptions enabletimerange="false" start="-1" end="-1"/>\n'
                    '<executable file="/opt/app/nbody" args="19456" profileonstart="true" concurrentkernels="true"/>\n'
                    f'<timelinestate></timelinestate>\n<timelinepdm>\n{pdms}</timelinepdm>\n'
                    '<analysispdm></analysispdm>\n</session>\n')
    return path


def test_visual_profiler_session_read_as_the_nvprof_profile_it_embeds(tmp_path):
    db = nvprof_db(tmp_path / "inner.nvvp").read_bytes()
    plain, sess = tmp_path / "plain.json", tmp_path / "sess.json"
    session = nvvp_session(tmp_path / "NewSession1.nvvp", [db])
    assert main(["analyze", "-q", "--no-cache", str(tmp_path / "inner.nvvp"), "--json", str(plain)]) == 0
    assert main(["analyze", "-q", "--no-cache", str(session), "--json", str(sess)]) == 0
    a, b = (json.loads(x.read_text())["sources"][0] for x in (plain, sess))
    for k in ("kernel_count", "unique_kernels", "kernel_time_ns", "span_ns", "memcpy_bytes", "gpu_busy_ns"):
        assert a["summary"][k] == b["summary"][k]
    assert b["summary"]["kernel_time_ns"] == 89_150 and b["summary"]["memcpy_bytes"] == 24_000_000
    inp = b["inputs"][0]
    assert inp["path"] == str(session) and inp["size_bytes"] == session.stat().st_size
    assert inp["uncompressed_bytes"] == len(db) and inp["embedded_in"] == "Visual Profiler session"
    assert "/opt/app/nbody" not in sess.read_text()  # the session's command line is not copied into the report
    assert not any("gpulens-nvvp-" in w for w in b["warnings"])  # the private temporary copy is never named


def test_visual_profiler_session_with_two_profiles_or_none(tmp_path, capsys):
    from gpulens.collectors import collect

    db = nvprof_db(tmp_path / "inner.nvvp").read_bytes()
    tl = collect(nvvp_session(tmp_path / "two.nvvp", [db, db]))
    assert int((tl.events["kind"] == "kernel").sum()) == 1  # the first profile only, said so
    assert any("holds 2 profiles" in w and "1 not" in w for w in tl.meta.warnings)
    empty = nvvp_session(tmp_path / "gui_only.nvvp", [])
    assert main(["analyze", "-q", "--no-cache", str(empty), "--json", str(tmp_path / "o.json")]) != 0
    err = capsys.readouterr().err
    assert "gui_only.nvvp" in err and "without profile data" in err and "Traceback" not in err


# --- 5. Tesla P100 SXM2 (an nvprof profile's CUPTI_ACTIVITY_KIND_DEVICE row) -----------------------------------------

# eganhila/mandelbrot_csgf_2017 output.nvvp, CUPTI_ACTIVITY_KIND_DEVICE id 0, in gpulens' units (nvprof: kB/s, kHz)
P100_ROW = dict(name="Tesla P100-SXM2-16GB", compute_capability="6.0", num_sms=56,
                memory_bandwidth_bytes_per_s=732_160_000 * 1000, total_memory_bytes=17_066_885_120,
                clock_hz=1_480_500 * 1000, l2_cache_bytes=4_194_304)


def test_p100_sxm2_identified_with_published_figures_and_pascal_occupancy():
    from gpulens.devices import identify_device
    from gpulens.devices.arch import limits_for
    from gpulens.devices.occupancy import cuda_occupancy

    s = identify_device(P100_ROW)
    assert s is not None and s.name == "NVIDIA Tesla P100 SXM2" and s.num_sms == 56
    clk = 1.48e9  # boost; 56 SMs × 64 FP32 lanes = 3,584 CUDA cores

    def close(a, b, rel=0.01):
        return a is not None and abs(a - b) <= rel * b

    assert close(s.figure_value("vector.fp32"), 3584 * 2 * clk)  # 10.6 TFLOP/s
    assert close(s.figure_value("vector.fp64"), 3584 * 2 * clk / 2)  # GP100: FP64 at half rate
    assert close(s.figure_value("vector.fp16"), 3584 * 2 * clk * 2)  # half2: twice FP32
    assert s.figure_value("matrix.fp16") is None  # no tensor cores before Volta
    assert close(s.memory_bandwidth, P100_ROW["memory_bandwidth_bytes_per_s"])
    assert s.figure_value("l2") == P100_ROW["l2_cache_bytes"]
    assert getattr(identify_device({"name": "Tesla P100-PCIE-16GB", "num_sms": 56}), "name", None) != s.name
    # CC 6.0 occupancy by hand: 128 threads = 4 warps; 30 regs × 32 = 960 → 1,024 per warp (unit 256);
    # 65,536 / 2 partitions / 1,024 = 32 warps per partition → 64 warps = 16 blocks; warp limit 64 / 4 = 16 blocks;
    # block limit 32: 16 blocks × 4 warps = 64 of 64 warps = 100 %
    lim = limits_for("6.0")
    assert (lim.max_warps_per_sm, lim.max_blocks_per_sm, lim.smem_per_sm) == (64, 32, 64 * 1024)
    occ = cuda_occupancy(lim, block_size=128, regs_per_thread=30, smem_bytes=0)
    assert occ.active_blocks == 16 and occ.occupancy_pct == 100.0
    # 64 registers: 2,048 per warp → 16 warps per partition → 32 warps = 8 blocks of 4 warps: 50 %
    occ = cuda_occupancy(lim, block_size=128, regs_per_thread=64, smem_bytes=0)
    assert occ.active_blocks == 8 and occ.occupancy_pct == 50.0 and occ.limiter == "registers"
    # 20 KiB of shared memory per block: 64 KiB / 20 KiB (a multiple of the 256 B unit) = 3 blocks
    occ = cuda_occupancy(lim, block_size=128, regs_per_thread=30, smem_bytes=20 * 1024)
    assert occ.active_blocks == 3 and occ.limiter == "shared_memory"
