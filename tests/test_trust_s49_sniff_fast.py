"""The Kineto fast path of sniffing (:mod:`gpulens.collectors._sniff_fast`, issue 16): a file whose head declares the
Kineto trace object is given to the Kineto collector without importing the other collectors — and every input is
given to the collector that offering it to every collector in priority order picks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import gpulens.collectors as collectors
from gpulens.collectors import sniff
from gpulens.collectors._io import read_head
from gpulens.collectors._sniff_fast import declared_kineto
from gpulens.collectors.base import registry

DATA = Path(__file__).parent / "data"
SHARED = [Path("/work/shared/cases"), Path("/work/shared/traces")]


def _inputs() -> list[Path]:
    roots = [DATA] + [r for r in SHARED if r.is_dir()]
    return sorted(f for r in roots for f in r.rglob("*") if f.is_file() and f.suffix != ".md")


def _in_order(p: Path, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The collector sniff picks by offering the file to every collector in priority order (no fast path)."""
    with monkeypatch.context() as m:
        m.setattr(collectors, "declared_kineto", lambda path, head: None)
        c = sniff(p)
    return None if c is None else c.name


def test_every_input_gets_the_collector_the_priority_order_gives(monkeypatch):
    fast = 0
    for p in _inputs():
        got = sniff(p)
        assert (None if got is None else got.name) == _in_order(p, monkeypatch), p
        fast += declared_kineto(p, read_head(p)) is not None
    assert fast >= 5  # the corpus holds Kineto traces that take the fast path (else this test proves nothing)


def test_no_collector_sniffed_before_kineto_claims_a_fast_path_head():
    kineto = registry()["kineto"]
    earlier = [c() for c in registry().values() if (c.priority, c.name) < (kineto.priority, kineto.name)]
    heads = [(p, read_head(p)) for p in _inputs()]
    taken = [(p, h) for p, h in heads if declared_kineto(p, h) is not None]
    assert taken
    for p, h in taken:
        assert [c.name for c in earlier if c.sniff(p, h)] == [], p


@pytest.mark.parametrize("extra, cousin", [
    ({"BeginNs": "10", "DurationNs": "5"}, "rocprof_v1_json"),      # rocprof v1 results.json
    ({"rocprofiler-sdk-tool": [{"metadata": {}}]}, "rocprofv3_json"),  # its record in the first 4 KiB
])
def test_a_cousin_marker_after_a_kineto_first_key_goes_to_the_cousin(tmp_path, monkeypatch, extra, cousin):
    doc = {"schemaVersion": 1, **extra, "traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": 2, "pid": 0,
                                                            "tid": 0, **extra}]}
    p = tmp_path / "results.json"
    p.write_text(json.dumps(doc))
    assert declared_kineto(p, read_head(p)) is None
    want = _in_order(p, monkeypatch)
    assert want == cousin  # the priority order itself gives it to the cousin, not to Kineto
    assert sniff(p).name == want


def test_a_kineto_trace_is_sniffed_without_importing_the_other_collectors():
    trace = next(p for p in _inputs() if p.name.endswith((".pt.trace.json", ".pt.trace.json.gz"))
                 and declared_kineto(p, read_head(p)) is not None)
    code = ("import sys; from gpulens.collectors import sniff; c = sniff(sys.argv[1]); "
            "print(c.name, sorted(m for m in sys.modules if m.startswith('gpulens.collectors.') "
            "and not m.rsplit('.', 1)[1].startswith('_')))")
    out = subprocess.run([sys.executable, "-c", code, str(trace)], capture_output=True, text=True, check=True).stdout
    name, mods = out.split(" ", 1)
    assert name == "kineto"
    assert eval(mods) == ["gpulens.collectors.base", "gpulens.collectors.kineto"]
