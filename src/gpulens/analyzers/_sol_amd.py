"""Speed-of-light figures per dispatch from rocprofiler-compute (Omniperf) counters (AMD CDNA).

Formulas are rocprof-compute's System Speed-of-Light panel, ``src/rocprof_compute_soc/analysis_configs/<gfx>/
0200_system-speed-of-light.yaml`` (ROCm/rocprofiler-compute; gfx90a and gfx942 read), with its built-in variable
``$GRBM_GUI_ACTIVE_PER_XCD = GRBM_GUI_ACTIVE / $num_xcd`` (``src/utils/parser.py``, ``build_in_vars``): counters
summed over the XCDs of an MI300-class device are normalised per XCD before dividing by per-GPU CU counts. The XCD
count is the recorded one (rocprof-compute ``sysinfo.csv`` ``num_xcd``, rocprofv3 agent ``num_xcc``), else
:func:`xcd_count`'s, derived from the architecture and the CU count (rocprof v1 and rocprofv3 CSVs record neither).

====================  ==========================================================================================
figure                formula (G = GRBM_GUI_ACTIVE / num_xcd, CU = cu_per_gpu, T = End − Start in ns)
====================  ==========================================================================================
valu_pct              100 · SQ_ACTIVE_INST_VALU / (G · CU)                               ("VALU Utilization")
mfma_pct              100 · SQ_VALU_MFMA_BUSY_CYCLES / (G · CU · 4)                      ("MFMA Utilization")
salu_pct              100 · SQ_ACTIVE_INST_SCA / (G · CU)                                ("SALU Utilization")
issue_slot_pct        100 · (SQ_INSTS / SQ_BUSY_CU_CYCLES) / 5                           ("IPC", peak 5)
wave_occupancy_pct    100 · SQ_ACCUM_PREV_HIRES / G / (max_waves_per_cu · CU), with the accumulator of the
                      SQ_LEVEL_WAVES pass (``coll_level: SQ_LEVEL_WAVES``)               ("Wavefront Occupancy")
l1_hit_pct            100 − 100 · (TCP_TCC_READ_REQ_sum + TCP_TCC_WRITE_REQ_sum + TCP_TCC_ATOMIC_WITH_RET_REQ_sum
                      + TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum) / TCP_TOTAL_CACHE_ACCESSES_sum ("vL1D Cache Hit Rate")
l2_hit_pct            100 · TCC_HIT_sum / (TCC_HIT_sum + TCC_MISS_sum)                   ("L2 Cache Hit Rate")
l1_pct                TCP_TOTAL_CACHE_ACCESSES_sum · B / T  ÷  (max_sclk/1000 · B · CU) GB/s, B = 64 (gfx90a)
                      or 128 (gfx942)                                                    ("vL1D Cache BW")
l2_pct                TCC_REQ_sum · 128 / T  ÷  (max_sclk/1000 · B · total_l2_chan)    ("L2 Cache BW")
dram_bytes            gfx90a: 32 · TCC_EA_RDREQ_32B_sum + 64 · (TCC_EA_RDREQ_sum − TCC_EA_RDREQ_32B_sum)
                      + 64 · TCC_EA_WRREQ_64B_sum + 32 · (TCC_EA_WRREQ_sum − TCC_EA_WRREQ_64B_sum);
                      gfx942: 128 · TCC_BUBBLE_sum + 64 · (TCC_EA0_RDREQ_sum − TCC_BUBBLE_sum − TCC_EA0_RDREQ_32B_sum)
                      + 32 · TCC_EA0_RDREQ_32B_sum + 64 · TCC_EA0_WRREQ_64B_sum + 32 · (TCC_EA0_WRREQ_sum −
                      TCC_EA0_WRREQ_64B_sum)                          ("L2-Fabric Read BW" + "L2-Fabric Write BW");
                      without those request counts, 1,024 · (FETCH_SIZE + WRITE_SIZE), both recorded: rocprof's
                      derived counters of the same L2–fabric requests in KiB (ROCm/rocprofiler metrics.xml,
                      rocprofiler-sdk counter_defs.yaml: gfx90a FETCH_SIZE = (32 · RDREQ_32B + 64 · (RDREQ −
                      RDREQ_32B)) / 1024)
dram_pct              dram_bytes / T ÷ the workload's ``hbm_bw`` (sysinfo.csv; else the device spec's peak memory
                      bandwidth). rocprof-compute's gfx90a panel divides by the same ``$hbmBandwidth``; its gfx942
                      panel uses max_mclk · 32 · HBM channels.
lds_conflicts         SQ_LDS_BANK_CONFLICT / (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT)  ("LDS Bank Conflicts/Access")
====================  ==========================================================================================

A figure whose counters are missing — any one of those its formula names (the vL1D hit rate without the two atomic
request counts, the LDS figure without SQ_LDS_BANK_CONFLICT) — or that needs T when the dispatch has no usable
duration, is NaN: a counter that was not collected is unknown, never 0.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np
import pandas as pd

from gpulens.analyzers._work import tcc_ea_bytes

#: The accumulator of the SQ_LEVEL_WAVES pass, as the omniperf collector names it (pass-qualified).
LEVEL_WAVES_ACCUM = "SQ_LEVEL_WAVES:SQ_ACCUM_PREV_HIRES"
#: GRBM_GUI_ACTIVE of the SQ_LEVEL_WAVES pass, when the collector found that pass's own file.
LEVEL_WAVES_GRBM = "SQ_LEVEL_WAVES:GRBM_GUI_ACTIVE"
COUNTERS = ("GRBM_GUI_ACTIVE", "SQ_ACTIVE_INST_VALU", "SQ_VALU_MFMA_BUSY_CYCLES", "SQ_ACTIVE_INST_SCA", "SQ_INSTS",
            "SQ_BUSY_CU_CYCLES", LEVEL_WAVES_ACCUM, LEVEL_WAVES_GRBM, "TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum",
            "TCP_TCC_ATOMIC_WITH_RET_REQ_sum", "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", "TCP_TOTAL_CACHE_ACCESSES_sum",
            "TCC_HIT_sum", "TCC_MISS_sum", "TCC_REQ_sum", "TCC_EA_RDREQ_sum", "TCC_EA_RDREQ_32B_sum",
            "TCC_EA_WRREQ_sum", "TCC_EA_WRREQ_64B_sum", "TCC_BUBBLE_sum", "TCC_EA0_RDREQ_sum",
            "TCC_EA0_RDREQ_32B_sum", "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum", "SQ_LDS_BANK_CONFLICT",
            "SQ_LDS_IDX_ACTIVE", "FETCH_SIZE", "WRITE_SIZE")
#: figure → counters it names in ``evidence``.
EVIDENCE = {
    "compute_pct": "max(VALU util = SQ_ACTIVE_INST_VALU, MFMA util = SQ_VALU_MFMA_BUSY_CYCLES) / (GRBM_GUI_ACTIVE/XCDs × CUs)",
    "memory_pct": "max(DRAM, vL1D BW = TCP_TOTAL_CACHE_ACCESSES_sum, L2 BW = TCC_REQ_sum) % of peak",
    "dram_pct": "HBM bytes from TCC_EA*_RDREQ/WRREQ(_32B/_64B)_sum / duration ÷ sysinfo hbm_bw",
    "tensor_pct": "MFMA util = SQ_VALU_MFMA_BUSY_CYCLES / (GRBM_GUI_ACTIVE/XCDs × CUs × 4)",
    "achieved_occupancy_pct": "SQ_ACCUM_PREV_HIRES (SQ_LEVEL_WAVES pass) / (GRBM_GUI_ACTIVE/XCDs) / (waves/CU × CUs)",
    "issue_slot_pct": "IPC = SQ_INSTS / SQ_BUSY_CU_CYCLES of 5",
    "l1_hit_pct": "vL1D hit = 100 − TCP_TCC_*_REQ_sum / TCP_TOTAL_CACHE_ACCESSES_sum",
    "l2_hit_pct": "TCC_HIT_sum / (TCC_HIT_sum + TCC_MISS_sum)",
    "lds_conflicts_per_access": "SQ_LDS_BANK_CONFLICT / (SQ_LDS_IDX_ACTIVE − SQ_LDS_BANK_CONFLICT)",
}

#: The ``dram_pct`` evidence when the bytes come from rocprof's FETCH_SIZE / WRITE_SIZE (``dram_source``
#: ``fetch_write``).
DRAM_FROM_SIZES = "HBM bytes = 1,024 × (FETCH_SIZE + WRITE_SIZE) [KiB] / duration ÷ peak HBM bandwidth"


def _col(ctr: pd.DataFrame, name: str) -> np.ndarray:
    return ctr[name].to_numpy(dtype=float) if name in ctr else np.full(len(ctr), np.nan)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.where((b != 0) & ~np.isnan(b), a / b, np.nan)


#: CUs per XCD of the multi-XCD architectures (a device or compute partition is a whole number of XCDs): CDNA3
#: (gfx940/941/942: MI300X 304 CUs = 8 XCDs × 38, MI300A 228 = 6 × 38, a CPX partition 38 = 1 XCD; AMD CDNA 3
#: white paper) and CDNA4 (gfx950: MI350X/MI355X 256 CUs = 8 XCDs × 32; AMD CDNA 4 white paper). Earlier CDNA
#: (gfx908, gfx90a: one GRBM per device, an MI250X GCD included — rocprof-compute's ``total_xcds`` gives 1) and RDNA
#: have one.
CUS_PER_XCD = {"gfx940": 38, "gfx941": 38, "gfx942": 38, "gfx950": 32}
#: the architecture in a recorded target name (``gfx942``, ``gfx942:sramecc+:xnack-``, ``amdgcn-amd-amdhsa--gfx90a``)
_GFX = re.compile(r"gfx[0-9a-f]+")


def xcd_count(dev: Mapping[str, Any]) -> float:
    """XCDs whose ``GRBM_GUI_ACTIVE`` the profiler summed for the device record ``dev`` (``num_xcc``, ``gfx_arch``,
    ``num_sms`` = CUs): the recorded ``num_xcc`` when positive; else 1 for a single-XCD architecture; else CUs /
    :data:`CUS_PER_XCD` when that is a whole number. NaN when unknown (no architecture, a multi-XCD one without a
    CU count or with a CU count that is no whole number of XCDs): a figure divided by it is then unknown, never 8×
    off (rocprof-compute's ``$GRBM_GUI_ACTIVE_PER_XCD = GRBM_GUI_ACTIVE / $num_xcd``, ``src/utils/parser.py``)."""
    rec = dev.get("num_xcc")
    try:
        if rec is not None and float(rec) > 0:
            return float(rec)
    except (TypeError, ValueError):
        pass
    m = _GFX.search(str(dev.get("gfx_arch") or "").lower())
    if m is None:
        return float("nan")
    per = CUS_PER_XCD.get(m.group(0))
    if per is None:
        return 1.0
    try:
        cus = float(dev.get("num_sms") or "nan")
    except (TypeError, ValueError):
        return float("nan")
    n = cus / per
    return n if n >= 1 and n == int(n) else float("nan")


def wave_occupancy_pct(ctr: pd.DataFrame, dev: Mapping[str, Any]) -> np.ndarray:
    """rocprof-compute "Wavefront Occupancy" % per row of ``ctr``: 100 · SQ_ACCUM_PREV_HIRES (SQ_LEVEL_WAVES pass) /
    (GRBM_GUI_ACTIVE / num_xcd) / (max_waves_per_cu · cu_per_gpu); NaN without the paired accumulator or when
    :func:`xcd_count` is unknown."""
    acc, grbm_lw, grbm = (_col(ctr, k) for k in (LEVEL_WAVES_ACCUM, LEVEL_WAVES_GRBM, "GRBM_GUI_ACTIVE"))
    g = np.where(np.isnan(grbm_lw), grbm, grbm_lw) / xcd_count(dev)
    slots = float(dev.get("max_waves_per_cu") or np.nan) * float(dev.get("num_sms") or np.nan)
    return 100 * _div(_div(acc, g), np.full(len(ctr), slots))


def dispatch_figures(ctr: pd.DataFrame, dur_ns: np.ndarray, dev: Mapping[str, Any],
                     units: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Figures per dispatch (rows of ``ctr``, an event × counter table) for the device record ``dev``
    (``num_sms`` = cu_per_gpu, ``num_xcc`` = num_xcd, ``max_waves_per_cu``, ``max_clock_mhz``,
    ``hbm_bandwidth_bytes_per_s``, ``l2_channels``, ``gfx_arch``). Columns as the module table; NaN when unknown;
    ``dram_source`` says where ``dram_bytes`` came from (``tcc_ea``, ``fetch_write`` or ``""``). ``units``: the
    recorded unit per counter name (``FETCH_SIZE`` / ``WRITE_SIZE``: ``KiB``, or ``bytes``;
    :func:`gpulens.analyzers._work.size_scale`)."""
    from gpulens.analyzers._work import size_scale

    c = {k: _col(ctr, k) for k in COUNTERS}
    cu = float(dev.get("num_sms") or np.nan)
    xcd = xcd_count(dev)
    g = c["GRBM_GUI_ACTIVE"] / xcd
    t = np.where(np.asarray(dur_ns, dtype=float) > 0, np.asarray(dur_ns, dtype=float), np.nan)
    gfx = str(dev.get("gfx_arch") or "").split(":")[0].lower()
    wide = 128.0 if gfx and gfx >= "gfx940" else 64.0
    sclk = float(dev.get("max_clock_mhz") or np.nan)
    out = pd.DataFrame(index=ctr.index)
    out["valu_pct"] = 100 * _div(c["SQ_ACTIVE_INST_VALU"], g * cu)
    out["tensor_pct"] = 100 * _div(c["SQ_VALU_MFMA_BUSY_CYCLES"], g * cu * 4)
    out["salu_pct"] = 100 * _div(c["SQ_ACTIVE_INST_SCA"], g * cu)
    out["issue_slot_pct"] = 100 * _div(c["SQ_INSTS"], c["SQ_BUSY_CU_CYCLES"]) / 5
    out["achieved_occupancy_pct"] = wave_occupancy_pct(ctr, dev)
    # every request kind of the formula, atomics included: a counter not collected (a rocprof v1 pmc pass without
    # the atomic ones) makes the misses, and so the hit rate, unknown — never a rate resting on "no atomics" read as 0
    miss = (c["TCP_TCC_READ_REQ_sum"] + c["TCP_TCC_WRITE_REQ_sum"] + c["TCP_TCC_ATOMIC_WITH_RET_REQ_sum"]
            + c["TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum"])
    out["l1_hit_pct"] = 100 - 100 * _div(miss, c["TCP_TOTAL_CACHE_ACCESSES_sum"])
    out["l2_hit_pct"] = 100 * _div(c["TCC_HIT_sum"], c["TCC_HIT_sum"] + c["TCC_MISS_sum"])
    # bandwidths: bytes / ns = GB/s; peaks in GB/s as the panel writes them
    out["l1_pct"] = 100 * _div(_div(c["TCP_TOTAL_CACHE_ACCESSES_sum"] * wide, t),
                               np.full(len(ctr), sclk / 1000 * wide * cu))
    chans = float(dev.get("l2_channels") or np.nan)
    out["l2_pct"] = 100 * _div(_div(c["TCC_REQ_sum"] * 128, t), np.full(len(ctr), sclk / 1000 * wide * chans))
    if gfx >= "gfx940":
        out["dram_bytes"] = tcc_ea_bytes(c["TCC_EA0_RDREQ_sum"], c["TCC_EA0_RDREQ_32B_sum"], c["TCC_EA0_WRREQ_sum"],
                                         c["TCC_EA0_WRREQ_64B_sum"], c["TCC_BUBBLE_sum"])
    else:
        out["dram_bytes"] = tcc_ea_bytes(c["TCC_EA_RDREQ_sum"], c["TCC_EA_RDREQ_32B_sum"], c["TCC_EA_WRREQ_sum"],
                                         c["TCC_EA_WRREQ_64B_sum"])
    ea = ~np.isnan(out["dram_bytes"].to_numpy(dtype=float))
    fetch, write = c["FETCH_SIZE"], c["WRITE_SIZE"]
    kib = {m: size_scale((units or {}).get(m, "")) for m in ("FETCH_SIZE", "WRITE_SIZE")}
    sized = fetch * kib["FETCH_SIZE"] + write * kib["WRITE_SIZE"]  # both directions, or unknown
    fw = ~ea & ~np.isnan(sized)
    out["dram_bytes"] = np.where(ea, out["dram_bytes"].to_numpy(dtype=float), sized)
    out["dram_source"] = np.where(ea, "tcc_ea", np.where(fw, "fetch_write", ""))
    hbm = float(dev.get("hbm_bandwidth_bytes_per_s") or np.nan)
    out["memory_throughput_bps"] = _div(out["dram_bytes"].to_numpy() * 1e9, t)
    out["dram_pct"] = 100 * _div(out["memory_throughput_bps"].to_numpy(), np.full(len(ctr), hbm))
    out["lds_conflicts_per_access"] = _div(c["SQ_LDS_BANK_CONFLICT"], c["SQ_LDS_IDX_ACTIVE"] - c["SQ_LDS_BANK_CONFLICT"])
    out["compute_pct"] = np.fmax(out["valu_pct"], out["tensor_pct"])
    out["memory_pct"] = np.fmax(np.fmax(out["dram_pct"], out["l1_pct"]), out["l2_pct"])
    out["elapsed_cycles"] = g
    return out
