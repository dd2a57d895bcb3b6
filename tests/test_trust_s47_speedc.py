"""Session 47, speedc: the analyzers' fixed costs cut without changing a figure.

Each numpy replacement of a pandas step on small frames is checked against the pandas computation it replaces
(written out here, as the analyzer had it), on frames with the cases that step must keep: missing values, groups
with nothing known, keys whose sorted order differs from their order of appearance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def _comm_frame(seed: int, n: int) -> pd.DataFrame:
    """A collectives frame as :class:`gpulens.analyzers.collectives.Collectives` builds it before grouping."""
    rng = np.random.default_rng(seed)
    time = rng.integers(1, 10_000, n).astype(np.int64)
    raw = rng.integers(1, 1 << 30, n).astype(float)
    raw[rng.random(n) < 0.4] = np.nan
    gs = rng.choice([2.0, 4.0, 8.0, np.nan], n)
    comm = pd.DataFrame({
        "rank": rng.choice([3, 0, 1], n).astype(np.int64),
        "collective": np.array(rng.choice(["reduce_scatter", "all_reduce", "other", "all_gather"], n), dtype=object),
        "process_group": np.array(rng.choice(["unknown", "0 (default_pg)", "1 (tp)"], n), dtype=object),
        "time": time,
        "exposed": (time - rng.integers(0, 1, n)).astype(np.int64),
    })
    comm["bytes"] = pd.array([pd.NA if x != x else int(x) for x in raw], dtype="Int64")
    comm["group_size"] = pd.array([pd.NA if g != g else int(g) for g in gs], dtype="Int64")
    known = comm["bytes"].notna().to_numpy()
    comm["known_time"] = np.where(known, comm["time"], 0)
    comm["bytes_f"] = comm["bytes"].astype("float64")
    comm["gs"] = comm["group_size"].astype("float64")
    return comm


@pytest.mark.parametrize("seed,n", [(0, 1), (1, 7), (2, 200), (3, 2000)])
def test_collectives_groups_equal_pandas_named_aggregation(seed, n):
    """The per-(rank, collective, process group) table equals the pandas ``groupby(sort=True).agg`` the analyzer
    used before (sums, max skipping NaN, bytes NaN when no size is known, unknown sizes counted), row for row."""
    from gpulens.analyzers.collectives import _per_group

    comm = _comm_frame(seed, n)
    g = comm.groupby(["rank", "collective", "process_group"], sort=True)
    want = g.agg(group_size=("gs", "max"), count=("time", "size"), time_ns=("time", "sum"),
                 exposed_ns=("exposed", "sum"), bytes=("bytes_f", lambda b: b.sum(min_count=1)),
                 sizes_unknown=("bytes", lambda s: int(s.isna().sum())),
                 known_time=("known_time", "sum")).reset_index()
    got = _per_group(comm)
    pd.testing.assert_frame_equal(got, want, check_dtype=True)
