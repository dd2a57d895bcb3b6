"""Session-49 fuzzing (tests/fuzz_s49.py, ``gen_kineto``): one name for two figures. With several ranks, the host-only
time outside the GPU span was quoted as a share "of the 358.00 µs profiled window" — the ranks' windows SUMMED —
while the run summary's "profiled window" is the run's wall-clock window (268.12 µs). The summed figure is now named
as such ("of the 2 ranks' 2.00 ms summed profiled windows") in the finding, the verdict's basis and every report;
one rank keeps "the profiled window", which there is the same figure as the summary's.

Expected values are worked by hand from the events built here.
"""

from __future__ import annotations

import json
from pathlib import Path

import gpulens
from gpulens.analyzers._window_findings import window_words
from gpulens.cli import main


def _rank_files(d: Path, ranks: int) -> None:
    """Each rank: a 1,000 µs CPU op from 0 µs, a launch at 95 µs and one 100 µs kernel at 100 µs. Per rank the
    window is 1,000 µs (0 → 1,000), the GPU span 100 → 200 µs: 100 µs host-only before it, 800 µs after."""
    for r in range(ranks):
        ev = [{"ph": "X", "cat": "cpu_op", "name": "train_step", "pid": 9, "tid": 9, "ts": 0, "dur": 1000},
              {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 95, "dur": 3,
               "args": {"correlation": 1}},
              {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100, "dur": 100,
               "args": {"correlation": 1, "device": 0, "stream": 7}}]
        doc = {"traceEvents": ev}
        if ranks > 1:
            doc["distributedInfo"] = {"rank": r, "world_size": ranks}
        (d / f"rank{r}.json").write_text(json.dumps(doc))


def _texts(rep) -> list[str]:
    s = rep.sources[0]
    out = [f.title for f in s.results["bottlenecks"].findings] + [f.detail for f in s.results["bottlenecks"].findings]
    out += [v for v in s.results["verdicts"].summary.values() if isinstance(v, str)]
    return out


def test_summed_windows_of_several_ranks_are_named_a_sum(tmp_path):
    _rank_files(tmp_path, 2)
    rep = gpulens.analyze([tmp_path])
    s = rep.sources[0]
    assert s.results["breakdown"].summary["window_ns"] == 1_000_000  # the run's wall window: 0 → 1,000 µs
    bn = s.results["bottlenecks"].summary
    assert bn["window_ns"] == 2_000_000 and bn["window_ranks"] == 2  # two ranks' windows summed
    texts = _texts(rep)
    # 2 × (100 + 800) µs of 2 × 1,000 µs: 90.0 %
    assert any("1.80 ms (90.0 % of the 2 ranks' summed profiled windows)" in t for t in texts), texts
    assert any("(90.0 % of the 2 ranks' 2.00 ms summed profiled windows)" in t for t in texts), texts
    # the sum is never called "the profiled window", the name of the 1.00 ms wall figure
    assert not any("2.00 ms profiled window" in t or "of the profiled window" in t for t in texts), texts
    md = tmp_path.parent / f"{tmp_path.name}.md"
    assert main(["analyze", str(tmp_path), "--markdown", str(md), "--quiet", "--no-cache"]) == 0
    text = md.read_text()
    assert "2 ranks' 2.00 ms summed profiled windows" in text and "2.00 ms profiled window" not in text


def test_one_rank_keeps_the_profiled_window(tmp_path):
    _rank_files(tmp_path, 1)
    rep = gpulens.analyze([tmp_path / "rank0.json"])
    texts = _texts(rep)
    assert any("900.00 µs (90.0 % of the profiled window)" in t for t in texts), texts
    assert any("(90.0 % of the 1.00 ms profiled window)" in t for t in texts), texts
    assert window_words(1, 1_000_000) == "the 1.00 ms profiled window"
    assert window_words(3) == "the 3 ranks' summed profiled windows"
