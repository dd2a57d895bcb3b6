"""Cross-check of a rocprof per-kernel summary (``results.stats.csv``, rocprofv3 ``<pid>_kernel_stats.csv``) against
the kernel trace of the same run read beside it.

rocprof computes its stats file from the same dispatch records it writes to the trace, so for every kernel name the
summary's ``Calls`` equals the trace's dispatch count and its ``TotalDurationNs`` the trace's summed
``End − Begin``. A disagreement means the two files are not of one run, or the trace lost rows (cut off, rows
rejected by gpulens for impossible timestamps): the user is told which, with the first names that differ, and the
trace's figures are used. Only the ``kernel`` domain is compared (API/copy summaries have no per-name counterpart
among the kernel events).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gpulens.timeline import Timeline
from gpulens.units import agree, fmt_ns, plural

#: names listed in a disagreement warning
_LISTED = 3


def kernel_stats_check(timeline: Timeline, stats: pd.DataFrame, stats_path: Path, trace_path: Path) -> str | None:
    """One warning line comparing ``stats`` (the ``rocprof_stats`` table of ``stats_path``: columns ``domain``,
    ``Name``, ``Calls``, ``TotalDurationNs``) with the kernel events of ``timeline`` (read from ``trace_path``).

    Per kernel name: the summary's calls and total [ns] against the trace's event count and Σ ``dur_ns`` (a total
    within 1 ns per call agrees: rocprof sums the same integers). Rows rejected from the trace (untimed,
    impossible timestamps) count for the trace too, as launches without a duration, so the counts compare.

    Returns:
        "… agrees with the trace: N kernels, C calls and T summed" or "… disagrees with the trace on K of N
        kernels (name: calls/total in the summary vs in the trace; …): the trace's figures are used"; None when
        the summary has no kernel or the trace no GPU work (a trace of copies and fills only is compared: none of the
        summary's kernels is in it).
    """
    if not len(stats) or not {"Name", "Calls", "TotalDurationNs"} <= set(stats.columns):
        return None
    st = stats[stats["domain"].astype(str) == "kernel"] if "domain" in stats else stats
    ev = timeline.events
    if not len(st) or not len(ev):
        return None
    k = ev[ev["kind"].astype(str).isin(["kernel", "comm"])]
    if not len(k) and not ev["kind"].astype(str).isin(["memcpy", "memset"]).any():
        return None  # no GPU work in the trace at all (a host-only trace): nothing to compare
    trace = k.groupby(k["name"].astype(str), sort=False, observed=True)["dur_ns"].agg(["size", "sum"])
    rej = timeline.rejected
    untimed = (rej[rej["kind"].astype(str).isin(["kernel", "comm"])]["name"].astype(str).value_counts()
               if len(rej) and {"kind", "name"} <= set(rej.columns) else pd.Series(dtype="int64"))
    summ = st.groupby(st["Name"].astype(str), sort=False)[["Calls", "TotalDurationNs"]].sum()
    names = list(dict.fromkeys(list(summ.index) + list(trace.index)))
    differ = []
    for n in names:
        sc, stot = (int(summ.at[n, "Calls"]), int(summ.at[n, "TotalDurationNs"])) if n in summ.index else (0, 0)
        tc, ttot = (int(trace.at[n, "size"]), int(trace.at[n, "sum"])) if n in trace.index else (0, 0)
        tc += int(untimed.get(n, 0))
        if sc != tc or abs(stot - ttot) > max(sc, 1):
            differ.append(f"{n[:60]}: {sc:,} calls / {fmt_ns(stot)} in the summary, {tc:,} / {fmt_ns(ttot)} in the trace")
    blit = _blit_rows_text(stats)
    if not differ:
        calls, total = int(summ["Calls"].sum()), int(summ["TotalDurationNs"].sum())
        return (f"{stats_path}: cross-checked with {trace_path.name}: the summary agrees with the trace "
                f"({plural(len(summ), 'kernel')}, {calls:,} calls, {fmt_ns(total)} summed){blit}")
    more = f"; and {len(differ) - _LISTED} more" if len(differ) > _LISTED else ""
    return (f"{stats_path}: disagrees with {trace_path.name} on {len(differ)} of {plural(len(names), 'kernel')} ("
            + "; ".join(differ[:_LISTED]) + more + f"){blit}: not the same run, or trace rows lost; the trace's "
            "figures are used")


def _blit_rows_text(stats: pd.DataFrame) -> str:
    """The summary's rows of vendor runtime copy/fill (blit) kernels (``domain`` ``copy``, filed by the stats reader;
    :func:`gpulens.collectors._work_rules.blit_kernel_rows`), which the summary counts as kernels and gpulens, like
    the trace's reader, as memory copies and fills: ``"; 1 more of its 8 rows is a runtime copy/fill (blit) kernel
    (__amd_rocclr_copyBuffer: 19 calls, 580.61 µs), counted as memory copies and fills, as in the trace, not as a
    kernel"``; ``""`` when there is none. Without it "7 kernels, 37 calls" beside a file of 8 rows and 56 calls
    read as a miscount."""
    if "domain" not in stats or "Name" not in stats:
        return ""
    from gpulens.collectors._work_rules import blit_kernel_rows
    from gpulens.timeline.names import normalize_kernel_name

    b = stats[(stats["domain"].astype(str) == "copy").to_numpy() & blit_kernel_rows(stats["Name"])]
    if not len(b):
        return ""
    names = sorted({normalize_kernel_name(str(n)) for n in b["Name"]})
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")
    calls, total = int(b["Calls"].sum()), int(b["TotalDurationNs"].sum())
    one = len(b) == 1
    rows = int(stats["domain"].astype(str).isin(["kernel", "copy"]).sum())
    return (f"; {len(b):,} more of its {rows:,} rows {'is a' if one else 'are'} runtime copy/fill (blit) "
            f"kernel{'' if one else 's'} ({shown}: {plural(calls, 'call')}, {fmt_ns(total)}), counted as memory "
            f"copies and fills, as in the trace, not as {'a kernel' if one else 'kernels'}")


def reconcile_kernel_stats(timeline: Timeline, stats_path: Path, trace_path: Path) -> str | None:
    """:func:`kernel_stats_check` of ``timeline.tables["rocprof_stats"]`` against the trace, keeping its promise
    that the trace's figures are used: when they disagree and the trace holds no kernel event (its GPU work only
    copies and fills — a trace cut before its first kernel, or of another run), the summary's kernel rows are
    removed from the table, so no report takes its kernel count and time from the summary beside a timeline whose
    busy time has none of them (1,858 launches and 661 ms "summed" beside "0 ns busy"). Returns the warning."""
    stats = timeline.tables.get("rocprof_stats")
    if stats is None:
        return None
    check = kernel_stats_check(timeline, stats, stats_path, trace_path)
    ev = timeline.events
    if (check is None or not check.startswith(f"{stats_path}: disagrees")
            or ev["kind"].astype(str).isin(["kernel", "comm"]).any() or "domain" not in stats):
        return check
    kernel_rows = stats["domain"].astype(str) == "kernel"
    timeline.tables["rocprof_stats"] = stats[~kernel_rows].reset_index(drop=True)
    n = int(kernel_rows.sum())
    return (check[:-len("the trace's figures are used")] + "the trace's figures are used: it holds no kernel, "
            f"the summary's {plural(n, 'kernel row')} {agree(n, 'is', 'are')} left out")
