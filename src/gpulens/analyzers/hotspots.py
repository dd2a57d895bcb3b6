"""Hotspots: which kernels take the GPU time, and the performance-critical set that covers 80 % of it."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers._groupstats import stable_order
from gpulens.analyzers._span import durations_unknown, replayed_for_counters
from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.analyzers.context import category_mask, codes_of, context_of, reindex_sorted, text_series, unique_ints
from gpulens.timeline import Timeline
from gpulens.units import agree, fmt_ns, plural

#: Kinds ranked as "kernels" (compute and collective kernels; copies and sets are not kernels).
KERNEL_KINDS = ("kernel", "comm")

COLUMNS = {
    "name": "kernel name as recorded",
    "kind": "kernel (compute) or comm (NCCL/RCCL collective)",
    "calls": "number of launches",
    "total_ns": "plain sum of recorded durations [ns]",
    "effective_ns": "sum of durations after clipping overruns of the next kernel on the same stream [ns]",
    "mean_ns": "effective_ns / calls [ns]",
    "min_ns": "shortest effective duration [ns]",
    "max_ns": "longest effective duration [ns]",
    "share": "effective_ns / all kernels' effective_ns [fraction 0..1]",
    "cumulative_share": "running sum of share in ranking order [share]",
    "critical": "in the performance-critical set (smallest set of names covering the critical fraction; every "
                "name of a counter-collection replay of at most 32 names — ncu, rocprof-compute: each kernel was "
                "profiled on purpose)",
    "gpus": "GPUs (rank × device) the kernel ran on: over several, its times are sums over them — device time, which "
            "may exceed the run's wall span [count]; unknown without a timeline",
}


def gpus_per_name(k: pd.DataFrame, names: pd.Series) -> np.ndarray:
    """How many GPUs (distinct rank × device) each of ``names`` ran on, from the kernel events ``k`` (``name``,
    ``rank``, ``device_id``); float, NaN for a name without events or when the columns are missing. One sort of
    (name code, GPU) keys, no per-row strings."""
    if not len(k) or not {"rank", "device_id"} <= set(k.columns):
        return np.full(len(names), np.nan)
    nc = codes_of(k["name"]) if isinstance(k["name"].dtype, pd.CategoricalDtype) else None
    cats = k["name"].cat.categories if nc is not None else None
    if nc is None:
        nc, cats = pd.factorize(k["name"].astype(str))
    key = k["rank"].to_numpy(dtype="int64", na_value=-1) * (1 << 20) + k["device_id"].to_numpy(dtype="int64",
                                                                                           na_value=-1)
    ok = nc >= 0
    if key.min() == key.max():  # one GPU (most traces): one per name that ran, no pairs to sort
        n = (np.bincount(nc[ok], minlength=len(cats)) > 0).astype(np.int64)
    else:
        pairs = unique_ints(nc[ok].astype(np.int64) * (1 << 32) + pd.factorize(key)[0][ok])
        n = np.bincount(pairs >> 32, minlength=len(cats))
    by = dict(zip(pd.Index(cats).astype(str), n.astype(float)))
    return np.array([by.get(str(x), np.nan) for x in names], dtype=float)


#: A counter-collection replay (ncu, rocprof-compute, rocprof pmc) of at most this many kernel names puts every one
#: in the critical set: the user picked them (ncu -k / --launch-count), and each gets its roofline, occupancy and
#: verdict however small its share of the replay's time.
PROFILED_NAMES = 32


def critical_set(shares: np.ndarray, fraction: float) -> np.ndarray:
    """Boolean mask of the smallest prefix of descending ``shares`` whose sum reaches ``fraction``.

    The kernel whose share crosses the threshold is included (so the set covers at least ``fraction``).
    """
    if shares.size == 0:
        return np.zeros(0, dtype=bool)
    cum = np.cumsum(shares)
    k = int(np.searchsorted(cum, fraction - 1e-12)) + 1
    mask = np.zeros(shares.size, dtype=bool)
    mask[: min(k, shares.size)] = True
    return mask


#: Clipped events named one by one in the overrun finding's detail (more are in ``summary["overruns"]``).
MAX_LISTED = 20
#: Clipped events listed in ``summary["overruns"]`` (the JSON report): the largest overruns, plus every event cut
#: at the end of the run (the gate and diff read those). A trace of one kernel recorded 400,000 times at one
#: timestamp listed all 400,000: an 88 MB JSON report, a third of the run's time spent writing it.
MAX_JSON_LISTED = 1000


def graph_replays(t: pd.DataFrame) -> dict[str, int]:
    """``{"graph_replays": launches, "graphs": distinct graphs}`` of the per-kernel table ``t`` (``name``, ``calls``)
    whose rows are whole CUDA graph replays traced at graph level (:func:`gpulens.timeline.names.is_graph_replay`),
    counted among ``kernel_count`` / ``unique_kernels``; ``{}`` when there are none."""
    from gpulens.timeline.names import is_graph_replay

    g = t[[is_graph_replay(n) for n in t["name"].astype(str)]] if len(t) else t
    return {"graph_replays": int(g["calls"].sum()), "graphs": int(len(g))} if len(g) else {}


def _clip(name: str, n: int = 80) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def _clipped_events(timeline: Timeline, over: pd.DataFrame) -> list[dict[str, Any]]:
    """GPU events clipped by the stream-overrun repair: name, rank, device, stream, start, raw duration and how
    much was clipped [ns], largest overrun first — the :data:`MAX_JSON_LISTED` largest and every one cut at the
    end of the run (``past_run_end``); ``over`` holds them all (the summary counts them from it)."""
    if not len(over):
        return []
    if len(over) > MAX_JSON_LISTED:  # rank before building a dict per event: the rest are counted, not listed
        # ties broken by what the event is (start, duration, place), not by its row: the same events are listed
        # whatever order the input recorded them in
        ev = timeline.events.loc[over.index]
        keys = [ev[c].to_numpy("int64", na_value=-1) for c in ("stream_id", "device_id", "rank", "dur_ns",
                                                               "start_ns")]
        order = np.lexsort(keys + [-over["overrun_ns"].to_numpy("int64")])
        top = over.index[order[:MAX_JSON_LISTED]]
        keep = over.index.isin(top) | (over["runaway"].to_numpy(bool) if "runaway" in over else False)
        over = over[keep]
    ev = timeline.events.loc[over.index]
    rows = pd.DataFrame({"name": ev["name"].astype(str), "rank": ev["rank"].astype("int64"),
                         "device_id": ev["device_id"].astype("int64"), "stream_id": ev["stream_id"].fillna(-1)
                         .astype("int64"), "start_ns": ev["start_ns"].astype("int64"),
                         "dur_ns": ev["dur_ns"].astype("int64"), "overrun_ns": over["overrun_ns"].astype("int64")})
    if "runaway" in over:  # cut at the end of the rest of the run, not at a next event on its stream
        rows["past_run_end"] = over["runaway"].astype(bool)
    rows = rows.sort_values(["overrun_ns", "start_ns", "dur_ns", "rank", "device_id", "stream_id", "name"],
                            ascending=[False, True, True, True, True, True, True], kind="stable")
    return [{k: (v if isinstance(v, (str, bool)) else int(v)) for k, v in r.items()} for r in rows.to_dict("records")]


def _runaway_finding(timeline: Timeline, runaway: pd.DataFrame) -> Finding:
    """The data-quality warning for GPU events cut by the runaway rule
    (:func:`gpulens.analyzers.intervals._runaway_cut`): each with its recorded and kept duration, and the end of
    the rest of its rank's run it was cut at (from the rank's first event), so both figures are stated."""
    ev = timeline.events
    keep = ev["kind"].astype(str) != "other"
    first = ev.loc[keep].groupby("rank", observed=True)["start_ns"].min()
    rows = ev.loc[runaway.index]
    listed = []
    for (i, r), eff in zip(rows.iterrows(), runaway["effective_ns"].to_numpy("int64")):
        t0 = int(first.get(r["rank"], r["start_ns"]))
        end = int(r["start_ns"]) + int(eff)
        if not eff:  # it starts after the rest of the run ended: nothing bounds it (analyzers._unknown_time)
            listed.append(f"{_clip(str(r['name']))} (rank {r['rank']}, stream {r['stream_id']}): recorded "
                          f"{fmt_ns(int(r['dur_ns']))}, starting {fmt_ns(int(r['start_ns']) - t0)} after the rank's "
                          "first event, when the rest of the run had ended: its duration is unknown")
            continue
        listed.append(f"{_clip(str(r['name']))} (rank {r['rank']}, stream {r['stream_id']}): recorded "
                      f"{fmt_ns(int(r['dur_ns']))}, kept {fmt_ns(int(eff))} — up to the end of the rest of the run, "
                      f"{fmt_ns(end - t0)} after the rank's first event; the {fmt_ns(int(r['dur_ns']) - int(eff))} "
                      "past it is left out")
    n = len(runaway)
    return Finding(
        f"{plural(n, 'GPU event(s)')} {agree(n, 'ends', 'end')} far past every other event of the run",
        f"The last event of a stream (no next event to clip it at) ends past every other event of its rank, host and "
        f"GPU, by more than the rest of the run lasts: a recorded duration that cannot be the kernel's (shared case "
        f"B07's fault, on a stream's last event). {'; '.join(listed[:MAX_LISTED])}"
        f"{f'; and {n - MAX_LISTED} more (all in the JSON report)' if n > MAX_LISTED else ''}. GPU span, busy time, "
        "the profiled window and the per-kernel tables use the kept durations (unknown for one that starts after "
        "the rest of the run ended); the recorded sum is kept as the recorded time.",
        severity="warning", category="data-quality", key="runaways",
        action="Treat the recorded duration as a recording fault; if the kernel really ran that long, keep the "
               "host recording until it ends (a torch.cuda.synchronize() before the profiler stops), and the "
               "synchronize call then bounds it.")


#: launch calls that can carry the programmatic-stream-serialization attribute (programmatic dependent launch)
_PDL_LAUNCH = re.compile(r"^(cuLaunchKernelEx|cudaLaunchKernelEx|cudaLaunchKernelExC)(_v[0-9]+)?$")


def _pdl_followed(timeline: Timeline, gpu: pd.DataFrame, over: pd.DataFrame) -> int:
    """How many overrunning GPU events (``over``, indexed like ``gpu``) are followed on their stream by an event whose
    launch call (the runtime event of the same rank and correlation id) can request programmatic dependent launch
    (:data:`_PDL_LAUNCH`): with it the later kernel starts before the earlier ends on purpose (CUDA Programming
    Guide, "Programmatic Dependent Launch and Synchronization", compute capability 9.0+)."""
    ev = timeline.events
    if not len(over) or "correlation_id" not in ev:
        return 0
    # the PDL-capable launch calls only, tested once per distinct name (no copy of every runtime row, no str per row)
    ctx = context_of(timeline)
    keep = ctx.mask_of("runtime") & ev["correlation_id"].notna().to_numpy() & category_mask(ev["name"], _PDL_LAUNCH)
    rt = ctx.take_rows(keep, ["rank", "correlation_id"])
    if not len(rt):
        return 0
    pdl = set(zip(rt["rank"].astype("int64"), rt["correlation_id"].astype("int64")))
    g = gpu.assign(_s=gpu["stream_id"].fillna(-1)).sort_values(["rank", "device_id", "_s", "start_ns"],
                                                                kind="stable")
    same = (g[["rank", "device_id", "_s"]].shift(-1) == g[["rank", "device_id", "_s"]]).all(axis=1)
    nxt_corr = g["correlation_id"].shift(-1).where(same)
    n = 0
    for i in over.index:
        c = nxt_corr.get(i)
        if c is not None and pd.notna(c) and (int(g.at[i, "rank"]), int(c)) in pdl:
            n += 1
    return n


def blit_kernels(timeline: Timeline) -> dict[str, int]:
    """The vendor runtime's copy/fill (blit) kernels the Timeline counts as copies and fills, not kernel time
    (:func:`gpulens.collectors._work_rules.blit_kernel_rows`: HIP ``__amd_rocclr_copyBuffer``…): ``{"blit_kernel_calls":
    launches, "blit_kernel_ns": their summed duration [ns]}`` from the ``memcpy``/``memset`` events, or from the
    summary's ``copy`` rows (rocprof ``results.stats.csv``) when the Timeline has no event; ``{}`` when there is none.
    A vendor's own per-kernel shares count them as kernels (rocprof's 84.25 % for a kernel gpulens puts at 90.0 %),
    so reports say it beside every share of kernel time."""
    from gpulens.collectors._work_rules import blit_kernel_rows

    ev = context_of(timeline).of_kind("memcpy", "memset")
    if len(ev):
        b = ev[blit_kernel_rows(ev["name"])]
        calls, ns = len(b), b["dur_ns"].sum()
    else:
        st = timeline.tables.get("rocprof_stats")
        if st is None or "domain" not in st or not {"Name", "Calls", "TotalDurationNs"} <= set(st.columns):
            return {}
        st = st[(st["domain"].astype(str) == "copy").to_numpy() & blit_kernel_rows(st["Name"])]
        calls, ns = pd.to_numeric(st["Calls"]).sum(), pd.to_numeric(st["TotalDurationNs"]).sum()
    return {"blit_kernel_calls": int(calls), "blit_kernel_ns": int(ns)} if int(calls) else {}


def _rocprof_kernel_stats(timeline: Timeline) -> pd.DataFrame:
    """A rocprof ``results.stats.csv`` (side table ``rocprof_stats``, kernel domain) in the ``kernel_summary`` form:
    ``name``, ``calls``, ``total_ns`` (``TotalDurationNs``); min/max are not recorded (NaN)."""
    st = timeline.tables.get("rocprof_stats")
    if st is None or not len(st) or not {"Name", "Calls", "TotalDurationNs"} <= set(st.columns):
        return pd.DataFrame()
    if "domain" in st:
        st = st[st["domain"].astype(str) == "kernel"]
    return pd.DataFrame({"name": st["Name"].astype(str), "calls": pd.to_numeric(st["Calls"]).astype("int64"),
                         "total_ns": pd.to_numeric(st["TotalDurationNs"]).astype("int64"),
                         "min_ns": np.nan, "max_ns": np.nan})


def _other_domain_summary(timeline: Timeline) -> str | None:
    """Why a Timeline that holds only per-name summaries of another domain than kernels (rocprof
    ``results.hip_stats.csv`` / ``copy_stats.csv``, rocprofv3 ``hip_api_stats.csv`` / ``memory_copy_stats.csv``) has
    an unknown kernel count — the file summarises API calls or copies, the kernels are in another file of the run:
    "the input is a hip summary (17 names, 36 calls, 308.26 ms summed; the largest: hipStreamCreateWithFlags,
    4 calls, 262.50 ms): it records no kernel …"; None when the Timeline has events or any kernel summary."""
    st = timeline.tables.get("rocprof_stats")
    if st is None or not len(st) or len(timeline.events) or len(timeline.rejected) or "domain" not in st \
            or (st["domain"].astype(str) == "kernel").any() or len(timeline.tables.get("kernel_summary", ())) \
            or len(timeline.tables.get("unattached_counters", ())):
        return None
    domains = ", ".join(sorted(set(st["domain"].astype(str))))
    calls = pd.to_numeric(st.get("Calls"), errors="coerce") if "Calls" in st else None
    total = pd.to_numeric(st.get("TotalDurationNs"), errors="coerce") if "TotalDurationNs" in st else None
    figures = ""
    if calls is not None and total is not None and total.notna().any():
        top = int(total.fillna(-1).to_numpy().argmax())
        figures = (f" ({plural(len(st), 'name')}, {int(calls.sum()):,} calls, {fmt_ns(int(total.sum()))} summed; the "
                   f"largest: {str(st['Name'].iloc[top])[:60]}, {int(calls.iloc[top]):,} calls, "
                   f"{fmt_ns(int(total.iloc[top]))})")
    return (f"the input is a per-name {domains} summary{figures}: it records no kernel launch, so the kernels are "
            "unknown here — give the run's kernel trace or kernel stats file (results.csv / results.stats.csv, "
            "kernel_trace.csv / kernel_stats.csv)")


def _by_code(k: pd.DataFrame, eff: np.ndarray) -> pd.DataFrame | None:
    """Calls, summed recorded and effective durations and min/max effective duration [ns] per (name, kind), in
    order of first appearance, rows without a name or kind left out — a ``groupby(["name", "kind"], sort=False)``
    of the texts computed on the category codes (no per-row strings). None when the columns are not categorical
    or the durations not int64 (the caller then groups the texts)."""
    name, kind = k["name"], k["kind"]
    dur = k["dur_ns"].to_numpy()
    if not (isinstance(name.dtype, pd.CategoricalDtype) and isinstance(kind.dtype, pd.CategoricalDtype)) \
            or dur.dtype != np.int64 or eff.dtype != np.int64:
        return None
    nc, kc = codes_of(name).astype(np.int64), codes_of(kind).astype(np.int64)
    ok = (nc >= 0) & (kc >= 0)  # a missing key drops the row, as groupby does
    rows = np.flatnonzero(ok)
    grp, _ = pd.factorize(nc[ok] * (len(kind.cat.categories) + 1) + kc[ok])
    ng = int(grp.max()) + 1 if len(grp) else 0
    # rows stably by group (a radix sort of the codes): each group's rows contiguous, in row order — reductions per
    # slice (exact int64 sums) instead of unbuffered ufunc.at scatters, and the group's first row is its first
    order = stable_order(grp)
    counts = np.bincount(grp, minlength=ng)
    starts = np.zeros(ng, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    first = rows[order[starts]] if ng else rows[:0]
    d, e = dur[ok][order], eff[ok][order]
    if ng:
        total, eff_sum = np.add.reduceat(d, starts), np.add.reduceat(e, starts)
        lo, hi = np.minimum.reduceat(e, starts), np.maximum.reduceat(e, starts)
    else:
        total = eff_sum = lo = hi = np.zeros(0, dtype=np.int64)
    names = np.asarray(name.cat.categories.astype(object), dtype=object)
    kinds = np.asarray(kind.cat.categories.astype(object), dtype=object)
    # the group keys as a groupby gives them back (an Index infers the same text dtype), for the groups only
    return pd.DataFrame({"name": pd.Series(pd.Index(names[nc[first]])), "kind": pd.Series(pd.Index(kinds[kc[first]])),
                         "calls": np.bincount(grp, minlength=ng).astype(np.int64), "total_ns": total,
                         "effective_ns": eff_sum, "min_ns": lo, "max_ns": hi})



def copy_kinds(timeline: Timeline) -> dict[str, str]:
    """Kernel names the collector classified as copies or fills → ``"memcpy"`` / ``"memset"``: HIP runtime blit
    kernels such as ``__amd_rocclr_copyBuffer`` / ``fillBufferAligned`` whose rejected (untimed) row or timed event
    says so (:mod:`gpulens.collectors._work_rules`). The run summary counts their dispatches as copies and memsets,
    not kernel launches; every per-kernel table of untimed counters reads them through this one classification."""
    kinds: dict[str, str] = {}
    for frame in (timeline.rejected, timeline.events):
        if len(frame) and {"kind", "name"} <= set(frame.columns):
            k = frame["kind"].astype(str)
            sel = k.isin(["memcpy", "memset"]).to_numpy()
            kinds.update(zip(frame["name"].astype(str)[sel], k[sel]))
    return kinds


def _kernel_rows(timeline: Timeline, uc: pd.DataFrame | None) -> pd.DataFrame | None:
    """The rows of ``unattached_counters`` that belong to kernels: rows of dispatches the collector classified as
    copies or fills (:func:`copy_kinds`) are left out, so a trace whose only timed work is copies does not count its
    broken copy rows as kernel launches (seen in a real rocprof v1 results.csv of an RDNA GPU with end-before-start
    rows)."""
    if uc is None or not len(uc) or "name" not in uc:
        return uc
    copies = copy_kinds(timeline)
    if not copies:
        return uc
    return uc[~uc["name"].astype(str).isin(copies)]


class Hotspots(Analyzer):
    """Per kernel name: calls, total/mean/min/max ns, share of GPU kernel time, and the critical set.

    Args:
        critical_fraction: fraction of kernel time the performance-critical set must cover (default 0.8).
    """

    name = "hotspots"
    order = 10

    def __init__(self, critical_fraction: float = 0.8):
        self.critical_fraction = critical_fraction

    def _rank(self, t: pd.DataFrame) -> pd.DataFrame:
        """Sort by effective time, add share / cumulative share / critical, and order the columns."""
        t = t.sort_values(["effective_ns", "calls", "name"], ascending=[False, False, True], kind="stable")
        total = int(t["effective_ns"].sum())
        t["share"] = t["effective_ns"] / total if total else 0.0
        t["cumulative_share"] = t["share"].cumsum()
        t["critical"] = critical_set(t["share"].to_numpy(), self.critical_fraction)
        return t[list(COLUMNS)].reset_index(drop=True)

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        k = context_of(timeline).of_kind(*KERNEL_KINDS)
        if not len(k) and len(timeline.tables.get("kernel_summary", ())):
            return self._from_summary(timeline.tables["kernel_summary"])
        if not len(k) and len(_rocprof_kernel_stats(timeline)):
            res = self._from_summary(_rocprof_kernel_stats(timeline))
            res.summary.update(blit_kernels(timeline))
            return res
        uc = _kernel_rows(timeline, timeline.tables.get("unattached_counters"))
        if not len(k) and uc is not None and len(uc) and "name" in uc:
            seq = uc["dispatch_seq"] if "dispatch_seq" in uc else uc.index.to_series()
            n = int(pd.DataFrame({"n": uc["name"].astype(str), "s": seq.to_numpy()}).drop_duplicates().shape[0])
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  {"kernel_count": n, "unique_kernels": int(uc["name"].astype(str).nunique()),
                                   "kernel_time_ns": None, "critical_count": 0},
                                  skipped_reason="counter rows without timestamps: kernel durations were not "
                                                 "recorded (the per-kernel counters are in kernel_counters)")
        other = _other_domain_summary(timeline) if not len(k) else None
        if other:  # an API / copy summary alone: its kernels were not recorded here, not absent
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  {"kernel_count": None, "kernel_time_ns": None, "critical_count": 0},
                                  skipped_reason=other)
        if not len(k):
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS,
                                  {"kernel_count": 0, "kernel_time_ns": 0, "critical_count": 0},
                                  skipped_reason=None)
        # the kernels' effective durations (a position look-up; the same rows as the GPU events' when the trace has
        # no copies: then no look-up at all)
        eff = reindex_sorted(context_of(timeline).effective_ns, k.index).to_numpy()
        t = _by_code(k, eff)
        if t is None:
            df = pd.DataFrame({"name": text_series(k["name"]), "kind": text_series(k["kind"]),
                               "dur": k["dur_ns"].to_numpy(), "eff": eff})
            g = df.groupby(["name", "kind"], sort=False, observed=True)
            t = pd.DataFrame({
                "calls": g.size(), "total_ns": g["dur"].sum(), "effective_ns": g["eff"].sum(),
                "min_ns": g["eff"].min(), "max_ns": g["eff"].max(),
            }).reset_index()
        t["mean_ns"] = t["effective_ns"] / t["calls"]
        t["gpus"] = gpus_per_name(k, t["name"])
        t = self._rank(t)
        profiled = len(t) <= PROFILED_NAMES and replayed_for_counters(timeline)
        if profiled:  # a counter-collection replay of a few kernels: each was profiled on purpose
            t["critical"] = True
        total_eff = int(t["effective_ns"].sum())

        findings = []
        allrep = context_of(timeline).overruns
        runaway = allrep[allrep["runaway"]]  # cut at the end of the rest of the run: a finding of their own
        over = allrep[(allrep["overrun_ns"] > 0) & ~allrep["runaway"]]
        overran = allrep[allrep["overrun_ns"] > 0]
        clipped = _clipped_events(timeline, overran)
        if len(runaway):
            findings.append(_runaway_finding(timeline, runaway))
        if len(over):
            t0 = int(context_of(timeline).gpu["start_ns"].min())
            listed = "; ".join(f"{_clip(c['name'])} (stream {c['stream_id']}, starting {fmt_ns(c['start_ns'] - t0)} "
                               f"after the first GPU event) by {fmt_ns(c['overrun_ns'])}"
                               for c in clipped[:MAX_LISTED])
            more = (f"; and {len(overran) - MAX_LISTED:,} more ("
                    f"{'all' if len(clipped) == len(overran) else f'the largest {len(clipped):,}'} listed in the JSON "
                    "report)" if len(overran) > MAX_LISTED else "")
            pdl = _pdl_followed(timeline, context_of(timeline).gpu, over)
            why = (f" {pdl} of them are followed by a kernel launched with cuLaunchKernelEx / cudaLaunchKernelEx(C), "
                   "the launch that can carry programmatic dependent launch (compute capability 9.0 and later): that "
                   "kernel may start before the one ahead of it ends, on purpose, so those overlaps may be real "
                   "rather than recording errors." if pdl else "")
            findings.append(Finding(
                f"{plural(len(over), 'GPU event(s)')} {agree(len(over), 'overruns', 'overrun')} the next event on their stream",
                f"Recorded durations run past the start of the following event on the same stream (total "
                f"{fmt_ns(int(over['overrun_ns'].sum()))}). Each clipped event and by how much: {listed}{more}. "
                f"They were clipped for ranking and busy time; the raw sums are kept as the recorded time.{why}",
                severity="warning" if pdl < len(over) and over["overrun_ns"].sum() > 0.01 * max(
                    int(k["dur_ns"].sum()), 1) else "info",
                category="data-quality", key="overruns",
                action=("Treat these kernels' recorded durations with care; the clipped figures are used."
                        if pdl < len(over) else "Read the overlaps as programmatic dependent launch if the code "
                        "enables it (cudaLaunchAttributeProgrammaticStreamSerialization); busy time and ranking use "
                        "the clipped figures, so they count each overlap once.")))
        if durations_unknown(timeline):  # no ranking by time: every kernel is analysed, times are unknown
            t = t.sort_values(["calls", "name"], ascending=[False, True], kind="stable").reset_index(drop=True)
            for c in ("total_ns", "effective_ns", "min_ns", "max_ns", "mean_ns", "share", "cumulative_share"):
                t[c] = np.nan
            t["critical"] = True
            return AnalysisResult(self.name, t, COLUMNS, {
                "kernel_count": int(len(k)), "unique_kernels": int(len(t)), "kernel_time_ns": None,
                "kernel_effective_ns": None, "critical_fraction": self.critical_fraction,
                "critical_count": int(len(t)), "critical_share": None, "overruns": [], "overrun_events": 0,
                "overrun_ns": 0, "durations_unknown": True, **graph_replays(t)}, [])
        crit = t[t["critical"]]
        summary = {
            "kernel_count": int(len(k)),
            "unique_kernels": int(len(t)),
            "kernel_time_ns": int(k["dur_ns"].sum()),
            "kernel_effective_ns": total_eff,
            "critical_fraction": self.critical_fraction,
            "critical_count": int(len(crit)),
            "critical_share": float(crit["share"].sum()) if len(crit) else 0.0,
            "overruns": clipped,
            "runaway_events": int(len(runaway)),
            "overrun_events": int(len(overran)),  # every clipped event: stream overruns and runaways
            "overrun_ns": int(overran["overrun_ns"].sum()),
            "overruns_unlisted": int(len(overran) - len(clipped)),  # beyond MAX_JSON_LISTED: counted, not listed
            "every_profiled_kernel": profiled,
            # the most GPUs one kernel ran on: over 1, the per-kernel times are sums over GPUs (reports say so)
            "kernel_gpus": int(np.nanmax(t["gpus"].to_numpy(dtype=float))) if t["gpus"].notna().any() else None,
            **graph_replays(t),
            **blit_kernels(timeline),  # counted as copies: said beside the shares (a vendor's summary counts them)
        }
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)

    def _from_summary(self, ks: pd.DataFrame) -> AnalysisResult:
        """Rank an aggregate ``kernel_summary`` side table (nsys stats; columns in
        :data:`gpulens.collectors.nsys_stats.SUMMARY_COLUMNS`) when the Timeline has no kernel events.

        Same table columns as from events; with no timeline there are no overruns to clip, so
        ``effective_ns = total_ns``. Rows of one name are merged: calls and total summed, min / max over the rows
        (unknown when any row's is unknown). Summary: ``kernel_count`` = Σ calls, ``kernel_time_ns`` = Σ total_ns.
        """
        from gpulens.timeline.names import UNNAMED

        names = ks["name"].astype(str)
        names = names.where(names.str.strip() != "", UNNAMED)  # a blank Name reads as every blank event name does
        t = pd.DataFrame({"name": names, "kind": np.where(names.str.contains("nccl|rccl", case=False), "comm", "kernel"),
                          "calls": ks["calls"].astype("int64"), "total_ns": ks["total_ns"].astype("int64")})
        t = t.groupby(["name", "kind"], sort=False, as_index=False).sum()
        first = ks.groupby(names, sort=False)
        t["effective_ns"] = t["total_ns"]
        # rows of one name merged: their min / max are known only when every row's is (a row whose statistics
        # are unknown would leave the max of the others beside a mean that includes it)
        for col, how in (("min_ns", "min"), ("max_ns", "max")):
            v = getattr(first[col], how)().where(~ks[col].isna().groupby(names, sort=False).any())
            t[col] = v.reindex(t["name"]).to_numpy()
        t["mean_ns"] = t["effective_ns"] / t["calls"].where(t["calls"] > 0)
        t["gpus"] = np.nan  # a summary table records no GPU per kernel
        t = self._rank(t)
        total = int(t["total_ns"].sum())
        crit = t[t["critical"]]
        summary = {
            "kernel_count": int(t["calls"].sum()), "unique_kernels": int(len(t)), "kernel_time_ns": total,
            "kernel_effective_ns": total, "critical_fraction": self.critical_fraction,
            "critical_count": int(len(crit)), "critical_share": float(crit["share"].sum()) if len(crit) else 0.0,
            "overrun_events": 0, "overrun_ns": 0, "from_summary": True,
        }
        return AnalysisResult(self.name, t, COLUMNS, summary, [])
