"""A Kineto trace cut after its events array is truncated: every event kept, the result partial.

Kind fixed (s26): a file cut just before its final ``}`` — every event intact, the top-level keys after the array
possibly too — was not flagged at all, with a self-contradicting warning ("malformed JSON outside the events (… the
file is truncated … and nothing in it could be read); … 60 events kept"). Now every event is kept, the input is
marked truncated at its last byte and the report's status is partial, saying that every event was kept. A file cut
before ``]}`` (flagged before) is checked beside it, as ``.json`` and ``.json.gz``.

Expected values come from the bytes written here (the events joined by hand, the cut offset counted).
"""

from __future__ import annotations

import gzip
import json

import pytest

from gpulens.collectors.kineto import KinetoCollector

from .test_trust_s26_kineto_damage import N, _event, _file, _kernels, _run


@pytest.mark.parametrize("gz", [False, True], ids=["json", "json.gz"])
@pytest.mark.parametrize("drop", ["}", "]}"])
def test_a_file_cut_after_its_events_keeps_every_event_and_is_partial(tmp_path, drop, gz):
    whole, _ = _file([_event(i) for i in range(N)])
    if drop == "}":
        cut = whole[:whole.rindex(b"}")]  # the trailing keys are there, the object's closing brace is not
    else:
        cut = whole[:whole.rindex(b"]")]  # every event, then neither the array's ] nor the trailing keys
    p = tmp_path / ("t.json.gz" if gz else "t.json")
    p.write_bytes(gzip.compress(cut) if gz else cut)
    tl = KinetoCollector().collect(p)
    assert _kernels(tl) == [f"k{i}" for i in range(N)]
    assert tl.meta.truncated and tl.meta.truncated_at == {str(p): len(cut)}
    assert not any("nothing in it could be read" in w or "outside the events" in w for w in tl.meta.warnings)
    if drop == "}":
        (w,) = [w for w in tl.meta.warnings if "closing '}'" in w]
        assert f"ends after {len(cut):,} bytes" in w and f"kept {N} complete events (the whole array)" in w
        assert int(tl.events["start_ns"].min()) == 1700000000000000000 + 1_000_500
    code, _ = _run("analyze", p, "-q", "--no-cache", "--json", tmp_path / "r.json")
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert code == 0 and src["status"] == "partial" and src["summary"]["kernel_count"] == N
    if drop == "}":
        assert f"every event kept ({N})" in src["partial_reason"], src["partial_reason"]
