"""Console sections for the bottleneck analyses: idle split per GPU, rank comparison, stall classes, verdicts.

Formatting only: every figure comes from the ``bottlenecks``, ``ranks``, ``stalls`` and ``verdicts`` results.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text


from gpulens.reports._answer import order_text, verdict_rows
from gpulens.reports._fit import Col, FitTable, name_col
from gpulens.reports._format import LABELS, fmt_ns as _fmt_ns
from gpulens.reports._format import fmt_unit, gpu_sum_label, idle_at_most, idle_bound_note, plural, stake_notes
from gpulens.reports._names import short_names


def ranks_scope(summary: dict) -> str:
    """What the ranks table rests on, for its title: ``" — 2 of 128 ranks; 4 of 10 matched collectives overlap
    across ranks (the others are not one exchange: left out of the waits)"``; "" when every rank is read and every
    matched collective overlaps."""
    bits = []
    if summary.get("world_size") and summary["world_size"] > summary.get("ranks", 0):
        bits.append(str(summary.get("ranks_text")))
    n, c = summary.get("matched_collectives") or 0, summary.get("concurrent_collectives")
    if c is not None and n > c:
        bits.append(f"{c:,} of {n:,} matched collectives overlap across ranks (the others are not one exchange: left "
                    "out of the waits)")
    return " — " + "; ".join(bits) if bits else ""


#: most rows a per-GPU / per-rank / per-kernel console table shows (thousands of ranks or kernel names: the rows
#: that matter most, the full tables via --json, --csv and --parquet)
MAX_ROWS = 20


def _cap(table: Any, by: list[str], ascending: list[bool], what: str) -> tuple[Any, str]:
    """(the first :data:`MAX_ROWS` rows of ``table`` sorted by ``by``, the title note) when it is longer."""
    if len(table) <= MAX_ROWS:
        return table, ""
    shown = table.sort_values(by, ascending=ascending, kind="stable").head(MAX_ROWS)
    return shown, f" — the {MAX_ROWS} {what} of {len(table):,}; all: --csv or --parquet"


#: The next-step cell of an undetermined kernel whose step the line above the table says (once for all of them):
#: a pointer, never a blank cell read as "nothing to do".
UNDETERMINED_STEP_CELL = "what would classify it: the line above"


def _step_cell(x: Any, said: bool) -> str:
    """A kernel-verdict row's next-step cell: its first next step; an undetermined row's step is the one the line
    above says for all of them (:data:`UNDETERMINED_STEP_CELL`), or its own when no line says it."""
    if not len(x.next_steps):
        return ""
    return UNDETERMINED_STEP_CELL if x.verdict == "undetermined" and said else fmt_unit(x.next_steps[0], "text")


def verdict_renderables(s: Any, top: int = 10) -> list:
    """Rich renderables for one SourceReport (empty sections are left out); the kernel-verdict table shows
    ``top`` rows (``--top``) by the rule the Markdown and HTML reports share (:func:`_answer.verdict_rows`)."""
    parts: list = []
    r = s.results
    vd = r.get("verdicts")
    if vd is not None and not vd.skipped and vd.summary.get("basis"):
        parts.append(Text(f"Run verdict basis: {fmt_unit(vd.summary.get('basis'), 'text')}", style="dim"))
    bn = r.get("bottlenecks")
    if bn is not None and not bn.skipped and len(bn.table):
        bt = bn.table
        shown, note = _cap(bt, ["idle_ns", "rank", "device_id"], [False, True, True], "most idle GPUs")
        # every idle cause with time in it (the row's causes then add up to its idle time), then the rest
        causes = [(c, h) for c, h in (("idle_boundary_ns", "one-off gaps"), ("idle_host_ns", "host"),
                                      ("idle_launch_ns", "launch"), ("idle_sync_ns", "sync"),
                                      ("idle_queued_ns", "queued"), ("idle_unattributed_ns", "no launch linked"))
                  if c in bt and (bt[c].fillna(0) > 0).any()]
        causes.sort(key=lambda ch: -float(bt[ch[0]].fillna(0).sum()))  # the largest causes are never left out
        cols = [Col("rank"), Col("GPU"), Col("idle")] + [Col(h, optional=k >= 2) for k, (_, h) in enumerate(causes)] + [
            Col("busy: exposed comm", optional=True), Col("busy: small-grid kernels", optional=True),
            Col(LABELS["overhead"], "left", figure=False)]
        rows = [[str(x["rank"]), str(x["device_id"]), idle_at_most(x) + _fmt_ns(x["idle_ns"])] + [_fmt_ns(x[c]) for c, _ in causes]
                + [_fmt_ns(x["exposed_comm_ns"]), _fmt_ns(x["small_grid_ns"]), fmt_unit(x["overhead"], "text")]
                for x in shown.to_dict("records")]
        parts.append(FitTable("Where the idle time went (per GPU: the idle causes add up to idle; exposed comm and "
                              "small-grid kernels are busy time, shown beside it)" + note
                              + idle_bound_note(getattr(r.get("breakdown"), "summary", None)), cols, rows))
    rk = r.get("ranks")
    if rk is not None and not rk.skipped and len(rk.table):
        shown, note = _cap(rk.table, ["straggler", "caused_wait_ns", "computation_ns", "rank"],
                           [False, False, False, True], "ranks that held the others up most (then by compute)")
        # the shares' basis in their headers, as HTML/Markdown/JSON label them (the rank's GPU span, not the run's)
        cols = [Col("rank"), Col("compute"), Col("comm (% of rank's span)"), Col("exposed comm (% of rank's span)"),
                Col("entered last"),
                Col("waited", optional=True), Col("made others wait"), Col("straggler?", "left")]
        # "entered last" counts the concurrent matched collectives (one exchange): the only ones waits rest on
        conc = "concurrent_collectives" if "concurrent_collectives" in shown else "matched_collectives"
        rows = [[str(x.rank), _fmt_ns(x.computation_ns), fmt_unit(x.comm_pct, "%"), fmt_unit(x.exposed_comm_pct, "%"),
                 f"{x.late_arrivals}/{getattr(x, conc)}", _fmt_ns(x.collective_wait_ns),
                 _fmt_ns(x.caused_wait_ns), "straggler" if x.straggler else ""] for x in shown.itertuples()]
        parts.append(FitTable("Ranks compared" + ranks_scope(rk.summary) + note, cols, rows))
    st = r.get("stalls")
    if st is not None and not st.skipped and len(st.table):
        stt = st.table.iloc[:10]
        rows = [[Text(short), _fmt_ns(x.time_ns), fmt_unit(x.dominant_class, "text").replace("_", " "),
                 fmt_unit(x.dominant_pct, "ratio"), f"{fmt_unit(x.top_reason, 'text')} "
                 f"({fmt_unit(x.top_reason_pct, '%')})".replace("_", " "),
                 f"{x.vendor} {x.metric_family}".replace("_", " ")]
                for x, short in zip(stt.itertuples(), short_names(stt["name"].astype(str)))]
        cols = [name_col(), Col("time"), Col("dominant class", "left", figure=False),
                Col("%"), Col("top reason", "left", figure=False), Col("source", "left", figure=False, optional=True)]
        parts.append(FitTable("Stall classes (share of stall time)", cols, rows))
    if vd is not None and not vd.skipped and len(vd.table):
        # the verdicts' own sentences for the kernels without a bound (those that could not be classified, the
        # whole CUDA graph replays), each with its next step: the console's line is the finding the others show
        said = False  # an undetermined kernel's step is said once, in its finding's line above the table
        for f in vd.findings:
            if f.key in ("undetermined", "undetermined/graph"):
                parts.append(Text(f"{f.title}: " + (fmt_unit(f.action, "text") if f.action else "no next step recorded")))
                said = said or bool(f.action)
        # the rows and their order as the HTML and Markdown show them (an undetermined one with its row, its step
        # said once in the line above); a cut says "top N of M" and names a larger stake left out
        shown, cut = verdict_rows(s, top)
        if not len(shown):
            parts.append(Text(f"Kernel verdicts: {plural(len(vd.table), 'critical kernel')} not shown (--top 0)",
                              style="dim"))
            return parts
        note = f" — {cut}; all: --json, --csv or --parquet" if cut else ""
        notes = stake_notes(shown)
        rows = [[Text(short), _fmt_ns(x.time_ns), x.verdict, _fmt_ns(x.time_at_stake_ns) + notes.get(i, ("", ""))[0],
                 Text(_step_cell(x, said))]
                for i, (x, short) in enumerate(zip(shown.itertuples(), short_names(shown["name"].astype(str))))]
        hsum = getattr(r.get("hotspots"), "summary", None)  # a kernel on several GPUs: its times are sums over them
        cols = [name_col(), Col(gpu_sum_label("time", hsum), optional=True), Col("verdict", "left"),
                Col(gpu_sum_label("at stake", hsum)), Col("next step", "left", figure=False, below=True)]
        order = order_text(shown.get("time_at_stake_ns", []))  # the findings' order, said (_answer.stake_ordered)
        parts.append(FitTable(f"Kernel verdicts (performance-critical set{', ' + order if order else ''})" + note,
                              cols, rows))
        for mark, text in dict(notes.values()).items():
            parts.append(Text(f"{mark.strip()} at stake: {text}."))
    return parts
