"""Second new-user trial (s50): every key a real report writes in ``sources[].summary`` is documented in
docs/report-schema.md (before: ``kernel_effective_ns``, ``kernel_runaway_events``, ``timed_kernel_time_ns``,
``busy_bound``, ``untimed_*``, ``idle_untimed_ns`` were written but not described)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gpulens
from gpulens.reports.json_report import to_dict

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "report-schema.md").read_text(encoding="utf-8")
#: real traces of different kinds: an A100 Kineto trace with devices, one naming no GPU, a rocprof CSV
TRACES = ["tests/data/kineto/hta_alexnet_a100.json.gz", "tests/data/kineto/hta_trace_compare_base.json.gz"]


def _documented(key: str) -> bool:
    """A key is documented when the schema names it as a JSON key ("key") or in backticks (`key`)."""
    return f'"{key}"' in DOC or f"`{key}`" in DOC


def test_the_check_tells_a_documented_key_from_an_undocumented_one():
    assert _documented("kernel_time_ns") and _documented("span_ns")
    assert not _documented("kernel_time_nsx")


@pytest.mark.parametrize("trace", TRACES)
def test_every_summary_key_of_a_real_report_is_documented(trace):
    doc = to_dict(gpulens.analyze([str(ROOT / trace)]))
    keys = {k for s in doc["sources"] for k in s["summary"]}
    assert {"kernel_time_ns", "kernel_effective_ns", "busy_bound"} <= keys  # the report does write them
    assert sorted(k for k in keys if not _documented(k)) == []


def test_documented_meaning_says_the_unit():
    """Each newly documented key's line says its unit (ns / count) or its values."""
    for key, unit in (("kernel_effective_ns", "[ns]"), ("kernel_runaway_events", "[count]"),
                      ("timed_kernel_time_ns", "[ns]"), ("untimed_launches", "[count]"),
                      ("idle_untimed_ns", "[ns]"), ("untimed_gpu_work", "[count]")):
        m = re.search(rf'"{key}": [^\n]*\n(?:\s{{20,}}[^\n]*\n)*', DOC)
        assert m and unit in m.group(0), key
    assert re.search(r'"busy_bound": "at least" \| "unknown" \| null', DOC)
