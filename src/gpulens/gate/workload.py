"""Whether two runs are the same workload: the kernel-name overlap that ``gpulens gate`` and ``gpulens diff`` state
once, at the top, when it is low.

A regression gate compares one program before and after a change; between two different programs (a GPT-2 training
step against an SGLang decode step) every figure differs, and "vanished" kernels, byte counts and launch counts read
as regressions or ambiguities that say nothing about either. Two runs of one workload keep most of their GPU time in
kernels both run, even across a library change that renames some of them (a new GEMM tile, a fused epilogue).

The figures: per side, the share of its kernel time [ns] spent in kernels whose name (``kernel_key``: the name
without template arguments, as the gate keys kernels) the other side also runs — the *overlap* is the smaller of
the two shares — and the share of distinct kernel names in common (of the side with fewer). The runs are called
different workloads when both are below :data:`WORKLOAD_OVERLAP_MIN`: one renamed kernel holding most of the time
(a GEMM re-tiled by a library update) leaves most names in common, and is a change to gate, not another program.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Under this kernel-time overlap (the smaller side's share of kernel time in kernels both run) two runs are not
#: the same workload: more than half of one run's GPU time is in kernels the other never runs.
WORKLOAD_OVERLAP_MIN = 0.5


def kernel_overlap(base: Mapping[str, float], cand: Mapping[str, float]) -> dict[str, Any] | None:
    """The kernel-name overlap of two runs (module doc). ``base`` / ``cand``: kernel key → kernel time [ns] (NaN or
    non-positive times count as 0). Returns ``common`` (kernel names both run), ``base_kernels``, ``cand_kernels``
    (names per side), ``base_share`` / ``cand_share`` (fraction 0..1 of each side's kernel time in the common
    kernels), ``overlap`` (the smaller share), ``name_share`` (``common`` over the smaller side's name count) and
    ``same_workload`` (either ``overlap`` or ``name_share`` at least ``WORKLOAD_OVERLAP_MIN``); None when either side
    has no kernel time (nothing to judge by)."""
    b = {k: float(v) for k, v in base.items() if v == v and v > 0}
    c = {k: float(v) for k, v in cand.items() if v == v and v > 0}
    bt, ct = sum(b.values()), sum(c.values())
    if not bt or not ct:
        return None
    common = set(b) & set(c)
    bs, cs = sum(b[k] for k in common) / bt, sum(c[k] for k in common) / ct
    names = len(common) / min(len(b), len(c))
    return {"common": len(common), "base_kernels": len(b), "cand_kernels": len(c), "base_share": bs,
            "cand_share": cs, "overlap": min(bs, cs), "name_share": names,
            "same_workload": min(bs, cs) >= WORKLOAD_OVERLAP_MIN or names >= WORKLOAD_OVERLAP_MIN}


def workload_text(ov: Mapping[str, Any], base: str = "baseline", cand: str = "candidate") -> str:
    """The one sentence saying two runs are not the same workload, with the overlap figures of
    :func:`kernel_overlap` (``base`` / ``cand``: what each side is called)."""
    def pct(x: float) -> str:
        return f"{100 * x:.1f} %" if x >= 0.001 else "0 %" if x == 0 else "under 0.1 %"

    return (f"the runs are not the same workload: {pct(ov['base_share'])} of the {base}'s kernel time and "
            f"{pct(ov['cand_share'])} of the {cand}'s is in kernels both run ({ov['common']} kernel "
            f"{'name' if ov['common'] == 1 else 'names'} in common, of the {base}'s {ov['base_kernels']} and the "
            f"{cand}'s {ov['cand_kernels']}; with under "
            f"{100 * WORKLOAD_OVERLAP_MIN:.0f} % of the time and of the names in common the figures below compare two "
            "programs, not a change)")


def mixed_workloads(runs: list[tuple[str, Mapping[str, float]]]) -> list[str]:
    """Runs of one side (a baseline's, or a gate's candidates) that are not the same workload as the first run
    with kernel time: ``runs`` is ``[(label, kernel key → kernel time [ns])]`` in order; returns one note naming
    those runs (with the smallest overlap's figures, :func:`kernel_overlap`), or ``[]``. Such runs pool the
    samples of two programs: the medians and the run-to-run noise the gate tests against describe neither."""
    timed = [(label, k) for label, k in runs if kernel_overlap(k, k) is not None]
    if len(timed) < 2:
        return []
    first, ref = timed[0]
    odd = [(label, ov) for label, k in timed[1:]
           if (ov := kernel_overlap(ref, k)) is not None and not ov["same_workload"]]
    if not odd:
        return []
    label, ov = min(odd, key=lambda x: x[1]["overlap"])
    names = ", ".join(str(x) for x, _ in odd[:3]) + (f" and {len(odd) - 3} more" if len(odd) > 3 else "")
    return [f"{len(odd)} of the {len(timed)} runs ({names}) {'is' if len(odd) == 1 else 'are'} not the same "
            f"workload as the first ({first}): " + workload_text(ov, "first run", "other run").split(": ", 1)[1]
            .replace("the figures below compare two programs, not a change", "their samples pool two programs: "
                     "the medians and the noise the gate tests against describe neither")]


def steps_differ(base_env: Mapping[str, Any], cand_env: Mapping[str, Any], base: str = "baseline",
                 totals: str = "span, kernel times, launches, bytes") -> str:
    """Why two sides' runs are not the same measurement although the same workload: their runs profiled different
    numbers of ``ProfilerStep#N`` steps (``environment["steps"]``: each side's distinct per-run step counts,
    :func:`gpulens.gate.environment.environment_of`) — a candidate profiling 5 steps of a baseline's 10 reads as 40 %
    less span, kernel time and launches, and its median step as another step. Returns the one sentence, or ``""``
    when either side recorded no steps or the sides share a count (one run of a side with a step more or less, a
    step the profiler cut, does not make every run incomparable). ``base``: what the first side is called;
    ``totals``: the per-run figures named."""
    b, c = ([n for n in e.get("steps") if isinstance(n, int) and not isinstance(n, bool)]
            if isinstance(e.get("steps"), list) else [] for e in (base_env, cand_env))
    if not b or not c or set(b) & set(c):
        return ""

    def each(ns: list[int]) -> str:
        return f"{ns[0]}" if len(ns) == 1 else " or ".join(map(str, sorted(ns)))

    return (f"the runs profiled different numbers of steps: the {base}'s {each(b)} per run, the candidate's "
            f"{each(c)} (ProfilerStep#N markers; per-run totals — {totals} — then measure different amounts of "
            "work: profile the same steps, e.g. one torch.profiler schedule, on both sides)")


def mixed_steps(runs: list[tuple[str, list[int]]]) -> list[str]:
    """Runs of one side that profiled another number of ``ProfilerStep#N`` steps than most of its runs: ``runs`` is
    ``[(label, environment["steps"])]``; returns one note naming them, or ``[]``. Their span, kernel times and counts
    measure more or less work than the others' (a run cut after 5 of 10 steps reads as 40 % faster), so the side's
    medians and noise are not one measurement's."""
    counts = [(label, s[0]) for label, s in runs if s]
    if len({n for _, n in counts}) < 2:
        return []
    values = [n for _, n in counts]
    usual = max(sorted(set(values)), key=values.count)
    odd = [(label, n) for label, n in counts if n != usual]
    names = ", ".join(f"{label} ({n})" for label, n in odd[:3]) + (f" and {len(odd) - 3} more" if len(odd) > 3 else "")
    return [f"{len(odd)} of the {len(counts)} runs profiled another number of steps than the others' {usual}: {names}; "
            "their per-run totals measure more or less work, so they are not samples of one measurement"]
