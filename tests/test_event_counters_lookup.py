"""``_hot.event_counters`` keeps the counter rows of the events asked for by a position lookup when the ids come in
order (the rows' own event ids), and by ``np.isin`` otherwise: both must give the same wide table — checked here
against a pivot written out in the test from the counter rows themselves."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gpulens.analyzers._hot import event_counters
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, make_table


def _timeline(n: int = 400) -> Timeline:
    rng = np.random.default_rng(3)
    events = make_table(EVENT_COLUMNS, {
        "kind": ["kernel"] * n, "name": [f"k{i % 5}" for i in range(n)], "start_ns": list(range(0, 10 * n, 10)),
        "dur_ns": [5] * n, "event_id": list(range(100, 100 + n)), "rank": [0] * n, "device_id": [0] * n,
        "source": ["t"] * n})
    # counters of a random half of the events (some twice: the first value counts), two metrics, and a metric
    # not asked for
    ids = rng.choice(np.arange(100, 100 + n), n // 2, replace=False)
    ids = np.concatenate([ids, ids[:20]])
    rows = {"event_id": [], "metric": [], "value": [], "unit": []}
    for k, e in enumerate(ids.tolist()):
        for m in ("a", "b", "other"):
            rows["event_id"].append(e)
            rows["metric"].append(m)
            rows["value"].append(float(k * 10 + len(m)))
            rows["unit"].append("")
    return Timeline(events, counters=make_table(COUNTER_COLUMNS, rows))


def test_sorted_and_unsorted_ids_give_the_pivot_of_the_rows():
    tl = _timeline()
    want_ids = np.arange(150, 390, 3)  # in order: the lookup path
    c = tl.counters
    sub = c[c["event_id"].isin(want_ids) & c["metric"].isin(["a", "b"])]
    sub = sub.assign(metric=sub["metric"].astype(str)).drop_duplicates(["event_id", "metric"])
    expected = sub.pivot(index="event_id", columns="metric", values="value").sort_index()
    got = event_counters(tl, want_ids, ["a", "b"])
    shuffled = event_counters(tl, np.random.default_rng(1).permutation(want_ids), ["a", "b"])  # np.isin path
    assert got.index.tolist() == expected.index.tolist() == shuffled.index.tolist()
    for m in ("a", "b"):
        assert got[m].tolist() == expected[m].tolist() == shuffled[m].tolist()
    # ids not in the counters at all (below, between and above the counted ones) select nothing
    assert not len(event_counters(tl, np.array([1, 2, 99, 10_000]), ["a", "b"]))
