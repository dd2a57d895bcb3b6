"""Reading one side of ``gpulens diff``: a trace file, a folder of rank traces, or a ``gpulens analyze --json``
report (its ``analyses.kernel_groups`` table; older reports without it fall back to ``analyses.hotspots``, which
has kernels but no operators, shapes or ranks).

A report with several sources (repeats of one run) gives their mean per group.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gpulens._inputs import check_input
from gpulens.analyzers._attribution import kernel_key
from gpulens.analyzers._categories import kernel_category
from gpulens.analyzers.kernel_groups import COLUMNS, GROUP_KEYS
from gpulens.diff.compute import DiffSide
from gpulens.units import plural
from gpulens.errors import GpulensError, TraceFormatError, truncated_note, truncated_without_gpu_work


def _report_doc(p: Path) -> dict[str, Any] | None:
    """The parsed report when ``p`` is a gpulens JSON report, else None (a trace)."""
    if not p.is_file():
        return None
    from gpulens.collectors._io import is_report_head, json_document, read_head
    from gpulens.reports.report_check import check_report, is_report

    head = read_head(p, 4096).lstrip().removeprefix(b"\xef\xbb\xbf")  # gunzipped, as UTF-8: as the sniffers see it
    if not is_report_head(head):
        return None
    try:
        doc = json_document(p)
    except (ValueError, UnicodeDecodeError, OSError, RecursionError) as exc:
        why = str(exc).splitlines()[0][:160] if str(exc).strip() else exc.__class__.__name__
        raise TraceFormatError(p, f"not a readable JSON report ({why})") from None
    if not is_report(doc):
        return None
    if not isinstance(doc["sources"], list):
        raise TraceFormatError(p, "report 'sources' is not a list")
    return check_report(doc, p)


def _rows_of(source: dict[str, Any]) -> tuple[pd.DataFrame, str]:
    """Kernel-group rows of one report source (from kernel_groups, else hotspots)."""
    an = source.get("analyses") if isinstance(source.get("analyses"), dict) else {}
    kg = (an.get("kernel_groups") or {}).get("table") if isinstance(an.get("kernel_groups"), dict) else None
    if isinstance(kg, list) and kg:
        df = pd.DataFrame([r for r in kg if isinstance(r, dict)])
        for col in COLUMNS:
            if col not in df:
                df[col] = 0 if col in ("rank", "count", "time_ns", "total_ns") else ""
        how = "report"
        # a long table ends with one "other" row (json_report.capped_records: no keys, other_rows = how many): one
        # group of its own, named so, on the first listed rank — never a group keyed by nulls (mixed-type keys)
        rest = df["other_rows"].notna().to_numpy() if "other_rows" in df else np.zeros(len(df), dtype=bool)
        if rest.any():
            n = int(pd.to_numeric(df.loc[rest, "other_rows"], errors="coerce").fillna(0).sum())
            label = f"(other kernel groups: {n:,} not listed in the report)"
            df.loc[rest, ["key", "name"]] = label
            df.loc[rest, ["kind", "category"]] = ["kernel", "other"]
            how = f"report (its last {n:,} kernel groups as one row)"
        ranks = pd.to_numeric(df["rank"], errors="coerce")
        df["rank"] = ranks.fillna(ranks.min() if ranks.notna().any() else 0).astype("int64")
        df[["op", "shapes", "dtypes", "key", "category", "kind", "name"]] = \
            df[["op", "shapes", "dtypes", "key", "category", "kind", "name"]].fillna("").astype(str)
        return df[list(COLUMNS)], how
    hs = (an.get("hotspots") or {}).get("table") if isinstance(an.get("hotspots"), dict) else None
    rows = hs if isinstance(hs, list) else source.get("top_kernels") or []
    out = []
    for r in rows:
        if not isinstance(r, dict) or not r.get("name"):
            continue
        name, kind = str(r["name"]), str(r.get("kind") or "kernel")
        time = r.get("effective_ns", r.get("total_ns"))
        time = float("nan") if time is None else time  # a kernel with launches without a duration: unknown
        out.append({"rank": 0, "kind": kind, "key": kernel_key(name), "name": name, "op": "", "shapes": "",
                    "dtypes": "", "category": kernel_category(name, kind), "count": r.get("calls") or 0,
                    "time_ns": time, "total_ns": r.get("total_ns") or time})
    return pd.DataFrame(out, columns=list(COLUMNS)), "report (hotspots only: no operators, shapes or ranks)"


def _with_invalid(df: pd.DataFrame, bad: list[dict[str, Any]]) -> pd.DataFrame:
    """Kernel-group rows ``df`` of one run with its kernels refused for an impossible time (``bad``: the report's
    ``summary.invalid_gpu_work``, case B06) made unknown: a group of such a kernel gets an unknown time, and a
    kernel none of whose launches has a time gets a row of its launches with an unknown time — it ran, so it is
    not "vanished" and its time is not 0 ns."""
    work = {}
    for b in bad:
        if b.get("kind") in ("kernel", "comm") and b.get("name") is not None:
            work[str(b["name"])] = (str(b["kind"]), work.get(str(b["name"]), ("", 0))[1] + int(b.get("count") or 0))
    if not work:
        return df
    hit = df["name"].astype(str).isin(list(work))
    df = df.copy()
    for c in ("time_ns", "total_ns"):
        df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64").where(~hit)
    new = [{"rank": int(df["rank"].min()) if len(df) else 0, "kind": k, "key": kernel_key(nm), "name": nm, "op": "",
            "shapes": "", "dtypes": "", "category": kernel_category(nm, k), "count": n, "time_ns": float("nan"),
            "total_ns": float("nan")} for nm, (k, n) in work.items() if nm not in set(df["name"].astype(str))]
    return pd.concat([df, pd.DataFrame(new, columns=list(COLUMNS))], ignore_index=True) if new else df


def _summary_hotspots(src: Any) -> dict[str, Any]:
    """``{"hotspots": {"table": …}}`` for a source with no kernel events but a per-kernel summary (rocprof/rocprofv3
    ``*stats.csv``, nsys ``cuda_gpu_kern_sum``, counter rows): the kernel groups need events, so such a side read
    "0 ns → 0 ns" beside an analysis of 5,002 launches; its per-kernel calls and totals come from the hotspots
    ranking instead. Empty for a source with kernel events."""
    if len(src.results["kernel_groups"].table):
        return {}
    from gpulens.analyzers.hotspots import Hotspots

    hs = Hotspots().analyze(src.timeline)
    return {"hotspots": {"table": hs.table.to_dict("records")}} if len(hs.table) else {}


def load_side(path: str | Path, strict: bool = True) -> DiffSide:
    """Read one side of a diff (``strict``: see :func:`gpulens.collectors.collect`; False is ``--lenient``).

    Raises:
        TraceFormatError: the path does not exist or cannot be read as a trace or report.
    """
    p = check_input(path)  # missing, unreadable or special: refused (gpulens._inputs)
    doc = _report_doc(p)
    if doc is None:
        from gpulens.report import analyze

        from gpulens.analyzers.steps import step_numbers
        rep = analyze([p], strict=strict, only=["kernel_groups", "breakdown"])
        srcs = [{"analyses": {"kernel_groups": {"table": r.results["kernel_groups"].table.to_dict("records")},
                              "breakdown": {"summary": r.results["breakdown"].summary},
                              **_summary_hotspots(r)},
                 "steps_profiled": len(step_numbers(r.timeline)),
                 "devices": r.timeline.meta.devices, "device_spec": getattr(r.device, "name", None),
                 "device_spec_assumed": bool(getattr(r.device, "assumed", False))}
                for r in rep.sources if r.status != "no_gpu_work"]
        cut = [(str(f), int(n)) for r in rep.sources for f, n in r.timeline.meta.truncated_at.items()]
        lost = [f"{p}: {r.timeline.meta.unread_text()}" for r in rep.sources if r.timeline.meta.unread]
        from gpulens.analyzers._span import durations_unknown

        # no durations at all: the side's times are unknown; some launches without one (analyzers._unknown_time):
        # the groups holding them have an unknown time (NaN rows of kernel_groups), the others keep theirs
        no_times = any(durations_unknown(r.timeline) for r in rep.sources if r.status != "no_gpu_work")
        note = "trace"
        from gpulens.analyzers.context import context_of

        ctxs = [context_of(r.timeline) for r in rep.sources if r.status != "no_gpu_work"]
        inputs = [i for r in rep.sources for i in r.timeline.meta.sources]
        # clipped at the next event on their stream (the runaways, cut at the end of the run, are said apart)
        clipped = [(int((o > 0).sum()), int(o[o > 0].sum()), int(c.gpu["dur_ns"].fillna(0).sum()))
                   for c in ctxs for o in [c.overruns["overrun_ns"].where(~c.overruns["runaway"], 0)]]
        # per source, the GPU events the runaway rule cut (a stream's last event recorded far past the run)
        away = [sorted(set(c.gpu["name"][c.overruns["runaway"].to_numpy(dtype=bool)].astype(str))) for c in ctxs]
        from gpulens.analyzers._unknown_time import invalid_gpu_work

        bad = [invalid_gpu_work(r.timeline) for r in rep.sources if r.status != "no_gpu_work"]
    else:
        all_srcs = [s for s in doc["sources"] if isinstance(s, dict)]
        srcs = [s for s in all_srcs if s.get("status", "ok") != "no_gpu_work"]
        cut = [(str(f), n) for s in all_srcs if isinstance(s.get("truncated_at"), dict)
               for f, n in s["truncated_at"].items() if isinstance(n, int) and not isinstance(n, bool)]
        note = "report"
        inputs = [i for s in all_srcs if isinstance(s.get("inputs"), list) for i in s["inputs"]]
        lost = [f"{p}: a report of a partial input: {s['partial_reason']}" for s in all_srcs
                if s.get("unread_files") and isinstance(s.get("partial_reason"), str)]
        no_times = any(_no_durations(((s.get("analyses") or {}).get("hotspots") or {}).get("summary"))
                       for s in srcs if isinstance((s.get("analyses") or {}).get("hotspots"), dict))
        hsums = [((s.get("analyses") or {}).get("hotspots") or {}).get("summary") for s in srcs]
        rows = [[o for o in h["overruns"] if isinstance(o, dict) and o.get("past_run_end")]
                if isinstance(h, dict) and isinstance(h.get("overruns"), list) else [] for h in hsums]
        away = [sorted({str(o.get("name")) for o in r}) for r in rows]
        bad = [[b for b in (s.get("summary") or {}).get("invalid_gpu_work") or [] if isinstance(b, dict)]
               for s in srcs]
        # clipped at the next event on their stream: the summary's counts less the runaways (said apart)
        clipped = [(h.get("overrun_events") - len(r) if isinstance(h.get("overrun_events"), int) else None,
                    h.get("overrun_ns") - sum(int(o.get("overrun_ns") or 0) for o in r)
                    if isinstance(h.get("overrun_ns"), (int, float)) else None, h.get("kernel_time_ns"))
                   for h, r in zip(hsums, rows) if isinstance(h, dict)]
    if cut and not srcs:  # the same rule as `gpulens analyze`: an input error, not a run without GPU work
        err = truncated_without_gpu_work(cut)
        raise err if doc is None else GpulensError(f"{p}: a report of a truncated input: {err}")
    warnings = lost + [truncated_note(f, n) for f, n in cut]  # rank files not read: the side lacks those ranks
    warnings += overrun_notes(p, clipped)
    if any(away):
        names = sorted({n for a in away for n in a})
        warnings.append(f"{p}: {plural(len(names), 'GPU event name')} ({', '.join(names[:3])}"
                        f"{' …' if len(names) > 3 else ''}) recorded far past the rest of the run: what "
                        f"{'it' if len(names) == 1 else 'they'} lasted is unknown, so {'its' if len(names) == 1 else 'their'}"
                        " time and the GPU span of that run are unknown here, not compared")
    if any(bad):  # B06: GPU work refused for an impossible time ran for an unknown time
        names = sorted({str(b.get("name")) for r in bad for b in r})
        n = sum(int(b.get("count") or 0) for r in bad for b in r)
        warnings.append(f"{p}: {plural(n, 'GPU event')} ({', '.join(names[:3])}{' …' if len(names) > 3 else ''}) "
                        f"excluded as invalid (an impossible time recorded): what {'it' if n == 1 else 'they'} lasted "
                        f"is unknown, so {'its' if len(names) == 1 else 'their'} kernel time and the GPU span of that "
                        "run are unknown here, not compared")
    if not srcs:  # T06: launch calls without GPU records is an incomplete capture, not a run without GPU work
        from gpulens.timeline.input_notes import no_gpu_work_text

        warnings.append(f"{p}: {no_gpu_work_text(inputs)}: every kernel of the other run shows as new or vanished")
    frames, notes = [], set()
    for i, s in enumerate(srcs):
        df, how = _rows_of(s)
        if i < len(away) and away[i]:  # a runaway's kept part is no measurement: its group's time is unknown
            df["time_ns"] = pd.to_numeric(df["time_ns"], errors="coerce").astype("float64").where(
                ~df["name"].astype(str).isin(away[i]))
        df = _with_invalid(df, bad[i] if i < len(bad) else [])
        frames.append(df)
        notes.add(how)
        if how.startswith("report (its last"):
            warnings.append(f"{p}: the report lists its kernel groups only up to its row limit, {how[len('report ('):-1]}:"
                            " a kernel with groups among them shows a change that is not one — diff the trace itself "
                            "for exact per-kernel figures")
    devices = sorted({str(d.get("name")) for s in srcs for d in s.get("devices") or []
                      if isinstance(d, dict) and d.get("name")})
    # the spec each source was analysed as, where its recorded name does not say it (one device rule with `gpulens
    # analyze`: "AMD Radeon Graphics (analysed as AMD Instinct MI300X …)"); a spec assumed for a trace that names no
    # GPU keeps its qualifier, as analyze's device row does ("analysed as an assumed NVIDIA A100 40GB SXM")
    analysed = sorted({str(s["device_spec"]) for s in srcs if s.get("device_spec")} - set(devices))
    assumed = sorted({str(s["device_spec"]) for s in srcs if s.get("device_spec_assumed") is True} & set(analysed))
    span, busy = span_and_busy(srcs)
    steps = sorted({n for s in srcs if (n := _steps_profiled(s))})
    if any(away) or any(bad):  # a span holding (or missing) a duration nobody measured
        span = busy = None
    if not frames:
        return DiffSide(str(path), pd.DataFrame(columns=list(COLUMNS)), devices, note, warnings, no_times, span,
                        busy, analysed_as=analysed, assumed=assumed)
    groups = pd.concat(frames, ignore_index=True)
    groups["count"] = pd.to_numeric(groups["count"], errors="coerce").fillna(0)
    # an unknown time (a group with a launch without a duration: null in a report, <NA> in a table) stays unknown
    groups["time_ns"] = pd.to_numeric(groups["time_ns"], errors="coerce").astype("float64")
    groups["total_ns"] = pd.to_numeric(groups["total_ns"], errors="coerce").astype("float64")
    if len(frames) > 1:  # repeats: mean per group
        g = groups.groupby(GROUP_KEYS, sort=False, dropna=False)
        groups = pd.DataFrame({"name": g["name"].first(), "count": g["count"].sum() / len(frames),
                               "time_ns": g["time_ns"].sum() / len(frames),
                               "total_ns": g["total_ns"].sum() / len(frames)}).reset_index()[list(COLUMNS)]
    if note == "report" and notes != {"report"}:
        note = sorted(notes)[-1]
    return DiffSide(str(path), groups, devices, note, warnings, no_times, span, busy, runs=max(len(frames), 1),
                    analysed_as=analysed, assumed=assumed, steps=steps)


def _steps_profiled(src: dict[str, Any]) -> int:
    """How many ``ProfilerStep#N`` steps one source profiled: a trace's counted here, a report's distinct step
    numbers (``analyses.steps.summary.steps``, each rank's steps once, as the gate counts them); 0 when unknown."""
    if isinstance(src.get("steps_profiled"), int):
        return src["steps_profiled"]
    steps = (((src.get("analyses") or {}).get("steps") or {}).get("summary") or {}).get("steps")
    return len({n for n in steps if isinstance(n, int)}) if isinstance(steps, list) else 0


#: Clipped time, as a fraction of a source's recorded GPU time, from which a diff warns: the hotspots analysis's
#: overrun finding is a warning from the same fraction (below it, clock jitter between back-to-back kernels).
OVERRUN_WARN_FRACTION = 0.01


def overrun_notes(p: Path, clipped: list[tuple[Any, Any, Any]]) -> list[str]:
    """One warning per source whose recorded GPU event durations ran past the next event on their stream by at
    least :data:`OVERRUN_WARN_FRACTION` of its recorded time (``clipped``: ``(events, clipped ns, recorded ns)`` per
    source, as the hotspots summary's ``overrun_events`` / ``overrun_ns`` / ``kernel_time_ns``): the diff compares
    the clipped times, so a duration that grew only in the recording (it overlaps the next kernel) shows no
    change — said, never silent. Empty when nothing (or only jitter) was clipped."""
    from gpulens.units import fmt_ns, plural

    out = []
    for n, ns, total in clipped:
        if (isinstance(n, int) and not isinstance(n, bool) and n > 0 and isinstance(ns, (int, float))
                and isinstance(total, (int, float)) and ns >= OVERRUN_WARN_FRACTION * total):
            out.append(f"{p}: {plural(n, 'GPU event(s)')} ran past the start of the next event on their stream by "
                       f"{fmt_ns(ns)} in all; the times compared are clipped at that start (the recorded durations "
                       "overlap the next kernel)")
    return out


def span_and_busy(sources: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """A side's GPU span [ns] and GPU busy [%] from its sources' breakdown summaries (``span_ns``, ``busy_pct``,
    as `gpulens analyze` defines them): the mean span over repeats, busy % weighted by each one's span. Unknown
    (None) when any source lacks a usable figure (a report without a breakdown, a span ≤ 0, a busy % outside
    0–100): a mean over only some repeats would compare unlike runs."""
    spans, busys = [], []
    for s in sources:
        an = s.get("analyses") if isinstance(s.get("analyses"), dict) else {}
        bd = an.get("breakdown") if isinstance(an.get("breakdown"), dict) else {}
        summ = bd.get("summary") if isinstance(bd.get("summary"), dict) else {}
        span, busy = summ.get("span_ns"), summ.get("busy_pct")
        ok = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v)  # noqa: E731
        spans.append(float(span) if ok(span) and span > 0 else None)
        busys.append(float(busy) if ok(busy) and 0 <= busy <= 100 else None)
    if not spans or None in spans:
        return None, None
    mean_span = sum(spans) / len(spans)
    busy = None if None in busys else sum(b * w for b, w in zip(busys, spans)) / sum(spans)
    return mean_span, busy


def _no_durations(summary: Any) -> bool:
    """Whether a report's hotspots summary says no kernel duration was recorded (``durations_unknown``). Some
    launches without one (``untimed_launches``) leave only their groups' times unknown (null in the table)."""
    return isinstance(summary, dict) and summary.get("durations_unknown") is True
