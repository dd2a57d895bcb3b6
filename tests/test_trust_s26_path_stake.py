"""The critical path's time at stake is at most the GPU idle its class can remove (the host's CPU ops cannot recover
the GPU's waits on work already queued), not all of the GPU idle time.

Hand-made trace (µs): ProfilerStep#1 = [1000, 2000) on the host thread, one op aten::foo covering it with three
launch calls of 5 µs inside (1010, 1020, 1950):

* k1 on stream 7, 1020–1400 (launched 1010);
* k2 on stream 8, 1500–1900 (launched 1020: its call returned long before the GPU went idle at 1400, so the
  100 µs gap 1400–1500 is idle with work already queued — it waited on something else, not on the host);
* k3 on stream 7, 1960–1980 (launched 1950: the 60 µs gap 1900–1960 is the GPU waiting for the host).

No blocking call, so the path is the host thread's: runtime 3 × 5 = 15 µs and CPU ops 1000 − 15 = 985 µs.
GPU span 1020–1980 = 960 µs, busy 380 + 400 + 20 = 800 µs, idle 160 µs = 60 µs host + 100 µs queued.
Cutting CPU ops recovers at most the 60 µs the GPU waited for the host (before: 160 µs, all of the idle).
"""

from __future__ import annotations

import gpulens
from tests.dig_traces import KTrace
from tests.conftest import KINETO

MULTIRANK = str(KINETO / "multirank")  # committed copy of ../shared/traces/kineto/multirank_hta_trace_filter


def _trace(tmp_path):
    t = KTrace()
    t.annotation("ProfilerStep#1", 1000, 1000)
    op = t.op("aten::foo", 1000, 1000)
    t.launch(op, 1010, [("k1", 1020, 380)], dur=5)
    t.launch(op, 1020, [("k2", 1500, 400)], stream=8, dur=5)
    t.launch(op, 1950, [("k3", 1960, 20)], dur=5)
    return t.write(tmp_path / "t.json")


def _findings(path):
    return {f.key: f for f in gpulens.analyze([path]).sources[0].findings()}


def test_cpu_op_path_stake_is_the_host_wait_not_all_idle(tmp_path):
    f = _findings(_trace(tmp_path))
    cp = f["critical_path"]
    assert f["idle"].time_at_stake_ns == 160_000
    assert f["idle/host"].time_at_stake_ns == 60_000 and f["idle/queued"].time_at_stake_ns == 100_000
    assert "CPU ops hold 98.5 %" in cp.title  # 985 of 1000 µs = 98.5 % (units.pct_words: the tables' digits)
    assert cp.time_at_stake_ns == 60_000
    assert "60.00 µs of the 985.00 µs described" in cp.detail


def test_real_multirank_path_stake_within_its_cause():
    # 2 ranks: CPU ops hold 1.24 s of the summed steps, the GPUs waited 702.52 ms for the host and 622.23 ms on
    # queued work; before: 1.24 s at stake under the idle finding
    f = _findings(MULTIRANK)
    cp, host = f["critical_path"], f["idle/host"]
    # s39: led by the host share of the path (the headline's figure), the CPU ops named as its largest part
    assert cp.title.startswith("Critical path: host work holds") and "; CPU ops hold " in cp.title
    assert cp.time_at_stake_ns is not None and 0 < cp.time_at_stake_ns <= host.time_at_stake_ns
    assert f["idle/queued"].time_at_stake_ns > 0
