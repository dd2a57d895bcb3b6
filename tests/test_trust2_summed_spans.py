"""Idle-cause findings over several GPUs state the denominator they divide by: the GPUs' summed spans.

Kind: the idle causes are summed over the GPUs and divided by the sum of their spans (as the parent "GPUs idle …
of their summed spans" finding), but each cause's title said "% of the GPU span" — on HTA's two-rank trace
"waiting for the host: 702.90 ms (28.6 % of the GPU span)", where no GPU has a 2.45 s span (each has ~1.23 s, the
wall span 1.23 s): 702.90 ms of one 1.23 s span would be 57 %.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from gpulens.report import analyze
from gpulens.reports import markdown

RANKS = Path(__file__).parent / "data" / "kineto" / "multirank"


def _summed_spans_ns() -> tuple[int, int]:
    """By hand from the two rank files: each GPU's span is its first GPU event's start to its last GPU event's end
    (kernels, copies, fills; ``ts``/``dur`` in µs) — rank 0 GPU 0: 1,222,847 µs, rank 1 GPU 1: 1,231,186 µs."""
    spans = []
    for f in sorted(RANKS.glob("*.json.gz")):
        ev = [e for e in json.loads(gzip.open(f).read())["traceEvents"]
              if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
        spans.append(max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev))
    return round(sum(spans) * 1000), len(spans)


def test_idle_cause_shares_name_the_summed_spans():
    summed, gpus = _summed_spans_ns()
    assert gpus == 2 and summed == 2_454_033_000
    rep = analyze([str(RANKS)])
    bn = rep.sources[0].results["bottlenecks"]
    host = [f for f in bn.findings if f.key == "idle/host"]
    assert len(host) == 1
    m = re.search(r"\(([\d.]+) % of the 2 GPUs' summed spans\)$", host[0].title)
    assert m, host[0].title
    assert float(m.group(1)) == round(100 * host[0].time_at_stake_ns / summed, 1)
    md = markdown.render(rep)
    assert "of the GPU span)" not in md and "of the 2 GPUs' summed spans)" in md


def test_run_verdict_basis_names_the_summed_spans():
    """The run verdict's basis on the same two-GPU trace: the shares it weighs are of the summed spans too (the idle
    causes and the computing time are sums over both GPUs)."""
    summed, _ = _summed_spans_ns()
    rep = analyze([str(RANKS)])
    src = rep.sources[0]
    basis = src.results["verdicts"].summary["basis"]
    # the waits on work already enqueued (a kernel starting long after its launch call returned, s35) lead
    queued = src.results["bottlenecks"].summary["idle_queued_ns"]
    comp = src.results["breakdown"].summary["computation_ns"]
    assert queued > comp  # it outweighs the computing time: dependency-bound is the dominant measured share
    assert basis.startswith(f"the timeline: dependency-bound (GPU idle with work queued) holds the largest measured "
                            f"share, {100 * queued / summed:.1f} % of the 2 GPUs' summed spans, against "
                            f"{100 * comp / summed:.1f} % computing"), basis
