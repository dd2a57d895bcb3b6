"""Occupancy: how many warps (waves) each hot kernel's launch configuration can keep resident, and what limits it.

Theoretical occupancy per launch from the launch configuration (threads per block, registers per thread, static +
dynamic shared memory / LDS) and the architecture's limits (:mod:`gpulens.devices.occupancy`), capped by the grid
when it has fewer blocks than SMs can hold (as Kineto's estimate is); achieved occupancy from counters when
present. Aggregated per kernel name over the performance-critical set, weighted by time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._hot import device_record, event_counters, hot_kernels, weighted_mean
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.devices.occupancy import Occupancy, cdna_occupancy, cuda_occupancy, kineto_estimate_pct
from gpulens.timeline import Timeline

COLUMNS = {
    "name": "kernel name as recorded",
    "calls": "launches of the kernel with launch data",
    "time_ns": "summed effective duration of those launches [ns]",
    "block_size": "threads per block of the launch configuration with the most time",
    "regs_per_thread": "registers (VGPRs on AMD) per thread of that configuration",
    "smem_bytes": "static + dynamic shared memory (LDS) per block of that configuration [bytes]",
    "active_blocks_per_sm": "resident blocks per SM (CU) the configuration allows, before the grid cap",
    "theoretical_occupancy_pct": "resident warps / warp slots, capped by the grid, time-weighted over launches [%]",
    "achieved_occupancy_pct": "measured active warps / warp slots from counters, time-weighted [%]; None without",
    "limiter": "registers | shared_memory | warps | blocks | grid: what bounds the configuration with the most time",
}

#: Counters that measure achieved occupancy directly [%].
ACHIEVED_PCT = ("sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy")
#: rocprof-compute: mean resident waves = SQ_ACCUM_PREV_HIRES / GRBM_GUI_ACTIVE (gpu-facts §2.3).
AMD_WAVES = ("SQ_ACCUM_PREV_HIRES", "GRBM_GUI_ACTIVE")
AMD_RESOURCES = ("arch_vgpr", "accum_vgpr", "sgpr")
_WORD = {"registers": "Registers", "shared_memory": "Shared memory", "warps": "Warp slots", "blocks": "The block cap"}


def _short(name: str, width: int = 60) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


class OccupancyAnalyzer(Analyzer):
    """Theoretical (and achieved, from counters) occupancy of the hot kernels, with the limiting resource."""

    name = "occupancy"
    order = 45

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        def skip(reason: str) -> AnalysisResult:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=reason)

        if device is None:
            return skip("no device spec: the GPU was not identified from the trace (pass --device-spec FILE)")
        lim = device.limits
        if lim is None:
            return skip(f"no occupancy rules for architecture {device.arch}")
        hot = hot_kernels(timeline, results)
        if not len(hot):
            return skip("no compute kernels in the trace")
        bs = (hot["block_x"] * hot["block_y"].fillna(1) * hot["block_z"].fillna(1))
        have = bs.notna() & hot["regs_per_thread"].notna() & (bs > 0)
        k = hot[have.to_numpy()].assign(block_size=bs[have].astype("int64"))
        if not len(k):
            return skip("no launch data: the trace records no block size and registers per thread for the hot "
                        "kernels (ROCm Kineto traces do not; use rocprof or ncu)")
        ids = k["event_id"].to_numpy()
        ctr = event_counters(timeline, ids, ACHIEVED_PCT + AMD_WAVES + AMD_RESOURCES +
                             ("kineto.est_achieved_occupancy_pct",)).reindex(ids)
        rows, cache, recs = [], {}, {}
        kin_cmp = kin_ok = kin_optin = 0
        for i, r in enumerate(k.itertuples()):
            dk = (int(r.rank), int(r.device_id))
            rec = recs[dk] if dk in recs else recs.setdefault(dk, device_record(timeline, *dk))
            smem = int(0 if pd.isna(r.smem_static_bytes) else r.smem_static_bytes) + \
                int(0 if pd.isna(r.smem_dynamic_bytes) else r.smem_dynamic_bytes)
            regs, block = int(r.regs_per_thread), int(r.block_size)
            nsms = int(rec.get("num_sms") or device.num_sms)
            grid = r.grid_x * (1 if pd.isna(r.grid_y) else r.grid_y) * (1 if pd.isna(r.grid_z) else r.grid_z)
            occ = self._occ(cache, lim, rec, block, regs, smem, ctr.iloc[i])
            pct, limiter = occ.grid_capped(int(grid), nsms) if not pd.isna(grid) else (occ.occupancy_pct, occ.limiter)
            est = ctr.iloc[i].get("kineto.est_achieved_occupancy_pct", np.nan)
            if lim.vendor == "nvidia" and not pd.isna(est) and not pd.isna(grid):
                kocc = self._occ(cache, lim, rec, block, regs, smem, None, kineto=True)
                kin = kineto_estimate_pct(kocc, int(grid), nsms, block,
                                          int(rec.get("max_threads_per_sm") or lim.max_warps_per_sm * 32))
                kin_cmp += 1
                kin_ok += kin == int(est)
                kin_optin += kocc.active_blocks == 0 and occ.active_blocks > 0
            rows.append((r.name, r.time_ns, block, regs, smem, occ.active_blocks, pct,
                         self._achieved(ctr.iloc[i], lim, nsms), limiter))
        per = pd.DataFrame(rows, columns=["name", "time_ns", "block_size", "regs_per_thread", "smem_bytes",
                                          "active_blocks_per_sm", "theo", "ach", "limiter"])
        per["name"] = per["name"].astype(str)
        table = self._aggregate(per)
        summary = {
            "device": device.name, "arch": device.arch, "launches": int(len(hot)),
            "launches_with_launch_data": int(len(k)), "kernels": int(len(table)),
            "time_weighted_theoretical_pct": weighted_mean(per["theo"], per["time_ns"]),
            "time_weighted_achieved_pct": weighted_mean(per["ach"], per["time_ns"]),
            "kineto_estimates_compared": kin_cmp, "kineto_estimates_reproduced": kin_ok,
            "kineto_zero_due_to_optin_smem": kin_optin,
        }
        return AnalysisResult(self.name, table, COLUMNS, summary, self._findings(table, kin_optin))

    @staticmethod
    def _occ(cache: dict, lim, rec: dict, block: int, regs: int, smem: int, ctr: pd.Series | None,
             kineto: bool = False) -> Occupancy:
        if lim.vendor == "amd":
            arch = ctr.get("arch_vgpr", np.nan) if ctr is not None else np.nan
            acc = ctr.get("accum_vgpr", np.nan) if ctr is not None else np.nan
            sg = ctr.get("sgpr", np.nan) if ctr is not None else np.nan
            a, c = (int(arch), int(0 if pd.isna(acc) else acc)) if not pd.isna(arch) else (regs, 0)
            key = ("amd", block, a, c, smem, None if pd.isna(sg) else int(sg))
            if key not in cache:
                cache[key] = cdna_occupancy(lim, block, a, c, smem, key[-1])
            return cache[key]
        props = (rec.get("smem_per_sm_bytes"), rec.get("max_threads_per_sm"), rec.get("regs_per_sm"))
        key = ("cuda", block, regs, smem, props, kineto)
        if key not in cache:
            cache[key] = cuda_occupancy(lim, block, regs, smem, smem_per_sm=props[0], max_threads_per_sm=props[1],
                                        regs_per_sm=props[2], carveout="max" if kineto else "driver",
                                        opt_in=not kineto)
        return cache[key]

    @staticmethod
    def _achieved(c: pd.Series, lim, nsms: int) -> float:
        for m in ACHIEVED_PCT:
            v = c.get(m, np.nan)
            if not pd.isna(v):
                return float(v)
        acc, active = c.get(AMD_WAVES[0], np.nan), c.get(AMD_WAVES[1], np.nan)
        if not pd.isna(acc) and not pd.isna(active) and active > 0 and nsms:
            return float(100.0 * (acc / active) / (nsms * lim.max_warps_per_sm))
        return np.nan

    @staticmethod
    def _aggregate(per: pd.DataFrame) -> pd.DataFrame:
        out = []
        for name, g in per.groupby("name", sort=False):
            cfg = g.groupby(["block_size", "regs_per_thread", "smem_bytes"])["time_ns"].sum().idxmax()
            dom = g[(g["block_size"] == cfg[0]) & (g["regs_per_thread"] == cfg[1]) & (g["smem_bytes"] == cfg[2])]
            lim = dom.groupby("limiter")["time_ns"].sum().idxmax()
            out.append({"name": name, "calls": int(len(g)), "time_ns": int(g["time_ns"].sum()),
                        "block_size": int(cfg[0]), "regs_per_thread": int(cfg[1]), "smem_bytes": int(cfg[2]),
                        "active_blocks_per_sm": int(dom["active_blocks_per_sm"].iloc[0]),
                        "theoretical_occupancy_pct": weighted_mean(g["theo"], g["time_ns"]),
                        "achieved_occupancy_pct": weighted_mean(g["ach"], g["time_ns"]), "limiter": lim})
        t = pd.DataFrame(out, columns=list(COLUMNS))
        return t.sort_values("time_ns", ascending=False, kind="stable").reset_index(drop=True)

    @staticmethod
    def _findings(t: pd.DataFrame, kin_optin: int) -> list[Finding]:
        out: list[Finding] = []
        total = max(int(t["time_ns"].sum()), 1)
        for r in t.itertuples():
            theo, ach = r.theoretical_occupancy_pct, r.achieved_occupancy_pct
            sev = "warning" if r.time_ns > 0.1 * total else "info"
            if r.limiter in ("registers", "shared_memory") and theo is not None and theo < 50:
                what = (f"{r.regs_per_thread} registers/thread" if r.limiter == "registers"
                        else f"{r.smem_bytes} B shared memory/block")
                out.append(Finding(
                    f"{_WORD[r.limiter]} limit occupancy of {_short(r.name)} to {theo:.0f} %",
                    f"{what} with {r.block_size} threads/block leaves room for {r.active_blocks_per_sm} block(s) "
                    "per SM. Fewer registers (__launch_bounds__, maxrregcount) or less shared memory per block would "
                    "let more warps hide latency — if the kernel is latency-bound.",
                    severity=sev, category="occupancy", time_at_stake_ns=int(r.time_ns), kernel=r.name))
            elif r.limiter == "grid" and theo is not None and theo < 50:
                out.append(Finding(
                    f"Grid of {_short(r.name)} too small to fill the GPU: occupancy {theo:.0f} %",
                    "The launch has fewer blocks than the SMs could hold at once; larger batches, split-K or "
                    "fusing small launches would use the idle SMs.",
                    severity=sev, category="occupancy", time_at_stake_ns=int(r.time_ns), kernel=r.name))
            if ach is not None and theo and ach < 0.5 * theo:
                out.append(Finding(
                    f"{_short(r.name)} achieves {ach:.0f} % occupancy of a possible {theo:.0f} %",
                    "Warps finish unevenly (tail effect, load imbalance) or blocks are not scheduled fast enough.",
                    severity=sev, category="occupancy", time_at_stake_ns=int(r.time_ns), kernel=r.name))
        if kin_optin:
            out.append(Finding(
                f"Kineto's occupancy estimate is 0 % for {kin_optin} launch(es) using > 48 KiB shared memory",
                "Kineto computes occupancy without the opt-in shared-memory limit; gpulens uses the opt-in limit "
                "the launch must have had.", severity="info", category="data-quality"))
        out.sort(key=lambda f: -(f.time_at_stake_ns or 0))
        return out
