"""The upper bound on theoretical occupancy that the block size alone sets, where registers or shared memory (LDS)
are not recorded and the theoretical figure is unknown.

A launch's theoretical occupancy is resident warps / warp slots, with the block count limited by warp slots,
the block cap, registers and shared memory (CUDA occupancy calculator; CUDA C Programming Guide "Compute
Capabilities": max resident warps, threads and blocks per SM; AMD: wave slots per SIMD × SIMDs per CU). Without
registers and shared memory the last two are unknown, but they can only lower the figure: the calculator with none of
either (:func:`gpulens.devices.occupancy.block_size_bound`) is an upper bound. 1,024-thread blocks on an sm_120 SM
(1,536 threads, 48 warps): one block, 32 of 48 warp slots — at most 66.7 %, whatever the registers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.devices.occupancy import block_size_bound
from gpulens.units import fmt_count

#: the table column (declared in :data:`gpulens.analyzers.occupancy.COLUMNS`)
COLUMN = "theoretical_max_pct"
DOC = ("upper bound on theoretical occupancy from the block size alone — warp-slot and block limits, with registers "
       "and shared memory (LDS) unknown — where the theoretical figure is unknown; none otherwise, or when the "
       "bound is 100 % [%]")
#: why the bound is a bound, said beside it in every report
NOT_RECORDED = "registers and shared memory not recorded"


def not_recorded(vendor: str | None = None) -> str:
    """:data:`NOT_RECORDED` in the vendor's words (AMD: LDS)."""
    return NOT_RECORDED.replace("shared memory", "LDS") if vendor == "amd" else NOT_RECORDED


def add_bound(table: pd.DataFrame, lim: Any, rec: dict) -> None:
    """Fill :data:`COLUMN` of the occupancy ``table`` (in place) for the rows whose theoretical occupancy is unknown
    and whose block size is known, on ``lim``'s SM (CU) (``rec``: the device record, its max threads per SM);
    left empty where the bound is 100 % (it says nothing) or ``lim`` is None (no rules for the GPU)."""
    out = np.full(len(table), np.nan)
    if lim is not None and len(table):
        theo = pd.to_numeric(table["theoretical_occupancy_pct"], errors="coerce").to_numpy(dtype=float)
        bs = pd.to_numeric(table["block_size"], errors="coerce").to_numpy(dtype=float)
        for i in np.flatnonzero(np.isnan(theo) & (bs > 0)):
            occ = block_size_bound(lim, int(bs[i]), rec.get("max_threads_per_sm"))
            if occ is not None and occ.occupancy_pct < 100.0 - 1e-9:
                out[i] = occ.occupancy_pct
    table[COLUMN] = out


def bound_words(row: Any, vendor: str | None = None) -> str | None:
    """"at most 66.7 % (1,024-thread blocks: registers and shared memory not recorded)" for an occupancy row with a
    bound (:data:`COLUMN`), None without one — the one wording of the bound in findings and verdicts."""
    x = row.get(COLUMN) if isinstance(row, dict) else getattr(row, COLUMN, None)
    if x is None or x != x:
        return None
    bs = row.get("block_size") if isinstance(row, dict) else getattr(row, "block_size", None)
    unit = "work-item work-groups" if vendor == "amd" else "thread blocks"
    return f"at most {x:.1f} % ({fmt_count(bs)}-{unit}: {not_recorded(vendor)})"


def bounded_note(table: pd.DataFrame, vendor: str | None = None) -> str:
    """"; bounded by the block size alone: gemm_naive_kernel at most 66.7 % (1,024-thread blocks: …)" for the
    rows of ``table`` with a bound (the first two named), "" without one: appended to the "theoretical occupancy
    unknown" finding so that it does not read as no knowledge at all."""
    rows = [r for r in table.to_dict("records") if bound_words(r, vendor)] if COLUMN in table else []
    if not rows:
        return ""
    named = "; ".join(f"{str(r['name']).split('(')[0].split('::')[-1][:60]} {bound_words(r, vendor)}"
                      for r in rows[:2])
    return f". Bounded by the block size alone: {named}" + (f" (and {len(rows) - 2} more)" if len(rows) > 2 else "")
