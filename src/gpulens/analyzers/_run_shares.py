"""The run verdict's measured shares (read by :mod:`gpulens.analyzers.verdicts`): the overhead cause's time against
the GPU's computing time, the other proven causes (the runner-up), communication weighed by its exposed time, and the
host-only edges of the profiled window — all from the ``bottlenecks`` summary (docs/bottlenecks.md "Run verdict")."""

from __future__ import annotations

from typing import Any

import pandas as pd

from gpulens.analyzers.bottlenecks import RANK_CLASSES
from gpulens.analyzers._window_findings import WINDOW_IDLE_SHARE, window_words
from gpulens.units import fmt_ns, share_pct_text


def judged_span_ns(s: dict) -> int:
    """The span the run verdict's shares are of [ns], from the bottlenecks summary ``s``: its steady state
    (``steady_span_ns``, set when warm-up / one-off gaps are left out) else the GPU span (``device_span_ns``); at
    least 1 — the denominator the idle findings use too (:func:`gpulens.analyzers._idle_findings.steady_state`)."""
    return int(s.get("steady_span_ns") or s.get("device_span_ns") or 0) or 1


def _shares(bn: Any, overhead: str) -> tuple[int | None, int | None, int]:
    """(the overhead cause's time, the computing time — union of compute kernels, the breakdown's computation —, the
    steady span they are shares of) in ns, from the bottlenecks summary; a time is None when not measured."""
    key = next(k for k, c in RANK_CLASSES.items() if c == overhead)
    s = bn.summary
    span = judged_span_ns(s)

    def ns(k: str) -> int | None:
        v = s.get(k)
        return None if v is None or pd.isna(v) else int(v)

    return steady_cause_ns(s, key, ns(key)), ns("computation_ns"), span


def steady_cause_ns(s: dict, key: str, v: int | None) -> int | None:
    """A cause's time [ns] on the basis of the time at stake: the host-caused idle (``idle_host_ns``) less its
    one-off set-up calls (``idle_host_setup_ns``) when they fill at least
    :data:`~gpulens.analyzers._idle_findings.SETUP_GAP_SHARE` of it — the set-up the headline already leaves out of
    the time at stake (:func:`host_setup`), so the share that chooses the verdict is the same steady-state figure
    (HTA AlexNet in its first 140.085 µs: 42.81 µs of host wait of which 14.03 µs cudaMalloc/stream creation).
    Any other cause, or a host wait mostly not set-up: ``v`` unchanged; None stays None."""
    from gpulens.analyzers._idle_findings import SETUP_GAP_SHARE

    if v is None or key != "idle_host_ns":
        return v
    setup = int(s.get("idle_host_setup_ns") or 0)
    return max(v - setup, 0) if v and setup >= SETUP_GAP_SHARE * v else v


def _other_causes(bn: Any, overhead: str) -> list[tuple[str, int]]:
    """The overhead causes other than ``overhead`` with their time [ns] (bottlenecks summary), those with enough
    evidence only: an idle cause seen in at least :data:`~gpulens.analyzers.bottlenecks.MIN_VERDICT_GAPS` gaps or
    holding half the span (the rule that makes a cause a verdict makes it a secondary cause too)."""
    from gpulens.analyzers._span import idle_unmeasured_ns
    from gpulens.analyzers.bottlenecks import GAP_EVIDENCE, too_few_gaps

    s = bn.summary
    span = judged_span_ns(s)
    out = []
    for key, cls in RANK_CLASSES.items():
        v = s.get(key)
        if cls == overhead or v is None or pd.isna(v):
            continue
        if key in GAP_EVIDENCE and idle_unmeasured_ns(s):  # idle at most (clocks, untimed work): no cause proven
            continue
        n = s.get(f"gaps_{GAP_EVIDENCE[key]}") if key in GAP_EVIDENCE else None
        if not too_few_gaps(n, v, span):
            out.append((cls, int(steady_cause_ns(s, key, int(v)))))
    return out


def unproven_loses(bn: Any) -> str | None:
    """When the overhead cause is ``undetermined`` (bottlenecks: its largest cause reaching ``min_share`` of the
    span is idle seen in too few gaps, or idle measured only as an upper bound) yet the GPU's computing time (union of
    compute kernels) exceeds that cause's time: the words saying the cause is left unjudged and smaller than the
    computing share — the README's gpu-bound definition ("the GPU computes more than any overhead costs") holds
    whether the cause were proven or not, so too little evidence about it stops no verdict on the GPU side (nsys
    lashi streamSimple: 10.14 µs of launch idle from 2 gaps, 13.2 %, against 82.0 % computing). The cause's time
    is its largest possible (an upper bound stays one), the computing a measured lower bound. None when the cause
    could still outweigh the computing (the run is then undetermined), or when a figure is not measured."""
    if bn is None or getattr(bn, "skipped", True) or bn.summary.get("verdict") != "undetermined":
        return None
    s = bn.summary
    span, floor = judged_span_ns(s), float(s.get("min_share") or 0.1)
    causes = [(c, int(s[k])) for k, c in RANK_CLASSES.items()
              if s.get(k) is not None and not pd.isna(s[k]) and int(s[k]) >= floor * span]
    comp = s.get("computation_ns")
    if not causes or comp is None or pd.isna(comp):
        return None
    cls, ns = max(causes, key=lambda x: x[1])  # the largest decides, as in bottlenecks._thin_evidence
    if not int(comp) > ns:
        return None
    why = str(s.get("verdict_evidence") or f"{fmt_ns(ns)} of {cls} time")
    return (f"too little evidence to name a secondary cause: {why}; computing holds more "
            f"({_pct_of(int(comp), span)} of the span)")


def _overlapped_comm(bn: Any, by_class: pd.Series) -> tuple[str, int] | None:
    """When communication kernels hold the most critical-kernel time but most of it ran under computation: (the
    kernel class holding the most time once communication counts only by its exposed time — the breakdown's
    ``exposed_comm_ns`` —, that exposed time [ns]); None when communication still holds the most, or its exposed time
    is not measured. DeepEP-style expert all-to-all overlapped with the experts' GEMMs (deepseek train.json: 113 ms
    of communication kernels, 4.2 ms exposed, 96 % of the span computing) is not a communication-bound run."""
    if bn is None or bn.skipped:
        return None
    exposed = bn.summary.get("exposed_comm_ns")
    if exposed is None or pd.isna(exposed):
        return None
    exposed = int(exposed)
    weighed = by_class.fillna(0).astype(float).copy()
    weighed["communication-bound"] = min(float(weighed["communication-bound"]), float(exposed))
    others = weighed.drop(index=["communication-bound"], errors="ignore")
    if not len(others) or not float(others.max()) > float(weighed["communication-bound"]):
        return None
    top = str(others.sort_values(ascending=False, kind="stable").index[0])
    return ("gpu-bound" if top == "undetermined" else top), exposed  # kernels of no known class: bound by them


def _computing_dominates(bn: Any, overhead: str) -> bool:
    """True when the GPU's computing time (union of compute kernels) exceeds the overhead cause's time: the
    dominant measured share is then the kernels', and the overhead the secondary cause (a run 84 % computing and
    16 % exposed copies is not memcpy-bound). Unknown figures never dominate."""
    oh, comp, _ = _shares(bn, overhead)
    return oh is not None and comp is not None and comp > oh  # a tie: the overhead, the cause one can act on


def computing_words(kernel_class: str, share: str, of: str = "of the span") -> str:
    """The computing share as the run verdict's secondary, in words: "computing, 34.5 % of the span, its kernel
    time mostly launch-bound" — the share is the kernels' own time and the class is what most of it is (the
    verdicts' kernel class; "gpu-bound" names no class), never "the computing share (launch-bound)", which read as
    the share being a launch bound. ``share``: :func:`_pct_of`'s words; ``of``: the window it is of ("of the span",
    "of the steady span")."""
    tail = "" if kernel_class == "gpu-bound" else f", its kernel time mostly {kernel_class}"
    return f"computing, {share} {of}{tail}"


def _pct_of(ns: int | None, span: int) -> str:
    """A share of the span in words ("16 %"; "unknown" when not measured): the idle findings' own wording
    (:func:`gpulens.analyzers._idle_findings.span_share_text`), one definition."""
    from gpulens.analyzers._idle_findings import span_share_text

    return span_share_text(ns, span)


def _host_only_edges(bn: Any) -> tuple[int, int]:
    """(host-only time before + after the GPU span, profiled window) in ns from the bottlenecks summary (0s if
    unknown)."""
    if bn is None or bn.skipped:
        return 0, 0
    edges = int(bn.summary.get("host_only_before_ns") or 0) + int(bn.summary.get("host_only_after_ns") or 0)
    return edges, int(bn.summary.get("window_ns") or 0)


#: At or above this share of the profiled window, host-only time outside the GPU span (start-up before the first GPU
#: work, teardown after the last) is stated beside the run verdict (the window's own finding uses the same share).
OUTSIDE_SPAN_SHARE = WINDOW_IDLE_SHARE


def outside_span(bn: Any) -> dict[str, int] | None:
    """Host-only time outside the GPU span when it holds at least :data:`OUTSIDE_SPAN_SHARE` of the profiled window:
    ``{"before_ns", "after_ns", "window_ns"}`` [ns] and ``"pct"`` (the bottlenecks summary's
    ``host_only_outside_pct``, the one share of it every report quotes) from the bottlenecks summary; None otherwise
    or when not measured.

    The run verdict judges the GPU span, from the first to the last GPU work: the time before it is start-up (CUDA/HIP
    context creation, cudaMalloc, model load, JIT compilation) and the time after it teardown — no steady-state host
    bottleneck, whatever share of the window they hold — so they are this figure of their own, beside the verdict.
    """
    edges, window = _host_only_edges(bn)
    if not window or edges < OUTSIDE_SPAN_SHARE * window:
        return None
    out = {"before_ns": int(bn.summary.get("host_only_before_ns") or 0),
           "after_ns": int(bn.summary.get("host_only_after_ns") or 0), "window_ns": int(window),
           "pct": bn.summary.get("host_only_outside_pct")}
    if int(bn.summary.get("window_ranks") or 1) > 1:  # ``window_ns`` is the ranks' windows summed: said so
        out["ranks"] = int(bn.summary["window_ranks"])
    return out


def outside_text(out: dict[str, int]) -> str:
    """:func:`outside_span`'s figure in words, the one wording of the verdict's basis and the headline: "outside the
    GPU span, not judged by the verdict: 54.58 ms of host-only time before the first GPU work (start-up) and
    21.36 ms after the last (99.9 % of the 76.02 ms profiled window)"."""
    before, after, window = out["before_ns"], out["after_ns"], out["window_ns"]
    parts = ([f"{fmt_ns(before)} of host-only time before the first GPU work (start-up)"] if before else []) + \
        ([f"{fmt_ns(after)} {'' if before else 'of host-only time '}after the last"] if after else [])
    return (f"outside the GPU span, not judged by the verdict: {' and '.join(parts)} "
            f"({share_pct_text(out.get('pct'))} of {window_words(out.get('ranks'), window)})")


def host_setup(bn: Any, run: str) -> dict[str, int] | None:
    """For a ``host-bound`` run verdict whose host-caused idle is mostly set-up — set-up calls (allocation, stream or
    module creation, first launches loading kernel code: bottlenecks ``idle_host_setup_ns``) fill at least
    :data:`~gpulens.analyzers._idle_findings.SETUP_GAP_SHARE` of the idle waiting for the host — ``{"setup_ns",
    "host_ns", "steady_ns"}`` [ns]: start-up inside the span (HTA AlexNet: cudaMalloc 1.94 s and
    cudaStreamCreateWithFlags 735 ms of 2.82 s), which the verdict names as its cause, and the rest of the host wait
    (``host_ns - setup_ns``, at least 0): the time at stake once the one-off set-up is done, which the headline leads
    with (AlexNet's "2.82 s at stake" read as a per-step cost; 2.68 s of it are one-off calls); None otherwise."""
    from gpulens.analyzers._idle_findings import SETUP_GAP_SHARE

    if run != "host-bound" or bn is None or bn.skipped:
        return None
    host = bn.summary.get("idle_host_ns")  # the whole host wait, set-up included
    setup, host = int(bn.summary.get("idle_host_setup_ns") or 0), None if host is None or pd.isna(host) else host
    if not host or setup < SETUP_GAP_SHARE * host:
        return None
    return {"setup_ns": setup, "host_ns": int(host), "steady_ns": max(int(host) - setup, 0)}


def setup_text(su: dict[str, int], gpus: int = 1) -> str:
    """:func:`host_setup`'s figure in words, one wording for the verdict's basis and the headline. It says what the
    host held the GPU up with — start-up work — so it qualifies the word "host-bound" instead of denying it (the
    nvprof V100×4 trace read "host-bound … the host wait is start-up, not a steady-state host bottleneck"). With
    ``gpus`` > 1 the figures are sums over the GPUs, and say so ("the 13.38 s the 4 GPUs waited for the host,
    summed")."""
    who = "GPU waited for the host" if gpus <= 1 else f"{gpus} GPUs waited for the host, summed"
    return (f"host-bound by start-up work, not by steady-state launches: set-up calls (allocation, stream or "
            f"module creation, first kernel loads) fill {fmt_ns(su['setup_ns'])} of the {fmt_ns(su['host_ns'])} the "
            f"{who}")


def _mostly_host_only(bn: Any) -> bool:
    """True when host-only time outside the GPU span is at least half the profiled window."""
    edges, window = _host_only_edges(bn)
    return bool(window) and edges >= 0.5 * window


def host_holds_path(results: dict) -> tuple[float, float] | None:
    """(the host's share, the GPU's share) of the steps' critical path when the host paces the steps, else None:
    the critical-path analysis finds the path held by the host (its ``bound`` ``cpu``) *and* most launches find the
    GPU ready — their median wait behind earlier GPU work (:func:`backlog_wait`) is under
    :data:`~gpulens.analyzers.verdict_rules.QUEUED_LAUNCH_NS`. With a deeper queue the GPU has a backlog most of the
    time and paces those phases whatever the host does (GPT-2 on an H200: median wait 261 µs, up to 19 ms): a path
    walked along a busy host thread does not make the host the pacer then. The GPU's share counts the host waits
    during which the GPU was busy (they wait on GPU work), as the critical path's own bound does; the host's is the
    rest of the path but for time no recorded cause explains."""
    from gpulens.analyzers.verdict_rules import QUEUED_LAUNCH_NS

    cp, ll = results.get("critical_path"), results.get("launch_latency")
    s, _ = run_path(results)
    path = float(s.get("path_ns") or 0)
    if getattr(cp, "skipped", True) or s.get("bound") != "cpu" or not path > 0:
        return None
    wait = backlog_wait(ll)
    if wait is None or wait != wait or wait >= QUEUED_LAUNCH_NS:
        return None
    host, gpu = path_shares(s)
    return (host, gpu) if host > gpu else None


def backlog_wait(ll: Any) -> float | None:
    """The run's median wait behind earlier GPU work (``launch_latency`` ``backlog_p50_ns``: the GPU's busy time
    inside each launch's queue delay), None when launch latency was not measured. A queue delay the GPU spent idle
    is no backlog (one kernel starting 64.12 ms after its call with nothing else on the GPU). A summary without the
    key (a report cached before session 49) reads the queue delay, the figure it then stood for."""
    if getattr(ll, "skipped", True):
        return None
    s = getattr(ll, "summary", None) or {}
    return s.get("backlog_p50_ns", s.get("queue_p50_ns"))


def run_path(results: dict) -> tuple[dict, bool]:
    """The critical-path summary as the run verdict reads it, and whether it is the steady-state reading: when
    ``bottlenecks`` leaves warm-up / one-off gaps out of the verdict (its ``steady_span_ns``) and the path has a
    steady-state reading (``steady_path_ns``, :mod:`gpulens.analyzers._critical_steady`), the ``path_ns``,
    ``host_share``, ``gpu_held_share`` and ``bound`` keys are those over the steady state — one window per run
    judgement (SGLang decode on an MI300X: "gpu-bound (judged on the steady state)" beside a whole-trace path 97.9 %
    host, all but 2 % of it one 463 ms blocking copy the verdict left out). Else the summary as it is."""
    cp, bn = results.get("critical_path"), results.get("bottlenecks")
    s = dict(getattr(cp, "summary", None) or {})
    if (getattr(bn, "summary", None) or {}).get("steady_span_ns") and s.get("steady_path_ns"):
        s.update(path_ns=s["steady_path_ns"], host_share=s["steady_host_share"],
                 gpu_held_share=s["steady_gpu_held_share"], bound=s["steady_bound"])
        return s, True
    return s, False


def path_shares(s: dict) -> tuple[float, float]:
    """(host, GPU) shares of the critical path from the critical-path summary ``s``: its ``host_share`` (defined
    once, in :mod:`gpulens.analyzers.critical_path`) and the GPU work plus the host waits on a busy GPU
    (``gpu_held_share``, the share its ``bound`` rests on)."""
    if "host_share" in s and "gpu_held_share" in s:
        return float(s["host_share"] or 0.0), float(s["gpu_held_share"] or 0.0)
    # a summary without them (a JSON report of an earlier version, a hand-built one): the same definition, from its
    # parts
    from gpulens.analyzers.critical_path import held_shares

    path = float(s.get("path_ns") or 0.0)
    return held_shares(path, float(s.get("gpu_share") or 0.0) * path, float(s.get("host_wait_gpu_busy_ns") or 0.0),
                       float(s.get("unattributed_share") or 0.0) * path)


def host_share_basis(s: dict, steady: bool = False) -> str:
    """How the host's share of the critical path (``host_share`` of the summary ``s``, as :func:`run_path` gives it)
    follows from the path's class rows, in words: the host classes' summed time (CPU ops, runtime calls,
    synchronisations, host idle, launch delays: every row but the GPU classes and the unattributed waits) less the
    host's waits while the GPU was busy (counted with the GPU work), over the path's length. "" when the parts are
    not in the summary (an earlier version's JSON report). GPT-2 on an H200 read "host work (74.1 % of it)" beside
    step rows of CPU ops 64.1 %, runtime 15.1 %, host idle 20.7 %: 224.10 ms of host rows less 56.53 ms of waits
    on the busy GPU, of a 226.13 ms path over 3 steps."""
    from gpulens.analyzers._critical_paths import GPU_CLASSES
    from gpulens.units import fmt_ns

    classes = s.get("steady_class_ns" if steady else "class_ns")
    on_gpu = s.get("steady_host_wait_gpu_busy_ns" if steady else "host_wait_gpu_busy_ns")
    path = float(s.get("path_ns") or 0)
    if not classes or on_gpu is None or not path > 0:
        return ""
    rows = sum(int(v) for k, v in classes.items() if k not in GPU_CLASSES and k != "unattributed")
    host = max(rows - int(on_gpu), 0)
    from gpulens.analyzers.critical_path import path_sum_words

    over = "" if steady else f" {path_sum_words(s)}".rstrip()
    less = f" less {fmt_ns(int(on_gpu))} of host waits while the GPU was busy" if on_gpu else ""
    return f": {fmt_ns(host)} of the {fmt_ns(path)} path{over} — its host rows' {fmt_ns(rows)}{less}"


def verdict_scope(bn: Any, gpus: int = 1) -> str | None:
    """The part of the GPU span a run verdict is about, in words, when it is not the whole span: the warm-up / tail /
    one-off idle gaps the verdict leaves out (bottlenecks' ``boundary`` gaps, ``idle_boundary_ns``) hold at least the
    bottlenecks ``min_share`` (10 %) of the span (``device_span_ns``, summed over GPUs) — below it they are
    negligible and the verdict is about the span as shown. Gaps all before the first kernel or after the last
    (``position`` leading / trailing) lie provably outside the steady state: "judged on the steady state: 11.60 ms,
    12.9 % of the span"; a gap between kernels does not (a stall of the run itself, its cause unknown): "judged
    on the span less a one-off gap: …" (the time after the colon is what was judged, never the gap). The reports put
    it in the verdict's label ("gpu-bound (judged on the steady state: 11.60 ms, 12.9 % of the span)"), so a badge
    never reads "gpu-bound" beside a GPU 87 % idle (rocprof v1 gunrock MI300X: a 78.42 ms warm-up gap of a 90.02 ms
    span).
    With ``gpus`` > 1 GPUs (the breakdown's ``gpu_count``) both figures are sums over them, and say so: "judged on
    the steady state: 14.02 s summed over the 4 GPUs, 35.0 % of their summed spans" — a bare "14.02 s" beside a
    10.45 s wall span read as a span longer than the run (nvprof V100×4 NCCL trace: 40.01 s of summed spans).
    None when the verdict is about the whole span or a figure is not measured."""
    if bn is None or getattr(bn, "skipped", True):
        return None
    s = bn.summary
    left, span, steady = s.get("idle_boundary_ns"), s.get("device_span_ns"), s.get("steady_span_ns")
    if any(v is None or pd.isna(v) for v in (left, span, steady)) or not int(span) > 0 or not int(steady) > 0:
        return None
    if int(left) < float(s.get("min_share") or 0.1) * int(span):
        return None
    positions = {str(g.get("position")) for g in (s.get("boundary_gaps") or [])}
    where = "on the steady state" if positions and positions <= {"leading", "trailing"} else (
        # the figure after the colon is the time judged, named first: "judged outside a one-off gap: 179.00 µs" read
        # as the gap's length (a 179.00 µs remainder of a span the gap filled)
        "on the span less a one-off gap" if len(s.get("boundary_gaps") or []) <= 1 else "on the span less one-off gaps")
    # the time judged first, then its share: "steady state: 12.9 %" alone read as "12.9 % gpu-bound"
    summed, of = (f" summed over the {gpus} GPUs", "of their summed spans") if gpus > 1 else ("", "of the span")
    return f"judged {where}: {fmt_ns(int(steady))}{summed}, {share_pct_text(100.0 * int(steady) / int(span))} {of}"


def scope_label(scope: str) -> str:
    """:func:`verdict_scope`'s words as the verdict's badge, short: "steady state", "one-off gap left out", "one-off
    gaps left out" — the figures (the time judged, its share of the span, the gap left out) are in the headline
    beside it. The badge "host-bound (judged on the span less a one-off gap: 2.89 s, 22.3 % of the span)" was hard to
    parse (HTA AlexNet). An unknown wording is returned whole."""
    head = str(scope).split(":", 1)[0]
    return {"judged on the steady state": "steady state", "judged on the span less a one-off gap":
            "one-off gap left out", "judged on the span less one-off gaps": "one-off gaps left out"}.get(head, scope)


#: Run verdicts that name the host side: a critical path held by host work agrees with them.
HOST_SIDE = ("host-bound", "launch-bound", "sync-bound")


def path_disagreement(results: dict, run: str) -> str | None:
    """Why the run verdict is not host-side although the critical path runs mostly through host work (its ``bound``
    ``cpu``), in words; None when they agree, no path was walked or the verdict is undetermined. The two use two
    definitions: the run verdict weighs the GPU's computing time against its idle causes over the GPU span; the
    critical path (HTA's definition) is the chain of events that decides each step, host work included while the
    GPU is busy. With launches waiting a median of at least ``QUEUED_LAUNCH_NS`` behind earlier GPU work the GPU has
    a backlog and sets the pace (:func:`host_holds_path`); otherwise the host's work on the path can recover at most
    the GPU idle time waiting for the host, the share the verdict weighed (kineto tb_plugin ResNet-50: path 52 %
    host, GPU busy 70.4 %, median launch wait 8.69 ms)."""
    from gpulens.analyzers.verdict_rules import QUEUED_LAUNCH_NS
    from gpulens.units import fmt_ns

    cp, ll, bn = results.get("critical_path"), results.get("launch_latency"), results.get("bottlenecks")
    s, steady = run_path(results)
    path = float(s.get("path_ns") or 0)
    if getattr(cp, "skipped", True) or s.get("bound") != "cpu" or not path > 0 or run in HOST_SIDE \
            or run in ("undetermined", "no-gpu-work", "incomplete-capture", "truncated-input", "device-work-not-read"):
        return None
    # over the steady state the verdict judges when it leaves gaps out (run_path): one window for both figures
    over = " over the verdict's steady state" if steady else ""
    head = (f"the critical path{over} runs mostly through host work "
            f"({share_pct_text(100.0 * path_shares(s)[0])} of it{host_share_basis(s, steady)})")
    edges = _host_only_edges(bn)[0]
    if not s.get("stepped") and not steady and outside_span(bn) is not None and edges >= 0.5 * path:
        # a path walked over the whole window runs through the start-up and teardown the verdict leaves out (nsys
        # lashi streamSimple: 75.94 ms of host-only time outside a 76.93 µs GPU span, 99.9 % of the path)
        return (f"{head}: mostly the {fmt_ns(edges)} of host-only time outside the GPU span (start-up, teardown), "
                "which the verdict does not judge")
    wait = backlog_wait(ll)
    if wait is not None and wait == wait and wait >= QUEUED_LAUNCH_NS:
        # two figures of two kinds beside each other (GPT-2 on an H200: a median launch queued 260.87 µs beside
        # 47.38 ms of GPU idle waiting for the host): a per-launch wait while the GPU was busy, and the GPU's total
        # idle time in the gaps between those backlogs — both true, said so
        host = (getattr(bn, "summary", None) or {}).get("idle_host_ns") if not getattr(bn, "skipped", True) else None
        also = (f" — a wait per launch; the {fmt_ns(host)} of GPU idle waiting for the host is a total over the gaps "
                "between those backlogs" if host and host == host else "")
        # the launch waits are read over the whole trace: beside steady-state figures they say so
        whole = " of the whole trace (warm-up included)" if steady else ""
        return (f"{head}, but the median launch{whole} waits {fmt_ns(wait)} behind earlier GPU work (the GPU had a "
                f"backlog{also})")
    return f"{head}; cutting it recovers at most the GPU idle time waiting for the host, weighed above"
