"""The answer a report gives first — the run verdict in one sentence and the top findings with their next step —
chosen from the analyzers' results for every reporter alike (console, HTML, Markdown). Nothing is computed here:
the verdict is the ``verdicts`` result's (else the ``bottlenecks`` one's), the figures are the ``breakdown``'s,
and the findings are the analyzers' own, ranked by their time at stake.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


from gpulens.analyzers import Finding
from gpulens.analyzers._idle_findings import SETUP_WORDS
from gpulens.reports._answer_proof import (NEAR_TIE, largest_words, order_summed, secondary_notes,  # noqa: F401
                                           steady_busy_text, summed_note)
from gpulens.analyzers._run_shares import outside_text, scope_label, setup_text
from gpulens.reports import _truncated
from gpulens.reports._format import busy_pct_text, fmt_ns, fmt_unit, is_missing, share_pct_text, untimed_text

#: The label every reporter puts before :attr:`Answer.fix_first`.
FIX_FIRST_LABEL = "At stake, largest first"
#: Findings shown in the answer.
TOP = 3


@dataclass
class Answer:
    """What the report says first about one source.

    Attributes:
        verdict: short label (``"host-bound"``) or "" when no analysis gave one.
        sentence: the run verdict in one sentence.
        reason: that sentence without its leading verdict (what the figures say).
        findings: the top root findings (no parent; each key and each kernel once), largest time at stake first.
        note: what to say instead when no finding has an estimated time at stake ("" when some have).
        first_step: the step that settles what the verdict leaves open, shown before the findings when every top
            finding rests on an unverified premise ("" otherwise): most critical kernel time undetermined → the
            "undetermined" finding's title and next step (collect counters), so an upper bound resting on the
            unknown bound never leads the first screen alone.
        path_note: why the critical path runs through host work while the verdict is on the GPU side (the
            ``verdicts`` summary's ``path_note``, one sentence), shown on its own line after the verdict; "" when
            the two agree.
        fix_first: with two readings (a secondary cause beside the verdict), their times at stake largest first
            and the largest single finding to start with (the ``verdicts`` summary's ``fix_first``), shown on its
            own line after the verdict under "At stake, largest first"; "" otherwise.
        headline: the answer after the verdict label, short — the verdict's own share of the span and its time at
            stake where a share decided it, the busy figure, why there is no verdict — what every reporter shows on
            the verdict line.
        detail: the rest of ``reason`` (start-up, host-only time outside the span, the kernels' class, the
            secondary cause, launches without a GPU record), shown by every reporter under the verdict line as
            "Detail:"; "" when there is none. ``sentence`` and ``reason`` hold both, in that order.
    """

    verdict: str
    sentence: str
    findings: list[Finding]
    reason: str = ""
    note: str = ""
    first_step: str = ""
    path_note: str = ""
    fix_first: str = ""
    headline: str = ""
    detail: str = ""

    @property
    def short_sentence(self) -> str:
        """:attr:`sentence` without its :attr:`detail`: the verdict line of a report that shows no separate label
        (Markdown)."""
        return self.sentence.replace(f"; {self.detail}.", ".", 1) if self.detail else self.sentence


def shown_title(f: Finding) -> str:
    """A finding's title as every reporter shows it: the kernel it quotes under the label the report's tables give
    it (:func:`~gpulens.reports._names.label_in_text`), with its unverified premise, when it has one ("… up to 54 % of
    its time lost to empty block slots — if it is not memory-bound (its bound is undetermined)")."""
    from gpulens.analyzers._stake import premise_beside
    from gpulens.reports._names import label_in_text

    title = label_in_text(f.title, getattr(f, "kernel", None))
    return f"{title} — {premise}" if (premise := premise_beside(title, getattr(f, "premise", ""))) else title


def no_estimate_note(findings: list[Finding]) -> str:
    """The sentence shown where the top findings go when none of them has an estimated gain."""
    roots = root_findings(findings)
    unknown = [f for f in roots if f.time_at_stake_ns is None and f.category != "data-quality"]
    if not unknown:
        return "No finding with a time at stake."
    return (f"No finding has an estimated gain; {len(unknown)} {'has' if len(unknown) == 1 else 'have'} an unknown "
            "gain (listed under Findings).")


#: Finding categories that are notes on what the analysis covers, not problems: without an action they have no
#: next step (their detail is evidence, never shown as a step to take).
NOTE_CATEGORIES = ("coverage", "profiling-window")
#: What every reporter shows as the next step of such a note.
NO_STEP = "nothing to do: a note on what the analysis covers"


def next_step(f: Finding) -> str:
    """The finding's next step: its ``action``; else, for a note (:data:`NOTE_CATEGORIES`), :data:`NO_STEP`; else
    its detail (which says what to do) — whole: a step a person must follow is never cut mid-sentence."""
    if getattr(f, "action", ""):
        return f.action.strip()
    if getattr(f, "category", "") in NOTE_CATEGORIES:
        return NO_STEP
    detail = (f.detail or "").strip()
    return detail or "no next step recorded"


def root_findings(findings: list[Finding]) -> list[Finding]:
    """Findings without a parent (each nanosecond counted once), each key once, in the one ranking order
    (:func:`gpulens.analyzers._tree.rank_key`: determined figures first, then upper bounds resting on an unverified
    premise; largest time at stake first within each)."""
    from gpulens.analyzers._tree import rank_key

    seen: set[Any] = set()
    out = []
    for f in sorted(findings, key=rank_key):
        if getattr(f, "parent", None):
            continue
        key = getattr(f, "key", None) or (f.category, f.title)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    return out


#: How many findings each reporter lists (roots, children under each root); what is left out is counted and named.
CONSOLE_LIST = (8, 4)
MARKDOWN_LIST = (10, 6)


def finding_tree(findings: list[Finding], max_roots: int | None = None, max_children: int | None = None
                 ) -> tuple[list[tuple[Finding, int]], int]:
    """The findings as every reporter lists them: ``(finding, depth)`` in tree order — the roots of
    :func:`root_findings` in the one ranking order, each followed by the findings that detail it (``parent``; at
    any depth), ranked the same way (largest time at stake first) — and the number left out by the limits
    (``max_roots`` roots, ``max_children`` descendants under each root; None: no limit; a :func:`pinned`
    data-quality warning is listed beyond ``max_roots``, in its ranking place). A child's time is part of
    its parent's (:func:`gpulens.analyzers._tree.arrange` already shows it with at most the parent's figure)."""
    from gpulens.analyzers._tree import rank_key

    children: dict[str, list[Finding]] = {}
    for f in findings:
        if getattr(f, "parent", None):
            children.setdefault(f.parent, []).append(f)
    rows: list[tuple[Finding, int]] = []
    left = 0
    listed: set[int] = set()

    def subtree(f: Finding, depth: int, out: list[tuple[Finding, int]]) -> None:
        for c in sorted(children.get(getattr(f, "key", None) or "", []), key=rank_key):
            if id(c) in listed or depth > 8:
                continue
            listed.add(id(c))
            out.append((c, depth))
            subtree(c, depth + 1, out)

    roots = root_findings(findings)
    for i, r in enumerate(roots):
        listed.add(id(r))
        under: list[tuple[Finding, int]] = []
        subtree(r, 1, under)
        if max_roots is not None and i >= max_roots and not pinned(r):
            left += 1 + len(under)
            continue
        rows.append((r, 0))
        keep = under if max_children is None else under[:max_children]
        rows += keep
        left += len(under) - len(keep)
    # a child whose chain of parents reaches no listed root (a duplicate key's subtree): left out, counted
    left += sum(1 for f in findings if id(f) not in listed and getattr(f, "parent", None))
    return rows, left


def pinned(f: Finding) -> bool:
    """Whether a root finding is listed whatever the reporter's limit: a data-quality warning (recorded durations
    clipped, launches without their kernel...) says how far the figures beside it can be trusted, so it is never
    among the findings left out, even when it has no time at stake and ranks last."""
    return getattr(f, "category", "") == "data-quality" and getattr(f, "severity", "") in ("warning", "critical")


def more_text(left: int, where: str = "the JSON/HTML report") -> str:
    """``"+3 more findings in the JSON/HTML report"`` ("" when none are left out)."""
    return f"+{left:,} more finding{'s' if left != 1 else ''} in {where}" if left else ""


def top_findings(findings: list[Finding], n: int = TOP) -> list[Finding]:
    """The ``n`` first root findings with a time at stake in ranking order (determined before premised; largest
    time at stake first), one per kernel (warnings before notes at equal time). A severity never reorders time:
    an ``info`` finding with more at stake stays above a later warning (ncu H200 CSV: gemm_naive's 88.40 µs was
    left out while a 20 ns warning was listed)."""
    from gpulens.analyzers._tree import rank_key

    level = {"critical": 0, "warning": 1}
    out, kernels = [], set()
    for f in sorted(root_findings(findings), key=lambda g: (rank_key(g), level.get(g.severity, 2))):
        if not f.time_at_stake_ns:
            continue
        if f.kernel and f.kernel in kernels:
            continue
        kernels.add(f.kernel)
        out.append(f)
        if len(out) == n:
            break
    return out


def _pct(v: Any) -> str:
    return "an unknown share" if is_missing(v) else share_pct_text(float(v))


def truncated_text(tl: Any) -> str:
    """Where each truncated input of a Timeline stops and what it lost: ``"run.json.gz stops after 336,361 bytes of
    trace text (its events after that point are lost)"``; a rank file of a multi-rank input is named by its rank
    (``"rank 1 (rank-1.json) stops after … (3,151 complete events kept; rank 1's events after that point are lost;
    the other files were read whole)"``), the count kept as the collector's warning gives it; a file cut after its
    whole events array (the collector says "(the whole array)") lost only the keys written after it."""
    import re

    from gpulens.collectors._gzip_words import NOTHING_LOST

    meta = tl.meta
    at = getattr(meta, "truncated_at", {}) or {}
    sources = list(getattr(meta, "sources", None) or [])
    multi = len(sources) > 1 or int(getattr(meta, "rank_files", 0) or 0) > 1
    rank_of = {str(src.get("path")): src.get("rank") for src in sources if isinstance(src, dict)}
    parts = []
    for p, n in at.items():
        rank = rank_of.get(str(p))
        named = multi and rank is not None
        said = next((m for w in meta.warnings if str(w).startswith(f"{p}:")
                     for m in [re.search(r"kept ([0-9,]+) complete events( \(the whole array\))?", str(w))] if m),
                    None)
        kept = said.group(1) if said else None
        lost = (f"{int(kept.replace(',', '')):,} complete events kept; " if kept else "") + \
            (f"rank {rank}'s events after that point are lost" if named else "its events after that point are lost")
        if said and said.group(2):  # cut after its complete events array: only the keys written after it are lost
            lost = (f"every event kept ({int(kept.replace(',', '')):,}); only top-level keys written after the events "
                    "array may be lost")
        who = f"rank {rank} ({Path(p).name})" if named else Path(p).name
        if any(str(w).startswith(f"{p}:") and NOTHING_LOST in str(w) for w in meta.warnings):
            parts.append(f"{who} fails its gzip check after all {int(n):,} bytes of its text ({NOTHING_LOST}, but a "
                         "byte of it may be wrong)")
            continue
        parts.append(f"{who} stops after {int(n):,} bytes of trace text ({lost})")
    total = max(len(sources), int(getattr(meta, "rank_files", 0) or 0))
    if parts and multi and len(at) + len(getattr(meta, "unread", None) or {}) < total:
        parts[-1] = parts[-1][:-1] + "; the other files were read whole)"
    return "; ".join(parts) or "it stops before its end"


def partial_reason(s: Any) -> str:
    """Why a source's results are partial, in one line (``""`` when they are not): the rank files that could not be
    read (:meth:`~gpulens.timeline.timeline.TimelineMeta.unread_text`) and where truncated inputs stop. The one text
    shown by the console (at the top and in the status row), the HTML, the Markdown and the JSON
    (``partial_reason``), and read back by the gate."""
    meta = s.timeline.meta
    parts = []
    unread = meta.unread_text() if getattr(meta, "unread", None) else ""
    if unread:
        parts.append(unread)
    from gpulens.report import workload_failure

    failed = workload_failure(meta)
    if failed:  # a live run whose script raised or exited non-zero: what ran until then was profiled
        parts.append(f"{failed} — the profile covers the run up to that point")
    if meta.truncated:
        lead, cover = _truncated.truncated_lead(s.timeline)
        cover = "the part read holds no GPU event: there are no figures to show" if s.status == "no_gpu_work" else cover
        parts.append(f"{lead} — {truncated_text(s.timeline)}: {cover}")
    dropped = getattr(meta, "dropped", None) or {}
    if dropped:  # unreadable events left out: a kernel among them is missing from every figure
        n = sum(dropped.values())
        where = ", ".join(f"{Path(f).name} ×{k}" for f, k in list(dropped.items())[:3])
        parts.append(f"{n} unreadable event{'s' if n != 1 else ''} dropped ({where}; malformed, or fields of the "
                     "wrong type — see the warnings): the figures cover the rest")
    return "; ".join(parts)


def clock_note(s: Any) -> str:
    """The source's clock warnings in one line (``""`` when its events share one clock): GPU events of one device on
    two time bases (the jump is left out of every span, step and critical path; overlaps across it are unknown),
    ranks whose clocks disagree, or GPU events that start before (or a day after) their launch calls. The one text
    every reporter shows beside the verdict (console and HTML under it,
    Markdown under the verdict line, JSON ``clock_note``), so a figure is never read without it."""
    from gpulens.analyzers._span import CLOCK_GAP_TOPIC, CLOCK_HOST_TOPIC, CLOCK_SKEW_TOPIC

    topics = (CLOCK_GAP_TOPIC, CLOCK_SKEW_TOPIC, CLOCK_HOST_TOPIC)
    return "; ".join(w for w in s.timeline.meta.warnings if w.startswith(topics))


def _gpu_count(s: Any) -> int:
    """GPUs with GPU work in the source (from the breakdown; 1 when unknown)."""
    bd = s.results.get("breakdown")
    return int((bd.summary.get("gpu_count") if bd is not None and not bd.skipped else 1) or 1)


def answer(s: Any) -> Answer:
    """The answer for one :class:`~gpulens.report.SourceReport`."""
    sm = s.summary
    if s.status == "no_gpu_work":
        from gpulens.analyzers.verdicts import EMPTY_RUN_WORDS, empty_run_verdict

        code, _ = empty_run_verdict(s.timeline)  # which case holds: decided once, as the JSON run verdict
        head = EMPTY_RUN_WORDS[code]
        meta = s.timeline.meta
        if code == "truncated-input":
            cut = truncated_text(s.timeline)
            return Answer(head, f"The input is truncated ({cut}) and the part that could be read holds no GPU "
                          "event: a profiler writes its GPU events after the host events, so they are in the lost "
                          "part.", [],
                          f"the input is truncated ({cut}); the part that could be read holds no GPU event")
        if code == "incomplete-capture":  # launch calls with no GPU record: the work ran, the capture lost it
            broken = next(str(src["incomplete_capture"]) for src in meta.sources if src.get("incomplete_capture"))
            return Answer(head, f"No GPU event was recorded, but the capture is incomplete: {broken}.",
                          [], f"no GPU event was recorded, but the capture is incomplete: {broken}")
        if code == "device-work-not-read":  # the device worked, in events this reader does not read
            from gpulens.analyzers._span import unread_device_work

            unread = unread_device_work(s.timeline)
            return Answer(head, f"No kernel, copy or fill event that gpulens reads was recorded, "
                          f"but the trace holds device work it does not read: {unread}.", [],
                          f"no event gpulens reads as GPU work, but the device worked: {unread}")
        chosen = next((str(src["selection"]) for src in meta.sources if src.get("selection")), "")
        if chosen:  # a --steps/--window/--ranks selection left nothing: the input may well have GPU work outside it
            hint = next((str(src["selection_hint"]) for src in meta.sources if src.get("selection_hint")), "")
            hint = hint or "run without --steps/--window/--ranks to see the steps and span the input records"
            return Answer(f"{head} in the selection",
                          f"No GPU work in the selection ({chosen}): it holds none of the input's GPU events — "
                          f"{hint}.", [], f"the selection ({chosen}) holds none of the input's GPU events — {hint}")
        why = next((str(p["no_gpu_device"]) for p in (src.get("profile") for src in meta.sources)
                    if isinstance(p, dict) and p.get("no_gpu_device")), "nothing ran on a GPU to analyse")
        return Answer(head, f"No GPU work was recorded in this input: {why}.", [], why)
    vd, bn = s.results.get("verdicts"), s.results.get("bottlenecks")
    figures = bn.summary if bn is not None and not bn.skipped else None  # names a recorded idle cause (class_label)
    verdict = ""
    if vd is not None and not vd.skipped:
        verdict = str(vd.summary.get("run_verdict") or "")
    if not verdict and bn is not None and not bn.skipped:
        verdict = str(bn.summary.get("verdict") or "")
    span = sm.get("span_ns") or 0
    if sm.get("gpu_busy_pct") is None:
        busy = f"GPU busy time is {busy_pct_text(sm)}"
    elif sm.get("untimed_gpu_work") and sm.get("busy_bound") == "unknown":  # no bound: the share is unknown
        busy = f"the GPU's busy share of its {fmt_ns(span)} span is {busy_pct_text(sm)}"
    elif span and _gpu_count(s) > 1 and sm.get("untimed_gpu_work"):
        busy = (f"the {_gpu_count(s)} GPUs were busy at least {share_pct_text(sm['gpu_busy_pct'])} of their summed "
                f"spans ({fmt_ns(sm.get('device_span_ns'))}; wall span {fmt_ns(span)})")
    elif span and _gpu_count(s) > 1:  # busy % is Σ busy / Σ per-GPU span: of their summed spans, not the wall span
        busy = (f"the {_gpu_count(s)} GPUs were busy {share_pct_text(sm['gpu_busy_pct'])} of their summed spans "
                f"({fmt_ns(sm.get('device_span_ns'))}; wall span {fmt_ns(span)})")
    elif span:
        busy = f"the GPU was busy {busy_pct_text(sm)} of its {fmt_ns(span)} span"
    else:
        busy = (f"kernel time {untimed_text(sm)} (no timeline span)" if untimed_text(sm) else
                f"{fmt_ns(sm.get('kernel_time_ns'))} of kernel time was recorded (no timeline span)")
    steady = bn.summary.get("steady_busy_pct") if bn is not None and not bn.skipped else None
    su = vd.summary.get("host_setup") if vd is not None and not vd.skipped else None
    su_lead = bool(su) and verdict == "host-bound" and su.get("steady_ns") is not None  # _answer_proof's docstring
    left_out = [f"{fmt_ns(su['setup_ns'])} of {SETUP_WORDS}"] if su_lead else []
    if steady is not None and span:  # the verdict leaves warm-up/one-off gaps out: say what it is about
        gaps = bn.summary.get("boundary_gaps") or []
        k = len(gaps) or 1
        left = sum(int(g.get("dur_ns") or 0) for g in gaps if isinstance(g, dict))
        # the gap's length beside the steady span: both readings of the run in one sentence (SGLang MI300X: 10.45 ms
        # 93.5 % busy beside one 463.30 ms wait on a dependency outside the capture)
        what = ((f"the {fmt_ns(left)} warm-up/one-off idle gap" if left else "the warm-up/one-off idle gap")
                if k == 1 else f"the {k} warm-up/one-off idle gaps" + (f" ({fmt_ns(left)})" if left else ""))
        steady_text = (f"{_pct(steady)} of the {fmt_ns(bn.summary.get('steady_span_ns'))} outside {what} the "
                       "verdict leaves out")
        if su_lead and sm.get("gpu_busy_pct") is not None and not sm.get("untimed_gpu_work"):  # gaps: "left out"
            busy = steady_busy_text(sm, _pct(steady), bn.summary.get("steady_span_ns"), _gpu_count(s))
            left_out.append(what)
        elif sm.get("gpu_busy_pct") is not None and _gpu_count(s) <= 1:
            # the figure the verdict rests on leads ("gpu-bound — busy 10.0 % of its span" read as a contradiction)
            busy = f"the GPU was busy {steady_text} (busy {busy_pct_text(sm)} of its whole {fmt_ns(span)} span)"
        else:
            busy += f" ({steady_text})"
    where = vd.summary.get("verdict_where") if vd is not None and not vd.skipped else None
    if where and span:  # a report analysed before the verdict judged the GPU span only: where it held, first
        busy = (f"{where}" + (" (the input is truncated, so GPU work after the cut may be missing from the span)"
                              if s.timeline.meta.truncated else "") + f"; {busy}")
    # the headline leads with the answer (the class, the figure that proves it and its time at stake); every other
    # clause goes to the detail, shown under it by every reporter (AlexNet's headline ran to 600 characters)
    busy += f"; left out: {' and '.join(left_out)}" if left_out else ""
    extra: list[str] = []
    if su and verdict == "host-bound":  # the verdict names start-up as the cause of the host wait
        extra.append(setup_text(su, _gpu_count(s)))
    if not where and (out := vd.summary.get("outside_span") if vd is not None and not vd.skipped else None) and span:
        # host-only time outside the GPU span (start-up, teardown): its own figure beside the verdict, which judges
        # the span (analyzers._run_shares.outside_span)
        extra.append(outside_text(out) + (" (the input is truncated, so GPU work after the cut may be missing from "
                                          "the span)" if s.timeline.meta.truncated else ""))
    path = vd.summary.get("host_path_share") if vd is not None and not vd.skipped else None
    if path is not None and verdict == "host-bound":  # analyzers.verdicts: the host paces the steps
        busy += (f", but the host holds {share_pct_text(100.0 * path)} of the steps' critical path: faster kernels "
                 "shorten a step only once the host keeps up")  # the figure that proves this verdict: headline
    ln = s.results.get("launches")
    captured = int(ln.summary.get("launch_calls_captured") or 0) if ln is not None and not ln.skipped else 0
    if captured and 2 * captured >= int(ln.summary.get("launch_calls") or 0):  # mostly a CUDA/HIP graph capture
        busy += (f"; but {captured} of the {ln.summary['launch_calls']} launch calls were captured into a CUDA/HIP "
                 "graph, not run: the trace records graph capture, and the captured work's GPU time is not in it")
    lost = int(ln.summary.get("launch_calls_lost") or 0) if ln is not None and not ln.skipped else 0
    if lost:  # launched work the capture did not record (analyzers.launches.lost_launches): the figures miss it
        extra.append(f"but {lost} of the {ln.summary['launch_calls']} launch calls have no GPU record (the capture "
                     "lost or cut off their work): the figures cover only the GPU work recorded")
    if verdict == "undetermined":  # why there is no verdict, in the sentence that would have given it
        why = vd.summary.get("basis") if vd is not None and not vd.skipped else None
        if why and vd.summary.get("outside_span"):  # said once, in the detail
            why = why.replace("; " + outside_text(vd.summary["outside_span"]), "")
        if not why and bn is not None and not bn.skipped and bn.summary.get("verdict_evidence"):
            why = f"too little evidence for a verdict: {bn.summary['verdict_evidence']}"
        busy += f" — {why}" if why else ""
    kv = str(vd.summary.get("kernel_verdict") or "") if vd is not None and not vd.skipped else ""
    tail = f"most kernel time is {kv}" if kv and kv not in (verdict, "undetermined") else ""
    if tail and vd.summary.get("exposed_comm_weighed_ns") is not None:  # analyzers._run_shares._overlapped_comm
        tail += f", most of it under computation ({fmt_ns(vd.summary['exposed_comm_weighed_ns'])} exposed)"
    sec = vd.summary.get("secondary_cause") if vd is not None and not vd.skipped else None
    lead = vd.summary.get("verdict_share_pct") if vd is not None and not vd.skipped else None
    from gpulens.analyzers.bottlenecks import RANK_CLASSES, class_label as _label

    of = ("steady span" if steady is not None else "span") if _gpu_count(s) <= 1 else \
        ("GPUs' summed steady spans" if steady is not None else "GPUs' summed spans")
    proof, stake_said = "", False  # the verdict's own share of the span, led by the headline; its stake said
    if lead is not None and verdict:
        key = next((k for k, c in RANK_CLASSES.items() if c == verdict), None)
        ns = bn.summary.get(key) if key and bn is not None and not bn.skipped else None
        who = f"the {_share_words(_label(verdict, figures))}" if key else "GPU computing"
        proof = (f"{who} {largest_words(vd.summary, verdict)} ({share_pct_text(lead)} of the {of})"
                 + (f": {fmt_ns(ns)} at stake from this cause alone{summed_note(_gpu_count(s), ns, span)}"
                    if key and not is_missing(ns) else ""))
        stake_said = bool(key) and not is_missing(ns)  # with summed_note's "summed over the N GPUs" where N > 1
        if su and verdict == "host-bound" and key and not is_missing(ns) and su.get("steady_ns") is not None:
            # the stake once set-up is done leads (AlexNet: 2.68 s of its 2.82 s cudaMalloc and stream creation), then
            # the share's own time (99.6 % of 111.46 ms is not 50 ms); the one-off part is said in "left out"
            proof = (f"{fmt_ns(su['steady_ns'])} at stake in steady state from this cause alone"
                     f"{summed_note(_gpu_count(s), su['steady_ns'], span)}: {who} {largest_words(vd.summary, verdict)} "
                     f"({fmt_ns(su['steady_ns'])}, {share_pct_text(lead)} of the {of})")  # set-up left out of both
    if not proof and lead is None and sm.get("gpu_busy_pct") is None and vd is not None and not vd.skipped:
        from gpulens.reports._answer_proof import kernel_class_proof  # counters only: the kernels' classes decide

        proof = kernel_class_proof(verdict, vd.summary)
    if sec and sec != verdict:  # the runner-up measured share (analyzers.verdicts: the dominant share is the verdict)
        sec_pct = vd.summary.get("secondary_share_pct")
        share = share_pct_text(sec_pct)
        also = ""
        if sec == kv and sec in RANK_CLASSES.values():  # one class named once ("most kernel time is X; secondary
            tail, also = "", "; it also holds most kernel time"  # cause: X" said it twice); GPU computing always
            # holds the kernel time: there the kernels' class stays in the detail ("most kernel time is latency/…")
        also += secondary_notes(vd.summary, verdict)  # a (near) tie; a host wait of one-off set-up calls
        extra.append(f"secondary cause: {_label(sec, figures)} ({share} of the {of}{also})"
                     if sec in RANK_CLASSES.values() else
                     f"GPU computing is the secondary share ({share} of the {of}{also})")
    if tail:
        extra.insert(0, tail)
    # the critical path held by host work beside a verdict on the GPU side: why both hold — said on its own line
    # after the verdict (inside it, GPT-2's verdict grew to five lines)
    note = vd.summary.get("path_note") if vd is not None and not vd.skipped else None
    aside = f"{note}." if note else ""
    if aside.startswith("the critical path "):  # shown under the label "Critical path:", never said twice
        aside = aside[len("the critical path "):]
        over = "over the verdict's steady state "
        aside = f"{over[:-1]}, it {aside[len(over):]}" if aside.startswith(over) else f"it {aside}"
    from gpulens.analyzers._idle_findings import uvm_text
    from gpulens.analyzers.bottlenecks import idle_cause_label

    if verdict == "idle-unattributed" and idle_cause_label(figures):  # the cause a finding names, with its time and
        extra.insert(0, uvm_text(figures, "of the idle lies"))  # remedy (analyzers._idle_findings.uvm_text)
    if s.timeline.meta.truncated:  # every figure covers only the part of the input that could be read
        lead, cover = _truncated.truncated_lead(s.timeline)
        busy += f" ({lead} — {truncated_text(s.timeline)}: {cover})"
    if getattr(s.timeline.meta, "unread", None):  # ranks missing: every figure covers the ranks that were read
        busy += (f" ({len(s.timeline.meta.unread)} of {max(s.timeline.meta.rank_files, len(s.timeline.meta.unread))} "
                 "rank files could not be read: the figures cover the others)")
    short = f"{proof}; {busy}" if proof else busy
    detail = "; ".join(extra)
    if verdict:
        verdict = _label(verdict, figures)  # "idle-unattributed" → "GPU idle, cause not recorded"
        scope = vd.summary.get("verdict_scope") if vd is not None and not vd.skipped else None
        if scope:  # the part of the span the verdict is about, as a short badge (its figures are in the headline):
            verdict += f" ({scope_label(scope)})"  # a bare "gpu-bound" beside a GPU 87 % idle read as a contradiction
        head = "GPU" + verdict[3:] if verdict.lower().startswith("gpu") else f"{verdict[:1].upper()}{verdict[1:]}"
        sentence = f"{head}: {short}" + (f"; {detail}" if detail else "") + "."  # "GPU-bound", never "Gpu-bound"
    else:
        # why the verdicts analysis gave none (a counter-only run records no kernel durations); "did not run" only
        # when it was not run at all (--only)
        why = (vd.skipped_reason if vd is not None and getattr(vd, "skipped", False) and vd.skipped_reason
               else "the verdict analysis did not run")
        sentence = f"No run verdict — {why}: {short}" + (f"; {detail}" if detail else "") + "."
    top = top_findings(s.findings())
    order = str(vd.summary.get("fix_first") or "") if vd is not None and not vd.skipped else ""
    # the sum over the GPUs is said once in the answer: by the headline's time at stake when it carries it (the HTML
    # banner shows both lines; a second "summed over the 2 GPUs" pushed its kernels below the first screen)
    summed = 1 if stake_said else _gpu_count(s)
    order = f"{order_summed(order, summed)}." if order else ""
    return Answer(verdict, sentence, top, short + (f"; {detail}" if detail else ""),
                  "" if top else no_estimate_note(s.findings()), _first_step(s, top), aside, order, short, detail)


def _share_words(label: str) -> str:
    """"host-bound share"; a label holding a clause keeps it whole — "share of GPU idle, cause not recorded" (never
    "the GPU idle, cause not recorded share"), "dependency-bound share (GPU idle with work queued)"; a label that is
    no "-bound" adjective reads as a place in time — "share of time below both roofs"."""
    if "(" in label:
        head, _, rest = label.partition(" (")
        return f"{head} share ({rest}"
    if "," in label or label.startswith("GPU idle"):
        return f"share of {label}"
    return f"{label} share" if label.endswith("-bound") or " " not in label else f"share of time {label}"


def _first_step(s: Any, top: list[Finding]) -> str:
    """:attr:`Answer.first_step`: when no top finding is determined, the step that every other judgement rests on,
    title and next step: a data-quality warning (:func:`pinned`: launches whose GPU work was not recorded, clipped
    durations — the figures cover only what was recorded, so counters collected on such a capture would settle
    nothing) before the "undetermined" finding (the critical kernels' bound left open: collect counters). Its gain
    is unknown, yet it comes first: the others' figures are premised on it."""
    from gpulens.analyzers._stake import only_assumed_gpu

    if any(not getattr(f, "premise", "") or only_assumed_gpu(f.premise) for f in top):
        return ""
    roots = root_findings(s.findings())
    first = next((f for f in roots if pinned(f)), None) or next((f for f in roots if f.key == "undetermined"), None)
    return f"{first.title}: {next_step(first)}" if first is not None else ""


def stake_ordered(s: Any) -> Any:
    """The ``verdicts`` table's rows in the order the findings are ranked (:func:`gpulens.analyzers._tree.rank_key`
    of each kernel's verdict finding, ``kernel:<name>``: determined times at stake first, then those resting on an
    unverified premise, largest first within each), the rows without a time at stake after them in the table's own
    order (most GPU time first) — one order for the banner, the console and the Markdown, the one the answer's
    findings and the run verdict's "at stake" use (the banner listed kernels by GPU time, 29.32 µs at stake above
    29.41 µs, under findings ranked by time at stake). The table's index is kept (``cumulative_share`` stays the
    GPU-time order's: never read from the rows shown)."""
    from gpulens.analyzers._tree import rank_key

    vd = s.results.get("verdicts")
    t = vd.table
    if t is None or not len(t) or "name" not in t:
        return t
    keys = {f.key: rank_key(f) for f in vd.findings if str(getattr(f, "key", "") or "").startswith("kernel:")}
    stake = t["time_at_stake_ns"] if "time_at_stake_ns" in t else None
    order = []
    for i, name in enumerate(t["name"].astype(str)):
        k = keys.get(f"kernel:{name}")
        known = stake is not None and not is_missing(stake.iloc[i])
        # a row whose stake the table shows but no finding ranks (none today): by its figure, as a determined one
        order.append(k if k is not None and known else (0, -float(stake.iloc[i])) if known else (4, 0))
    ranks = sorted(range(len(t)), key=lambda i: order[i])  # stable: ties keep the GPU-time order
    return t.iloc[ranks]


def order_text(stakes: Any) -> str:
    """The order of the kernel-verdict rows shown (:func:`stake_ordered`), from their ``time_at_stake_ns``, said in
    every reporter's heading of that table: "largest time at stake first", "…, then those of unknown time at stake by GPU time", or "most GPU time
    first: no time at stake is known" when none is known (the order is then the table's own); "" for one row."""
    known = [not is_missing(v) for v in stakes]
    if len(known) <= 1:
        return ""
    if not any(known):
        return "most GPU time first: no time at stake is known"
    return "largest time at stake first" + ("" if all(known) else ", then those of unknown time at stake by GPU time")


def verdict_rows(s: Any, n: int) -> tuple[Any, str]:
    """The kernel-verdict rows a report shows, one rule for console, Markdown and HTML: the first ``n`` rows of the
    ``verdicts`` table in the findings' order (:func:`stake_ordered`, said by :func:`order_text`), and the
    note to print when rows are cut: "" when all are shown, else :func:`critical_shown_text` ("the top n of M
    critical kernels; all M: …"). ``n`` is the medium's row limit (console: ``--top``)."""
    t = stake_ordered(s)
    n = max(int(n), 0)
    return t.iloc[:n], (critical_shown_text(s, n) if len(t) > n else "")


def critical_shown_text(s: Any, shown: int) -> str:
    """What the first ``shown`` rows of :func:`verdict_rows` are — one sentence for the HTML banner, the console and
    the Markdown verdict table: all of them, "the 6 critical kernels, which cover 86.6 % of kernel time" (the
    table's ``cumulative_share`` at its last row); some, "the top 5 of 6 critical kernels; all 6: 86.6 % of kernel
    time" (top in the order :func:`order_text` says), never a share of the rows shown, which the table
    (cumulative in GPU-time order) does not give. The share is left out where durations were not recorded."""
    vd = s.results.get("verdicts")
    total = len(vd.table) if vd is not None and vd.table is not None else 0
    shown = min(shown, total)
    hs = s.results.get("hotspots")
    crit = hs.summary.get("critical_count") if hs is not None and not hs.skipped else None
    part = vd.table["cumulative_share"].iloc[total - 1] if total and "cumulative_share" in vd.table else None
    known = bool(crit) and not is_missing(part)
    if total > shown:
        return (f"the top {shown} of {total} critical kernels"
                + (f"; all {total}: {fmt_unit(part, 'share')} of kernel time" if known else ""))
    if total == 1:
        return "the critical kernel" + (f", which covers {fmt_unit(part, 'share')} of kernel time" if known else "")
    return f"the {total} critical kernels" + (f", which cover {fmt_unit(part, 'share')} of kernel time"
                                               if known else "")
