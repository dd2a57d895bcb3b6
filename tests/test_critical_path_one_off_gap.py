"""A critical path held by waits says how much of it lies in the one-off gap the idle figures leave out (the
breakdown's warm-up / one-off ``boundary`` gaps): a new user read "GPU waits with no cause the trace shows hold
90 % of the traced time" beside "GPU idle 22.2 % of its span outside the one-off gap" (rocprof v1 gunrock MI300X).

Hand-built GPU-only trace (no launch calls: every wait is unattributed), times in µs: seven 10 µs kernels at
0, 12, 24, 36, then 1046, 1058, 1070. Gaps 2, 2, 2, 1000, 2, 2: the 1000 µs gap is ≥ 10 × the median (2) and
≥ 25 % of the idle time, the only such gap between kernels, with no blocking call or step around it: one-off.
The path tiles the 1080 µs span: 70 µs of kernels and 1010 µs of unattributed waits, 1000 µs of them in that gap.
"""

from __future__ import annotations

from gpulens.report import analyze
from tests.dig_traces import KTrace


def _trace(tmp_path, big_gap_us: float):
    t = KTrace()
    starts = [0, 12, 24, 36]
    last = 46 + big_gap_us
    starts += [last, last + 12, last + 24]
    for i, s in enumerate(starts):
        t.ev.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000 + s, "dur": 10,
                     "args": {"device": 0, "stream": 7, "correlation": 5000 + i}})
    return t.write(tmp_path / f"gap{int(big_gap_us)}.json")


def test_path_share_names_the_one_off_gap(tmp_path):
    r = analyze([_trace(tmp_path, 1000)], only=["breakdown", "bottlenecks", "critical_path"]).sources[0].results
    cp = r["critical_path"]
    assert cp.summary["class_ns"] == {"unattributed": 1_010_000, "kernel": 70_000}
    assert cp.summary["one_off_gap_ns"] == 1_000_000
    assert cp.findings[0].title.endswith("hold 93.5 % of the path window, 1.00 ms of it in the one-off idle time the idle "
                                         "figures leave out")


def test_no_note_without_a_one_off_gap(tmp_path):
    r = analyze([_trace(tmp_path, 2)], only=["breakdown", "bottlenecks", "critical_path"]).sources[0].results
    cp = r["critical_path"]
    assert "one_off_gap_ns" not in cp.summary and "one-off" not in cp.findings[0].title
