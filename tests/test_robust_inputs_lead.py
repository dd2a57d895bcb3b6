"""Messages for files that are no trace: what the file is, in one line naming it (lead, ninth session)."""

import gzip
import json
import os

import pytest

from gpulens.collectors import collect
from gpulens.errors import UnknownFormatError


def test_a_gpulens_report_given_as_a_trace_is_named_as_one(tmp_path):
    p = tmp_path / "run.json"
    p.write_text(json.dumps({"schema_version": 2, "tool": {"name": "gpulens", "version": "0.1.0"}, "sources": []},
                            indent=1))
    with pytest.raises(UnknownFormatError, match="a gpulens JSON report, not a trace.*gpulens diff"):
        collect(p)


def test_gzip_of_no_trace_says_what_it_holds_is_not_a_trace(tmp_path):
    p = tmp_path / "garbage.json.gz"
    p.write_bytes(gzip.compress(os.urandom(4096)))
    with pytest.raises(UnknownFormatError) as e:
        collect(p)
    msg = str(e.value)
    assert "garbage.json.gz" in msg and "gzip-compressed, but what it holds is not a recognised trace format" in msg
    assert "\n" not in msg and "rocprof_v1_dir" not in msg  # one line, in formats users know, not collector ids


def test_a_cut_trace_whose_part_read_has_no_gpu_event_claims_no_figures(tmp_path):
    """The partial-result line said 'the figures cover the part read' beside a verdict saying the part read holds
    no GPU event (fresh-user walk): with nothing to show it says so."""
    from gpulens.report import analyze
    from gpulens.reports._answer import partial_reason
    from tests.conftest import KINETO

    text = gzip.decompress((KINETO / "hta_alexnet_a100.json.gz").read_bytes())
    # host events only: cut before the first GPU event (kernel, copy or fill) the file holds
    first_gpu = min(text.find(f'"cat": "{c}"'.encode()) % len(text) for c in ("kernel", "gpu_memcpy", "gpu_memset"))
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: first_gpu - 50])
    s = analyze([cut]).sources[0]
    assert s.status == "no_gpu_work" and s.timeline.meta.truncated
    why = partial_reason(s)
    assert "no GPU event" in why and "figures cover" not in why
    whole = analyze([KINETO / "hta_alexnet_a100.json.gz"]).sources[0]
    assert partial_reason(whole) == ""
