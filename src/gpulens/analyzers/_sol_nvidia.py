"""Speed-of-light figures per launch from Nsight Compute metrics (NVIDIA).

Each figure is read from the first of its metric names present — the metric name (``--page raw``, ``--metrics``,
``.ncu-rep``) or the details-page label of the GPU Speed Of Light Throughput, Memory Workload Analysis, Compute
Workload Analysis, Scheduler Statistics and Occupancy sections (Nsight Compute Kernel Profiling Guide, "Sections
and Rules"). The label "Memory Throughput" exists twice (SOL section in %, Memory Workload Analysis in bytes/s); the
two are told apart by unit. Nsight Compute releases of 2019–2022 label the same section's figures ``SM [%]`` /
``Compute (SM) [%]``, ``Memory [%]``, and (2019–2020, section "GPU Speed Of Light") ``SOL FB`` (frame buffer: DRAM),
``SOL L2`` and ``SOL TEX`` (L1/TEX), or ``SOL DRAM``, ``SOL L2 Cache`` and ``SOL L1/TEX Cache`` (a 2020 release's CSV
of a V100, Techercise/AMD-Instruction-Roofline-using-rocProf-Metrics), as their CSV and text reports print them. Every figure keeps the name it was read
from, for the ``evidence`` text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: figure → ((metric, unit or None for any), …) in order of preference. Units are gpulens base units.
METRICS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "compute_pct": (("sm__throughput.avg.pct_of_peak_sustained_elapsed", None),
                    ("Compute (SM) Throughput", "%"), ("Compute (SM) [%]", "%"), ("SM [%]", "%")),
    "memory_pct": (("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", None),
                   ("Memory Throughput", "%"), ("Memory [%]", "%")),
    "dram_pct": (("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", None),
                 ("dram__throughput.avg.pct_of_peak_sustained_elapsed", None), ("DRAM Throughput", "%"),
                 ("SOL FB", "%"), ("SOL DRAM", "%")),
    "l1_pct": (("l1tex__throughput.avg.pct_of_peak_sustained_active", None), ("L1/TEX Cache Throughput", "%"),
               ("SOL TEX", "%"), ("SOL L1/TEX Cache", "%")),
    "l2_pct": (("lts__throughput.avg.pct_of_peak_sustained_elapsed", None), ("L2 Cache Throughput", "%"),
               ("SOL L2", "%"), ("SOL L2 Cache", "%")),
    "l1_hit_pct": (("l1tex__t_sector_hit_rate.pct", None), ("L1/TEX Hit Rate", "%")),
    "l2_hit_pct": (("lts__t_sector_hit_rate.pct", None), ("L2 Hit Rate", "%")),
    "achieved_occupancy_pct": (("sm__warps_active.avg.pct_of_peak_sustained_active", None),
                               ("Achieved Occupancy", "%")),
    "tensor_pct": (("sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active", None),
                   ("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", None),
                   ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", None),
                   ("sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active", None)),
    "issue_slot_pct": (("sm__inst_issued.avg.pct_of_peak_sustained_active", None), ("Issue Slots Busy", "%"),
                       ("smsp__issue_active.avg.pct_of_peak_sustained_active", None),
                       ("One or More Eligible", "%")),
    "elapsed_cycles": (("gpc__cycles_elapsed.max", None), ("Elapsed Cycles", "cycles"),
                       ("sm__cycles_elapsed.max", None)),
    #: SM active cycles (mean over SMs): with elapsed_cycles, the share of the run the SMs — and their L1s — were
    #: active, which turns L1/TEX's %-of-peak-while-active into a share of the whole run
    "sm_active_cycles": (("sm__cycles_active.avg", None), ("SM Active Cycles", "cycles")),
    "memory_throughput_bps": (("dram__bytes.sum.per_second", None), ("Memory Throughput", "bytes/s")),
    "dram_bytes": (("dram__bytes.sum", None),),
    #: reads alone: shown as their own figure, so a run that collected reads but not writes never shows reads as
    #: the DRAM traffic (cases/README.md B20 raw page: "dram bytes read")
    "dram_read_bytes": (("dram__bytes_read.sum", None), ("dram__bytes_op_read.sum", None)),
}
#: DRAM bytes as read + write when no total is recorded.
DRAM_PARTS = (("dram__bytes_read.sum", "dram__bytes_write.sum"), ("dram__bytes_op_read.sum", "dram__bytes_op_write.sum"))


def launch_figures(counters: pd.DataFrame, event_ids: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(values, sources): one row per event id, one column per figure of :data:`METRICS` (NaN when absent), and
    the metric name each value came from (``""`` when absent). ``dram_bytes`` falls back to read + write."""
    names = {m for opts in METRICS.values() for m, _ in opts} | {m for p in DRAM_PARTS for m in p}
    c = counters[counters["metric"].isin(names)]
    c = c[c["event_id"].isin(event_ids)]
    c = c.assign(metric=c["metric"].astype(str), unit=c["unit"].astype(str)).drop_duplicates(
        ["event_id", "metric", "unit"])
    idx = pd.Index(event_ids, name="event_id")
    vals = pd.DataFrame(index=idx, columns=list(METRICS), dtype=float)
    srcs = pd.DataFrame("", index=idx, columns=list(METRICS), dtype=object)
    for fig, opts in METRICS.items():
        for metric, unit in opts:
            sel = c[(c["metric"] == metric) & ((c["unit"] == unit) if unit is not None else True)]
            if not len(sel):
                continue
            v = sel.drop_duplicates("event_id").set_index("event_id")["value"].reindex(idx)
            fill = vals[fig].isna() & v.notna()
            vals.loc[fill, fig] = v[fill]
            srcs.loc[fill, fig] = metric
    for rd, wr in DRAM_PARTS:
        r = c[c["metric"] == rd].drop_duplicates("event_id").set_index("event_id")["value"].reindex(idx)
        w = c[c["metric"] == wr].drop_duplicates("event_id").set_index("event_id")["value"].reindex(idx)
        tot = r + w  # both directions or unknown: a direction not collected is not 0 bytes
        fill = vals["dram_bytes"].isna() & tot.notna()
        vals.loc[fill, "dram_bytes"] = tot[fill]
        srcs.loc[fill, "dram_bytes"] = f"{rd} + {wr}"
    return vals, srcs
