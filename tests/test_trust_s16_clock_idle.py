"""Idle measured inside one clock domain while the GPU's work on another clock could fall in it is an upper bound,
not a measured idle: every report says "at most", and no verdict or time at stake rests on it (docs/bottlenecks.md
"Clock domains").

The real input: rocprofv3's SDK-docs CSVs (shared/traces/rocprof/v3_csv_sdk_docs), kernels on one time base
(t ≈ 8.8e15 ns) and the two copies on another (t ≈ 1.5e13 ns). The expected figures are worked out from the CSV
rows with plain Python below (the copies' gap and the kernels' union), not from gpulens.
"""

from __future__ import annotations

import csv
import json
import pytest

from gpulens.report import Report, analyze
from gpulens.reports import console, html, json_report, markdown
from gpulens.units import fmt_ns

from tests.conftest import SHARED

D = SHARED / "rocprof" / "v3_csv_sdk_docs"
pytestmark = pytest.mark.skipif(not D.is_dir(), reason="developer corpus (../shared/traces) not present")


def _intervals(name: str) -> list[tuple[int, int]]:
    with open(D / name, newline="") as fh:
        return [(int(r["Start_Timestamp"]), int(r["End_Timestamp"])) for r in csv.DictReader(fh)]


def _union(iv: list[tuple[int, int]]) -> int:
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(iv):
        if cur_e is None or s > cur_e:
            total += 0 if cur_e is None else cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s)


def _expected() -> dict[str, int]:
    k, c = _intervals("kernel_trace.csv"), _intervals("memory_copy_trace.csv")
    (h2d_s, h2d_e), (d2h_s, d2h_e) = sorted(c)
    busy_k, busy_c = _union(k), (h2d_e - h2d_s) + (d2h_e - d2h_s)
    idle_k = max(e for _, e in k) - min(s for s, _ in k) - busy_k   # gaps between the kernels, their own clock
    idle_c = d2h_s - h2d_e                                           # H2D end → D2H start: 2,494,042 ns
    return {"idle": idle_k + idle_c, "idle_c": idle_c, "busy_k": busy_k,
            # each domain's gaps may hold the other domain's work, up to its busy time
            "other": min(idle_c, busy_k) + min(idle_k, busy_c)}


@pytest.fixture(scope="module")
def src():
    return analyze(str(D), workers=1).sources[0]


def test_sdk_docs_idle_is_bounded_and_decides_nothing(src):
    x = _expected()
    assert x["idle_c"] == 2_494_042 and x["busy_k"] < x["idle_c"]
    bd = src.results["breakdown"].summary
    assert bd["idle_ns"] == x["idle"] and bd["idle_other_clock_ns"] == x["other"]
    assert bd["idle_bound"].startswith(f"at most {fmt_ns(x['idle'])}: up to {fmt_ns(x['other'])} of it may be GPU "
                                       "work written on another clock")
    # the verdict does not rest on the per-domain idle: no idle-unattributed run verdict, no overhead verdict
    vd = src.results["verdicts"].summary
    assert vd["run_verdict"] == "undetermined" and "not a measured idle" in vd["basis"]
    assert src.results["bottlenecks"].summary["verdict"] == "undetermined"
    assert vd["secondary_cause"] is None
    # nothing ranks on it: the idle root, its cause and the critical path's waits have no time at stake
    by_key = {f.key: f for f in src.findings()}
    assert by_key["idle"].time_at_stake_ns is None and by_key["idle"].title.startswith("GPU idle at most 63.3 %")
    assert by_key["idle/unattributed"].time_at_stake_ns is None
    assert "at most 2.50 ms" in by_key["idle/unattributed"].title
    assert by_key["critical_path"].time_at_stake_ns is None
    assert not any("idle" in r["category"] for r in vd["ranked"])


def test_sdk_docs_every_report_shows_the_bound(src):
    x = _expected()
    rep = Report([src])
    raw = console.render(rep, width=200)
    text = " ".join(raw.split())
    assert "Verdict: undetermined" in text and "GPU idle, cause not recorded" not in text.split("Findings")[0]
    assert f"│ idle                  │ ≤ {fmt_ns(x['idle'])} │ ≤ 63.3 % │" in raw
    assert f"idle at most {fmt_ns(x['idle'])}: up to {fmt_ns(x['other'])}" in text
    js = json.loads(json_report.render(rep))["sources"][0]
    assert js["summary"]["idle_ns"] == x["idle"] and js["summary"]["idle_other_clock_ns"] == x["other"]
    assert js["summary"]["idle_bound"].startswith("at most") and js["summary"]["verdict"] == "undetermined"
    md = markdown.render(rep)
    assert f"idle at most {fmt_ns(x['idle'])}" in md and "| 0 | 1 | 3.94 ms |" in md
    assert "idle-unattributed" not in md.split("### Time breakdown")[0]
    page = html.render(rep)
    assert f"≤ {fmt_ns(x['idle'])}" in page and f"idle at most {fmt_ns(x['idle'])}" in page
    assert f"up to {fmt_ns(x['other'])} of it may be GPU work written on another clock" in page


def test_one_clock_idle_is_measured_and_unchanged():
    # the nsys RTX 4090 streamSimple export: one clock, idle measured — no bound, nothing changes
    p = D.parents[1] / "nsys" / "lashi_rtx4090_streamSimple.sqlite"
    s = analyze(str(p), workers=1).sources[0]
    bd = s.results["breakdown"].summary
    assert bd["idle_other_clock_ns"] == 0 and bd["idle_bound"] is None
    assert bd["idle_ns"] == bd["device_span_ns"] - bd["busy_ns"]
    assert "≤ " not in console.render(Report([s]), width=200)
