"""The warnings :func:`gpulens.collectors._dispatch.build_timeline` gives one file: what its rows lacked or held
that cannot be read (counted over that file's rows only), in the order a reader meets them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from gpulens.collectors._dispatch_rows import UNNAMED, Dispatches
from gpulens.timeline import TimelineMeta
from gpulens.units import agree, plural


def file_notes(meta: TimelineMeta, d: Dispatches, path: Path, rank: int, *, lone: Any, n_no_dev: int,
               n_neg_dev: int, neg_example: int | None, negative: int, unwhole: int, unnamed: int,
               beyond: dict[str, int], dup_note: str | None, reasons: pd.Series | None, kept: int,
               unlisted: dict[int, int] | None = None, kept_resources: int = 0) -> None:
    """Append to ``meta.warnings`` (and, for GPU rows without a device, to ``meta.devices``) the notes of one
    file ``path`` whose rows were read into ``d``.

    Args:
        lone: the file's only GPU when it lists one (its device-less GPU rows went there), else None.
        n_no_dev: valid GPU rows that record no device; n_neg_dev / neg_example: those with a negative device id
            and the first such id; negative / unwhole: size or count cells read as unknown; unnamed: rows without
            a name; beyond: id kind → values beyond int64; dup_note: the exact-duplicates warning, if any;
            reasons: the reason of each row that is not an event (None: every row is one); kept: the counter
            values of those rows kept in ``tables["unattached_counters"]``, ``kept_resources`` of them launch
            resources (VGPR/SGPR counts, scratch bytes, wave size: read from the dispatch row or its kernel symbol,
            no hardware counter — a rocpd dispatch without an event id has no counter of its own); unlisted: device → GPU rows on a
            device the file's agent list does not hold as a GPU (:func:`unlisted_note`).
    """
    if unlisted:
        unlisted_note(meta, d, path, rank, unlisted)
    if n_no_dev and lone is None:
        many = ("the trace does not list its GPUs" if d.gpus is None else
                f"the trace lists {plural(len(set(d.gpus)), 'GPU')}" if d.gpus else "the trace lists no GPU")
        meta.warnings.append(f"{path}: {plural(n_no_dev, 'GPU row(s)')} (kernels, copies) {agree(n_no_dev, 'records', 'record')} no device (agent id "
                             f"absent, empty "
                             f"or naming no listed agent): shown on device 0, which is not known to be the GPU that "
                             f"ran them ({many}); "
                             "per-GPU figures count them with device 0")
        if not any(isinstance(x, dict) and x.get("device_id") == 0 and x.get("rank", rank) == rank
                   for x in meta.devices):  # device 0 stands in for them: listed, hardware unknown (no 2nd warning)
            vendor = next((x.get("vendor") for x in meta.devices if isinstance(x, dict) and x.get("vendor")), None)
            meta.devices.append({"rank": rank, "device_id": 0, "name": None, "vendor": vendor,
                                 "stand_in": d.gpus is None or not d.gpus})  # not a record of the file's
    if neg_example is not None:
        meta.warnings.append(f"{path}: {plural(n_neg_dev, 'GPU row(s)')} {agree(n_neg_dev, 'records', 'record')} a negative "
                             f"device (agent) id (e.g. {neg_example}), which no GPU has: read as not recorded")
    if negative:
        meta.warnings.append(f"{path}: {plural(negative, 'negative size or count value(s)')} (workgroup, grid, LDS, "
                             "registers, bytes) read as unknown")
    if unwhole:
        meta.warnings.append(f"{path}: {plural(unwhole, 'size or count value(s)')} (workgroup, grid, LDS, registers, "
                             f"bytes) {agree(unwhole, 'is', 'are')} no whole number (a fraction such as 7.5, inf, "
                             "text): read as unknown")
    if unnamed:
        meta.warnings.append(f"{path}: {plural(unnamed, 'row(s)')} without a name (symbol or string not "
                             f"recorded): named {UNNAMED!r}")
    if d.unreadable_counter_cells:
        meta.warnings.append(f"{path}: {plural(d.unreadable_counter_cells, 'counter value(s)')} {agree(d.unreadable_counter_cells, 'is not a number', 'are not numbers')} (e.g. "
                             f"{d.unreadable_counter_example}): read as unknown, left out of every mean and total")
    if beyond:
        k = sum(beyond.values())
        meta.warnings.append(f"{path}: {plural(k, 'id value(s)')} beyond int64 (±2^63) read as unknown: "
                             + ", ".join(f"{name} ×{v}" for name, v in sorted(beyond.items())))
    if d.unreadable_field_cells:
        k = d.unreadable_field_cells
        meta.warnings.append(f"{path}: {plural(k, 'id or size value(s)')} (queue, agent, process, thread, "
                             f"correlation, workgroup, grid, LDS, registers) {agree(k, 'is', 'are')} no number (e.g. "
                             f"{d.unreadable_field_example}): read as unknown")
    meta.warnings.extend(d.notes)
    if d.sci_notation_rows:
        meta.warnings.append(f"{path}: {plural(d.sci_notation_rows, 'row(s)')} {agree(d.sci_notation_rows, 'has', 'have')} timestamps in scientific notation "
                             "(e.g. 8.1097E+14): ns precision is lost; zero durations are rejected, not reported")
    if dup_note:
        meta.warnings.append(dup_note)
    if reasons is not None and len(reasons):
        nr = len(reasons)
        by = pd.Series(reasons).value_counts()
        meta.warnings.append(f"{path}: {plural(nr, 'row(s)')} {agree(nr, 'is no event', 'are not events')}: "
                             f"" + ", ".join(f"{k} ×{v}" for k, v in by.items())
                             + (f"; {_kept_words(kept, kept_resources)}" if kept else ""))


def _kept_words(kept: int, resources: int) -> str:
    """What is kept of the rows that are not events: their hardware counter values and launch resources (``kept``
    values, ``resources`` of them resources), each named for what it is."""
    pmc = kept - resources
    res = (f"{plural(resources, 'launch-resource value(s)')} (VGPR/SGPR counts, scratch bytes, wave size — "
           "read from the dispatch and its kernel symbol, not hardware counters)")
    where = "kept in the kernel counters table (per kernel name, no time)"
    if not pmc:
        return f"they carry no hardware counter value; their {res} {agree(resources, 'is', 'are')} {where}"
    return (f"their {plural(pmc, 'hardware counter value(s)')}" + (f" and {res}" if resources else "")
            + f" {agree(kept, 'is', 'are')} {where}")


def unlisted_note(meta: TimelineMeta, d: Dispatches, path: Path, rank: int, unlisted: dict[int, int]) -> None:
    """Say that GPU rows ran on agents the trace's agent list does not hold as a GPU (``agent_info.csv`` with only
    the CPU row), and list each such device with its hardware unknown and why (``unknown_why``, shown where the
    device is named), so no report reads "not recorded" as if the trace never named an agent."""
    n = sum(unlisted.values())
    why = ("its agent list holds CPU agents only" if not d.gpus else
           f"its agent list holds {plural(len(set(d.gpus)), 'GPU')}: node " + ", ".join(map(str, sorted(set(d.gpus)))))
    nodes = ", ".join(map(str, sorted(unlisted)))
    meta.warnings.append(f"{path}: {plural(n, 'GPU row(s)')} (kernels, copies) ran on agent node {nodes}, which the "
                         f"trace does not list as a GPU ({why}): the name, architecture and CU count of that GPU are "
                         "unknown, so no hardware spec (pass --device-spec)")
    have = {(x.get("rank", rank), x.get("device_id")) for x in meta.devices if isinstance(x, dict)}
    for node in sorted(unlisted):
        if (rank, node) not in have:
            meta.devices.append({"rank": rank, "device_id": node, "name": None, "vendor": "AMD",
                                 "unknown_why": "the trace's agent list does not list this GPU"})
