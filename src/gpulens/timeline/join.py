"""Attach Nsight Compute metrics to the matching kernels of another Timeline (Kineto, nsys).

ncu profiles kernels one at a time (often a subset: ``-k``, ``--launch-skip``, ``--launch-count``), so its Timeline
has no usable clock. Its launches are matched to the target's kernel events

1. by **kernel base name** — the identifier left after dropping a leading return type (``void``), the argument
   list, template arguments and namespaces (``void at::native::vectorized_elementwise_kernel<4, …>(int, …)`` and
   ncu's shortened ``void vectorized_elementwise_kernel<4, …>(int, T2)`` both give
   ``vectorized_elementwise_kernel``), since ncu and the framework print templates differently;
2. then by **launch order** within that name: the k-th ncu launch is tried against the target's launches of that
   name in start order, from just after the previously matched one;
3. checked by **launch configuration**: when both sides record grid and block sizes, a candidate whose
   configuration differs is skipped and the next launch of that name is tried.

The result: the target's Counters gain the ncu rows re-keyed to the matched events (``source`` stays ``ncu_csv`` /
``ncu_rep``), the ncu rule table is re-keyed the same way, and :class:`JoinResult` says how many launches matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from gpulens.timeline.schema import COUNTER_COLUMNS
from gpulens.timeline.timeline import Timeline, _concat_tables
from gpulens.units import plural

_CONFIG = ["grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z"]


def base_name(name: str) -> str:
    """Kernel identifier without return type, namespaces, template and argument lists (see module docstring)."""
    s = str(name).strip()
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):  # cut at the first '(' outside template brackets: the argument list
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif ch == "(" and depth == 0 and i > 0:
            cut = i
            break
    s = s[:cut]
    out, depth = [], 0
    for ch in s:  # drop template arguments
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(ch)
    s = "".join(out).strip()
    s = s.split()[-1] if s.split() else s  # drop return type ("void")
    return re.split(r"::", s)[-1]


@dataclass
class JoinResult:
    """Outcome of :func:`attach_ncu`.

    Attributes:
        timeline: the target Timeline with the ncu Counters (and ``tables["ncu_rules"]``) attached.
        launches: ncu launches offered.
        matched: launches matched to a target kernel.
        config_mismatches: candidates skipped because grid/block differed.
        mapping: ncu event_id → target event_id for the matched launches.
    """

    timeline: Timeline
    launches: int
    matched: int
    config_mismatches: int
    mapping: dict[int, int]


def _config(row: pd.Series) -> tuple | None:
    vals = [row[c] for c in _CONFIG]
    return None if any(pd.isna(v) for v in vals) else tuple(int(v) for v in vals)


def attach_ncu(target: Timeline, ncu: Timeline) -> JoinResult:
    """Match ncu launches to ``target``'s kernels and attach their Counters (see module docstring).

    Args:
        target: a Timeline with real kernel events (Kineto, nsys).
        ncu: a Timeline from the ``ncu_csv`` or ``ncu_rep`` collector.

    Returns:
        :class:`JoinResult`; ``target`` itself is not modified. A warning with the match count is added to the
        returned Timeline's ``meta.warnings`` and the ncu source (with ``matched``) to ``meta.sources``.
    """
    tk = target.of_kind("kernel", "comm").sort_values(["start_ns", "event_id"], kind="stable")
    by_name: dict[str, list[int]] = {}
    for idx, nm in zip(tk.index, tk["name"].astype(str)):
        by_name.setdefault(base_name(nm), []).append(idx)
    cursor: dict[str, int] = {}
    mapping: dict[int, int] = {}
    mismatches = 0
    nk = ncu.of_kind("kernel").sort_values("event_id")
    for _, row in nk.iterrows():
        key = base_name(str(row["name"]))
        cands = by_name.get(key, [])
        want = _config(row)
        i = cursor.get(key, 0)
        while i < len(cands):
            got = _config(tk.loc[cands[i]])
            if want is None or got is None or got == want:
                break
            mismatches += 1
            i += 1
        if i < len(cands):
            mapping[int(row["event_id"])] = int(tk.loc[cands[i], "event_id"])
            cursor[key] = i + 1
        else:
            cursor[key] = len(cands)
    co = ncu.counters[ncu.counters["event_id"].isin(list(mapping))].copy()
    co["event_id"] = co["event_id"].map(mapping).astype("int64")
    counters = _concat_tables([target.counters, co], COUNTER_COLUMNS)
    tables = dict(target.tables)
    if "ncu_rules" in ncu.tables:
        r = ncu.tables["ncu_rules"]
        r = r[r["event_id"].isin(list(mapping))].copy()
        r["event_id"] = r["event_id"].map(mapping).astype("int64")
        tables["ncu_rules"] = pd.concat([tables["ncu_rules"], r], ignore_index=True) if "ncu_rules" in tables else r
    meta = type(target.meta).from_dict(target.meta.to_dict())
    label = ncu.meta.sources[0]["path"] if ncu.meta.sources else "ncu"
    meta.sources += [{**s, "matched": len(mapping), "attached_to_events": True} for s in ncu.meta.sources]
    meta.warnings.append(f"{label}: ncu metrics attached to {len(mapping):,} of {len(nk):,} profiled launches "
                         f"(by kernel name, launch order and grid/block)"
                         + (f"; {plural(mismatches, 'same-name launch(es)')} skipped for a different configuration"
                            if mismatches else ""))
    tl = Timeline(target.events, counters, target.rejected, meta, tables).validate()
    return JoinResult(tl, int(len(nk)), len(mapping), mismatches, mapping)


__all__ = ["JoinResult", "attach_ncu", "base_name"]
