"""Session 49, speed at 1M kernels (issue 16): the code paths made cheaper read what the trace says.

- ``_kineto_fast._holds`` tests the scanner matrix's type fields one row (a view) at a time instead of gathering
  them into a copy: a value in any one field, at any one event, is found; with a GPU-row mask, only on those rows.
- ``intervals._runaway_cut`` copies the host rows only when some are untimed: an untimed host row (negative
  duration) still bounds nothing, and timed ones still bound the runaway rule (hand-worked figures).
- ``_attribution._build`` reads the launching op's name, shapes and dtypes at the op's own Timeline row instead of
  a copy of every cpu_op row: each GPU event's op texts equal the Timeline row its op link names (a cpu_op; any
  other row, or none, gives no op), derived here by a plain dict of the Timeline's rows.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers.intervals import RUNAWAY_FACTOR, repair_stream_overruns

DATA = Path(__file__).parent / "data" / "kineto"


# -- _kineto_fast._holds -------------------------------------------------------------------------------------------
def test_holds_finds_one_planted_value_in_any_listed_row_and_column():
    from gpulens.collectors._kineto_fast import _holds

    rng = np.random.default_rng(7)
    fields, n = 9, 37
    rows = (1, 4, 5, 8)
    gpu = rng.random(n) < 0.4
    for r in range(fields):
        for col in range(n):
            m = np.full((fields, n), 2, dtype=np.int64)
            m[r, col] = 3
            assert _holds(m, rows, 3) is (r in rows), (r, col)
            # with the GPU mask: only a value on a GPU row of a listed field counts
            assert bool(_holds(m, rows, 3, gpu)) is (r in rows and bool(gpu[col])), (r, col)
    m = np.full((fields, n), 2, dtype=np.int64)
    assert not _holds(m, rows, 3) and not _holds(m, rows, 3, gpu) and not _holds(m, (), 3, gpu)


# -- intervals._runaway_cut ----------------------------------------------------------------------------------------
def _gpu() -> pd.DataFrame:
    """One stream: kernels [0, 10], [20, 30] and a last one starting at 40 that records 10 s."""
    return pd.DataFrame({
        "kind": pd.Categorical(["kernel"] * 3), "name": pd.Categorical(["a", "b", "c"]),
        "event_id": [0, 1, 2], "rank": np.zeros(3, dtype=np.int64), "device_id": np.zeros(3, dtype=np.int64),
        "stream_id": pd.array([7, 7, 7], dtype="Int64"), "start_ns": np.array([0, 20, 40], dtype=np.int64),
        "dur_ns": np.array([10, 10, 10_000_000_000], dtype=np.int64)})


def _host(starts: list[int], durs: list[int]) -> dict[str, np.ndarray]:
    return {"rank": np.zeros(len(starts), dtype=np.int64), "start_ns": np.array(starts, dtype=np.int64),
            "dur_ns": np.array(durs, dtype=np.int64)}


def test_runaway_cut_reads_timed_host_rows_and_skips_untimed_ones():
    # by hand: the rest of the run ends at 50 (a host call [0, 50]) and began at 0; the last kernel ends
    # 10 s − 10 ns past it, beyond 1000 × 50 ns: a runaway, cut at 50 → 10 ns of effective time
    assert RUNAWAY_FACTOR == 1000
    rep = repair_stream_overruns(_gpu(), _host([0], [50]))
    assert rep["effective_ns"].tolist() == [10, 10, 10] and rep["runaway"].tolist() == [False, False, True]
    # an untimed host row (negative duration) a second earlier bounds nothing: the same cut
    rep = repair_stream_overruns(_gpu(), _host([0, -1_000_000_000], [50, -5]))
    assert rep["effective_ns"].tolist() == [10, 10, 10] and rep["runaway"].tolist() == [False, False, True]
    # the same row timed (5 ns): the run began a second earlier, 1000 × ~1 s exceeds the 10 s — no runaway
    rep = repair_stream_overruns(_gpu(), _host([0, -1_000_000_000], [50, 5]))
    assert rep["effective_ns"].tolist() == [10, 10, 10_000_000_000] and not rep["runaway"].any()


# -- _attribution._build -------------------------------------------------------------------------------------------
def _compact(text: object) -> str:
    if not isinstance(text, str) or not text:
        return ""
    return json.dumps(json.loads(text), separators=(",", ":"))


def _inline_trace(tmp_path: Path) -> Path:
    """Three launches: one by a cpu_op with shapes, one whose external id only a user annotation carries, one with
    an external id nothing else has."""
    ev = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 20,
         "args": {"External id": 1, "Input Dims": [[4, 8], [8, 2]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "user_annotation", "name": "region", "pid": 1, "tid": 1, "ts": 130, "dur": 20,
         "args": {"External id": 2}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 105, "dur": 5,
         "args": {"External id": 1, "correlation": 11}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 135, "dur": 5,
         "args": {"External id": 2, "correlation": 12}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 160, "dur": 5,
         "args": {"External id": 3, "correlation": 13}},
    ] + [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 200 + 20 * i, "dur": 10,
          "args": {"External id": i + 1, "correlation": 11 + i, "device": 0, "stream": 7}} for i in range(3)]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    return p


@pytest.mark.parametrize("source", ["inline", "hta_a100_simple_add_two_streams.json.gz",
                                    "aorta_mi350x_train_step.pt.trace.json"])
def test_gpu_events_op_texts_are_their_linked_cpu_op_rows(tmp_path, source):
    from gpulens.analyzers._attribution import attribution_codes
    from gpulens.analyzers._optree import gpu_op_links
    from gpulens.analyzers.context import context_of
    from gpulens.collectors import collect

    path = _inline_trace(tmp_path) if source == "inline" else DATA / source
    if not path.exists():
        pytest.skip(f"{source} is not in tests/data")
    tl = collect(path)
    out, _ = attribution_codes(tl)
    ev = tl.events
    by_id = {int(i): (str(k), n, d, t) for i, k, n, d, t in zip(ev["event_id"], ev["kind"].astype(str),
                                                                ev["name"], ev["input_dims"], ev["input_types"])}
    links = gpu_op_links(tl)
    assert links.index.equals(context_of(tl).gpu.index) and out.index.equals(links.index)
    want_op, want_shapes, want_types = [], [], []
    for op in links.tolist():
        row = by_id.get(int(op)) if not pd.isna(op) else None
        if row is None or row[0] != "cpu_op":  # no op, or a link to a row that is no cpu_op: no op texts
            want_op.append(""), want_shapes.append(""), want_types.append("")
        else:
            want_op.append(str(row[1])), want_shapes.append(_compact(row[2])), want_types.append(_compact(row[3]))
    assert out["op"].astype(object).tolist() == want_op
    assert out["shapes"].astype(object).tolist() == want_shapes
    assert out["dtypes"].astype(object).tolist() == want_types
    if source == "inline":  # by hand: k0 is aten::mm's; k1's external id is an annotation's; k2's is no event's
        assert want_op == ["aten::mm", "", ""] and want_shapes == ["[[4,8],[8,2]]", "", ""]
        assert want_types == ['["float","float"]', "", ""]


def test_an_op_link_to_a_row_that_is_no_cpu_op_gives_no_op_texts(tmp_path):
    """The op links handed to the attribution (memoised on the analysis context, as gpu_op_links memoises them)
    name aten::mm's row, the user annotation's row and an id no event has: only the cpu_op's texts are read, as
    the look-up among the cpu_op rows alone gave them."""
    from gpulens.analyzers._attribution import attribution_codes
    from gpulens.analyzers.context import context_of
    from gpulens.collectors import collect

    tl = collect(_inline_trace(tmp_path))
    ev = tl.events
    ctx = context_of(tl)
    ids = dict(zip(ev["name"].astype(str), ev["event_id"].astype(int)))
    links = pd.Series(pd.array([ids["aten::mm"], ids["region"], 10 ** 9], dtype="Int64"), index=ctx.gpu.index)
    ctx.memo("gpu_op_links", lambda: links)
    out, _ = attribution_codes(tl)
    assert out["op"].astype(object).tolist() == ["aten::mm", "", ""]
    assert out["shapes"].astype(object).tolist() == ["[[4,8],[8,2]]", "", ""]
    assert out["op_event_id"].tolist() == links.tolist()
