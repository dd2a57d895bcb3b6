"""Input notes the Timeline adds while it validates its events: which input file(s) a warning is about, and GPU
events too long to be measured times (kept, flagged).

* :func:`files_of` — ``"a.json, b.json and 3 more: "``, the lead of every input warning;
* :func:`warn_day_long` — one counted warning for GPU events lasting longer than :data:`DAY_NS`.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd

from gpulens.timeline.schema import GPU_KINDS
from gpulens.units import fmt_ns, plural

DAY_NS = 86_400_000_000_000  # ns in a day: no GPU operation of a profiled run lasts as long (warn_day_long)


def files_of(meta: Any, ranks: Iterable[Any]) -> str:
    """``"a.json, b.json and 3 more: "``: the input file(s) of these ranks (``meta``: a TimelineMeta, its ``sources``
    with ``rank`` and ``path``), to lead a warning as every input warning does — all inputs when the ranks name none;
    "" when no input has a path."""
    by_rank = {s.get("rank"): s.get("path") for s in meta.sources if s.get("path")}
    files = sorted({str(by_rank[r]) for r in ranks if r in by_rank}) or sorted({str(p) for p in by_rank.values()})
    return (", ".join(files[:2]) + (f" and {len(files) - 2} more" if len(files) > 2 else "") + ": ") if files \
        else ""


def warn_day_long(meta: Any, ev: pd.DataFrame) -> None:
    """Append to ``meta.warnings`` one counted warning for GPU events (kernels, collectives, copies, fills; ``ev``:
    the Timeline's events, ``dur_ns`` in ns) lasting longer than :data:`DAY_NS`, kept as recorded: no profiling
    session records one GPU operation running for a day, so a start or end timestamp of theirs is corrupt (a
    rocprofv3 ``Start_Timestamp`` of ``+5`` beside ends near 8.8e15 ns gives a kernel of 102 days, and a GPU span as
    long) — the GPU span and busy time that include them are not the run's. Durations past 2^53 ns are rejected
    before (``Timeline._reject_absurd``). Said once, however often the Timeline is validated."""
    dur = ev["dur_ns"].to_numpy()
    long = dur > DAY_NS
    if not long.any():
        return
    long &= ev["kind"].isin(GPU_KINDS).to_numpy(dtype=bool)
    if not long.any():
        return
    i = int(np.argmax(np.where(long, dur, -1)))
    n = int(long.sum())
    text = (f"{files_of(meta, ev.loc[long, 'rank'].tolist())}{plural(n, 'GPU event')} "
            f"last{'s' if n == 1 else ''} longer than a day (the longest {fmt_ns(int(dur[i]))}: "
            f"{str(ev['name'].iloc[i])[:80]}): no profiled GPU operation runs that long, so a start or end "
            "timestamp is likely corrupt — kept as recorded, and the GPU span and busy time include it")
    if text not in meta.warnings:
        meta.warnings.append(text)


def no_gpu_work_text(inputs: Iterable[Any]) -> str:
    """How a run without any GPU record is named where it is compared (``gpulens diff``, ``gpulens gate``): the
    collector's incomplete-capture sentence when an input holds launch calls without GPU records (case T06: the
    capture stopped early — not a run without GPU work), else ``"no GPU work (0 kernels)"``.

    Args:
        inputs: the run's input records (``TimelineMeta.sources`` or a JSON report source's ``inputs``): dicts
            whose ``incomplete_capture`` (str) a collector filled in; anything else is skipped.
    """
    broken = [i["incomplete_capture"] for i in inputs
              if isinstance(i, dict) and isinstance(i.get("incomplete_capture"), str) and i["incomplete_capture"]]
    return f"incomplete capture, 0 kernels recorded ({broken[0]})" if broken else "no GPU work (0 kernels)"
