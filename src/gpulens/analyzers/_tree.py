"""The findings tree: each nanosecond at stake counted once (issue 14.6).

Findings form a tree through ``Finding.key`` / ``Finding.parent``: a child details its parent and its time is part
of the parent's time (``idle`` → ``idle/host``, ``idle/launch``, ``idle/sync``, ``idle/queued``...;
``kernel:<name>`` → the roofline, ncu-rule or stall findings about that kernel). Rankings and totals use the roots
only; reporters show the children under their root.

Rules applied to the findings of one source (:func:`arrange`):

* a kernel is named by ``Finding.kernel`` whatever its text (an empty name recorded for a kernel is a kernel too);
* a finding whose ``parent`` names no finding present is a root (its parent was not reported, e.g. idle below
  the reporting threshold);
* a finding about a kernel (``kernel`` set, no ``parent``, ``key`` not ``kernel:<name>``) becomes a child of that
  kernel's verdict finding ``kernel:<name>`` when one exists: a kernel is ranked once, by its verdict;
* without a verdict finding, the root findings about one kernel (occupancy, ncu rules, stalls, ...) are grouped the
  same way: the one with the largest time at stake stays the root (given the key ``kernel-findings:<name>`` when it
  has none) and the others become its children — several estimates about one kernel never add up to more than the
  largest of them, so never to more than the kernel's time;
* roots rank by :func:`rank_key`: findings whose time at stake rests on an unverified ``premise`` about the
  kernel (not only on the assumed GPU's figures) after every quantified finding without one, then findings about
  time outside the GPU span (context the verdict does not judge), then those with an unknown gain, each group largest time at stake first (an upper bound that may not hold never outranks a
  determined figure: a last-wave estimate for a kernel whose bound is undetermined ranks below measured idle time);
* a child's time at stake is part of its parent's: where a child's estimate exceeds its quantified parent's, the
  child is shown with the parent's figure (e.g. a wave-quantization estimate under a verdict whose roofline
  distance is smaller: the kernel cannot gain more than its distance to the roof);
* a parent is at least as severe as any finding under it, and a child with its parent's time at stake (the same
  figure, detailed) exactly as severe (:func:`raise_parents`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from gpulens.analyzers._stake import only_assumed_gpu
from gpulens.analyzers.base import Finding


def rank_key(f: Finding) -> tuple[int, int]:
    """The sort key of findings in every ranking: determined times at stake first (no ``premise``, or one resting
    only on the assumed GPU's figures — :func:`gpulens.analyzers._stake.only_assumed_gpu`: the measured time
    against the identified GPU, the best estimate the input allows, ranked by its size and shown with its premise:
    ncu H200 CSV's 603.93 µs on an assumed H200 once ranked after a measured 20 ns; where a measured lower bound
    stands beside such a figure, that lower bound is ``time_at_stake_ns`` and ranks, the assumed upper bound only
    named, :func:`gpulens.analyzers._stake.upper_clause`), then upper bounds resting on a
    premise about the kernel itself (its bound undetermined), then findings whose gain is unknown; within each, the
    largest time at stake first. Findings about time outside the GPU span (:data:`OUTSIDE_SPAN_CATEGORIES`: host-only
    start-up or teardown, which the run verdict does not judge) rank after the workload's findings with a time at
    stake, as context, whatever their size — above the verdict they led a list whose verdict said it leaves them out
    (HTA AlexNet: 30.51 s before the GPU idle inside the span; nsys lashi streamSimple: 75.94 ms before 13.86 µs)."""
    stake = f.time_at_stake_ns or 0
    premise = getattr(f, "premise", "")
    if getattr(f, "category", "") in OUTSIDE_SPAN_CATEGORIES:
        return (2 if stake else 3), -stake
    return (0 if stake and (not premise or only_assumed_gpu(premise)) else 1 if stake else 3), -stake


#: Categories of findings about time outside the GPU span the run verdict judges (the profiled window's host-only
#: edges, :mod:`gpulens.analyzers._window_findings`): context ranked after the workload's findings (:func:`rank_key`).
OUTSIDE_SPAN_CATEGORIES = ("host-only-window",)


#: Severities from the least to the most severe.
SEVERITY_ORDER = ("info", "warning", "critical")


def resolve_parents(findings: list[Finding]) -> list[Finding]:
    """The findings in the same order with their parents resolved by the module's rules (copies where a parent was
    set, dropped or a group key given)."""
    keys = {f.key for f in findings if f.key}
    out = []
    for f in findings:
        parent = f.parent if f.parent in keys and f.parent != f.key else None
        if parent is None and f.kernel is not None and f.key != f"kernel:{f.kernel}" and f"kernel:{f.kernel}" in keys:
            parent = f"kernel:{f.kernel}"
        out.append(f if parent == f.parent else replace(f, parent=parent))

    # one root per kernel without a verdict finding: the largest estimate ranks it, the others detail it
    by_kernel: dict[str, list[int]] = {}
    for i, f in enumerate(out):
        if f.parent is None and f.kernel is not None and f.category != "data-quality" and f.key != f"kernel:{f.kernel}":
            by_kernel.setdefault(f.kernel, []).append(i)
    for name, idx in by_kernel.items():
        if len(idx) < 2:
            continue
        top = max(idx, key=lambda i: out[i].time_at_stake_ns or -1)  # the first of equals
        if not out[top].key:
            out[top] = replace(out[top], key=f"kernel-findings:{name}")
        for i in idx:
            if i != top:
                out[i] = replace(out[i], parent=out[top].key)
    return out


def arrange(findings: list[Finding]) -> list[Finding]:
    """The findings with parents resolved (copies where a parent was set or dropped), in tree order: roots by time
    at stake (largest first, unquantified last, stable), each followed by its children in the same order."""
    out = resolve_parents(findings)
    rank = rank_key
    children: dict[str, list[Finding]] = {}
    for f in out:
        if f.parent is not None:
            children.setdefault(f.parent, []).append(f)
    ordered: list[Finding] = []

    def walk(f: Finding, depth: int) -> None:
        ordered.append(f)
        if f.key and depth < 8:
            limit = children_cap(f)
            for c in sorted(children.get(f.key, []), key=rank):
                if limit is not None and (c.time_at_stake_ns or 0) > limit:
                    c = replace(c, time_at_stake_ns=limit)  # part of the parent's time
                walk(c, depth + 1)

    for f in sorted((f for f in out if f.parent is None), key=rank):
        walk(f, 0)
    return ordered


def children_cap(f: Finding) -> int | None:
    """The most a finding under ``f`` may show at stake [ns]: ``f``'s time at stake, or its upper bound where that
    figure is a measured lower bound (``Finding.stake_upper_ns``); None when unknown (no cap)."""
    up = getattr(f, "stake_upper_ns", None)
    if up is None or f.time_at_stake_ns is None:
        return f.time_at_stake_ns
    return max(int(up), int(f.time_at_stake_ns))


def cap_children(results: dict) -> None:
    """Apply "a child's time is part of its parent's" to the stored results of one analysis, in place.

    ``results``: name → AnalysisResult of one :func:`gpulens.analyzers.run_all`. A finding whose ``parent`` is the
    key of a finding of any analyzer, with a quantified time at stake, gets at most that time (parents first, so a
    chain is capped at its smallest ancestor). Run once after every analyzer, so that the figure in each analysis's
    own findings (the JSON's ``analyses``) is the one the findings tree shows, whatever order the analyzers ran in
    (one process, or the forked split of :mod:`gpulens.analyzers._parallel_run`, where an analyzer may have read a
    parent before another analyzer refined it).
    """
    every = [f for r in results.values() for f in (getattr(r, "findings", None) or [])]
    by_key: dict[str, Finding] = {}
    for f in every:
        if f.key and f.key not in by_key:
            by_key[f.key] = f

    def cap(f: Finding, depth: int) -> int | None:  # the most the findings under f may show
        parent = by_key.get(f.parent) if f.parent and f.parent != f.key else None
        if parent is None or depth > 8:
            return children_cap(f)
        limit = cap(parent, depth + 1)
        if limit is not None and f.time_at_stake_ns is not None and f.time_at_stake_ns > limit:
            note_capped(f, f.time_at_stake_ns, int(limit))
            if (f.key or "").endswith("/waves"):  # its title's share follows the capped time at stake
                _retitle_wave(f, results)
        own = children_cap(f)
        return own if own is None or limit is None else min(own, limit)

    for f in every:
        cap(f, 0)
    raise_parents(every)
    say_steps_once(every)


#: How a child finding's next step begins when its parent's already gives it (:func:`say_steps_once`): the
#: parent's title follows, so that the pointer names the finding it points to.
SAME_STEP = "The same next step as the finding above"


def same_step(parent: Finding) -> str:
    """The pointer a child finding reads in place of its parent's step: :data:`SAME_STEP` and which finding that is
    (the kernel's verdict, else the parent's title)."""
    if (parent.key or "").startswith("kernel:"):  # a kernel's findings sit under its verdict
        return f"{SAME_STEP}: this kernel's verdict."
    title = (parent.title or "").strip().rstrip(".")
    return f"{SAME_STEP} (“{title}”)." if title else f"{SAME_STEP}."


def say_steps_once(findings: list[Finding]) -> None:
    """A next step is said once along a branch of the findings tree, in place: a child whose action repeats its
    parent's (the whole of it, or the parent's step inside a longer one) keeps only what it adds, and points to the
    step above. BERT-small on an H100: the align2 GEMM's padding step stood under its verdict, again under its
    roofline finding and a third time under its occupancy finding. Parents are those of :func:`resolve_parents`
    (a kernel's findings under its verdict)."""
    resolved = resolve_parents(findings)
    by_key = {f.key: f for f in findings if f.key}
    for f, r in zip(findings, resolved):
        parent = by_key.get(r.parent) if r.parent else None
        step, above = (f.action or "").strip(), (getattr(parent, "action", None) or "").strip()
        if not above or parent is f:
            continue
        pointer = same_step(parent)
        if above in (f.detail or ""):  # a step written into the detail (a roofline finding's alignment hint)
            f.detail = f.detail.replace(above, pointer)
        if not step:
            continue
        if step == above or step in above:
            f.action = pointer
        elif above in step:
            rest = step.replace(above, "").strip()
            f.action = f"{rest} {pointer}" if rest else pointer


def _retitle_wave(f: Finding, results: dict) -> None:
    """:func:`gpulens.analyzers._occ_findings.retitle_wave` with the kernel's time from the occupancy table."""
    from gpulens.analyzers._occ_findings import retitle_wave

    occ = results.get("occupancy")
    t = getattr(occ, "table", None)
    if t is None or f.kernel is None or not len(t) or "name" not in t or "time_ns" not in t:
        return
    hit = t.loc[t["name"].astype(str) == str(f.kernel), "time_ns"]
    if len(hit):
        retitle_wave(f, hit.iloc[0])


def note_capped(f: Finding, was: int, limit: int, part: str = "the time of the finding this one details") -> None:
    """Set ``f``'s time at stake to ``limit`` (ns), below the ``was`` ns it describes, and say so in its detail: a
    title that reads "… hold 90 % of the step time" beside a smaller time at stake read as a contradiction
    (fresh-user walk, gunrock rocprof trace: 81.00 ms described, 2.57 ms at stake). ``part``: what the capped time
    is, in words (any parent-child pair: a kernel's occupancy finding under its verdict as well as idle causes)."""
    from gpulens.units import fmt_ns

    f.time_at_stake_ns = int(limit)
    detail, said = f.detail or "", _CAPPED.search(f.detail or "")
    if said:  # capped again (by a parent's parent): one sentence, with the time first described
        detail, was_text = detail[:said.start()], said.group(1)
    else:
        was_text = fmt_ns(was)
    f.detail = (f"{detail} At stake: {fmt_ns(limit)} of the {was_text} described — only the part that is also "
                f"{part}.").strip()


_CAPPED = re.compile(r" ?At stake: [^ ]+ [^ ]+ of the ([^ ]+ [^ ]+) described — only the part .*$")


def raise_parents(findings: list[Finding]) -> None:
    """A finding is at least as severe as any finding under it in the tree (:func:`resolve_parents`), in place: a
    kernel's verdict rated ``info`` above an occupancy ``warning`` about the same kernel read as "nothing to see"
    next to its own detail (fresh-user walk of the demo trace). A child carrying its parent's time at stake details
    the same figure and takes the parent's severity. A parent that gets a key from the grouping rule gets it again
    when the tree is arranged: only severities change here."""
    resolved = resolve_parents(findings)
    index = {}
    for i, f in enumerate(resolved):
        if f.key and f.key not in index:
            index[f.key] = i
    level = {s: n for n, s in enumerate(SEVERITY_ORDER)}
    for i, f in enumerate(resolved):
        own = level.get(findings[i].severity, 0)
        j, depth = index.get(f.parent) if f.parent else None, 0
        if j is not None and j != i and findings[i].time_at_stake_ns is not None \
                and findings[i].time_at_stake_ns == findings[j].time_at_stake_ns:
            # a child showing its parent's very figure (its own estimate capped there) is rated as the parent is,
            # below: it never raises it — ncu H200 CSV: tiny's 20 ns verdict read "warning" (its ncu rules, rated
            # by ncu's local estimates) above gemm_naive's 88.40 µs "info"
            continue
        while j is not None and j != i and depth < 8:
            if level.get(findings[j].severity, 0) < own:
                findings[j].severity = SEVERITY_ORDER[own]
            p = resolved[j].parent
            j, depth = (index.get(p) if p else None), depth + 1
    # a child that details its parent's very figure (the same time at stake: a kernel's roofline placement under its
    # verdict) is rated as the parent is — one rule for one figure; before, "runs below both roofs" read info under
    # a warning verdict with the same 21.06 µs at stake, by the roofline's own cut-off (10 % of the placed time)
    for i, f in enumerate(resolved):
        j = index.get(f.parent) if f.parent else None
        if (j is not None and j != i and findings[i].time_at_stake_ns is not None
                and findings[i].time_at_stake_ns == findings[j].time_at_stake_ns):
            findings[i].severity = findings[j].severity


def roots(findings: list[Finding]) -> list[Finding]:
    """The findings that count in rankings and totals (no parent after :func:`arrange`), in :func:`rank_key`
    order."""
    return [f for f in arrange(findings) if f.parent is None]
