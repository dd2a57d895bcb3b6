"""Column docs (the JSON ``columns``, shown as HTML tooltips) say "unknown" as the reports do, never pandas' "<NA>"
notation (s33 review)."""

from __future__ import annotations

import json

from gpulens.report import analyze
from gpulens.timeline.schema import COUNTER_COLUMNS, EVENT_COLUMNS
from tests.test_critical_path import _trace


def test_no_column_doc_uses_pandas_na_notation(tmp_path):
    from gpulens.reports.json_report import render

    doc = json.loads(render(analyze([_trace(tmp_path)])))
    texts = [str(v) for s in doc["sources"] for a in s["analyses"].values() for v in (a.get("columns") or {}).values()]
    assert texts and not [t for t in texts if "<NA>" in t]
    assert not [c.name for c in EVENT_COLUMNS + COUNTER_COLUMNS if "<NA>" in c.doc]
