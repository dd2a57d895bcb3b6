"""The occupancy analyzer's launches: per launch only what differs between launches of one configuration, every
calculator figure once per distinct launch configuration.

At 1M launches the analyzer used to hold a per-launch frame of ~60 columns (every calculator figure repeated for
each launch of a configuration, then copied by a concat and a row filter): the analysis's peak memory. A trace has a
few thousand distinct configurations (rank × device × block size × registers × shared memory × AMD register
counts); :class:`Launches` keeps a per-launch row number into that table (``key``) and the per-launch figures that
really vary (name code, time, grid, waves, counters), and derives a per-launch figure from the table only when it is
needed, one array at a time. The values are the same as the per-launch frame's, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass
class Launches:
    """The occupancy analyzer's launches with launch data (one entry per launch, in the hot table's order).

    Attributes:
        key: row of ``cfg`` (the launch's configuration) per launch.
        cfg: one row per distinct configuration: rank, device_id, block_size [count], regs_per_thread [count],
            smem_bytes [bytes] (−1 = unknown), calc_ok, the AMD register counts, and the calculator's calc_theo [%],
            calc_active [count], calc_limiter (tied limits, ``", "``-joined), nsms [count], kin_active [count]
            (Kineto's variant), max_threads [count].
        g: kernel-name code per launch (−1 = missing name).
        t: effective duration [ns] (float).
        grid: grid blocks [count] (NaN unknown).
        waves: grid waves (ncu's "Waves Per SM" where recorded, else grid / (active × SMs)) [ratio].
        ach: achieved occupancy from counters [%] (NaN without).
        has_ncu: ncu's theoretical occupancy is recorded for the launch.
        ncu_theo, ncu_active, ncu_lims: ncu's theoretical occupancy [%], active blocks [count] and tied limiters
            per launch; None when the file has no such counter.
    """

    key: np.ndarray
    cfg: pd.DataFrame
    g: np.ndarray
    t: np.ndarray
    grid: np.ndarray
    waves: np.ndarray
    ach: np.ndarray
    has_ncu: np.ndarray
    ncu_theo: np.ndarray | None
    ncu_active: np.ndarray | None
    ncu_lims: np.ndarray | None

    def __len__(self) -> int:
        return len(self.key)

    def take(self, rows: np.ndarray) -> "Launches":
        """The launches at positions ``rows``."""
        def sub(x):
            return None if x is None else x[rows]
        return Launches(self.key[rows], self.cfg, self.g[rows], self.t[rows], self.grid[rows], self.waves[rows],
                        self.ach[rows], self.has_ncu[rows], sub(self.ncu_theo), sub(self.ncu_active),
                        sub(self.ncu_lims))

    def of_cfg(self, col: str, rows: np.ndarray | None = None) -> np.ndarray:
        """A configuration column per launch (at positions ``rows`` when given), the table's dtype kept."""
        k = self.key if rows is None else self.key[rows]
        return self.cfg[col].to_numpy()[k]

    def calc_ok(self) -> np.ndarray:
        """The calculator could run for the launch (block size and registers known, a device spec)."""
        return self.of_cfg("calc_ok").astype(bool)

    def theo(self) -> np.ndarray:
        """Theoretical occupancy per launch [%]: ncu's where recorded, else the calculator's."""
        calc = self.of_cfg("calc_theo")
        return calc.astype(float) if self.ncu_theo is None else np.where(self.has_ncu, self.ncu_theo, calc)

    def active(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Active blocks per SM per launch [count] (float): ncu's where recorded with its limits, else the
        calculator's."""
        calc = self.of_cfg("calc_active", rows)
        if self.ncu_active is None:
            return calc.astype(float)
        h, a = (self.has_ncu, self.ncu_active) if rows is None else (self.has_ncu[rows], self.ncu_active[rows])
        return np.where(h & ~np.isnan(a), a, calc)

    def limiters(self) -> tuple[np.ndarray, np.ndarray]:
        """The tied limiters per launch as (code into the sorted distinct strings, those strings): ncu's where it
        names them, else the calculator's."""
        lu = self.cfg["calc_limiter"].to_numpy(dtype=object)
        if self.ncu_lims is None or not self.has_ncu.any():
            vocab, cc = np.unique(lu.astype(str), return_inverse=True) if len(lu) else (np.array([], object), lu)
            return np.asarray(cc, dtype="int64").reshape(-1)[self.key], np.asarray(vocab, dtype=object)
        lims = np.where(self.has_ncu & (self.ncu_lims != ""), self.ncu_lims, lu[self.key])
        if "calc_smem_max" in self.cfg and self.ncu_active is not None:
            # ncu's shared-memory block limit is taken at the carveout the driver chose to fit the blocks the other
            # limits allow, so it ties with them by construction: shared memory binds only when the largest
            # carveout holds no more blocks (the calculator's figure), as in gpulens.devices.occupancy
            smax = self.of_cfg("calc_smem_max").astype(float)
            with np.errstate(invalid="ignore"):
                drop = np.flatnonzero(self.has_ncu & (smax > self.ncu_active))
            if drop.size:
                sub = pd.Series(lims[drop], dtype=object)
                tie = sub.str.contains(", ", regex=False) & sub.str.contains("shared_memory", regex=False)
                lims = lims.copy()
                lims[drop[tie.to_numpy()]] = sub[tie].str.replace(r"(, )?shared_memory", "", regex=True).str.strip(
                    ", ").to_numpy()
        codes, vocab = pd.factorize(lims, sort=True)
        return codes.astype("int64"), np.asarray(vocab, dtype=object)

    def source(self, rows: np.ndarray) -> np.ndarray:
        """ncu+calculator | ncu | calculator | counters (achieved occupancy measured, theoretical unknown) per
        launch at ``rows``."""
        h = self.has_ncu[rows]
        calc = self.of_cfg("calc_ok", rows).astype(bool)
        return np.where(h, np.where(calc, "ncu+calculator", "ncu"),
                        np.where(calc, "calculator", "counters")).astype(object)

    def disagreements(self, names: np.ndarray, limit_pp: float) -> pd.DataFrame:
        """Launches with both ncu's and the calculator's theoretical occupancy, differing by more than ``limit_pp``
        percentage points: name, theo (ncu's) and calc_theo [%], in launch order."""
        if self.ncu_theo is None or not self.has_ncu.any():
            return pd.DataFrame({"name": pd.Series(dtype=object), "theo": pd.Series(dtype=float),
                                 "calc_theo": pd.Series(dtype=float)})
        both = np.flatnonzero(self.has_ncu & self.calc_ok())
        theo = self.ncu_theo[both]
        calc = self.of_cfg("calc_theo", both).astype(float)
        d = np.abs(theo - calc) > limit_pp
        rows = both[d]
        return pd.DataFrame({"name": np.append(names, np.nan)[self.g[rows]], "theo": theo[d], "calc_theo": calc[d]})
