"""Findings of the occupancy analyzer: resource limiters, the grid's waves, achieved vs theoretical, and
disagreements between ncu's theoretical occupancy and gpulens's calculator."""

from __future__ import annotations

import pandas as pd

from gpulens.analyzers._hot import short_name as _short
from gpulens.analyzers.base import Finding

#: Below this theoretical occupancy [%] a register / shared-memory limiter is worth a finding.
LOW_THEORETICAL_PCT = 50.0
#: A grid under this many waves leaves SMs idle for the whole kernel (fewer blocks than SMs × active blocks).
FEW_WAVES = 1.0
#: Between 1 and this many waves, a last wave under :data:`TAIL_PCT` full idles a visible share of the time.
TAIL_WAVES, TAIL_PCT = 4.0, 50.0


def findings(t: pd.DataFrame, kin_optin: int, dis: pd.DataFrame, word: dict[str, str]) -> list[Finding]:
    """Findings for the per-kernel occupancy table ``t`` (columns of :data:`gpulens.analyzers.occupancy.COLUMNS`)."""
    out: list[Finding] = []
    total = max(int(t["time_ns"].sum()), 1)
    for r in t.itertuples():
        theo, ach, w = r.theoretical_occupancy_pct, r.achieved_occupancy_pct, r.waves_per_sm
        sev = "warning" if r.time_ns > 0.1 * total else "info"
        key = f"occupancy/{r.name}"
        if r.limiter in ("registers", "shared_memory") and theo is not None and theo < LOW_THEORETICAL_PCT:
            if r.limiter == "registers":
                what = f"{r.regs_per_thread} registers/thread" if r.regs_per_thread is not None else "registers"
                act = "Cut registers per thread (__launch_bounds__, -maxrregcount, fewer live values)."
            else:
                what = f"{int(r.smem_bytes):,} B shared memory/block" if r.smem_bytes == r.smem_bytes and \
                    r.smem_bytes is not None else "shared memory"
                act = "Use less shared memory per block (smaller tiles, fewer pipeline stages)."
            tied = f" (tied with {r.limiters.split(', ', 1)[1].replace('_', ' ')})" if ", " in r.limiters else ""
            blocks = f"{r.active_blocks_per_sm} block(s)" if r.active_blocks_per_sm is not None else "few blocks"
            out.append(Finding(
                f"{word[r.limiter]} limit occupancy of {_short(r.name)} to {theo:.0f} %",
                f"{what}{tied} leaves room for {blocks} per SM ({r.occupancy_source}). More resident warps hide "
                "latency — this matters if the kernel is latency-bound.",
                severity=sev, category="occupancy", time_at_stake_ns=int(r.time_ns), kernel=r.name, action=act,
                key=f"{key}/limiter"))
        if w is not None and w < FEW_WAVES:
            out.append(Finding(
                f"Grid of {_short(r.name)} fills {100 * w:.3g} % of one wave (weighted by launch time)",
                f"{w:.3g} waves per SM, averaged over its launches weighted by their time (the launch "
                f"configuration with the most time: {r.grid_blocks} blocks, {r.active_blocks_per_sm} resident per "
                "SM): the grids have fewer blocks than the GPU holds at once, so some SMs idle for the whole "
                "kernel. This is the grid's effect, separate from the theoretical occupancy.",
                severity=sev, category="occupancy", time_at_stake_ns=int(r.time_ns), kernel=r.name,
                action="Give the launch more blocks: larger batches, split-K/split-KV, or fuse small launches.",
                key=f"{key}/waves"))
        elif w is not None and w < TAIL_WAVES and r.tail_wave_pct is not None and r.tail_wave_pct < TAIL_PCT:
            out.append(Finding(
                f"Last wave of {_short(r.name)} is {r.tail_wave_pct:.0f} % full ({w:.2f} waves)",
                "The final wave runs with most SMs idle (tail effect).",
                severity="info", category="occupancy", time_at_stake_ns=int(r.time_ns), kernel=r.name,
                action="Size the grid to a whole number of waves (blocks = multiple of SMs × active blocks).",
                key=f"{key}/tail"))
        if ach is not None and theo and ach < 0.5 * theo and not (w is not None and w < FEW_WAVES):
            out.append(Finding(
                f"{_short(r.name)} achieves {ach:.0f} % occupancy of a possible {theo:.0f} %",
                "Warps finish unevenly (tail effect, load imbalance) or blocks are not scheduled fast enough.",
                severity=sev, category="occupancy", time_at_stake_ns=int(r.time_ns), kernel=r.name,
                action="Balance work across warps and blocks, or launch more blocks per wave.", key=f"{key}/achieved"))
    if len(dis):
        worst = dis.assign(d=(dis["theo"] - dis["calc_theo"]).abs()).sort_values("d").iloc[-1]
        out.append(Finding(
            f"gpulens's occupancy calculator disagrees with ncu on {len(dis)} launch(es)",
            f"e.g. {_short(str(worst['name']))}: ncu {worst['theo']:.2f} %, calculator {worst['calc_theo']:.2f} %. "
            "ncu's figure is shown; the calculator's architecture table may miss a limit of this GPU.",
            severity="info", category="data-quality", action="Trust ncu's Occupancy section for these kernels.",
            key="occupancy/calculator-disagrees"))
    if kin_optin:
        out.append(Finding(
            f"Kineto's occupancy estimate is 0 % for {kin_optin} launch(es) using > 48 KiB shared memory",
            "Kineto computes occupancy without the opt-in shared-memory limit; gpulens uses the opt-in limit "
            "the launch must have had.", severity="info", category="data-quality",
            action="Ignore Kineto's 'est. achieved occupancy' for these launches.", key="occupancy/kineto-optin"))
    out.sort(key=lambda f: -(f.time_at_stake_ns or 0))
    return out
