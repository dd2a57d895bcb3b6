"""Console sections for the bottleneck analyses: idle split per GPU, rank comparison, stall classes, verdicts.

Formatting only: every figure comes from the ``bottlenecks``, ``ranks``, ``stalls`` and ``verdicts`` results.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text


from gpulens.reports._format import fmt_ns as _fmt_ns
from gpulens.reports._format import fmt_unit
from gpulens.reports._names import short_names


def verdict_renderables(s: Any) -> list:
    """Rich renderables for one SourceReport (empty sections are left out)."""
    parts: list = []
    r = s.results
    vd = r.get("verdicts")
    if vd is not None and not vd.skipped and vd.summary.get("basis"):
        parts.append(Text(f"Run verdict basis: {fmt_unit(vd.summary.get('basis'), 'text')}", style="dim"))
    bn = r.get("bottlenecks")
    if bn is not None and not bn.skipped and len(bn.table):
        t = Table(title="Where the idle time went (per GPU)", title_justify="left")
        for c in ("rank", "device", "idle", "host", "launch", "sync", "queued", "exposed comm", "small-grid",
                  "verdict"):
            t.add_column(c, justify="left" if c == "verdict" else "right")
        for x in bn.table.itertuples():
            t.add_row(str(x.rank), str(x.device_id), _fmt_ns(x.idle_ns), _fmt_ns(x.idle_host_ns),
                      _fmt_ns(x.idle_launch_ns), _fmt_ns(x.idle_sync_ns), _fmt_ns(x.idle_queued_ns),
                      _fmt_ns(x.exposed_comm_ns), _fmt_ns(x.small_grid_ns), fmt_unit(x.verdict, "text"))
        parts.append(t)
    rk = r.get("ranks")
    if rk is not None and not rk.skipped and len(rk.table):
        t = Table(title="Ranks compared", title_justify="left")
        for c in ("rank", "compute", "comm %", "exposed comm %", "entered last", "waited", "made others wait", ""):
            t.add_column(c, justify="right")
        for x in rk.table.itertuples():
            t.add_row(str(x.rank), _fmt_ns(x.computation_ns), f"{x.comm_pct:.1f}", f"{x.exposed_comm_pct:.1f}",
                      f"{x.late_arrivals}/{x.matched_collectives}", _fmt_ns(x.collective_wait_ns),
                      _fmt_ns(x.caused_wait_ns), "straggler" if x.straggler else "")
        parts.append(t)
    st = r.get("stalls")
    if st is not None and not st.skipped and len(st.table):
        t = Table(title="Stall classes (share of stall time)", title_justify="left")
        for c, j in (("kernel", "left"), ("time", "right"), ("dominant class", "left"), ("%", "right"),
                     ("top reason", "left"), ("source", "left")):
            t.add_column(c, justify=j)
        stt = st.table.head(10)
        for x, short in zip(stt.itertuples(), short_names(stt["name"].astype(str), 48)):
            t.add_row(Text(short), _fmt_ns(x.time_ns), fmt_unit(x.dominant_class, "text").replace("_", " "),
                      fmt_unit(x.dominant_pct, "ratio"), f"{fmt_unit(x.top_reason, 'text')} "
                      f"({fmt_unit(x.top_reason_pct, '%')})", f"{x.vendor} {x.metric_family}".replace("_", " "))
        parts.append(t)
    if vd is not None and not vd.skipped and len(vd.table):
        known = vd.table[vd.table["verdict"] != "undetermined"]
        n_und = len(vd.table) - len(known)
        if n_und:
            steps = vd.table.loc[vd.table["verdict"] == "undetermined", "next_steps"].iloc[0]
            parts.append(Text(f"{n_und} of {len(vd.table)} critical kernels undetermined: "
                              + (fmt_unit(steps[0], "text") if len(steps) else "no next step recorded")))
        if not len(known):
            return parts
        t = Table(title="Kernel verdicts (performance-critical set)", title_justify="left")
        for c, j in (("kernel", "left"), ("time", "right"), ("verdict", "left"), ("at stake", "right"),
                     ("next step", "left")):
            t.add_column(c, justify=j)
        for x, short in zip(known.itertuples(), short_names(known["name"].astype(str), 36)):
            t.add_row(Text(short), _fmt_ns(x.time_ns), x.verdict, _fmt_ns(x.time_at_stake_ns),
                      Text(fmt_unit(x.next_steps[0], "text") if len(x.next_steps) else ""))
        parts.append(t)
    return parts
