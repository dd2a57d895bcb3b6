"""GPU events on a device that the file's own device records do not list (a dangling agent / device id).

rocprofv3 (``dispatch_info.agent_id`` with no ``agents`` record, rocpd ``agent_id`` with no ``rocpd_info_agent``
row), nsys (a ``deviceId`` with no ``TARGET_INFO_GPU`` row) and the other collectors that list devices name each
GPU event's device by a key into that list. A damaged or hand-edited file can name a key the list lacks: the
events are still GPU work, but their hardware is unknown. :func:`add_unlisted` records such a device (``name``
None: unknown) so every GPU the breakdown names is among the run's devices, and warns, counting the events.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gpulens.timeline import GPU_KINDS, Timeline

#: collectors whose device record may number the device otherwise than its events (Kineto ``deviceProperties``
#: id 0 with events on device 2 of an MI300X VF): with a single record per rank the events' ids are not checked
_LOOSE_IDS = {"kineto"}


def add_unlisted(tl: Timeline, path: Path, collector: str) -> Timeline:
    """Add a device record (rank, device_id, ``name`` None) for each (rank, device) that GPU events of ``tl`` use
    and its device records of that rank do not list, when the rank lists at least one device (two for
    :data:`_LOOSE_IDS` collectors); append one warning naming the file, the devices and the events' count.

    Returns ``tl`` (changed in place)."""
    listed: dict[int, set[int]] = {}
    for d in tl.meta.devices:
        if isinstance(d, dict) and d.get("device_id") is not None and d.get("rank") is not None:
            listed.setdefault(int(d["rank"]), set()).add(int(d["device_id"]))
    need = 2 if collector in _LOOSE_IDS else 1
    ranks = {r for r, ids in listed.items() if len(ids) >= need}
    ev = tl.events
    if not ranks or not len(ev):
        return tl
    gpu = ev[ev["kind"].isin(GPU_KINDS) & ev["device_id"].notna() & ev["rank"].isin(list(ranks))]
    if not len(gpu):
        return tl
    pairs = gpu.groupby(["rank", "device_id"], observed=True).size()
    missing = [(int(r), int(d), int(n)) for (r, d), n in pairs.items() if int(d) not in listed[int(r)]]
    if not missing:
        return tl
    vendor = {int(d["rank"]): d.get("vendor") for d in tl.meta.devices if isinstance(d, dict) and d.get("rank") is not None}
    for r, d, _ in missing:
        tl.meta.devices.append({"rank": r, "device_id": d, "name": None, "vendor": vendor.get(r)})
    n = int(np.sum([m[2] for m in missing]))
    ids = ", ".join(str(d) for _, d, _ in missing[:5]) + (" …" if len(missing) > 5 else "")
    tl.meta.warnings.append(f"{path}: {n:,} GPU event(s) on device(s) {ids} that the file's device records do not "
                            "list (a dangling device id): their hardware is unknown")
    return tl
