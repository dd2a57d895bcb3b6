"""The verdict sentence never says GPU computing "also holds most kernel time" (it always does).

Kind: when the runner-up share is GPU computing and the kernels' own class equals the secondary cause's key, the
sentence folded the kernel class into "GPU computing is the secondary share (11.1 % of the span; it also holds most
kernel time)" — an aside with no content, and the kernels' class (latency/occupancy-bound) was lost. For a rank
class (communication) the aside still carries information and stays.
"""

from __future__ import annotations

import gpulens
from gpulens.analyzers.bottlenecks import RANK_CLASSES
from gpulens.reports._answer import answer
from tests.conftest import KINETO


def test_gpu_computing_runner_up_keeps_the_kernel_class():
    src = gpulens.analyze([KINETO / "tracelens_mi300x_bert-small.json.gz"]).sources[0]
    v = src.results["verdicts"].summary
    # the premise, read off the analysis: runner-up = the kernels' class, and it is GPU computing, not a rank class
    assert v["secondary_cause"] == v["kernel_verdict"] and v["secondary_cause"] not in RANK_CLASSES.values()
    sentence = answer(src).sentence
    assert "it also holds most kernel time" not in sentence
    assert f"most kernel time is {v['kernel_verdict']}" in sentence
    assert "GPU computing is the secondary share" in sentence


def test_rank_class_runner_up_keeps_its_aside():
    src = gpulens.analyze([KINETO / "multirank"]).sources[0]
    v = src.results["verdicts"].summary
    assert v["secondary_cause"] == v["kernel_verdict"] and v["secondary_cause"] in RANK_CLASSES.values()
    assert "it also holds most kernel time" in answer(src).sentence
