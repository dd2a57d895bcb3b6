"""Critical path per step (Holistic Trace Analysis' definition; the walk is in :mod:`._critical_walk`, the windows
and per-window paths in :mod:`._critical_paths`): which
chain of CPU ops, launches, kernels, synchronisations and cross-stream waits decides each step's duration, the share
of the step each class of event holds on it, and what would shorten the step.

Windows: each host ``ProfilerStep#N`` range (the path ends at the range's end on its thread — on the rank's thread
that launches the most GPU work when the range's own thread runs no host event); without steps, one window per rank
from its first to its last event. Rows: (rank, step, class) for every class on the path; a step's
``time_ns`` sum to its duration. Bound: ``gpu`` when GPU work (kernel, comm, memcpy, memset, gpu_gap, queued) holds at least
half of the path — counting the path's host waits (idle, runtime calls) during which the rank's GPU was busy: the
host waited on that GPU work through a dependency the trace does not record (another host thread, a full launch
queue) — else ``cpu``.

Host threads: in a process whose GPU work is launched from several threads (PyTorch's backward pass runs on the
autograd engine's thread while the main thread waits in ``backward()``), the walk on one launching thread reads the
others' events where it has none (:func:`gpulens.analyzers._critical_walk.process_views`): a launch on any thread is
host work feeding the GPU, so ``host_idle`` is time when no launching thread of the process ran an event.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._code_words import PATH_CLASS_WORDS
from gpulens.analyzers._critical_bound import CAUSES, WORDS, recoverable_ns
from gpulens.analyzers._critical_paths import (_CLASS_NAMES, GPU_CLASSES, GPU_WAITS, WAIT_CLASSES, _class_rows,
                                               _host_wait_on_busy_gpu, paths)
from gpulens.analyzers._critical_walk import CLASSES
from gpulens.analyzers._critical_steady import steady_class_ns
from gpulens.analyzers._tree import note_capped
from gpulens.analyzers import _advice
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers._span import counter_only_reason, no_timeline_reason
from gpulens.analyzers.context import context_of
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns, pct_words, plural, share_pct_text

COLUMNS = {
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number (unknown when the window is the whole trace) [id]",
    "step_ns": "duration of the step: its ProfilerStep range, to the end of the GPU work launched in it when that "
               "ends later, from the end of the rank's previous step when that is later (windows never overlap; the "
               "critical path's length) [ns]",
    "class": "event class on the path: cpu_op, runtime, sync, host_idle, launch_delay, kernel, comm, memcpy, memset, "
             "gpu_gap, unattributed (a GPU wait whose launch call is not in the trace), queued (a late start after the "
             "launch call returned: the idle split's queued time); reports show it in words (CPU ops, host idle "
             "gaps, …) [code]",
    "time_ns": "time of the class on the path [ns]",
    "share": "time_ns / step_ns [share]",
    "events": "distinct events of the class on the path (0 for the gap classes host_idle, launch_delay, gpu_gap, "
              "unattributed, queued: waits with no event) [count]",
    "top_event": "event of the class with the most time on the path ('' for gaps: shown as —, not unknown — "
                 "there is no event to name) [note]",
}
#: What a rank's one window is when the trace records no ProfilerStep: the span of the events the walk reads. It is
#: named, as it differs from the profiled window (breakdown's ``window_ns``), which also counts Python functions and
#: annotations (SGLang MI300X: path window 473.77 ms beside a profiled window of 473.83 ms opened by an annotation).
PATH_WINDOW_WORDS = ("first → last CPU op, runtime call or GPU event of the rank, clock jumps left out; the profiled "
                     "window also counts Python functions and annotations")
#: The same columns for a trace without ProfilerStep ranges: each rank's one window is its path window, not a step
#: (reports label the columns by these docs: "path window", "share of path window").
WINDOW_COLUMNS = {**COLUMNS, "step_ns": f"duration of the path window ({PATH_WINDOW_WORDS}; no ProfilerStep "
                                        "recorded; the critical path's length) [ns]",
                  "share": "time_ns / step_ns: share of the path window [share]"}
#: What the host's share of the path (``host_share``) counts, in every output that shows it.
HOST_SHARE_WORDS = ("CPU ops, runtime calls, synchronisations and host idle, less the host waits while the GPU was "
                    "busy (counted with the GPU work they wait on) and GPU waits with no recorded cause")
#: how each event class of the path reads, in a sentence and in a table cell (one vocabulary: :mod:`._code_words`)
CLASS_WORDS = PATH_CLASS_WORDS

_ACTIONS = {
    "kernel": "Shorten the kernels on the critical path, starting with {top}.",
    "comm": "Overlap or shrink the collectives on the critical path ({top}).",
    "memcpy": "Remove or overlap the copies on the critical path ({top}).",
    "memset": "Remove the memsets on the critical path ({top}).",
    "cpu_op": "Cut host overhead on the critical path ({graphs}, torch.compile, fewer small ops), starting "
              "with the op holding most of it, {top}.",
    "runtime": "Cut runtime-call overhead on the critical path ({top}).",
    "launch_delay": "Launch earlier or batch launches: the GPU waits for work to be enqueued.",
    "host_idle": "In these gaps of the critical path no host thread that launches GPU work runs an op: look for "
                 "data loading or Python outside the ops.",
    "sync": "Remove the synchronisation on the critical path ({top}).",
    "gpu_gap": "GPU events wait on other streams: reorder or split the dependency.",
    "queued": "The GPU held this work after its launch call returned and started it late: find what it waited on "
              "— a stream wait on an event (cudaStreamWaitEvent / hipStreamWaitEvent) enqueued before it, or work "
              "on another stream or process — and move or remove that dependency.",
    "unattributed": "No launch call is linked to the GPU work after these waits (GPU-only trace, or calls outside the "
                    "profiling window): {record}.",
}
#: The host-idle step when the trace records no framework op (an nsys export, NVTX ranges at most): "data loading
#: or Python outside the ops" names ops the trace does not have.
NO_OPS_HOST_IDLE = ("In these gaps of the critical path no host thread that launches GPU work runs a recorded "
                    "event, and this trace records no framework ops (torch.profiler's cpu_op events): look for host "
                    "work outside the recorded ranges, or record the ops (torch.profiler, or nsys "
                    "--pytorch=autograd-nvtx) to see what the host did between the launches.")


#: share of the top class's path time in one-off gaps from which the title says so
ONE_OFF_NOTE_SHARE = 0.10


def _in_one_off_gaps(timeline: Timeline, ps: list, top: str) -> int:
    """Path time [ns] of class ``top`` (a wait, or a call that blocked through the gap: a 463 ms
    ``hipMemcpyWithStream``) inside the GPU idle gaps that the breakdown calls warm-up / boundary / one-off
    (``boundary`` gaps of :func:`gpulens.analyzers.bottlenecks.classify_gaps`, merged per rank), summed over the
    windows; 0 without such gaps."""
    from gpulens.analyzers._gap_classes import one_off_gaps
    from gpulens.analyzers.bottlenecks import covered_until
    from gpulens.analyzers.intervals import merge

    gaps = one_off_gaps(timeline)
    if not len(gaps):
        return 0
    code = CLASSES.index(top)
    total = 0
    by_rank = {r: merge(g["start_ns"].to_numpy("int64"), (g["start_ns"] + g["dur_ns"]).to_numpy("int64"))
               for r, g in gaps.groupby("rank")}
    for rank, _, _, seg in ps:
        if rank not in by_rank:
            continue
        c = seg.cols
        m = c["_cls"] == code
        a = c["a"][m].astype("int64")
        b = a + c["ns"][m].astype("int64")
        gs, ge = by_rank[rank]
        total += int((covered_until(b, gs, ge) - covered_until(a, gs, ge)).sum())
    return total


def _unlinked_launch_calls(timeline: Timeline) -> int:
    """Launch calls the trace records when it links none of them to GPU work (no correlation ids: rocprof v1's
    ``--hip-trace`` JSON), else 0 — the advice for unexplained waits then names a profiler that writes the ids
    rather than "record the host side" (:func:`gpulens.analyzers._advice.idle_text`)."""
    from gpulens.analyzers.launches import launch_calls

    if context_of(timeline).links["launch_event_id"].notna().any():
        return 0
    return int(len(launch_calls(timeline)))


def no_path_reason(timeline: Timeline) -> str | None:
    """Why no critical path can be walked (None when one can): no GPU events, or no workload timeline (a
    counter-collection replay or a summary; see :func:`gpulens.analyzers._span.busy_unknown_reason`)."""
    if not len(context_of(timeline).gpu):
        return counter_only_reason(timeline) or "no GPU events in the trace"
    return no_timeline_reason(timeline)


def held_shares(path: float, gpu: float, on_gpu: float, unknown: float) -> tuple[float, float]:
    """(host, GPU-held) shares of a critical path of ``path`` ns: ``gpu`` ns of GPU work on it, ``on_gpu`` ns of host
    waits (idle, runtime calls) while the GPU was busy, ``unknown`` ns unattributed. The host's share is the rest —
    host work that held the path — and the GPU-held share, the one its ``bound`` rests on, is GPU work plus those
    waits. The one definition of both (the summary's ``host_share`` / ``gpu_held_share``); (0, 0) for an empty path."""
    if not path:
        return 0.0, 0.0
    return max(path - gpu - on_gpu - unknown, 0.0) / path, (gpu + on_gpu) / path


def bound_of(path: float, host_share: float, held_share: float, unknown: float) -> str:
    """``gpu`` when GPU work and the host waits on it hold at least half of a path of ``path`` ns (``held_share``),
    ``cpu`` when no time is unattributed or the host holds at least half (``host_share``), else ``unknown``."""
    return ("gpu" if path and held_share >= 0.5 else
            "cpu" if not unknown or (path and host_share >= 0.5) else "unknown")


def path_sum_words(s: dict) -> str:
    """What a critical path's summed length (``path_ns`` of the summary ``s``) is a sum of, in words — the one
    definition every sentence that quotes the path's length uses: "summed over 2 ranks' steps" (or traces, without
    steps) when the windows lie on several ranks — the sum is then longer than any one rank's window —, "summed over
    3 steps" for several whole steps of one rank, "" for one window or steps cut at a ``--window`` end (the window
    words say so). ``s`` keys: ``windows`` [count], ``ranks`` [count], ``stepped`` [bool], ``cut_steps`` [count];
    a summary without ``ranks`` (an earlier version's JSON report) reads as one rank's steps."""
    n, ranks = int(s.get("windows") or 1), int(s.get("ranks") or 1)
    if ranks > 1:
        return f"summed over {ranks} ranks' {'steps' if s.get('stepped', True) else 'traces'}"
    return f"summed over {n} steps" if n > 1 and s.get("stepped", True) and not s.get("cut_steps") else ""


def steady_summary(class_ns: dict[str, int], on_gpu: float) -> dict:
    """The path's figures over the steady state the run verdict judges (:mod:`._critical_steady`): its length
    (``steady_path_ns``), host and GPU-held shares and bound, by the one definition of :func:`held_shares`;
    ``class_ns`` is the path time per class inside the steady state [ns], ``on_gpu`` the host waits while the GPU
    was busy (busy time lies inside the steady state) [ns]."""
    path = float(sum(class_ns.values()))
    gpu = float(sum(v for k, v in class_ns.items() if k in GPU_CLASSES))
    unknown = float(class_ns.get("unattributed", 0))
    waits = min(on_gpu, max(path - gpu - unknown, 0.0))
    host, held = held_shares(path, gpu, waits, unknown)
    return {"steady_path_ns": path, "steady_host_share": host, "steady_gpu_held_share": held,
            "steady_bound": bound_of(path, host, held, unknown),
            # the parts the steady host share is made of, so that it can be read off them (host_share_basis)
            "steady_class_ns": {str(k): int(v) for k, v in class_ns.items()},
            "steady_host_wait_gpu_busy_ns": int(waits)}


class CriticalPath(Analyzer):
    """Critical path of each step and the share of each event class on it (see module docstring)."""

    name = "critical_path"
    order = 70

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        why = no_path_reason(timeline)
        if why:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=why)
        rows = []
        ps = paths(timeline)
        names = context_of(timeline).memo("critical_path_names", lambda: np.array([""], dtype=object))
        for w, c, time_ns, events, top in _class_rows(ps, names):
            rank, step, step_ns, _ = ps[w]
            rows.append({"rank": rank, "step": step, "step_ns": step_ns, "class": CLASSES[c],
                         "time_ns": time_ns, "events": events, "top_event": top})
        if not rows:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  skipped_reason="no window with a positive duration to walk (no steps, or the "
                                                 "events have no usable times)")
        t = pd.DataFrame(rows)
        t["share"] = t["time_ns"] / t["step_ns"].where(t["step_ns"] > 0)
        t["_o"] = t["class"].map({c: i for i, c in enumerate(CLASSES)})
        t = t.sort_values(["rank", "step", "_o"], kind="stable", na_position="first").reset_index(drop=True)
        t["step"] = t["step"].astype("Int64")
        summary, findings = self._summary(t, _advice.uses_pytorch(timeline), _host_wait_on_busy_gpu(timeline, ps),
                                          _advice.host_trace(timeline, device), _advice.vendor_of(timeline, device),
                                          _unlinked_launch_calls(timeline),
                                          bool(context_of(timeline).mask_of("cpu_op").any()),
                                          lambda: _longest_runtime_segment(ps, names), _cut_steps(timeline, ps),
                                          lambda: _host_wait_on_busy_gpu(timeline, ps, ("memcpy", "memset")))
        steady = steady_class_ns(timeline, ps)
        if steady:  # boundary gaps left out of the run verdict: the same path read over the verdict's steady state
            summary.update(steady_summary(steady, float(summary["host_wait_gpu_busy_ns"])))
        one_off = _in_one_off_gaps(timeline, ps, summary["top_class"])
        if one_off and one_off >= ONE_OFF_NOTE_SHARE * summary["class_ns"].get(summary["top_class"], 0):
            # the idle verdict leaves the warm-up / one-off gaps out (bottlenecks' ``boundary`` gaps): a path share
            # that counts them says so, or "90 % of the traced time" stands beside "22 % idle outside the gap"
            findings[0].title += f", {fmt_ns(one_off)} of it in the one-off idle time the idle figures leave out"
            summary["one_off_gap_ns"] = int(one_off)
        if steady:
            findings[0].detail += (f" Over the steady state the run verdict judges ({fmt_ns(summary['steady_path_ns'])}"
                                   f" of the path, the warm-up / one-off GPU idle gaps left out) host work holds "
                                   f"{share_pct_text(100 * summary['steady_host_share'])} of it and GPU work with the "
                                   f"host's waits on it {share_pct_text(100 * summary['steady_gpu_held_share'])}.")
        absorbed = int(context_of(timeline).memo("critical_path_absorbed", lambda: 0))
        summary["steps_absorbed"] = absorbed
        if absorbed:
            findings[0].detail += (f" {plural(absorbed, 'step(s)')} ran wholly within the previous step's window (its "
                                   "GPU work still running): they add no time of their own and have no path.")
        # the findings tree (issue 14.6), each nanosecond once: a path held by host-side or gap time is GPU idle
        # time, so it details the breakdown's idle finding; a path held by GPU work is time the kernel verdicts
        # already rank, so it is stated (title) but not counted a second time
        if summary["top_class"] in GPU_CLASSES - GPU_WAITS or findings[0].time_at_stake_ns is None:
            findings[0].time_at_stake_ns = None  # GPU work (or host waits on it): the kernel verdicts rank it
        elif (outside := _host_outside_span(timeline)) > _idle_of(results) \
                and (findings[0].time_at_stake_ns or 0) > _idle_of(results):
            # the path's host time lies mostly before the first / after the last GPU event (start-up: stream and
            # context creation, data loading): it details the host-only-time finding of the profiled window, not GPU
            # idle time inside the span — at most that outside time is at stake
            findings[0].parent = "window/host-only"
            if (findings[0].time_at_stake_ns or 0) > outside:
                note_capped(findings[0], int(findings[0].time_at_stake_ns), int(outside),
                            "host-only time outside the GPU span")
        elif any(f.key == "idle" for f in getattr((results or {}).get("breakdown"), "findings", [])):
            findings[0].parent = "idle"
            # a child's time is part of its parent's: the path can hold host time outside the GPU span (start-up
            # before the first kernel), which is no idle GPU time to recover — at most the idle time is at stake
            # (the breakdown's idle time itself, not its finding's figure: ``bottlenecks`` narrows that to the
            # recoverable idle, and whether it ran first depends on the process split — the findings tree caps this
            # child at its parent's figure when it is shown)
            idle = results["breakdown"].summary.get("idle_ns")
            if results["breakdown"].summary.get("idle_bound"):  # the idle is at most, not measured (clock domains)
                findings[0].time_at_stake_ns = None
            else:
                # and at most the idle of the causes this class can remove, rank by rank (:mod:`._critical_bound`):
                # CPU ops cannot recover the GPU's waits on work already queued
                stake = int(findings[0].time_at_stake_ns or 0)
                cause = recoverable_ns(timeline, t, summary["top_class"])
                if cause is not None and cause < stake and (idle is None or cause <= idle):
                    note_capped(findings[0], stake, cause, WORDS[CAUSES[summary["top_class"]]])
                elif idle is not None and stake > idle:
                    note_capped(findings[0], stake, int(idle), "idle GPU time, the time that can be recovered")
        else:  # host time on the path but no idle GPU time to recover: a description, not time at stake
            findings[0].time_at_stake_ns = None
        _lost_late_starts(findings[0], summary["top_class"], results)
        cols = COLUMNS if t["step"].notna().any() else WINDOW_COLUMNS
        return AnalysisResult(self.name, t[list(COLUMNS)], cols, summary, findings,
                              summary_columns={"windows": "steps (or whole-trace windows) analysed [count]",
                                               "path_ns": "summed critical-path length [ns]",
                                               "ranks": "ranks whose windows the path sums (ranks with GPU work) "
                                                        "[count]",
                                               "stepped": "whether the windows are steps (else whole traces) "
                                                          "[bool]",
                                               "cut_steps": "steps cut at a --window end [count]",
                                               "steps_absorbed": "steps that ran wholly within the previous step's "
                                                                 "window and have no path of their own [count]",
                                               "gpu_share": "share of the path on GPU work [share]",
                                               "host_share": f"share of the path on host work: {HOST_SHARE_WORDS} "
                                                             "[share]",
                                               "host_wait_gpu_busy_ns": "host waits on the path (idle, runtime "
                                                                        "calls) while the rank's GPU was busy: they "
                                                                        "wait on GPU work, counted with it [ns]",
                                               "gpu_held_share": "GPU work plus those host waits, share of the "
                                                                 "path: what bound rests on (gpu from 50 %) [share]",
                                               "bound": "gpu or cpu: which side holds most of the critical path "
                                                        "(HTA's definition; the run verdict weighs busy and idle "
                                                        "time over the GPU span instead) [code]",
                                               "top_class": "event class with the most path time [code]",
                                               "steady_path_ns": "the path's time inside the steady state the run "
                                                                 "verdict judges: the GPU span less the warm-up / "
                                                                 "one-off idle gaps it leaves out [ns]",
                                               "steady_host_share": "host_share over that steady state [share]",
                                               "steady_gpu_held_share": "gpu_held_share over that steady state "
                                                                        "[share]",
                                               "steady_bound": "bound over that steady state [code]"})

    @staticmethod
    def _summary(t: pd.DataFrame, pytorch: bool = True, waited: dict[str, int] | None = None,
                 tool: str | None = None, vendor: str | None = None,
                 unlinked: int = 0, ops: bool = True,
                 longest: Any = None, cut: int = 0, copy_waited: Any = None) -> tuple[dict, list[Finding]]:
        per = t.groupby("class")["time_ns"].sum().sort_values(ascending=False)
        windows = t.drop_duplicates(["rank", "step"])
        path = float(windows["step_ns"].sum())
        gpu = float(per[per.index.isin(GPU_CLASSES)].sum())
        top = str(per.index[0])
        waited = waited or {}
        on_gpu = float(sum(waited.values()))  # host waits (idle, runtime calls) while the rank's GPU was busy
        unknown = float(per.get("unattributed", 0))
        host_share, held_share = held_shares(path, gpu, on_gpu, unknown)
        bound = bound_of(path, host_share, held_share, unknown)
        summary = {"windows": int(len(windows)), "path_ns": path, "gpu_share": gpu / path if path else 0.0,
                   # the host's share of the path, defined once here: every output that names the host's part of
                   # the critical path (the run headline, the verdict basis, this finding) reads this key (GPT-2 on
                   # an H200 read 74.1 % in the headline, 65 % in the basis, CPU ops 64.1 % in a step's row)
                   "host_share": host_share,
                   "host_wait_gpu_busy_ns": int(on_gpu), "unattributed_share": unknown / path if path else 0.0,
                   # the share the bound rests on, shown beside it: "host idle 92 %" and "GPU work 6 %" beside
                   # "held by gpu" read as a contradiction without it (B13 graph replay: the host idle while its
                   # graph ran)
                   "gpu_held_share": held_share,
                   "bound": bound, "top_class": top,
                   "class_ns": {str(k): int(v) for k, v in per.items()}}
        tops = t[t["class"] == top].groupby("top_event")["time_ns"].sum()
        top_event = str(tops.idxmax()) if len(tops) and tops.idxmax() else top
        ranks = int(windows["rank"].nunique()) if "rank" in windows else 1
        stepped = bool(windows["step"].notna().any())  # whole-trace windows: no step to speak of
        # what the windows are: steps (some cut at a --window end: then the kept part of them), or whole traces
        whole = ("path window" if not stepped else "step time" if not cut else
                 f"time the selection keeps of the steps, {cut:,} of {len(windows):,} cut at the --window end")
        summary.update(ranks=ranks, stepped=stepped, cut_steps=int(cut))
        # a class's share summed over every window (the table's rows give each step's own share): said so when
        # there are several, as "65 %" of all steps beside a first step's "64.1 %" reads as the same figure twice
        # with the time and the path it is a share of (the answer's critical-path line gives the same path: GPT-2
        # H200 read "CPU ops hold 64.6 % of the step time" beside "74.1 % of the 226.13 ms path" with no common figure)
        summed = path_sum_words(summary)
        over = f" ({fmt_ns(per.iloc[0])} of {fmt_ns(path)}, {summed})" if summed else ""
        title = (f"Critical path: {CLASS_WORDS.get(top, top)} hold {pct_words(100 * per.iloc[0] / path)} of the "
                 f"{whole}{over}")
        if top in ("cpu_op", "runtime", "host_idle") and summary["host_share"] * path >= per.iloc[0] > 0 \
                and summary["host_share"] * path > per.iloc[0] * 1.001:
            # the class is a part of the host's share of the path that the answer's headline names: the finding
            # leads with that share — the one figure of the host's part of the path — and names the class as its
            # largest part (GPT-2 on an H200 led "CPU ops hold 64.6 % of the step time" below a headline "host
            # work (74.1 % of it)", two shares of one path that read as one quantity)
            hs = summary["host_share"]
            title = (f"Critical path: host work holds {share_pct_text(100 * hs)} of the {whole} "
                     f"({fmt_ns(hs * path)} of {fmt_ns(path)}{', ' + summed if summed else ''}, less its waits while the GPU was busy); "
                     f"{CLASS_WORDS.get(top, top)} hold {pct_words(100 * per.iloc[0] / path)} of the {whole} "
                     f"({fmt_ns(per.iloc[0])}), the largest part")
        said = (f"the path is {bound.upper()}-bound" if bound != "unknown" else
                "what bounds the path is unknown")
        detail = (f"Over {plural(len(windows), 'window(s)')} {said} "
                  f"(host work {share_pct_text(100 * summary['host_share'])} of the path, "
                  f"{share_pct_text(100 * summary['gpu_share'])} on GPU work"
                  + (f", {share_pct_text(100 * on_gpu / path)} host waits while the GPU was busy" if on_gpu else "")
                  + (f", {share_pct_text(100 * unknown / path)} GPU waits with no cause the trace shows"
                     if unknown else "")
                  + ").")
        record = _advice.idle_text(_advice.IDLE_ACTIONS, pytorch, "unattributed", tool, vendor=vendor,
                                   recorded=unlinked)
        act_text = _ACTIONS.get(top, "")
        if top == "unattributed" and unlinked:  # the calls were recorded, without the ids that link them
            act_text = "No launch call is linked to the GPU work after these waits: {record}."
        if top == "host_idle" and not ops:  # nothing says what the host did: no framework op was recorded at all
            act_text = NO_OPS_HOST_IDLE
        action = ((None if act_text is NO_OPS_HOST_IDLE else _advice.host_path_action(top, pytorch, vendor))
                  or act_text).format(top=top_event[:80], record=record, graphs=_advice.vendor_word(vendor, "graphs"))
        if top in ("runtime", "sync") and top_event != top:  # what the call is decides the step: a wait is no overhead
            what, act = _advice.runtime_path_action(top_event[:80], pytorch, vendor)
            if top == "runtime" or what != "runtime-call overhead":  # a sync event of no known call keeps its step
                action = act
                busy = top in WAIT_CLASSES and waited.get(top, 0) >= 0.5 * float(per.iloc[0])  # no overhead: a wait
                what = "a wait on the busy GPU" if busy and what == "runtime-call overhead" else what
                title += f" (largest: {top_event[:80]}, {what.split(':')[0].split(' (')[0]})"
        one_off = 0
        from gpulens.analyzers.launches import LAUNCH_RE

        # ``longest``: a callable giving the longest runtime segment (read only when runtime calls hold the path)
        longest = longest() if top == "runtime" and callable(longest) else None
        if longest is not None and longest[0] >= ONE_CALL_SHARE * float(per.iloc[0]) and LAUNCH_RE.match(longest[1]):
            # one call holds most of it (an MI250 trace's single 6.54 ms first hipLaunchKernel): a one-off stall,
            # not per-call overhead that graphs or fusion would remove — the idle finding leaves the same gap out
            one_off = int(longest[0])
            title = (f"Critical path: {CLASS_WORDS.get(top, top)} hold {pct_words(100 * per.iloc[0] / path)} of the "
                     f"{whole}{over}, {fmt_ns(one_off)} of it one "
                     f"{longest[1][:80]} call")
            action = (f"One {longest[1][:80]} call of {fmt_ns(one_off)} holds most of it: a one-off stall (a first "
                      "launch loading the kernel's code object, a lazy initialisation), not per-call overhead that "
                      f"{_advice.vendor_word(vendor, 'graphs')} or fusion would remove — warm up before profiling "
                      "and profile the steady state.")
        busy_share = waited.get(top, 0) / float(per.iloc[0]) if per.iloc[0] else 0.0
        if top in WAIT_CLASSES and busy_share >= 0.5:
            # the host waited while the GPU worked: the walk found no recorded dependency to follow (a full launch
            # queue, a thread that launches nothing — the launching threads are already read), so this time is GPU
            # work, not host time to cut
            # what the GPU was busy with then decides the step (copies 96 % of it: no kernel to shorten)
            copies = (copy_waited() if callable(copy_waited) else {}).get(top, 0) / float(waited[top])
            title += f", the GPU busy during {pct_words(100 * busy_share)} of them" + (
                f", {pct_words(100 * copies)} of that with copies" if copies >= _advice.COPY_WAIT_SHARE else "")
            detail += (" The host waited while the GPU was busy: the step waits on GPU work through a dependency "
                       "the trace does not record (a full launch queue, or a thread that launches no GPU work — "
                       "every thread that launches is read), so the host is not what holds the step.")
            action = _advice.busy_wait_action(copies, pytorch, vendor)
        stake = None if top in WAIT_CLASSES and busy_share >= 0.5 else int(per.iloc[0]) - one_off  # the one-off
        # call is a profiling-window cost, left out as the idle finding leaves its gap out; GPU time: the kernels'
        f = Finding(title, detail, category="critical-path", time_at_stake_ns=stake, key="critical_path",
                    action=action)
        return summary, [f]


def _cut_steps(timeline: Timeline, ps: list) -> int:
    """Step windows a ``--window`` selection cut at its end (the Steps table's ``clipped``,
    :func:`gpulens.analyzers.steps._clipped_by_window`): their path is the kept part of the step, not the step."""
    from gpulens.analyzers.steps import _clipped_by_window

    rows = [(rank, int(sg.cols["a"][0]), int(sg.cols["a"][-1] + sg.cols["ns"][-1]))
            for rank, step, _, sg in ps if step is not None and len(sg)]
    if not rows:
        return 0
    t = pd.DataFrame(rows, columns=["rank", "start_ns", "end_ns"])
    return int(_clipped_by_window(timeline, t.assign(dur_ns=t["end_ns"] - t["start_ns"])).sum())


#: A runtime call holding at least this share of the runtime time on the critical path is a one-off stall.
ONE_CALL_SHARE = 0.5


def _longest_runtime_segment(ps: list, names: np.ndarray) -> tuple[int, str] | None:
    """The longest single runtime-call segment on any critical path: (its length [ns], the call's name), None when
    the paths hold none."""
    code = CLASSES.index("runtime")
    best: tuple[int, str] | None = None
    for _rank, _step, _step_ns, seg in ps:  # the windows' arrays, not a DataFrame each (3 ms per window)
        seg_ns = np.asarray(seg.cols["ns"])
        rt = np.flatnonzero((np.asarray(seg.cols["_cls"]) == code) & (seg_ns > 0))
        if len(rt):
            i = int(rt[int(np.argmax(seg_ns[rt]))])
            ns = int(seg_ns[i])
            if best is None or ns > best[0]:
                best = (ns, str(names[int(seg.cols["_who"][i])]))
    return best


def _lost_late_starts(f: Finding, top: str, results: Any) -> None:
    """A path held by late starts of queued work whose queued idle lies mostly in gaps lost GPU work most likely
    filled (launch calls with no GPU record: the bottlenecks verdict rests on none of it,
    :func:`gpulens.analyzers._lost_work.lost_work_reason`): no dependency to move — the step is to record that work,
    and nothing measured is at stake (``f`` changed in place)."""
    from gpulens.analyzers._lost_work import lost_work_reason

    bn = (results or {}).get("bottlenecks")
    if top not in ("queued", "gpu_gap") or bn is None or bn.skipped \
            or not lost_work_reason(bn.summary, int(bn.summary.get("idle_queued_ns") or 0)):
        return
    if not f.time_at_stake_ns:  # capped to nothing: unknown, not "0 ns of the 145 µs described"
        from gpulens.analyzers._tree import _CAPPED

        f.time_at_stake_ns = None
        f.detail = _CAPPED.sub("", f.detail or "") + (" No measured idle is at stake: the queued idle lies in gaps "
                                                      "after launch calls with no GPU record.")
    f.action = ("Launch calls with no GPU record were issued before these late starts: their work (a graph's "
                "kernels the profiler did not record, most often) most likely ran first, and the trace shows no "
                "dependency to move; profile again so that work is recorded (graph kernels traced) before acting on "
                "this path.")


def _idle_of(results: Any) -> int:
    """The breakdown's idle GPU time inside the GPU span [ns] (0 when unknown)."""
    bd = (results or {}).get("breakdown")
    v = bd.summary.get("idle_ns") if bd is not None and not bd.skipped else None
    return int(v) if v is not None and v == v else 0


def _host_outside_span(timeline: Timeline) -> int:
    """Host-only time of the profiled windows outside the GPU spans [ns], summed over ranks: the figures of the
    "Host-only time outside the GPU span" finding (:func:`gpulens.analyzers._window_findings.host_only_window`)."""
    from gpulens.analyzers._window_findings import host_only_window

    out, _ = host_only_window(timeline)
    return int(out.get("host_only_before_ns", 0) + out.get("host_only_after_ns", 0))


SEGMENT_COLUMNS = {
    "rank": "distributed rank [id]",
    "step": "ProfilerStep number (unknown for a whole-trace window) [id]",
    "order": "position on the path, earliest first [count]",
    "class": "event class (see critical_path; shown in words) [code]",
    "offset_ns": "segment start from the window's start, clock jumps left out (the summed length of the segments "
                 "before it) [ns]",
    "dur_ns": "segment length [ns]",
    "event": "event on the path ('' for gaps and idle time: shown as —) [note]",
}
MAX_SEGMENTS = 5000


class CriticalPathSegments(Analyzer):
    """The critical path itself, segment by segment (slowest windows first, at most :data:`MAX_SEGMENTS` rows)."""

    name = "critical_path_segments"
    order = 71

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        why = no_path_reason(timeline)
        if why:
            return AnalysisResult(self.name, pd.DataFrame(columns=list(SEGMENT_COLUMNS)), SEGMENT_COLUMNS, skipped_reason=why)
        parts, n = [], 0
        ps = paths(timeline)
        names = context_of(timeline).memo("critical_path_names", lambda: np.array([""], dtype=object))
        for rank, step, step_ns, seg in sorted(ps, key=lambda p: -p[2]):
            # the window's arrays (one DataFrame for all windows, not one each: ~3 ms per window, 640 windows in a
            # folder of 64 ranks × 10 steps)
            seg_ns = np.asarray(seg.cols["ns"]).astype(np.int64, copy=False)
            keep = np.flatnonzero(seg_ns > 0)[:MAX_SEGMENTS - n]
            ns = seg_ns[keep]
            parts.append((np.full(len(keep), rank, dtype=np.int64), np.full(len(keep), step, dtype=object),
                          np.arange(len(keep), dtype=np.int64), _CLASS_NAMES[np.asarray(seg.cols["_cls"])[keep]],
                          np.cumsum(ns) - ns, ns, names[np.asarray(seg.cols["_who"])[keep]]))
            n += len(keep)
            if n >= MAX_SEGMENTS:
                break
        if parts:
            t = pd.DataFrame({c: np.concatenate([p[i] for p in parts]) for i, c in enumerate(SEGMENT_COLUMNS)})
        else:
            t = pd.DataFrame(columns=list(SEGMENT_COLUMNS))
        t["step"] = t["step"].astype("Int64")
        return AnalysisResult(self.name, t[list(SEGMENT_COLUMNS)], SEGMENT_COLUMNS,
                              {"segments": int(len(t)), "truncated": n >= MAX_SEGMENTS})
