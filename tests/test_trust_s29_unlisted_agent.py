"""rocprofv3 JSON: a kernel dispatch naming an agent handle that none of the trace's agent records lists is not a GPU
of its own. The old reader used the opaque handle as the device id, so the report listed a GPU 999 that the trace
does not have. Expected, by the trace's own agent list: with one GPU agent (node 1) the dispatch is on device 1;
with two GPU agents listed, it is counted in the no-device warning (1 row), and no device 999 appears either way."""
from __future__ import annotations

import gzip
import json

import pytest

from gpulens.collectors import collect
from tests.test_rocprofv3 import _tiny_v3_json


@pytest.mark.parametrize("two_gpus", [False, True])
def test_dispatch_on_an_unlisted_agent_is_no_phantom_gpu(tmp_path, two_gpus):
    p = tmp_path / "77_results.json.gz"
    _tiny_v3_json(p)
    with gzip.open(p, "rt") as fh:
        doc = json.load(fh)
    tool = doc["rocprofiler-sdk-tool"][0]
    disp = tool["buffer_records"]["kernel_dispatch"]
    assert len(disp) == 2
    disp[1]["dispatch_info"]["agent_id"] = {"handle": 999}  # listed agents: 111 (CPU), 222 (GPU, node 1)
    if two_gpus:
        tool["agents"].append(dict(tool["agents"][1], id={"handle": 333}, node_id=2, logical_node_type_id=1))
    with gzip.open(p, "wt") as fh:
        json.dump(doc, fh)
    tl = collect(p)
    k = tl.of_kind("kernel")
    said = [w for w in tl.meta.warnings if "no device (agent id" in w]
    assert len(k) == 2
    assert 999 not in set(tl.events["device_id"].dropna().astype(int))
    if two_gpus:
        assert len(said) == 1 and ": 1 GPU row" in said[0] and "naming no listed agent" in said[0]
    else:
        assert sorted(k["device_id"].astype(int)) == [1, 1] and not said
