"""Inputs read as one multi-rank run that are not one job: split into runs of their own before analysis.

A folder of trace files is read as the ranks of one job (:func:`gpulens.collectors.collect`). Two kinds of folder
are not one job, and analysed as one they report a "rank imbalance", a wall span and a verdict between programs
that never ran together:

* files that record different GPUs (an H100 trace beside an MI300X trace): :func:`split_mixed_devices`;
* files of unrelated runs on one GPU model (two models' Kineto traces, one run saved twice), told apart by
  :func:`unrelated_groups` when no file records a distributed job that holds them all (Kineto's
  ``distributedInfo`` with one ``world_size`` > 1 and distinct ranks): ranks whose kernels are not the same program
  (under :data:`SAME_KERNELS_MIN` of the distinct kernel names of the rank with fewer in common) or whose GPU work
  lies further apart on one epoch clock than either run lasts (both record Kineto's ``baseTimeNanoseconds``) are
  different runs. Ranks of one job run one program (data parallel: the same kernels; an MPI job of one binary: the
  same), and overlap in time. A rank with no kernel gives no evidence: it stays with the first group.

Each group is read again on its own (a group of one file from that file; of several, its rows kept from the
Timeline already read) and carries a reading note naming the reason (:func:`note_split`: the same words on every
part, said once for the folder); the CLI then prints one report per run.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from gpulens.collectors import collect
from gpulens.timeline import Timeline
from gpulens.units import fmt_ns

#: Ranks of one job share at least this fraction of the distinct kernel names of the rank with fewer (data-parallel
#: ranks of the shared multi-rank Kineto trace share 94 %; two different models' traces share none).
SAME_KERNELS_MIN = 0.5


def device_names(tl: Timeline) -> set[str]:
    """The distinct GPU names the Timeline's inputs record (empty names ignored)."""
    return {str(d.get("name")).strip() for d in tl.meta.devices if d.get("name") and str(d.get("name")).strip()}


def split_mixed_devices(label: str, tl: Timeline, **collect_kw: Any) -> list[tuple[str, Timeline]]:
    """``[(label, Timeline)]`` of the runs in ``tl`` (see the module doc): one per file when its files record
    different GPUs, one per group of :func:`unrelated_groups`, else ``[(label, tl)]`` unchanged; each split part's
    warnings say why it stands alone. ``collect_kw``: passed to :func:`gpulens.collectors.collect` on re-reading."""
    names = device_names(tl)
    paths = [str(x["path"]) for x in tl.meta.sources if x.get("path")]
    if len(set(paths)) < 2:
        return [(label, tl)]
    if len(names) >= 2:
        out = []
        said = (f"{label}: its files record different GPUs ({', '.join(sorted(names))}); each file is analysed as a "
                "run of its own, not merged with the others")
        for p in dict.fromkeys(paths):
            part = collect(p, **collect_kw)
            note_split(part, said)
            out.append((p, part))
        return out
    groups, why = unrelated_groups(tl)
    if len(groups) < 2:
        return [(label, tl)]
    out = []
    for ranks in groups:
        own = [s for s in tl.meta.sources if int(s.get("rank", 0) or 0) in ranks]
        files = list(dict.fromkeys(str(s["path"]) for s in own if s.get("path")))
        if len(files) == 1:
            part_label, part = files[0], collect(files[0], **collect_kw)
            # the folder's notes about this file (the same ncu capture read once from it...) stay with its run
            base = Path(files[0]).name
            part.meta.warnings += [w for w in tl.meta.warnings if w.startswith(f"{label}: ") and base in w
                                   and "record no rank" not in w]
        else:
            part_label, part = f"{label} (rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, sorted(ranks)))})", _rows_of(tl, ranks)
        note_split(part, f"{label}: its files are not the ranks of one job ({why}); each run is analysed on its "
                         "own, not merged with the others")
        out.append((part_label, part))
    return out


def note_split(part: Timeline, note: str) -> None:
    """Record on ``part`` (in place) why it stands alone: a reading note of its first source entry (``reading_notes``
    of ``meta.sources``, :func:`gpulens.reports._warnings.reading_notes`) — how the folder was read, nothing lost,
    not a fault of this file's input. The same words on every part of one folder, so that a report of several runs
    says them once (:func:`gpulens.reports._warnings.shared_notes`) and each run's input line holds its own
    warnings only (a folder of 23 unrelated traces printed the folder's note 39 times, as each report's first
    input warning)."""
    srcs = [dict(x) if isinstance(x, dict) else x for x in part.meta.sources]  # copies: a parent's dicts untouched
    first = next((x for x in srcs if isinstance(x, dict)), None)
    if first is None:
        part.meta.warnings.append(note)
        return
    first["reading_notes"] = [*(first.get("reading_notes") or []), note]
    part.meta.sources = srcs


def _rows_of(tl: Timeline, ranks: set[int]) -> Timeline:
    """The Timeline of ``ranks`` alone: their rows, sources and devices (no selection recorded: nothing was cut)."""
    from gpulens.timeline.selection import Selection

    part = Selection(ranks=frozenset(ranks)).apply(tl)
    part.meta = dataclasses.replace(
        tl.meta, sources=[s for s in tl.meta.sources if int(s.get("rank", 0) or 0) in ranks],
        devices=[d for d in tl.meta.devices if int(d.get("rank", 0) or 0) in ranks],
        warnings=list(tl.meta.warnings))
    return part


def _one_job(sources: list[dict]) -> bool:
    """Every source records one distributed job (the same ``world_size`` > 1) and the ranks are distinct."""
    dist = [s.get("distributed") for s in sources]
    if not dist or not all(isinstance(d, dict) for d in dist):
        return False
    sizes = {d.get("world_size") for d in dist}
    ranks = [d.get("rank") for d in dist]
    return len(sizes) == 1 and isinstance(next(iter(sizes)), int) and next(iter(sizes)) > 1 and \
        len({r for r in ranks if r is not None}) >= len({str(s.get("path")) for s in sources})


def unrelated_groups(tl: Timeline) -> tuple[list[set[int]], str]:
    """The ranks of ``tl`` grouped into runs (module doc), and the reason of the first split said as a phrase
    (``""`` when one group). Only a Timeline of ≥ 2 ranks read from ≥ 2 files, no distributed job recorded, is
    judged; anything else is one group."""
    import numpy as np

    sources = [s for s in tl.meta.sources if isinstance(s, dict)]
    ev = tl.events
    if len({str(s.get("path")) for s in sources}) < 2 or not len(ev) or _one_job(sources):
        return [set(tl.ranks)], ""
    ranks = sorted(int(r) for r in tl.ranks)
    if len(ranks) < 2:
        return [set(ranks)], ""
    kernel = ev["kind"].to_numpy() == "kernel" if not hasattr(ev["kind"], "cat") else \
        ev["kind"].cat.codes.to_numpy() == (list(ev["kind"].cat.categories).index("kernel")
                                            if "kernel" in ev["kind"].cat.categories else -2)
    rank_col = ev["rank"].to_numpy()[kernel]
    codes = ev["name"].cat.codes.to_numpy()[kernel] if hasattr(ev["name"], "cat") else \
        ev["name"].astype("category").cat.codes.to_numpy()[kernel]
    start = ev["start_ns"].to_numpy()[kernel]
    end = start + ev["dur_ns"].to_numpy()[kernel]
    names: dict[int, set[int]] = {}
    spans: dict[int, tuple[int, int]] = {}
    if len(rank_col):  # one pass over the kernels, not one per rank
        pairs = np.unique(np.stack([rank_col.astype(np.int64), codes.astype(np.int64)]), axis=1)
        for r, c in zip(pairs[0].tolist(), pairs[1].tolist()):
            names.setdefault(r, set()).add(c)
        order = np.argsort(rank_col, kind="stable")
        rs, first = np.unique(rank_col[order], return_index=True)
        lo, hi = np.minimum.reduceat(start[order], first), np.maximum.reduceat(end[order], first)
        spans = {int(r): (int(a), int(b)) for r, a, b in zip(rs, lo, hi)}
    epoch = {int(s.get("rank", 0) or 0) for s in sources if s.get("base_time_ns")}
    reasons: list[str] = []

    def apart(a: int, b: int) -> str:
        a, b = min(a, b), max(a, b)
        if a not in names or b not in names:
            return ""  # a rank with no kernel: no evidence either way
        common = len(names[a] & names[b])
        if common < SAME_KERNELS_MIN * min(len(names[a]), len(names[b])):
            return (f"no distributed job is recorded and ranks {a} and {b} run different kernels: {common} of their "
                    f"{len(names[a])} and {len(names[b])} kernel names in common")
        if a in epoch and b in epoch:
            (s1, e1), (s2, e2) = sorted([spans[a], spans[b]])
            gap = s2 - e1
            if gap > max(e1 - s1, e2 - s2, 1_000_000_000):
                return (f"no distributed job is recorded and the GPU work of ranks {a} and {b} lies {fmt_ns(gap)} "
                        "apart on one clock, longer than either runs: two runs one after the other")
        return ""

    groups: list[list[int]] = []
    for r in ranks:
        for g in groups:  # against the group's first 3 ranks with kernels (1,000 process files: no n² pairs)
            why = next((w for w in (apart(r, o) for o in [o for o in g if o in names][:3]) if w), "")
            if not why:
                g.append(r)
                break
            reasons.append(why)
        else:
            groups.append([r])
    if len(groups) < 2:
        return [set(ranks)], ""
    return [set(g) for g in groups], reasons[0]
