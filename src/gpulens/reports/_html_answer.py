"""The HTML report's answer banner: what a person must see before any detail, on the first screen.

1. The run verdict in one sentence (the ``verdicts`` result's, as the console and Markdown say it);
2. the top root findings with their time at stake and next step (:func:`gpulens.reports._answer.answer`), less the
   per-kernel verdict findings that the kernel table below carries with the same figures;
3. the kernels that matter: the first rows of the ``verdicts`` table (the performance-critical set, most GPU time
   first), each with its GPU time and share, its bound (compute, memory, latency/occupancy, launch,
   communication or undetermined), its time at stake and its next step — numbered by its rank in the hot-kernel
   table, as every chart of the report numbers it.

Nothing is computed: every figure is a cell of an analyzer's table, formatted from its declared unit.
"""

from __future__ import annotations

from typing import Any

from gpulens.report import SourceReport
from gpulens.analyzers._stake import premise_beside
from gpulens.reports._answer import answer, critical_shown_text, next_step, order_text, verdict_rows
from gpulens.reports._format import GPU_SUM_TIP, clip, column_label, fmt_ns, gpu_sum_label, fmt_unit, is_missing, stake_notes
from gpulens.reports._html_parts import KERNEL_LINKS, esc, hot_ranks, name_cell
from gpulens.reports._names import label_in_text, short_names
from gpulens.reports._vendor_words import source_vendor, vendor_label

#: Kernels listed in the answer banner.
ANSWER_KERNELS = 5
#: Characters of a next step shown in the first-screen banner, so the answer fits one screen; the Findings table and
#: the kernel pages below have every step whole.
STEP_CHARS = 160
#: CSS class of each bound (colour and the word, never colour alone).
BOUND_CLASS = {"compute-bound": "b-compute", "memory-bound": "b-memory", "latency/occupancy-bound": "b-latency",
               "below-roofs": "b-latency",
               "launch-bound": "b-launch", "communication-bound": "b-comm"}


def bound_meanings(vendor: str | None = None) -> dict[str, str]:
    """What each kernel bound of the verdict vocabulary (:data:`gpulens.analyzers.verdict_rules.CLASSES`) means, in
    a kernel engineer's words and the vendor's (``vendor`` "nvidia" / "amd": warps, blocks, SMs or wavefronts,
    workgroups, CUs; both when None): each bound pill's tooltip and the Stalls & verdicts page's legend. Thresholds are the verdict rules' own
    (:data:`~gpulens.analyzers.verdict_rules.ROOF_BOUND_PCT` of the roofline's attainable roof,
    :data:`~gpulens.analyzers.verdict_rules.SOL_BOUND_PCT` of a unit's peak on measured speed of light)."""
    from gpulens.analyzers._verdict_facts import FULL_GRID_SHARE as full
    from gpulens.analyzers.verdict_rules import ROOF_BOUND_PCT as roof, SOL_BOUND_PCT as sol

    warps, blocks = {"nvidia": ("warps", "blocks"), "amd": ("wavefronts", "workgroups")}.get(
        vendor or "", ("warps (wavefronts)", "blocks (workgroups)"))
    units = vendor_label("num_sms", vendor)
    return {
        "compute-bound": f"limited by compute throughput: at ≥ {roof:g} % of its compute roof, or its busiest unit is "
                         f"a compute pipe at ≥ {sol:g} % of peak (measured speed of light)",
        "memory-bound": f"limited by memory bandwidth: at ≥ {roof:g} % of its memory roof, or its busiest unit is DRAM, "
                        f"L1 or L2 at ≥ {sol:g} % of peak (measured speed of light)",
        # the rule's own cases (verdict_rules.decide): a measured position, else the grid alone — "under 50 % of
        # both roofs" read beside an ncu kernel called latency-bound by its speed of light (60 %) or its grid
        "latency/occupancy-bound": f"too few {warps} in flight to hide latency: under {roof:g} % of both roofs, or its "
                                   f"busiest unit under {sol:g} % of peak (measured speed of light), with the grid, "
                                   "occupancy or stall counters saying why; with no throughput figure, a grid of "
                                   f"fewer {blocks} than {100 * full:g} % of the {units} (the others left idle)",
        "below-roofs": f"below both roofs: under {roof:g} % of its compute and its memory roof, with nothing measured "
                       "that says why (latency, occupancy, narrow loads or launch overhead); its next step says "
                       "what would tell",
        "launch-bound": "launch-bound: each launch does less GPU work than the launch call costs, and the GPU idles "
                        "between its launches",
        "communication-bound": "a collective (NCCL/RCCL) whose time is not overlapped by computation",
        "undetermined": "no counters, stall samples or FLOP/byte figures to classify it; its next step says what to "
                        "collect",
    }


#: Tooltips of the kernel table's column headers (what each figure is, and of what).
HEADER_TIPS = {"#": "row number in this list, as in the Markdown and console reports; hover a number for the "
                    "kernel's rank by GPU time (#N in the charts)",
               "GPU time · share": "summed GPU time of its launches · share of all kernel time",
               "bound": "what limits the kernel (hover a bound for its meaning; the Stalls & verdicts page has the legend)",
               "time at stake": "GPU time the fix could save at most (at least where a mark says so): time × (1 − attained"
                                " / attainable) on the basis that decided the bound; unknown when not quantifiable"}


#: The banner's columns whose figures are sums over GPUs when a kernel ran on several (:func:`gpu_sum_label`).
SUMMED_HEADERS = ("GPU time · share", "time at stake")


def bound_legend(verdicts: list[str], vendor: str | None = None) -> str:
    """The legend of the bounds a kernel table shows: each term once, in the vocabulary's order, with its meaning
    in ``vendor``'s words (:func:`bound_meanings`)."""
    meanings = bound_meanings(vendor)
    shown = [v for v in meanings if v in set(verdicts)]
    if not shown:
        return ""
    items = "; ".join(f'<span class="bound {BOUND_CLASS.get(v, "b-none")}">{esc(v)}</span> {esc(meanings[v])}'
                      for v in shown)
    return f'<p class="legend note">{items}.</p>'


def _after_label(a: Any) -> str:
    """The verdict sentence without the verdict the label already shows ("host-bound  The 2 GPUs were busy…", not
    "host-bound  Host-bound: the 2 GPUs…")."""
    text = a.headline or a.reason
    if a.verdict and text:
        return text[:1].upper() + text[1:] + "."
    return a.short_sentence


def kernel_rows(s: SourceReport, n: int = ANSWER_KERNELS) -> list[dict[str, Any]]:
    """The rows :func:`_answer.verdict_rows` shows (the first ``n`` of the ``verdicts`` table in the findings'
    order: largest time at stake first) as dicts; [] without that table."""
    vd = s.results.get("verdicts")
    if vd is None or vd.skipped or vd.table is None or not len(vd.table) or "verdict" not in vd.table:
        return []
    return verdict_rows(s, n)[0].to_dict("records")


def _steps(steps: Any) -> list[str]:
    """A verdict row's next steps (a list, or one text), each stripped, empty ones left out."""
    if not isinstance(steps, (list, tuple)):
        steps = [steps]
    return [str(x).strip() for x in steps if x is not None and not is_missing(x) and str(x).strip()]


def _more_text(n_more: int, cut: bool, anchor: str | None) -> str:
    """The words of :func:`_more_steps` (plain text; "" when nothing is left out)."""
    if not n_more and not cut:
        return ""
    # no bare "step" (a profiler step everywhere else in the report), and no longer than before: the banner keeps
    # its height on the first screen; the cell is under the "next step" column, so "+1 more" says what it counts
    what = f"+{n_more} more" if n_more else "in full"
    return what if anchor else what + " on the Stalls & verdicts page"


def _more_steps(n_more: int, cut: bool, anchor: str | None) -> str:
    """What the banner's clipped step leaves out, said once after it: the further steps the kernel's verdict lists
    (counted) or, when there are none and the first one was cut, that it continues — a link to the kernel's page,
    which has them all whole."""
    text = _more_text(n_more, cut, anchor)
    if not text:
        return ""
    inner = f'<a href="#{esc(anchor)}">{esc(text)}</a>' if anchor else esc(text)
    return f' <span class="more">({inner})</span>'


def _step_cell(steps: list[str], prev: list[str], step_chars: int | None, anchor: str | None) -> str:
    """The next-step cell's content (HTML): in the banner (``step_chars``) the first step cut at a word boundary
    to ``step_chars`` characters (or "same as above") and what was left out (:func:`_more_steps`); on the
    Stalls & verdicts page (``step_chars`` None) every step whole, one paragraph each."""
    if not steps:
        return "none recorded"
    if step_chars is None:
        return esc(steps[0]) + "".join(f'<span class="step2">{esc(x)}</span>' for x in steps[1:])
    if steps[:1] == prev[:1]:
        return "same as above" + _more_steps(len(steps) - 1, False, anchor)
    # the note of what is left out takes its room from the step's (the cell keeps its height on the first screen)
    room = step_chars - len(_more_text(len(steps) - 1, len(steps[0]) > step_chars, anchor)) - 3
    shown = clip(steps[0], room if len(steps) > 1 or len(steps[0]) > step_chars else step_chars, whole_words=True)
    return esc(shown) + _more_steps(len(steps) - 1, shown != steps[0], anchor)


def kernels_html(s: SourceReport, rows: list[dict[str, Any]], step_chars: int | None = STEP_CHARS,
                 evidence: bool = False, notes_below: bool = True) -> str:
    """The banner's table of the kernels that matter (see the module docstring); also the Stalls & verdicts page's
    kernel-verdict table, with every step whole (``step_chars`` None) and each row's evidence folded under its step
    (``evidence``): one layout whose next step keeps the row's widest column, never a 110-px sliver at 900 px.
    ``notes_below`` False leaves out the time-at-stake notes (:func:`stake_notes_html`: the banner puts them right
    under its box, each mark's tooltip saying its note as well)."""
    if not rows:
        return ""
    vendor = source_vendor(s)
    names = [str(r["name"]) for r in rows]
    shorts = short_names(names)
    rank_of = hot_ranks(s)
    body, prev = [], []
    notes = stake_notes(rows)
    links = KERNEL_LINKS.get()
    for i, (r, name, short) in enumerate(zip(rows, names, shorts)):
        verdict = fmt_unit(r.get("verdict"), "text")
        stake = r.get("time_at_stake_ns")
        steps = _steps(r.get("next_steps"))
        shown = _step_cell(steps, prev, step_chars, links.get(name))
        whole = "\n".join(steps)  # the banner cell's tooltip: every step whole
        prev = steps
        time = time_text(r)
        rank = rank_of.get(name)
        # the row's number in the list shown, as Markdown's and the console's "#"; the GPU-time rank (the charts'
        # "#N" labels) on hover: one meaning per column in every report
        hot = _tip(f"#{rank} by GPU time in the hot-kernel table (the charts' label)") if rank else ""
        body.append(
            f'<tr><td class="num"{hot}>{i + 1}</td>{name_cell(name, short)}'
            f'<td class="num">{esc(time)}</td>{bound_td(verdict, vendor)}{stake_td(stake, notes.get(i))}'
            '<td class="step"'
            + (_tip(whole) if step_chars else "")
            + f'>{shown}{_evidence(r) if evidence else ""}</td>'
            "</tr>")
    # the rows' order said in the heading: the findings' (largest time at stake first), as console and Markdown
    order = order_text([r.get("time_at_stake_ns") for r in rows])
    title = "Kernels that matter" + (f", {order}" if order else "") + f" ({critical_shown_text(s, len(rows))})"
    head = "" if evidence else f'<h3 class="kh">{esc(title)}</h3>'
    # the share says of what, as the hot-kernel table's column does (its doc: "share of all kernel time")
    vd = s.results.get("verdicts")
    share = column_label("share", vd.columns.get("share", "") if vd is not None else "")
    hsum = getattr(s.results.get("hotspots"), "summary", None)  # a kernel on several GPUs: sums over them
    # the first screen's room: "Σ GPU time", the tooltip saying it in full
    summed = gpu_sum_label("", hsum, short=True) != ""

    def tip(h: str) -> str:
        return HEADER_TIPS.get(h, "") + (f" — {GPU_SUM_TIP}" if summed and h in SUMMED_HEADERS else "")

    heads = "".join(f'<th scope="col"{_tip(tip(h))}>{esc(label)}</th>'
                    for h, label in (("#", "#"), ("kernel", "kernel"),
                                     # "Σ time": as narrow as "GPU time" (the banner's 800 px)
                                     ("GPU time · share",
                                      f"{gpu_sum_label('time', hsum, True) if summed else 'GPU time'} · {share}"),
                                     ("bound", "bound"), ("time at stake", gpu_sum_label("time at stake", hsum, True)),
                                     ("next step", "next step")))
    return (f'{head}<table class="akernels"><thead><tr>{heads}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>'
            + (stake_notes_html(rows) if notes_below else "")
            # the legend in full under the verdict page's table; on the first screen each bound's tooltip says it
            + (bound_legend([fmt_unit(r.get("verdict"), "text") for r in rows], vendor) if evidence else ""))


def stake_notes_html(rows: list[dict[str, Any]]) -> str:
    """The notes of a verdict table's marked times at stake (:func:`gpulens.reports._format.stake_notes`), one
    paragraph per distinct note: "† time at stake: capped at …"."""
    return "".join(f'<p class="note">{esc(m.strip())} time at stake: {esc(t)}.</p>'
                   for m, t in dict(stake_notes(rows).values()).items())


def time_text(r: Any) -> str:
    """A kernel's "GPU time · share" cell text from a verdict (or hot-kernel) row: ``time_ns`` (else
    ``effective_ns``, the same figure: the verdicts' time is the hot-kernel table's effective time) and ``share``."""
    t = r.get("time_ns")
    t = r.get("effective_ns") if is_missing(t) else t
    share = r.get("share")
    return fmt_ns(t) + ("" if is_missing(share) else f" · {fmt_unit(share, 'share')}")


def bound_td(verdict: str, vendor: str | None, tip: str | None = None) -> str:
    """A kernel's bound cell: the verdict as a coloured pill (the word, never the colour alone), its meaning as the
    tooltip (``tip`` instead, when given)."""
    return (f'<td><span class="bound {BOUND_CLASS.get(verdict, "b-none")}"'
            f'{_tip(tip or bound_meanings(vendor).get(verdict))}>{esc(verdict)}</span></td>')


def stake_td(stake: Any, note: tuple[str, str] | None) -> str:
    """A kernel's time-at-stake cell: the figure (unknown when missing) with its note mark and the note as tooltip
    (:func:`gpulens.reports._format.stake_notes`)."""
    return (f'<td class="num{" tstake" if not is_missing(stake) else " nm"}"{_note_attr(note)}>'
            f'{esc(fmt_ns(stake) + (note or ("", ""))[0])}</td>')


def _tip(text: str | None) -> str:
    return f' title="{esc(text)}"' if text else ""


def _evidence(r: dict[str, Any]) -> str:
    """A verdict row's evidence, folded (a paragraph per kernel: unfolded, it made each row 20 lines tall)."""
    ev = r.get("evidence")
    if is_missing(ev) or not str(ev).strip():
        return ""
    return f'<details class="ev"><summary>evidence</summary>{esc(ev)}</details>'


def _note_attr(note: tuple[str, str] | None) -> str:
    return f' title="{esc(note[1])}"' if note else ""


def answer_html(s: SourceReport) -> str:
    """The answer banner: run verdict in one sentence, the top root findings with time at stake and next step, and
    the kernels that matter with their bound, time at stake and next step."""
    a = answer(s)
    rows = kernel_rows(s)
    # a kernel's verdict finding says what its table row says (same time at stake, same next step): listed once
    in_table = {(str(r["name"]), fmt_unit(r.get("verdict"), "text")) for r in rows}
    listed = [f for f in a.findings if not (f.kernel and (str(f.kernel), f.category) in in_table)]
    items = "".join(
        f'<li><span class="stake">{esc(fmt_ns(f.time_at_stake_ns))}</span> <strong>{esc(label_in_text(f.title, f.kernel))}</strong>'
        + (f' <em class="premise">— {esc(premise_beside(f.title, f.premise))}</em>' if getattr(f, "premise", "") else "")
        + f'<span class="act"> → {esc(clip(next_step(f), STEP_CHARS, whole_words=True))}</span></li>'
        for f in listed)
    lst = f'<ol class="top">{items}</ol>' if items else (f'<p class="note">{esc(a.note)}</p>' if a.note else "")
    if a.first_step:
        lst = f'<p class="first"><strong>First:</strong> {esc(a.first_step)}</p>' + lst
    from gpulens.reports._answer import clock_note

    clocks = clock_note(s)  # read with the verdict: the time bases the figures rest on
    clocks_html = f'<p class="first"><strong>Clocks:</strong> {esc(clocks)}</p>' if clocks else ""
    from gpulens.reports._warnings import input_note

    damaged = input_note(s, "Warnings on the Environment page")  # the figures rest on an input with warnings
    if damaged:  # one line (the count), unfolded on demand: whole, a long first warning pushed the banner of a
        # two-rank run past the first screen
        head, _, _ = damaged.partition(" — ")
        clocks_html += (f'<details class="first"><summary><strong>Input:</strong> {esc(head)}</summary>'
                        f'{esc(damaged)}</details>')
    if a.path_note:  # why the critical path runs through host work beside a verdict on the GPU side: one line,
        # unfolded on demand (whole, the banner of a two-rank run no longer fit the first screen)
        clocks_html = (f'<details class="first"><summary><strong>Critical path:</strong> '
                       f'{esc(a.path_note.split(" (")[0])} — why the verdict differs</summary>{esc(a.path_note)}'
                       '</details>' + clocks_html)
    if a.fix_first:  # two readings: their times at stake in order, and where to start (before the path note)
        from gpulens.reports._answer import FIX_FIRST_LABEL
        from gpulens.analyzers._verdict_order import FIX_FIRST_START, title_head as _title_head

        fix = a.fix_first
        head, _, start = fix.partition(FIX_FIRST_START)
        if start and listed and start.startswith(_title_head(listed[0].title)):
            fix = head  # the numbered list right below opens with that finding: said once (the banner fits a screen)
        clocks_html = f'<p class="first"><strong>{esc(FIX_FIRST_LABEL)}:</strong> {esc(fix)}</p>' + clocks_html
    # the rest of the verdict, folded at the end of its headline (an inline block: a line of its own pushed the
    # banner of the BERT-small trace past the first screen)
    detail = (f' <details class="first"><summary><strong>Detail</strong></summary>{esc(a.detail)}.</details>'
              if a.detail else "")
    return (f'<section class="answer" aria-label="Answer"><div class="verdict"><span class="vlabel">'
            f'{esc(a.verdict or "verdict")}</span> {esc(_after_label(a))}{detail}</div>{clocks_html}{lst}'
            f'{kernels_html(s, rows, notes_below=False)}</section>'
            # the marks' notes right under the box (inside, they pushed the MI250 toy's banner past 800 px)
            + stake_notes_html(rows))


__all__ = ["answer_html", "kernels_html", "kernel_rows", "bound_meanings", "bound_legend", "bound_td", "stake_td",
           "time_text", "ANSWER_KERNELS"]
