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

from gpulens.analyzers._hot import device_record, event_counters, hot_kernels, short_name as _short, weighted_mean
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import text_series
from gpulens.devices import limits_of_record, main_device
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


class OccupancyAnalyzer(Analyzer):
    """Theoretical (and achieved, from counters) occupancy of the hot kernels, with the limiting resource."""

    name = "occupancy"
    order = 45

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        def skip(reason: str) -> AnalysisResult:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=reason)

        rec0 = main_device(timeline) or {}
        lim = device.limits if device is not None else limits_of_record(rec0)
        if lim is None:
            if device is None:
                return skip("no device spec: the GPU was not identified from the trace and its architecture is not "
                            "recorded (pass --device-spec FILE)")
            return skip(f"no occupancy rules for architecture {device.arch}")
        spec_sms = device.num_sms if device is not None else 0
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
        per = pd.DataFrame({
            "name": text_series(k["name"]), "time_ns": k["time_ns"].to_numpy(dtype=float),
            "rank": k["rank"].to_numpy(), "device_id": k["device_id"].to_numpy(),
            "block_size": k["block_size"].to_numpy(dtype="int64"),
            "regs_per_thread": k["regs_per_thread"].astype("int64").to_numpy(),
            "smem_bytes": (k["smem_static_bytes"].fillna(0) + k["smem_dynamic_bytes"].fillna(0)).astype("int64")
            .to_numpy(),
            "grid": (k["grid_x"] * k["grid_y"].fillna(1) * k["grid_z"].fillna(1)).astype("Float64")
            .to_numpy(dtype=float, na_value=np.nan)})
        for m in AMD_RESOURCES:
            per[m] = ctr[m].to_numpy(dtype=float) if m in ctr else np.nan
        # one occupancy calculation per distinct (device, configuration)
        keys = ["rank", "device_id", "block_size", "regs_per_thread", "smem_bytes", *AMD_RESOURCES]
        cfg = per[keys].drop_duplicates().reset_index(drop=True)
        recs: dict = {}
        res = []
        for c in cfg.itertuples(index=False):
            dk = (int(c.rank), int(c.device_id))
            rec = recs[dk] if dk in recs else recs.setdefault(dk, device_record(timeline, *dk))
            occ = self._occ(lim, rec, int(c.block_size), int(c.regs_per_thread), int(c.smem_bytes), c)
            kin = self._occ(lim, rec, int(c.block_size), int(c.regs_per_thread), int(c.smem_bytes), c, kineto=True) \
                if lim.vendor == "nvidia" else occ
            res.append((occ.active_blocks, occ.warps_per_block, occ.max_warps, occ.limiter, kin.active_blocks,
                        int(rec.get("num_sms") or spec_sms),
                        int(rec.get("max_threads_per_sm") or lim.max_warps_per_sm * lim.warp_size)))
        cfg[["active_blocks_per_sm", "wpb", "max_warps", "cfg_limiter", "kin_active", "nsms", "max_threads"]] = \
            pd.DataFrame(res, index=cfg.index)
        per = per.merge(cfg, on=keys, how="left", sort=False)
        # grid cap (Kineto): min(active blocks, grid / SMs)
        bps = per["grid"] / per["nsms"].where(per["nsms"] > 0)  # no SM count known: no grid cap
        capped = (bps < per["active_blocks_per_sm"]).to_numpy()
        blocks = np.where(capped, bps, per["active_blocks_per_sm"])
        blocks = np.where(np.isnan(bps), per["active_blocks_per_sm"], blocks)
        per["theo"] = 100.0 * blocks * per["wpb"] / per["max_warps"]
        per["limiter"] = np.where(capped, "grid", per["cfg_limiter"])
        per["ach"] = self._achieved(ctr, lim, per["nsms"].to_numpy())
        est = ctr["kineto.est_achieved_occupancy_pct"].to_numpy(dtype=float) if \
            "kineto.est_achieved_occupancy_pct" in ctr else np.full(len(per), np.nan)
        cmp_ = ~np.isnan(est) & ~np.isnan(bps.to_numpy()) & (lim.vendor == "nvidia")
        kin = kineto_estimate_pct(per["kin_active"].to_numpy()[cmp_], per["grid"].to_numpy()[cmp_],
                                  per["nsms"].to_numpy()[cmp_], per["block_size"].to_numpy()[cmp_],
                                  per["max_threads"].to_numpy()[cmp_])
        kin_ok = int((kin == est[cmp_].astype("int64")).sum())
        kin_optin = int(((per["kin_active"] == 0) & (per["active_blocks_per_sm"] > 0)).to_numpy()[cmp_].sum())
        table = self._aggregate(per)
        summary = {
            "device": device.name if device is not None else f"{rec0.get('name') or 'unidentified GPU'} (no spec; "
                                                              f"{lim.arch} rules)",
            "arch": lim.arch, "launches": int(len(hot)),
            "launches_with_launch_data": int(len(k)), "kernels": int(len(table)),
            "time_weighted_theoretical_pct": weighted_mean(per["theo"], per["time_ns"]),
            "time_weighted_achieved_pct": weighted_mean(per["ach"], per["time_ns"]),
            "kineto_estimates_compared": int(cmp_.sum()), "kineto_estimates_reproduced": kin_ok,
            "kineto_zero_due_to_optin_smem": kin_optin,
        }
        return AnalysisResult(self.name, table, COLUMNS, summary, self._findings(table, kin_optin))

    @staticmethod
    def _occ(lim, rec: dict, block: int, regs: int, smem: int, c, kineto: bool = False) -> Occupancy:
        if lim.vendor == "amd":
            arch, acc, sg = c.arch_vgpr, c.accum_vgpr, c.sgpr
            a, cc = (int(arch), int(0 if pd.isna(acc) else acc)) if not pd.isna(arch) else (regs, 0)
            return cdna_occupancy(lim, block, a, cc, smem, None if pd.isna(sg) else int(sg))
        return cuda_occupancy(lim, block, regs, smem, smem_per_sm=rec.get("smem_per_sm_bytes"),
                              max_threads_per_sm=rec.get("max_threads_per_sm"), regs_per_sm=rec.get("regs_per_sm"),
                              carveout="max" if kineto else "driver", opt_in=not kineto)

    @staticmethod
    def _achieved(ctr: pd.DataFrame, lim, nsms: np.ndarray) -> np.ndarray:
        out = np.full(len(ctr), np.nan)
        for m in ACHIEVED_PCT:
            if m in ctr:
                v = ctr[m].to_numpy(dtype=float)
                out = np.where(np.isnan(out), v, out)
        if all(m in ctr for m in AMD_WAVES):
            acc, active = ctr[AMD_WAVES[0]].to_numpy(dtype=float), ctr[AMD_WAVES[1]].to_numpy(dtype=float)
            with np.errstate(divide="ignore", invalid="ignore"):
                amd = np.where(active > 0, 100.0 * (acc / active) / (nsms * lim.max_warps_per_sm), np.nan)
            out = np.where(np.isnan(out), amd, out)
        return out

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
