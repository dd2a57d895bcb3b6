"""The idle-cause findings of ``bottlenecks``: one finding per cause (waiting for the host, launch overhead,
synchronisation, queued work, no cause recorded) that holds at least 5 % of the steady span, and the small-grid
kernels. Figures come from :mod:`gpulens.analyzers.bottlenecks`; the wording of the idle root finding and of the
one-off gaps is :mod:`gpulens.analyzers._idle_findings`'s.
"""

from __future__ import annotations

from typing import Any

from gpulens.analyzers import _advice
from gpulens.analyzers._idle_blocking import blocking_text, one_gap_text, unrecorded_wait_text
from gpulens.analyzers._idle_findings import span_share_text, steady_state, uvm_text
from gpulens.analyzers.base import Finding
from gpulens.analyzers.verdict_rules import FULL_GRID_SHARE
from gpulens.units import fmt_ns, plural


def cause_findings(tot: dict[str, Any], summary: dict[str, Any], parent: str | None = None, pytorch: bool = True,
              blocking: list[dict[str, Any]] | None = None, tool: str | None = None,
              vendor: str | None = None, gpus: int = 1, queued_text: str = "") -> list[Finding]:
    """Idle-cause findings (children of the breakdown's ``idle`` finding when it was reported: ``parent``); the
    advice names PyTorch remedies only for a PyTorch program (``pytorch``, :mod:`gpulens.analyzers._advice`), and
    SMs or CUs by the input's ``vendor`` (:func:`gpulens.analyzers._advice.vendor_word`). ``tot`` sums the rows of
    ``gpus`` GPUs: with several, a share is of their summed spans (the wording of the breakdown's idle finding)."""
    steady, _ = steady_state(tot)
    span = max(steady, 1)
    if steady == tot["span_ns"]:
        of_span = "of the GPU span" if gpus <= 1 else f"of the {gpus} GPUs' summed spans"
    else:
        of_span = f"of the {fmt_ns(steady)} outside the one-off gaps" + (
            f", summed over {gpus} GPUs" if gpus > 1 else "")
    out = []
    say = {k: _advice.idle_text(_advice.IDLE_DETAILS, pytorch, k, None, vendor=vendor)
           for k in _advice.IDLE_DETAILS[pytorch]}
    texts = {
        "idle_host_ns": ("host-bound", "GPU idle waiting for the host",
                         "The next kernel was launched only after the GPU had run dry: the CPU is busy elsewhere "
                         + ("(Python, data loading, CPU ops). " if pytorch else "(host code, I/O). ") + say["host"]),
        "idle_launch_ns": ("launch-bound", "GPU idle on kernel launch overhead",
                           # "0 of 4 launches did less GPU work than the launch call cost" read as a contradiction
                           # of the title: without short launches the gaps are the launch path itself
                           (f"{summary['short_launches']:,} of {plural(summary['launch_calls'], 'launch(es)')} did less GPU work "
                            "than the launch call cost. " if summary.get("short_launches") else
                            "The GPU ran dry between a kernel's end and the next launch reaching it (the launch "
                            "call and its path to the GPU), though every kernel did more work than its launch "
                            "call cost. ") + say["launch"]),
        "idle_sync_ns": ("sync-bound", "GPU idle while the host is blocked in synchronisations or synchronous "
                         "copies", (f"Blocking calls in these gaps: {blocking_text(blocking)}. " if blocking else "")
                         + say["sync"]),
    }
    texts["idle_queued_ns"] = (
        "dependency-bound", "GPU idle with work already queued",
        "The work was enqueued — its launch call had returned before the GPU went idle, or returned during the "
        "idle time and the work still started later than a launch costs — so it waited on another stream, an "
        "event or device-side scheduling, not on the host. "
        + (f"In these gaps {queued_text}. " if queued_text else ""))
    from gpulens.analyzers._lost_work import lost_stake_note

    big_q = (summary.get("largest_gap") or {}).get("queued") or {}
    unrecorded = unrecorded_wait_text(big_q, int(tot["idle_queued_ns"]))
    lost = bool(big_q.get("lost_launches") and unrecorded)  # lost work most likely ran there: no wait on a stream
    texts["idle_queued_ns"] = texts["idle_queued_ns"][:2] + (("" if lost else texts["idle_queued_ns"][2]) + (
        unrecorded[0].upper() + unrecorded[1:] + "." if unrecorded else
        "Look at cross-stream dependencies and event waits; with no other stream busy, the launch latency table "
        "shows how long after its launch call each kernel started.") + lost_stake_note(tot),)
    linked = int(summary.get("launch_calls") or 0)
    recorded = int(summary.get("launch_calls_recorded") or 0)
    from gpulens.analyzers.bottlenecks import idle_cause_label

    uvm = uvm_text(tot)
    texts["idle_unattributed_ns"] = (
        "idle-unattributed", (f"GPU idle mostly on {idle_cause_label(tot)}" if uvm else
                              "GPU idle for reasons the trace does not show"),
        (uvm[0].upper() + uvm[1:] + "." if uvm else
         "No launch call is linked to the work that ended these gaps ("
         + ("calls outside the profiling window, or made by a thread or process it did not record). " if linked else
            "its launch calls carry no correlation id). " if recorded else
            "GPU-only trace, or calls outside the profiling window). ")
         + _advice.idle_text(_advice.IDLE_DETAILS, pytorch, "unattributed", tool, linked, vendor, recorded)))
    # idle inside one clock domain that the GPU's work on another clock may fill (breakdown idle_other_clock_ns):
    # each cause is at most its figure, with nothing at stake (docs/bottlenecks.md "Clock domains")
    from gpulens.analyzers._lost_work import measured_stake
    from gpulens.analyzers._span import idle_unmeasured_ns
    from gpulens.analyzers.bottlenecks import if_recurs, too_few_gaps

    clock = int(tot.get("idle_other_clock_ns") or 0)
    other = idle_unmeasured_ns(tot)
    for key, (cat, title, detail) in texts.items():
        if tot[key] >= 0.05 * span:
            n = int(tot.get(f"gaps_{key[5:-3]}") or 0)
            one = one_gap_text((summary.get("largest_gap") or {}).get(key[5:-3]), int(tot[key]), n)
            # nothing at stake in idle that is at most, nor in queued idle lost GPU work most likely filled
            stake = None if other else measured_stake(int(tot[key]), tot) if key == "idle_queued_ns" else int(tot[key])
            out.append(Finding(f"{title}: {'at most ' if other else ''}{fmt_ns(tot[key])} "
                               f"({span_share_text(tot[key], span)} {of_span}"
                               + (f"; up to {fmt_ns(clock)} of the idle may be GPU work on another clock)" if clock
                                  else "; GPU work recorded without a usable start or end may fill any of it)" if other
                                  else ")") + (f" over {plural(n, 'gap')}{one}" if one else ""),
                               detail if not too_few_gaps(n, tot[key], span) else
                               if_recurs(detail, f"{fmt_ns(tot[key])} of it", n),
                               severity="info" if stake is None or tot[key] < 0.1 * span else "warning",
                               category=cat, time_at_stake_ns=stake,
                               key="idle/" + key[5:-3], parent=parent))
    if tot.get("small_grid_ns"):
        # busy kernel time, already ranked through those kernels' verdicts: stated, not counted a second time
        # the figure's own definition (bottlenecks: fewer blocks than FULL_GRID_SHARE of the SMs/CUs): "fewer
        # blocks than CUs" read as including a 288-block grid on 304 CUs, which the figure leaves out
        blocks = _advice.vendor_word(vendor, "blocks")  # AMD: workgroups (HIP Programming Guide)
        out.append(Finding(f"Small-grid kernels: {fmt_ns(tot['small_grid_ns'])} in kernels with fewer {blocks} "
                           f"than {FULL_GRID_SHARE * 100:.0f} % of the {_advice.vendor_word(vendor, 'sms')}",
                           f"These launches leave part of the GPU empty. Give them more {blocks} "
                           "(more work per launch, several problems batched into one launch; each kernel's verdict "
                           "says how for its kind) or run them concurrently on another stream.",
                           category="latency/occupancy-bound", key="small-grid"))
    return out


def mark_setup(findings: list[Finding], one_off: int) -> None:
    """Give the "waiting for the host" cause finding (key ``idle/host``) its steady-state stake, in place, when
    ``one_off`` ns of it are set-up calls (:func:`gpulens.analyzers._idle_findings.setup_part`): the time at stake
    is the host wait less them, and the title says the one-off part — the figure of the run headline's "at stake in
    steady state" (HTA AlexNet: 2.82 s waiting for the host, 2.68 s of it cudaMalloc and stream creation)."""
    for f in findings if one_off else []:
        if f.key == "idle/host" and f.time_at_stake_ns is not None:
            steady = max(int(f.time_at_stake_ns) - one_off, 0)
            f.title += (f"; {fmt_ns(one_off)} of it one-off set-up calls (once per run, not per step), "
                        f"{fmt_ns(steady)} not")
            f.time_at_stake_ns = steady
