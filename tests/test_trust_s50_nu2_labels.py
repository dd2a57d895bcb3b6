"""Second new-user trial (s50): the Stalls & verdicts HTML data table showed the bottlenecks columns as bare
identifiers ("short kernel", "short launches", "idle other clock", "idle untimed", "steady idle %", "idle boundary
%"). Each is a reader-facing label (one set, :data:`gpulens.reports._format.LABELS`, that the console, Markdown and
HTML headers share), a percentage says what it is a percentage of, and the HTML header carries the column's doc as
its tooltip."""

from __future__ import annotations

import html as _html

import pytest

import gpulens
from gpulens import demo_trace
from gpulens.analyzers.bottlenecks import COLUMNS
from gpulens.reports import html
from gpulens.reports._format import column_label

RAW = {"short_kernel_ns": "short kernel", "short_launches": "short launches", "idle_other_clock_ns":
       "idle other clock", "idle_untimed_ns": "idle untimed", "steady_idle_pct": "steady idle %",
       "idle_boundary_pct": "idle boundary %"}


@pytest.mark.parametrize("col", sorted(RAW))
def test_label_is_words_not_the_identifier(col):
    label = column_label(col, COLUMNS[col])
    assert label.lower() not in (RAW[col], RAW[col].replace(" %", ""), col.replace("_", " "))
    if col.endswith("_pct"):  # a percentage names its whole: the span (the columns' docs divide by span_ns)
        assert "/ span_ns" in COLUMNS[col] and "% of span" in label
    if col.startswith("idle_") or col.startswith("steady_idle"):
        assert label.startswith("idle: ")  # beside "idle: host", "idle: steady state": one family of idle parts


def test_html_headers_show_the_labels_with_the_doc_as_tooltip():
    rep = gpulens.analyze([demo_trace()])
    page, bn = html.render(rep), rep.sources[0].results["bottlenecks"].table
    shown = [c for c in RAW if c in bn.columns]
    assert "short_launches" in shown and "steady_idle_pct" in shown  # the demo's bottlenecks table has them
    for col in shown:
        label = _html.escape(column_label(col, COLUMNS[col]), quote=False)
        title = _html.escape(COLUMNS[col])
        assert f'title="{title}">{label}</th>' in page, col
        assert f">{RAW[col]}</th>" not in page
