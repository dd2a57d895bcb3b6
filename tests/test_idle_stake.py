"""The idle finding's time at stake is the recoverable idle — the idle time outside the warm-up / one-off gap the
verdict leaves out — and its next step points at a recurring cause, never at that gap (one definition shared with
the verdict; every reporter shows the same figure).

Expected values are computed here from the trace files themselves: the GPU intervals (Kineto ``kernel`` /
``gpu_memcpy`` / ``gpu_memset`` events; nsys ``CUPTI_ACTIVITY_KIND_KERNEL`` / ``MEMCPY`` / ``MEMSET`` rows) are merged
into busy segments, the gaps between them summed, and the one-off gap is the largest gap when it is at least 10 × the
median of the others and at least a quarter of the idle time (the documented boundary rule).
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
import statistics
from decimal import Decimal
from pathlib import Path

import pytest

import gpulens
from gpulens.reports import console, html, json_report, markdown
from gpulens.units import fmt_ns

TRACES = Path("/work/shared/traces")


def _merged(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def _kineto_intervals(path: Path):
    op = gzip.open if path.suffix == ".gz" else open
    with op(path, "rt") as fh:  # µs as exact decimals: a float µs timestamp of 7.5e12 loses its last ns digit
        ev = json.load(fh, parse_float=Decimal)["traceEvents"]
    return [(round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in ev
            if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]


def _nsys_intervals(path: Path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [tuple(r) for t in ("KERNEL", "MEMCPY", "MEMSET")
                for r in con.execute(f"SELECT start, end FROM CUPTI_ACTIVITY_KIND_{t}")]
    finally:
        con.close()


def _expected(intervals):
    """(idle, one-off gap, recoverable idle) [ns] by the boundary rule, from merged GPU intervals."""
    seg = _merged(intervals)
    gaps = [b[0] - a[1] for a, b in zip(seg, seg[1:])]
    idle, big = sum(gaps), max(gaps)
    others = list(gaps)
    others.remove(big)
    assert big >= 10 * statistics.median(others) and big >= 0.25 * idle  # these inputs do have a one-off gap
    return idle, big, idle - big


CASES = [("kineto/hta_alexnet_a100.json.gz", _kineto_intervals),
         ("kineto/hta_mi250_minitoy_rocm6.2.json.gz", _kineto_intervals),
         # (aorta_mi350x_train_step: its largest gap lies inside ProfilerStep#2, so it is the step's own time,
         # counted — tests/test_pause_inside_a_step.py)
         ("nsys/fuser_h200_nsys2024.6_report1.sqlite", _nsys_intervals)]


@pytest.mark.parametrize("name,reader", CASES, ids=[c[0].split("/")[1] for c in CASES])
def test_idle_stake_is_the_recoverable_idle_in_every_report(name, reader, tmp_path):
    path = TRACES / name
    if not path.exists():
        pytest.skip("shared trace not available")
    idle, big, recoverable = _expected(reader(path))
    rep = gpulens.analyze([path])
    s = rep.sources[0]
    root = next(f for f in s.findings() if f.key == "idle")
    bn = s.results["bottlenecks"].summary
    assert bn["recoverable_idle_ns"] == recoverable          # the same definition the verdict's span uses
    assert bn["steady_span_ns"] - bn["busy_ns"] == recoverable
    # a host wait mostly of one-off set-up calls (AlexNet's cudaMalloc, nsys fuser's module loading) leaves them
    # out of the stake too, as the run headline's "at stake in steady state" (tests/test_trust_s46_w2dash.py)
    setup = bn["idle_host_setup_ns"] if bn["idle_host_setup_ns"] >= 0.5 * bn["idle_host_ns"] else 0
    recoverable -= setup
    assert root.time_at_stake_ns == recoverable
    # the one-off gap is named as a note (its time in the title), never as the next step
    assert fmt_ns(big) in root.title
    assert fmt_ns(big) not in root.action and "Start with the largest cause" in root.action
    note = next(f for f in s.findings() if f.key == "idle/boundary")
    assert note.time_at_stake_ns is None and note.category == "profiling-window"
    # no idle-cause child claims more than the recoverable idle
    assert all((f.time_at_stake_ns or 0) <= recoverable for f in s.findings() if f.parent == "idle")

    shown = fmt_ns(recoverable)
    text = console.render(rep, width=200)
    head = text.split("\n\ninput")[0]                        # the answer block
    # the idle finding: its title names the one-off gap's window, or leads with the steady state when set-up calls
    # are left out too (tests/test_trust_s50_truth_left_out.py)
    line = next(ln for ln in head.splitlines() if "GPU idle" in ln and ("span" in ln or "steady state" in ln))
    assert re.match(rf"\s*\d+\.\s+{re.escape(shown)}\s", line), line
    assert fmt_ns(idle) + " " not in line.split("GPU idle")[0]
    js = json.loads(json_report.render(rep))["sources"][0]["findings"]
    assert next(f for f in js if f["key"] == "idle")["time_at_stake_ns"] == recoverable
    md = markdown.render(rep)
    md_line = next(ln for ln in md.splitlines() if re.search("GPU idle (in steady state|.*outside the one-off gap)", ln))
    assert shown in md_line and fmt_ns(idle) not in md_line
    page = html.render(rep)
    row = re.search(r'<tr class="sev-\w+">(?:(?!</tr>).)*?(?:outside the one-off gap|GPU idle in steady state)'
                    r'(?:(?!</tr>).)*</tr>', page, re.S)
    assert row and f'data-v="{recoverable}"' in row.group(0) and shown in row.group(0)


def _write(tmp_path, events):
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": events}))
    return p


def setup_gap_events() -> list[dict]:
    """Kineto events of 8 kernels of 10 µs, each launched by a 5 µs ``cudaLaunchKernel`` after 40 µs of a
    ``cudaMalloc`` (host work) and starting 5 µs after its call ends; before kernel 5 the host runs 4,985 µs of
    ``cudaMalloc`` (a one-off stall): gaps 40 + 5 + 5 = 50 µs (six) and 5,000 µs (one)."""
    T0, ev, t = 1000, [], 0
    for i in range(8):
        host = 4_990 if i == 5 else 40
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMalloc", "pid": 9, "tid": 9, "ts": T0 + t,
                   "dur": host - 5 if i == 5 else host})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9,
                   "ts": T0 + t + host, "dur": 5, "args": {"correlation": i}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": T0 + t + host + 10, "dur": 10,
                   "args": {"device": 0, "stream": 7, "correlation": i}})
        t += host + 10 + 10
    return ev


def test_one_off_gap_between_kernels_is_a_note_and_host_gaps_name_their_calls(tmp_path):
    """Hand-made: 8 kernels of 10 µs, each launched by a 5 µs ``cudaLaunchKernel`` after 40 µs of a
    ``cudaMalloc`` (host work) and starting 5 µs after its call ends: the gaps before kernels 1..7 are
    40 + 5 + 5 = 50 µs each, except one of 5,000 µs (a one-off stall) before kernel 5. Idle = 6 × 50 + 5,000 µs;
    recoverable = 300 µs, all of it host waits."""
    ev = setup_gap_events()
    # gaps: kernel i ends at start_i + 10; kernel i+1 starts host_{i+1} + 10 later → gap = host_{i+1} + 10
    gaps = [(4_990 if i == 5 else 40) + 10 for i in range(1, 8)]
    assert gaps.count(50) == 6 and 5_000 in gaps
    src = gpulens.analyze([_write(tmp_path, ev)]).sources[0]
    root = next(f for f in src.findings() if f.key == "idle")
    # the 6 host waits of 50 µs hold 40 µs of cudaMalloc each, one-off set-up: 6 × 10 µs at stake in steady state
    assert root.time_at_stake_ns == 6 * (50_000 - 40_000)
    assert root.title.startswith("GPU idle in steady state: 60.00 µs at stake (every idle cause) — by cause: 60.00 µs "
                                 "waiting for the host; left out, as by the verdict: 240.00 µs of one-off set-up calls")
    assert root.title.endswith("and 5.00 ms in a single one-off gap (warm-up, tail or a stall: profiling-window note)")
    assert "cudaMalloc" in root.action and "6 gaps" in root.action
    host = next(f for f in src.findings() if f.key == "idle/host")
    # its share is of the steady span (first kernel start → last kernel end, minus the one-off gap)
    steady = (sum(gaps) + 8 * 10 - 5_000) * 1000
    assert f"{100 * 300_000 / steady:.1f} %" in host.title
