"""Tenth-session fuzzing (tests/fuzz_s10.py): one test per kind of fault it found, each on a small input built
here, with the expected value worked out from the input itself."""

from __future__ import annotations

import pandas as pd

from gpulens.reports.json_report import capped_records


def test_capped_other_row_never_sums_shares_of_several_wholes_nor_their_denominator():
    """Kind: the "other" row of a table cut at MAX_TABLE_ROWS summed every share column and the ns column each
    share is divided by. critical_path has one row per (rank, class) with ``share = time_ns / step_ns``: 300 ranks
    of a 90 µs step summed to a "share" of 65.9 and a 17.7 ms "step" (fuzz_s10 ranks_many). Per-rank shares sum to
    1 per rank, not over the table: their sum is no share; step_ns repeats the one step of each rank. A share of
    one whole (hot kernels' share of all kernel time) is still summed, and so is time_ns."""
    ranks = 5
    rows = [{"rank": r, "step_ns": 90_000, "class": c, "time_ns": t, "share": t / 90_000}
            for r in range(ranks) for c, t in (("kernel", 65_000), ("gpu_gap", 15_000), ("launch_delay", 10_000))]
    df = pd.DataFrame(rows)
    cols = {"rank": "rank [id]", "step_ns": "duration of the step [ns]", "class": "class [text]",
            "time_ns": "time of the class on the path [ns]", "share": "time_ns / step_ns [share]"}
    other = capped_records(df, cols, limit=3)[-1]
    assert other["other_rows"] == 12
    assert other["time_ns"] == 4 * 90_000  # the 4 other ranks' whole paths, by hand
    assert other["share"] is None and other["step_ns"] is None

    hot = pd.DataFrame({"name": list("abcdef"), "total_ns": [40, 20, 15, 10, 10, 5]})
    hot["share"] = hot["total_ns"] / 100
    other = capped_records(hot, {"name": "kernel [text]", "total_ns": "time [ns]",
                                 "share": "share of all kernel time [share]"}, limit=2)[-1]
    assert other["total_ns"] == 40 and abs(other["share"] - 0.40) < 1e-12  # 15+10+10+5 of 100
