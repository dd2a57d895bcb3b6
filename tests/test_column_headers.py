"""Every table a report shows names each column once: two columns of one analysis may not share a header (the
critical-path table showed its step *duration* under the header "step", the label of the step *number* column,
so a reader saw a time where a step id belongs). Checked on every analysis of two real traces, through the one
labelling function every renderer uses (:func:`gpulens.reports._format.column_label`)."""

from __future__ import annotations

from collections import Counter

import pytest

from gpulens.analyzers import run_all
from gpulens.collectors import collect
from gpulens.reports._format import column_label

from .conftest import DATA


@pytest.mark.parametrize("trace", ["kineto/hta_alexnet_a100.json.gz", "kineto/aorta_mi350x_train_step.pt.trace.json"])
def test_no_two_columns_of_one_table_share_a_header(trace):
    results = run_all(collect(DATA / trace, cache=False))
    clashes = {}
    for name, r in results.items():
        labels = Counter(column_label(c, r.columns.get(c, "")) for c in r.table.columns if c in r.columns)
        dup = [lab for lab, n in labels.items() if n > 1]
        if dup:
            clashes[name] = dup
    assert clashes == {}


def test_step_duration_is_labelled_as_a_time_not_as_the_step():
    assert column_label("step", "ProfilerStep number [id]") != column_label("step_ns", "duration of the step [ns]")
