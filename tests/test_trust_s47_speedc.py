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


def _gpu_timeline(rows: list[tuple]) -> "Timeline":
    """A Timeline of GPU rows ``(kind, name, start_ns, dur_ns, rank, device_id, stream_id)``."""
    from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

    cols = ("kind", "name", "start_ns", "dur_ns", "rank", "device_id", "stream_id")
    data = {c: [r[i] for r in rows] for i, c in enumerate(cols)}
    n = len(rows)
    data.update(event_id=list(range(n)), source=["t"] * n, pid=[1] * n, tid=[7] * n, correlation_id=[None] * n)
    return Timeline(make_table(EVENT_COLUMNS, data)).validate()


def test_exposed_collective_time_by_name_hand_computed():
    """Exposed time per collective name = its time outside the compute kernels of its own GPU, summed over GPUs;
    names in the order a walk over GPUs (sorted), names sorted within each, first meets them.

    Hand computation: GPU (rank 1, dev 0) computes [0, 100); its "nccl_b" [50, 150) is exposed 50 ns, its "nccl_a"
    [200, 260) 60 ns. GPU (rank 0, dev 0) computes [1000, 1100); its "nccl_b" [1090, 1100) is covered (0 ns) and its
    "nccl_c" [1200, 1230) exposed 30 ns. Walk: rank 0 (nccl_b, nccl_c), then rank 1 (nccl_a, nccl_b)."""
    from gpulens.analyzers.verdicts import exposed_comm_by_name

    tl = _gpu_timeline([
        ("kernel", "gemm", 0, 100, 1, 0, 7),
        ("comm", "nccl_b", 50, 100, 1, 0, 9),
        ("comm", "nccl_a", 200, 60, 1, 0, 9),
        ("kernel", "gemm", 1000, 100, 0, 0, 7),
        ("comm", "nccl_c", 1200, 30, 0, 0, 9),
        ("comm", "nccl_b", 1090, 10, 0, 0, 9),
    ])
    got = exposed_comm_by_name(tl)
    assert got == {"nccl_b": 50 + 0, "nccl_c": 30, "nccl_a": 60}
    assert list(got) == ["nccl_b", "nccl_c", "nccl_a"]


def test_shared_head_lines_follow_the_head_they_are_given(tmp_path):
    """The sniffers' shared text of a head (decoded and split once per head) is always the text of the head passed
    in — a second head, even of equal length, is decoded again — and sniffing a file gives the collector that each
    collector's own sniff of a private copy of the head gives (the first in sniffing order)."""
    from gpulens.collectors import _ordered, sniff
    from gpulens.collectors._io import head_lines, head_text, read_head

    a, b = "x,y\r\né1\n".encode(), b"a\xffb\n\nc"
    assert head_lines(a) == tuple(a.decode("utf-8", errors="replace").splitlines()) == ("x,y", "é1")
    assert head_lines(b) == ("a\ufffdb", "", "c") and head_text(b) == "a\ufffdb\n\nc"
    assert head_lines(a) == ("x,y", "é1")
    from pathlib import Path

    root = Path(__file__).parent / "data"
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.stat().st_size < (4 << 20))[:80]
    assert len(files) > 20
    for p in files:
        head = read_head(p)
        want = next((type(c).__name__ for c in _ordered() if c.sniff(p, bytes(bytearray(head)))), None)
        got = sniff(p)
        assert (type(got).__name__ if got is not None else None) == want or (
            want is None and got is not None), p  # None: a record further in (sniff_further) may still be found
