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
from gpulens.reports._answer import answer, critical_shown_text, next_step
from gpulens.reports._format import clip, fmt_ns, fmt_unit, is_missing, stake_notes
from gpulens.reports._html_parts import esc, name_cell
from gpulens.reports._names import label_in_text, short_names

#: Kernels listed in the answer banner.
ANSWER_KERNELS = 5
#: Characters of a next step shown in the first-screen banner, so the answer fits one screen; the Findings table and
#: the kernel pages below have every step whole.
STEP_CHARS = 200
#: CSS class of each bound (colour and the word, never colour alone).
BOUND_CLASS = {"compute-bound": "b-compute", "memory-bound": "b-memory", "latency/occupancy-bound": "b-latency",
               "below-roofs": "b-latency",
               "launch-bound": "b-launch", "communication-bound": "b-comm"}


def _after_label(a: Any) -> str:
    """The verdict sentence without the verdict the label already shows ("host-bound  The 2 GPUs were busy…", not
    "host-bound  Host-bound: the 2 GPUs…")."""
    if a.verdict and a.reason:
        return a.reason[:1].upper() + a.reason[1:] + "."
    return a.sentence


def kernel_rows(s: SourceReport, n: int = ANSWER_KERNELS) -> list[dict[str, Any]]:
    """The first ``n`` rows of the ``verdicts`` table (most GPU time first) as dicts; [] without that table."""
    vd = s.results.get("verdicts")
    if vd is None or vd.skipped or vd.table is None or not len(vd.table) or "verdict" not in vd.table:
        return []
    return vd.table.head(n).to_dict("records")


def _hot_ranks(s: SourceReport) -> dict[str, int]:
    hs = s.results.get("hotspots")
    if hs is None or hs.skipped or "name" not in hs.table:
        return {}
    return {str(k): i + 1 for i, k in enumerate(hs.table["name"].head(1000))}


def _first_step(steps: Any) -> str:
    if isinstance(steps, (list, tuple)):
        steps = next((x for x in steps if not is_missing(x) and str(x).strip()), None)
    return "" if is_missing(steps) or steps is None else str(steps).strip()


def kernels_html(s: SourceReport, rows: list[dict[str, Any]], step_chars: int | None = STEP_CHARS,
                 evidence: bool = False) -> str:
    """The banner's table of the kernels that matter (see the module docstring); also the Stalls & verdicts page's
    kernel-verdict table, with every step whole (``step_chars`` None) and each row's evidence folded under its step
    (``evidence``): one layout whose next step keeps the row's widest column, never a 110-px sliver at 900 px."""
    if not rows:
        return ""
    names = [str(r["name"]) for r in rows]
    shorts = short_names(names)
    rank_of = _hot_ranks(s)
    body, prev = [], None
    notes = stake_notes(rows)
    for i, (r, name, short) in enumerate(zip(rows, names, shorts)):
        verdict = fmt_unit(r.get("verdict"), "text")
        stake = r.get("time_at_stake_ns")
        step = _first_step(r.get("next_steps"))
        shown = ("same as above" if step and step == prev else (clip(step, step_chars) if step_chars else step)
                 if step else "none recorded")
        prev = step
        share = r.get("share")
        time = fmt_ns(r.get("time_ns")) + ("" if is_missing(share) else f" · {fmt_unit(share, 'share')}")
        rank = rank_of.get(name)
        body.append(
            f'<tr><td class="num">{f"#{rank}" if rank else ""}</td>{name_cell(name, short)}'
            f'<td class="num">{esc(time)}</td>'
            f'<td><span class="bound {BOUND_CLASS.get(verdict, "b-none")}">{esc(verdict)}</span></td>'
            f'<td class="num{" tstake" if not is_missing(stake) else " nm"}"{_note_attr(notes.get(i))}>'
            f'{esc(fmt_ns(stake) + notes.get(i, ("", ""))[0])}</td><td class="step"'
            + (f' title="{esc(step)}"' if step_chars else "") + f'>{esc(shown)}{_evidence(r) if evidence else ""}</td>'
            "</tr>")
    head = ("" if evidence else
            f'<h3 class="kh">{esc("Kernels that matter (" + critical_shown_text(s, len(rows)) + ")")}</h3>')
    return (f'{head}<table class="akernels"><thead><tr><th scope="col">#</th>'
            '<th scope="col">kernel</th><th scope="col">GPU time · share</th><th scope="col">bound</th>'
            '<th scope="col">time at stake</th><th scope="col">next step</th></tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>'
            + "".join(f'<p class="note">{esc(m.strip())} time at stake: {esc(t)}.</p>'
                      for m, t in dict(notes.values()).items()))


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
        + (f' <em class="premise">— {esc(f.premise)}</em>' if getattr(f, "premise", "") else "")
        + f'<span class="act"> → {esc(clip(next_step(f), 2 * STEP_CHARS))}</span></li>' for f in listed)
    lst = f'<ol class="top">{items}</ol>' if items else (f'<p class="note">{esc(a.note)}</p>' if a.note else "")
    if a.first_step:
        lst = f'<p class="first"><strong>First:</strong> {esc(a.first_step)}</p>' + lst
    from gpulens.reports._answer import clock_note

    clocks = clock_note(s)  # read with the verdict: the time bases the figures rest on
    clocks_html = f'<p class="first"><strong>Clocks:</strong> {esc(clocks)}</p>' if clocks else ""
    if a.path_note:  # why the critical path runs through host work beside a verdict on the GPU side: one line,
        # unfolded on demand (whole, the banner of a two-rank run no longer fit the first screen)
        clocks_html = (f'<details class="first"><summary><strong>Critical path:</strong> '
                       f'{esc(a.path_note.split(" (")[0])} — why the verdict differs</summary>{esc(a.path_note)}'
                       '</details>' + clocks_html)
    return (f'<section class="answer" aria-label="Answer"><p class="verdict"><span class="vlabel">'
            f'{esc(a.verdict or "verdict")}</span> {esc(_after_label(a))}</p>{clocks_html}{lst}'
            f'{kernels_html(s, rows)}</section>')


__all__ = ["answer_html", "kernels_html", "kernel_rows", "ANSWER_KERNELS"]
