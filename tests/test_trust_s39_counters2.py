"""Counter figures: a counter that was not collected is unknown, never 0; one FLOP count per launch; the counters
table agrees with the run summary's launch count.

Found (s39 counters review): the AMD vL1D hit rate read the atomic request counters as 0 when a rocprof v1 pmc pass
had not collected them; DRAM bytes were the reads alone when the writes were not collected (NVIDIA
``dram__bytes_read.sum`` alone, rocprof ``FETCH_SIZE`` without ``WRITE_SIZE``, TCC EA reads without writes); an
LDS byte count took SQ_LDS_BANK_CONFLICT as 0; a launch with both ``flop_count_sp`` and the SASS FP counters had
its FLOPs counted twice; the seismic rocprof v1 ``data_movement.csv`` read "1,012 launches of 12 kernels" beside a
counters table of 13 kernels with nothing saying why.
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd

import gpulens
from gpulens.analyzers import _hier_metrics, _sol_amd, _sol_nvidia
from gpulens.analyzers._work import counter_work
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table
from tests.conftest import shared_trace

MI250X = {"num_sms": 110, "gfx_arch": "gfx90a", "max_clock_mhz": 1700, "max_waves_per_cu": 32}


def _kernels(counters: dict[int, dict[str, float]]) -> Timeline:
    """One 1 ms kernel per key of ``counters`` (its event id), with those counter values."""
    ids = sorted(counters)
    ev = make_table(EVENT_COLUMNS, {
        "event_id": ids, "kind": ["kernel"] * len(ids), "name": [f"k{i}" for i in ids],
        "start_ns": [i * 2_000_000 for i in ids], "dur_ns": [1_000_000] * len(ids), "rank": [0] * len(ids),
        "device_id": [0] * len(ids), "stream_id": [7] * len(ids), "source": ["t"] * len(ids)})
    rows = [(i, m, v) for i in ids for m, v in counters[i].items()]
    co = make_table(COUNTER_COLUMNS, {"event_id": [r[0] for r in rows], "metric": [r[1] for r in rows],
                                      "value": [r[2] for r in rows], "unit": [""] * len(rows),
                                      "source": ["t"] * len(rows)})
    return Timeline(ev, co).validate()


# -- 1. the vL1D hit rate rests on every request kind of its formula ------------------------------------------

def test_vl1d_hit_rate_unknown_without_atomic_counters():
    """rocprof-compute "vL1D Cache Hit Rate" (0200_system-speed-of-light.yaml): 100 − 100 × (TCP_TCC_READ_REQ_sum
    + TCP_TCC_WRITE_REQ_sum + TCP_TCC_ATOMIC_WITH_RET_REQ_sum + TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum) /
    TCP_TOTAL_CACHE_ACCESSES_sum. Reads 100 + writes 50 of 1,000 accesses, atomics not collected: unknown (it read
    85 %, atomics taken as 0). With atomics 10 + 20 collected: 100 − 100 × 180 / 1,000 = 82 %."""
    base = {"TCP_TCC_READ_REQ_sum": 100.0, "TCP_TCC_WRITE_REQ_sum": 50.0, "TCP_TOTAL_CACHE_ACCESSES_sum": 1000.0}
    ctr = pd.DataFrame([base, {**base, "TCP_TCC_ATOMIC_WITH_RET_REQ_sum": 10.0,
                               "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum": 20.0}])
    hit = _sol_amd.dispatch_figures(ctr, np.array([1e6, 1e6]), MI250X)["l1_hit_pct"].to_numpy()
    assert math.isnan(hit[0])
    assert hit[1] == 82.0


def test_rocprof_v1_pmc_without_atomics_shows_no_hit_rate(tmp_path):
    """End to end on a rocprof v1 pmc CSV shaped like the seismic data_movement.csv (no atomic counters): the speed
    of light has no L1 hit rate for the kernel (it showed 100 − 100 × (10 + 20) / 200 = 85 %)."""
    head = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
            "wave_size,sig,obj,FETCH_SIZE,WRITE_SIZE,TCP_TOTAL_CACHE_ACCESSES_sum,TCP_TCC_READ_REQ_sum,"
            "TCP_TCC_WRITE_REQ_sum\n")
    rows = "".join(f'{i},"stencil_kernel",8,0,{i},1,1,65536,256,0,0,16,0,32,64,0x0,0x7f00,4.0,2.0,200.0,10.0,20.0\n'
                   for i in range(3))
    (tmp_path / "pmc.csv").write_text(head + rows)
    sol = gpulens.analyze([str(tmp_path / "pmc.csv")]).sources[0].results["speed_of_light"]
    t = sol.table.set_index("name")
    assert "stencil_kernel" in t.index  # the kernel is there, from its other counters (DRAM bytes)
    assert "l1_hit_pct" not in t or math.isnan(float(t.loc["stencil_kernel", "l1_hit_pct"]))
    # its DRAM bytes: 1,024 × (4 + 2) KiB = 6,144 B per dispatch (rocprof FETCH_SIZE/WRITE_SIZE in KiB)
    assert float(t.loc["stencil_kernel", "dram_bytes"]) == 6144.0


def test_lds_bytes_unknown_without_bank_conflicts():
    """rocprof-compute "Theoretical LDS Bandwidth": (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT) × 4 × banks. With
    1,000 active and 100 conflict cycles on 32 banks: 900 × 128 = 115,200 B; without the conflict counter: unknown
    (it read 128,000, conflicts taken as 0)."""
    counters = pd.DataFrame({"event_id": [1, 2, 2], "metric": ["SQ_LDS_IDX_ACTIVE"] * 2 + ["SQ_LDS_BANK_CONFLICT"],
                             "value": [1000.0, 1000.0, 100.0], "unit": ""})
    dev = {**MI250X, "lds_banks_per_cu": 32}
    out = _hier_metrics.amd(counters, np.array([1, 2]), dev)
    assert math.isnan(out.loc[1, "bytes_shared"])
    assert out.loc[2, "bytes_shared"] == 115_200.0
    alone = _hier_metrics.amd(counters[counters["event_id"] == 1], np.array([1]), dev)  # not collected at all
    assert math.isnan(alone.loc[1, "bytes_shared"])


# -- 1b. DRAM bytes need both directions --------------------------------------------------------------------

def test_dram_bytes_need_reads_and_writes():
    """Roofline bytes per launch: ncu read 1.5e7 + write 5e6 = 2e7 B; reads alone: unknown (they read 1.5e7 as the
    launch's traffic). rocprof FETCH_SIZE 4 + WRITE_SIZE 2 KiB = 6,144 B; FETCH_SIZE alone: unknown. MI200 TCC EA:
    32 × 10 (32-byte reads) + 64 × (100 − 10) + 64 × 5 (64-byte writes) + 32 × (20 − 5) = 320 + 5,760 + 320 + 480
    = 6,880 B; the same reads without the write counts: unknown."""
    tl = _kernels({
        1: {"dram__bytes_read.sum": 1.5e7, "dram__bytes_write.sum": 5e6},
        2: {"dram__bytes_read.sum": 1.5e7},
        3: {"FETCH_SIZE": 4.0, "WRITE_SIZE": 2.0},
        4: {"FETCH_SIZE": 4.0},
        5: {"TCC_EA_RDREQ_sum": 100.0, "TCC_EA_RDREQ_32B_sum": 10.0, "TCC_EA_WRREQ_sum": 20.0,
            "TCC_EA_WRREQ_64B_sum": 5.0},
        6: {"TCC_EA_RDREQ_sum": 100.0, "TCC_EA_RDREQ_32B_sum": 10.0},
    })
    by = counter_work(tl, np.arange(1, 7))["bytes"]
    assert by[1] == 2e7 and by[3] == 6144.0 and by[5] == 6880.0
    assert by[[2, 4, 6]].isna().all()


def test_ncu_sol_shows_reads_as_reads():
    """ncu speed of light: reads alone (cases/README.md B20 raw page collects dram__bytes_read.sum only) are the
    "DRAM bytes read" figure, never the DRAM bytes of the launch; read 1.5e7 + write 5e6 = 2e7 B of DRAM."""
    counters = pd.DataFrame({"event_id": [1, 2, 2], "metric": ["dram__bytes_read.sum", "dram__bytes_read.sum",
                                                               "dram__bytes_write.sum"],
                             "value": [1.5e7, 1.5e7, 5e6], "unit": "bytes"})
    vals, srcs = _sol_nvidia.launch_figures(counters, np.array([1, 2]))
    assert math.isnan(vals.loc[1, "dram_bytes"]) and vals.loc[1, "dram_read_bytes"] == 1.5e7
    assert vals.loc[2, "dram_bytes"] == 2e7 and srcs.loc[2, "dram_bytes"] == "dram__bytes_read.sum + dram__bytes_write.sum"


def test_hierarchical_dram_and_l1_need_both_directions():
    """Hierarchical roofline: DRAM read + write 3e6 + 1e6 = 4e6 B; L1 = 32 B × (load 100 + store 50 sectors) =
    4,800 B; a direction not collected makes the level's bytes unknown."""
    counters = pd.DataFrame({
        "event_id": [1, 1, 1, 1, 2, 2],
        "metric": ["dram__bytes_read.sum", "dram__bytes_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "dram__bytes_read.sum",
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
        "value": [3e6, 1e6, 100.0, 50.0, 3e6, 100.0], "unit": ""})
    out = _hier_metrics.nvidia(counters, np.array([1, 2]))
    assert out.loc[1, "bytes_dram"] == 4e6 and out.loc[1, "bytes_l1"] == 4800.0
    assert math.isnan(out.loc[2, "bytes_dram"]) and math.isnan(out.loc[2, "bytes_l1"])


# -- 2. one FLOP source per launch -----------------------------------------------------------------------------

def test_flop_count_and_sass_counters_count_once():
    """A launch with SASS FP counts (Nsight Compute: FLOPs = add + mul + 2 × fma) and nvprof-style flop_count_sp
    of the same instructions: 2 × 1,000 FFMA + 200 FADD = 2,200 FLOPs, not 4,400. A launch with flop_count_sp
    alone: its 2,200."""
    tl = _kernels({
        1: {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1000.0,
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 200.0, "flop_count_sp": 2200.0},
        2: {"flop_count_sp": 2200.0},
    })
    w = counter_work(tl, np.array([1, 2]))
    assert w.loc[1, "flops"] == 2200.0 and w.loc[2, "flops"] == 2200.0
    assert w.loc[1, "precision"] == "fp32" and w.loc[1, "source"] == "counters"


# -- 3. the counters table and the run summary count the same launches -----------------------------------------

def test_seismic_counters_table_says_which_rows_are_fills():
    """rocprof v1 seismic data_movement.csv (SOURCES.md: 1,024 rows, 13 names): counted here with the csv module,
    12 rows are ``__amd_rocclr_fillBufferAligned.kd`` (a HIP fill blit kernel, ROCm/clr blitcl.cpp), which the run
    summary counts as memsets: 1,024 − 12 = 1,012 launches of 13 − 1 = 12 kernels. The counters table lists the 13
    names and marks the fill as a memset, so its rows minus the fills equal the summary."""
    path = shared_trace("rocprof/v1_pmc_seismic_mi250x/data_movement.csv")
    with open(path, newline="") as fh:
        names = [r["KernelName"] for r in csv.DictReader(fh)]
    fills = [n for n in names if n.startswith("__amd_rocclr_fill")]
    assert (len(names), len(set(names)), len(fills), len(set(fills))) == (1024, 13, 12, 1)
    s = gpulens.analyze([str(path)]).sources[0]
    kc = s.results["kernel_counters"]
    t = kc.table.set_index("name")
    assert t.loc["__amd_rocclr_fillBufferAligned.kd", "kind"] == "memset"
    assert (t["kind"] == "kernel").sum() == 12 and t.loc["compute_fd_z_kernel", "kind"] == "kernel"
    sm = kc.summary
    assert (sm["kernels"], sm["dispatches"], sm["copy_fill_names"], sm["copy_fill_dispatches"]) == (13, 1024, 1, 12)
    assert (s.summary["unique_kernels"], s.summary["kernel_count"]) == (13 - 1, 1024 - 12)
