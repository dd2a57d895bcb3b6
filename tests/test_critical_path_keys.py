"""The critical path's per-class rows (``_critical_paths._class_rows``) and their window × class keys
(``_window_keys``) on hand-made paths: sums, distinct events and top events counted by hand below."""

from __future__ import annotations

import numpy as np

from gpulens.analyzers._critical_walk import CLASSES, CODE
from gpulens.analyzers._critical_paths import Segments, _class_rows, _window_keys


def _seg(cls, ns, who, pos):
    a = np.cumsum([0] + ns)[:-1].astype(np.int64)
    return Segments({"a": a, "pos": np.array(pos, dtype=np.int64), "ns": np.array(ns, dtype=np.int64),
                     "_cls": np.array(cls, dtype=np.int8), "_who": np.array(who, dtype=np.int32)})


def test_window_keys_by_hand():
    cls = np.array([0, 5, 10], dtype=np.int8)
    assert _window_keys(cls, 3).tolist() == [3 * len(CLASSES) + 0, 3 * len(CLASSES) + 5, 3 * len(CLASSES) + 10]
    assert _window_keys(cls, 3).dtype == np.int64 and cls.tolist() == [0, 5, 10]  # input left as it was


def test_class_rows_by_hand():
    names = np.array(["opA", "opB", "k", ""], dtype=object)
    cpu, kern, idle = CODE["cpu_op"], CODE["kernel"], CODE["host_idle"]
    # window 0: opA 10 ns and opB 5 ns (cpu_op: 15 ns, 2 events, top opA), kernel k 20 ns, a zero-length idle
    # segment (no row); window 1: kernel k twice (two events at rows 4 and 5), 4 + 6 ns; window 2: empty
    w0 = _seg([cpu, cpu, kern, idle], [10, 5, 20, 0], [0, 1, 2, -1], [7, 8, 3, -1])
    w1 = _seg([kern, kern], [4, 6], [2, 2], [4, 5])
    w2 = _seg([], [], [], [])
    paths = [(0, 1, 35, w0), (0, 2, 10, w1), (0, 3, 0, w2)]
    assert _class_rows(paths, names) == [(0, cpu, 15, 2, "opA"), (0, kern, 20, 1, "k"), (1, kern, 10, 2, "k")]
