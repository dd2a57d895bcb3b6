import pandas as pd
import pytest

from gpulens.errors import SchemaError
from gpulens.timeline import COUNTER_COLUMNS, EVENT_COLUMNS, Timeline, TimelineMeta, concat, make_table


def tiny(rank=0, n=3):
    return Timeline(make_table(EVENT_COLUMNS, {
        "event_id": list(range(n)),
        "kind": ["kernel"] * n,
        "name": [f"k{i}" for i in range(n)],
        "start_ns": [100 * i for i in range(n)],
        "dur_ns": [50] * n,
        "rank": [rank] * n,
        "device_id": [0] * n,
        "stream_id": [7] * n,
        "parent_id": [None] + list(range(n - 1)),
        "source": ["test"] * n,
    }), meta=TimelineMeta(sources=[{"path": f"r{rank}", "rank": rank}])).validate()


def test_schema_columns_have_units_in_names():
    for c in EVENT_COLUMNS:
        if c.unit == "ns":
            assert c.name.endswith("_ns"), c.name
        if c.unit == "bytes":
            assert "bytes" in c.name, c.name


def test_make_table_fills_missing_columns_with_na_and_dtypes():
    tl = tiny()
    ev = tl.events
    assert list(ev.columns) == [c.name for c in EVENT_COLUMNS]
    assert str(ev["name"].dtype) == "category"
    assert str(ev["grid_x"].dtype) == "Int64" and ev["grid_x"].isna().all()
    assert ev["device_id"].tolist() == [0, 0, 0]


def test_unknown_column_is_rejected():
    with pytest.raises(SchemaError, match="unknown column"):
        make_table(EVENT_COLUMNS, {"bogus": [1]})


def test_validate_rejects_negative_duration_and_duplicate_ids():
    tl = tiny()
    tl.events.loc[1, "dur_ns"] = -5
    with pytest.raises(SchemaError, match="negative"):
        tl.validate()
    tl = tiny()
    tl.events.loc[2, "event_id"] = 0
    with pytest.raises(SchemaError, match="unique"):
        tl.validate()


def test_save_load_roundtrip_and_no_overwrite(tmp_path):
    tl = tiny()
    tl.counters = make_table(COUNTER_COLUMNS, {"event_id": [1], "metric": ["sm__throughput"], "value": [71.3],
                                               "unit": ["%"], "source": ["test"]})
    tl.meta.warnings.append("hello")
    p = tl.save(tmp_path / "run.gpulens")
    back = Timeline.load(p)
    pd.testing.assert_frame_equal(back.events, tl.events)
    assert back.counters["value"].tolist() == [71.3]
    assert back.meta.warnings == ["hello"]
    with pytest.raises(FileExistsError):
        tl.save(p)
    # never overwrite something that is not a saved Timeline
    other = tmp_path / "user_dir"
    other.mkdir()
    with pytest.raises(FileExistsError, match="not a saved"):
        tl.save(other, overwrite=True)


def test_concat_renumbers_ids_and_parents():
    a, b = tiny(rank=0, n=3), tiny(rank=1, n=2)
    b.counters = make_table(COUNTER_COLUMNS, {"event_id": [1], "metric": ["m"], "value": [1.0], "unit": [""],
                                              "source": ["t"]})
    tl = concat([a, b])
    assert tl.events["event_id"].tolist() == [0, 1, 2, 3, 4]
    assert tl.events["parent_id"].tolist()[3:] == [pd.NA, 3] or tl.events["parent_id"].iloc[4] == 3
    assert tl.counters["event_id"].tolist() == [4]  # b's event 1 is now event 4
    assert tl.ranks == [0, 1]
    assert [s["rank"] for s in tl.meta.sources] == [0, 1]


def test_name_norm_stays_categorical_and_maps_suffixes():
    from gpulens.timeline.names import normalized_names

    s = pd.Series(pd.Categorical(["k.kd", "k [clone .kd]", "k", None, "m"]))
    out = normalized_names(s)
    assert str(out.dtype) == "category"
    assert out.tolist()[:3] == ["k", "k", "k"] and pd.isna(out.iloc[3]) and out.iloc[4] == "m"
    assert list(out.cat.categories) == ["k", "m"]  # one category per normalised name, no per-row strings


def test_integer_columns_read_non_finite_and_out_of_range_floats_as_unknown():
    # a reader handing floats to an Int64 column (grid_x): inf, nan and values beyond int64 are unknown, the rest
    # rounded half to even (1.5 → 2, 2.5 → 2); the table is built instead of raising (a fuzz finding)
    df = make_table(EVENT_COLUMNS, {"grid_x": [1.5, 2.5, float("nan"), float("inf"), -float("inf"), 1e30, 7.0]})
    got = df["grid_x"].tolist()
    assert got[:2] == [2, 2] and got[-1] == 7
    assert all(v is pd.NA for v in got[2:6])
