"""Session 39, analyzer speed (issue 16): the helpers rewritten to read category codes give the figures the trace gives.

- idle-gap classes: :func:`classify_gaps` stores each gap's class as an int8 code beside its text (``cls_code``), and
  the analyzers select gaps by code (:func:`gap_class_mask`) — checked on a hand-built two-GPU trace whose gaps are
  worked out below, and on a gap table built by hand (no code column: the texts decide).
- ``ProfilerStep#N`` numbers from the category codes in use (:func:`step_numbers_in`): host ranges only for
  :func:`steps.step_numbers`, unused categories never counted.
- the overrun finding counts the overrunning kernels followed by a ``cudaLaunchKernelEx`` launch (the PDL-capable
  calls now picked by category codes): a hand-built stream with two overruns, one of them followed by such a launch.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import gpulens
from gpulens.analyzers._gap_codes import GAP_CLASSES, gap_class_codes, gap_class_mask
from gpulens.analyzers.bottlenecks import classify_gaps
from gpulens.analyzers.context import step_numbers_in
from gpulens.analyzers.steps import step_numbers
from gpulens.collectors import collect
from tests.test_trust_s38_speedb import _two_gpu_trace  # the two-GPU trace whose gaps are worked out below


def test_gap_class_codes_match_the_classes_worked_out_by_hand(tmp_path):
    p = tmp_path / "t.pt.trace.json"
    _two_gpu_trace(p)
    gaps = classify_gaps(collect(p))
    # GPU 0 (rounds of 518 µs from t = 0): each linked kernel (t+8, 50 µs) ends 400 µs before the orphan starts
    # (t+458; no launch call recorded: unattributed), each orphan ends 18 µs before the next round's linked kernel,
    # whose launch call (t, 5 µs) returned before the gap (launch): 6 + 5 gaps; GPU 1: one 995 µs gap between its
    # two unlinked kernels (0–5 and 1000–1005 µs: unattributed)
    launch, unattributed = gap_class_mask(gaps, "launch"), gap_class_mask(gaps, "unattributed")
    assert gaps.loc[launch, "dur_ns"].tolist() == [18_000] * 5
    assert sorted(gaps.loc[unattributed, "dur_ns"].tolist()) == [400_000] * 6 + [995_000]
    assert not gap_class_mask(gaps, ["host", "sync", "queued", "boundary"]).any()
    # the stored code of every gap is its class's position in GAP_CLASSES (after the boundary rule too)
    assert gaps["cls_code"].tolist() == [GAP_CLASSES.index(c) for c in gaps["cls"]]
    # several classes at once, and a word that is no class, which matches nothing
    assert gap_class_mask(gaps, ("launch", "unattributed")).sum() == 12
    assert not gap_class_mask(gaps, "kernel").any()


def test_gap_classes_of_a_table_without_codes_come_from_the_texts():
    gaps = pd.DataFrame({"cls": pd.Series(["launch", "boundary", None, "host", "launch", "other"], dtype=object)})
    assert gap_class_codes(gaps).tolist() == [1, 5, -1, 0, 1, -1]
    assert np.flatnonzero(gap_class_mask(gaps, "launch")).tolist() == [0, 4]
    assert np.flatnonzero(gap_class_mask(gaps, ["boundary", "host"])).tolist() == [1, 3]
    assert gap_class_codes(gaps.iloc[:0]).dtype == np.int8 and not len(gap_class_codes(gaps.iloc[:0]))


def test_step_numbers_read_only_the_names_in_use():
    # category "ProfilerStep#42" is declared but no row has it; "ProfilerStep#7x" and "MyProfilerStep#8" are no step
    # names (the pattern is anchored), a missing name is none
    names = pd.Series(pd.Categorical(
        ["ProfilerStep#3", "aten::mm", None, "ProfilerStep#12", "ProfilerStep#3", "ProfilerStep#7x",
         "MyProfilerStep#8"],
        categories=["MyProfilerStep#8", "ProfilerStep#12", "ProfilerStep#3", "ProfilerStep#42", "ProfilerStep#7x",
                    "aten::mm"]))
    assert step_numbers_in(names) == [3, 12]  # numeric order, each once
    assert step_numbers_in(names, np.array([False, True, True, True, False, False, False])) == [12]
    assert step_numbers_in(names.astype(object)) == [3, 12]  # not categorical: the same answer


def test_step_numbers_count_host_ranges_only(tmp_path):
    # host ProfilerStep#3..#5 (user annotations); Kineto's GPU mirror of step 5 and an extra one numbered 9 on the
    # GPU timeline: steps.step_numbers counts the host ranges, the boundary hint's reading every event
    ev = []
    for n, ts in ((3, 0), (4, 100), (5, 200)):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1, "ts": ts,
                   "dur": 90})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": ts + 10, "dur": 20,
                   "args": {"device": 0, "stream": 7}})
    for n, ts in ((5, 205), (9, 290)):
        ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{n}", "pid": 0, "tid": 7,
                   "ts": ts, "dur": 5, "args": {"device": 0}})
    p = tmp_path / "s.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    tl = collect(p)
    assert step_numbers(tl) == [3, 4, 5]
    assert step_numbers_in(tl.events["name"]) == [3, 4, 5, 9]


def test_overrun_finding_counts_the_pdl_launches_that_follow(tmp_path):
    # stream 7: A 0–100 µs, B starts at 50 µs (A overruns by 50 µs) launched with cudaLaunchKernelEx; C 200–300 µs,
    # D starts at 250 µs (C overruns by 50 µs) launched with plain cudaLaunchKernel: 2 overruns, 1 followed by a
    # PDL-capable launch
    ev = []
    kernels = (("A", 0, "cudaLaunchKernel"), ("B", 50, "cudaLaunchKernelEx"), ("C", 200, "cudaLaunchKernel"),
               ("D", 250, "cudaLaunchKernel"))
    for i, (name, ts, call) in enumerate(kernels):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": call, "pid": 1, "tid": 1, "ts": ts - 10, "dur": 4,
                   "args": {"correlation": 10 + i}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": 100,
                   "args": {"device": 0, "stream": 7, "correlation": 10 + i}})
    p = tmp_path / "o.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev}))
    f = next(f for f in gpulens.analyze([p]).sources[0].results["hotspots"].findings if f.key == "overruns")
    assert f.title.startswith("2 GPU events overrun")
    assert " 1 of them are followed by a kernel launched with cuLaunchKernelEx" in f.detail
