"""Regressions of the session-46 fuzzing campaign (tests/fuzz_s46.py: semantic mutations that keep an input valid
but change its meaning, compared with the seed's own report): one fast test per fault kind.

1. Impossible share: the one-off launch rule (``one launch holds X % of its time``) divided a launch's *recorded*
   duration by the kernel's *overrun-clipped* time. One kernel of the MI300X replay trace (tests/data) given 100× the
   run's length (3.17 s, clipped to 2.74 ms by the next kernel on its stream) read "one launch holds 24473.9 % of its
   time (3.17 s …)". The verdict's per-launch figures now use the clipped durations, as the kernel's time does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import gpulens

DATA = Path(__file__).resolve().parent / "data"


# --- 1. a one-off launch's share is of the clipped durations --------------------------------------------------------
def test_one_off_launch_share_uses_clipped_durations(tmp_path):
    doc = json.loads((DATA / "kineto" / "hpctrain_mi300x_tracelens_replay.json").read_text())
    ks = sorted((e for e in doc["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    name = "miopenSp3AsmConv_v30_3_1_gfx9_fp16_dot2_edc_f2x3_stride1"
    (long,) = [e for e in ks if e["name"] == name and e["args"]["External id"] == 12]
    long["dur"] = 3173641.30859375  # µs: 100× the run
    after = [e for e in ks if e["ts"] > long["ts"] and e["args"]["stream"] == long["args"]["stream"]
             and e["pid"] == long["pid"]]
    clipped_us = after[0]["ts"] - long["ts"]  # the next kernel on its stream starts 2.74 ms later
    others = sorted(e["dur"] for e in ks if e["name"] == name and e is not long)  # no grid recorded: one grid
    # by hand: the clipped launch is 2,741.3 µs, 8.8× the 311.2 µs median of its other 14 launches — under the
    # one-off rule's 10× (a one-off launch lasts >= 10× the median of the others): no longer a one-off
    med = (others[6] + others[7]) / 2  # 14 others: (302.088 + 320.395) / 2
    assert len(others) == 14 and 8 < clipped_us / med < 10
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    src = gpulens.analyze(p).sources[0]
    texts = [t for f in src.findings() for t in (f.title, f.detail or "")]
    held = [m for t in texts for m in re.findall(r"one launch holds ([\d.]+) %", t, re.I | re.A)]
    assert held == []  # was ['24473.9'] (the recorded 3.17 s against the clipped total)
    assert src.summary["kernel_count"] == 29
