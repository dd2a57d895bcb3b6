"""Input notes the Timeline adds while it validates its events: which input file(s) a warning is about, and GPU
events too long to be measured times (kept, flagged).

* :func:`files_of` — ``"a.json, b.json and 3 more: "``, the lead of every input warning;
* :func:`warn_day_long` — one counted warning for GPU events lasting longer than :data:`DAY_NS`;
* :func:`settle_day_long` — that warning completed with what the GPU span and busy time include of them.
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


def _day_long(ev: pd.DataFrame) -> np.ndarray:
    """Bool per row of ``ev``: a GPU event (kernel, collective, copy, fill) lasting longer than :data:`DAY_NS`."""
    long = ev["dur_ns"].to_numpy() > DAY_NS
    if long.any():
        long &= ev["kind"].isin(GPU_KINDS).to_numpy(dtype=bool)
    return long


def _day_long_lead(meta: Any, ev: pd.DataFrame, long: np.ndarray) -> str:
    """The part of the day-long warning the Timeline knows: the files, the count, the longest (name and recorded
    duration) and why it is suspect, up to "kept as recorded"."""
    dur = ev["dur_ns"].to_numpy()
    i = int(np.argmax(np.where(long, dur, -1)))
    n = int(long.sum())
    return (f"{files_of(meta, ev.loc[long, 'rank'].tolist())}{plural(n, 'GPU event')} "
            f"last{'s' if n == 1 else ''} longer than a day (the longest {fmt_ns(int(dur[i]))}: "
            f"{str(ev['name'].iloc[i])[:80]}): no profiled GPU operation runs that long, so a start or end "
            "timestamp is likely corrupt — kept as recorded")


def warn_day_long(meta: Any, ev: pd.DataFrame) -> None:
    """Append to ``meta.warnings`` one counted warning for GPU events (kernels, collectives, copies, fills; ``ev``:
    the Timeline's events, ``dur_ns`` in ns) lasting longer than :data:`DAY_NS`, kept as recorded: no profiling
    session records one GPU operation running for a day, so a start or end timestamp of theirs is corrupt (a
    rocprofv3 ``Start_Timestamp`` of ``+5`` beside ends near 8.8e15 ns gives a kernel of 102 days, and a GPU span as
    long). How much of them the GPU span and busy time include is the analyzers' stream clip and runaway rule's:
    :func:`settle_day_long` adds it once they ran. Durations past 2^53 ns are rejected before
    (``Timeline._reject_absurd``). Said once, however often the Timeline is validated."""
    long = _day_long(ev)
    if not long.any():
        return
    text = _day_long_lead(meta, ev, long)
    if not any(w.startswith(text) for w in meta.warnings):
        meta.warnings.append(text)


def settle_day_long(meta: Any, ev: pd.DataFrame, kept: pd.DataFrame) -> None:
    """Complete the warning of :func:`warn_day_long` (in ``meta.warnings``, in place) with what the GPU span and
    busy time include of the day-long events, once the stream clip and the runaway rule ran
    (:func:`gpulens.analyzers.intervals.repair_stream_overruns`: ``kept`` holds its ``effective_ns`` [ns] and
    ``runaway`` columns, indexed like the GPU rows of ``ev``). Each event is counted under one of: clipped at the
    next event on its stream; cut at the end of the rest of the run (the runaway rule); left no time (it starts
    after the rest of the run ended: its duration is unknown); included in full. No change when no GPU event lasts
    a day, or when the warning was completed already."""
    long = _day_long(ev)
    if not long.any():
        return
    lead = _day_long_lead(meta, ev, long)
    if lead not in meta.warnings:  # completed already, or not this Timeline's warning
        return
    rows = ev.index[long]
    dur = ev["dur_ns"].to_numpy()[long].astype("int64")
    eff = kept["effective_ns"].reindex(rows).fillna(-1).to_numpy("int64")
    eff = np.where(eff < 0, dur, eff)
    away = kept["runaway"].reindex(rows).fillna(False).to_numpy(dtype=bool) if "runaway" in kept \
        else np.zeros(len(rows), bool)
    n = len(rows)
    counts = {"unknown": int((away & (eff == 0)).sum()), "cut": int((away & (eff > 0)).sum()),
              "clipped": int((~away & (eff < dur)).sum())}
    counts["full"] = n - sum(counts.values())
    it = "it" if n == 1 else "them"
    if counts["full"] == n:
        tail = f", and the GPU span and busy time include {it} in full"
    elif counts["unknown"] == n:
        tail = (f"; the GPU span and busy time include none of {'its' if n == 1 else 'their'} recorded duration: "
                f"{'it starts' if n == 1 else 'they start'} after the rest of the run ended, so "
                f"{'its duration is' if n == 1 else 'their durations are'} unknown")
    else:
        parts = [f"{counts['clipped']} clipped at the next event on {'its' if counts['clipped'] == 1 else 'their'} "
                 "stream" if counts["clipped"] else "",
                 f"{counts['cut']} cut at the end of the rest of the run" if counts["cut"] else "",
                 f"{counts['unknown']} of unknown duration (starting after the rest of the run ended)"
                 if counts["unknown"] else "",
                 f"{counts['full']} in full" if counts["full"] else ""]
        tail = (f"; the GPU span and busy time include {fmt_ns(int(eff.sum()))} of {'its' if n == 1 else 'their'} "
                f"{fmt_ns(int(dur.sum()))} recorded ({', '.join(p for p in parts if p)})")
    meta.warnings[meta.warnings.index(lead)] = lead + tail


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


def recorded_no_device(inputs: Iterable[Any]) -> str | None:
    """The profiler's own record that torch saw no GPU (``gpulens profile`` on a CPU-only torch or a machine without a
    driver writes it into the trace, read back as an input's ``profile.no_gpu_device``), or None when no input says
    so. ``inputs``: ``TimelineMeta.sources`` or a JSON report source's ``inputs``."""
    for i in inputs:
        p = i.get("profile") if isinstance(i, dict) else None
        if isinstance(p, dict) and isinstance(p.get("no_gpu_device"), str) and p["no_gpu_device"]:
            return p["no_gpu_device"]
    return None


def no_gpu_reason(inputs: Iterable[Any]) -> str:
    """Why a run recorded no GPU work, as far as its inputs say (:func:`recorded_no_device`, with the step that
    helps), else "the workload failed or was not profiled" (nothing recorded says which)."""
    said = recorded_no_device(inputs)
    return f"{said} — profile on a machine whose torch sees a GPU" if said else \
        "the workload failed or was not profiled"
