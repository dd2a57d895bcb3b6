"""Faster paths of the host/launch/stream analyzers (issue 16, part B): each must give exactly what the plain
computation it replaces gives. Expected values come from Python loops written here, numpy's own percentile, a
pandas groupby of the texts, or by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers import breakdown, cpu_ops, hotspots
from gpulens.analyzers._groupstats import group_percentile_table, sort_by_group
from gpulens.analyzers.intervals import group_order
from gpulens.analyzers.stream_timeline import BRANCH, StreamTimeline
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table


@pytest.mark.parametrize("groups, spread", [(1, 50), (7, 10 ** 6), (300, 5), (70000, 10 ** 9)])
def test_group_order_is_a_stable_sort_by_group_then_start(groups, spread):
    rng = np.random.default_rng(groups)
    g = rng.integers(0, groups, 4000)
    s = rng.integers(0, spread, 4000) + 1_700_000_000_000_000_000  # epoch-scale ns; small spreads make ties
    expected = sorted(range(len(g)), key=lambda i: (g[i], s[i]))  # Python's sort is stable: ties keep row order
    assert group_order(g, s).tolist() == expected


@pytest.mark.parametrize("values", [
    np.random.default_rng(1).integers(-10 ** 6, 10 ** 6, 5000),  # negative values: shifted into the folded key
    np.random.default_rng(2).integers(0, 4, 5000).astype(np.uint32),  # many ties
    np.array([0, 2 ** 63 + 5, 7, 2 ** 63 + 1] * 50, dtype=np.uint64),  # too wide to fold: the lexsort
    np.random.default_rng(3).random(5000) * 1e6,  # floats: the lexsort
])
def test_sort_by_group_sorts_each_groups_values(values):
    g = np.random.default_rng(9).integers(0, 40, len(values))
    g[0] = 41  # group 40 absent
    sv, sg, starts, counts = sort_by_group(g, values)
    pairs = sorted(zip(g.tolist(), values.tolist()))
    assert sg.tolist() == [p[0] for p in pairs] and sv.tolist() == [p[1] for p in pairs]
    assert sv.dtype == values.dtype
    assert counts.tolist() == np.bincount(g, minlength=42).tolist() and counts[40] == 0
    assert starts.tolist() == [sum(counts[:k]) for k in range(42)]


@pytest.mark.parametrize("n_groups, n", [(5, 20000), (30, 100000), (3000, 20000)])  # per-group / sorted path
@pytest.mark.parametrize("floats", [False, True])
def test_group_percentile_table_is_numpys_percentile_of_each_group(n_groups, n, floats):
    rng = np.random.default_rng(n_groups)
    g = rng.integers(0, n_groups, n)
    g[:n_groups] = np.arange(n_groups)  # every group present
    x = rng.random(n) * 1e5 if floats else rng.integers(0, 10 ** 7, n)
    (p50, p90), top = group_percentile_table(g, x, (50, 90))
    for k in range(0, n_groups, max(1, n_groups // 50)):
        part = x[g == k]
        assert p50[k] == np.percentile(part, 50) and p90[k] == np.percentile(part, 90)
        assert top[k] == part.max()


def _outermost_by_loop(key, start, end):
    """Per row: its [start, end) less what earlier calls of its group (by start, then row) already covered."""
    out = [0] * len(key)
    cover: dict = {}
    for i in sorted(range(len(key)), key=lambda i: (key[i], start[i], i)):
        k = key[i]
        if k not in cover:
            out[i] = end[i] - start[i]
            cover[k] = end[i]
        else:
            out[i] = max(0, end[i] - max(start[i], cover[k]))
            cover[k] = max(cover[k], end[i])
    return out


def _host_ops(n, seed, tid_missing=False):
    rng = np.random.default_rng(seed)
    names = pd.Categorical(rng.choice(["aten::copy_", "aten::mm", "aten::add"], n))
    start = 1_700_000_000_000_000_000 + rng.integers(0, 5000, n)
    dur = rng.integers(0, 800, n)
    tid = pd.array(rng.integers(1, 4, n), dtype="Int64")
    if tid_missing:
        tid[::7] = pd.NA
    return pd.DataFrame({"name": names, "rank": np.zeros(n, dtype="int64"),
                         "pid": pd.array(np.full(n, 42), dtype="Int64"), "tid": tid,
                         "start_ns": start, "dur_ns": dur})


def test_outermost_time_counts_nested_calls_of_one_name_once():
    ev = _host_ops(3000, 5)
    mask = np.ones(len(ev), dtype=bool)
    key = list(zip(ev["name"].astype(str), ev["tid"].astype("int64")))
    start = ev["start_ns"].tolist()
    end = (ev["start_ns"] + ev["dur_ns"]).tolist()
    assert cpu_ops._outermost_ns(ev, mask).tolist() == _outermost_by_loop(key, start, end)


def test_outermost_time_with_unrecorded_threads_keeps_pandas_grouping():
    ev = _host_ops(500, 6, tid_missing=True)
    mask = np.ones(len(ev), dtype=bool)
    assert cpu_ops._outermost_ns(ev, mask).tolist() == cpu_ops._outermost_ns_frame(ev, mask).tolist()


def test_hotspot_groups_by_code_equal_the_groupby_of_the_texts():
    rng = np.random.default_rng(11)
    n = 5000
    name = pd.Categorical(rng.choice(["gemm", "softmax", "nccl", "copy"], n), categories=["gemm", "softmax", "nccl",
                                                                                          "copy", "unused"])
    name[::97] = np.nan  # rows without a name are no group
    kind = pd.Categorical(np.where(rng.random(n) < 0.2, "comm", "kernel"))
    k = pd.DataFrame({"name": name, "kind": kind, "dur_ns": rng.integers(1, 10 ** 6, n)})
    eff = np.minimum(k["dur_ns"].to_numpy(), rng.integers(1, 10 ** 6, n))
    df = pd.DataFrame({"name": k["name"].astype(object), "kind": k["kind"].astype(object),
                       "dur": k["dur_ns"].to_numpy(), "eff": eff})
    g = df.groupby(["name", "kind"], sort=False)
    want = pd.DataFrame({"calls": g.size(), "total_ns": g["dur"].sum(), "effective_ns": g["eff"].sum(),
                         "min_ns": g["eff"].min(), "max_ns": g["eff"].max()}).reset_index()
    got = hotspots._by_code(k, eff)
    for c in ("name", "kind"):
        assert got[c].tolist() == want[c].tolist()  # order of first appearance
    for c in ("calls", "total_ns", "effective_ns", "min_ns", "max_ns"):
        assert got[c].tolist() == want[c].tolist(), c


def test_breakdown_of_kernels_and_collectives_only():
    # no copies or sets: the unions of kernel+comm (+memcpy) are the busy union itself
    # GPU 0: kernel [0,100), kernel [50,120), comm [200,250) → busy 170, computation 120, exposed comm 50
    # GPU 1: comm [0,40) under kernel [10,30) → busy 40, computation 20, exposed comm 20
    gpu = pd.DataFrame({"rank": [0, 0, 0, 0, 0], "device_id": [0, 0, 0, 1, 1],
                        "kind": pd.Categorical(["kernel", "kernel", "comm", "comm", "kernel"]),
                        "start_ns": [0, 50, 200, 0, 10], "dur_ns": [100, 70, 50, 40, 20]})
    t = breakdown._split_all(gpu)
    assert t["busy_ns"].tolist() == [170, 40]
    assert t["kernel_busy_ns"].tolist() == [170, 40]
    assert t["computation_ns"].tolist() == [120, 20]
    assert t["exposed_comm_ns"].tolist() == [50, 20]
    assert t["exposed_memcpy_ns"].tolist() == [0, 0] and t["exposed_memset_ns"].tolist() == [0, 0]
    assert t["idle_ns"].tolist() == [250 - 170, 0]


def _kernels_timeline(n, seed, in_order=False):
    rng = np.random.default_rng(seed)
    stream = rng.integers(1, 4, n)
    if in_order:  # each stream's starts in time order, streams interleaved (the lane-sorted path), ties included
        start = np.sort(rng.integers(0, 10 ** 6, n)) * 1000
    else:
        start = np.sort(rng.integers(0, 10 ** 9, n)) * np.where(rng.random(n) < 0.02, 0, 1)  # a few out of order
        start = start + (rng.random(n) < 0.5) * 10 ** 8  # two dense regions: some windows refine deeper
    dur = rng.integers(1, 20000, n)
    names = [f"k{i}" for i in rng.integers(0, 6, n)]
    return Timeline(make_table(EVENT_COLUMNS, {
        "kind": ["kernel"] * n, "name": names, "start_ns": start.tolist(), "dur_ns": dur.tolist(),
        "stream_id": stream.tolist(), "event_id": list(range(n)), "rank": [0] * n, "device_id": [0] * n,
        "source": ["t"] * n})).validate()


def _serial_durations(start, dur, stream, name, event_id):
    """Each event's duration with a stream treated as serial (the B07 rule of ../shared/cases/README.md): in start
    order per stream — equal starts shorter first, then by name, then id — an event ends at most where the next one
    starts."""
    order = sorted(range(len(start)), key=lambda i: (stream[i], start[i], dur[i], name[i], event_id[i]))
    out = np.array(dur, dtype=np.int64)
    for a, b in zip(order, order[1:]):
        if stream[a] == stream[b]:
            out[a] = min(int(dur[a]), max(int(start[b] - start[a]), 0))
    return out


@pytest.mark.parametrize("bins, fine", [(20, 1), (5, 2), (20, 0)])
@pytest.mark.parametrize("in_order", [False, True])
def test_stream_timeline_levels_are_the_exact_merges_of_their_bins(in_order, bins, fine, monkeypatch):
    # every segment of every level is the merge of exactly the events of its lane that start in its bin, and a
    # refined window at level l brings all of its lanes' segments (refined windows nest in refined parents); levels
    # up to ``fine`` are merged from the fine level's segments, deeper ones (and all, at fine 0) from the events
    from gpulens.analyzers import stream_timeline

    tl = _kernels_timeline(6000, 3, in_order)
    ev = tl.events
    taken = stream_timeline._lane_order(ev["start_ns"].to_numpy(), ev["stream_id"].to_numpy("int64"))
    assert (taken is not None) == in_order  # both paths checked
    if fine:
        assert stream_timeline._fine_level(6000, 3, bins, 99) == fine
    else:  # every level from the events
        monkeypatch.setattr(stream_timeline, "_fine_level", lambda *a: 0)
    res = StreamTimeline(max_segments=1500, bins=bins, min_bins=2).analyze(tl)
    out, s = res.table, res.summary
    assert s["bins"] == bins and s["levels"] >= 3
    ev = tl.events
    # GPU events are drawn with their effective duration (clipped at the next start on their stream: these random
    # kernels overlap), the stream-overrun repair every analyzer counts
    from gpulens.analyzers.context import context_of

    start, dur = ev["start_ns"].to_numpy(), context_of(tl).effective_ns.reindex(ev.index).to_numpy("int64")
    stream, name = ev["stream_id"].to_numpy("int64"), ev["name"].astype(str).to_numpy()
    dur = _serial_durations(start, dur, stream, name, ev["event_id"].to_numpy())  # drawn as every report counts it
    t0, bin0 = s["start_ns"], s["bin_ns"]
    for level in range(s["levels"]):
        rows = out[out["level"] == level]
        b_all = (start - t0) * BRANCH ** level // bin0
        windows = set(rows["window"].tolist())
        expect = {(int(st), int(b)) for st, b in zip(stream, b_all) if b // bins in windows}
        got = set()
        for r in rows.itertuples():
            b = (r.start_ns - t0) * BRANCH ** level // bin0
            got.add((r.stream_id, b))
            sel = np.flatnonzero((stream == r.stream_id) & (b_all == b))
            assert r.events == len(sel) and r.busy_ns == dur[sel].sum()
            assert r.end_ns == (start[sel] + dur[sel]).max() and r.start_ns == start[sel].min()
            assert r.name == name[sel[np.argmax(dur[sel])]]  # the first of the longest
        assert got == expect, level


def test_stream_timeline_window_lookup_is_isin():
    from gpulens.analyzers.stream_timeline import _in_windows

    rng = np.random.default_rng(4)
    for top in (5, 3000, 10 ** 9):  # small spans: the table; a wide one: np.isin
        w = rng.integers(0, top, 5000)
        refine = np.unique(rng.choice(w, 40))
        assert _in_windows(w, refine).tolist() == np.isin(w, refine).tolist()
    assert _in_windows(np.zeros(0, np.int64), refine).tolist() == []


def test_op_categories_per_category_equals_the_groupby_of_the_texts():
    from gpulens.analyzers.op_categories import _per_category

    rng = np.random.default_rng(21)
    n = 4000
    cat_values = np.array(["GEMM", "copy", np.nan, "attention"], dtype=object)
    op_values = np.array(["", "aten::mm", "aten::addmm", np.nan, "aten::bmm"], dtype=object)
    cat = rng.integers(0, len(cat_values), n)
    op = rng.integers(0, len(op_values), n)
    time = rng.integers(0, 50, n) * 1000  # coarse times: equal op totals happen (ties → first op text)
    got = _per_category(time, cat, cat_values, op, op_values)
    att = pd.DataFrame({"category": cat_values[cat], "op": op_values[op], "time_ns": time})
    g = att.groupby("category", sort=False)
    want = pd.DataFrame({"gpu_events": g.size(), "gpu_time_ns": g["time_ns"].sum(),
                         "ops": g["op"].agg(lambda s: int(s[s != ""].nunique()))})
    by_op = att[att["op"] != ""].groupby(["category", "op"])["time_ns"].sum()
    top = by_op.sort_values(ascending=False, kind="stable").reset_index().drop_duplicates("category")
    tops = dict(zip(top["category"], top["op"]))
    want["top_op"] = [str(tops.get(c, "")) for c in want.index]
    got = got.loc[list(want.index)]
    for c in ("gpu_events", "gpu_time_ns", "ops", "top_op"):
        assert got[c].tolist() == want[c].tolist(), c


def test_op_categories_top_op_tie_goes_to_the_first_op_text():
    from gpulens.analyzers.op_categories import _per_category

    cat_values = np.array(["GEMM"], dtype=object)
    op_values = np.array(["", "aten::mm", "aten::addmm"], dtype=object)
    # aten::mm 60 + 40 = 100 ns, aten::addmm 100 ns, unlinked 500 ns: a tie of 100 ns → "aten::addmm" < "aten::mm"
    t = _per_category(np.array([60, 100, 40, 500]), np.zeros(4, dtype=np.int64), cat_values,
                      np.array([1, 2, 1, 0]), op_values)
    assert t.loc["GEMM"].tolist() == [4, 700, 2, "aten::addmm"]


@pytest.mark.parametrize("spread", [1, 3, 1000])  # dense ids (a position table) … sparse ids (binary search)
def test_verdict_lookup_by_event_id_equals_reindex(spread):
    from gpulens.analyzers.verdicts import _lookup

    rng = np.random.default_rng(spread)
    ids = np.unique(rng.integers(0, 3000 * spread, 3000)) + 10
    s = pd.Series(rng.integers(0, 5, len(ids)), index=ids)
    keys = rng.integers(0, 3000 * spread + 40, 5000)  # found, absent, and beyond both ends
    values, found = _lookup(s, keys)
    want = s.reindex(keys)
    assert found.tolist() == want.notna().tolist()
    assert values[found].tolist() == want[want.notna()].astype("int64").tolist()


def test_verdict_sources_are_the_first_source_per_counter_event():
    from gpulens.analyzers.verdicts import _first_source, _sources_of_rows

    co = pd.DataFrame({"event_id": [5, 5, 7, 9, 9, 12], "source": pd.Categorical([None, "ncu", "rocprof", "ncu",
                                                                                   "rocprof", None])})
    codes, values = _first_source(co)
    # groupby("event_id").first(): first non-missing source per event; event 12 has none
    assert {int(i): values[c] for i, c in codes.items()} == {5: "ncu", 7: "rocprof", 9: "ncu"}
    # every row with a source (the rows read as they are), ids out of order too
    for ids in ([5, 5, 7, 9, 9, 12], [9, 5, 7, 5, 9, 12]):
        full = pd.DataFrame({"event_id": ids, "source": pd.Categorical(["a", "b", "c", "d", "e", "f"])})
        codes, values = _first_source(full)
        want = full.groupby("event_id")["source"].first()
        assert {int(i): values[c] for i, c in codes.items()} == {int(i): v for i, v in want.items()}
    row_codes = np.array([0, 1, -1, 1])
    assert _sources_of_rows(row_codes, np.array(["a", "b"], dtype=object), np.array([0, 2])) == {"a"}
    assert _sources_of_rows(row_codes, np.array(["a", "b"], dtype=object), np.array([1, 3])) == {"b"}
    got = _sources_of_rows(row_codes, np.array(["a", "b"], dtype=object), np.array([0, 2]), np.nan)
    assert "a" in got and len(got) == 2  # the missing value kept when asked for


def test_hierarchical_roofline_without_any_metric_it_reads_skips_as_before(tmp_path):
    import gpulens
    from tests.test_hierarchical_roofline import RAW

    # the same ncu CSV with the FLOP and byte columns renamed to metrics the hierarchical roofline does not read
    raw = RAW
    for m in ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
              "dram__bytes.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"):
        raw = raw.replace(m, "smsp__other_" + m.split("__", 1)[1])
    p = tmp_path / "raw.csv"
    p.write_text(raw)
    r = gpulens.analyze([p]).sources[0].results["hierarchical_roofline"]
    assert r.skipped_reason.startswith("no FLOP and per-level byte counters (ncu: ")
    assert not len(r.table)


def test_op_shape_calls_filter_is_the_regex_on_each_calls_op_text():
    import re

    from gpulens.analyzers import op_shapes
    from gpulens.analyzers.context import context_of

    tl = _kernels_timeline(10, 1)
    rng = np.random.default_rng(4)
    texts = np.array(["aten::mm", "aten::add", "aten::bmm", "aten::addmm", "aten::copy_"], dtype=object)
    code = rng.integers(0, len(texts), 3000) * 7  # sparse codes, one per op text
    calls = pd.DataFrame({"_op": code, "op": texts[code // 7], "gpu_time_ns": rng.integers(1, 100, 3000)})
    context_of(tl).memo("op_shape_calls", lambda: calls)
    rx = re.compile(r"aten::(mm|bmm|addmm)$")
    got = op_shapes._calls(tl, rx)
    assert got.index.tolist() == [i for i, o in enumerate(calls["op"]) if rx.match(o)]


@pytest.mark.parametrize("keys", [
    np.array([3.0, 1.0, np.nan, 3.0, 2.0, 1.0, 1.0, 3.0, 2.0, 2.0, 1.0]),  # step numbers (radix path)
    np.array([0.5, 1.0, 0.5, 1.0, 0.5, 1.0, 2.0]),  # not integral: the stable argsort
    np.array([-1.0, 4.0, -1.0, 4.0, -1.0, 4.0]),  # negative
])
def test_variation_groups_keep_each_groups_durations_in_row_order(keys):
    from gpulens.analyzers.variation import MIN_GROUP, _groups

    dur = np.arange(len(keys), dtype=float) * 10
    want = {}
    for k, d in zip(keys.tolist(), dur.tolist()):
        if k == k:
            want.setdefault(k, []).append(d)
    want = {k: v for k, v in sorted(want.items()) if len(v) >= MIN_GROUP}
    got = _groups(keys, dur)
    assert list(got) == list(want) and all(got[k].tolist() == want[k] for k in want)


@pytest.mark.parametrize("varying", [(), (2,), (3,), (0, 3)])
def test_key_codes_number_keys_in_sorted_order_whatever_varies(varying):
    from gpulens.analyzers.intervals import key_codes

    rng = np.random.default_rng(len(varying))
    n = 2000
    cols = [np.full(n, v, dtype=np.int64) for v in (0, 1, -1, -1)]
    for j in varying:
        cols[j] = rng.integers(-3, 40, n)
    uniq, inv = np.unique(np.stack(cols, axis=1), axis=0, return_inverse=True)  # the definition
    code, keys = key_codes(*cols)
    assert code.tolist() == inv.reshape(-1).tolist() and keys == [tuple(k) for k in uniq.tolist()]
    assert all(type(x) is int for k in keys for x in k)


def test_breakdown_every_event_hulls_use_the_effective_gpu_durations():
    from gpulens.analyzers._span import hulls_of
    from gpulens.analyzers.breakdown import _every_event
    from gpulens.analyzers.context import context_of

    # host op [0, 50); kernel [10, 400) overruns the next kernel [100, 150) on its stream: effective end 100;
    # the last event is the host op [120, 160) → hull (0, 160), not (0, 400)
    tl = Timeline(make_table(EVENT_COLUMNS, {
        "kind": ["cpu_op", "kernel", "kernel", "cpu_op"], "name": ["aten::mm", "k", "k2", "aten::add"],
        "start_ns": [0, 10, 100, 120], "dur_ns": [50, 390, 50, 40], "stream_id": [None, 7, 7, None],
        "event_id": [0, 1, 2, 3], "rank": [0] * 4, "device_id": [-1, 0, 0, -1], "source": ["t"] * 4})).validate()
    ctx = context_of(tl)
    gpu = ctx.gpu[["rank", "start_ns", "dur_ns"]].assign(dur_ns=ctx.effective_ns)
    every = _every_event(ctx, tl.events, gpu)
    s = every["start_ns"]
    assert hulls_of(every["rank"], s, s + every["dur_ns"]) == {0: (0, 160)}
    assert sorted(every["dur_ns"].tolist()) == [40, 50, 50, 90]


@pytest.mark.parametrize("names", [
    np.array(["gemm", "", np.nan, "relu"], dtype=object),  # a recorded '' name: the blank calls share its code
    np.array(["gemm", np.nan, "relu"], dtype=object),  # a missing name reads '': its code
    np.array(["gemm", "relu"], dtype=object),  # no such name: blank calls get −1
    np.array([], dtype=object),  # no names at all
])
def test_op_shape_kernel_texts_are_the_per_row_fill(names):
    from gpulens.analyzers.op_shapes import _kernel_texts

    rng = np.random.default_rng(5)
    kcode = rng.integers(-1, len(names), 500) if len(names) else np.full(500, -1)
    text, code = _kernel_texts(kcode, names)
    # the plain computation: per row the name (or ''), missing → '', then '' rows to the code of the first name that
    # reads '' once missing names are filled
    want = pd.Series(np.where(kcode >= 0, names[np.maximum(kcode, 0)] if len(names) else "", ""), dtype=object)
    want = want.where(want.notna(), "")
    blank = [i for i, n in enumerate(names) if not isinstance(n, str) or n == ""]
    want_code = np.where(want.to_numpy() == "", blank[0] if blank else -1, kcode)
    assert text.dtype == object and text.tolist() == want.tolist()
    assert code.tolist() == want_code.tolist()


def test_collectives_exposed_time_is_the_part_outside_its_gpus_compute_union():
    from gpulens.analyzers.collectives import _exposed

    rng = np.random.default_rng(17)
    n, m = 60, 400
    comm = pd.DataFrame({"rank": rng.integers(0, 2, n), "device_id": rng.integers(0, 2, n),
                         "start": rng.integers(0, 900, n)})
    comm["end"] = comm["start"] + rng.integers(0, 100, n)
    cs = rng.integers(0, 950, m)
    comp = {"rank": rng.integers(0, 3, m), "device_id": rng.integers(0, 2, m), "start": cs,
            "end": cs + rng.integers(0, 60, m)}
    comp["rank"][(comp["rank"] == 1) & (comp["device_id"] == 1)] = 2  # GPU (1, 1): no compute at all
    got = _exposed(comm, comp)
    for i, r in enumerate(comm.itertuples()):
        busy = np.zeros(1100, dtype=bool)  # 1-ns cells of the GPU's compute union, by hand
        for j in np.flatnonzero((comp["rank"] == r.rank) & (comp["device_id"] == r.device_id)):
            busy[comp["start"][j]:comp["end"][j]] = True
        assert got[i] == (r.end - r.start) - int(busy[r.start:r.end].sum()), i


def test_kernel_outliers_are_the_slowest_instances_by_hand(monkeypatch):
    from gpulens.analyzers import distributions

    rng = np.random.default_rng(8)
    n = 3000
    code = rng.integers(0, 4, n)
    dur = rng.integers(100, 200, n) * np.where(rng.random(n) < 0.01, 5, 1)  # a few slow instances
    dur[code == 3] = 0  # a kernel of zero median: no ratio, never an outlier
    dur[np.flatnonzero(code == 3)[:2]] = 50
    df = pd.DataFrame({"code": code, "rank": rng.integers(0, 2, n), "stream_id": pd.array([7] * n, dtype="Int64"),
                       "start_ns": np.arange(n) * 1000, "dur_ns": dur,
                       "step": pd.array(rng.integers(0, 3, n), dtype="Int64")})
    names = ["a", "b", "c", "d"]
    monkeypatch.setattr(distributions, "_hot_frame", lambda tl, res: (df, names))
    monkeypatch.setattr(distributions, "durations_unknown", lambda tl: False)
    monkeypatch.setattr(distributions, "trace_offsets", lambda tl, rank, start: start - 0)  # no Timeline here
    t = distributions.KernelOutliers(per_kernel=3).analyze(None).table
    want = []
    for c in range(4):
        rows = np.flatnonzero(code == c)
        med = float(np.median(dur[rows]))
        if med <= 0:
            continue
        slow = sorted((r for r in rows if dur[r] / med >= 1.5), key=lambda r: (-dur[r], r))[:3]
        want += [(dur[r] / med, int(dur[r]), names[c], int(r * 1000)) for r in slow]
    want.sort(key=lambda w: (-w[0], -w[1]))  # Python's sort is stable, as the analyzer's
    assert [(v, d, nm, s) for v, d, nm, s in zip(t["vs_median"], t["dur_ns"], t["name"], t["start_ns"])] == want
    assert len(want) > 3


def test_stream_timeline_host_lanes_read_missing_threads_as_minus_one():
    from gpulens.analyzers.stream_timeline import _Lanes

    rng = np.random.default_rng(3)
    n = 300
    kind = rng.choice(["kernel", "cpu_op", "runtime"], n)
    gpu = kind == "kernel"
    tid = [None if (not g and rng.random() < 0.2) else int(t) for g, t in zip(gpu, rng.integers(1, 4, n))]
    tl = Timeline(make_table(EVENT_COLUMNS, {
        "kind": kind.tolist(), "name": ["x"] * n, "start_ns": (np.arange(n) * 10).tolist(), "dur_ns": [5] * n,
        "stream_id": [7 if g else None for g in gpu], "tid": tid, "event_id": list(range(n)),
        "rank": rng.integers(0, 2, n).tolist(), "device_id": [0 if g else -1 for g in gpu],
        "source": ["t"] * n})).validate()
    lanes = _Lanes(tl)
    ev = tl.events
    host = np.flatnonzero(~gpu)
    rows = np.arange(lanes.ng, len(lanes))  # the host rows, in the events' order
    assert lanes.event_pos(rows).tolist() == host.tolist()
    keys = lanes.key_columns(rows)
    assert keys[:, 3].tolist() == ev["tid"].fillna(-1).astype("int64").to_numpy()[host].tolist()
    assert keys[:, 0].tolist() == ev["rank"].to_numpy()[host].tolist()
    assert lanes.start[rows].tolist() == ev["start_ns"].to_numpy()[host].tolist()
