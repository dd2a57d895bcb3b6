"""A table longer than the JSON report's cap ends with one row summing the rest: durations add up, positions do not
(a critical path's "other" row summed 221 segments' order numbers and clock offsets into 859 ms beside a 4.87 ms
window). The HTML note says what the JSON holds of such a table."""

from __future__ import annotations

import pandas as pd

from gpulens.analyzers.critical_path import SEGMENT_COLUMNS
from gpulens.reports._html_parts import table_html
from gpulens.reports.json_report import MAX_TABLE_ROWS, capped_records


def _segments(n: int) -> pd.DataFrame:
    # segment k: 10 ns long, starting at 10·k ns on the path
    return pd.DataFrame({"rank": 0, "step": 6, "order": range(n), "class": "kernel",
                         "offset_ns": [10 * k for k in range(n)], "dur_ns": 10, "event": "k"})


def test_other_row_sums_durations_not_positions():
    n = MAX_TABLE_ROWS + 221
    rec = capped_records(_segments(n), SEGMENT_COLUMNS)
    assert len(rec) == MAX_TABLE_ROWS + 1
    other = rec[-1]
    assert other["other_rows"] == 221 and other["dur_ns"] == 221 * 10  # by hand: 221 segments of 10 ns
    assert other["order"] is None and other["offset_ns"] is None  # a sum of positions is no position


def test_html_note_says_what_the_json_holds():
    long = table_html(_segments(MAX_TABLE_ROWS + 5), None, 200, docs=SEGMENT_COLUMNS)
    assert f"Showing the first 200 of {MAX_TABLE_ROWS + 5:,} rows" in long
    assert "the JSON report has all" not in long and f"the first {MAX_TABLE_ROWS:,} and one row summing" in long
    short = table_html(_segments(300), None, 200, docs=SEGMENT_COLUMNS)
    assert "Showing the first 200 of 300 rows (the JSON report has all)" in short
