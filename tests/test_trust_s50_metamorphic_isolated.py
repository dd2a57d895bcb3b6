"""A kernel added an hour after a real trace's last event stretches every span: a warning must say so (session 50,
tests/metamorphic_s50.py ``far_kernel``), while a zero-length kernel inside the window changes no time and real
traces get no such warning (:mod:`gpulens.collectors._isolated`)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.collectors._isolated import isolated_split
from gpulens.reports import json_report
from tests import metamorphic_s50 as m

DATA = Path(__file__).resolve().parent / "data" / "kineto"
AMD = DATA / "hta_mi250_minitoy_rocm6.2.json.gz"
HOUR_NS = 3600 * 10 ** 9


def _summary(path: Path) -> tuple[dict, list[str]]:
    s = json_report.to_dict(gpulens.analyze([str(path)]))["sources"][0]
    return s["summary"], s["warnings"]


def test_far_kernel_is_named_with_the_span_it_stretches(tmp_path):
    doc = m.load(AMD)
    timed = [e for e in m.events(doc) if m._timed(e)]
    last_end = max(Decimal(e["ts"]) + Decimal(e.get("dur") or 0) for e in timed)
    base, _ = _summary(AMD)
    p = tmp_path / "far.json"
    p.write_text(m.dumps(m.add_kernel(doc, far=True)))
    summary, warnings = _summary(p)
    hit = [w for w in warnings if "from the other" in w or "after the other" in w]
    assert len(hit) == 1, warnings
    # the added kernel starts 1 h after the file's last end (the rest is the original run: its profiled window)
    assert "1 event lies 1.00 h or more after the other" in hit[0]
    assert f"(which span {gpulens.units.fmt_ns(base['window_ns'])})" in hit[0]
    added = [e for e in m.events(m.add_kernel(doc, far=True)) if e.get("name") == "far_kernel"][0]
    assert Decimal(added["ts"]) - last_end == 3600 * 10 ** 6
    # kept, not dropped (it may be real): the window now ends at its end, and the warning says so
    assert summary["window_ns"] > HOUR_NS
    assert f"stretches to {gpulens.units.fmt_ns(summary['window_ns'])}" in hit[0]


def test_zero_length_kernel_changes_no_time(tmp_path):
    base, _ = _summary(AMD)
    p = tmp_path / "zero.json"
    p.write_text(m.dumps(m.add_kernel(m.load(AMD), far=False)))
    new, warnings = _summary(p)
    assert new["kernel_count"] == base["kernel_count"] + 1
    for k in ("kernel_time_ns", "kernel_busy_ns", "gpu_busy_ns", "span_ns", "window_ns"):
        assert new[k] == base[k], k
    assert not any("after the other" in w for w in warnings)


@pytest.mark.parametrize("name", ["hta_a100_simple_add_two_streams.json.gz", "tracelens_h100_bert-small.json.gz",
                                  "aorta_mi350x_train_step.pt.trace.json"])
def test_real_traces_have_no_stray_warning(name):
    # the first has a 25 s host-only start and a 15.6 s idle gap: long pauses of many events are a phase, not strays
    tl = collect(DATA / name)
    assert not any("or more after" in w or "or more before" in w or "or more outside" in w for w in tl.meta.warnings)


def _split(starts, durs=None):
    s = np.asarray(starts, dtype=np.int64)
    return isolated_split(s, s + (np.asarray(durs, dtype=np.int64) if durs is not None else 500))


def test_split_counts_strays_on_each_side_by_hand():
    run = list(range(0, 100_000, 1000))  # 100 events, 1 µs apart, 500 ns each: extent 99.5 µs
    assert _split(run) is None
    # one event 1 s after the last end (99.5 µs): gap 1e9 − 99_000 − 500 ns; rest extent 99_500 ns
    assert _split(run + [10 ** 9]) == (0, 1, 10 ** 9 - 99_500, 99_500)
    # one before and one after: each hides the other unless the rest is judged without it
    assert _split([-10 ** 9] + run + [10 ** 9]) == (1, 1, 10 ** 9 - 99_500, 99_500)
    # a gap of exactly 10× the rest's extent is no stray (more than the ratio is)
    assert _split(run + [99_500 + 10 * 99_500]) is None
    # an early event whose own duration reaches the rest is part of it
    assert _split([-10 ** 9] + run, [2 * 10 ** 9] + [500] * 100) is None
    # a pause followed by a phase of many events is a phase, not strays (at most 1 % / 10 events apart)
    assert _split(run + [10 ** 9 + i for i in range(0, 50_000, 1000)]) is None
